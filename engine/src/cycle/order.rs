//! The order requests are served in: descending `--order-by` evaluated in each request,
//! requests whose value is not a number last, ties in load order (a stable sort).

use adjoin_query::eval::{eval_attr_value, eval_expr, EvalOptions};
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// The positions of `requests` in serving order; load order without `order_by`.
pub fn request_order(
    requests: &[Arc<ClassAd>],
    order_by: Option<&Expr>,
    opts: &EvalOptions,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..requests.len()).collect();
    let Some(e) = order_by else {
        return order;
    };
    let keys: Vec<Option<f64>> = requests
        .iter()
        .map(|r| priority(&eval_expr(e, r, opts)))
        .collect();
    order.sort_by(|&a, &b| match (keys[a], keys[b]) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    order
}

/// An order-by value as a number: integers and reals (not NaN); booleans and everything else
/// are not numbers.
fn priority(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        // -0.0 as 0.0: equal keys keep load order, as HTCondor's comparison of doubles does.
        Value::Real(r) if !r.is_nan() => Some(r + 0.0),
        _ => None,
    }
}

/// How many times a request may be matched in one cycle: its `RequestCount` when that is a
/// number (reals truncated, negatives 0), else 1.
pub fn request_count(request: &ClassAd, opts: &EvalOptions) -> usize {
    static KEY: OnceLock<Key> = OnceLock::new();
    // Absent: undefined without evaluating (the common case).
    if request
        .get_key(*KEY.get_or_init(|| Key::of("RequestCount")))
        .is_none()
    {
        return 1;
    }
    match eval_attr_value(request, "RequestCount", opts) {
        Value::Int(i) => usize::try_from(i.max(0)).unwrap_or(usize::MAX),
        // `as` saturates; NaN becomes 0.
        Value::Real(r) => r.max(0.0) as usize,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn check(ads: &[&str], order_by: Option<&str>, want: &[usize]) {
        let ads: Vec<Arc<ClassAd>> = ads
            .iter()
            .map(|t| Arc::new(parse::classad(t).expect("ad")))
            .collect();
        let e = order_by.map(|o| parse::expr(o).expect("order-by"));
        let got = request_order(&ads, e.as_ref(), &EvalOptions::default());
        assert_eq!(got, want, "{ads:?} {order_by:?}");
    }

    #[test]
    fn orders() {
        let ads = [
            "[P = 1]",
            "[P = 3]",
            "[P = \"x\"]",
            "[P = 3.0]",
            "[]",
            "[P = 7]",
        ];
        check(&ads, None, &[0, 1, 2, 3, 4, 5]);
        check(&ads, Some("P"), &[5, 1, 3, 0, 2, 4]);
        check(&ads, Some("-P"), &[0, 1, 3, 5, 2, 4]);
        // -0.0 and 0 are equal keys (as doubles compare in HTCondor): load order stays.
        check(
            &["[P = -0.0]", "[P = 0]", "[P = 0.0]"],
            Some("P"),
            &[0, 1, 2],
        );
        check(&["[P = 0]", "[P = -0.0]"], Some("P"), &[0, 1]);
        check(&ads, Some("P > 2"), &[0, 1, 2, 3, 4, 5]);
        check(&ads, Some("0"), &[0, 1, 2, 3, 4, 5]);
        check(&["[P = real(\"NaN\")]", "[P = -1]"], Some("P"), &[1, 0]);
    }

    #[test]
    fn counts() {
        for (ad, want) in [
            ("[]", 1),
            ("[RequestCount = 3]", 3),
            ("[RequestCount = 2.9]", 2),
            ("[RequestCount = -4]", 0),
            ("[RequestCount = \"5\"]", 1),
            ("[RequestCount = N + 1; N = 1]", 2),
        ] {
            let ad = parse::classad(ad).expect("ad");
            assert_eq!(request_count(&ad, &EvalOptions::default()), want, "{ad:?}");
        }
    }
}
