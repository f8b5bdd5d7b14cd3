//! Rectangle conversion (dissertation 4.5.2): a profile form becomes rectangles, an ad's
//! constant attributes become imported points.
//!
//! Per profile, the properties on one attribute merge into one interval (`x > 10 && x < 50`
//! is `(10, 50)`); a `!=` splits its attribute into two intervals and the profile into one
//! rectangle per combination (capped: past the cap an attribute's alternatives are replaced by
//! their hull, an over-approximation). Two properties no value satisfies together are a
//! *consistency error*: a value error (`x < 10 && x > 12`) or a type error (`x == "a" &&
//! x > 1`); the profile then matches nothing and the error is reported.
//!
//! The exported side of a rectangle is `exp` (Exp(R)); the attributes the constraint reads
//! but this profile does not bound are Exp_absent; `deviant` is Exp_deviant. The imported side
//! is per ad ([`imp_value`]): a point for a constant attribute (Imp), absent for a missing one
//! or one whose value no comparison can be true of (`undefined`, `error`, lists, ads:
//! Imp_absent), deviant for anything else (Imp_deviant: not constant, or NaN).

use crate::interval::{cmp_hi, cmp_lo, Interval};
use crate::mangle::{classify, Classified, MangledValue};
use crate::profile::{fold_constant_nested, Dpf};
use crate::property::{property, Inconsistency, MangledInterval, Property};
use adjoin_query::eval::EvalOptions;
use adjoin_query::specialize::{import_depth, specialize_import};
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::collections::BTreeMap;

/// The default cap on the rectangles of one profile (`!=` splits multiply them).
pub const RECTANGLE_CAP: usize = 64;

/// One rectangle's exported side: an interval per bounded attribute, and Exp_deviant.
#[derive(Clone, Debug, PartialEq)]
pub struct Rectangle {
    /// The bounds, sorted by attribute (at most one interval per attribute).
    pub exp: Vec<(Key, MangledInterval)>,
    /// The profile has a sub-expression not in property form.
    pub deviant: bool,
}

impl Rectangle {
    /// The interval bounding `attr`, if any.
    pub fn get(&self, attr: Key) -> Option<&MangledInterval> {
        self.exp
            .binary_search_by(|(k, _)| k.cmp(&attr))
            .ok()
            .map(|i| &self.exp[i].1)
    }
}

/// Two properties of one profile that no value satisfies together (dissertation 4.2.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConsistencyError {
    /// The profile (index into the profile form).
    pub profile: usize,
    /// The attribute.
    pub attr: Key,
    /// Value or type.
    pub kind: Inconsistency,
}

/// The rectangles of a constraint.
#[derive(Clone, Debug, PartialEq)]
pub struct Rectangles {
    /// The rectangles (none: the constraint matches nothing).
    pub rects: Vec<Rectangle>,
    /// The contradictory profiles found.
    pub errors: Vec<ConsistencyError>,
    /// The constraint is true of an ad exactly when some rectangle contains its points: the
    /// profile form is exact, every property's intervals are exact, no hull was taken.
    pub exact: bool,
}

impl Rectangles {
    /// The attributes some rectangle bounds, sorted, without repeats.
    pub fn attrs(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .rects
            .iter()
            .flat_map(|r| r.exp.iter().map(|(k, _)| *k))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// The interval spanning every interval of `alts` (all of one domain).
fn hull(alts: &[MangledInterval]) -> MangledInterval {
    fn span<K: Ord + Clone>(ivs: &[&Interval<K>]) -> Interval<K> {
        let lo = ivs.iter().map(|i| &i.lo).min_by(|a, b| cmp_lo(a, b));
        let hi = ivs.iter().map(|i| &i.hi).max_by(|a, b| cmp_hi(a, b));
        match (lo, hi) {
            (Some(lo), Some(hi)) => Interval::new(lo.clone(), hi.clone()),
            _ => Interval::full(),
        }
    }
    macro_rules! each {
        ($variant:ident) => {{
            let ivs: Vec<_> = alts
                .iter()
                .filter_map(|a| match a {
                    MangledInterval::$variant(i) => Some(i),
                    _ => None,
                })
                .collect();
            MangledInterval::$variant(span(&ivs))
        }};
    }
    match alts.first() {
        Some(MangledInterval::Number(_)) => each!(Number),
        Some(MangledInterval::String(_)) => each!(String),
        Some(MangledInterval::AbsTime(_)) => each!(AbsTime),
        Some(MangledInterval::RelTime(_)) | None => each!(RelTime),
    }
}

/// What one profile's properties come to.
enum Converted {
    /// Per attribute, the alternative intervals (one unless `!=` split it); whether some
    /// conjunct is deviant; whether every property is exact.
    Live(BTreeMap<Key, Vec<MangledInterval>>, bool, bool),
    /// No value satisfies it (with the consistency error, if that was the reason).
    Dead(Option<(Key, Inconsistency)>),
}

/// One profile's properties as alternative intervals per attribute.
///
/// An attribute split into more than `cap` alternatives (`X != 1 && X != 2 && …`) is
/// replaced by their hull as it goes, and the profile is then not exact: [`rectangles`] would
/// take the hull of so many anyway, and merging each further conjunct with every alternative
/// made a long chain of `!=` quadratic (40,000 conjuncts took 12 s to convert).
fn convert_profile(p: &crate::profile::Profile, cap: usize) -> Converted {
    let mut dims: BTreeMap<Key, Vec<MangledInterval>> = BTreeMap::new();
    let mut deviant = p.deviant;
    let mut exact = true;
    for prop in &p.props {
        let parts = match property(prop.rel, &prop.value) {
            Property::Never => return Converted::Dead(None),
            Property::Deviant => {
                deviant = true;
                continue;
            }
            Property::Intervals { parts, exact: e } => {
                exact &= e;
                parts
            }
        };
        let merged = match dims.get(&prop.attr) {
            None => parts,
            Some(alts) => {
                let mut out = Vec::new();
                let mut kind = Inconsistency::Value;
                let mut all_type = true;
                for a in alts {
                    for b in &parts {
                        match a.merge(b) {
                            Ok(m) => out.push(m),
                            Err(k) => {
                                all_type &= k == Inconsistency::Type;
                                kind = k;
                            }
                        }
                    }
                }
                if out.is_empty() {
                    let kind = if all_type { Inconsistency::Type } else { kind };
                    return Converted::Dead(Some((prop.attr, kind)));
                }
                out
            }
        };
        let merged = if merged.len() > cap {
            exact = false;
            vec![hull(&merged)]
        } else {
            merged
        };
        dims.insert(prop.attr, merged);
    }
    Converted::Live(dims, deviant, exact && !deviant)
}

/// The rectangles of a profile form, at most `cap` per profile.
pub fn rectangles(dpf: &Dpf, cap: usize) -> Rectangles {
    let cap = cap.max(1);
    let mut out = Rectangles {
        rects: Vec::new(),
        errors: Vec::new(),
        exact: dpf.exact,
    };
    for (i, p) in dpf.profiles.iter().enumerate() {
        let (mut dims, deviant, exact) = match convert_profile(p, cap) {
            Converted::Live(dims, deviant, exact) => (dims, deviant, exact),
            Converted::Dead(err) => {
                if let Some((attr, kind)) = err {
                    out.errors.push(ConsistencyError {
                        profile: i,
                        attr,
                        kind,
                    });
                }
                continue;
            }
        };
        out.exact &= exact;
        let count = dims
            .values()
            .fold(1_usize, |n, alts| n.saturating_mul(alts.len()));
        if count > cap {
            out.exact = false;
            for alts in dims.values_mut() {
                if alts.len() > 1 {
                    *alts = vec![hull(alts)];
                }
            }
        }
        // The cartesian product of the alternatives, attributes taken by name (so that the
        // rectangles come in the same order whatever the numbers of their keys, which follow
        // the order names were first read), each rectangle's bounds then sorted by key. One
        // rectangle (the common case) is its bounds in key order already.
        let several = dims.values().any(|alts| alts.len() > 1);
        let mut by_name: Vec<(&Key, &Vec<MangledInterval>)> = dims.iter().collect();
        if several {
            by_name.sort_unstable_by_key(|(k, _)| k.as_str());
        }
        let mut partial: Vec<Vec<(Key, MangledInterval)>> = vec![Vec::new()];
        for (attr, alts) in by_name {
            let mut next = Vec::with_capacity(partial.len() * alts.len());
            for prefix in &partial {
                for alt in alts {
                    let mut r = Vec::with_capacity(dims.len());
                    r.extend_from_slice(prefix);
                    r.push((*attr, alt.clone()));
                    next.push(r);
                }
            }
            partial = next;
        }
        out.rects.extend(partial.into_iter().map(|mut exp| {
            if several {
                exp.sort_unstable_by_key(|(k, _)| *k);
            }
            Rectangle { exp, deviant }
        }));
    }
    out
}

/// An attribute as the other side's constraint sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ImpValue {
    /// A constant with a place in its domain (Imp).
    Point(MangledValue),
    /// Missing, or a value no property holds of (Imp_absent).
    Absent,
    /// Not constant, or NaN (Imp_deviant): only evaluation can tell.
    Deviant,
}

/// `attr` of `ad` as a reference `TARGET.attr` from the other ad reads it: specialized
/// against `ad`, then classified.
pub fn imp_value(ad: &ClassAd, attr: Key, opts: &EvalOptions) -> ImpValue {
    let classified = |v: &Value| match classify(v) {
        Classified::Key(k) => ImpValue::Point(k),
        Classified::NoMatch => ImpValue::Absent,
        Classified::Deviant => ImpValue::Deviant,
    };
    match ad.get_key(attr) {
        None => ImpValue::Absent,
        // A literal is its own specialization, and its value as evaluation reads it.
        Some(Expr::Lit(v)) => classified(&v.as_evaluated()),
        // Folded as a reference nested up to `import_depth` deep reads it (`dpf` decides
        // nothing in constraints nested deeper): a value that only a shallower reference would
        // compute is deviant.
        Some(_) => match specialize_import(ad, attr.as_str(), opts) {
            None => ImpValue::Absent,
            Some(e) => fold_constant_nested(&e, opts, import_depth(opts))
                .map_or(ImpValue::Deviant, |v| classified(&v)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::{NumKey, StrKey};
    use crate::profile::{constraint_dpf, PROFILE_CAP};
    use crate::Bound;
    use adjoin_query::parse;

    fn opts() -> EvalOptions {
        EvalOptions::default()
    }

    fn convert(ad: &str) -> Rectangles {
        let ad = parse::classad(ad).expect("ad");
        rectangles(&constraint_dpf(&ad, &opts(), PROFILE_CAP), RECTANGLE_CAP)
    }

    /// Renders a number interval with integer or real ends as `[3, 5)`, `(-inf, 7]`.
    fn show(iv: &MangledInterval) -> String {
        fn num(k: &NumKey) -> String {
            let x = k.approx.get();
            let t = match k.tie {
                NumKey::TIE_BELOW => "-",
                NumKey::TIE_ABOVE => "+",
                _ => "",
            };
            format!("{x}{t}")
        }
        fn ends<K>(i: &Interval<K>, f: impl Fn(&K) -> String) -> String {
            let lo = match &i.lo {
                Bound::Unbounded => "(-inf".to_string(),
                Bound::Included(k) => format!("[{}", f(k)),
                Bound::Excluded(k) => format!("({}", f(k)),
            };
            let hi = match &i.hi {
                Bound::Unbounded => "inf)".to_string(),
                Bound::Included(k) => format!("{}]", f(k)),
                Bound::Excluded(k) => format!("{})", f(k)),
            };
            format!("{lo}, {hi}")
        }
        match iv {
            MangledInterval::Number(i) => ends(i, num),
            MangledInterval::String(i) => ends(i, |k: &StrKey| format!("{:?}", k.as_str())),
            MangledInterval::AbsTime(i) => ends(i, |k| format!("@{k}")),
            MangledInterval::RelTime(i) => ends(i, |k| format!("{}s", k.get())),
        }
    }

    fn render(r: &Rectangles) -> String {
        let mut rects: Vec<String> = r
            .rects
            .iter()
            .map(|rect| {
                let mut parts: Vec<String> = rect
                    .exp
                    .iter()
                    .map(|(k, iv)| format!("{}:{}", k.as_str(), show(iv)))
                    .collect();
                parts.sort(); // keys are in interning order, which varies between runs
                if rect.deviant {
                    parts.push("?".into());
                }
                parts.join(" ")
            })
            .collect();
        rects.sort();
        if rects.is_empty() {
            rects.push("none".into());
        }
        let errors: Vec<String> = r
            .errors
            .iter()
            .map(|e| format!(" !{}:{:?}", e.attr.as_str(), e.kind))
            .collect();
        format!(
            "{}{}{}",
            rects.join(" | "),
            errors.join(""),
            if r.exact { "" } else { " ~" }
        )
    }

    /// `(ad, rectangles)`; `!attr:Kind` is a consistency error, `~` an inexact conversion.
    #[test]
    #[rustfmt::skip]
    fn conversion_table() {
        let cases = [
            // Figure 16's offers and requests.
            ("[ x=10; Constraint=other.y>=7 ]", "y:[7, inf)"),
            ("[ x=7; Constraint=other.y<=5 ]", "y:(-inf, 5]"),
            ("[ y=8; Constraint=other.x>=8 ]", "x:[8, inf)"),
            ("[ y=3; Constraint=other.x<=15 ]", "x:(-inf, 15]"),
            // Bounds on one attribute merge; contradictions are reported (4.2.2).
            ("[Requirements = other.x > 10 && other.x < 50]", "x:(10, 50)"),
            ("[Requirements = other.x < 10 && other.x > 12]", "none !x:Value"),
            ("[Requirements = other.x == \"a\" && other.x > 1]", "none !x:Type"),
            ("[Requirements = other.x < 10 && other.x > 12 || other.y == 1]", "y:[1, 1] !x:Value ~"),
            ("[Requirements = other.x >= 2.5 && other.x <= 3]", "x:[2.5-, 3]"),
            // `!=` splits.
            ("[Requirements = other.x != 5]", "x:(-inf, 5) | x:(5, inf)"),
            ("[Requirements = other.x != 5 && other.x > 3]", "x:(3, 5) | x:(5, inf)"),
            ("[Requirements = other.x != 5 && other.x == 5]", "none !x:Value"),
            ("[Requirements = other.x != 1 && other.y != 2]", "x:(-inf, 1) y:(-inf, 2) | x:(-inf, 1) y:(2, inf) | x:(1, inf) y:(-inf, 2) | x:(1, inf) y:(2, inf)"),
            ("[Requirements = other.s == \"LINUX\" && other.s != \"linux\"]", "none !s:Value"),
            ("[Requirements = other.s >= \"B\" && other.s < \"d\"]", "s:[\"b\", \"d\")"),
            // Comparisons with undefined never hold; `is` is inexact; deviant parts stay.
            ("[Requirements = other.x == undefined]", "none"),
            ("[Requirements = other.x =?= 3]", "x:[3, 3] ~"),
            ("[Requirements = other.x is undefined && other.y < 2]", "y:(-inf, 2) ? ~"),
            ("[Requirements = other.t > relTime(90)]", "t:(90s, inf)"),
            ("[Requirements = other.b]", "b:(-inf, 0-) | b:(0+, inf)"),
            ("[Requirements = true]", ""),
        ];
        let mut wrong = Vec::new();
        for (ad, want) in cases {
            let got = render(&convert(ad));
            if got != want {
                wrong.push(format!("{ad}: got {got}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn cap_takes_the_hull() {
        let ad = "[Requirements = other.a != 1 && other.b != 2 && other.c != 3]";
        let ad = parse::classad(ad).expect("ad");
        let r = rectangles(&constraint_dpf(&ad, &opts(), PROFILE_CAP), 4);
        assert_eq!(r.rects.len(), 1);
        assert!(!r.exact);
        assert_eq!(render(&r), "a:(-inf, inf) b:(-inf, inf) c:(-inf, inf) ~");
    }

    /// A profile's rectangles come in the order of the names they bound, whichever name was
    /// read first in the process (keys are numbered in that order); each one's bounds are
    /// sorted by key, as [`Rectangle::get`] searches them.
    /// A long chain of `!=` on one attribute becomes a few inexact rectangles spanning what
    /// the chain's other conjuncts allow (hulled as it goes: the chain was quadratic).
    #[test]
    fn long_chains_of_not_equal_are_hulled() {
        for (tail, end) in [("", "inf)"), (" && other.X < 9000", "9000)")] {
            let chain: Vec<String> = (0..5_000).map(|i| format!("other.X != {i}")).collect();
            let r = convert(&format!("[Requirements = {}{tail}]", chain.join(" && ")));
            assert!(!r.exact);
            assert!((1..=RECTANGLE_CAP).contains(&r.rects.len()));
            let shown: Vec<String> = (r.rects.iter())
                .map(|rect| rect.get(Key::of("X")).map(show).unwrap_or_default())
                .collect();
            let (first, last) = (shown.first(), shown.last());
            assert!(first.is_some_and(|f| f.starts_with("(-inf,")), "{shown:?}");
            assert!(last.is_some_and(|l| l.ends_with(end)), "{shown:?}");
        }
        // Few enough alternatives stay as they are, exact.
        let r = convert("[Requirements = other.X != 1 && other.X != 2]");
        assert!(r.exact);
        assert_eq!(r.rects.len(), 3);
    }

    #[test]
    fn rectangles_come_in_the_order_of_names_not_of_keys() {
        for (a, b, read_first) in [
            ("RectAlpha", "RectBeta", "RectAlpha"),
            ("RectDelta", "RectGamma", "RectGamma"),
        ] {
            // `a` comes before `b` by name; `read_first` is interned first, so its key is the
            // smaller: the second pair's keys are in the other order.
            let read_second = if read_first == a { b } else { a };
            assert!(Key::of(read_first) < Key::of(read_second));
            let r = convert(&format!(
                "[Requirements = other.{b} != 2 && other.{a} != 1]"
            ));
            let shown: Vec<String> = (r.rects.iter())
                .map(|rect| {
                    assert!(rect.exp.windows(2).all(|w| w[0].0 < w[1].0));
                    let get = |n: &str| rect.get(Key::of(n)).map(show).unwrap_or_default();
                    format!("{} {}", get(a), get(b))
                })
                .collect();
            assert_eq!(
                shown,
                [
                    "(-inf, 1) (-inf, 2)",
                    "(-inf, 1) (2, inf)",
                    "(1, inf) (-inf, 2)",
                    "(1, inf) (2, inf)",
                ]
            );
        }
    }

    /// Figure 16's file: offers and requests convert to rays; the imported points of each
    /// side are the other side's dimensions.
    #[test]
    fn figure_16_file() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/dissertation/fig16_indexing.ad"
        );
        let text = std::fs::read_to_string(path).expect("figure");
        let ads = parse::ads(&text, parse::Format::New).expect("ads");
        let want = [
            ("y:[7, inf)", "x", 10),
            ("y:(-inf, 5]", "x", 7),
            ("x:[8, inf)", "y", 8),
            ("x:(-inf, 15]", "y", 3),
        ];
        assert_eq!(ads.len(), want.len());
        for (ad, (rect, own, v)) in ads.iter().zip(want) {
            let r = rectangles(&constraint_dpf(ad, &opts(), PROFILE_CAP), RECTANGLE_CAP);
            assert_eq!(render(&r), rect);
            let p = ImpValue::Point(MangledValue::Number(NumKey::from_int(v)));
            assert_eq!(imp_value(ad, Key::of(own), &opts()), p);
        }
    }

    /// Figures 19 and 20: the workload's ads convert to one exact rectangle each.
    #[test]
    fn workload_figures() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/dissertation/");
        let cases = [
            (
                "fig19_index_object.ad",
                "w:(-inf, 7] x:[1, inf) y:(-inf, 6] z:(-inf, 5]",
            ),
            (
                "fig20_index_query.ad",
                "a:[0, inf) b:(-inf, 6] c:[1, inf) d:[7, inf)",
            ),
        ];
        for (file, want) in cases {
            let text = std::fs::read_to_string(format!("{dir}{file}")).expect("figure");
            let ad = parse::classad(&text).expect("ad");
            let r = rectangles(&constraint_dpf(&ad, &opts(), PROFILE_CAP), RECTANGLE_CAP);
            assert_eq!(render(&r), want, "{file}");
        }
    }

    #[test]
    fn imp_table() {
        let ad = parse::classad(
            r#"[a = 3; b = 2 * a; c = "X"; d = undefined; e = {1}; f = TARGET.y;
               g = real("NaN"); h = relTime(90); i = true; j = time()]"#,
        )
        .expect("ad");
        let num = |i| ImpValue::Point(MangledValue::Number(NumKey::from_int(i)));
        let cases = [
            ("a", num(3)),
            ("b", num(6)),
            (
                "c",
                ImpValue::Point(MangledValue::String(StrKey::fold("x"))),
            ),
            ("d", ImpValue::Absent),
            ("e", ImpValue::Absent),
            ("f", ImpValue::Deviant),
            ("g", ImpValue::Deviant),
            ("i", num(1)),
            ("j", ImpValue::Deviant),
            ("missing", ImpValue::Absent),
        ];
        for (name, want) in cases {
            assert_eq!(imp_value(&ad, Key::of(name), &opts()), want, "{name}");
        }
        assert!(matches!(
            imp_value(&ad, Key::of("h"), &opts()),
            ImpValue::Point(MangledValue::RelTime(_))
        ));
    }
}
