//! Residual conjuncts: the parts of a request's `Requirements` the index leaves undecided,
//! settled per distinct value of what they read instead of per (request, offer) pair, so that
//! raw candidates failing them leave a request's list before it is ranked or confirmed.
//!
//! A request's Requirements is read as a disjunction (top-level `||`) of conjunctions
//! (top-level `&&`), parentheses looked through. HTCondor's `&&` is `true` only when both
//! operands count as true (`true`, or a non-zero number), and `||` only when one of them does
//! (`logic.rs`); so when, for an offer, every disjunct has a conjunct that does not count as
//! true on its own, the Requirements is not true and the offer is not a match. Evaluating a
//! conjunct alone is evaluating it with more room (a fresh work budget, less depth), so a
//! conjunct that fails alone fails in place too. Nothing is ever accepted here: candidates
//! that survive are confirmed by full evaluation as before.
//!
//! A conjunct is read here when it reads nothing of the request itself: its only attribute
//! references are `TARGET.x` (or `other.x`, the request binding neither name), its functions
//! pure. Its value against an offer then depends only on how the offer binds the names it
//! reads ([`Bindings`]: absent, a literal, or an expression) — offers binding them alike give
//! the same value:
//! - all bound to literals or absent: the value is the same for every request, remembered for
//!   the whole cycle, one evaluation per distinct tuple of values (a `regexp` over
//!   `TARGET.Machine` is evaluated once per distinct machine name, not once per pair);
//! - some bound to an expression that itself reads only the request's attributes
//!   (`Score = TARGET.Prio * 2 + 1`), which the request binds to literals or not at all: the
//!   same for every offer binding them alike, remembered for one request;
//! - otherwise (an expression reading the offer's own attributes, ports) not read here.
//!
//! Conjuncts the index converts exactly are decided by its window for offers with literal
//! values; they are read here only where offers bind them to expressions (the window keeps
//! those as deviant).
//!
//! A request of several disjuncts has one window for all of them, which decides none alone.
//! Each disjunct's own window (the same probe windowed by that disjunct,
//! [`Query::narrowed`](adjoin_index::Query::narrowed), searched beside the request's window)
//! holds every offer for which the disjunct is true, so an offer outside it fails that
//! disjunct as surely as one failing a conjunct read here: an offer failing every disjunct,
//! either way, leaves the list in one word operation per disjunct instead of being read and
//! checked one conjunct at a time ([`Split::rules_out`]).

use super::columns::{Binding, Columns, Kind};
use super::per_request::PerRequest;
use super::shape::{literal, ByHash, Fx};
use adjoin_index::profile::{AdOperands, PROFILE_CAP};
use adjoin_index::{dpf, AdId, Bits};
use adjoin_query::ast::BinOp;
use adjoin_query::eval::{eval_in_match, requirements_key, EvalOptions, MatchAds};
use adjoin_query::name::kw;
use adjoin_query::structural::{hash, same};
use adjoin_query::{ClassAd, Expr, Key, Value};
use rustc_hash::FxHashMap;
use std::hash::Hasher;
use std::sync::Arc;

/// At most this many names read by one conjunct (its memo key holds them inline).
const READS: usize = 4;

/// No offers.
static EMPTY: Bits = Bits::new();

/// Deepest nesting looked into; deeper conjuncts are not read here.
const MAX_DEPTH: u32 = 200;

/// Functions whose value depends on their arguments alone.
const PURE: &[&str] = &[
    "regexp",
    "member",
    "identicalmember",
    "stringlistmember",
    "stringlistimember",
    "strcmp",
    "stricmp",
    "toupper",
    "tolower",
    "substr",
    "size",
    "int",
    "real",
    "string",
    "bool",
    "floor",
    "ceiling",
    "round",
    "pow",
    "strcat",
    "isundefined",
    "iserror",
    "isstring",
    "isinteger",
    "isreal",
    "isboolean",
    "islist",
    "ifthenelse",
];

/// True when `verdict` holds of every node of `e` it decides (`Some`), the others' operands
/// looked into; false deeper than [`MAX_DEPTH`].
fn every_node(e: &Expr, depth: u32, verdict: &mut impl FnMut(&Expr) -> Option<bool>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some(v) = verdict(e) {
        return v;
    }
    let d = depth + 1;
    match e {
        Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) | Expr::Ad(_) => true,
        Expr::Paren(x) | Expr::Unary(_, x) | Expr::Select(x, _) => every_node(x, d, verdict),
        Expr::Binary(_, b) | Expr::Elvis(b) | Expr::Index(b) => {
            every_node(&b.0, d, verdict) && every_node(&b.1, d, verdict)
        }
        Expr::Cond(b) => {
            every_node(&b.0, d, verdict)
                && every_node(&b.1, d, verdict)
                && every_node(&b.2, d, verdict)
        }
        Expr::List(xs) | Expr::Chain(_, xs) | Expr::Call(_, xs) => {
            xs.iter().all(|x| every_node(x, d, verdict))
        }
    }
}

/// True when every function `e` calls is pure ([`PURE`]).
pub(super) fn pure_calls(e: &Expr) -> bool {
    every_node(e, 0, &mut |e| match e {
        Expr::Call(name, _) if !PURE.contains(&name.key().as_str()) => Some(false),
        _ => None,
    })
}

/// True when `e` reads no attribute but `TARGET.x`/`other.x` (`ad`, the ad it is written in,
/// binding neither scope name), through pure functions only; the names read go to `out`.
pub(super) fn target_reads(e: &Expr, ad: &ClassAd, out: &mut Vec<Key>) -> bool {
    every_node(e, 0, &mut |e| match e {
        Expr::Lit(Value::Ad(_)) | Expr::Attr(_) | Expr::Root(_) | Expr::Index(_) | Expr::Ad(_) => {
            Some(false)
        }
        Expr::Call(name, _) if !PURE.contains(&name.key().as_str()) => Some(false),
        Expr::Select(base, name) => Some(match base.unparen() {
            Expr::Attr(b)
                if (b.is(kw::TARGET) || b.is(kw::OTHER)) && ad.get_key(b.key()).is_none() =>
            {
                if !out.contains(&name.key()) {
                    out.push(name.key());
                }
                true
            }
            _ => false,
        }),
        _ => None,
    })
}

/// The operands of `e` under `op`, parentheses and nested runs of `op` looked through.
fn flatten<'e>(e: &'e Expr, op: BinOp, out: &mut Vec<&'e Expr>) {
    let e = e.unparen();
    match e.operands_of(op) {
        Some(terms) => {
            for t in terms {
                flatten(t, op, out);
            }
        }
        None => out.push(e),
    }
}

/// The disjuncts of `request`'s Requirements (its top-level `||` operands, parentheses looked
/// through), in order; empty when it has none.
pub(super) fn disjuncts(request: &ClassAd) -> Vec<&Expr> {
    let mut out = Vec::new();
    if let Some(e) = requirements_key(request).and_then(|k| request.get_key(k)) {
        flatten(e, BinOp::Or, &mut out);
    }
    out
}

/// Whether `v` counts as true as an operand of `&&` and `||` (`logic.rs`: `true`, or a
/// non-zero number).
fn counts_true(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// One conjunct read here, the same for every request stating it.
#[derive(Debug)]
struct Conjunct {
    expr: Expr,
    /// The offer's names it reads.
    reads: Vec<Key>,
    /// Whether the index converts it exactly (its window decides literal values).
    exact: bool,
}

/// The memo key of a conjunct against offers binding what it reads to literals: the ids of
/// their bindings.
type Tuple = [u32; READS];

/// The residual conjuncts of a cycle's requests and what is known of them.
#[derive(Debug, Default)]
pub struct Residuals {
    /// Conjuncts by structural hash.
    by_hash: ByHash<Vec<u32>>,
    conjuncts: Vec<Arc<Conjunct>>,
    /// The offers' bindings, by name, as read so far from `columns`.
    bindings: FxHashMap<Key, Arc<Binding>>,
    /// Every offer's bindings, shared with whoever else reads them
    /// ([`Residuals::columns`]).
    columns: Arc<Columns>,
    /// By conjunct: what is known of it against the offers binding what it reads to
    /// literals (or not at all), whatever the request.
    literal: Vec<Literal>,
    /// Bumped whenever what is learnt of the offers is forgotten ([`Residuals::clear`]).
    generation: u64,
    /// Requests' Requirements as conjuncts ([`Residuals::split`]), by request and whether
    /// partial (a cycle starting from these residuals reads its requests held).
    splits: PerRequest<bool, Option<Arc<[Vec<u32>]>>>,
    /// Conjuncts evaluated.
    pub evaluations: u64,
}

/// What is known of one conjunct against the offers binding what it reads to literals (or
/// not at all): found for the candidates of the requests that had it, as they came.
#[derive(Debug, Default)]
struct Literal {
    found: Found,
    /// Its value by tuple of bindings.
    memo: FxHashMap<Tuple, bool>,
}

/// Offers a conjunct was found for, and those of them against which it fails.
#[derive(Clone, Debug, Default)]
struct Found {
    known: Bits,
    fails: Bits,
}

/// What a request's residual conjuncts rule out of its candidates ([`Residuals::ruled_out`]):
/// the offers ruled out, and what the others are checked against one at a time.
#[derive(Debug)]
pub struct Ruled {
    pub out: Bits,
    pub split: Option<Box<Split>>,
}

/// What one request's candidates are checked against one at a time ([`Split::rules_out`]):
/// its disjuncts of conjuncts read here, with what they need (their own, whichever thread
/// ruled the request's list), and the values found for it alone.
#[derive(Debug, Default)]
pub struct Split {
    disjuncts: Vec<Vec<Checked>>,
    own: Own,
}

/// What a [`Split`] finds for its request alone.
#[derive(Debug, Default)]
struct Own {
    /// Values by conjunct and bindings.
    mine: FxHashMap<(u32, Tuple), bool>,
    /// The [`Residuals`]' generation the split was made in: [`Checks`] of another one are
    /// not read or added to.
    generation: u64,
}

/// One conjunct of a [`Split`]: its number, itself, the offers' bindings of what it reads
/// (by position in its reads), and, when the index does not convert it, what was found of it
/// for the request's candidates against offers binding those to literals.
#[derive(Debug)]
struct Checked {
    id: u32,
    conj: Arc<Conjunct>,
    bindings: Vec<Option<Arc<Binding>>>,
    found: Option<Found>,
}

/// What a cycle's serving keeps of the conjuncts checked one candidate at a time: the values
/// of those the index converts, against offers binding what they read to literals, by
/// conjunct and bindings (a request of several disjuncts, whose window decides no conjunct
/// alone), and the evaluations made.
#[derive(Debug, Default)]
pub struct Checks {
    converted: FxHashMap<(u32, Tuple), bool>,
    /// The [`Residuals`]' generation the values were found in.
    generation: u64,
    /// Conjuncts evaluated.
    pub evaluations: u64,
}

impl Checks {
    /// Forgets the values found (an offer changed): those of the splits made in `generation`
    /// are kept from now on.
    pub fn clear(&mut self, generation: u64) {
        self.converted.clear();
        self.generation = generation;
    }
}

impl Residuals {
    /// The generation of what is learnt of the offers (bumped by [`Residuals::clear`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The conjuncts known.
    pub fn conjunct_count(&self) -> usize {
        self.conjuncts.len()
    }

    /// Starts another cycle over the same offers: evaluations counted from zero, and the
    /// requests' splits found so far kept for it only as long as it uses them.
    pub fn next_cycle(&mut self) {
        self.evaluations = 0;
        self.splits.next_cycle();
    }

    /// [`Residuals::split`] of `request`, found once per request (its ad's address).
    fn split_of(
        &mut self,
        request: &Arc<ClassAd>,
        partial: bool,
        opts: &EvalOptions,
    ) -> Option<Arc<[Vec<u32>]>> {
        if let Some(found) = self.splits.get(request, partial) {
            return found;
        }
        let found: Option<Arc<[Vec<u32>]>> = self.split(request, partial, opts).map(Arc::from);
        self.splits.insert(request, partial, found.clone());
        found
    }

    /// The offers' bindings read here (until [`Residuals::clear`]).
    pub fn columns(&self) -> Arc<Columns> {
        Arc::clone(&self.columns)
    }

    /// Forgets everything learnt of the offers (one of them changed).
    pub fn clear(&mut self) {
        self.bindings.clear();
        self.columns = Arc::default();
        self.literal
            .iter_mut()
            .for_each(|f| *f = Literal::default());
        self.generation += 1;
    }

    /// The number of `e` as a conjunct of `request` (which it reads nothing of, through
    /// `reads`).
    fn intern(&mut self, e: &Expr, reads: Vec<Key>, request: &ClassAd, opts: &EvalOptions) -> u32 {
        let mut h = Fx::default();
        hash(e, &mut h);
        let same_hash = self.by_hash.entry(h.finish()).or_default();
        if let Some(&n) = same_hash.iter().find(|&&n| {
            self.conjuncts
                .get(n as usize)
                .is_some_and(|c| same(&c.expr, e))
        }) {
            return n;
        }
        let conv = dpf(e, &AdOperands { ad: request, opts }, PROFILE_CAP);
        let exact = conv.exact && conv.profiles.iter().all(|p| !p.deviant);
        let n = self.conjuncts.len() as u32;
        self.conjuncts.push(Arc::new(Conjunct {
            expr: e.clone(),
            reads,
            exact,
        }));
        self.literal.push(Literal::default());
        same_hash.push(n);
        n
    }

    /// `request`'s Requirements as disjuncts ([`disjuncts`]) of the conjuncts read here (some
    /// may have none when `partial`); `None` when it has no Requirements, or, unless
    /// `partial`, a disjunct has none (nothing can be ruled out then).
    fn split(
        &mut self,
        request: &ClassAd,
        partial: bool,
        opts: &EvalOptions,
    ) -> Option<Vec<Vec<u32>>> {
        let disjuncts = disjuncts(request);
        if disjuncts.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(disjuncts.len());
        for d in disjuncts {
            let mut conjuncts = Vec::new();
            flatten(d, BinOp::And, &mut conjuncts);
            let mut mine = Vec::new();
            for c in conjuncts {
                let mut reads = Vec::new();
                if target_reads(c, request, &mut reads) && reads.len() <= READS {
                    mine.push(self.intern(c, reads, request, opts));
                }
            }
            if mine.is_empty() && !partial {
                return None;
            }
            // Those known for every offer at once first: one candidate is then often ruled
            // out by a bit test, before any conjunct is looked up or evaluated for it.
            let conjuncts = &self.conjuncts;
            mine.sort_by_key(|&c| conjuncts.get(c as usize).is_none_or(|x| x.exact));
            out.push(mine);
        }
        Some(out)
    }

    /// The offers among `candidates` (positions in `offers`) that `request`'s Requirements
    /// rules out for certain: for each of its disjuncts, some conjunct read here does not
    /// count as true against the offer, or the offer is outside that disjunct's own window
    /// (`parts`, one per disjunct when given: every offer for which the disjunct is true,
    /// and more). A request of several disjuncts, each with conjuncts read here, also gets
    /// what [`Split::rules_out`] checks its other candidates against, one at a time.
    pub fn ruled_out(
        &mut self,
        request: &Arc<ClassAd>,
        candidates: &Bits,
        offers: &[Arc<ClassAd>],
        parts: Option<&[Bits]>,
        opts: &EvalOptions,
    ) -> Ruled {
        let none = Ruled {
            out: Bits::new(),
            split: None,
        };
        let Some(disjuncts) = self.split_of(request, parts.is_some(), opts) else {
            return none;
        };
        let parts = parts.filter(|p| p.len() == disjuncts.len());
        let whole = disjuncts.iter().all(|d| !d.is_empty());
        if !whole && parts.is_none() {
            return none;
        }
        let out = self.ruled_out_by(&disjuncts, parts, request, candidates, offers, opts);
        let split = (whole && disjuncts.len() > 1).then(|| {
            let mut left = candidates.clone();
            left.andnot_assign(&out);
            Box::new(self.split_for(&disjuncts, &left, offers, request, opts))
        });
        Ruled { out, split }
    }

    /// [`Residuals::ruled_out`] by `disjuncts`.
    fn ruled_out_by(
        &mut self,
        disjuncts: &[Vec<u32>],
        parts: Option<&[Bits]>,
        request: &ClassAd,
        candidates: &Bits,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Bits {
        let reads = (disjuncts.iter().flatten())
            .filter_map(|&c| self.conjuncts.get(c as usize))
            .flat_map(|c| c.reads.iter().copied());
        self.columns.fill(&mut self.bindings, reads, offers);
        let mut out: Option<Bits> = None;
        for (i, d) in disjuncts.iter().enumerate() {
            let mut failing = Bits::new();
            if let Some(part) = parts.and_then(|p| p.get(i)) {
                // Outside the disjunct's own window: it is not true there.
                failing.or_assign(out.as_ref().unwrap_or(candidates));
                failing.andnot_assign(part);
            }
            for &c in d {
                failing.or_assign(self.fails_literal(c, candidates, offers, request, opts));
                failing.or_assign(&self.fails_requesting(c, candidates, offers, request, opts));
            }
            failing.and_assign(out.as_ref().unwrap_or(candidates));
            if failing.is_empty() {
                return failing;
            }
            out = Some(failing);
        }
        out.unwrap_or_default()
    }

    /// The [`Split`] of `disjuncts` for `request`'s candidates `left`: what it needs of each
    /// conjunct, and what is found of it against them now (so that what the split knows does
    /// not depend on which requests came before).
    fn split_for(
        &mut self,
        disjuncts: &[Vec<u32>],
        left: &Bits,
        offers: &[Arc<ClassAd>],
        request: &ClassAd,
        opts: &EvalOptions,
    ) -> Split {
        for &c in disjuncts.iter().flatten() {
            self.fails_literal(c, left, offers, request, opts);
        }
        let checked = |c: u32| {
            let conj = Arc::clone(self.conjuncts.get(c as usize)?);
            let bindings = conj
                .reads
                .iter()
                .map(|k| self.bindings.get(k).cloned())
                .collect();
            let found = match conj.exact {
                true => None,
                false => self.literal.get(c as usize).map(|l| Found {
                    known: l.found.known.and(left),
                    fails: l.found.fails.and(left),
                }),
            };
            Some(Checked {
                id: c,
                conj,
                bindings,
                found,
            })
        };
        Split {
            disjuncts: disjuncts
                .iter()
                .map(|d| d.iter().filter_map(|&c| checked(c)).collect())
                .collect(),
            own: Own {
                mine: FxHashMap::default(),
                generation: self.generation,
            },
        }
    }

    /// The offers binding what conjunct `c` reads to literals (or not at all) against which
    /// it fails, among `candidates` and the offers it was found for before: evaluated once per
    /// distinct tuple of bindings, for the whole cycle, for the candidates of the requests
    /// that have it (offers no request with it could match are never read). Empty for a
    /// conjunct the index converts exactly (its window decides those offers).
    fn fails_literal(
        &mut self,
        c: u32,
        candidates: &Bits,
        offers: &[Arc<ClassAd>],
        request: &ClassAd,
        opts: &EvalOptions,
    ) -> &Bits {
        let i = c as usize;
        let (Some(conj), Some(lit)) = (self.conjuncts.get(i), self.literal.get_mut(i)) else {
            return &EMPTY;
        };
        if conj.exact {
            return &lit.found.fails;
        }
        let mut todo = candidates.clone();
        todo.andnot_assign(&lit.found.known);
        // Every name it reads bound ([`Residuals::ruled_out_by`] makes them first); else
        // nothing is found.
        let bindings: Option<Vec<&Binding>> = conj
            .reads
            .iter()
            .map(|k| self.bindings.get(k).map(|b| &**b))
            .collect();
        let (false, Some(bindings)) = (todo.is_empty(), bindings) else {
            return &lit.found.fails;
        };
        'offers: for o in todo.iter() {
            let Some(offer) = offers.get(o as usize) else {
                continue;
            };
            let mut tuple = [0u32; READS];
            for (slot, b) in tuple.iter_mut().zip(&bindings) {
                let Some(&id) = b.ids.get(o as usize) else {
                    continue 'offers;
                };
                match b.kinds.get(id as usize) {
                    Some(Kind::Literal) => *slot = id,
                    _ => continue 'offers,
                }
            }
            let f = *lit.memo.entry(tuple).or_insert_with(|| {
                self.evaluations += 1;
                conjunct_fails(&conj.expr, request, offer, opts)
            });
            if f {
                lit.found.fails.insert(o);
            }
        }
        lit.found.known.or_assign(&todo);
        &lit.found.fails
    }

    /// The offers among `candidates` that bind the one name conjunct `c` reads to an
    /// expression reading the request, against which `c` fails for `request`: evaluated once
    /// per distinct expression (what it reads of the request must be literal).
    fn fails_requesting(
        &mut self,
        c: u32,
        candidates: &Bits,
        offers: &[Arc<ClassAd>],
        request: &ClassAd,
        opts: &EvalOptions,
    ) -> Bits {
        let mut out = Bits::new();
        let conj = &self.conjuncts[c as usize];
        let [k] = conj.reads.as_slice() else {
            return out;
        };
        let Some(b) = self.bindings.get(k) else {
            return out;
        };
        for (reads, those) in &b.requesting {
            if !reads
                .iter()
                .all(|&r| request.get_key(r).is_none_or(literal))
            {
                continue;
            }
            let here = those.and(candidates);
            let Some(offer) = here.iter().next().and_then(|o| offers.get(o as usize)) else {
                continue;
            };
            self.evaluations += 1;
            if conjunct_fails(&conj.expr, request, offer, opts) {
                out.or_assign(&here);
            }
        }
        out
    }
}

impl Split {
    /// Whether `request` (whose split this is, from [`Residuals::ruled_out`]) is ruled out by
    /// offer `o` (of `offers`), every conjunct read here counted, those the index converts
    /// too (its window of several rectangles decides none of them alone): evaluated once per
    /// conjunct and distinct bindings (those the index converts once per cycle, in `checks`).
    pub fn rules_out(
        &mut self,
        o: AdId,
        request: &ClassAd,
        offers: &[Arc<ClassAd>],
        checks: &mut Checks,
        opts: &EvalOptions,
    ) -> bool {
        let Split { disjuncts, own } = self;
        disjuncts.iter().all(|d| {
            d.iter()
                .any(|c| c.fails(o, request, offers, own, checks, opts) == Some(true))
        })
    }
}

impl Checked {
    /// Whether the conjunct fails against offer `o` for `request`, if known here.
    fn fails(
        &self,
        o: AdId,
        request: &ClassAd,
        offers: &[Arc<ClassAd>],
        own: &mut Own,
        checks: &mut Checks,
        opts: &EvalOptions,
    ) -> Option<bool> {
        let mut tuple = [0u32; READS];
        let mut requesting = false;
        for (slot, b) in tuple.iter_mut().zip(&self.bindings) {
            let b = b.as_deref()?;
            let id = *b.ids.get(o as usize)?;
            match b.kinds.get(id as usize)? {
                Kind::Literal => {}
                Kind::Requesting => {
                    let reads = b.requesting_reads(id)?;
                    if !reads
                        .iter()
                        .all(|&r| request.get_key(r).is_none_or(literal))
                    {
                        return None;
                    }
                    requesting = true;
                }
                Kind::Opaque => return None,
            }
            *slot = id;
        }
        if let (false, Some(f)) = (requesting, &self.found) {
            // Found for the candidates binding them to literals.
            return f.known.contains(o).then(|| f.fails.contains(o));
        }
        let memo = match requesting || checks.generation != own.generation {
            true => &mut own.mine,
            false => &mut checks.converted,
        };
        if let Some(&f) = memo.get(&(self.id, tuple)) {
            return Some(f);
        }
        checks.evaluations += 1;
        let offer = offers.get(o as usize)?;
        let f = conjunct_fails(&self.conj.expr, request, offer, opts);
        memo.insert((self.id, tuple), f);
        Some(f)
    }
}

/// Whether conjunct `e` of `request` does not count as true against `offer`.
fn conjunct_fails(e: &Expr, request: &ClassAd, offer: &ClassAd, opts: &EvalOptions) -> bool {
    let v = eval_in_match(
        e,
        MatchAds {
            my: request,
            target: offer,
        },
        opts,
    );
    !counts_true(&v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::eval::one_side_match;
    use adjoin_query::parse;
    use proptest::prelude::*;

    /// Conditions of every kind: read here (`regexp`, `member`, functions, offers' attributes
    /// absent, of mixed types, bound to expressions reading the request or the offer itself),
    /// converted by the index, reading the request (never read here), nested `||`.
    const CONDITIONS: [&str; 20] = [
        "regexp(\"^h1\", TARGET.Machine)",
        "regexp(\"^h2\", TARGET.Machine)",
        "!regexp(\"slot1\", TARGET.Name)",
        "member(TARGET.Tag, {1, 2, \"t3\", 40})",
        "TARGET.Score > 7",
        "TARGET.Score",
        "TARGET.Tag == 5",
        "TARGET.Tag == \"t4\"",
        "TARGET.Memory >= 20000",
        "isUndefined(TARGET.Disk)",
        "TARGET.Cpus",
        "toUpper(TARGET.OpSys) == \"LINUX\"",
        "TARGET.Weird + 1 > 2",
        "size(TARGET.Weird) > 0",
        "(TARGET.Cpus >= 4 || regexp(\"^h3\", TARGET.Machine))",
        "MY.Prio > 3",
        "Prio < 5",
        "TARGET.HasGPU =?= true",
        "strcmp(TARGET.Site, \"ucsd\") < 0",
        "TARGET.Weird",
    ];

    /// What offers bind `Weird` to: absent, literals of several types, an expression reading
    /// the request, one reading the offer itself, one reading what the request lacks.
    const WEIRD: [Option<&str>; 7] = [
        None,
        Some("5"),
        Some("\"x\""),
        Some("TARGET.Prio * 2"),
        Some("MY.Cpus + 1"),
        Some("TARGET.Missing"),
        Some("{1, 2}"),
    ];

    fn pool(seed: u64, n: u64, weird: &[usize]) -> Vec<Arc<ClassAd>> {
        let mut h = adjoin_workload::hetero::Heterogeneous::new(seed);
        (0..n)
            .map(|i| {
                let mut o = h.offer(i).expect("offer");
                if let Some(Some(w)) = weird.get(i as usize).and_then(|&k| WEIRD.get(k)) {
                    o.set("Weird", parse::expr(w).expect("weird"));
                }
                Arc::new(o)
            })
            .collect()
    }

    fn request(conds: &[Vec<usize>], prio: &str) -> ClassAd {
        let text: Vec<String> = conds
            .iter()
            .map(|d| {
                let cs: Vec<&str> = d
                    .iter()
                    .map(|&c| CONDITIONS[c % CONDITIONS.len()])
                    .collect();
                format!("({})", cs.join(" && "))
            })
            .collect();
        parse::classad(&format!(
            "[Prio = {prio}; Owner = \"alice\"; Requirements = {}]",
            text.join(" || ")
        ))
        .expect("request")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// An offer ruled out never satisfies the request's Requirements (full evaluation),
        /// the memo shared by every request of the pool as in a cycle.
        #[test]
        fn ruled_out_offers_never_match(
            seed in 0u64..1_000_000,
            weird in prop::collection::vec(0usize..7, 60),
            requests in prop::collection::vec(
                (
                    prop::collection::vec(prop::collection::vec(0usize..20, 1..4), 1..3),
                    prop_oneof![Just("3"), Just("8"), Just("TARGET.Cpus"), Just("undefined")],
                ),
                1..12,
            ),
            extra in prop::collection::vec(0u32..60, 0..20),
            outside in prop::collection::vec(prop::collection::vec(0u32..60, 0..30), 12),
        ) {
            let offers = pool(seed, 60, &weird);
            let opts = EvalOptions::default();
            let mut r = Residuals::default();
            let mut checks = Checks::default();
            for ((conds, prio), outside) in requests.iter().zip(&outside) {
                // Each request's own candidates: what is found of a conjunct for one
                // request's serves another's only where they overlap.
                let mut all = Bits::from_rids(0..offers.len() as u32);
                all.andnot_assign(&Bits::from_rids(outside.iter().copied()));
                check_request(&mut r, &mut checks, &offers, &all, conds, prio, &extra, &opts)?;
            }
        }
    }

    /// [`ruled_out_offers_never_match`] for one request among the candidates `all`.
    #[allow(clippy::too_many_arguments)]
    fn check_request(
        r: &mut Residuals,
        checks: &mut Checks,
        offers: &[Arc<ClassAd>],
        all: &Bits,
        conds: &[Vec<usize>],
        prio: &str,
        extra: &[u32],
        opts: &EvalOptions,
    ) -> Result<(), TestCaseError> {
        let req = Arc::new(request(conds, prio));
        // Each disjunct's own window: the offers for which it counts as true, and some more.
        let parts: Vec<Bits> = disjuncts(&req)
            .into_iter()
            .map(|d| {
                let mut p = Bits::from_rids(extra.iter().copied());
                for (o, offer) in (0u32..).zip(offers) {
                    let ads = MatchAds {
                        my: &req,
                        target: offer,
                    };
                    if counts_true(&eval_in_match(d, ads, opts)) {
                        p.insert(o);
                    }
                }
                p
            })
            .collect();
        let Ruled { out: without, .. } = r.ruled_out(&req, all, offers, None, opts);
        let Ruled { out: ruled, .. } = r.ruled_out(&req, all, offers, Some(&parts), opts);
        prop_assert!(
            without.iter().all(|o| ruled.contains(o)),
            "the disjuncts' windows rule out less: {}",
            req
        );
        // An offer ruled out (`how`) never satisfies the Requirements.
        let never_matches = |o: u32, how: &str| {
            let offer = &offers[o as usize];
            prop_assert!(
                !one_side_match(&req, offer, opts),
                "ruled out {} but matches: {} against {}",
                how,
                req,
                offer
            );
            Ok(())
        };
        for o in ruled.iter() {
            prop_assert!(all.contains(o), "ruled out a non-candidate {o}: {req}");
            never_matches(o, "through the disjuncts' windows")?;
        }
        let Ruled {
            out: ruled,
            mut split,
        } = r.ruled_out(&req, all, offers, None, opts);
        for o in ruled.iter() {
            never_matches(o, "at once")?;
        }
        // The others one at a time (a request of several disjuncts), candidates or not.
        if let Some(s) = split.as_deref_mut() {
            for o in (0..offers.len() as u32).filter(|&o| !ruled.contains(o)) {
                if s.rules_out(o, &req, offers, checks, opts) {
                    never_matches(o, "one at a time")?;
                }
            }
        }
        Ok(())
    }

    /// Each kind of residual conjunct rules out exactly the offers evaluation rejects, where
    /// it alone decides (a one-conjunct Requirements).
    #[test]
    fn single_conjuncts_rule_out_what_evaluation_rejects() {
        let weird: Vec<usize> = (0..80).map(|i| i % WEIRD.len()).collect();
        let offers = pool(3, 80, &weird);
        let opts = EvalOptions::default();
        let all = Bits::from_rids(0..offers.len() as u32);
        let mut r = Residuals::default();
        // (condition, whether every offer is decided here: a conjunct the index cannot
        // convert, all bindings literal or reading a literal of the request; `Score > 7` is
        // converted: only the offers binding `Score` to an expression are read here)
        for (c, decided) in [
            ("regexp(\"^h1\", TARGET.Machine)", true),
            ("member(TARGET.Tag, {1, 2, \"t3\", 40})", true),
            ("TARGET.Score > 7", false),
            ("TARGET.Weird + 1 > 2", false), // `MY.Cpus + 1` is not read here
            ("MY.Prio > 3", false),
        ] {
            let req = Arc::new(request(
                &[vec![CONDITIONS.iter().position(|x| *x == c).unwrap_or(0)]],
                "3",
            ));
            let Ruled { out: ruled, .. } = r.ruled_out(&req, &all, &offers, None, &opts);
            let rejected: adjoin_index::RoaringBitmap = (0..offers.len() as u32)
                .filter(|&o| !one_side_match(&req, &offers[o as usize], &opts))
                .collect();
            let ruled = ruled.to_roaring();
            assert!(ruled.is_subset(&rejected), "{c}");
            assert_eq!(ruled.is_empty(), c.starts_with("MY."), "{c}");
            if decided {
                assert_eq!(ruled, rejected, "{c}");
            }
        }
        assert!(r.evaluations > 0);
    }

    /// A request of several disjuncts whose window decides none of its conjuncts alone is
    /// ruled out one candidate at a time, the converted conjuncts counted.
    #[test]
    fn several_disjuncts_are_ruled_out_one_at_a_time() {
        let offers = pool(5, 60, &[]);
        let opts = EvalOptions::default();
        let all = Bits::from_rids(0..offers.len() as u32);
        let mut r = Residuals::default();
        let req = Arc::new(
            parse::classad(
                "[Requirements = (TARGET.OpSys == \"WINDOWS\" && TARGET.OpSys == \"LINUX\") || \
                 (regexp(\"^h1\", TARGET.Machine) && TARGET.Cpus >= 100)]",
            )
            .expect("request"),
        );
        let Ruled { out: ruled, split } = r.ruled_out(&req, &all, &offers, None, &opts);
        assert!(
            ruled.is_empty(),
            "the first disjunct is converted: not ruled out at once"
        );
        let mut split = split.expect("two disjuncts");
        let mut checks = Checks::default();
        for o in 0..offers.len() as u32 {
            assert!(
                split.rules_out(o, &req, &offers, &mut checks, &opts),
                "offer {o}"
            );
            assert!(!one_side_match(&req, &offers[o as usize], &opts));
        }
        assert!(checks.evaluations > 0, "the converted conjuncts evaluated");
    }
}
