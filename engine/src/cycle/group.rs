//! Group commit of a durable cycle: matches are decided as if each committed at once, and
//! written [`GROUP`] at a time, each group in one atomic transaction
//! ([`Db::record_matches_with`](crate::Db::record_matches_with) with [`AfterRefusal::Stop`],
//! buffered); the cycle flushes once at its end, before its report acknowledges any match. A
//! crash midway loses whole groups, never part of a match.
//!
//! Groups are written by a [`Writer`] on a second thread while the cycle decides the next
//! group: a group's outcome is learned when the next one is ready to go (or at the end), so
//! decisions may run one group ahead of what is known to be recorded.
//!
//! Exactness: the store records a group's matches in order up to the first it refuses (a
//! member gone: expired, or consumed by someone else since the cycle read it) and stops there.
//! The matches before it are exactly those the one-at-a-time cycle would have made, as none of
//! them depended on the refused one. Every later decision — the rest of that group and the
//! whole next group, not yet sent — was made assuming it, so the cycle undoes them — their
//! offers are put back in the pool and untaken, every matchlist computed after the refused
//! decision is forgotten (it was computed without those offers) and every matchlist read
//! since is rewound — marks the refused offer gone (or, when the request went, passes over
//! the request) and resumes at the refused decision: its request gets its next candidate, as
//! if each match had been recorded on its own. Each refusal takes an offer out for good or
//! passes a request, so the undoing ends; it costs at most two groups' decisions.

use super::{take, Cycle, CycleError};
use crate::{Db, DbError};
use adjoin_index::AdId;
use adjoin_storage::{AdError, AfterRefusal, Durability, MatchRecord, NewMatch, StoreError};
use std::sync::mpsc;

/// Matches per transaction. At 1,024 a transaction writes a few thousand small entries (like
/// a bulk-load chunk of 1,000 ads), and a refusal re-decides at most two groups.
pub const GROUP: usize = 1024;

/// A match decided but not committed.
#[derive(Debug)]
struct Pending {
    /// The request's serving position.
    pos: usize,
    /// The offer, by position.
    offer: AdId,
    /// The request's matches before this one.
    before: usize,
}

/// A request visited while matches were pending.
#[derive(Debug)]
struct Visit {
    /// Its serving position.
    pos: usize,
    /// Its position in load order.
    ri: usize,
    /// True when its cluster's matchlist was computed in this visit.
    fresh: bool,
}

/// The decisions since the last group was sent.
#[derive(Debug, Default)]
pub(super) struct Group {
    pending: Vec<Pending>,
    records: Vec<NewMatch>,
    visits: Vec<Visit>,
}

/// Where a cycle goes on after a refusal: the serving position and the request's matches.
#[derive(Debug)]
pub(super) struct Resume {
    /// The serving position to visit next.
    pub(super) pos: usize,
    /// The matches that request already has.
    pub(super) got: usize,
}

impl Group {
    /// Notes a visit of request `ri` at serving position `pos`; `undoable` false when no
    /// decision is pending anywhere (earlier visits then need no record).
    pub(super) fn visit(&mut self, pos: usize, ri: usize, fresh: bool, undoable: bool) {
        if !undoable && self.pending.is_empty() {
            self.visits.clear();
        }
        self.visits.push(Visit { pos, ri, fresh });
    }

    /// Adds a decided match: `record` for the offer at position `offer`, the request at
    /// serving position `pos` having `before` matches already.
    pub(super) fn push(&mut self, pos: usize, offer: AdId, before: usize, record: NewMatch) {
        self.pending.push(Pending { pos, offer, before });
        self.records.push(record);
    }

    /// The number of pending matches.
    pub(super) fn len(&self) -> usize {
        self.pending.len()
    }
}

/// What the store says of a group: each match's record, up to the first refused.
type Outcomes = Result<Vec<Result<MatchRecord, DbError>>, DbError>;

/// Where groups are written: on a thread of their own ([`Writer::spawn`]), or at once
/// ([`Writer::Inline`], the outcome kept until asked for, as if it took that long).
pub(super) enum Writer<'a> {
    /// Writes each group when it is sent.
    Inline {
        /// The database.
        db: &'a Db,
        /// The outcome of the group sent last, until taken.
        done: Option<Outcomes>,
    },
    /// Writes on a second thread.
    Thread {
        /// Groups to write.
        to: mpsc::Sender<Vec<NewMatch>>,
        /// Their outcomes, in order.
        from: mpsc::Receiver<Outcomes>,
    },
}

impl<'a> Writer<'a> {
    /// A writer on a thread of `scope` (inline if no thread can be had).
    pub(super) fn spawn<'scope>(
        scope: &'scope std::thread::Scope<'scope, 'a>,
        db: &'a Db,
    ) -> Writer<'a> {
        let (to, groups) = mpsc::channel::<Vec<NewMatch>>();
        let (done, from) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("cycle-writer".into())
            .spawn_scoped(scope, move || {
                for g in groups {
                    let outcome = write(db, &g);
                    if done.send(outcome).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(_) => Writer::Thread { to, from },
            Err(_) => Writer::Inline { db, done: None },
        }
    }

    /// Sends a group to be written (the previous one's outcome taken already).
    fn send(&mut self, records: Vec<NewMatch>) {
        match self {
            Writer::Inline { db, done } => *done = Some(write(db, &records)),
            Writer::Thread { to, .. } => {
                // A writer gone is noticed when its outcome is asked for.
                let _ = to.send(records);
            }
        }
    }

    /// The outcome of the group sent last.
    fn outcome(&mut self) -> Outcomes {
        let gone = || {
            let e = StoreError::Backend {
                context: "recording a cycle's matches".into(),
                detail: "the writer thread stopped".into(),
            };
            Err(DbError::Ad(AdError::Store(e)))
        };
        match self {
            Writer::Inline { done, .. } => done.take().unwrap_or_else(gone),
            Writer::Thread { from, .. } => from.recv().unwrap_or_else(|_| gone()),
        }
    }
}

/// Writes one group: atomic now, durable at the cycle's one flush (before its report).
fn write(db: &Db, records: &[NewMatch]) -> Outcomes {
    db.record_matches_with(records, AfterRefusal::Stop, Durability::Buffered)
}

impl Cycle<'_> {
    /// Sends the pending matches to be written, once the group in flight is known recorded;
    /// on a refusal of that group, undoes the decisions from the refused one on (the pending
    /// ones included) and says where to resume (see the module documentation).
    pub(super) fn commit(&mut self) -> Result<Option<Resume>, CycleError> {
        if let Some(resume) = self.settle()? {
            return Ok(Some(resume));
        }
        let mut group = std::mem::take(&mut self.group);
        if group.pending.is_empty() {
            return Ok(None);
        }
        if let Some(w) = self.writer.as_mut() {
            w.send(std::mem::take(&mut group.records));
        }
        self.inflight = Some(group);
        Ok(None)
    }

    /// Takes the outcome of the group in flight, if any (see [`Cycle::commit`]).
    pub(super) fn settle(&mut self) -> Result<Option<Resume>, CycleError> {
        let Some(sent) = self.inflight.take() else {
            return Ok(None);
        };
        let outcomes = match self.writer.as_mut() {
            Some(w) => w.outcome()?,
            None => return Ok(None),
        };
        let base = self.report.matches.len() - sent.pending.len() - self.group.pending.len();
        let mut outcomes = outcomes.into_iter();
        for (i, p) in sent.pending.iter().enumerate() {
            match outcomes.next() {
                Some(Ok(rec)) => {
                    if let Some(m) = self.report.matches.get_mut(base + i) {
                        m.record = Some(rec.id);
                    }
                }
                Some(Err(DbError::Ad(AdError::MissingMember { collection, .. }))) => {
                    let later = std::mem::take(&mut self.group);
                    let undone: Vec<&Pending> = sent
                        .pending
                        .get(i..)
                        .unwrap_or_default()
                        .iter()
                        .chain(&later.pending)
                        .collect();
                    let visits: Vec<&Visit> = sent.visits.iter().chain(&later.visits).collect();
                    let offer_gone = collection == self.opts.offers;
                    return Ok(Some(self.undo(p, &undone, &visits, offer_gone)));
                }
                Some(Err(e)) => return Err(e.into()),
                None => {
                    let e = StoreError::Backend {
                        context: "recording a cycle's matches".into(),
                        detail: "the store gave fewer outcomes than matches".into(),
                    };
                    return Err(DbError::Ad(AdError::Store(e)).into());
                }
            }
        }
        Ok(None)
    }

    /// Commits everything decided: the pending group, then what is in flight. `None` when
    /// all is recorded; on a refusal, where to resume deciding.
    pub(super) fn finish_commits(&mut self) -> Result<Option<Resume>, CycleError> {
        if let Some(resume) = self.commit()? {
            return Ok(Some(resume));
        }
        self.settle()
    }

    /// Undoes the decisions `undone` (none of them recorded, the last ones made), the first,
    /// `refused`, refused because its offer (or else its request) is gone.
    fn undo(
        &mut self,
        refused: &Pending,
        undone: &[&Pending],
        visits: &[&Visit],
        offer_gone: bool,
    ) -> Resume {
        for p in undone {
            if let Some(t) = self.taken.get_mut(p.offer as usize) {
                *t = false;
            }
            if let Some(ad) = self.offers.ad(p.offer) {
                self.pool.restore(p.offer, ad);
            }
            if p.before == 0 {
                self.report.matched = self.report.matched.saturating_sub(1);
            }
        }
        let kept = self.report.matches.len().saturating_sub(undone.len());
        self.report.matches.truncate(kept);
        for v in visits.iter().filter(|v| v.pos >= refused.pos) {
            // A list computed after the refused decision lacks offers now put back; one
            // computed before holds them, but its reader may have passed over them.
            if v.fresh && v.pos > refused.pos {
                self.clusters.forget(v.ri);
            } else {
                self.clusters.rewind(v.ri);
            }
        }
        if offer_gone {
            self.pool.remove(refused.offer);
            take(&mut self.taken, refused.offer);
            Resume {
                pos: refused.pos,
                got: refused.before,
            }
        } else {
            Resume {
                pos: refused.pos + 1,
                got: 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cluster::Clusters;
    use super::super::dock::Dock;
    use super::super::offers::Offers;
    use super::super::{ahead, order, run, CycleOptions, CycleReport};
    use super::*;
    use crate::collection::Collection;
    use crate::{Db, LoadOptions};
    use adjoin_storage::{IdRule, PutOptions};
    use std::collections::BTreeMap;

    /// Who goes missing before a commit: given its number and the pending matches, the ads
    /// (collection, id) to consume behind the cycle's back.
    type Meddle = dyn Fn(usize, &[NewMatch]) -> Vec<(String, String)>;

    /// Jobs that compete for the biggest machines, some wanting several; ads in `gone` left
    /// out.
    fn pool(gone: &[(String, String)]) -> Db {
        let db = Db::open_in_memory().expect("db");
        let machines: Vec<String> = (0..24)
            .map(|i| {
                let mem = (i * 7 % 5 + 1) * 1000;
                format!(
                    "[Key = \"m{i}\"; Memory = {mem}; Rank = TARGET.Prio; \
                     Requirements = TARGET.Mem <= Memory]"
                )
            })
            .collect();
        let jobs: Vec<String> = (0..20)
            .map(|i| {
                let (mem, n) = (i * 3 % 4 * 1000, i % 3);
                format!(
                    "[Key = \"j{i}\"; Mem = {mem}; Prio = {n}; RequestCount = {}; \
                     Rank = TARGET.Memory; Requirements = TARGET.Memory >= Mem]",
                    n + 1
                )
            })
            .collect();
        let opts = LoadOptions {
            put: PutOptions {
                id: IdRule::attr("Key"),
                ..LoadOptions::default().put
            },
            ..LoadOptions::default()
        };
        for (coll, ads) in [("machines", machines), ("jobs", jobs)] {
            let kept: Vec<&str> = ads
                .iter()
                .filter(|a| {
                    !gone
                        .iter()
                        .any(|(c, id)| c == coll && a.contains(&format!("\"{id}\"")))
                })
                .map(String::as_str)
                .collect();
            let r = db
                .load_text(coll, "t.ads", &kept.join("\n"), &opts)
                .expect("load");
            assert!(r.bad.is_empty());
        }
        db
    }

    /// A durable cycle committing every `g` matches, run as [`run`] does (its groups written
    /// on a thread when `threaded`, else inline), with `meddle` called before each group is
    /// sent (number, pending matches) to consume ads behind the cycle's back; returns the
    /// report and the ads `meddle` consumed.
    fn meddled(
        naive: bool,
        clustered: bool,
        threaded: bool,
        g: usize,
        meddle: &Meddle,
    ) -> (Db, CycleReport, Vec<(String, String)>) {
        let db = pool(&[]);
        let opts = CycleOptions {
            naive,
            ..CycleOptions::new("jobs", "machines")
        };
        let eval = opts.index.eval.clone();
        let requests = Collection::scan(&db, "jobs").expect("scan");
        let offers = Collection::scan(&db, "machines").expect("scan");
        let pool = if naive {
            Offers::naive(&offers, eval.clone())
        } else {
            Offers::indexed(&offers, opts.index.clone()).expect("index")
        };
        let clusters = if clustered {
            Clusters::of(&requests.ads, &offers.ads, &[], None, &eval)
        } else {
            Clusters::singletons(requests.len())
        };
        let serving = order::request_order(&requests.ads, None, &eval);
        let report = CycleReport {
            cycle: db.store().begin_cycle().expect("cycle number"),
            ..CycleReport::default()
        };
        let (report, gone) = std::thread::scope(|s| {
            let writer = match threaded {
                true => Writer::spawn(s, &db),
                false => Writer::Inline {
                    db: &db,
                    done: None,
                },
            };
            let mut c = Cycle {
                opts: &opts,
                eval,
                requests: &requests,
                offers: &offers,
                pool,
                dock: Dock::new(Vec::new()),
                clusters,
                taken: vec![false; offers.len()],
                report,
                group: Group::default(),
                inflight: None,
                writer: Some(writer),
                ahead: None,
            };
            // Windows run ahead too, when groups are written on a thread.
            if let Some(lent) = c.pool.lend_ahead().filter(|_| threaded) {
                let run = ahead::to_run(&serving, c.clusters.of_each(), &requests.ads, &c.eval);
                c.ahead = Some(ahead::spawn(s, lent, &requests.ads, run));
            }
            let mut gone = Vec::new();
            let mut commits = 0;
            let meddle_now = |c: &Cycle<'_>| {
                for (coll, id) in meddle(commits, &c.group.records) {
                    if db.consume(&coll, &id).is_ok() {
                        gone.push((coll, id));
                    }
                }
                commits += 1;
            };
            c.serve_with(&serving, g, meddle_now).expect("serve");
            (c.report, gone)
        });
        (db, report, gone)
    }

    /// Member `k` (0 request, 1 offer) of pending match `i`, if the match consumes it.
    fn member(ms: &[NewMatch], i: usize, k: usize) -> Vec<(String, String)> {
        ms.get(i)
            .and_then(|m| m.members.get(k))
            .filter(|mem| mem.consume)
            .map(|mem| (mem.collection.clone(), mem.id.clone()))
            .into_iter()
            .collect()
    }

    /// The matches as (request, offer, vector) lines.
    fn lines(r: &CycleReport) -> Vec<String> {
        r.matches
            .iter()
            .map(|m| format!("{} {} {:?}", m.request, m.offer, m.vector))
            .collect()
    }

    #[test]
    fn refusals_give_the_one_at_a_time_results() {
        // Who goes missing before which commit: offers and requests of pending matches.
        let plans: [&Meddle; 5] = [
            &|_, _| Vec::new(),
            &|k, ms| if k == 0 { member(ms, 1, 1) } else { Vec::new() },
            &|k, ms| match k {
                0 => [member(ms, 0, 1), member(ms, 2, 1)].concat(),
                1 => member(ms, ms.len().saturating_sub(1), 1),
                2 => member(ms, 1, 0),
                _ => Vec::new(),
            },
            &|k, ms| {
                if k % 2 == 1 {
                    member(ms, 0, 0)
                } else {
                    member(ms, k % 3, 1)
                }
            },
            &|_, ms| member(ms, ms.len().saturating_sub(1), 1),
        ];
        for (p, plan) in plans.iter().enumerate() {
            for (naive, clustered) in [(false, true), (false, false), (true, false)] {
                for (g, threaded) in [
                    (1, false),
                    (3, false),
                    (5, false),
                    (GROUP, false),
                    (3, true),
                ] {
                    let what = format!(
                        "plan {p}, naive {naive}, clustered {clustered}, g {g}, threaded {threaded}"
                    );
                    let (db, got, gone) = meddled(naive, clustered, threaded, g, plan);
                    assert!(p == 0 || g == 1 || !gone.is_empty(), "{what}: nothing went");
                    // One match at a time, the ads that went gone from the start.
                    let want = run(
                        &pool(&gone),
                        &CycleOptions {
                            dry_run: true,
                            ..CycleOptions::new("jobs", "machines")
                        },
                    )
                    .expect("dry run");
                    assert_eq!(lines(&got), lines(&want), "{what}");
                    assert_eq!(got.matched, want.matched, "{what}");
                    // Every match recorded, in order, with its ads consumed by it.
                    let recs = db.matches().expect("matches");
                    let ids: Vec<Option<u64>> = got.matches.iter().map(|m| m.record).collect();
                    let want_ids: Vec<Option<u64>> = (1..=recs.len() as u64).map(Some).collect();
                    assert_eq!(ids, want_ids, "{what}");
                    let mut firsts = BTreeMap::new();
                    for (m, rec) in got.matches.iter().zip(&recs) {
                        let first = *firsts.entry(m.request.clone()).or_insert(rec.id) == rec.id;
                        let members: Vec<(&str, &str, bool)> = rec
                            .members
                            .iter()
                            .map(|x| (x.collection.as_str(), x.id.as_str(), x.consumed))
                            .collect();
                        let want = [
                            ("jobs", m.request.as_str(), first),
                            ("machines", m.offer.as_str(), true),
                        ];
                        assert_eq!(members, want, "{what}");
                        for (coll, id, consumed) in want {
                            let ts = db.tombstone(coll, id).expect("tombstone");
                            if consumed {
                                assert_eq!(ts.map(|t| t.match_id), Some(Some(rec.id)), "{what}");
                            }
                        }
                    }
                    assert!(db.check().expect("check").is_clean(), "{what}");
                }
            }
        }
    }
}
