//! `adjoin eval` through the binary: one-line cases, stdin mode, ads from files.

mod common;

fn adjoin(args: &[&str], stdin: &str) -> (String, String, bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = common::cli::run(args, dir.path(), stdin, &[]);
    (out.stdout, out.stderr, out.code == 0)
}

fn eval_is(expr: &str, want: &str) {
    let (out, err, ok) = adjoin(&["eval", expr], "");
    assert!(ok, "adjoin eval {expr:?} failed: {err}");
    assert_eq!(out.trim_end(), want, "adjoin eval {expr:?}");
}

#[test]
fn evaluates_single_expressions() {
    eval_is("1 + 2", "3");
    eval_is("\"a\" == \"A\"", "true");
    eval_is("[a = 1; b = a + 2].b", "3");
    eval_is("undefined || true", "true");
    eval_is("1 / 0", "error");
    // An expression may begin with a minus, as ranks often do.
    eval_is("-1", "-1");
    eval_is("-TARGET.LoadAvg", "undefined");
    eval_is("- 2 * 3", "-6");
    // The value printed is HTCondor's text (classad_eval's, classad2's repr): `%.15E` reals,
    // a relative time in whole seconds.
    eval_is("0.1 + 0.2", "3.000000000000000E-01");
    // (A list prints its values, where HTCondor's lazy list keeps `0.1 + 0.2`: docs/language.md.)
    eval_is("{0.1 + 0.2}", "{ 3.000000000000000E-01 }");
    eval_is("relTime(12.5)", "relTime(\"12\")");
    eval_is(
        "string([a = 0.1 + 0.2])",
        "\"[ a = 1.000000000000000E-01 + 2.000000000000000E-01 ]\"",
    );
    eval_is(
        "string([a = 0.30000000000000004])",
        "\"[ a = 3.000000000000000E-01 ]\"",
    );
}

#[test]
fn stdin_mode_prints_one_line_per_expression() {
    let (out, _, ok) = adjoin(&["eval", "-"], "1 + 1\n(((\nstrcat(\"a\", \"b\")\n");
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "2");
    assert!(lines[1].starts_with("parse error: "), "{}", lines[1]);
    assert_eq!(lines[2], "\"ab\"");
}

#[test]
fn stdin_lines_that_are_not_utf8_are_refused_like_loaded_ads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = common::cli::run_bytes(&["eval", "-"], dir.path(), b"1 + 1\n\"a\xff\"\n2\n", &[]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert_eq!(lines[0], "2");
    assert_eq!(
        lines[1],
        "parse error: line 2, column 3: bytes that are not UTF-8 (the line is skipped; \
         expressions must be UTF-8)"
    );
    assert!(!out.stdout.contains('\u{fffd}'));
    assert_eq!(lines[2], "2");
    assert_eq!(out.code, 1, "a refused line makes the exit status 1");
}

#[test]
fn ads_from_files_play_my_and_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let my = dir.path().join("job.ad");
    let target = dir.path().join("slot.ad");
    std::fs::write(
        &my,
        "ImageSize = 100\nRequirements = TARGET.Memory > ImageSize\n",
    )
    .expect("write");
    std::fs::write(&target, "[Memory = 2048; Name = \"slot1\"]").expect("write");
    let (out, err, ok) = adjoin(
        &[
            "eval",
            "--ad",
            my.to_str().expect("utf8"),
            "--target",
            target.to_str().expect("utf8"),
            "Requirements && TARGET.Name == \"SLOT1\"",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert_eq!(out.trim_end(), "true");
}
