//! The gang model of one ad (dissertation 3.2.2–3.2.4): its ordered, labelled ports, checked.
//!
//! An ad's `Ports` is a list of port records, each with a `Label` (a string or a bare name), a
//! constraint (`Requirements`, or the dissertation's `Constraint`), an optional `Rank`, and
//! whatever else it shows to the partner docked there. Labels are unique within the ad
//! (case-insensitively) and visible from their port to the end of the list. An ad without
//! `Ports` has one implicit port labelled `other` whose record is the ad itself.
//!
//! Checks ([`PortsError`]): `Ports` is a non-empty list of records, every port has a label,
//! labels are distinct, no port's record refers to the label of a later port, and the
//! attributes of the ad and its ports do not refer to one another in a cycle. A request
//! ([`GangAd::root`]) also needs a gang of at most [`MAX_MEMBERS`] members: itself and one
//! offer per port.

use super::env::MAX_MEMBERS;
use adjoin_query::eval::requirements_key;
use adjoin_query::name::kw;
use adjoin_query::{ClassAd, Expr, Key, Name, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use thiserror::Error;

/// The most ports an ad may have.
pub const MAX_PORTS: usize = 64;

/// Deepest expression nesting the reference analysis walks (deeper parts are not analysed).
const MAX_DEPTH: u32 = 1000;

/// Why an ad's `Ports` cannot take part in gangs.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PortsError {
    /// `Ports` is not a list of records.
    #[error("Ports is not a list of records")]
    NotList,
    /// `Ports` is an empty list or has too many ports.
    #[error("Ports has {0} ports (1 to {MAX_PORTS} allowed)")]
    Count(usize),
    /// A port is not a record.
    #[error("port {0} is not a record")]
    NotRecord(usize),
    /// A port has no usable `Label`.
    #[error("port {0} has no Label (a name or a string)")]
    MissingLabel(usize),
    /// Two ports share a label.
    #[error("ports {first} and {second} are both labelled {label}")]
    DuplicateLabel {
        /// The label.
        label: String,
        /// The first port with it.
        first: usize,
        /// The second.
        second: usize,
    },
    /// A port refers to the label of a later port.
    #[error("port {port} uses label {label} before its port {declared}")]
    UsedBeforePort {
        /// The label.
        label: String,
        /// The port using it.
        port: usize,
        /// The port declaring it.
        declared: usize,
    },
    /// Attributes refer to one another in a cycle.
    #[error("attribute {0} refers to itself through a cycle of references")]
    Cycle(String),
    /// A request with so many ports that its gang (itself and an offer per port) would have
    /// more members than a gang may: refused before any search.
    #[error("a gang has at most {MAX_MEMBERS} members; this request has {0}")]
    TooManyMembers(usize),
}

/// One port.
#[derive(Clone, Debug)]
pub struct Port {
    /// The label as written (`other` for the implicit port).
    pub label: Name,
    /// The key under which the record states its constraint (`None`: no constraint, so the
    /// port never docks).
    pub constraint: Option<Key>,
    /// Whether the record has a `Rank`.
    pub rank: bool,
    /// Attributes of the record defined as `L.Y` for the label `L` of an earlier port: the
    /// translations constraint shunting inverts, as (attribute, earlier port, attribute there).
    pub translations: Vec<(Key, usize, Name)>,
}

/// An ad with its ports checked.
#[derive(Clone, Debug)]
pub struct GangAd {
    /// The ad.
    pub ad: Arc<ClassAd>,
    /// Its ports, in order (one implicit `other` port for an ad without `Ports`).
    pub ports: Vec<Port>,
    /// Whether the only port is the implicit one.
    pub implicit: bool,
    /// An ad without ports as the gang windows read it (made once, with the TARGET fallback
    /// setting it was made for; see [`GangAd::plain_window`]).
    pub(crate) plain_window: std::sync::OnceLock<(bool, Arc<ClassAd>)>,
}

/// The key of `Ports`.
pub fn ports_key() -> Key {
    Key::of("Ports")
}

/// The key of `Rank`.
pub fn rank_key() -> Key {
    Key::of("Rank")
}

impl GangAd {
    /// This ad without ports as a gang window reads it (`PortScopes::Gang`: nothing falls back
    /// to the partner), made on first use for each search's fallback setting.
    pub fn plain_window(&self, fallback: bool) -> Arc<ClassAd> {
        let make = || {
            adjoin_index::ports::units_in(&self.ad, adjoin_index::ports::PortScopes::Gang, fallback)
                .pop()
                .map_or_else(|| Arc::clone(&self.ad), |u| u.ad)
        };
        match self.plain_window.get_or_init(|| (fallback, make())) {
            (f, w) if *f == fallback => Arc::clone(w),
            _ => make(),
        }
    }

    /// Checks `ad`'s ports.
    pub fn new(ad: Arc<ClassAd>) -> Result<GangAd, PortsError> {
        let Some(ports) = ad.get_key(ports_key()) else {
            let port = Port {
                label: Name::new("other"),
                constraint: requirements_key(&ad),
                rank: ad.get_key(rank_key()).is_some(),
                translations: Vec::new(),
            };
            return Ok(GangAd {
                ad,
                ports: vec![port],
                implicit: true,
                plain_window: Default::default(),
            });
        };
        let records = records(ports)?;
        let mut labels: Vec<Name> = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let l = label(r).ok_or(PortsError::MissingLabel(i))?;
            if let Some(first) = labels.iter().position(|x| x.key() == l.key()) {
                return Err(PortsError::DuplicateLabel {
                    label: l.as_str().to_owned(),
                    first,
                    second: i,
                });
            }
            labels.push(l);
        }
        let label_pos: FxHashMap<Key, usize> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (l.key(), i))
            .collect();
        let mut out = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let mut used = FxHashSet::default();
            for (n, e) in r.iter() {
                if n.key() != Key::of("Label") {
                    names(e, &mut used, 0);
                }
            }
            // The earliest later port named (not the first of `used`, whose order follows the
            // numbers of keys).
            let later = (used.into_iter())
                // A name the record or the ad binds is theirs, not the label.
                .filter(|&k| r.get_key(k).is_none() && ad.get_key(k).is_none())
                .filter_map(|k| label_pos.get(&k).copied())
                .filter(|&j| j > i)
                .min();
            if let Some(j) = later {
                return Err(PortsError::UsedBeforePort {
                    label: labels[j].as_str().to_owned(),
                    port: i,
                    declared: j,
                });
            }
            let translations = r
                .iter()
                .filter_map(|(n, e)| match e.unparen() {
                    Expr::Select(base, y) => match base.unparen() {
                        Expr::Attr(l) => label_pos
                            .get(&l.key())
                            .filter(|&&j| {
                                j < i
                                    && r.get_key(l.key()).is_none()
                                    && ad.get_key(l.key()).is_none()
                            })
                            .map(|&j| (n.key(), j, *y)),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            out.push(Port {
                label: labels[i],
                constraint: requirements_key(r),
                rank: r.get_key(rank_key()).is_some(),
                translations,
            });
        }
        check_cycles(&ad, &records)?;
        Ok(GangAd {
            ad,
            ports: out,
            implicit: false,
            plain_window: Default::default(),
        })
    }

    /// `ad` checked as a request, the root of a gang: [`GangAd::new`], and its gang (itself and
    /// an offer per port) within [`MAX_MEMBERS`].
    pub fn root(ad: Arc<ClassAd>) -> Result<GangAd, PortsError> {
        let g = GangAd::new(ad)?;
        let members = g.ports.len() + 1;
        if members > MAX_MEMBERS {
            return Err(PortsError::TooManyMembers(members));
        }
        Ok(g)
    }

    /// The record of port `p`: the port's record, or the ad itself for the implicit port.
    pub fn record(&self, p: usize) -> Option<&ClassAd> {
        if self.implicit {
            return (p == 0).then_some(&*self.ad);
        }
        let Expr::List(items) = self.ad.get_key(ports_key())?.unparen() else {
            return None;
        };
        record_of(items.get(p)?)
    }
}

/// The records of a `Ports` expression.
pub(crate) fn records(ports: &Expr) -> Result<Vec<&ClassAd>, PortsError> {
    let Expr::List(items) = ports.unparen() else {
        return Err(PortsError::NotList);
    };
    if items.is_empty() || items.len() > MAX_PORTS {
        return Err(PortsError::Count(items.len()));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, e)| record_of(e).ok_or(PortsError::NotRecord(i)))
        .collect()
}

/// The record an element of `Ports` is, if it is one.
fn record_of(e: &Expr) -> Option<&ClassAd> {
    match e.unparen() {
        Expr::Ad(p) => Some(&**p),
        Expr::Lit(Value::Ad(p)) => Some(&**p),
        _ => None,
    }
}

/// A port's label: `Label = Host1` or `Label = "Host1"`.
pub(crate) fn label(port: &ClassAd) -> Option<Name> {
    match port.get_key(Key::of("Label"))?.unparen() {
        Expr::Attr(n) => Some(*n),
        Expr::Lit(Value::Str(s)) if !s.is_empty() => Some(Name::new(s)),
        _ => None,
    }
}

/// Adds the unscoped names `e` refers to (not inside nested records, which bind their own).
fn names(e: &Expr, out: &mut FxHashSet<Key>, depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut n = |x: &Expr| names(x, out, depth + 1);
    match e {
        Expr::Attr(a) => {
            out.insert(a.key());
        }
        Expr::Lit(_) | Expr::Root(_) | Expr::Ad(_) => {}
        Expr::Select(b, _) => n(b),
        Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => {
            n(&b.0);
            n(&b.1);
        }
        Expr::Unary(_, x) | Expr::Paren(x) => n(x),
        Expr::Cond(b) => {
            n(&b.0);
            n(&b.1);
            n(&b.2);
        }
        Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => xs.iter().for_each(n),
    }
}

/// Fails when an attribute of the ad or of a port refers back to itself through unscoped
/// references resolved lexically (port, then ad).
fn check_cycles(ad: &ClassAd, records: &[&ClassAd]) -> Result<(), PortsError> {
    // Nodes: (scope, key), scope 0 the ad, 1 + i port i; searched from in the order the
    // attributes are written, each one's references by name, so that the attribute named
    // does not depend on the numbers of keys (the order names were first read).
    let mut edges: FxHashMap<(usize, Key), Vec<(usize, Key)>> = FxHashMap::default();
    let mut starts: Vec<(usize, Key)> = Vec::new();
    let mut add = |scope: usize, rec: &ClassAd| {
        for (n, e) in rec.iter() {
            if scope == 0 && n.key() == ports_key() {
                continue;
            }
            let mut used = FxHashSet::default();
            names(e, &mut used, 0);
            let mut to: Vec<(usize, Key)> = used
                .into_iter()
                .filter(|&k| k != kw::SELF && k != kw::MY)
                .filter_map(|k| {
                    if scope > 0 && rec.get_key(k).is_some() {
                        Some((scope, k))
                    } else if ad.get_key(k).is_some() && k != ports_key() {
                        Some((0, k))
                    } else {
                        None
                    }
                })
                .collect();
            to.sort_unstable_by_key(|&(s, k)| (s, k.as_str()));
            starts.push((scope, n.key()));
            edges.insert((scope, n.key()), to);
        }
    };
    add(0, ad);
    for (i, r) in records.iter().enumerate() {
        add(i + 1, r);
    }
    // Iterative depth-first search: 0 unseen, 1 on the path, 2 done.
    let mut state: FxHashMap<(usize, Key), u8> = FxHashMap::default();
    let written: FxHashMap<(usize, Key), usize> =
        starts.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    for start in starts {
        if state.get(&start).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut stack: Vec<((usize, Key), usize)> = vec![(start, 0)];
        state.insert(start, 1);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let succ = edges.get(&node).and_then(|v| v.get(*next)).copied();
            *next += 1;
            match succ {
                Some(s) => match state.get(&s).copied().unwrap_or(0) {
                    0 => {
                        state.insert(s, 1);
                        stack.push((s, 0));
                    }
                    1 => {
                        // The cycle is the path from `s` on: named by its member written
                        // first.
                        let on = stack.iter().map(|&(n, _)| n).skip_while(|&n| n != s);
                        let first =
                            on.min_by_key(|n| written.get(n).copied().unwrap_or(usize::MAX));
                        return Err(PortsError::Cycle(key_name(ad, records, first.unwrap_or(s))));
                    }
                    _ => {}
                },
                None => {
                    state.insert(node, 2);
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

/// The spelling of attribute `k` of scope `s` (for the error).
fn key_name(ad: &ClassAd, records: &[&ClassAd], (s, k): (usize, Key)) -> String {
    let rec = if s == 0 {
        Some(ad)
    } else {
        records.get(s - 1).copied()
    };
    let name = rec
        .and_then(|r| r.entry(k))
        .map(|(n, _)| n.as_str().to_owned());
    let name = name.unwrap_or_else(|| k.as_str().to_owned());
    if s == 0 {
        name
    } else {
        format!("{name} (port {})", s - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn gang(text: &str) -> Result<GangAd, PortsError> {
        GangAd::new(Arc::new(parse::classad(text).expect("ad")))
    }

    #[test]
    fn models() {
        let cases: [(&str, &[&str], bool); 4] = [
            ("[Requirements = true]", &["other"], true),
            (
                "[Ports = {[Label = Cpu; Constraint = Cpu.A == 1], \
                 [Label = \"License\"; HostId = Cpu.Key; Requirements = true]}]",
                &["Cpu", "License"],
                false,
            ),
            ("[Ports = {[Label = a]}]", &["a"], false),
            (
                "[Ports = {[Label = a; x = 1], [Label = b; y = a.x + 1]}]",
                &["a", "b"],
                false,
            ),
        ];
        for (text, labels, implicit) in cases {
            let g = gang(text).expect(text);
            let got: Vec<&str> = g.ports.iter().map(|p| p.label.as_str()).collect();
            assert_eq!((got.as_slice(), g.implicit), (labels, implicit), "{text}");
        }
        let g = gang(
            "[Ports = {[Label = Cpu; Constraint = Cpu.A == 1], \
             [Label = License; HostId = Cpu.Key; Constraint = true; Rank = 1]}]",
        )
        .expect("ad");
        assert_eq!(
            g.ports[1].translations,
            vec![(Key::of("hostid"), 0, Name::new("Key"))]
        );
        assert!(g.ports[1].rank && !g.ports[0].rank);
        // An attribute of the ad named like the label is what `Cpu.Key` reads: no translation.
        let g = gang(
            "[Cpu = [Key = 1]; Ports = {[Label = Cpu; Constraint = true], \
             [Label = L; HostId = Cpu.Key; Constraint = true]}]",
        )
        .expect("ad");
        assert!(g.ports[1].translations.is_empty());
        assert_eq!(g.ports[0].constraint, Some(kw::CONSTRAINT));
        assert!(g.record(1).is_some() && g.record(2).is_none());
    }

    #[test]
    fn bad_ports() {
        let cases = [
            ("[Ports = 3]", PortsError::NotList),
            ("[Ports = {}]", PortsError::Count(0)),
            ("[Ports = {[Label = a], 2}]", PortsError::NotRecord(1)),
            (
                "[Ports = {[Label = a], [x = 1]}]",
                PortsError::MissingLabel(1),
            ),
            ("[Ports = {[Label = 3]}]", PortsError::MissingLabel(0)),
            (
                "[Ports = {[Label = a], [Label = \"A\"]}]",
                PortsError::DuplicateLabel {
                    label: "A".into(),
                    first: 0,
                    second: 1,
                },
            ),
            (
                "[Ports = {[Label = a; Constraint = b.x > 1], [Label = b]}]",
                PortsError::UsedBeforePort {
                    label: "b".into(),
                    port: 0,
                    declared: 1,
                },
            ),
            (
                "[Ports = {[Label = a; x = y; y = x]}]",
                PortsError::Cycle("x (port 0)".into()),
            ),
            (
                "[z = w; w = z; Ports = {[Label = a]}]",
                PortsError::Cycle("z".into()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(gang(text).err(), Some(want), "{text}");
        }
    }

    /// A request of 64 ports is a good offer but no request: its gang would have 65 members.
    #[test]
    fn a_request_whose_gang_would_pass_the_member_limit_is_refused() {
        let ports = |n: usize| {
            let ps: Vec<String> = (0..n)
                .map(|i| format!("[Label = p{i}; Requirements = true]"))
                .collect();
            Arc::new(parse::classad(&format!("[Ports = {{{}}}]", ps.join(", "))).expect("ad"))
        };
        let err = GangAd::root(ports(64)).err();
        assert_eq!(err, Some(PortsError::TooManyMembers(65)));
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("a gang has at most 64 members; this request has 65")
        );
        assert!(GangAd::new(ports(64)).is_ok());
        assert_eq!(GangAd::root(ports(63)).map(|g| g.ports.len()), Ok(63));
    }

    /// A cycle of references is named by the member written first, and the search meets
    /// references in the order of their names; a port naming later ports is told of the
    /// earliest. None of it depends on which name was read first in the process (keys are
    /// numbered in that order), so the same ad gets the same error in every run.
    #[test]
    fn errors_name_attributes_and_ports_by_the_ad_not_by_keys() {
        for (first, second) in [("CycleEast", "CycleWest"), ("CycleSouth", "CycleNorth")] {
            // Read the later-written name first: its key is the smaller.
            assert!(Key::of(second) < Key::of(first));
            let text = format!("[{first} = {second}; {second} = {first}; Ports = {{[Label = a]}}]");
            assert_eq!(gang(&text).err(), Some(PortsError::Cycle(first.into())));
            let port = format!("[Ports = {{[Label = a; {first} = {second}; {second} = {first}]}}]");
            let named = PortsError::Cycle(format!("{first} (port 0)"));
            assert_eq!(gang(&port).err(), Some(named));
        }
        // Reached from an attribute outside it, the cycle is still named by its first member.
        let text = "[CycleLead = CycleLoopB; CycleLoopA = CycleLoopB; CycleLoopB = CycleLoopA; \
                    Ports = {[Label = a]}]";
        assert_eq!(
            gang(text).err(),
            Some(PortsError::Cycle("CycleLoopA".into()))
        );
        // Sets of names iterate in an order of their keys' hashes: pairs of fresh names, so
        // that some come in the other order.
        for n in 0..16 {
            // Two cycles reached from one attribute: its references are followed by name.
            let (y, z) = (format!("RefYankee{n}"), format!("RefZulu{n}"));
            let text = format!(
                "[RefStart{n} = {z} + {y}; {z} = {z}x; {z}x = {z}; {y} = {y}x; {y}x = {y}; \
                 Ports = {{[Label = a]}}]"
            );
            assert_eq!(gang(&text).err(), Some(PortsError::Cycle(y)));
            // A port naming two later ports: the earlier is told of.
            let (one, two) = (format!("PortLaterOne{n}"), format!("PortLaterTwo{n}"));
            let text = format!(
                "[Ports = {{[Label = a; Requirements = {two}.x > 0 && {one}.x > 0], \
                 [Label = {one}], [Label = {two}]}}]"
            );
            let want = PortsError::UsedBeforePort {
                label: one,
                port: 0,
                declared: 1,
            };
            assert_eq!(gang(&text).err(), Some(want));
        }
    }

    #[test]
    fn dissertation_figures_parse() {
        for f in [
            "fig08_port_labels.ad",
            "fig10_render_service.ad",
            "fig11_multiprocessor.ad",
            "fig28_base_machine.ad",
            "fig29_base_license.ad",
            "fig30_base_job.ad",
        ] {
            let path = format!("{}/../tests/dissertation/{f}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(path).expect("figure");
            let g = gang(&text);
            assert!(g.is_ok(), "{f}: {g:?}");
        }
    }
}
