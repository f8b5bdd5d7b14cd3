//! First-fit ranked cycles over random pools, checked against HTCondor's library
//! (`tests/golden/random-cycles.golden`, made by `gen/random_cycles.py`): every kind of dry-run
//! cycle (autoclustered, uncached, naive) makes exactly the matches of the cycle emulated over
//! HTCondor's evaluations, in the same order and with the same docking vectors — with ranks
//! that read either side, booleans, strings, lists, undefined, error, overflowing reals and
//! `-0.0`, which HTCondor compares equal to 0 (ties go to the earliest machine).

mod common;

use adjoin::cycle::CycleOptions;
use adjoin::query::Value;
use adjoin::Db;
use adjoin_index::IndexOptions;

/// (job, machine, job rank, machine rank) of each match HTCondor's cycle makes, in order.
type Made = Vec<(String, String, f64, f64)>;

/// The golden file's pools, each with HTCondor's cycle.
fn pools() -> Vec<(common::GoldenPool, Made)> {
    common::golden_pools("tests/golden/random-cycles.golden")
        .into_iter()
        .map(|p| {
            let mut made = Vec::new();
            for (section, lines) in &p.other {
                assert_eq!(section, "cycle", "unknown section");
                for line in lines {
                    let f: Vec<&str> = line.split('\t').collect();
                    let num = |s: &str| s.parse::<f64>().expect("a number");
                    made.push((f[0].to_owned(), f[1].to_owned(), num(f[2]), num(f[3])));
                }
            }
            (p, made)
        })
        .collect()
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        other => panic!("a vector component that is not a number: {other:?}"),
    }
}

#[test]
fn cycles_agree_with_htcondor_on_random_ranked_pools() {
    let pools = pools();
    assert_eq!(pools.len(), 5);
    let mut total = 0;
    for (pool, cycle) in &pools {
        let db = Db::open_in_memory().expect("db");
        for (coll, ads) in [("machines", &pool.machines), ("jobs", &pool.jobs)] {
            for ad in ads {
                let name = ad.eval_attr("Name");
                db.put_with_id(coll, name.as_str().expect("Name"), ad)
                    .expect("put");
            }
        }
        for (how, naive, no_clusters) in [
            ("clustered", false, false),
            ("uncached", false, true),
            ("naive", true, false),
        ] {
            let opts = CycleOptions {
                dry_run: true,
                naive,
                no_clusters,
                whole_slots: true,
                index: IndexOptions {
                    eval: common::golden_opts(true),
                    ..IndexOptions::default()
                },
                ..CycleOptions::new("jobs", "machines")
            };
            let r = db.match_cycle(&opts).expect("cycle");
            let got: Vec<(String, String, f64, f64)> = r
                .matches
                .iter()
                .map(|m| {
                    let v: Vec<f64> = m.vector.iter().map(as_f64).collect();
                    (m.request.clone(), m.offer.clone(), v[0], v[1])
                })
                .collect();
            assert_eq!(got.len(), cycle.len(), "{} {how}: matches", pool.name);
            for (g, w) in got.iter().zip(cycle) {
                assert_eq!((&g.0, &g.1), (&w.0, &w.1), "{} {how}", pool.name);
                let close =
                    |a: f64, b: f64| a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
                assert!(
                    close(g.2, w.2) && close(g.3, w.3),
                    "{} {how} {}: vector {:?} vs HTCondor {:?}",
                    pool.name,
                    g.0,
                    (g.2, g.3),
                    (w.2, w.3)
                );
            }
        }
        total += cycle.len();
    }
    assert!(total > 60, "the pools match often enough ({total})");
}
