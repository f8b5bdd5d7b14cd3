//! Query windows (dissertation 4.5.4): what probes an index. A window is a probing unit's
//! values (read per query, for the attributes stored constraints bound) and rectangles (its
//! constraint's profiles), in one of three directions:
//!
//! - [`Direction::TwoSided`] — which stored units match a whole unit both ways (`adjoin
//!   candidates`, `adjoin join`); confirmed by `symmetric_match`;
//! - [`Direction::OneSided`] — which stored units satisfy an ad-hoc constraint evaluated with
//!   the stored ad as MY (`adjoin query`); confirmed by evaluating it ([`satisfies`]);
//! - [`Direction::Reverse`] — which stored units' constraints accept a unit; confirmed by
//!   evaluating the stored requirements with the unit as TARGET ([`accepts`]).

use crate::index::IndexOptions;
use crate::ports::{units_for, Unit};
use crate::profile::{dpf, query_dpf, unit_constraint_dpf, AdOperands};
use crate::query::Stabs;
use crate::rectangle::{rectangles, ConsistencyError, Rectangle};
use adjoin_query::eval::{
    eval_attr_in_match, eval_expr, eval_in_match, requirements_key, EvalOptions, MatchAds,
};
use adjoin_query::specialize::specialize;
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::fmt;
use std::sync::{Arc, Mutex};

/// Which way a query matches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Stored units matching the probe both ways.
    TwoSided,
    /// Stored units satisfying an ad-hoc constraint over their attributes.
    OneSided,
    /// Stored units whose constraints accept the probe.
    Reverse,
}

impl Direction {
    /// The direction as text: `two-sided`, `one-sided` or `reverse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::TwoSided => "two-sided",
            Direction::OneSided => "one-sided",
            Direction::Reverse => "reverse",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A query window, ready to run against an index.
#[derive(Clone, Debug)]
pub struct Query {
    pub(crate) direction: Direction,
    /// The probing unit (two-sided, reverse).
    pub(crate) probe: Option<Unit>,
    /// The ad-hoc constraint (one-sided).
    pub(crate) constraint: Option<Expr>,
    /// The ad playing TARGET while the one-sided constraint is evaluated in a stored ad, if
    /// any ([`Query::against`]).
    pub(crate) target: Option<Arc<ClassAd>>,
    /// The window's rectangles (one empty rectangle for reverse), shared by the query's
    /// clones: a cycle holds a request's windows between cycles and sends them to be run.
    pub(crate) rects: Arc<[Rectangle]>,
    /// The probe's side converted exactly.
    pub(crate) exact: bool,
    errors: Vec<ConsistencyError>,
    /// Count candidates after every step (for `--explain`; counting costs a pass each).
    pub(crate) explained: bool,
    /// The probe's stab steps, remembered for the index last asked (shared by the query's
    /// clones and the windows narrowed from it: they have the same probe).
    pub(crate) stabs: Arc<Mutex<Option<Stabs>>>,
}

impl Query {
    /// Two-sided queries for `ad`: one per unit (port).
    pub fn two_sided(ad: &Arc<ClassAd>, opts: &IndexOptions) -> Vec<Query> {
        units_for(ad, opts)
            .into_iter()
            .map(|u| {
                let conv = rectangles(&unit_constraint_dpf(&u.ad, opts), opts.rectangle_cap);
                Query {
                    direction: Direction::TwoSided,
                    probe: Some(u),
                    constraint: None,
                    target: None,
                    rects: conv.rects.into(),
                    exact: conv.exact,
                    errors: conv.errors,
                    explained: false,
                    stabs: Arc::default(),
                }
            })
            .collect()
    }

    /// The same two-sided probe windowed by `part` alone, an expression of the probe's ad (a
    /// disjunct of its constraint, say) in place of its whole constraint: every ad matching
    /// the probe with `part` as its constraint is among its candidates. `None` for a query
    /// that is not two-sided.
    pub fn narrowed(&self, part: &Expr, opts: &IndexOptions) -> Option<Query> {
        let probe = self
            .probe
            .as_ref()
            .filter(|_| self.direction == Direction::TwoSided)?;
        let e = specialize(part, &probe.ad, &opts.eval);
        let operands = AdOperands {
            ad: &probe.ad,
            opts: &opts.eval,
        };
        let conv = rectangles(&dpf(&e, &operands, opts.profile_cap), opts.rectangle_cap);
        Some(Query {
            direction: Direction::TwoSided,
            probe: Some(probe.clone()),
            constraint: None,
            target: None,
            rects: conv.rects.into(),
            exact: conv.exact,
            errors: conv.errors,
            explained: false,
            stabs: Arc::clone(&self.stabs),
        })
    }

    /// Reverse queries for `ad`: one per unit (port).
    pub fn reverse(ad: &Arc<ClassAd>, opts: &IndexOptions) -> Vec<Query> {
        units_for(ad, opts)
            .into_iter()
            .map(|u| Query {
                direction: Direction::Reverse,
                probe: Some(u),
                constraint: None,
                target: None,
                rects: Arc::new([Rectangle {
                    exp: Vec::new(),
                    deviant: false,
                }]),
                exact: true,
                errors: Vec::new(),
                explained: false,
                stabs: Arc::default(),
            })
            .collect()
    }

    /// A one-sided query: the stored units for which `constraint`, evaluated with the stored
    /// ad as MY, is true.
    pub fn one_sided(constraint: &Expr, opts: &IndexOptions) -> Query {
        let conv = rectangles(
            &query_dpf(constraint, &opts.eval, opts.profile_cap),
            opts.rectangle_cap,
        );
        Query {
            direction: Direction::OneSided,
            probe: None,
            constraint: Some(constraint.clone()),
            target: None,
            rects: conv.rects.into(),
            exact: conv.exact,
            errors: conv.errors,
            explained: false,
            stabs: Arc::default(),
        }
    }

    /// This one-sided query with `target` as TARGET while its constraint is evaluated in each
    /// stored ad (a condition of a request rewritten over the offers, whose own attributes may
    /// read the request: `Memory = TARGET.RequestMemory`, or an unscoped name the offer lacks
    /// under the old semantics). The window is unchanged: a stored value that depends on the
    /// other ad is deviant, a candidate confirmed by this evaluation.
    pub fn against(mut self, target: Arc<ClassAd>) -> Query {
        self.target = Some(target);
        self
    }

    /// The query counting candidates after every step, for [`crate::Explain`].
    pub fn explained(mut self) -> Query {
        self.explained = true;
        self
    }

    /// The direction.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The probing unit's port, if it is a port.
    pub fn port(&self) -> Option<u16> {
        self.probe.as_ref().and_then(|u| u.port)
    }

    /// The window's rectangles.
    pub fn rectangles(&self) -> &[Rectangle] {
        &self.rects
    }

    /// Contradictions found in the probe's constraint.
    pub fn errors(&self) -> &[ConsistencyError] {
        &self.errors
    }

    /// Whether the probe's side converted exactly.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// Whether `ok` holds of every attribute the window's rectangles bound (repeats asked
    /// again): [`Query::window_attrs`] without gathering them.
    pub fn window_attrs_all(&self, mut ok: impl FnMut(Key) -> bool) -> bool {
        self.rects.iter().all(|r| r.exp.iter().all(|(k, _)| ok(*k)))
    }

    /// The attributes the window's rectangles bound (they need imported axes).
    pub fn window_attrs(&self) -> Vec<Key> {
        let mut v: Vec<Key> = self
            .rects
            .iter()
            .flat_map(|r| r.exp.iter().map(|(k, _)| *k))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// True when a requirements value selects: `true` or a non-zero number (`&&`'s reading, as
/// in HTCondor's symmetric match and constraint queries).
fn selects(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// Whether `my`'s requirements are true with `target` as TARGET.
pub fn accepts(my: &ClassAd, target: &ClassAd, opts: &EvalOptions) -> bool {
    match requirements_key(my) {
        Some(k) => selects(&eval_attr_in_match(
            k.as_str(),
            MatchAds { my, target },
            opts,
        )),
        None => false,
    }
}

/// Whether an ad-hoc constraint is true with `ad` as MY and `target` as TARGET.
pub fn satisfies_against(
    ad: &ClassAd,
    target: &ClassAd,
    constraint: &Expr,
    opts: &EvalOptions,
) -> bool {
    selects(&eval_in_match(
        constraint,
        MatchAds { my: ad, target },
        opts,
    ))
}

/// Whether an ad-hoc constraint is true with `ad` as MY.
pub fn satisfies(ad: &ClassAd, constraint: &Expr, opts: &EvalOptions) -> bool {
    selects(&eval_expr(constraint, ad, opts))
}
