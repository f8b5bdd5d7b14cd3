//! Fuzz target: the held index follows the Db's writes. The input is a list of operations, one
//! per line, on a fresh database whose collection `m` starts with the `query` target's ads
//! (its index made before the first operation): `p<k> NAME = EXPR` puts (or replaces) ad
//! `n<k>` (`k` one digit) with the attribute `NAME` bound to `EXPR` and a few fixed ones,
//! `a<k> NAME = EXPR` replaces it with that attribute added or changed, `r<k>` removes it,
//! `c<k>` consumes it, `q EXPR` asks a query. After every query and at the end, every query of
//! the input and a fixed set are answered through the index (`Db::query`, `Db::count`) exactly
//! as a scan evaluating each ad answers them. Inputs reading the clock or `random()` are left
//! out.
#![no_main]

use adjoin::db::selects;
use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;

mod common;
use common::{offers_db, steady_text};

/// Queries asked after every input.
const FIXED: &[&str] = &[
    "true",
    "Memory >= 1024",
    "Arch == \"X86_64\" || Cpus > 2",
    "x =!= undefined",
    "isUndefined(Tag) && Memory < 4096",
];

/// The ids a scan evaluating `constraint` in each ad selects, in load order.
fn by_scan(db: &Db, constraint: &Expr) -> Vec<String> {
    let opts = EvalOptions::default();
    db.scan("m")
        .expect("scan")
        .map(|ad| ad.expect("ad"))
        .filter(|ad| selects(&eval_expr(constraint, &ad.ad, &opts)))
        .map(|ad| ad.header.id)
        .collect()
}

/// Asks every query of `queries` through the index and by a scan.
fn check(db: &Db, queries: &[Expr], text: &str) {
    for q in queries {
        let got: Vec<String> = db
            .query("m", q)
            .expect("query")
            .map(|a| a.expect("ad").header.id)
            .collect();
        let want = by_scan(db, q);
        assert_eq!(got, want, "query {q} after {text:?}");
        let n = db.count("m", Some(q)).expect("count");
        assert_eq!(n, want.len() as u64, "count {q} after {text:?}");
    }
}

/// Ad `n<k>`: its fixed attributes, then `name = value`.
fn ad(k: char, binding: Option<(&str, &Expr)>, base: Option<ClassAd>) -> Option<ClassAd> {
    let mut ad = match base {
        Some(b) => b,
        None => parse::classad(&format!(
            "[Name = \"n{k}\"; Memory = {}; Arch = \"X86_64\"; Cpus = 2]",
            512 * (k as u32 - '0' as u32 + 1)
        ))
        .ok()?,
    };
    if let Some((name, value)) = binding {
        ad.set(name, value.clone());
    }
    Some(ad)
}

/// `NAME = EXPR`, the name a plain identifier.
fn binding(rest: &str) -> Option<(&str, Expr)> {
    let (name, expr) = rest.split_once('=')?;
    let name = name.trim();
    let plain = name.chars().next()?.is_ascii_alphabetic()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain {
        return None;
    }
    Some((name, parse::expr(expr.trim()).ok()?))
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    if text.lines().count() > 24 {
        return;
    }
    let db = offers_db();
    let mut queries: Vec<Expr> = FIXED
        .iter()
        .map(|q| parse::expr(q).expect("query"))
        .collect();
    // The index is made now, and then follows every write.
    check(&db, &queries, text);
    for line in text.lines() {
        let mut chars = line.chars();
        let (Some(op), rest) = (chars.next(), chars.as_str()) else {
            continue;
        };
        match op {
            'q' => {
                let Ok(q) = parse::expr(rest.trim()) else {
                    continue;
                };
                queries.push(q);
                check(&db, &queries, text);
            }
            'p' | 'a' | 'r' | 'c' => {
                let mut rest = rest.chars();
                let Some(k) = rest.next().filter(char::is_ascii_digit) else {
                    continue;
                };
                let id = format!("n{k}");
                match op {
                    'r' => {
                        let _ = db.remove("m", &id);
                    }
                    'c' => {
                        let _ = db.consume("m", &id);
                    }
                    _ => {
                        let Some((name, value)) = binding(rest.as_str()) else {
                            continue;
                        };
                        let base = match op {
                            'a' => db.get("m", &id).ok().flatten().map(|s| s.ad),
                            _ => None,
                        };
                        if let Some(ad) = ad(k, Some((name, &value)), base) {
                            // A consumed id is refused: not this target's business.
                            let _ = db.put_with_id("m", &id, &ad);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    check(&db, &queries, text);
});
