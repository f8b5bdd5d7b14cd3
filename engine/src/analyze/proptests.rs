//! Property tests of the analysis against brute-force evaluation on random pools: every count,
//! every conflict failing and minimal, every suggestion's `would_match` equal to re-matching
//! with the change applied, and a suggestion that matches whenever some offer accepts the
//! request.

use super::suggest::{changed, with_requirements};
use super::table::holds;
use super::*;
use adjoin_query::eval::symmetric_match;
use adjoin_query::parse;
use proptest::prelude::*;

/// A random condition over a small attribute space.
fn cond() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..3usize, 0..5usize, 0..8i64).prop_map(|(a, op, v)| {
            let attr = ["Memory", "Cpus", "Disk"][a];
            let op = ["<", "<=", ">", ">=", "=="][op];
            format!("TARGET.{attr} {op} {v}")
        }),
        (0..3usize, any::<bool>()).prop_map(|(v, eq)| {
            let arch = ["X86_64", "ARM", "PPC"][v];
            format!("TARGET.Arch {} \"{arch}\"", if eq { "==" } else { "!=" })
        }),
        (0..8i64).prop_map(|v| format!("(TARGET.Memory + TARGET.Cpus > {v} || TARGET.Gpus =?= 1)")),
        Just("TARGET.HasDocker".to_owned()),
        (0..8i64).prop_map(|v| format!("Memory >= {v}")),
    ]
}

/// A random offer: some attributes may be missing; its Requirements read the request.
fn offer() -> impl Strategy<Value = String> {
    (
        proptest::option::of(0..8i64),
        proptest::option::of(0..8i64),
        0..8i64,
        0..3usize,
        proptest::option::of(any::<bool>()),
        0..4usize,
    )
        .prop_map(|(mem, cpus, disk, arch, docker, req)| {
            let mut s = String::from("[");
            if let Some(m) = mem {
                s += &format!("Memory = {m}; ");
            }
            if let Some(c) = cpus {
                s += &format!("Cpus = {c}; ");
            }
            s += &format!(
                "Disk = {disk}; Arch = \"{}\"; ",
                ["X86_64", "ARM", "PPC"][arch]
            );
            if let Some(d) = docker {
                s += &format!("HasDocker = {d}; ");
            }
            let req = [
                "true",
                "TARGET.ImageSize <= 4",
                "TARGET.Owner != \"eve\"",
                "TARGET.ImageSize < Disk",
            ][req];
            s += &format!("Requirements = {req}]");
            s
        })
}

/// A random offer whose Requirements take the shapes the offer side tells apart: exactly
/// converted (comparisons with literals or the offer's own attributes, `!=` splits, several
/// bounds on one attribute, conjunctions behind a reference, never true, none at all) and not
/// (`=?=`, `||`, arithmetic on the request's attributes), over integers, reals, strings and
/// booleans.
fn offer_wide() -> impl Strategy<Value = String> {
    (
        0..8i64,
        0..3usize,
        proptest::collection::vec(0..16usize, 1..3),
    )
        .prop_map(|(disk, arch, reqs)| {
            let req: Vec<&str> = reqs
                .iter()
                .map(|&r| {
                    [
                        "TARGET.ImageSize <= 4",
                        "TARGET.Owner != \"eve\"",
                        "TARGET.ImageSize < Disk",
                        "TARGET.imagesize > 2 && TARGET.ImageSize <= 6",
                        "TARGET.ImageSize != 3",
                        "TARGET.Owner == \"Bob\"",
                        "TARGET.ImageSize >= 2.5",
                        "Rest",
                        "!(TARGET.ImageSize < 2 || TARGET.Owner == \"eve\")",
                        "TARGET.HasDocker",
                        "TARGET.Owner =?= \"bob\"",
                        "(TARGET.ImageSize > 5 || TARGET.Owner == \"bob\")",
                        "TARGET.ImageSize * 2 < Disk",
                        "false",
                        "TARGET.ImageSize > 3 && TARGET.ImageSize < 2",
                        "TARGET.Cpus >= 2",
                    ][r]
                })
                .collect();
            let arch = ["X86_64", "ARM", "PPC"][arch];
            let requirements = if reqs.len() == 1 && reqs[0] == 15 {
                // Some offers have no Requirements at all.
                String::new()
            } else {
                format!("Requirements = {}; ", req.join(" && "))
            };
            format!(
                "[Memory = {disk}; Cpus = 2; Disk = {disk}; Arch = \"{arch}\"; \
                 Rest = TARGET.ImageSize >= 1 && TARGET.Owner != \"ann\"; {requirements}]"
            )
        })
}

fn request(conds: &[String], image: i64, owner: bool) -> ClassAd {
    let owner = if owner { "eve" } else { "bob" };
    parse::classad(&format!(
        "[ImageSize = {image}; Owner = \"{owner}\"; Requirements = {}]",
        conds.join(" && ")
    ))
    .expect("request")
}

fn pool_of(offers: &[String]) -> Pool {
    Pool::numbered(
        offers
            .iter()
            .map(|o| Arc::new(parse::classad(o).expect("offer")))
            .collect(),
    )
}

/// One random case analysed by evaluation: the request, the pool, the options, the analysis
/// and the request's conditions.
struct Case {
    req: ClassAd,
    pool: Pool,
    opts: AnalyzeOptions,
    a: Analysis,
    cs: Vec<Condition>,
}

fn case(conds: &[String], offers: &[String], image: i64, owner: bool) -> Case {
    let req = request(conds, image, owner);
    let pool = pool_of(offers);
    let opts = AnalyzeOptions::default();
    let a = analyze("r", &req, &pool, &opts).expect("analysis");
    let cs = split_requirements("r", &req, &opts.eval).expect("split");
    Case {
        req,
        pool,
        opts,
        a,
        cs,
    }
}

/// How many offers of `pool` match `ad` both ways (a suggestion's `would_match` by evaluation).
fn rematched(pool: &Pool, ad: &ClassAd, e: &EvalOptions) -> u64 {
    pool.ads
        .iter()
        .filter(|o| symmetric_match(ad, o, e))
        .count() as u64
}

/// `offers` put in a database (collection `slots`), its pool, and `req` analysed by
/// evaluating every offer and through the index.
fn both_ways(
    req: &ClassAd,
    offers: &[String],
    opts: &AnalyzeOptions,
) -> (crate::Db, Pool, Analysis, Analysis) {
    let db = crate::Db::open_in_memory().expect("db");
    for o in offers {
        db.put("slots", &parse::classad(o).expect("offer"))
            .expect("put");
    }
    let pool = db.pool("slots").expect("pool");
    let by_eval = analyze("r", req, &pool, opts).expect("analysis");
    let indexed = db.analyze_named("r", req, "slots", opts).expect("indexed");
    (db, pool, by_eval, indexed)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn counts_equal_brute_force(
        conds in proptest::collection::vec(cond(), 1..6),
        offers in proptest::collection::vec(offer(), 0..24),
        image in 0..8i64,
        owner in any::<bool>(),
    ) {
        let Case { req, pool, opts, a, cs } = case(&conds, &offers, image, owner);
        let e = &opts.eval;
        prop_assert_eq!(a.offers, pool.len() as u64);
        let both = pool.ads.iter().filter(|o| symmetric_match(&req, o, e)).count() as u64;
        prop_assert_eq!(a.matching, both);
        let req_true = pool.ads.iter().filter(|o| adjoin_index::accepts(&req, o, e)).count() as u64;
        prop_assert_eq!(a.rejected_by_request, a.offers - req_true);
        let they = pool.ads.iter().filter(|o| adjoin_index::accepts(o, &req, e)).count() as u64;
        prop_assert_eq!(a.rejecting_request, a.offers - they);
        for (i, c) in a.conditions.iter().enumerate() {
            let alone = pool.ads.iter().filter(|o| holds(&cs[i], &req, o, e)).count() as u64;
            let step = pool.ads.iter().filter(|o| cs[..=i].iter().all(|c| holds(c, &req, o, e))).count() as u64;
            prop_assert_eq!(c.matched, alone);
            prop_assert_eq!(c.step_matched, step);
        }
        // The printed conditions, reparsed and conjoined, are the Requirements on every offer.
        let reparsed: Vec<adjoin_query::Expr> = a.conditions.iter().map(|c| parse::expr(&c.condition).expect("reparse")).collect();
        let again = with_requirements(&req, &reparsed);
        for o in &pool.ads {
            prop_assert_eq!(adjoin_index::accepts(&again, o, e), adjoin_index::accepts(&req, o, e));
        }
    }

    #[test]
    fn conflicts_fail_and_are_minimal(
        conds in proptest::collection::vec(cond(), 1..7),
        offers in proptest::collection::vec(offer(), 0..24),
    ) {
        let Case { req, pool, opts, a, cs } = case(&conds, &offers, 1, false);
        let e = &opts.eval;
        let sat = |set: &[usize]| pool.ads.iter().any(|o| set.iter().all(|&i| holds(&cs[i], &req, o, e)));
        for c in &a.conflicts {
            prop_assert!(c.conditions.len() >= 2);
            match c.kind {
                ConflictKind::Data => {
                    prop_assert!(!sat(&c.conditions), "{:?} is satisfied", c);
                    for drop in 0..c.conditions.len() {
                        let mut sub = c.conditions.clone();
                        sub.remove(drop);
                        prop_assert!(sat(&sub), "{:?} is not minimal", c);
                    }
                }
                ConflictKind::Value => {
                    // No offer at all, whatever its values, satisfies them: here, none in the pool.
                    prop_assert!(!sat(&c.conditions));
                }
            }
        }
        // Every failing pair whose members each succeed is reported.
        for i in 0..cs.len() {
            for j in i + 1..cs.len() {
                if sat(&[i]) && sat(&[j]) && !sat(&[i, j]) {
                    prop_assert!(a.conflicts.iter().any(|c| c.conditions == vec![i, j]), "pair {} {} missing", i, j);
                }
            }
        }
    }

    #[test]
    fn suggestions_are_checked(
        conds in proptest::collection::vec(cond(), 1..6),
        offers in proptest::collection::vec(offer(), 0..24),
        image in 0..8i64,
        owner in any::<bool>(),
    ) {
        let Case { req, pool, opts, a, cs } = case(&conds, &offers, image, owner);
        let e = &opts.eval;
        for s in &a.suggestions {
            let exprs: Vec<adjoin_query::Expr> = changed(&req, &cs, &s.changes, true).into_iter().map(|c| c.expr).collect();
            let ad = with_requirements(&req, &exprs);
            let m = rematched(&pool, &ad, e);
            prop_assert_eq!(s.would_match, m);
            prop_assert!(s.would_match > 0);
        }
        let accepted = pool.ads.iter().any(|o| adjoin_index::accepts(o, &req, e));
        if accepted && a.matching == 0 {
            prop_assert!(a.suggestions.iter().any(|s| s.would_match > 0));
        }
        for o in &a.offer_side {
            if let Some(v) = &o.suggest {
                let mut ad = req.clone();
                ad.set(&o.attribute, parse::expr(v).expect("value"));
                let m = rematched(&pool, &ad, e);
                prop_assert_eq!(o.would_match, m);
            }
        }
    }

    #[test]
    fn through_the_index_as_by_evaluation(
        conds in proptest::collection::vec(cond(), 1..6),
        offers in proptest::collection::vec(offer(), 0..24),
        image in 0..8i64,
        owner in any::<bool>(),
    ) {
        let req = request(&conds, image, owner);
        let opts = AnalyzeOptions::default();
        let (db, pool, by_eval, indexed) = both_ways(&req, &offers, &opts);
        prop_assert_eq!(&indexed, &by_eval);
        let counts = db.analyze_counts(&req, "slots", &opts).expect("counts");
        prop_assert_eq!(&counts.conditions, &by_eval.conditions);
        prop_assert_eq!(counts.matching, by_eval.matching);
        // With few offers read back, counts, conflicts and M1 stay exact and every
        // suggestion is still checked.
        let few = AnalyzeOptions { max_detail_offers: 2, ..AnalyzeOptions::default() };
        let some = db.analyze_named("r", &req, "slots", &few).expect("indexed");
        prop_assert_eq!(&some.conditions, &by_eval.conditions);
        prop_assert_eq!(&some.conflicts, &by_eval.conflicts);
        // M2 weighs every offer whatever is read back: its suggestions are evaluation's.
        let m2 = |a: &Analysis| -> Vec<Suggestion> {
            a.suggestions.iter().filter(|s| s.metric == Metric::M2).cloned().collect()
        };
        prop_assert_eq!(m2(&some), m2(&by_eval));
        let e = &opts.eval;
        let cs = split_requirements("r", &req, e).expect("split");
        for s in &some.suggestions {
            let exprs: Vec<adjoin_query::Expr> = changed(&req, &cs, &s.changes, true).into_iter().map(|c| c.expr).collect();
            let ad = with_requirements(&req, &exprs);
            let m = rematched(&pool, &ad, e);
            prop_assert_eq!(s.would_match, m);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// `--unmatched` through the database (requests read undecoded and clustered, matches
    /// settled through the held index) groups exactly the requests that, each analysed on its
    /// own by evaluating every offer, match nothing, under the same reasons.
    #[test]
    fn unmatched_batch_as_each_request_alone(
        kinds in proptest::collection::vec((proptest::collection::vec(cond(), 1..4), 0..8i64, any::<bool>()), 1..5),
        picks in proptest::collection::vec(0..5usize, 1..30),
        offers in proptest::collection::vec(offer(), 0..24),
    ) {
        batch_as_each_alone(&kinds, &picks, &offers)?;
    }

    /// The same on pools of more offers than are ever read back (256), of every shape the
    /// offer side tells apart, each also asking for what no request has (so that every offer
    /// rejects every request): a cluster is grouped by the attribute weighed over every offer.
    #[test]
    fn unmatched_batch_over_large_pools(
        kinds in proptest::collection::vec((proptest::collection::vec(cond(), 1..3), 0..8i64, any::<bool>()), 1..4),
        picks in proptest::collection::vec(0..4usize, 1..8),
        offers in proptest::collection::vec((offer_wide(), 0..4usize), 257..290),
    ) {
        let offers: Vec<String> = offers
            .into_iter()
            .map(|(o, x)| {
                let extra = ["TARGET.Cpus >= 2", "TARGET.Gpus > 0", "TARGET.ImageSize > 1000", "TARGET.Gpus =?= 1"][x];
                o.replace("Requirements = ", &format!("Requirements = {extra} && "))
            })
            .collect();
        batch_as_each_alone(&kinds, &picks, &offers)?;
    }

    /// The same where offers' values read the request (`Memory = TARGET.ImageSize - m`): a
    /// condition's set over the offers then differs from request to request, so a batch must
    /// not reuse one request's for the next.
    #[test]
    fn unmatched_batch_with_offers_reading_the_request(
        kinds in proptest::collection::vec((proptest::collection::vec(cond(), 1..4), 0..8i64, any::<bool>()), 2..5),
        picks in proptest::collection::vec(0..5usize, 2..30),
        offers in proptest::collection::vec(offer(), 1..24),
    ) {
        let offers: Vec<String> = offers
            .into_iter()
            .map(|o| o.replace("Memory = ", "Memory = TARGET.ImageSize - "))
            .collect();
        batch_as_each_alone(&kinds, &picks, &offers)?;
    }
}

/// Two clusters whose first condition reads offers' `Memory = TARGET.ImageSize`: false on
/// every offer for the first request, true on every offer for the second, which the second
/// condition then rules out. The batch must weigh each request's own set (the first condition's
/// set of one request is not the other's).
#[test]
fn unmatched_batch_keeps_sets_that_read_the_request_apart() {
    let conds = vec![
        "TARGET.Memory > 5".to_owned(),
        "TARGET.Disk > 100".to_owned(),
    ];
    let kinds = vec![(conds.clone(), 0, false), (conds, 10, false)];
    let offers: Vec<String> = (0..3)
        .map(|d| {
            format!(
                "[Memory = TARGET.ImageSize; Disk = {d}; Arch = \"X86_64\"; Requirements = true]"
            )
        })
        .collect();
    batch_as_each_alone(&kinds, &[0, 1], &offers).expect("batch as each alone");
    batch_as_each_alone(&kinds, &[1, 0], &offers).expect("batch as each alone");
}

/// The batch through the database equals each request analysed alone by evaluation: the
/// requests are `kinds` picked by `picks`, the offers `offers`.
fn batch_as_each_alone(
    kinds: &[(Vec<String>, i64, bool)],
    picks: &[usize],
    offers: &[String],
) -> Result<(), TestCaseError> {
    let db = crate::Db::open_in_memory().expect("db");
    for o in offers {
        db.put("slots", &parse::classad(o).expect("offer"))
            .expect("put");
    }
    let mut reqs = Vec::new();
    for (n, p) in picks.iter().enumerate() {
        let (conds, image, owner) = &kinds[p % kinds.len()];
        let mut r = request(conds, *image, *owner);
        r.set(
            "Name",
            adjoin_query::Expr::Lit(adjoin_query::Value::str(&format!("r{n}"))),
        );
        db.put("jobs", &r).expect("put");
        reqs.push(r);
    }
    let opts = AnalyzeOptions::default();
    let got = db
        .analyze_unmatched("jobs", "slots", &opts)
        .expect("unmatched");
    let pool = db.pool("slots").expect("pool");
    let mut want: std::collections::BTreeMap<(String, String), u64> = Default::default();
    for r in &reqs {
        let id = super::db::ad_id(r);
        if let Some(k) = super::unmatched::why_pool(&id, r, &pool, &opts) {
            *want.entry(k).or_default() += 1;
        }
    }
    let have: std::collections::BTreeMap<(String, String), u64> = got
        .groups
        .iter()
        .map(|g| ((g.kind.clone(), g.reason.clone()), g.requests))
        .collect();
    prop_assert_eq!(got.requests, reqs.len() as u64);
    prop_assert_eq!(got.offers, offers.len() as u64);
    prop_assert_eq!(got.unmatched, want.values().sum::<u64>());
    prop_assert_eq!(have, want);
    prop_assert!(got.clusters <= kinds.len() as u64);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// On pools of more offers than are read back (256), M2 through the index still weighs
    /// every offer: its suggestions equal those of evaluating every offer; the offer side's
    /// values are chosen by how many of all the offers accept them.
    #[test]
    fn m2_over_large_pools_as_by_evaluation(
        conds in proptest::collection::vec(cond(), 1..6),
        offers in proptest::collection::vec(offer(), 257..320),
        image in 0..8i64,
        owner in any::<bool>(),
    ) {
        let req = request(&conds, image, owner);
        let opts = AnalyzeOptions::default();
        let (_, pool, by_eval, indexed) = both_ways(&req, &offers, &opts);
        prop_assert_eq!(&indexed.conditions, &by_eval.conditions);
        prop_assert_eq!(&indexed.suggestions, &by_eval.suggestions);
        // The offer side's values are chosen over every offer: each is accepted by more
        // offers of the whole pool than the request's own value, and re-matched exactly.
        let e = &opts.eval;
        let accepting = |ad: &ClassAd| pool.ads.iter().filter(|o| adjoin_index::accepts(o, ad, e)).count();
        for o in &indexed.offer_side {
            if let Some(v) = &o.suggest {
                let mut ad = req.clone();
                ad.set(&o.attribute, parse::expr(v).expect("value"));
                prop_assert!(accepting(&ad) > accepting(&req), "{:?}", o);
                let m = rematched(&pool, &ad, e);
                prop_assert_eq!(o.would_match, m);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// On pools of more offers than were ever read back (256), the offer side through the
    /// index (exactly converted offers weighed from their bounds, the others read back and
    /// evaluated) equals evaluation's: every attribute, count, suggested value and
    /// `would_match`; and every `rejecting` is the brute-force count of its definition.
    #[test]
    fn offer_side_over_large_pools_as_by_evaluation(
        conds in proptest::collection::vec(cond(), 1..4),
        offers in proptest::collection::vec(offer_wide(), 257..300),
        image in prop_oneof![(0..8i64).prop_map(|i| i.to_string()), Just("7.5".to_owned()), Just("\"big\"".to_owned()), Just("undefined".to_owned())],
        owner in prop_oneof![Just("\"eve\""), Just("\"bob\""), Just("\"BOB\""), Just("undefined")],
        docker in any::<bool>(),
    ) {
        let mut req = request(&conds, 0, false);
        req.set("ImageSize", parse::expr(&image).expect("image"));
        req.set("Owner", parse::expr(owner).expect("owner"));
        req.set("HasDocker", parse::expr(&docker.to_string()).expect("docker"));
        let opts = AnalyzeOptions::default();
        let (_, pool, by_eval, indexed) = both_ways(&req, &offers, &opts);
        prop_assert_eq!(&indexed.offer_side, &by_eval.offer_side);
        prop_assert_eq!(&indexed, &by_eval);
        let e = &opts.eval;
        for o in &indexed.offer_side {
            if let Some(v) = &o.suggest {
                let mut ad = req.clone();
                ad.set(&o.attribute, parse::expr(v).expect("value"));
                prop_assert_eq!(o.would_match, rematched(&pool, &ad, e));
            }
        }
        // Each count, offer by offer: an offer rejecting the request counts once under an
        // attribute its one-offer tally names (attributes compared as names are, ignoring
        // case: the pool's spelling is the least one seen).
        let mut want: std::collections::BTreeMap<String, u64> = Default::default();
        for o in pool.ads.iter().filter(|o| !adjoin_index::accepts(o, &req, e)) {
            let mut one = offer_side::Tally::default();
            one.offer(&req, o, e, 0);
            for (name, n, _) in one.attributes(&req, &|_| Some(Arc::clone(o))) {
                prop_assert_eq!(n, 1);
                *want.entry(name.as_str().to_ascii_lowercase()).or_default() += 1;
            }
        }
        let have: std::collections::BTreeMap<String, u64> =
            indexed.offer_side.iter().map(|o| (o.attribute.to_ascii_lowercase(), o.rejecting)).collect();
        prop_assert_eq!(have, want);
    }
}
