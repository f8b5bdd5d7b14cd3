//! Ports (dissertation 3.2): an ad whose `Ports` attribute is a list of ads docks each port
//! separately, so the index holds one *unit* per port — rectangles per port, RIDs mapping back
//! to (ad, port). An ad without ports is one unit, itself.
//!
//! A port is matched pairwise through its *view* ([`crate::port_view`]): one flat ad holding
//! the port's record and its ad's attributes (except `Ports`) as the port's lexical scope sees
//! them, its own label (`Label = Host1`) read as `TARGET`, so that `Host1.Arch` reads the
//! candidate's `Arch` and the candidate's `other.x` finds the port's attributes first and the
//! enclosing ad's next. References to *other* ports' labels (`Host1.Subnet == Host2.Subnet`)
//! name gang members a pairwise match does not know: they are `undefined` when evaluated
//! alone and the index treats them as deviant, so it never excludes a port on their account.
//! Deciding whole gangs is the gangmatcher's business.

pub use crate::port_view::PortScopes;
use crate::port_view::{plain_gang_view, ports_key, view};
use crate::IndexOptions;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::sync::Arc;

/// One matchable part of an ad.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The port's position in `Ports`; `None` for an ad without ports.
    pub port: Option<u16>,
    /// What is matched: the ad itself, or the port's view.
    pub ad: Arc<ClassAd>,
}

/// The port ads of `ad`, if its `Ports` is a list of ad literals (at most 65,535).
fn port_ads(ad: &ClassAd) -> Option<Vec<&ClassAd>> {
    let Expr::List(items) = ad.get_key(ports_key())?.unparen() else {
        return None;
    };
    if items.is_empty() || items.len() > usize::from(u16::MAX) {
        return None;
    }
    items
        .iter()
        .map(|i| match i.unparen() {
            Expr::Ad(p) => Some(&**p),
            Expr::Lit(Value::Ad(p)) => Some(&**p),
            _ => None,
        })
        .collect()
}

/// The name a port's `Label` gives it (`Label = Host1`, or a string).
fn label(port: &ClassAd) -> Option<Key> {
    match port.get_key(Key::of("label"))?.unparen() {
        Expr::Attr(n) => Some(n.key()),
        Expr::Lit(Value::Str(s)) => Some(Key::of(s)),
        _ => None,
    }
}

/// The labels of `outer`'s ports.
fn labels(outer: &ClassAd) -> Vec<Key> {
    port_ads(outer)
        .unwrap_or_default()
        .into_iter()
        .filter_map(label)
        .collect()
}

/// The pairwise view of `port` within `outer` (see the module note), with the TARGET
/// fallback of the default evaluation options.
pub fn port_view(outer: &ClassAd, port: &ClassAd) -> ClassAd {
    port_view_in(outer, port, PortScopes::Pairwise, true)
}

/// The view of `port` within `outer` for `scopes`; `fallback`: the evaluation's TARGET
/// fallback (old semantics) is on.
pub fn port_view_in(
    outer: &ClassAd,
    port: &ClassAd,
    scopes: PortScopes,
    fallback: bool,
) -> ClassAd {
    view(outer, port, label(port), &labels(outer), scopes, fallback)
}

/// The units of `ad`: one per port, or the ad itself (pairwise views, default options).
pub fn units(ad: &Arc<ClassAd>) -> Vec<Unit> {
    units_in(ad, PortScopes::Pairwise, true)
}

/// The pairwise units of `ad` under evaluation options `opts`, as an index with those
/// options makes them.
pub fn pairwise_units(ad: &Arc<ClassAd>, opts: &EvalOptions) -> Vec<Unit> {
    units_in(ad, PortScopes::Pairwise, opts.target_fallback)
}

/// The units of `ad` as an index with `opts` makes them.
pub fn units_for(ad: &Arc<ClassAd>, opts: &IndexOptions) -> Vec<Unit> {
    units_in(ad, opts.ports, opts.eval.target_fallback)
}

/// The units of `ad`: one per port (views for `scopes`), or the ad itself (in a gang, as the
/// gang environment reads it).
pub fn units_in(ad: &Arc<ClassAd>, scopes: PortScopes, fallback: bool) -> Vec<Unit> {
    match port_ads(ad) {
        Some(ports) => {
            let labels: Vec<Key> = ports.iter().filter_map(|p| label(p)).collect();
            ports
                .into_iter()
                .enumerate()
                .map(|(i, p)| Unit {
                    port: Some(i as u16),
                    ad: Arc::new(view(ad, p, label(p), &labels, scopes, fallback)),
                })
                .collect()
        }
        None => vec![Unit {
            port: None,
            ad: match scopes {
                PortScopes::Pairwise => Arc::clone(ad),
                PortScopes::Gang => Arc::new(plain_gang_view(ad, fallback)),
            },
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{constraint_dpf, PROFILE_CAP};
    use crate::rectangle::{rectangles, RECTANGLE_CAP};
    use adjoin_query::eval::{symmetric_match, EvalOptions};
    use adjoin_query::parse;

    fn figure(name: &str) -> Arc<ClassAd> {
        let path = format!(
            "{}/../tests/dissertation/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).expect("figure");
        Arc::new(parse::classad(&text).expect("ad"))
    }

    /// Per port: the attributes its constraint bounds, whether a profile is deviant (another
    /// port's label), and whether the conversion is exact.
    fn shape(ad: &Arc<ClassAd>) -> Vec<String> {
        let opts = EvalOptions::default();
        units(ad)
            .iter()
            .map(|u| {
                let r = rectangles(&constraint_dpf(&u.ad, &opts, PROFILE_CAP), RECTANGLE_CAP);
                let mut names: Vec<&str> = r.attrs().iter().map(|k| k.as_str()).collect();
                names.sort();
                let deviant = r.rects.iter().any(|x| x.deviant);
                format!(
                    "{:?}:{}{}{}",
                    u.port,
                    names.join(","),
                    if deviant { " ?" } else { "" },
                    if r.exact { "" } else { " ~" }
                )
            })
            .collect()
    }

    #[test]
    fn figure_ports() {
        let cases: [(&str, &[&str]); 3] = [
            (
                "fig08_port_labels.ad",
                &[
                    "Some(0):arch,opsys,virtualmemory",
                    "Some(1):arch,opsys,virtualmemory ? ~",
                ],
            ),
            (
                "fig10_render_service.ad",
                &[
                    "Some(0):owner,type",
                    "Some(1):arch,opsys,virtualmemory",
                    "Some(2):app",
                ],
            ),
            (
                "fig11_multiprocessor.ad",
                &[
                    "Some(0):isdedicated,type",
                    "Some(1):isdedicated,type ? ~",
                    "Some(2): ? ~", // Memory = cpu1.Memory + cpu2.Memory: not constant
                ],
            ),
        ];
        for (file, want) in cases {
            assert_eq!(shape(&figure(file)), want, "{file}");
        }
    }

    #[test]
    fn a_port_view_matches_pairwise() {
        let job = figure("fig08_port_labels.ad");
        let us = units(&job);
        assert_eq!(us.len(), 2);
        let machine = parse::classad(
            r#"[Arch = "INTEL"; OpSys = "LINUX"; VirtualMemory = 64000000;
                Requirements = other.ImageSize < 30000000 && other.Owner == "raman"]"#,
        )
        .expect("machine");
        let opts = EvalOptions::default();
        // Port 0 docks; port 1 needs Host1's partner as well, unknown pairwise.
        assert!(symmetric_match(&us[0].ad, &machine, &opts));
        assert!(!symmetric_match(&us[1].ad, &machine, &opts));
        // The view sees the enclosing ad's attributes and the port's own first.
        assert!(us[0].ad.get("Owner").is_some() && us[0].ad.get("Ports").is_none());
    }

    #[test]
    fn ads_without_ports_are_one_unit() {
        for text in [
            "[a = 1]",
            "[Ports = 3]",
            "[Ports = {}]",
            "[Ports = {[a=1], 2}]",
        ] {
            let ad = Arc::new(parse::classad(text).expect("ad"));
            let us = units(&ad);
            assert_eq!(us.len(), 1, "{text}");
            assert!(us[0].port.is_none() && Arc::ptr_eq(&us[0].ad, &ad));
        }
    }
}
