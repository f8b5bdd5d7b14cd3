//! Ranking a stored collection's candidates through its held index (`adjoin candidates
//! --ranked`): a request with `Preferences` has its candidates' outcomes told by windows on
//! the index ([`super::walk::partition`]), its offers read back for their ranks (which break
//! the ties within an outcome, and complete each docking vector); one without ranks its
//! candidates by `[request Rank, offer Rank]`. Ties fall to load order.

use super::net::{PreferenceError, Preferences};
use super::rank::{keep_fraction, order_component, ranks};
use super::walk::{partition, Feasible};
use crate::cycle::vector::cmp_vectors;
use crate::db::Held;
use crate::{Db, DbError};
use adjoin_index::RoaringBitmap;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Value};
use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

/// A collection's candidates for a request, best first.
#[derive(Debug, Default)]
pub struct RankedAnswer {
    /// Their ids, best first.
    pub ids: Vec<String>,
    /// Their docking vectors, in the same order (`[preference order, request Rank, offer
    /// Rank]`, or the two ranks without preferences).
    pub vectors: Vec<Vec<Value>>,
    /// The ads, in the same order, as read for their ranks.
    pub ads: Vec<ClassAd>,
    /// Windows the walk probed (0 when there was none).
    pub probes: usize,
    /// Whether the walk gave up and every candidate was ranked by evaluation.
    pub fell_back: bool,
    /// Ads that could not be read (left out), as messages.
    pub damaged: Vec<String>,
}

/// Why candidates could not be ranked.
#[derive(Debug, Error)]
pub enum RankError {
    /// The database failed; boxed, as it is large.
    #[error(transparent)]
    Db(Box<DbError>),
    /// The request's preferences are wrong.
    #[error(transparent)]
    Preferences(#[from] PreferenceError),
}

impl From<DbError> for RankError {
    fn from(e: DbError) -> RankError {
        RankError::Db(Box::new(e))
    }
}

/// The live offers of a held index, matched both ways.
struct HeldOffers<'a> {
    held: &'a mut Held,
    now: i64,
}

impl Feasible for HeldOffers<'_> {
    fn matching(&mut self, request: &Arc<ClassAd>) -> RoaringBitmap {
        let found = adjoin_index::join(&mut self.held.index, std::slice::from_ref(request))
            .pop()
            .unwrap_or_default();
        let now = self.now;
        found
            .iter()
            .filter(|&n| !self.held.expired(n, now))
            .collect()
    }
}

impl Db {
    /// The live ads of `collection` matching `request` both ways, best first: by the
    /// request's preference order (its `PreferenceKeep` applied) when it has `Preferences`,
    /// then by `[request Rank, offer Rank]`, then in load order. `label` names the request in
    /// errors.
    pub fn ranked_candidates(
        &self,
        collection: &str,
        request: &Arc<ClassAd>,
        label: &str,
    ) -> Result<RankedAnswer, RankError> {
        let opts = EvalOptions::default();
        let prefs = Preferences::from_ad(request, label, &opts)?;
        let now = self.now();
        // The walk, under the index's lock: each feasible outcome's key and offers.
        let walked = match &prefs {
            None => None,
            Some(p) => Some(self.with_index(collection, |held| {
                let mut offers = HeldOffers { held, now };
                let walked = partition(p, request, &mut offers).ok().map(|w| {
                    let leaves: Vec<(u64, Vec<String>)> = w
                        .leaves
                        .iter()
                        .map(|(k, ids)| {
                            (*k, ids.iter().filter_map(|n| offers.held.id(n)).collect())
                        })
                        .collect();
                    (leaves, w.probes)
                });
                let damaged = [offers.held.damaged().to_vec(), offers.held.take_unread()].concat();
                (walked, damaged)
            })?),
        };
        let mut out = RankedAnswer::default();
        let mut ranked: Vec<(Vec<Value>, String, ClassAd)> = Vec::new();
        match walked {
            Some((Some((leaves, probes)), damaged)) => {
                out.probes = probes;
                out.damaged = damaged;
                // The offers are read back for their ranks: those of an offer alone in its
                // outcome break no tie, but its vector is reported whole. One that cannot be
                // read is left out (noted in `damaged`), as on the evaluating path.
                let found: Vec<String> = leaves.iter().flat_map(|l| l.1.iter().cloned()).collect();
                let mut ads = self.read_map(collection, found, &mut out.damaged);
                for (key, ids) in leaves {
                    let mut leaf: Vec<(Vec<Value>, String, ClassAd)> = ids
                        .into_iter()
                        .filter_map(|id| {
                            let ad = ads.remove(&id)?;
                            let [mine, theirs] = ranks(request, &ad, &opts);
                            Some((vec![order_component(key), mine, theirs], id, ad))
                        })
                        .collect();
                    leaf.sort_by(|a, b| cmp_vectors(&b.0, &a.0));
                    ranked.extend(leaf);
                }
            }
            other => {
                // No preferences, or the walk gave up: every candidate evaluated.
                out.fell_back = prefs.is_some();
                let answer = self.candidates(collection, request)?;
                // What the walk could not read, then what the candidates' search could not
                // (the index's own damage is in both: once).
                if let Some((_, damaged)) = other {
                    out.damaged = damaged;
                }
                for d in answer.damaged {
                    if !out.damaged.contains(&d) {
                        out.damaged.push(d);
                    }
                }
                let mut ads = self.read_map(collection, answer.ids.clone(), &mut out.damaged);
                for id in answer.ids {
                    let Some(ad) = ads.remove(&id) else { continue };
                    let v = match &prefs {
                        Some(p) => p.vector(request, &ad, &opts),
                        None => ranks(request, &ad, &opts).to_vec(),
                    };
                    ranked.push((v, id, ad));
                }
                ranked.sort_by(|a, b| cmp_vectors(&b.0, &a.0));
            }
        }
        ranked.truncate(keep_fraction(ranked.len(), prefs.and_then(|p| p.keep)));
        for (v, id, ad) in ranked {
            out.vectors.push(v);
            out.ids.push(id);
            out.ads.push(ad);
        }
        Ok(out)
    }

    /// The ads of `ids` in `collection` by id; those that cannot be read noted in `damaged`.
    fn read_map(
        &self,
        collection: &str,
        ids: Vec<String>,
        damaged: &mut Vec<String>,
    ) -> HashMap<String, ClassAd> {
        let mut map = HashMap::with_capacity(ids.len());
        if ids.is_empty() {
            return map;
        }
        for ad in self.read_ids(collection, ids) {
            match ad {
                Ok(ad) => {
                    map.insert(ad.id().to_owned(), ad.ad);
                }
                Err(e) => damaged.push(e.to_string()),
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;
    use adjoin_query::parse;

    #[test]
    fn ranked_candidates_of_a_stored_collection() {
        let db = Db::open_in_memory().expect("db");
        let text = r#"
[Name = "s1"; OpSys = "OSX"; Memory = 8192; HasGPU = true; Requirements = true]
[Name = "s2"; OpSys = "LINUX"; Memory = 1024; Requirements = true]
[Name = "s3"; OpSys = "LINUX"; Memory = 8192; Requirements = true]
[Name = "s4"; OpSys = "OSX"; Memory = 1024; HasGPU = false; Requirements = true]
[Name = "s5"; OpSys = "LINUX"; Memory = 8192; Rank = 5; Requirements = true]
[Name = "s6"; OpSys = "WINDOWS"; Memory = 8192; Requirements = true]
[Name = "s7"; OpSys = "LINUX"; Memory = 8192; Requirements = false]
"#;
        db.load_text("slots", "s.ads", text, &LoadOptions::default())
            .expect("load");
        let prefs = r#"Preferences = {
  [ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
  [ Name = "mem"; Value = TARGET.Memory >= 4096; Parents = {"os"};
    Table = { [ When = {"LINUX"}; Order = {true, false} ],
              [ When = {"OSX"};   Order = {false, true} ] } ],
  [ Name = "gpu"; Value = TARGET.HasGPU; Parents = {"os", "mem"};
    Table = { [ When = {"OSX", false}; Order = {true, false} ] } ] }"#;
        for (extra, want) in [
            ("", vec!["s5", "s3", "s2", "s4", "s1", "s6"]),
            ("PreferenceKeep = 0.5;", vec!["s5", "s3", "s2"]),
            // Without preferences: the ranks, then load order.
            ("NONE", vec!["s5", "s1", "s2", "s3", "s4", "s6"]),
        ] {
            let text = match extra {
                "NONE" => "[Requirements = true]".to_owned(),
                e => format!("[{e} Requirements = true; {prefs}]"),
            };
            let request = Arc::new(parse::classad(&text).expect("request"));
            let got = db
                .ranked_candidates("slots", &request, "req.ad")
                .expect("ranked");
            assert_eq!(got.ids, want, "{extra}");
            assert!(!got.fell_back);
            assert_eq!(got.probes > 0, extra != "NONE");
        }
        // The vectors are those of evaluation, for offers alone in their outcome too (their
        // ranks break no tie, but are reported).
        let opts = EvalOptions::default();
        let text = format!("[Rank = -TARGET.Memory; Requirements = true; {prefs}]");
        let request = Arc::new(parse::classad(&text).expect("request"));
        let got = db
            .ranked_candidates("slots", &request, "req.ad")
            .expect("ranked");
        let pool = db.pool("slots").expect("pool");
        let matching = (0..pool.ads.len() as u32).filter(|&o| {
            adjoin_query::eval::symmetric_match(&request, &pool.ads[o as usize], &opts)
        });
        let p = Preferences::from_ad(&request, "req.ad", &opts)
            .expect("preferences")
            .expect("some");
        let want = crate::prefer::rank_candidates(Some(&p), &request, matching, &pool.ads, &opts);
        let want_ids: Vec<&str> = want
            .iter()
            .map(|(_, o)| pool.ids[*o as usize].as_str())
            .collect();
        let want_vectors: Vec<Vec<Value>> = want.into_iter().map(|(v, _)| v).collect();
        assert_eq!(got.ids, want_ids);
        assert_eq!(got.vectors, want_vectors);
        let got_ads: Vec<String> = (got.ads.iter())
            .map(|a| a.get("Name").map(|e| e.to_string()).unwrap_or_default())
            .collect();
        let quoted: Vec<String> = want_ids.iter().map(|id| format!("\"{id}\"")).collect();
        assert_eq!(got_ads, quoted, "the ads, in the same order");
        assert_eq!(
            (got.ids[2].as_str(), &got.vectors[2][1]),
            ("s2", &Value::Int(-1024)),
            "s2, alone in its outcome"
        );
        let bad =
            Arc::new(parse::classad("[Requirements = true; Preferences = 3]").expect("request"));
        let err = db
            .ranked_candidates("slots", &bad, "req.ad")
            .expect_err("bad");
        assert!(err.to_string().contains("ad req.ad"), "{err}");
    }
}
