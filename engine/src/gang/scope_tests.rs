//! Property tests of the indexed algorithms' windows on the scoping of ports: random requests
//! and offers whose records shadow their ads' attributes (`X = Y` in the ad, `Y` bound again
//! in the record), read them through `MY` and `parent`, bind a name that is also a label, label
//! a port `other` (or a keyword: `self`, `MY`, `parent`), read another port's partner as a
//! whole (`b =!= undefined`), read names the environment binds nowhere (`isUndefined(Memory)`,
//! `TARGET.Y` in an explicit port), the ad's `Ports`, the context through `parent`, `self.L`
//! and `MY.L`, and bind ad attributes named like keywords (`self`, `Root`, `CurrentTime`). Every
//! algorithm, under both semantics, gives a gang to exactly the requests the exhaustive search
//! over the Figure-32 environment finds one for.

use super::oracle;
use super::pool::Pool;
use super::ports::GangAd;
use super::search::Searcher;
use super::Algorithm;
use crate::collection::Collection;
use adjoin_index::IndexOptions;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{parse, ClassAd};
use proptest::prelude::*;
use std::sync::Arc;

/// The attributes an ad or record may bind, each drawn from its own list.
fn attrs(ad: bool) -> impl Strategy<Value = String> {
    let y = prop::sample::select(vec!["", "Y = 1; ", "Y = 2; ", "Y = \"s\"; "]);
    let x = if ad {
        prop::sample::select(vec!["", "X = Y; ", "X = MY.Y; ", "X = Y + 1; ", "X = Z; "])
    } else {
        prop::sample::select(vec![
            "",
            "X = 3; ",
            "X = Y; ",
            "X = parent.Y; ",
            "X = MY.Y; ",
        ])
    };
    let z = prop::sample::select(vec!["", "Z = 1; ", "Z = X; ", "Z = other; "]);
    // Ad attributes read through the ports list, the context, or named like keywords.
    let w = if ad {
        prop::sample::select(vec![
            "",
            "N = size(Ports); ",
            "C = parent.cpu.Y == 1; ",
            "M = parent.job.Y; ",
            "self = 0; ",
            "Root = 1; ",
            "CurrentTime = 5; ",
        ])
    } else {
        prop::sample::select(vec!["", "M = self.Y; "])
    };
    (y, x, z, w).prop_map(|(y, x, z, w)| format!("{y}{x}{z}{w}"))
}

/// A condition a port `l` (whose ad's other label is `m`) may make.
fn condition(l: &'static str, m: &'static str) -> impl Strategy<Value = String> {
    let forms: Vec<String> = vec![
        format!("{l}.X == 1"),
        format!("{l}.X == 2"),
        format!("{l}.Y == 1"),
        format!("{l}.Z >= 1"),
        format!("{l}.Y ?: 0 >= 1"),
        format!("{m} =!= undefined"),
        format!("isUndefined({m}.Y)"),
        "isUndefined(Memory)".to_owned(),
        "isUndefined(TARGET.Y)".to_owned(),
        "other.Y == 1".to_owned(),
        "X == 1".to_owned(),
        "MY.Y == 2".to_owned(),
        "true".to_owned(),
        format!("self.{l}.Y == 1"),
        format!("MY.{l}.Y == 1"),
        "size(Ports) == 1".to_owned(),
        "N == 1".to_owned(),
        "C".to_owned(),
        "_ad.Y == 1".to_owned(),
        "Root =!= 1".to_owned(),
        "CurrentTime =!= 5".to_owned(),
    ];
    prop::collection::vec(prop::sample::select(forms), 1..=2).prop_map(|v| v.join(" && "))
}

/// A request: one port, or two (the second may read the first's partner).
fn request() -> impl Strategy<Value = String> {
    let labels = prop::sample::select(vec![
        ("cpu", "lic"),
        ("other", "lic"),
        ("cpu", "other"),
        ("self", "lic"),
        ("MY", "lic"),
        ("parent", "lic"),
    ]);
    (
        labels,
        attrs(true),
        attrs(false),
        attrs(false),
        any::<bool>(),
    )
        .prop_flat_map(|((a, b), ad, r0, r1, two)| {
            (condition(a, b), condition(b, a)).prop_map(move |(c0, c1)| {
                let first = format!("[Label = {a}; {r0}Requirements = {c0}]");
                if two {
                    format!("[{ad}Ports = {{{first}, [Label = {b}; {r1}Requirements = {c1}]}}]")
                } else {
                    format!("[{ad}Ports = {{{first}}}]")
                }
            })
        })
}

/// An offer: one port labelled `job` (or `other`), or a plain ad.
fn offer() -> impl Strategy<Value = String> {
    let label = prop::sample::select(vec!["job", "other", "self", "plain"]);
    (label, attrs(true), attrs(false)).prop_flat_map(|(l, ad, rec)| {
        condition(if l == "plain" { "TARGET" } else { l }, "lic").prop_map(move |c| {
            if l == "plain" {
                format!("[{ad}{rec}Requirements = {c}]")
            } else {
                format!("[{ad}Ports = {{[Label = {l}; {rec}Requirements = {c}]}}]")
            }
        })
    })
}

fn pool(texts: &[String], alg: Algorithm, opts: &IndexOptions) -> Pool {
    let coll = Collection {
        ids: (0..texts.len()).map(|i| format!("o{i}")).collect(),
        ads: texts
            .iter()
            .map(|t| Arc::new(parse::classad(t).expect("offer")))
            .collect(),
        damaged: Vec::new(),
    };
    Pool::new(
        vec![("offers".to_owned(), coll)],
        alg.indexed().then_some(opts),
        &mut Vec::new(),
    )
    .expect("pool")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn windows_read_scopes_as_the_environment_does(
        request in request(),
        offers in prop::collection::vec(offer(), 2..=6),
        old in any::<bool>(),
    ) {
        let opts = IndexOptions {
            eval: EvalOptions { target_fallback: old, ..EvalOptions::default() },
            ..IndexOptions::default()
        };
        let ad: ClassAd = parse::classad(&request).expect("request");
        let Ok(root) = GangAd::new(Arc::new(ad)) else {
            // A request with bad ports (a label used before its port) has no gang anywhere.
            return Ok(());
        };
        let root = Arc::new(root);
        let naive = pool(&offers, Algorithm::Naive, &opts);
        let exists = oracle::exists(&naive, Arc::clone(&root), &opts.eval);
        for alg in Algorithm::ALL {
            let mut p = pool(&offers, alg, &opts);
            let found = Searcher::new(&mut p, alg, opts.eval.clone(), None).find(Arc::clone(&root));
            prop_assert_eq!(found.is_some(), exists, "{} {} {:?}", alg, request, offers);
        }
    }
}
