//! Bad input: a file of good ads with 1,000 malformed ones mixed in loads every good ad and
//! reports each bad one at its exact line; the same in old syntax and JSON, at a smaller scale.

use adjoin::query::{Expr, Value};
use adjoin::{Db, LoadOptions};
use adjoin_workload::{Rng, Workload};

/// A generated text: the good ids in order and the line of each bad ad's error.
struct Input {
    text: String,
    good: Vec<String>,
    bad_lines: Vec<u32>,
}

fn lines(s: &str) -> u32 {
    s.matches('\n').count() as u32
}

/// New syntax: 4,000 good ads (one-line and multi-line) and 1,000 bad ones of six kinds.
fn new_syntax(seed: u64) -> Input {
    let mut w = Workload::new(seed).expect("workload");
    let mut rng = Rng::new(seed);
    let mut out = Input {
        text: String::new(),
        good: Vec::new(),
        bad_lines: Vec::new(),
    };
    let (mut good, mut bad) = (0, 0);
    while good < 4000 || bad < 1000 {
        let at = lines(&out.text) + 1;
        if bad < 1000 && (good >= 4000 || rng.range(0, 5) == 0) {
            let n = bad;
            bad += 1;
            let (text, error_line) = match n % 6 {
                0 => (format!("[Name = \"bad{n}\"; Memory = ]\n"), at),
                1 => (
                    format!("[\n  Name = \"bad{n}\";\n  Cpus = 4 +;\n  Memory = 1\n]\n"),
                    at + 2,
                ),
                // Never closed: the next ad, in column 1, begins after it.
                2 => (format!("[Name = \"bad{n}\"; Memory = 1\n"), at),
                3 => (format!("[Name = \"bad{n}; Memory = 1]\n"), at),
                4 => (format!("[Name = \"bad{n}\"; Memory = 1 $ 2]\n"), at),
                _ => (format!("this is not an ad {n}\n"), at),
            };
            out.text.push_str(&text);
            out.bad_lines.push(error_line);
        } else {
            let mut ad = w.slot_ad(good);
            let id = format!("good{good}");
            ad.set("Name", Expr::lit(Value::str(&id)));
            if good % 3 == 0 {
                // Multi-line, one attribute per line.
                let body: Vec<String> = ad.iter().map(|(n, e)| format!("    {n} = {e};")).collect();
                out.text.push_str(&format!("[\n{}\n]\n", body.join("\n")));
            } else {
                out.text.push_str(&format!("{ad}\n"));
            }
            out.good.push(id);
            good += 1;
        }
        if rng.range(0, 4) == 0 {
            out.text.push_str("// a comment line [with brackets]\n");
        }
    }
    out
}

fn check(input: &Input, opts: &LoadOptions) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("pool.ads");
    std::fs::write(&file, &input.text).expect("write");
    let db = Db::open(dir.path().join("db")).expect("open");
    let report = db
        .load_files("slots", &[&file], opts, &mut |_| {})
        .expect("load");
    let got_bad: Vec<u32> = report.bad.iter().map(|b| b.line).collect();
    assert_eq!(got_bad.len(), input.bad_lines.len(), "bad ads reported");
    for (b, want) in report.bad.iter().zip(&input.bad_lines) {
        assert_eq!(b.line, *want, "reported as {b}");
        assert!(
            b.to_string()
                .starts_with(&format!("{}:{want}:", file.display())),
            "{b}"
        );
    }
    let stored: Vec<&str> = report.stored.iter().map(|a| a.put.id.as_str()).collect();
    assert_eq!(stored, input.good, "every good ad stored, in order");
    let scanned: Vec<String> = db
        .scan("slots")
        .expect("scan")
        .map(|a| a.expect("ad").header.id)
        .collect();
    assert_eq!(
        scanned, input.good,
        "the database holds every good ad in load order"
    );
    assert!(db.check().expect("check").is_clean());
}

#[test]
fn a_thousand_malformed_ads_among_good_ones() {
    let input = new_syntax(11);
    assert_eq!((input.good.len(), input.bad_lines.len()), (4000, 1000));
    check(&input, &LoadOptions::default());
}

#[test]
fn old_syntax_and_json_place_bad_ads_too() {
    let mut old = Input {
        text: String::new(),
        good: Vec::new(),
        bad_lines: Vec::new(),
    };
    let mut json = Input {
        text: "[\n".into(),
        good: Vec::new(),
        bad_lines: Vec::new(),
    };
    for k in 0..400 {
        let at = lines(&old.text) + 1;
        if k % 4 == 1 {
            old.text
                .push_str(&format!("Name = \"o{k}\"\nMemory = 1\nCpus 4\n\n"));
            old.bad_lines.push(at + 2);
        } else {
            old.text
                .push_str(&format!("Name = \"o{k}\"\nMemory = {k}\n\n"));
            old.good.push(format!("o{k}"));
        }
        let at = lines(&json.text) + 1;
        let sep = if k == 399 { "" } else { "," };
        if k % 5 == 2 {
            json.text.push_str(&format!(
                "{{\n  \"Name\": \"j{k}\",\n  \"Memory\": tru\n}}{sep}\n"
            ));
            json.bad_lines.push(at + 2);
        } else {
            json.text.push_str(&format!(
                "{{\n  \"Name\": \"j{k}\",\n  \"Memory\": {k}\n}}{sep}\n"
            ));
            json.good.push(format!("j{k}"));
        }
    }
    json.text.push_str("]\n");
    check(&old, &LoadOptions::default());
    check(&json, &LoadOptions::default());
}
