//! Constraint queries: the live ads of a collection for which a constraint, evaluated with the
//! stored ad as MY, is true (like `condor_status -constraint`).

use super::{Db, DbError};
use adjoin_index::{AdId, Direction, Explain, Query as IndexQuery};
use adjoin_query::eval::{eval_expr, EvalOptions};
use adjoin_query::{parse, ClassAd, Expr, Value};
use adjoin_storage::{AdScan, StoredAd};
use std::sync::Arc;

/// True when a constraint's value selects the ad: `true`, or a non-zero number (HTCondor's
/// boolean-equivalent rule); `undefined`, `error` and everything else do not.
pub fn selects(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// The ads of a collection that satisfy a constraint, in load order ([`Db::query`]): found
/// through the collection's index, or by a scan.
pub struct Query<'d>(Source<'d>);

enum Source<'d> {
    /// Evaluating every ad of a scan.
    Scan {
        scan: AdScan<'d>,
        constraint: Expr,
        opts: EvalOptions,
    },
    /// Reading the ids the index answered, one by one.
    Ids {
        db: &'d Db,
        collection: String,
        ids: std::vec::IntoIter<String>,
    },
    /// Reading the ids the index answered by a scan (when they are much of the collection:
    /// each block is then decoded once).
    Wanted {
        scan: AdScan<'d>,
        wanted: std::collections::HashSet<String>,
    },
}

impl Iterator for Query<'_> {
    type Item = Result<StoredAd, DbError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Source::Scan {
                scan,
                constraint,
                opts,
            } => loop {
                match scan.next()? {
                    Ok(ad) => {
                        if selects(&eval_expr(constraint, &ad.ad, opts)) {
                            return Some(Ok(ad));
                        }
                    }
                    Err(e) => return Some(Err(e.into())),
                }
            },
            Source::Ids {
                db,
                collection,
                ids,
            } => loop {
                // An ad removed or expired since the index answered is skipped.
                match db.get(collection, &ids.next()?) {
                    Ok(Some(ad)) => return Some(Ok(ad)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(e)),
                }
            },
            Source::Wanted { scan, wanted } => loop {
                match scan.next()? {
                    Ok(ad) if wanted.contains(ad.id()) => return Some(Ok(ad)),
                    Ok(_) => continue,
                    Err(e) => return Some(Err(e.into())),
                }
            },
        }
    }
}

/// A read of this share of a collection or more is done by a scan.
const SCAN_SHARE: u64 = 4;

/// What [`Db::indexed_query`] found.
#[derive(Debug)]
pub struct Answer {
    /// The ids selected, in load order.
    pub ids: Vec<String>,
    /// What the index did.
    pub explain: Explain,
    /// Ads that could not be read when the index was made or asked (not in `ids`).
    pub damaged: Vec<String>,
}

/// What [`Db::join`] found.
#[derive(Debug, Default)]
pub struct Joined {
    /// Each live request's id (in load order) and the ids of the live offers that match it
    /// both ways (in load order).
    pub rows: Vec<(String, Vec<String>)>,
    /// Ads that could not be read (requests skipped, or offers the index could not read).
    pub damaged: Vec<String>,
}

/// Whether two sets of evaluation options evaluate alike (the index's and a query's).
pub(crate) fn same_eval(a: &EvalOptions, b: &EvalOptions) -> bool {
    (
        a.target_fallback,
        a.now,
        a.tz_offset,
        a.max_depth,
        a.max_work,
    ) == (
        b.target_fallback,
        b.now,
        b.tz_offset,
        b.max_depth,
        b.max_work,
    )
}

impl Db {
    /// The live ads of `collection` satisfying `constraint`, in load order, found through
    /// the collection's index.
    pub fn query(&self, collection: &str, constraint: &Expr) -> Result<Query<'_>, DbError> {
        self.query_with(collection, constraint, EvalOptions::default())
    }

    /// [`Db::query`] with evaluation options (e.g. a fixed clock). Options other than the
    /// index's are answered by a scan, which evaluates every ad.
    pub fn query_with(
        &self,
        collection: &str,
        constraint: &Expr,
        opts: EvalOptions,
    ) -> Result<Query<'_>, DbError> {
        let _span = tracing::debug_span!("query", collection).entered();
        if same_eval(&opts, &self.indexes.opts.eval) {
            let answer = self.indexed_query(collection, constraint)?;
            return Ok(self.read_ids(collection, answer.ids));
        }
        Ok(Query(Source::Scan {
            scan: self.scan(collection)?,
            constraint: constraint.clone(),
            opts,
        }))
    }

    /// The ads `ids` of `collection` (in load order, as an index answers them), skipping
    /// those gone since: one by one, or by one scan when they are much of the collection.
    pub fn read_ids(&self, collection: &str, ids: Vec<String>) -> Query<'_> {
        let stored = self.store.stored_count(collection).unwrap_or(u64::MAX);
        if ids.len() as u64 * SCAN_SHARE >= stored && ids.len() >= 64 {
            if let Ok(scan) = self.scan(collection) {
                return Query(Source::Wanted {
                    scan,
                    wanted: ids.into_iter().collect(),
                });
            }
        }
        Query(Source::Ids {
            db: self,
            collection: collection.to_owned(),
            ids: ids.into_iter(),
        })
    }

    /// The ids of the live ads of `collection` satisfying `constraint` (evaluated with each
    /// ad as MY), in load order, through the collection's index, and what the index did.
    /// An ad with ports is judged whole, as a scan judges it (the index holds its ports).
    pub fn indexed_query(&self, collection: &str, constraint: &Expr) -> Result<Answer, DbError> {
        let now = self.now();
        let eval = self.indexes.opts.eval.clone();
        let q = IndexQuery::one_sided(constraint, &self.indexes.opts).explained();
        self.with_index_importing(collection, &q.window_attrs(), |held| {
            let (hits, explain) = held.index.matching(&q);
            let mut found: Vec<AdId> = hits
                .iter()
                .map(|h| h.ad)
                .filter(|&n| !held.ported(n) && !held.expired(n, now))
                .collect();
            let mut damaged = held.damaged().to_vec();
            for n in held.ported_ads() {
                let Some(id) = held.id(n) else { continue };
                match self.store.get(collection, &id) {
                    Ok(Some(ad)) if selects(&eval_expr(constraint, &ad.ad, &eval)) => found.push(n),
                    Ok(_) => {}
                    Err(e) => damaged.push(e.to_string()),
                }
            }
            found.sort_unstable();
            found.dedup();
            damaged.extend(held.take_unread());
            Answer {
                ids: found.into_iter().filter_map(|n| held.id(n)).collect(),
                explain,
                damaged,
            }
        })
    }

    /// The ids of the live ads of `collection` that match `ad` both ways (each one's
    /// requirements true with the other as TARGET; ports as [`adjoin_index::join()`] docks
    /// them), in load order, through the collection's index. `ad` is a `&ClassAd` or an
    /// `Arc<ClassAd>` (or a reference to one).
    pub fn candidates(&self, collection: &str, ad: impl AsRef<ClassAd>) -> Result<Answer, DbError> {
        let ad = Arc::new(ad.as_ref().clone());
        let now = self.now();
        self.with_index(collection, |held| {
            let before = held.index.stats();
            let found = adjoin_index::join(&mut held.index, std::slice::from_ref(&ad))
                .pop()
                .unwrap_or_default();
            let after = held.index.stats();
            let explain = Explain {
                direction: Direction::TwoSided.as_str(),
                probes: after.probes - before.probes,
                candidates: after.candidates - before.candidates,
                exact: after.exact - before.exact,
                evaluations: after.evaluations - before.evaluations,
                confirmed: after.confirmed - before.confirmed,
                ..Explain::default()
            };
            Answer {
                ids: found
                    .iter()
                    .filter(|&n| !held.expired(n, now))
                    .filter_map(|n| held.id(n))
                    .collect(),
                explain,
                damaged: [held.damaged().to_vec(), held.take_unread()].concat(),
            }
        })
    }

    /// The spatial join of `requests` with `offers`: for each live request, the live offers
    /// matching it both ways (as [`Db::candidates`]), through `offers`' held index (made or
    /// caught up once, then kept; no private index is built per call). The requests are read
    /// by one scan.
    pub fn join(&self, requests: &str, offers: &str) -> Result<Joined, DbError> {
        let _span = tracing::info_span!("join", requests, offers).entered();
        let mut ids = Vec::new();
        let mut ads = Vec::new();
        let mut damaged = Vec::new();
        for ad in self.scan(requests)? {
            match ad {
                Ok(ad) => {
                    ids.push(ad.header.id);
                    ads.push(Arc::new(ad.ad));
                }
                Err(e) => damaged.push(e.to_string()),
            }
        }
        let now = self.now();
        self.with_index(offers, |held| {
            let found = adjoin_index::join(&mut held.index, &ads);
            let rows = ids
                .into_iter()
                .zip(found)
                .map(|(id, offers)| {
                    let names = offers
                        .iter()
                        .filter(|&n| !held.expired(n, now))
                        .filter_map(|n| held.id(n))
                        .collect();
                    (id, names)
                })
                .collect();
            damaged.extend(held.damaged().iter().cloned());
            damaged.extend(held.take_unread());
            Joined { rows, damaged }
        })
    }

    /// [`Db::query`] with the constraint as text.
    pub fn query_str(&self, collection: &str, constraint: &str) -> Result<Query<'_>, DbError> {
        let e = parse::expr(constraint)?;
        self.query(collection, &e)
    }

    /// How many live ads of `collection` satisfy `constraint` (all of them when `None`),
    /// through the index: no ad is read unless the index must evaluate it.
    pub fn count(&self, collection: &str, constraint: Option<&Expr>) -> Result<u64, DbError> {
        match constraint {
            Some(c) => Ok(self.indexed_query(collection, c)?.ids.len() as u64),
            None => {
                let now = self.now();
                self.with_index(collection, |held| held.live(now))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query_is(constraint: &str, want: &[&str]) {
        let db = Db::open_in_memory().expect("db");
        for text in [
            r#"[Name = "a"; Memory = 1024; Arch = "X86_64"]"#,
            r#"[Name = "b"; Memory = 4096; Arch = "INTEL"]"#,
            r#"[Name = "c"; Arch = "x86_64"]"#,
        ] {
            db.put("m", &parse::classad(text).expect("ad"))
                .expect("put");
        }
        let got: Vec<String> = db
            .query_str("m", constraint)
            .expect("query")
            .map(|a| a.expect("ad").header.id)
            .collect();
        assert_eq!(got, want, "{constraint}");
    }

    #[test]
    fn constraints() {
        query_is("true", &["a", "b", "c"]);
        query_is("Memory >= 2048", &["b"]);
        query_is(r#"Arch == "x86_64""#, &["a", "c"]);
        query_is("Memory", &["a", "b"]);
        query_is("Memory > 10 || Arch =?= \"x86_64\"", &["a", "b", "c"]);
        query_is("undefined", &[]);
        query_is(r#""yes""#, &[]);
    }

    #[test]
    fn selects_boolean_equivalents() {
        for (v, want) in [
            (Value::Bool(true), true),
            (Value::Bool(false), false),
            (Value::Int(2), true),
            (Value::Int(0), false),
            (Value::Real(0.5), true),
            (Value::Undefined, false),
            (Value::Error, false),
            (Value::str("true"), false),
        ] {
            assert_eq!(selects(&v), want, "{v:?}");
        }
    }
}
