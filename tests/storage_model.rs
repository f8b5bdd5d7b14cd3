//! Model-based test: random operations on a database checked, after every step, against a
//! plain reference model (a `BTreeMap` of collections with load order, tombstones and a clock),
//! with the database reopened from disk at random points and an integrity check along the way.

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{AdError, Durability, Expiry, NewMatch, NewMember, PutOptions};
use adjoin::{Db, DbError, DbOptions};
use adjoin_workload::Rng;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const TTL: i64 = 40;
const COLLS: [&str; 2] = ["machines", "jobs"];

#[derive(Clone, Debug, PartialEq)]
struct Entry {
    id: String,
    version: u64,
    expires: Option<i64>,
}

/// The reference: per collection, live-or-expired entries in load order.
#[derive(Default)]
struct Model {
    colls: BTreeMap<String, Vec<Entry>>,
    tombstones: BTreeMap<(String, String), i64>,
    next_generated: u64,
    matches: u64,
}

impl Model {
    fn live(&self, coll: &str, now: i64) -> Vec<Entry> {
        self.colls
            .get(coll)
            .map(|v| {
                v.iter()
                    .filter(|e| e.expires.is_none_or(|t| t > now))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    fn is_live(&self, coll: &str, id: &str, now: i64) -> bool {
        self.live(coll, now).iter().any(|e| e.id == id)
    }

    /// Applies a put (a tombstoned id is re-advertised). Returns the id.
    fn put(
        &mut self,
        coll: &str,
        id: Option<&str>,
        version: u64,
        expires: Option<i64>,
        now: i64,
    ) -> Result<String, ()> {
        let entries = self.colls.entry(coll.to_owned()).or_default();
        let id = match id {
            Some(id) => {
                let key = (coll.to_owned(), id.to_owned());
                // A consumed id is re-advertised (these ads carry no UpdateSequenceNumber,
                // so no update is stale): its tombstone goes.
                let _ = now;
                self.tombstones.remove(&key);
                id.to_owned()
            }
            None => loop {
                self.next_generated += 1;
                let c = format!("auto-{}", self.next_generated);
                if !entries.iter().any(|e| e.id == c) {
                    break c;
                }
            },
        };
        let new = Entry {
            id: id.clone(),
            version,
            expires,
        };
        match entries.iter().position(|e| e.id == id) {
            Some(i) if entries[i].expires.is_none_or(|t| t > now) => entries[i] = new,
            Some(i) => {
                entries.remove(i);
                entries.push(new);
            }
            None => entries.push(new),
        }
        Ok(id)
    }

    /// Removes `id`; true when it was live.
    fn remove(&mut self, coll: &str, id: &str, now: i64) -> bool {
        let live = self.is_live(coll, id, now);
        if let Some(v) = self.colls.get_mut(coll) {
            v.retain(|e| e.id != id);
        }
        live
    }

    fn purge(&mut self, now: i64) {
        for v in self.colls.values_mut() {
            v.retain(|e| e.expires.is_none_or(|t| t > now));
        }
        self.tombstones.retain(|_, until| *until > now);
    }
}

fn ad(id: Option<&str>, version: u64) -> ClassAd {
    let mut ad = ClassAd::new();
    if let Some(id) = id {
        ad.set("Name", Expr::lit(Value::str(id)));
    }
    ad.set("V", Expr::lit(Value::Int(version as i64)));
    ad
}

fn open(path: Option<&Path>, clock: &Arc<AtomicI64>) -> Db {
    let c = clock.clone();
    let opts = DbOptions {
        tombstone_ttl: TTL,
        chunk_size: 4,
        clock: Some(adjoin::db::ClockFn(Arc::new(move || {
            c.load(Ordering::SeqCst)
        }))),
        ..DbOptions::default()
    };
    match path {
        Some(p) => Db::open_with(p, &opts).expect("open"),
        None => Db::open_in_memory_with(&opts).expect("memory"),
    }
}

fn compare(db: &Db, m: &Model, now: i64, step: usize) {
    for coll in COLLS {
        let got: Vec<(String, u64)> = db
            .scan(coll)
            .expect("scan")
            .map(|a| {
                let a = a.expect("ad");
                let v = a.ad.get("V").map(|e| e.to_string()).expect("V");
                (a.header.id, v.parse().expect("version"))
            })
            .collect();
        let want: Vec<(String, u64)> = m
            .live(coll, now)
            .into_iter()
            .map(|e| (e.id, e.version))
            .collect();
        assert_eq!(got, want, "step {step}: collection {coll}");
    }
}

fn run(seed: u64, path: Option<&Path>, steps: usize) {
    let clock = Arc::new(AtomicI64::new(1_000));
    let mut db = open(path, &clock);
    let mut m = Model::default();
    let mut rng = Rng::new(seed);
    let ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let mut version = 0u64;
    for step in 0..steps {
        let now = clock.load(Ordering::SeqCst);
        let coll = COLLS[rng.range(0, 2) as usize];
        let id = ids[rng.range(0, ids.len() as i64) as usize];
        version += 1;
        match rng.range(0, 100) {
            0..=34 => {
                let named = rng.range(0, 10) > 0;
                let expiry = match rng.range(0, 3) {
                    0 => Expiry::After(rng.range(1, 60)),
                    _ => Expiry::Never,
                };
                let expires = match expiry {
                    Expiry::After(s) => Some(now + s),
                    _ => None,
                };
                let opts = PutOptions {
                    expiry,
                    ..PutOptions::default()
                };
                let name = named.then_some(id);
                let got = db.put_with(coll, &ad(name, version), &opts);
                match (m.put(coll, name, version, expires, now), got) {
                    (Ok(want), Ok(p)) => assert_eq!(p.id, want, "step {step}"),
                    (want, got) => {
                        panic!("step {step}: put {coll}/{name:?}: model {want:?}, db {got:?}")
                    }
                }
            }
            35..=44 => {
                let got = db.remove(coll, id).expect("remove");
                assert_eq!(
                    got,
                    m.remove(coll, id, now),
                    "step {step}: remove {coll}/{id}"
                );
            }
            45..=54 => {
                let live = m.is_live(coll, id, now);
                match db.consume(coll, id) {
                    Ok(()) => {
                        assert!(live, "step {step}: consumed a dead ad");
                        m.remove(coll, id, now);
                        m.tombstones
                            .insert((coll.to_owned(), id.to_owned()), now + TTL);
                    }
                    Err(DbError::Ad(AdError::NotFound { .. })) => assert!(!live, "step {step}"),
                    Err(e) => panic!("step {step}: {e}"),
                }
            }
            55..=62 => {
                let other = ids[rng.range(0, ids.len() as i64) as usize];
                let members = vec![
                    NewMember {
                        collection: "jobs".into(),
                        id: id.into(),
                        rank: None,
                        consume: true,
                    },
                    NewMember {
                        collection: "machines".into(),
                        id: other.into(),
                        rank: Some(Value::Int(1)),
                        consume: true,
                    },
                ];
                let ok = m.is_live("jobs", id, now) && m.is_live("machines", other, now);
                match db.record_match(&NewMatch {
                    cycle: step as u64,
                    members,
                }) {
                    Ok(rec) => {
                        assert!(ok, "step {step}: match of absent ads recorded");
                        m.matches += 1;
                        assert_eq!(rec.id, m.matches);
                        for (c, i) in [("jobs", id), ("machines", other)] {
                            m.remove(c, i, now);
                            m.tombstones.insert((c.to_owned(), i.to_owned()), now + TTL);
                        }
                    }
                    Err(DbError::Ad(AdError::MissingMember { .. })) => assert!(!ok, "step {step}"),
                    Err(e) => panic!("step {step}: {e}"),
                }
            }
            63..=72 => {
                let opts = PutOptions {
                    durability: Durability::Buffered,
                    ..PutOptions::default()
                };
                let mut l = db.store().loader(coll, opts);
                let mut want = Vec::new();
                for j in 0..rng.range(1, 9) {
                    let name = ids[rng.range(0, ids.len() as i64) as usize];
                    l.push(&ad(Some(name), version * 100 + j as u64))
                        .expect("push");
                    want.push(
                        m.put(coll, Some(name), version * 100 + j as u64, None, now)
                            .ok(),
                    );
                }
                let report = l.finish().expect("finish");
                let got: Vec<Option<String>> = report
                    .results
                    .into_iter()
                    .map(|r| r.ok().map(|p| p.id))
                    .collect();
                assert_eq!(got, want, "step {step}: bulk load");
            }
            73..=84 => {
                clock.fetch_add(rng.range(0, 30), Ordering::SeqCst);
            }
            85..=89 => {
                db.purge().expect("purge");
                m.purge(now);
            }
            90..=94 if path.is_some() => {
                drop(db);
                db = open(path, &clock);
            }
            _ => {
                let report = db.check().expect("check");
                assert!(report.is_clean(), "step {step}: {:?}", report.damage);
            }
        }
        let now = clock.load(Ordering::SeqCst);
        compare(&db, &m, now, step);
        let probe = ids[step % ids.len()];
        let got = db
            .get(COLLS[step % 2], probe)
            .expect("get")
            .map(|a| a.ad.get("V").map(|e| e.to_string()));
        let want = m
            .live(COLLS[step % 2], now)
            .into_iter()
            .find(|e| e.id == probe)
            .map(|e| Some(e.version.to_string()));
        assert_eq!(got, want, "step {step}: get {probe}");
    }
    assert!(db.check().expect("check").is_clean());
    let stats = db.stats().expect("stats");
    assert_eq!(stats.matches, m.matches);
}

#[test]
fn random_operations_match_the_model_on_disk_with_reopens() {
    for seed in 1..=4 {
        let dir = tempfile::tempdir().expect("tempdir");
        run(seed, Some(&dir.path().join("db")), 250);
    }
}

#[test]
fn random_operations_match_the_model_in_memory() {
    for seed in 10..=19 {
        run(seed, None, 400);
    }
}
