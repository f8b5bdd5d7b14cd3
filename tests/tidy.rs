//! Tidiness the code map relies on, checked over the whole workspace: every Rust source file
//! opens with a `//!` comment saying what it holds.

use std::path::{Path, PathBuf};

/// The workspace's top (the folder holding Cargo.lock).
fn top() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(&here)
        .to_path_buf()
}

/// Every `.rs` file under `dir`, leaving out build output.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "corpus" && name != "artifacts" {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_source_file_opens_with_a_module_comment() {
    let top = top();
    let mut files = Vec::new();
    for dir in [
        "query", "storage", "index", "engine", "benches", "tests", "fuzz",
    ] {
        sources(&top.join(dir), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|f| f.strip_prefix(&top).unwrap_or(f).display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a //! header: {missing:?}"
    );
}
