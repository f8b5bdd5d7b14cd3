//! How an ad's id and expiry are read from the ad: [`IdRule`] and [`Expiry`].
//!
//! Both evaluate an attribute of the ad with the ad as MY, so `Name = strcat(Machine, "#1")`
//! works as well as a literal. A string id is used without quotes; any other value is used as
//! printed (`GlobalJobId = 17` gives the id `17`).

use adjoin_query::eval::{eval_expr, EvalOptions};
use adjoin_query::{ClassAd, Expr, Value};

/// The attributes an ad's id is taken from: the first one present and not `undefined` or
/// `error` wins; an ad with none of them gets a generated id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdRule {
    attrs: Vec<String>,
}

impl Default for IdRule {
    /// `Name`, then `GlobalJobId` (slots and jobs, as HTCondor names them).
    fn default() -> IdRule {
        IdRule {
            attrs: vec!["Name".into(), "GlobalJobId".into()],
        }
    }
}

/// The value `attr` of `ad` evaluates to, with the ad as MY (literals without evaluating).
fn attr_value(ad: &ClassAd, attr: &str, now: i64) -> Option<Value> {
    let expr = ad.get(attr)?;
    match expr.unparen() {
        Expr::Lit(v) => Some(v.clone()),
        e => {
            let opts = EvalOptions {
                now: Some(now),
                ..EvalOptions::default()
            };
            Some(eval_expr(e, ad, &opts))
        }
    }
}

impl IdRule {
    /// Ids from these attributes, in order of preference.
    pub fn new<S: Into<String>>(attrs: impl IntoIterator<Item = S>) -> IdRule {
        IdRule {
            attrs: attrs.into_iter().map(Into::into).collect(),
        }
    }

    /// Ids from one attribute.
    pub fn attr(attr: &str) -> IdRule {
        IdRule::new([attr])
    }

    /// The attributes, in order of preference.
    pub fn attrs(&self) -> &[String] {
        &self.attrs
    }

    /// The id `ad` gives itself, or `None` when it needs a generated one. `now` fixes `time()`.
    pub fn id_of(&self, ad: &ClassAd, now: i64) -> Option<String> {
        self.attrs
            .iter()
            .find_map(|a| match attr_value(ad, a, now)? {
                Value::Undefined | Value::Error => None,
                Value::Str(s) => Some(s.to_string()),
                v => Some(v.to_string()),
            })
    }
}

/// When an ad expires.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Expiry {
    /// Never (until removed or consumed).
    #[default]
    Never,
    /// At this time (seconds since the epoch).
    At(i64),
    /// This many seconds after it is stored.
    After(i64),
    /// As the named attribute says: an absolute time is the expiry, a number or relative time
    /// is a lifetime in seconds from now (HTCondor's `ClassAdLifetime`); absent or `undefined`
    /// means never.
    Attr(String),
}

/// Why an expiry attribute gave no time: what it evaluated to, printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotATime(pub String);

impl Expiry {
    /// The expiry time of `ad` stored at `now`.
    pub fn resolve(&self, ad: &ClassAd, now: i64) -> Result<Option<i64>, NotATime> {
        match self {
            Expiry::Never => Ok(None),
            Expiry::At(t) => Ok(Some(*t)),
            Expiry::After(s) => Ok(Some(now.saturating_add(*s))),
            Expiry::Attr(a) => match attr_value(ad, a, now) {
                None | Some(Value::Undefined) => Ok(None),
                Some(Value::AbsTime(t)) => Ok(Some(t.secs)),
                Some(Value::Int(s)) => Ok(Some(now.saturating_add(s))),
                Some(Value::Real(s) | Value::RelTime(s)) if s.is_finite() => {
                    Ok(Some(now.saturating_add(s.ceil() as i64)))
                }
                Some(v) => Err(NotATime(v.to_string())),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::{AbsTime, BinOp, Name};

    fn ad(attrs: &[(&str, Expr)]) -> ClassAd {
        attrs
            .iter()
            .map(|(n, e)| (Name::new(n), e.clone()))
            .collect()
    }

    fn s(v: &str) -> Expr {
        Expr::lit(Value::str(v))
    }

    fn i(v: i64) -> Expr {
        Expr::lit(Value::Int(v))
    }

    fn id_is(rule: &IdRule, attrs: &[(&str, Expr)], want: Option<&str>) {
        assert_eq!(rule.id_of(&ad(attrs), 0).as_deref(), want, "{attrs:?}");
    }

    #[test]
    fn ids() {
        let d = IdRule::default();
        id_is(&d, &[("Name", s("slot1@a"))], Some("slot1@a"));
        id_is(&d, &[("name", s("lower"))], Some("lower"));
        id_is(&d, &[("GlobalJobId", s("s#1.0#5"))], Some("s#1.0#5"));
        id_is(&d, &[("Name", s("n")), ("GlobalJobId", s("g"))], Some("n"));
        id_is(&d, &[("GlobalJobId", i(17))], Some("17"));
        id_is(
            &d,
            &[
                ("Name", Expr::lit(Value::Undefined)),
                ("GlobalJobId", s("g")),
            ],
            Some("g"),
        );
        id_is(&d, &[("Memory", i(1))], None);
        id_is(
            &d,
            &[("Name", Expr::binary(BinOp::Add, i(1), i(2)))],
            Some("3"),
        );
        id_is(
            &IdRule::attr("Key"),
            &[("Name", s("n")), ("Key", i(143))],
            Some("143"),
        );
        id_is(&IdRule::attr("Key"), &[("Name", s("n"))], None);
    }

    fn expires(e: Expiry, attrs: &[(&str, Expr)], want: Result<Option<i64>, NotATime>) {
        assert_eq!(e.resolve(&ad(attrs), 1000), want, "{e:?} {attrs:?}");
    }

    #[test]
    fn expiries() {
        expires(Expiry::Never, &[], Ok(None));
        expires(Expiry::At(5), &[], Ok(Some(5)));
        expires(Expiry::After(60), &[], Ok(Some(1060)));
        let a = || Expiry::Attr("Lifetime".into());
        expires(a(), &[], Ok(None));
        expires(a(), &[("Lifetime", i(900))], Ok(Some(1900)));
        expires(
            a(),
            &[("Lifetime", Expr::lit(Value::Real(1.5)))],
            Ok(Some(1002)),
        );
        expires(
            a(),
            &[("Lifetime", Expr::lit(Value::RelTime(30.0)))],
            Ok(Some(1030)),
        );
        let at = Value::AbsTime(AbsTime {
            secs: 4242,
            offset: 0,
        });
        expires(a(), &[("Lifetime", Expr::lit(at))], Ok(Some(4242)));
        expires(a(), &[("Lifetime", Expr::lit(Value::Undefined))], Ok(None));
        assert!(a().resolve(&ad(&[("Lifetime", s("soon"))]), 0).is_err());
        assert!(a()
            .resolve(&ad(&[("Lifetime", Expr::lit(Value::Real(f64::NAN)))]), 0)
            .is_err());
    }
}
