//! The real ads' matchmaking cycle (issue 5): the job ads of `shared/conformance/real-ads`, and
//! variants of them, against its slot ads, checked against HTCondor's library
//! (`tests/golden/cycle-real-ads.golden`, made by `gen/gen_cycle_real_ads.py`): adjoin's
//! candidates are exactly the slots HTCondor accepts, and every kind of cycle (indexed and
//! autoclustered, uncached, naive; dry run and durable) makes exactly the matches of the
//! first-fit cycle emulated over HTCondor's evaluations, with the same docking vectors. Under
//! old-ClassAd semantics (as HTCondor's daemons) and strict new-ClassAd semantics.

mod common;

use adjoin::collection::Collection;
use adjoin::cycle::Offers;
use adjoin::cycle::{CycleOptions, CycleReport};
use adjoin::query::parse::{self, Format};
use adjoin::query::ClassAd;
use adjoin::storage::{IdRule, PutOptions};
use adjoin::Db;
use adjoin_index::IndexOptions;
use std::collections::HashMap;

const GOLDEN: &str = "tests/golden/cycle-real-ads.golden";
const REAL_ADS: &str = "../shared/conformance/real-ads";
/// The files written in new syntax; all others are old syntax.
const NEW_SYNTAX: &[&str] = &[
    "python_bindings-test.ad",
    "python_bindings-test_multiple.ad",
];

/// One `## semantics` block of the golden file.
#[derive(Debug, Default)]
struct Block {
    /// Old-ClassAd semantics (the TARGET fallback) rather than strict.
    old: bool,
    /// The slots (`file#index`), in load order.
    slots: Vec<String>,
    /// (name, base job, attributes set over it), in serving order.
    requests: Vec<(String, String, String)>,
    /// The slots each request accepts, in load order.
    accepted: HashMap<String, Vec<String>>,
    /// (request, slot, job Rank, slot Rank) of each match, in the order made.
    cycle: Vec<[String; 4]>,
}

/// The golden file's blocks.
fn blocks() -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut part = String::new();
    for line in common::read(GOLDEN).lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            let head = rest.split('\t').next().unwrap_or_default();
            if let Some(mode) = head.strip_prefix("semantics ") {
                out.push(Block {
                    old: mode == "old",
                    ..Block::default()
                });
            }
            part = head.to_owned();
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let b = out.last_mut().expect("a block starts the file");
        let f: Vec<&str> = line.split('\t').collect();
        match (part.as_str(), f.as_slice()) {
            ("slots", [s]) => b.slots.push(s.to_string()),
            ("requests", [n, base, attrs]) => {
                b.requests
                    .push((n.to_string(), base.to_string(), attrs.to_string()))
            }
            ("accepted", [n, slots]) => {
                let slots = slots.split_whitespace().map(str::to_owned).collect();
                b.accepted.insert(n.to_string(), slots);
            }
            ("cycle", [r, s, jr, sr]) => b.cycle.push([r, s, jr, sr].map(|x| x.to_string())),
            _ => panic!("bad golden line in {part}: {line:?}"),
        }
    }
    assert_eq!(out.len(), 2, "old and new blocks");
    out
}

/// Every ad of the real-ads files, keyed `file#index`.
fn real_ads() -> HashMap<String, ClassAd> {
    let mut ads = HashMap::new();
    for e in std::fs::read_dir(common::top(REAL_ADS)).expect("shared/conformance/real-ads") {
        let f = e.expect("entry").file_name().to_string_lossy().into_owned();
        let format = if NEW_SYNTAX.contains(&f.as_str()) {
            Format::New
        } else {
            Format::Old
        };
        let text = common::read(&format!("{REAL_ADS}/{f}"));
        let parsed = parse::ads(&text, format).unwrap_or_else(|e| panic!("{f}: {e}"));
        for (i, ad) in parsed.into_iter().enumerate() {
            ads.insert(format!("{f}#{i}"), ad);
        }
    }
    ads
}

/// A database of the block's slots (`slots`) and requests (`jobs`), each in its order, and the
/// golden name of each stored id.
fn load(b: &Block, ads: &HashMap<String, ClassAd>) -> (Db, HashMap<String, String>) {
    let db = Db::open_in_memory().expect("db");
    // Generated ids: the variants share the job's GlobalJobId.
    let opts = PutOptions {
        id: IdRule::new(Vec::<String>::new()),
        ..PutOptions::default()
    };
    let mut names = HashMap::new();
    let requests = b.requests.iter().map(|(n, base, attrs)| {
        let mut ad = ads[base].clone();
        for (name, e) in parse::classad(attrs).expect("attributes parse").iter() {
            ad.insert(name, e.clone());
        }
        ("jobs", n, ad)
    });
    let slots = b.slots.iter().map(|s| ("slots", s, ads[s].clone()));
    for (coll, name, ad) in slots.chain(requests) {
        let put = db.put_with(coll, &ad, &opts).expect("put");
        names.insert(put.id, name.clone());
    }
    (db, names)
}

/// Cycle options for the block's semantics, set further by `f`.
fn options(b: &Block, f: impl FnOnce(&mut CycleOptions)) -> CycleOptions {
    // HTCondor's emulated cycle (the golden file) consumes every slot whole.
    let mut o = CycleOptions {
        whole_slots: true,
        requests: "jobs".into(),
        offers: "slots".into(),
        index: IndexOptions {
            eval: common::golden_opts(b.old),
            ..IndexOptions::default()
        },
        ..CycleOptions::default()
    };
    f(&mut o);
    o
}

#[test]
fn candidates_are_the_slots_htcondor_accepts() {
    let ads = real_ads();
    for b in blocks() {
        let (db, names) = load(&b, &ads);
        let jobs = Collection::scan(&db, "jobs").expect("jobs");
        let slots = Collection::scan(&db, "slots").expect("slots");
        let opts = options(&b, |_| {});
        let mut indexed = Offers::indexed(&slots, opts.index.clone()).expect("index");
        let mut naive = Offers::naive(&slots, opts.index.eval.clone());
        let mut nonempty = 0;
        for (id, job) in jobs.ids.iter().zip(&jobs.ads) {
            let name = &names[id];
            let want = &b.accepted[name];
            for (how, offers) in [("indexed", &mut indexed), ("naive", &mut naive)] {
                let got: Vec<&String> = offers
                    .candidates(job)
                    .iter()
                    .map(|o| &names[slots.id(o).expect("slot id")])
                    .collect();
                assert_eq!(got, want.iter().collect::<Vec<_>>(), "{how}: {name}");
            }
            nonempty += usize::from(!want.is_empty());
        }
        assert_eq!(jobs.len(), b.requests.len());
        assert!(nonempty > b.requests.len() / 2, "the join is not trivial");
    }
}

/// The matches as the golden writes them, the vector compared at HTCondor's precision.
fn check_cycle(b: &Block, how: &str, r: &CycleReport, names: &HashMap<String, String>) {
    let got: Vec<(&str, &str)> = r
        .matches
        .iter()
        .map(|m| (names[&m.request].as_str(), names[&m.offer].as_str()))
        .collect();
    let want: Vec<(&str, &str)> = b
        .cycle
        .iter()
        .map(|[r, s, _, _]| (r.as_str(), s.as_str()))
        .collect();
    assert_eq!(got, want, "{how} (old semantics: {})", b.old);
    for (m, [req, slot, jr, sr]) in r.matches.iter().zip(&b.cycle) {
        assert_eq!(m.vector.len(), 2);
        for (ours, theirs) in m.vector.iter().zip([jr, sr]) {
            let same = common::agrees(ours, theirs).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                same,
                "{how}: {req} {slot}: vector {ours} vs HTCondor's {theirs}"
            );
        }
    }
    let requests: std::collections::HashSet<&str> = want.iter().map(|w| w.0).collect();
    assert_eq!(r.matched, requests.len(), "{how}");
    assert_eq!(r.requests, b.requests.len(), "{how}");
}

#[test]
fn cycles_make_the_emulated_cycle() {
    let ads = real_ads();
    for b in blocks() {
        assert!(b.cycle.len() > b.requests.len(), "requests compete");
        let (db, names) = load(&b, &ads);
        for (how, naive, no_clusters) in [
            ("clustered", false, false),
            ("uncached", false, true),
            ("naive", true, false),
        ] {
            let opts = options(&b, |o| {
                o.dry_run = true;
                o.naive = naive;
                o.no_clusters = no_clusters;
            });
            let r = db.match_cycle(&opts).expect("cycle");
            check_cycle(&b, how, &r, &names);
            assert!(r.matches.iter().all(|m| m.record.is_none()));
        }
        // Durable: each match recorded with its ads consumed; the next cycle finds nothing.
        let r = db.match_cycle(&options(&b, |_| {})).expect("cycle");
        check_cycle(&b, "durable", &r, &names);
        let recs = db.matches().expect("matches");
        assert_eq!(recs.len(), b.cycle.len());
        for (m, rec) in r.matches.iter().zip(&recs) {
            assert_eq!(m.record, Some(rec.id));
            assert_eq!(rec.members[1].id, m.offer);
            assert!(db.get("slots", &m.offer).expect("get").is_none());
            assert!(db.get("jobs", &m.request).expect("get").is_none());
        }
        let next = db.match_cycle(&options(&b, |_| {})).expect("cycle");
        assert_eq!((next.cycle, next.matches.len()), (2, 0));
    }
}
