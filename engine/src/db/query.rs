//! Constraint queries: the live ads of a collection for which a constraint, evaluated with the
//! stored ad as MY, is true (like `condor_status -constraint`).

use super::{Db, DbError};
use adjoin_query::eval::{eval_expr, EvalOptions};
use adjoin_query::{parse, Expr, Value};
use adjoin_storage::{AdScan, StoredAd};

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

/// The ads of a scan that satisfy a constraint, in load order ([`Db::query`]).
pub struct Query<'d> {
    scan: AdScan<'d>,
    constraint: Expr,
    opts: EvalOptions,
}

impl Iterator for Query<'_> {
    type Item = Result<StoredAd, DbError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.scan.next()? {
                Ok(ad) => {
                    if selects(&eval_expr(&self.constraint, &ad.ad, &self.opts)) {
                        return Some(Ok(ad));
                    }
                }
                Err(e) => return Some(Err(e.into())),
            }
        }
    }
}

impl Db {
    /// The live ads of `collection` satisfying `constraint`, in load order.
    pub fn query(&self, collection: &str, constraint: &Expr) -> Result<Query<'_>, DbError> {
        self.query_with(collection, constraint, EvalOptions::default())
    }

    /// [`Db::query`] with evaluation options (e.g. a fixed clock).
    pub fn query_with(
        &self,
        collection: &str,
        constraint: &Expr,
        opts: EvalOptions,
    ) -> Result<Query<'_>, DbError> {
        let _span = tracing::debug_span!("query", collection).entered();
        Ok(Query {
            scan: self.scan(collection)?,
            constraint: constraint.clone(),
            opts,
        })
    }

    /// [`Db::query`] with the constraint as text.
    pub fn query_str(&self, collection: &str, constraint: &str) -> Result<Query<'_>, DbError> {
        let e = parse::expr(constraint)?;
        self.query(collection, &e)
    }

    /// How many live ads of `collection` satisfy `constraint` (all of them when `None`).
    pub fn count(&self, collection: &str, constraint: Option<&Expr>) -> Result<u64, DbError> {
        let mut n = 0;
        match constraint {
            Some(c) => {
                for ad in self.query(collection, c)? {
                    ad?;
                    n += 1;
                }
            }
            None => {
                for ad in self.scan(collection)? {
                    ad?;
                    n += 1;
                }
            }
        }
        Ok(n)
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
