//! The match history as the facade offers it: reads without a scan (the last matches, one
//! cycle's, one ad's), retention (`Db::prune_matches`, and the policy of
//! [`DbOptions::retention`](super::DbOptions) applied after every durable cycle), and the JSON
//! line a match is exported and listed as.

use super::{Db, DbError};
use adjoin_query::Value;
use adjoin_storage::{AdError, MatchRecord, PruneReport, Retention, StoreError};
use serde::Serialize;
use serde_json::json;
use std::io::Write;

/// Records a retention policy prunes after one durable cycle, at most (the rest goes after the
/// next cycles: a cycle's own cost stays bounded).
pub const RETENTION_STEP: u64 = 20_000;

/// A rank as JSON: numbers and booleans as such, `undefined` as null, anything else as its
/// ClassAd text.
pub fn rank_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Int(i) => json!(i),
        Value::Real(r) if r.is_finite() => json!(r),
        Value::Bool(b) => json!(b),
        Value::Undefined => serde_json::Value::Null,
        other => json!(other.to_string()),
    }
}

/// A match as JSON (fields in this order).
#[derive(Serialize)]
struct JsonMatch<'m> {
    id: u64,
    time: i64,
    cycle: u64,
    members: Vec<JsonMember<'m>>,
}

/// A match member as JSON.
#[derive(Serialize)]
struct JsonMember<'m> {
    collection: &'m str,
    id: &'m str,
    rank: serde_json::Value,
    consumed: bool,
    /// What the match carved out of a partitionable offer (`{"Cpus": 1, "Memory": 2048, …}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    share: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A member's rank and, for a partitionable offer, its carved share: the record keeps them as
/// one ad, `[Rank = …; Cpus = …; Memory = …]` (`cycle/partition.rs`), shown as a number and a
/// `share` object.
fn rank_and_share(
    rank: Option<&Value>,
) -> (
    serde_json::Value,
    Option<serde_json::Map<String, serde_json::Value>>,
) {
    let Some(Value::Ad(ad)) = rank else {
        return (rank.map_or(serde_json::Value::Null, rank_json), None);
    };
    let value = |e: &adjoin_query::Expr| match e {
        adjoin_query::Expr::Lit(v) => rank_json(v),
        other => json!(other.to_string()),
    };
    let mut rank = serde_json::Value::Null;
    let mut share = serde_json::Map::new();
    for (name, e) in ad.iter() {
        if name.key() == adjoin_query::name::kw::RANK {
            rank = value(e);
        } else {
            share.insert(name.as_str().to_owned(), value(e));
        }
    }
    (rank, Some(share))
}

/// One match as a JSON object on one line: `{"id", "time", "cycle", "members": [{"collection",
/// "id", "rank", "consumed"}]}`; a partitionable offer's member also has `"share"`, what the
/// match carved out of it.
pub fn match_json(m: &MatchRecord) -> String {
    let j = JsonMatch {
        id: m.id,
        time: m.time,
        cycle: m.cycle,
        members: m
            .members
            .iter()
            .map(|mem| {
                let (rank, share) = rank_and_share(mem.rank.as_ref());
                JsonMember {
                    collection: &mem.collection,
                    id: &mem.id,
                    rank,
                    consumed: mem.consumed,
                    share,
                }
            })
            .collect(),
    };
    // Serializing plain strings and numbers cannot fail.
    crate::json::to_string(&j).unwrap_or_default()
}

/// An export's write failure as the error a prune reports.
fn export_failed(e: &std::io::Error) -> AdError {
    AdError::Store(StoreError::Backend {
        context: "exporting pruned matches".into(),
        detail: e.to_string(),
    })
}

impl Db {
    /// The last `n` matches recorded, oldest first (no scan of the history).
    pub fn recent_matches(&self, n: u64) -> Result<Vec<MatchRecord>, DbError> {
        Ok(self.store.recent_matches(n)?)
    }

    /// The matches of cycle `cycle`, in id order (no scan of the history).
    pub fn matches_of_cycle(&self, cycle: u64) -> Result<Vec<MatchRecord>, DbError> {
        Ok(self.store.matches_of_cycle(cycle)?)
    }

    /// The matches ad `id` of `collection` took part in, in id order (no scan of the history).
    pub fn matches_of_ad(&self, collection: &str, id: &str) -> Result<Vec<MatchRecord>, DbError> {
        Ok(self.store.matches_of_ad(collection, id)?)
    }

    /// How many match records are kept.
    pub fn match_count(&self) -> Result<u64, DbError> {
        Ok(self.store.match_count()?)
    }

    /// Removes the oldest match records until `retention` holds, at most `budget` of them,
    /// writing each to `export` as a JSON line ([`match_json`]) first when given. Durable when
    /// it returns; `done` is false when the budget ran out first.
    pub fn prune_matches(
        &self,
        retention: &Retention,
        budget: u64,
        mut export: Option<&mut dyn Write>,
    ) -> Result<PruneReport, DbError> {
        let report = self.store.prune_matches(retention, budget, &mut |m| {
            if let Some(w) = export.as_mut() {
                writeln!(w, "{}", match_json(m)).map_err(|e| export_failed(&e))?;
            }
            Ok(())
        })?;
        if let Some(w) = export.as_mut() {
            w.flush().map_err(|e| DbError::Ad(export_failed(&e)))?;
        }
        Ok(report)
    }

    /// Applies the retention policy this Db was opened with ([`DbOptions::retention`]), one
    /// bounded step ([`RETENTION_STEP`] records): appending what goes to the policy's export
    /// file first when it names one. `None` when there is no policy.
    ///
    /// [`DbOptions::retention`]: super::DbOptions::retention
    pub fn apply_retention(&self) -> Result<Option<PruneReport>, DbError> {
        let Some(policy) = &self.retention else {
            return Ok(None);
        };
        let report = match &policy.export {
            Some(path) => {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| DbError::Ad(export_failed(&e)))?;
                let mut w = std::io::BufWriter::new(file);
                self.prune_matches(&policy.keep, RETENTION_STEP, Some(&mut w))?
            }
            None => self.prune_matches(&policy.keep, RETENTION_STEP, None)?,
        };
        Ok(Some(report))
    }
}

/// A retention policy a Db applies by itself: which records to keep, and where the others are
/// exported (JSON lines appended) before they go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// The bounds records must stay within.
    pub keep: Retention,
    /// A file the pruned records are appended to, one JSON line each.
    pub export: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_storage::MatchMember;

    fn record() -> MatchRecord {
        let member = |c: &str, id: &str, rank: Option<Value>, consumed| MatchMember {
            collection: c.into(),
            id: id.into(),
            rank,
            consumed,
        };
        MatchRecord {
            id: 7,
            time: 1_417_808_219,
            cycle: 2,
            members: vec![
                member("jobs", "s#1.0#5", Some(Value::Real(1.5)), false),
                member("machines", "slot1@h", None, true),
            ],
        }
    }

    #[test]
    fn json_lines() {
        assert_eq!(
            match_json(&record()),
            r#"{"id": 7, "time": 1417808219, "cycle": 2, "members": [{"collection": "jobs", "id": "s#1.0#5", "rank": 1.5, "consumed": false}, {"collection": "machines", "id": "slot1@h", "rank": null, "consumed": true}]}"#
        );
    }

    /// A partitionable offer's member: its rank a number, its carved share an object.
    #[test]
    fn carved_shares() {
        let ad = adjoin_query::parse::classad("[Rank = 2; Cpus = 1; Memory = 2048]").expect("ad");
        let mut m = record();
        m.members[1].rank = Some(Value::Ad(std::sync::Arc::new(ad)));
        assert!(
            match_json(&m).contains(
                r#"{"collection": "machines", "id": "slot1@h", "rank": 2, "consumed": true, "share": {"Cpus": 1, "Memory": 2048}}"#
            ),
            "{}",
            match_json(&m)
        );
    }

    #[test]
    fn ranks_as_json() {
        for (v, want) in [
            (Value::Int(3), "3"),
            (Value::Real(0.25), "0.25"),
            (Value::Real(f64::NAN), "\"real(\\\"NaN\\\")\""),
            (Value::Bool(true), "true"),
            (Value::Undefined, "null"),
            (Value::str("x"), "\"\\\"x\\\"\""),
        ] {
            assert_eq!(rank_json(&v).to_string(), want, "{v:?}");
        }
    }
}
