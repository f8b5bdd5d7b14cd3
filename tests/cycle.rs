//! Matchmaking cycles (issue 5): the indexed cycle agrees with the naive one on random pools,
//! the first-fit cycle on the dissertation's model gives HTCondor's answers, and a durable
//! cycle consumes and records what it matched, in groups of matches. Autoclustered cycles (the
//! default) agree with the uncached ones on pools of requests from a few templates.

mod common;

use adjoin::cycle::{self, CycleMatch, CycleOptions};
use adjoin::Db;
use adjoin_query::parse;
use common::cycles::{load, pairs, run};
use proptest::prelude::*;

/// The workload file's machines and jobs in their own collections.
fn workload(n: usize) -> Db {
    let text = common::read(&format!("../shared/workloads/ads_{n}.txt"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 * n);
    let db = Db::open_in_memory().expect("db");
    load(&db, "machines", &lines[..n]);
    load(&db, "jobs", &lines[n..]);
    db
}

#[test]
fn first_fit_on_the_dissertation_model() {
    let db = workload(1000);
    let indexed = run(&db, |o| o.dry_run = true);
    assert_eq!((indexed.requests, indexed.matched), (1000, 892));
    assert_eq!(indexed.matches.len(), 892);
    let naive = run(&db, |o| {
        o.dry_run = true;
        o.naive = true;
    });
    assert_eq!(naive.matches, indexed.matches);
    // First fit: with no Rank anywhere, every vector is [0, 0].
    assert!(indexed.matches.iter().all(|m| m.vector.len() == 2));
    assert!(db.matches().expect("matches").is_empty());
}

#[test]
fn first_fit_at_4000() {
    let db = workload(4000);
    let r = run(&db, |o| o.dry_run = true);
    assert_eq!((r.requests, r.matched), (4000, 3724));
}

#[test]
fn durable_cycle_consumes_and_records() {
    let db = Db::open_in_memory().expect("db");
    load(
        &db,
        "machines",
        &[
            "[Key = \"m1\"; Memory = 1024; Requirements = TARGET.Mem <= Memory]",
            "[Key = \"m2\"; Memory = 4096; Requirements = TARGET.Mem <= Memory]",
            "[Key = \"m3\"; Memory = 2048; Requirements = TARGET.Mem <= Memory]",
            "[Key = \"m4\"; Memory = 512; Requirements = TARGET.Mem <= Memory]",
        ],
    );
    load(
        &db,
        "jobs",
        &[
            "[Key = \"j1\"; Mem = 1000; Rank = TARGET.Memory; Requirements = true]",
            "[Key = \"j2\"; Mem = 3000; Requirements = true]",
            "[Key = \"j3\"; Mem = 100; RequestCount = 2; Requirements = true]",
            "[Key = \"j4\"; Mem = 100; Requirements = false]",
        ],
    );
    let dry = run(&db, |o| o.dry_run = true);
    let r = run(&db, |_| {});
    let owned = |ms: &[CycleMatch]| -> Vec<(String, String)> {
        ms.iter()
            .map(|m| (m.request.clone(), m.offer.clone()))
            .collect()
    };
    let want =
        [("j1", "m2"), ("j3", "m1"), ("j3", "m3")].map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(owned(&dry.matches), want);
    assert_eq!(owned(&r.matches), want);
    assert_eq!((r.cycle, r.matched), (1, 2));
    let recs = db.matches().expect("matches");
    assert_eq!(recs.len(), 3);
    for (rec, (job, machine)) in recs.iter().zip(&want) {
        assert_eq!(rec.cycle, 1);
        let ids: Vec<(&str, &str, bool)> = rec
            .members
            .iter()
            .map(|m| (m.collection.as_str(), m.id.as_str(), m.consumed))
            .collect();
        // The request is consumed with its first match only.
        let first = rec.id == recs[0].id || rec.id == recs[1].id;
        assert_eq!(
            ids,
            [
                ("jobs", job.as_str(), first),
                ("machines", machine.as_str(), true)
            ]
        );
    }
    assert_eq!(
        recs[0].members[0].rank,
        Some(adjoin_query::Value::Int(4096))
    );
    for (coll, id, live) in [
        ("machines", "m1", false),
        ("machines", "m2", false),
        ("machines", "m3", false),
        ("machines", "m4", true),
        ("jobs", "j1", false),
        ("jobs", "j2", true),
        ("jobs", "j3", false),
        ("jobs", "j4", true),
    ] {
        assert_eq!(db.get(coll, id).expect("get").is_some(), live, "{id}");
        assert_eq!(db.tombstone(coll, id).expect("ts").is_some(), !live, "{id}");
    }
    // The next cycle: only m4 is left, and no job left fits it both ways.
    let next = run(&db, |_| {});
    assert_eq!((next.cycle, next.matches.len()), (2, 0));
    // Cycle numbers strictly increase, empty cycles included; the history reads by cycle and
    // by ad without a scan.
    let after = run(&db, |_| {});
    assert_eq!((after.cycle, after.matches.len()), (3, 0));
    let ids = |ms: Vec<adjoin::storage::MatchRecord>| ms.iter().map(|m| m.id).collect::<Vec<_>>();
    assert_eq!(ids(db.matches_of_cycle(1).expect("by cycle")), [1, 2, 3]);
    assert!(db.matches_of_cycle(2).expect("by cycle").is_empty());
    assert_eq!(ids(db.matches_of_ad("jobs", "j3").expect("by ad")), [2, 3]);
    assert_eq!(ids(db.recent_matches(1).expect("recent")), [3]);
}

#[test]
fn a_retention_policy_prunes_after_durable_cycles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let export = dir.path().join("pruned.jsonl");
    let opts = adjoin::DbOptions {
        retention: Some(adjoin::db::RetentionPolicy {
            keep: adjoin::storage::Retention {
                max_records: Some(2),
                ..Default::default()
            },
            export: Some(export.clone()),
        }),
        ..adjoin::DbOptions::default()
    };
    let db = Db::open_in_memory_with(&opts).expect("db");
    let machines: Vec<String> = (0..5)
        .map(|i| format!("[Key = \"m{i}\"; Requirements = true]"))
        .collect();
    let jobs: Vec<String> = (0..5)
        .map(|i| format!("[Key = \"j{i}\"; Requirements = true]"))
        .collect();
    load(
        &db,
        "machines",
        &machines.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    load(
        &db,
        "jobs",
        &jobs.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let r = run(&db, |_| {});
    assert_eq!((r.matches.len(), r.pruned), (5, 3));
    assert_eq!(db.match_count().expect("count"), 2);
    let kept: Vec<u64> = db
        .matches()
        .expect("matches")
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(kept, [4, 5]);
    let lines: Vec<String> = std::fs::read_to_string(&export)
        .expect("export written")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 3);
    for (line, id) in lines.iter().zip(1..) {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_eq!(v["id"], id, "{line}");
        assert_eq!(v["members"][1]["collection"], "machines", "{line}");
    }
}

#[test]
fn durable_cycles_commit_in_groups() {
    // 3,724 matches: several groups (`cycle::GROUP`), the records those of a dry run.
    let db = workload(4000);
    let dry = run(&db, |o| o.dry_run = true);
    let opts = CycleOptions::new("jobs", "machines");
    let r = db.match_cycle(&opts).expect("cycle");
    assert!(r.matches.len() > 3 * cycle::GROUP);
    let plain = |ms: &[CycleMatch]| -> Vec<(String, String, Vec<adjoin_query::Value>)> {
        ms.iter()
            .map(|m| (m.request.clone(), m.offer.clone(), m.vector.clone()))
            .collect()
    };
    assert_eq!(plain(&r.matches), plain(&dry.matches));
    assert_eq!((r.cycle, r.matched), (1, dry.matched));
    let recs = db.matches().expect("matches");
    assert_eq!(recs.len(), r.matches.len());
    for (i, (m, rec)) in r.matches.iter().zip(&recs).enumerate() {
        assert_eq!(
            (m.record, rec.id, rec.cycle),
            (Some(i as u64 + 1), i as u64 + 1, 1)
        );
        let ids: Vec<(&str, bool)> = rec
            .members
            .iter()
            .map(|x| (x.id.as_str(), x.consumed))
            .collect();
        assert_eq!(ids, [(m.request.as_str(), true), (m.offer.as_str(), true)]);
    }
    for coll in ["machines", "jobs"] {
        let left = db.scan(coll).expect("scan").count();
        assert_eq!(left, 4000 - r.matches.len(), "{coll}");
    }
    assert!(db.check().expect("check").is_clean());
}

/// A random offer: memory, a rank, whether it declares `Score`.
fn offer() -> impl Strategy<Value = String> {
    let rank = prop_oneof![
        Just(""),
        Just("Rank = TARGET.Prio;"),
        Just("Rank = true;"),
        Just("Rank = TARGET.Missing;"),
        Just("Rank = 1;"),
    ];
    let score = prop_oneof![Just(""), Just("Score = 2;"), Just("Score = undefined;")];
    (0..4i64, rank, score).prop_map(|(m, rank, score)| {
        format!(
            "Memory = {}; {rank} {score} Requirements = TARGET.Mem <= Memory",
            m * 1000
        )
    })
}

/// A random request: memory wanted, a priority, a rank, a count.
fn request() -> impl Strategy<Value = String> {
    let rank = prop_oneof![
        Just(""),
        Just("Rank = TARGET.Memory;"),
        Just("Rank = -TARGET.Memory;"),
        Just("Rank = TARGET.Score;"),
        Just("Rank = TARGET.Memory - Mem;"),
    ];
    let count = prop_oneof![
        Just(""),
        Just("RequestCount = 0;"),
        Just("RequestCount = 3;")
    ];
    let prio = prop_oneof![Just("1"), Just("2"), Just("\"high\"")];
    // Preferences (issue 12), one reading the request's own Mem.
    let prefs = prop_oneof![
        Just(""),
        Just("Preferences = {[Name = \"m\"; Value = TARGET.Memory; Order = {2000, 3000}]};"),
        Just(
            "Preferences = {[Name = \"big\"; Value = TARGET.Memory > MY.Mem; Order = {true}], \
             [Name = \"s\"; Value = TARGET.Score; Parents = {\"big\"}; \
              Table = {[When = {true}; Order = {2}]}]};"
        ),
    ];
    (0..4i64, prio, rank, count, prefs).prop_map(|(m, prio, rank, count, prefs)| {
        format!(
            "Mem = {}; Prio = {prio}; {rank} {count} {prefs} Requirements = TARGET.Memory >= Mem",
            m * 900
        )
    })
}

/// Loads offers and requests (ids `m<i>`, `j<i>`) into a fresh database.
fn pool(offers: &[String], requests: &[String]) -> Db {
    let db = Db::open_in_memory().expect("db");
    let ads = |kind: &str, xs: &[String]| -> Vec<String> {
        xs.iter()
            .enumerate()
            .map(|(i, x)| format!("[Key = \"{kind}{i}\"; Serial = {i}; {x}]"))
            .collect()
    };
    for (coll, xs) in [("machines", ads("m", offers)), ("jobs", ads("j", requests))] {
        if !xs.is_empty() {
            load(
                &db,
                coll,
                &xs.iter().map(String::as_str).collect::<Vec<_>>(),
            );
        }
    }
    db
}

/// The `--order-by` choices of the proptests (`None`: load order).
fn orders() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        Just(None),
        Just(Some("Prio")),
        Just(Some("-Mem")),
        // Reads what the analysis cannot follow: requests alike in shape are told apart.
        Just(Some("eval(\"Prio\")")),
    ]
}

/// Options of a dry run with this order and dock, naive or uncached as asked.
fn dry_run(
    order_by: Option<&str>,
    dock: &[&str],
    naive: bool,
    no_clusters: bool,
) -> impl FnOnce(&mut CycleOptions) {
    let order_by = order_by.map(|o| parse::expr(o).expect("order-by"));
    let dock: Vec<_> = dock.iter().map(|d| parse::expr(d).expect("dock")).collect();
    move |o: &mut CycleOptions| {
        o.dry_run = true;
        o.naive = naive;
        o.no_clusters = no_clusters;
        o.order_by = order_by;
        o.dock = dock;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn indexed_cycles_equal_naive_cycles(
        offers in prop::collection::vec(offer(), 0..12),
        requests in prop::collection::vec(request(), 0..12),
        order_by in orders(),
        dock in prop_oneof![
            Just(vec![]),
            Just(vec!["offer.Score"]),
            Just(vec!["request.Rank", "-offer.Memory"]),
            Just(vec!["offer.Rank + request.Prio"]),
        ],
    ) {
        let db = pool(&offers, &requests);
        let indexed = run(&db, dry_run(order_by, &dock, false, false));
        let naive = run(&db, dry_run(order_by, &dock, true, false));
        prop_assert_eq!(naive.clusters, requests.len());
        prop_assert_eq!(&indexed.matches, &naive.matches);
        prop_assert_eq!(indexed.matched, naive.matched);
        // An offer is matched at most once.
        let mut taken: Vec<&str> = indexed.matches.iter().map(|m| m.offer.as_str()).collect();
        taken.sort_unstable();
        let n = taken.len();
        taken.dedup();
        prop_assert_eq!(taken.len(), n);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn clustered_cycles_equal_naive_cycles(
        offers in prop::collection::vec(offer(), 0..14),
        templates in prop::collection::vec(request(), 1..4),
        picks in prop::collection::vec(0..8usize, 0..20),
        order_by in orders(),
        dock in prop_oneof![
            Just(vec![]),
            Just(vec!["request.Prio"]),
            Just(vec!["request.Rank", "-offer.Memory"]),
            Just(vec!["offer.Rank + request.Prio", "offer.Memory"]),
            Just(vec!["offer.Memory - request.Mem"]),
        ],
    ) {
        // Requests from a few templates, some with a Prio of their own (read only when the
        // dock or the order reads it).
        let requests: Vec<String> = picks
            .iter()
            .map(|&p| {
                let t = &templates[p % templates.len()];
                if p >= 6 {
                    t.replacen("Prio = ", &format!("Prio = {p}; OldPrio = "), 1)
                } else {
                    t.clone()
                }
            })
            .collect();
        let db = pool(&offers, &requests);
        let clustered = run(&db, dry_run(order_by, &dock, false, false));
        let uncached = run(&db, dry_run(order_by, &dock, false, true));
        let naive = run(&db, dry_run(order_by, &dock, true, false));
        prop_assert_eq!(&clustered.matches, &naive.matches);
        prop_assert_eq!(&uncached.matches, &naive.matches);
        prop_assert_eq!(clustered.matched, naive.matched);
        prop_assert!(clustered.clusters <= templates.len() * 3);
        prop_assert_eq!(uncached.clusters, requests.len());
    }
}

#[test]
fn an_order_the_analysis_cannot_follow_still_orders_each_request() {
    // Two requests alike in everything the offers and their own constraints read; the order
    // reads Prio through `eval`, so the second (Prio 5) goes first.
    let db = Db::open_in_memory().expect("db");
    load(&db, "machines", &["[Key = \"m1\"; Requirements = true]"]);
    load(
        &db,
        "jobs",
        &[
            "[Key = \"j1\"; Prio = 1; Requirements = true]",
            "[Key = \"j2\"; Prio = 5; Requirements = true]",
        ],
    );
    for naive in [false, true] {
        let r = run(&db, |o| {
            o.dry_run = true;
            o.naive = naive;
            o.order_by = Some(parse::expr("eval(\"Prio\")").expect("order-by"));
        });
        let got = pairs(&r);
        assert_eq!(got, [("j2", "m1")], "naive {naive}");
    }
}

/// HTCondor's GPU matching: a job's `countMatches(RequireGPUs, AvailableGPUs)` counts the
/// slot's GPU ads, reading `Capability` from each and the job's `MinCap` through the old
/// semantics' alternate scope. Matches as HTCondor's library gives them (`symmetricMatch`:
/// j1 {s1, s2}, j2 {s2}, j3 {}, j4 {s1}), first fit in load order, on every path.
#[test]
fn gpu_requirements_through_count_matches() {
    let db = Db::open_in_memory().expect("db");
    load(
        &db,
        "machines",
        &[
            "[Key = \"s1\"; AvailableGPUs = { GPUs_a, GPUs_b }; GPUs_a = [ Capability = 5.0; \
             DeviceName = \"Tesla\" ]; GPUs_b = [ Capability = 3.0; DeviceName = \"GRX\" ]; \
             Requirements = TARGET.RequestGPUs <= size(AvailableGPUs)]",
            "[Key = \"s2\"; AvailableGPUs = { GPUs_c }; GPUs_c = [ Capability = 8.0 ]; \
             Requirements = true]",
            "[Key = \"s3\"; AvailableGPUs = { }; Requirements = true]",
        ],
    );
    let job = |key: &str, min: &str, n: u32, extra: &str| {
        format!(
            "[Key = \"{key}\"; MinCap = {min}; RequestGPUs = {n}; \
             RequireGPUs = Capability >= MinCap{extra}; \
             Requirements = countMatches(RequireGPUs, AvailableGPUs) >= RequestGPUs]"
        )
    };
    let jobs = [
        job("j1", "4", 1, ""),
        job("j2", "6", 1, ""),
        job("j3", "2", 2, " && DeviceName != \"GRX\""),
        job("j4", "2.5", 2, ""),
    ];
    load(
        &db,
        "jobs",
        &jobs.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    for (naive, no_clusters) in [(false, false), (false, true), (true, false)] {
        let r = run(&db, dry_run(None, &[], naive, no_clusters));
        let got = pairs(&r);
        assert_eq!(
            got,
            [("j1", "s1"), ("j2", "s2")],
            "naive {naive}, no_clusters {no_clusters}"
        );
    }
}

/// The offers' side hands its offers to the requests' reader in runs: the roots come from
/// every run, not the first alone (an offer past the first run reading `Site` splits the
/// requests by it), and an offer the analysis cannot follow in the first run turns
/// clustering off whatever comes after.
#[test]
fn offers_past_the_first_run_count_for_the_roots() {
    let plain = |i: usize| format!("Memory = {i}; Requirements = TARGET.Mem <= Memory");
    let late = "Memory = 1000; Requirements = TARGET.Mem <= Memory && TARGET.Site == \"x\"";
    let requests: Vec<String> = (0..6)
        .map(|i| {
            let site = if i % 2 == 0 { "x" } else { "y" };
            format!("Mem = 1; Site = \"{site}\"; Requirements = TARGET.Memory >= Mem; Rank = TARGET.Memory")
        })
        .collect();
    let mut offers: Vec<String> = (0..700).map(plain).collect();
    offers.extend([late; 3].map(str::to_owned));
    let db = pool(&offers, &requests);
    let clustered = run(&db, dry_run(None, &[], false, false));
    let uncached = run(&db, dry_run(None, &[], false, true));
    assert_eq!(clustered.matches, uncached.matches);
    assert_eq!(clustered.clusters, 2);
    let mut offers = vec!["Memory = 1; Requirements = eval(\"TARGET.Mem\") <= Memory".to_owned()];
    offers.extend((0..700).map(plain));
    let db = pool(&offers, &requests);
    assert_eq!(
        run(&db, dry_run(None, &[], false, false)).clusters,
        requests.len()
    );
}

#[test]
fn clusters_on_the_dissertation_model() {
    // Every job of the model has its own real MemoryReqs: as many clusters as jobs.
    let db = workload(1000);
    let clustered = run(&db, |o| o.dry_run = true);
    assert_eq!(clustered.clusters, 1000);
    // The model's machines against 2,000 jobs of 24 kinds.
    let arch = ["INTEL", "SUN4u", "ALPHA"];
    let jobs: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                "[Key = {i}; Type = \"Job\"; ImageSize = {}; MemoryReqs = {}; \
                 Requirements = TARGET.Arch == \"{}\" && TARGET.VirtualMemory > ImageSize]",
                (i % 4) * 100,
                (i % 2) * 50,
                arch[i % 3]
            )
        })
        .collect();
    load(
        &db,
        "jobs2",
        &jobs.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let opts = |no_clusters: bool, naive: bool| {
        move |o: &mut CycleOptions| {
            o.requests = "jobs2".into();
            o.dry_run = true;
            o.no_clusters = no_clusters;
            o.naive = naive;
        }
    };
    let clustered = run(&db, opts(false, false));
    let uncached = run(&db, opts(true, false));
    let naive = run(&db, opts(false, true));
    assert_eq!(clustered.clusters, 12);
    assert_eq!(uncached.clusters, 2000);
    assert_eq!(clustered.matches, uncached.matches);
    assert_eq!(clustered.matches, naive.matches);
    // The clustered cycle's 12 windows probe no more than the uncached one's 2,000 do.
    assert!(clustered.probes <= uncached.probes);
}

#[test]
fn heterogeneous_pools_match_as_the_naive_cycle_does() {
    // Every request distinct, ranks on both sides, attributes absent or of mixed types,
    // conditions the index cannot convert: the indexed cycle still decides exactly as
    // evaluating every pair does.
    for seed in [1, 2, 3] {
        let mut h = adjoin_workload::hetero::Heterogeneous::new(seed);
        let db = Db::open_in_memory().expect("db");
        for n in 0..300 {
            db.put("machines", &h.offer(n).expect("offer"))
                .expect("put");
        }
        for n in 0..300 {
            db.put("jobs", &h.request(n).expect("request"))
                .expect("put");
        }
        let indexed = run(&db, |o| o.dry_run = true);
        let naive = run(&db, |o| {
            o.dry_run = true;
            o.naive = true;
        });
        assert!(
            indexed.matched > 50,
            "seed {seed}: {} matched",
            indexed.matched
        );
        assert_eq!(
            indexed.clusters, 300,
            "seed {seed}: every request its own cluster"
        );
        assert_eq!(indexed.matches, naive.matches, "seed {seed}");
        // Windows are searched on two threads, racing: what a cycle reports does not depend
        // on which searched which (each cycle starting afresh, the Db's held state freed).
        for _ in 0..3 {
            db.release_held();
            let again = run(&db, |o| o.dry_run = true);
            assert_eq!(
                (again.probes, again.evaluations, &again.matches),
                (indexed.probes, indexed.evaluations, &indexed.matches),
                "seed {seed}"
            );
        }
        // Through what the last cycle held of the same offers: the same matches, the same
        // probes, and no more evaluations (values learnt are not evaluated again).
        let mut before = indexed.evaluations;
        for _ in 0..3 {
            let held = run(&db, |o| o.dry_run = true);
            assert_eq!(
                (held.probes, &held.matches),
                (indexed.probes, &indexed.matches),
                "seed {seed}"
            );
            assert!(held.evaluations <= before, "seed {seed}");
            before = held.evaluations;
        }
        assert!(
            before < indexed.evaluations,
            "seed {seed}: nothing learnt held"
        );
    }
}

#[test]
fn requests_of_several_disjuncts_match_as_the_naive_cycle_does() {
    // Disjuncts read through their own windows: converted, residual (`regexp`), reading the
    // request's own attributes, an offer's attribute reading the request, and one reading the
    // Requirements itself (no window of its own then).
    let db = Db::open_in_memory().expect("db");
    let offers: Vec<String> = (0..40)
        .map(|i| {
            let score = if i % 3 == 0 { "TARGET.Prio * 2" } else { "4" };
            format!(
                "[Key = \"m{i}\"; Memory = {}; Cpus = {}; Machine = \"h{}.x\"; Score = {score}; Requirements = true; Rank = Cpus]",
                256 * (i % 9),
                1 + i % 4,
                i % 5
            )
        })
        .collect();
    load(&db, "machines", &offers);
    let requests = [
        "[Key = \"j0\"; Requirements = (TARGET.Memory >= 1024 && TARGET.Cpus > 2) || regexp(\"^h1\", TARGET.Machine)]",
        "[Key = \"j1\"; Want = 3; Requirements = (TARGET.Cpus >= MY.Want) || (TARGET.Score > 5 && TARGET.Memory < 512); Rank = TARGET.Memory]",
        "[Key = \"j2\"; Requirements = (TARGET.Memory > 1500 && MY.Requirements =!= undefined) || TARGET.Cpus == 1; Rank = -TARGET.Cpus]",
        "[Key = \"j3\"; Prio = 7; Requirements = (TARGET.Score > 12) || (TARGET.Memory == 0) || regexp(\"^h3\", TARGET.Machine)]",
        "[Key = \"j4\"; Requirements = (TARGET.Memory >= 2048) || (TARGET.Cpus >= 4); RequestCount = 3]",
    ];
    load(&db, "jobs", &requests);
    let indexed = run(&db, |o| o.dry_run = true);
    let naive = run(&db, |o| {
        o.dry_run = true;
        o.naive = true;
    });
    assert!(indexed.matched >= 4, "{} matched", indexed.matched);
    assert_eq!(indexed.matches, naive.matches);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Heterogeneous pools of random seeds (ranks of every kind on both sides, ties, undefined
    /// ranks, attributes of mixed types): the indexed cycle — lists confirmed as read, read in
    /// rank order where the rank's values are remembered — decides as the naive one does.
    #[test]
    fn heterogeneous_pools_of_any_seed_match_as_the_naive_cycle_does(
        seed in 4u64..1_000_000,
        offers in 50u64..250,
        requests in 50u64..250,
    ) {
        let mut h = adjoin_workload::hetero::Heterogeneous::new(seed);
        let db = Db::open_in_memory().expect("db");
        for n in 0..offers {
            db.put("machines", &h.offer(n).expect("offer")).expect("put");
        }
        for n in 0..requests {
            db.put("jobs", &h.request(n).expect("request")).expect("put");
        }
        let indexed = run(&db, |o| o.dry_run = true);
        let naive = run(&db, |o| {
            o.dry_run = true;
            o.naive = true;
        });
        prop_assert_eq!(&indexed.matches, &naive.matches);
        prop_assert!(indexed.evaluations < naive.evaluations);
    }
}
