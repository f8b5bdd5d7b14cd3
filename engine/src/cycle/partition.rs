//! Partitionable offers (`PartitionableSlot = true`, as nearly every slot of a current HTCondor
//! pool): a match carves the request's share out of the offer, which stays in the pool with
//! its resources reduced, re-indexed in place, and can take further requests in the same
//! cycle while it has room.
//!
//! The share of each resource — `Cpus`, `Memory`, `Disk`, and any other `R` the offer names
//! a consumption policy for (`ConsumptionR`) — is the offer's `ConsumptionR` evaluated with
//! the offer as MY and the request as TARGET when the offer has one, else the request's
//! `RequestR` evaluated with the request as MY (HTCondor's defaults); an undefined request
//! asks for 1 CPU and nothing of other resources. An offer that has less of a resource than
//! the share (or a share that is not a non-negative number) cannot take the request: the
//! candidate is passed over. The remainder keeps integers integers.
//!
//! Two bounds keep a cycle finite whatever the ads say (a `RequestCount` of 2^63 is a
//! number like any other): a carve that leaves the offer as it was (every share 0, or too
//! small to change a huge real such as `Cpus = 1e300`) matches the request to that offer once,
//! the request's further matches going to other offers; and an offer is carved at most
//! [`MAX_CARVES`] times in one cycle, then left to the next (a slot of 1,024 cores given one
//! core a match is carved 1,024 times; only shares of nothing or of fractions go further).
//!
//! A cycle whose offers hold a partitionable one is served here, one request at a time and
//! uncached: each request's candidates are searched afresh (through the index, or every pair
//! for `naive`) and ranked by a docking vector made afresh (preferences included), as a
//! carved offer matches and ranks differently afterwards; a request wanting more
//! (`RequestCount`) searches again after each carve. A durable cycle records each request's
//! matches in one transaction (buffered; one flush at the cycle's end): the request consumed
//! with its first match, a static offer consumed, a partitionable one replaced by its
//! remainder ([`Carve`]). The offer member's rank is then an ad naming the carved share:
//! `[Rank = …; Cpus = …; Memory = …; Disk = …]`. When the store refuses a match (an ad gone
//! behind the cycle's back), the request's later decisions are undone (carved offers get
//! their previous version back), the gone offer leaves the cycle (or the gone request is
//! passed over), and the request is served again from there.

use super::dock::Dock;
use super::matchlist::Matchlist;
use super::offers::Offers;
use super::{order, take, CycleError, CycleMatch, CycleOptions, CycleReport};
use crate::collection::Collection;
use crate::prefer::Preferences;
use crate::{Db, DbError};
use adjoin_index::AdId;
use adjoin_query::eval::{eval_attr_in_match, eval_attr_value, EvalOptions, MatchAds};
use adjoin_query::{ClassAd, Expr, Value};
use adjoin_storage::{AdError, AfterRefusal, Carve, Durability, MatchRecord, NewMatch, NewMember};
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// True when `ad` is a partitionable offer (`PartitionableSlot` evaluates to true in it).
pub(crate) fn is_partitionable(ad: &ClassAd, eval: &EvalOptions) -> bool {
    ad.contains("PartitionableSlot") && eval_attr_value(ad, "PartitionableSlot", eval).is_true()
}

/// The resources a match carves from `offer`: `Cpus`, `Memory`, `Disk`, then each other `R`
/// the offer has a `ConsumptionR` for, in the offer's order.
pub(crate) fn resources(offer: &ClassAd) -> Vec<String> {
    let mut out: Vec<String> = ["Cpus", "Memory", "Disk"].map(String::from).to_vec();
    const POLICY: &str = "Consumption";
    for (name, _) in offer.iter() {
        let n = name.as_str();
        let named = n
            .get(..POLICY.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(POLICY));
        let res = n.get(POLICY.len()..).unwrap_or_default();
        if named && !res.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(res)) {
            out.push(res.to_owned());
        }
    }
    out
}

/// A number as an `f64`, if it is one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        _ => None,
    }
}

/// `have - take`, an integer when both are.
fn minus(have: &Value, take: &Value) -> Option<Value> {
    match (have, take) {
        (Value::Int(h), Value::Int(t)) => Some(Value::Int(h.checked_sub(*t)?)),
        _ => Some(Value::Real(number(have)? - number(take)?)),
    }
}

/// The share `request` takes of partitionable `offer`, what is left of the offer, and whether
/// that is less than the offer had of some resource; `None` when the offer has not enough of
/// some resource (see the module documentation).
pub(crate) fn carve(
    request: &ClassAd,
    offer: &ClassAd,
    eval: &EvalOptions,
) -> Option<(Share, ClassAd, bool)> {
    let mut share = Vec::new();
    let mut rest = offer.clone();
    let mut shrank = false;
    for r in resources(offer) {
        let policy = format!("Consumption{r}");
        let want = if offer.contains(&policy) {
            let ads = MatchAds {
                my: offer,
                target: request,
            };
            eval_attr_in_match(&policy, ads, eval)
        } else {
            let ads = MatchAds {
                my: request,
                target: offer,
            };
            eval_attr_in_match(&format!("Request{r}"), ads, eval)
        };
        let want = match want {
            Value::Undefined if r == "Cpus" => Value::Int(1),
            Value::Undefined => continue,
            v => v,
        };
        if !number(&want).is_some_and(|w| w >= 0.0) {
            return None;
        }
        let have = eval_attr_value(offer, &r, eval);
        let left = minus(&have, &want)?;
        let (Some(h), Some(l)) = (number(&have), number(&left)) else {
            return None;
        };
        if l < 0.0 {
            return None;
        }
        shrank |= l < h;
        rest.set(&r, Expr::lit(left));
        share.push((r, want));
    }
    Some((share, rest, shrank))
}

/// A share carved: each resource and the amount taken.
type Share = Vec<(String, Value)>;

/// Carves of one offer in one cycle, at most (see the module documentation); it then leaves
/// the cycle with what is left.
pub(crate) const MAX_CARVES: u32 = 4096;

/// One decision of the request being served.
struct Decision {
    offer: AdId,
    vector: Vec<Value>,
    /// For a partitionable offer: the share carved, and the offer's version before.
    carved: Option<(Share, Arc<ClassAd>)>,
    /// A carve that took nothing (the request matches that offer once).
    unchanged: bool,
}

/// A cycle over offers some of which are partitionable.
pub(super) struct Carving<'a> {
    pub(super) opts: &'a CycleOptions,
    pub(super) eval: EvalOptions,
    pub(super) db: &'a Db,
    pub(super) requests: &'a Collection,
    pub(super) offers: &'a Collection,
    /// Each offer as it is now (partitionable ones carved).
    pub(super) current: Vec<Arc<ClassAd>>,
    pub(super) partitionable: Vec<bool>,
    pub(super) pool: Offers,
    pub(super) dock: Dock,
    pub(super) taken: Vec<bool>,
    /// Each offer's carves this cycle ([`MAX_CARVES`]: then it is taken).
    pub(super) carves: Vec<u32>,
    /// The offers the request being served carved without changing them.
    pub(super) unchanged: FxHashSet<AdId>,
    pub(super) report: CycleReport,
}

impl Carving<'_> {
    /// Serves the requests in `serving` order.
    pub(super) fn serve(&mut self, serving: &[usize]) -> Result<(), CycleError> {
        for &ri in serving {
            self.serve_one(ri)?;
        }
        Ok(())
    }

    /// The matchlist of `req` over the offers as they are now, ranked by a docking vector
    /// made afresh (a cycle's ranker remembers ranks and preference outcomes per offer,
    /// which a carve would leave stale; with no offers given it classes none).
    fn matchlist(&mut self, req: &Arc<ClassAd>) -> Matchlist {
        let candidates = self.pool.candidates(req);
        let dock = Dock::for_offers(self.opts.dock.clone(), &[]);
        dock.matchlist(req, candidates, &self.current, &self.eval)
    }

    /// Decides request `ri`'s matches after its first `got`.
    fn decide(&mut self, req: &Arc<ClassAd>, mut got: usize, want: usize) -> Vec<Decision> {
        let mut out = Vec::new();
        'search: while got < want {
            let mut list = self.matchlist(req);
            loop {
                let Some((vector, o)) = list.peek(&self.taken) else {
                    break 'search;
                };
                let vector = vector.to_vec();
                let oi = o as usize;
                if self.partitionable.get(oi).copied().unwrap_or(false) {
                    if self.unchanged.contains(&o) {
                        list.advance();
                        continue;
                    }
                    let Some((share, rest, shrank)) = carve(req, &self.current[oi], &self.eval)
                    else {
                        list.advance();
                        continue;
                    };
                    let unchanged = !shrank;
                    let rest = Arc::new(rest);
                    let before = std::mem::replace(&mut self.current[oi], rest.clone());
                    self.pool.update(o, &rest);
                    if unchanged {
                        self.unchanged.insert(o);
                    }
                    if let Some(n) = self.carves.get_mut(oi) {
                        *n += 1;
                        if *n >= MAX_CARVES {
                            take(&mut self.taken, o);
                        }
                    }
                    out.push(Decision {
                        offer: o,
                        vector,
                        carved: Some((share, before)),
                        unchanged,
                    });
                    got += 1;
                    // The offer changed: search again.
                    continue 'search;
                }
                self.pool.remove(o);
                take(&mut self.taken, o);
                out.push(Decision {
                    offer: o,
                    vector,
                    carved: None,
                    unchanged: false,
                });
                got += 1;
                if got >= want {
                    break 'search;
                }
            }
        }
        out
    }

    /// Takes back `ds` (in reverse order): carved offers get their previous version, taken
    /// ones are put back.
    fn undo(&mut self, ds: &[Decision]) {
        for d in ds.iter().rev() {
            let oi = d.offer as usize;
            match &d.carved {
                Some((_, before)) => {
                    self.current[oi] = before.clone();
                    self.pool.update(d.offer, before);
                    if d.unchanged {
                        self.unchanged.remove(&d.offer);
                    }
                    if let Some(n) = self.carves.get_mut(oi) {
                        if *n >= MAX_CARVES {
                            if let Some(t) = self.taken.get_mut(oi) {
                                *t = false;
                            }
                        }
                        *n = n.saturating_sub(1);
                    }
                }
                None => {
                    if let Some(t) = self.taken.get_mut(oi) {
                        *t = false;
                    }
                    self.pool.restore(d.offer, &self.current[oi]);
                }
            }
        }
    }

    /// Serves request `ri`: decides, records (unless a dry run), and on a refusal undoes
    /// and decides again from there.
    fn serve_one(&mut self, ri: usize) -> Result<(), CycleError> {
        let (Some(req), Some(req_id)) = (self.requests.ads.get(ri), self.requests.ids.get(ri))
        else {
            return Ok(());
        };
        let want = order::request_count(req, &self.eval);
        if matches!(self.dock, Dock::Ranks(_)) {
            if let Err(e) = Preferences::from_ad(req, req_id, &self.eval) {
                tracing::warn!(request = %req_id, error = %e, "preferences");
                self.report.bad_preferences.push(e);
                return Ok(());
            }
        }
        let mut got = 0;
        self.unchanged.clear();
        loop {
            let ds = self.decide(req, got, want);
            if ds.is_empty() {
                break;
            }
            let records = match self.record(req_id, got, &ds)? {
                Ok(records) => records,
                Err((k, records, gone)) => {
                    self.push_matches(req_id, &ds[..k], records);
                    self.undo(&ds[k..]);
                    got += k;
                    match gone {
                        Gone::Request => break,
                        Gone::Offer => {
                            let o = ds[k].offer;
                            self.pool.remove(o);
                            take(&mut self.taken, o);
                        }
                    }
                    continue;
                }
            };
            got += ds.len();
            self.push_matches(req_id, &ds, records);
            break;
        }
        self.report.matched += usize::from(got > 0);
        Ok(())
    }

    /// Adds the matches of `ds` to the report, with their records' ids (`None`: a dry run).
    fn push_matches(&mut self, req_id: &str, ds: &[Decision], records: Vec<Option<u64>>) {
        for (d, record) in ds
            .iter()
            .zip(records.into_iter().chain(std::iter::repeat(None)))
        {
            self.report.matches.push(CycleMatch {
                request: req_id.to_owned(),
                offer: self.offers.id(d.offer).unwrap_or_default().to_owned(),
                vector: d.vector.clone(),
                record,
            });
        }
    }

    /// Records `ds` (the request having `before` matches already) in one transaction; on a
    /// refusal, the number recorded before it, their record ids, and which ad went.
    fn record(
        &self,
        req_id: &str,
        before: usize,
        ds: &[Decision],
    ) -> Result<Result<Vec<Option<u64>>, Refused>, CycleError> {
        if self.opts.dry_run {
            return Ok(Ok(vec![None; ds.len()]));
        }
        let mut ms = Vec::with_capacity(ds.len());
        let mut carves = Vec::with_capacity(ds.len());
        for (i, d) in ds.iter().enumerate() {
            let offer_id = self.offers.id(d.offer).unwrap_or_default().to_owned();
            let (m, c) = self.new_match(req_id, &offer_id, d, before + i == 0);
            ms.push(m);
            carves.push(c);
        }
        let outcomes = self.db.record_matches_carving(
            &ms,
            &carves,
            AfterRefusal::Stop,
            Durability::Buffered,
        )?;
        let mut ids = Vec::new();
        for (k, o) in outcomes.into_iter().enumerate() {
            match o {
                Ok(MatchRecord { id, .. }) => ids.push(Some(id)),
                Err(DbError::Ad(AdError::MissingMember { collection, .. })) => {
                    let gone = if collection == self.opts.requests && k == 0 && before == 0 {
                        Gone::Request
                    } else {
                        Gone::Offer
                    };
                    return Ok(Err((k, ids, gone)));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Ok(ids))
    }

    /// The record of decision `d`: the request (consumed with its first match) and the offer
    /// (consumed, or carved: its remainder replaces it, its rank an ad naming the share).
    fn new_match(
        &self,
        req_id: &str,
        offer_id: &str,
        d: &Decision,
        first: bool,
    ) -> (NewMatch, Option<Carve>) {
        let (req_rank, offer_rank) = match &self.dock {
            // `[request Rank, offer Rank]`, after the preference order when the request has one.
            Dock::Ranks { .. } => {
                let at = d.vector.len().saturating_sub(2);
                (d.vector.get(at).cloned(), d.vector.get(at + 1).cloned())
            }
            Dock::Exprs(_) => (Some(Value::List(d.vector.to_vec().into())), None),
        };
        let (offer_rank, carve) = match &d.carved {
            Some((share, _)) => {
                let mut ad = ClassAd::new();
                if let Some(r) = offer_rank {
                    ad.set("Rank", Expr::lit(r));
                }
                for (name, v) in share {
                    ad.set(name, Expr::lit(v.clone()));
                }
                let carve = Carve {
                    collection: self.opts.offers.clone(),
                    id: offer_id.to_owned(),
                    rest: (*self.current[d.offer as usize]).clone(),
                };
                (Some(Value::Ad(Arc::new(ad))), Some(carve))
            }
            None => (offer_rank, None),
        };
        let m = NewMatch {
            cycle: self.report.cycle,
            members: vec![
                NewMember {
                    collection: self.opts.requests.clone(),
                    id: req_id.to_owned(),
                    rank: req_rank,
                    consume: first,
                },
                NewMember {
                    collection: self.opts.offers.clone(),
                    id: offer_id.to_owned(),
                    rank: offer_rank,
                    consume: d.carved.is_none(),
                },
            ],
        };
        (m, carve)
    }
}

/// A refused record: the matches recorded before it, their ids, and which ad went.
type Refused = (usize, Vec<Option<u64>>, Gone);

/// Which ad of a refused match went.
enum Gone {
    Request,
    Offer,
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn ad(text: &str) -> ClassAd {
        parse::classad(text).expect("ad")
    }

    #[test]
    fn shares_and_remainders() {
        let eval = EvalOptions::default();
        let slot = "[PartitionableSlot = true; Cpus = 8; Memory = 16384; Disk = 1000.5]";
        // (offer, request, share, remainder's Cpus Memory Disk, or None: no room)
        for (offer, request, want) in [
            (
                slot,
                "[RequestCpus = 2; RequestMemory = 4096; RequestDisk = 500]",
                Some(("Cpus 2 Memory 4096 Disk 500", "6 12288 5.005000000000000E+02")),
            ),
            (
                slot,
                "[]",
                Some(("Cpus 1", "7 16384 1.000500000000000E+03")),
            ),
            (slot, "[RequestCpus = 9]", None),
            (slot, "[RequestMemory = -1]", None),
            (slot, "[RequestMemory = \"lots\"]", None),
            (
                "[PartitionableSlot = true; Cpus = 8; Memory = 100; Disk = 10; ConsumptionMemory = TARGET.RequestMemory * 2; ConsumptionGpus = 1; Gpus = 2]",
                "[RequestMemory = 30]",
                Some(("Cpus 1 Memory 60 Gpus 1", "7 40 10")),
            ),
        ] {
            let got = carve(&ad(request), &ad(offer), &eval);
            let shown = got.map(|(share, rest, _)| {
                let s: Vec<String> = share.iter().map(|(n, v)| format!("{n} {v}")).collect();
                let r: Vec<String> = ["Cpus", "Memory", "Disk"]
                    .iter()
                    .map(|a| rest.get(a).map(ToString::to_string).unwrap_or_default())
                    .collect();
                (s.join(" "), r.join(" "))
            });
            let want = want.map(|(s, r)| (s.to_owned(), r.to_owned()));
            assert_eq!(shown, want, "{offer} / {request}");
        }
    }

    /// A cycle over `db`'s jobs and machines as read now, for tests that change the store
    /// behind its back before it serves.
    fn carving<'a>(
        db: &'a Db,
        opts: &'a CycleOptions,
        requests: &'a Collection,
        offers: &'a Collection,
    ) -> Carving<'a> {
        let eval = EvalOptions::default();
        Carving {
            opts,
            db,
            requests,
            offers,
            current: offers.ads.clone(),
            partitionable: offers
                .ads
                .iter()
                .map(|a| is_partitionable(a, &eval))
                .collect(),
            pool: Offers::naive(offers, eval.clone()),
            dock: Dock::for_offers(Vec::new(), &offers.ads),
            taken: vec![false; offers.ads.len()],
            carves: vec![0; offers.ads.len()],
            unchanged: FxHashSet::default(),
            report: CycleReport {
                cycle: 1,
                ..CycleReport::default()
            },
            eval,
        }
    }

    #[test]
    fn a_refused_match_is_undone_and_the_request_served_again() {
        let db = Db::open_in_memory().expect("db");
        let req = "TARGET.RequestCpus <= MY.Cpus";
        for text in [
            format!("[Name = \"m0\"; PartitionableSlot = true; Cpus = 4; Memory = 100; Requirements = {req}]"),
            format!("[Name = \"m1\"; Cpus = 1; Memory = 900; Requirements = {req}]"),
        ] {
            db.put("machines", &ad(&text)).expect("put");
        }
        db.put(
            "jobs",
            &ad("[Name = \"j0\"; RequestCpus = 1; RequestCount = 2; Rank = TARGET.Memory; Requirements = true]"),
        )
        .expect("put");
        let opts = CycleOptions::new("jobs", "machines");
        let requests = Collection::scan(&db, "jobs").expect("jobs");
        let offers = Collection::scan(&db, "machines").expect("machines");
        // The static slot the job prefers goes behind the cycle's back.
        assert!(db.remove("machines", "m1").expect("remove"));
        let mut c = carving(&db, &opts, &requests, &offers);
        c.serve(&[0]).expect("serve");
        let got: Vec<(&str, &str, bool)> = c
            .report
            .matches
            .iter()
            .map(|m| (m.request.as_str(), m.offer.as_str(), m.record.is_some()))
            .collect();
        // Its decision (m1, then a carve of m0) was refused at m1 and undone; served again,
        // the job carves m0 twice, from the version before the undone carve.
        assert_eq!(got, [("j0", "m0", true), ("j0", "m0", true)]);
        assert_eq!(c.report.matched, 1);
        let m0 = db.get("machines", "m0").expect("get").expect("m0");
        assert_eq!(m0.ad.eval_attr("Cpus").as_i64(), Some(2));
        assert_eq!(db.matches().expect("matches").len(), 2);
        assert!(db.get("jobs", "j0").expect("get").is_none(), "consumed");
    }

    #[test]
    fn a_request_gone_behind_the_cycles_back_is_passed_over() {
        let db = Db::open_in_memory().expect("db");
        db.put(
            "machines",
            &ad("[Name = \"m0\"; PartitionableSlot = true; Cpus = 4; Requirements = true]"),
        )
        .expect("put");
        db.put("jobs", &ad("[Name = \"j0\"; Requirements = true]"))
            .expect("put");
        let opts = CycleOptions::new("jobs", "machines");
        let requests = Collection::scan(&db, "jobs").expect("jobs");
        let offers = Collection::scan(&db, "machines").expect("machines");
        assert!(db.remove("jobs", "j0").expect("remove"));
        let mut c = carving(&db, &opts, &requests, &offers);
        c.serve(&[0]).expect("serve");
        assert!(c.report.matches.is_empty());
        assert_eq!(
            c.current[0].eval_attr("Cpus").as_i64(),
            Some(4),
            "carve undone"
        );
        let m0 = db.get("machines", "m0").expect("get").expect("m0");
        assert_eq!(m0.ad.eval_attr("Cpus").as_i64(), Some(4));
    }

    #[test]
    fn carves_that_take_nothing_or_too_often_are_bounded() {
        // (offers, request, matches per offer in order, indexed and naive alike): a share
        // that leaves the slot as it was matches each slot once; a slot is carved at most
        // MAX_CARVES times a cycle; a huge RequestCount ends with the offers.
        let cap = MAX_CARVES as usize;
        for (offers, request, want) in [
            (
                vec!["[Name = \"m0\"; PartitionableSlot = true; Requirements = true; Cpus = 4; Memory = 100]"],
                "[Requirements = true; RequestCpus = 0; RequestMemory = 0; RequestCount = 9223372036854775807]",
                vec![1],
            ),
            (
                vec![
                    "[Name = \"m0\"; PartitionableSlot = true; Requirements = true; Cpus = 1e300; Memory = 100]",
                    "[Name = \"m1\"; PartitionableSlot = true; Requirements = true; Cpus = 2; Memory = 100]",
                ],
                "[Requirements = true; RequestCount = 1e30]",
                vec![1, 2],
            ),
            (
                vec!["[Name = \"m0\"; PartitionableSlot = true; Requirements = true; Cpus = 4; Memory = 1000000]"],
                "[Requirements = true; RequestCpus = 0; RequestMemory = 1; RequestCount = 100000]",
                vec![cap],
            ),
            (
                // Shrinking by a little each time is not bounded by the first rule.
                vec!["[Name = \"m0\"; PartitionableSlot = true; Requirements = true; Cpus = 4; Memory = 10]"],
                "[Requirements = true; RequestCpus = 0; RequestMemory = 1; RequestCount = 100]",
                vec![10],
            ),
        ] {
            for naive in [false, true] {
                let db = Db::open_in_memory().expect("db");
                for o in &offers {
                    db.put("machines", &ad(o)).expect("put");
                }
                db.put("jobs", &ad(request)).expect("put");
                let mut opts = CycleOptions::new("jobs", "machines");
                opts.naive = naive;
                opts.dry_run = true;
                let report = crate::cycle::run(&db, &opts).expect("cycle");
                let got: Vec<usize> = (0..offers.len())
                    .map(|i| {
                        let name = format!("m{i}");
                        report.matches.iter().filter(|m| m.offer == name).count()
                    })
                    .collect();
                assert_eq!(got, want, "{offers:?} / {request} (naive {naive})");
            }
        }
    }

    #[test]
    fn partitionable_is_read_from_the_ad() {
        let eval = EvalOptions::default();
        for (text, want) in [
            ("[PartitionableSlot = true]", true),
            (
                "[PartitionableSlot = SlotType == \"Partitionable\"; SlotType = \"Partitionable\"]",
                true,
            ),
            ("[PartitionableSlot = false]", false),
            ("[Cpus = 8]", false),
        ] {
            assert_eq!(is_partitionable(&ad(text), &eval), want, "{text}");
        }
    }
}
