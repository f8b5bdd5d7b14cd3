//! Finding one gang for one root (dissertation 5.3–5.8): depth-first filling of open ports
//! with backtracking, every algorithm the same search, differing in where candidates come from
//! and which port is filled next ([`Algorithm`]).
//!
//! - A port is filled by docking a candidate offer through one of its ports (the parent link);
//!   that offer's other ports become open, next in line (the recursive marshalling of 5.3.1).
//! - After each docking every docking not yet decided is evaluated again in the Figure-32
//!   environment ([`env`](super::env)): one that is false whatever is docked later undoes the
//!   docking; one that depends on ports not yet docked (a tentative parent link, a license
//!   docked before its machine) waits. A complete gang is accepted only when every docking
//!   holds.
//! - Backtracking tries every candidate of every port in turn, so the search is complete: a
//!   root is left without a gang only if none exists among the free offers. The one exception
//!   is a safety bound on the work spent per root ([`SEARCH_BOUND`] work units: gangmatching
//!   is a constraint problem, exponential in the ports at worst); a root that reaches it is
//!   reported as *given up* ([`Searcher::gave_up`]), never as gangless. Work is what the
//!   search actually does, not the dockings it counts: one unit per candidate tried, every
//!   expression node evaluated in the gang environment (dockings checked, candidates ranked,
//!   windows specialized), and per index probe [`PROBE_BASE`] plus [`PROBE_NODE`] per node of
//!   its window (the probe converts the window, in time linear in it) — so a root whose every docking costs a thousand-conjunct
//!   evaluation and probe stops as soon, in time, as one of cheap dockings. A root of more
//!   ports than a gang has members is refused before any search ([`Searcher::find`]).
//!   Windows and consistency only ever remove candidates that cannot dock.
//! - History sets are the recursion itself: each candidate is tried once per state of the
//!   ports before it, and a port's candidates are computed afresh when those change.
//! - Interchangeable offers (equal [`Signature`](super::signature::Signature)s): once a
//!   candidate fails at a port, the same port of every offer of its group is passed over there
//!   (indexed algorithms; this is what keeps DYNS out of the dissertation's "license dregs",
//!   5.8.2). Over summarized offers (DYNS, DYNSR) a group is one candidate to begin with,
//!   standing for its first free member not already in the gang.

use super::env::{holds_final, Check, Tree, MAX_MEMBERS};
use super::pool::{Answer, Bucket, Cand, Pool, Todo};
use super::ports::{rank_key, GangAd};
use super::probe;
use super::Algorithm;
use crate::cycle::dock::Dock;
use crate::cycle::vector::{component, rank_number};
use adjoin_index::Bits;
use adjoin_query::eval::counters::thread_nodes;
use adjoin_query::eval::{eval_tracked, EvalOptions};
use adjoin_query::{ClassAd, Expr, Name, Value};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::sync::Arc;

/// Work units a root may spend before the search gives up on it (reported, not taken for "no
/// gang"): one per candidate tried, one per expression node evaluated, and each probe's
/// [`probe_cost`]. Far beyond what any pool of the benches needs (their roots spend at most
/// a few thousand units; a 2-port root over n offers may need n² dockings, and the
/// 210,000-docking root of `tests/gang.rs` spends about 21 million), and a few seconds of
/// search at most on adversarial pools.
pub const SEARCH_BOUND: u64 = 100_000_000;

/// A probe's window of `n` nodes costs `PROBE_BASE + n * PROBE_NODE` work units (measured: a
/// window of 1,000 `!=` conjuncts, about 13,000 nodes, takes about 1 ms to probe, a million
/// units' worth of evaluation being about 30 ms).
pub const PROBE_NODE: u64 = 4;

/// What any probe costs, whatever its window (an index probe per collection and port).
pub const PROBE_BASE: u64 = 256;

/// Distinct buckets a consistency check considers per port (more: the port is not checked).
const MAX_BUCKETS: usize = 32;

/// The search of one cycle: the pool, the algorithm, and what was spent.
pub struct Searcher<'p> {
    /// The offers.
    pub pool: &'p mut Pool,
    /// The algorithm.
    pub alg: Algorithm,
    /// Evaluation options.
    pub opts: EvalOptions,
    /// The docking vector (`None`: per-port ranks).
    pub dock: Option<Dock>,
    /// Constraint evaluations in the gang environment.
    pub evaluations: u64,
    /// Work units a root may spend ([`SEARCH_BOUND`] unless set).
    pub bound: u64,
    /// Whether the last [`Searcher::find`] reached the bound (its root may have a gang).
    gave_up: bool,
    /// State of DYNSR's random start.
    rng: u64,
    /// What each bucket admits at a port through a translation, per collection (`None`: its
    /// constraint does not translate, so it bounds nothing).
    supports: FxHashMap<SupportKey, Option<Vec<Bits>>>,
    /// Work spent on the current root besides evaluation: candidates tried, probes.
    work: u64,
    /// [`thread_nodes`] when the current root's search began.
    nodes_at_start: u64,
    /// The most work one root of this searcher spent (given up or not).
    pub most_work: u64,
}

/// A bucket, the port its constraint is translated to, and the translations (attribute,
/// port, attribute there, as keys).
type SupportKey = (Bucket, usize, Vec<(u32, usize, u32)>);

/// A search in progress.
struct State {
    tree: Tree,
    /// Per member: whether its docking with its parent holds (the root: `Yes`).
    status: Vec<Check>,
    /// Open ports, (member, port), in the order LR fills them.
    open: Vec<(usize, usize)>,
    /// Answers of the probes made per port, with the generation they were made in.
    lists: FxHashMap<(usize, usize), (Answer, u64)>,
    /// The generation of each docking (the last is current); fresh numbers never repeat.
    gens: Vec<u64>,
    next_gen: u64,
}

impl State {
    fn gen(&self) -> u64 {
        self.gens.last().copied().unwrap_or(0)
    }
}

impl<'p> Searcher<'p> {
    /// A searcher of `pool` with `alg`.
    pub fn new(
        pool: &'p mut Pool,
        alg: Algorithm,
        opts: EvalOptions,
        dock: Option<Dock>,
    ) -> Searcher<'p> {
        Searcher {
            pool,
            alg,
            opts,
            dock,
            evaluations: 0,
            bound: SEARCH_BOUND,
            gave_up: false,
            rng: 0x9E37_79B9_7F4A_7C15,
            supports: FxHashMap::default(),
            work: 0,
            nodes_at_start: 0,
            most_work: 0,
        }
    }

    /// Work spent on the current root: candidates tried, probes, and every expression node
    /// evaluated since it began (this thread's evaluations are the search's).
    pub fn spent(&self) -> u64 {
        self.work
            .saturating_add(thread_nodes().wrapping_sub(self.nodes_at_start))
    }

    /// Whether the current root has spent more than the bound.
    fn over(&self) -> bool {
        self.spent() > self.bound
    }

    /// A gang for `root` among the free offers, if there is one (nothing is taken).
    pub fn find(&mut self, root: Arc<GangAd>) -> Option<Tree> {
        let _span = tracing::debug_span!("gang_root", algorithm = %self.alg).entered();
        self.work = 0;
        self.nodes_at_start = thread_nodes();
        self.gave_up = false;
        let n = root.ports.len();
        // Refused before any search (the cycles report it as a bad request): its gang would
        // have more members than a gang may.
        if n >= MAX_MEMBERS {
            return None;
        }
        let mut st = State {
            tree: Tree::root(root),
            status: vec![Check::Yes],
            open: (0..n).map(|p| (0, p)).collect(),
            lists: FxHashMap::default(),
            gens: vec![0],
            next_gen: 1,
        };
        let found = (!self.alg.dynamic() || self.initial(&mut st, 0)) && self.solve(&mut st);
        let spent = self.spent();
        self.most_work = self.most_work.max(spent);
        if found {
            Some(st.tree)
        } else {
            self.gave_up = spent > self.bound;
            None
        }
    }

    /// Whether the last [`Searcher::find`] gave up at the bound rather than show that no gang
    /// exists.
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    /// Fills the open ports; true with a complete, valid gang in `st.tree`.
    fn solve(&mut self, st: &mut State) -> bool {
        if st.open.is_empty() {
            return self.complete(st);
        }
        let k = self.next_port(st);
        let slot = st.open.remove(k);
        let mut cands = self.candidates(&mut *st, slot);
        if cands.is_empty() {
            st.open.insert(k, slot);
            return false;
        }
        if self.alg == Algorithm::Dynsr && cands.len() > 1 {
            let start = (self.random() % cands.len() as u64) as usize;
            cands.rotate(start);
        }
        // Buckets whose candidate failed here: an interchangeable offer fails the same way.
        let mut failed: Vec<Bucket> = Vec::new();
        for i in 0..cands.len() {
            let Some(c) = cands.get(i, self.pool) else {
                continue;
            };
            if self.alg.indexed() && !failed.is_empty() && failed.contains(&self.pool.bucket(c)) {
                continue;
            }
            self.work += 1;
            if self.over() || st.tree.members.len() >= MAX_MEMBERS {
                break;
            }
            // The offer itself, or a free member of the group it represents, not in the gang.
            let Some(c) = self.pool.resolve(c, |o| st.tree.uses(o)) else {
                continue;
            };
            let Some(gad) = self.pool.free(c.offer()).cloned() else {
                continue;
            };
            if c.port >= gad.ports.len() {
                continue;
            }
            let child = st.tree.dock(slot, Arc::clone(&gad), c.offer(), c.port);
            st.gens.push(st.next_gen);
            st.next_gen += 1;
            let saved = st.status.clone();
            st.status.push(Check::Maybe);
            if self.recheck(st) {
                let new: Vec<(usize, usize)> = (0..gad.ports.len())
                    .filter(|&j| j != c.port)
                    .map(|j| (child, j))
                    .collect();
                let added = new.len();
                st.open.splice(k..k, new);
                let ok = !self.alg.dynamic() || self.initial(st, child);
                if ok && self.solve(st) {
                    return true;
                }
                st.open.drain(k..k + added);
                st.lists.retain(|&(m, _), _| m != child);
            }
            st.status = saved;
            st.gens.pop();
            st.tree.undock();
            if self.alg.indexed() {
                failed.push(self.pool.bucket(c));
            }
        }
        st.open.insert(k, slot);
        false
    }

    /// Which open port to fill next: the first (naive, LR), or the one with the fewest
    /// candidate rectangles, the earliest on ties. (Over summarized offers, DYNS and DYNSR,
    /// those are the distinct rectangles: one per group of interchangeable offers.)
    fn next_port(&mut self, st: &State) -> usize {
        if !self.alg.dynamic() {
            return 0;
        }
        let mut best = (usize::MAX, 0);
        for (i, slot) in st.open.iter().enumerate() {
            let n = match st.lists.get(slot) {
                Some((a, _)) => a.iter().map(|b| b.len() as usize).sum(),
                None => usize::MAX - 1,
            };
            if n < best.0 {
                best = (n, i);
            }
        }
        best.1
    }

    /// The initial probes of member `m`'s open ports (DYN): false when one has no candidate,
    /// when path consistency shows two of them cannot be filled together, or past the bound.
    fn initial(&mut self, st: &mut State, m: usize) -> bool {
        let slots: Vec<(usize, usize)> = st.open.iter().copied().filter(|s| s.0 == m).collect();
        let gen = st.gen();
        for &slot in &slots {
            // Past the bound: the root is given up ([`Searcher::find`]), not found gangless.
            if self.over() {
                return false;
            }
            let a = self.probe(st, slot);
            if a.iter().all(Bits::is_empty) {
                return false;
            }
            st.lists.insert(slot, (a, gen));
        }
        self.consistent(st, m, &slots)
    }

    /// Path consistency over member `m`'s open ports: a candidate for port `p` stays only if,
    /// for every open port `q` translating through `p` (`HostId = Cpu.Key`), some bucket of
    /// `q`'s candidates admits it (their constraints, translated, probed one-sided and cached
    /// per cycle). False when a port is left without candidates.
    fn consistent(&mut self, st: &mut State, m: usize, slots: &[(usize, usize)]) -> bool {
        let Some(gad) = st.tree.members.get(m).map(|x| Arc::clone(&x.ad)) else {
            return true;
        };
        for &(_, p) in slots {
            for &(_, q) in slots {
                let Some(port_q) = gad.ports.get(q) else {
                    continue;
                };
                if q == p || !port_q.translations.iter().any(|t| t.1 == p) {
                    continue;
                }
                let Some(support) = self.support(st, (m, q), &port_q.translations, p) else {
                    continue;
                };
                if let Some((a, _)) = st.lists.get_mut(&(m, p)) {
                    self.pool.restrict(a, &support);
                    if a.iter().all(Bits::is_empty) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Per collection, the rectangles some bucket of port `q`'s candidates admits at port `p`;
    /// `None` when that cannot be bounded (too many buckets, a constraint that does not
    /// translate).
    fn support(
        &mut self,
        st: &State,
        q: (usize, usize),
        tr: &[(adjoin_query::Key, usize, Name)],
        p: usize,
    ) -> Option<Vec<Bits>> {
        let (a, _) = st.lists.get(&q)?;
        let reps = self.pool.buckets_of(a, MAX_BUCKETS)?;
        let shape: Vec<(u32, usize, u32)> = tr.iter().map(|t| (t.0 .0, t.1, t.2.key().0)).collect();
        let mut out = vec![Bits::new(); self.pool.colls.len()];
        for rep in reps {
            // What a bucket admits through one translation is the same for every root.
            let key = (self.pool.bucket(rep), p, shape.clone());
            if !self.supports.contains_key(&key) {
                // Any member stands for the bucket: they admit the same partners.
                let gad = self.pool.gang_ad(rep.offer())?.clone();
                let conj = probe::translate(&gad, rep.port, tr, p, None);
                let admitted = match conj
                    .into_iter()
                    .reduce(|a, b| adjoin_query::Expr::binary(adjoin_query::ast::BinOp::And, a, b))
                {
                    Some(e) => (0..self.pool.colls.len())
                        .map(|ci| self.pool.support(ci, &e).cloned())
                        .collect::<Option<Vec<Bits>>>(),
                    None => None,
                };
                self.supports.insert(key.clone(), admitted);
            }
            let admitted = self.supports.get(&key)?.as_ref()?;
            for (o, s) in out.iter_mut().zip(admitted) {
                o.or_assign(s);
            }
        }
        Some(out)
    }

    /// The candidates of `slot`: computed at this generation already, or now; ranked.
    fn candidates(&mut self, st: &mut State, slot: (usize, usize)) -> Todo {
        // Taken: the port is being filled, and its list is stale once anything else changes.
        let a = if self.alg.indexed() {
            Some(match st.lists.remove(&slot) {
                Some((a, g)) if g == st.gen() => a,
                _ => self.probe(st, slot),
            })
        } else {
            None
        };
        if !self.ranked(st, slot) {
            return match a {
                Some(a) => self.pool.todo(&a),
                None => Todo::Cands(self.pool.all()),
            };
        }
        let mut list = match a {
            Some(a) => self.pool.cands(&a),
            None => self.pool.all(),
        };
        self.rank(st, slot, &mut list);
        Todo::Cands(list)
    }

    /// A probe of the port's window (specialized; shunted for the dynamic algorithms).
    fn probe(&mut self, st: &State, (m, p): (usize, usize)) -> Answer {
        let env = st.tree.environment();
        let v = probe::view(&st.tree, &env, m, p, self.alg.dynamic(), &self.opts);
        self.work = self.work.saturating_add(probe_cost(&v));
        self.pool.probe(&v)
    }

    /// Orders `list` best first by the docking vector, evaluated in the Figure-32 environment
    /// with the candidate docked (default: the port's `Rank`, then the candidate port's; with
    /// `--dock`, its expressions over `request` and `offer`, the two port records), ties in load
    /// order; left as it is when nothing ranks.
    fn rank(&mut self, st: &State, (m, p): (usize, usize), list: &mut Vec<Cand>) {
        if st.tree.members.get(m).is_none() || list.len() < 2 {
            return;
        }
        let mut tree = st.tree.clone();
        let mut keyed: Vec<(Vec<f64>, Cand)> = Vec::with_capacity(list.len());
        for &c in list.iter() {
            // Past the bound the list is cut short: the search stops at its first candidate.
            if self.over() {
                break;
            }
            let Some(c) = self.pool.resolve(c, |o| st.tree.uses(o)) else {
                continue;
            };
            let Some(gad) = self.pool.free(c.offer()).cloned() else {
                continue;
            };
            let child = tree.dock((m, p), Arc::clone(&gad), c.offer(), c.port);
            let mut env = tree.environment();
            let v = match &self.dock {
                Some(Dock::Exprs(exprs)) => {
                    // `request` and `offer` name the two port records in the whole gang.
                    env.insert(Name::new("request"), tree.record_path(m, p));
                    env.insert(Name::new("offer"), tree.record_path(child, c.port));
                    self.evaluations += exprs.len() as u64;
                    exprs
                        .iter()
                        .map(|e| dock_component(eval_tracked(e, &env, &self.opts)))
                        .collect::<Option<Vec<Value>>>()
                }
                _ => {
                    let r = Name::new(rank_key().as_str());
                    let a = tree.eval_port_attr(&env, m, p, r, &self.opts).0;
                    let b = tree.eval_port_attr(&env, child, c.port, r, &self.opts).0;
                    self.evaluations += 2;
                    Some(vec![rank_number(&a), rank_number(&b)])
                }
            };
            tree.undock();
            let Some(v) = v else { continue };
            keyed.push((v.iter().map(number).collect(), c));
        }
        keyed.sort_by(|a, b| {
            for (x, y) in a.0.iter().zip(&b.0) {
                match y.total_cmp(x) {
                    Ordering::Equal => continue,
                    o => return o,
                }
            }
            Ordering::Equal
        });
        *list = keyed.into_iter().map(|(_, c)| c).collect();
    }

    /// Whether candidates of `slot` are ranked: a docking vector is given, the port has a
    /// `Rank`, or some offer port has one (known per pool).
    fn ranked(&mut self, st: &State, (m, p): (usize, usize)) -> bool {
        self.dock.is_some()
            || st
                .tree
                .members
                .get(m)
                .is_some_and(|x| x.ad.ports.get(p).is_some_and(|x| x.rank))
            || self.pool.any_rank()
    }

    /// Evaluates the new docking and every docking still undecided; false if one fails.
    fn recheck(&mut self, st: &mut State) -> bool {
        let env = st.tree.environment();
        for c in 1..st.tree.members.len() {
            if st.status.get(c) != Some(&Check::Maybe) {
                continue;
            }
            self.evaluations += 2;
            match st.tree.edge_holds(&env, c, &self.opts) {
                Check::No => return false,
                s => st.status[c] = s,
            }
        }
        true
    }

    /// Whether the complete gang holds: every docking decided true, or true now.
    fn complete(&mut self, st: &mut State) -> bool {
        if st.status.iter().all(|&s| s == Check::Yes) {
            return true;
        }
        let env = st.tree.environment();
        for c in 1..st.tree.members.len() {
            if st.status.get(c) == Some(&Check::Yes) {
                continue;
            }
            let Some(((pm, pp), own)) = st.tree.members[c].parent else {
                return false;
            };
            self.evaluations += 2;
            if !holds_final(&st.tree, &env, pm, pp, &self.opts)
                || !holds_final(&st.tree, &env, c, own, &self.opts)
            {
                return false;
            }
        }
        true
    }

    /// The next pseudo-random number (xorshift; DYNSR's random start, repeatable).
    fn random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }
}

/// The work units of probing with the window `view` of `n` nodes: [`PROBE_BASE`]` + n *`
/// [`PROBE_NODE`] (an index probe converts the window into rectangles, then searches them).
pub fn probe_cost(view: &ClassAd) -> u64 {
    let n: u64 = view.iter().map(|(_, e)| nodes(e)).sum();
    PROBE_BASE.saturating_add(n.saturating_mul(PROBE_NODE))
}

/// The nodes of `e` (nested records included), counted without recursion.
fn nodes(e: &Expr) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        n += 1;
        match e {
            Expr::Attr(_) | Expr::Lit(_) | Expr::Root(_) => {}
            Expr::Ad(ad) => stack.extend(ad.iter().map(|(_, x)| x)),
            Expr::Select(b, _) => stack.push(b),
            Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => {
                stack.push(&b.0);
                stack.push(&b.1);
            }
            Expr::Unary(_, x) | Expr::Paren(x) => stack.push(x),
            Expr::Cond(b) => {
                stack.push(&b.0);
                stack.push(&b.1);
                stack.push(&b.2);
            }
            Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => stack.extend(xs.iter()),
        }
    }
    n
}

/// A `--dock` value as a component, as in the bilateral cycle (an undefined or error value
/// leaves the candidate out), except that a value that may change as more of the gang docks
/// (it reached a port not docked yet) is not final: it counts 0 and keeps the candidate.
fn dock_component((v, pending): (Value, bool)) -> Option<Value> {
    match component(v) {
        None if pending => Some(Value::Int(0)),
        c => c,
    }
}

/// A vector component as a number.
fn number(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        _ => 0.0,
    }
}
