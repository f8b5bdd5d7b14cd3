//! The request's Requirements as conditions: split into top-level conjuncts (`a && b && c`),
//! following references into the request itself (`Requirements = MyReq && …` splits `MyReq`
//! too) and inlining the request's literal attributes for readability (`TARGET.Memory >=
//! RequestMemory` prints as `TARGET.Memory >= 2048`). Each condition is evaluated as written
//! in the request, so the conjunction of the conditions is true for exactly the offers the
//! Requirements are true for. Circular references and conditions that can never be boolean are
//! refused with a clear message.

use super::AnalyzeError;
use adjoin_query::ast::{BinOp, Expr, UnOp};
use adjoin_query::eval::{requirements_key, EvalOptions};
use adjoin_query::name::kw;
use adjoin_query::{ClassAd, Key, Name, Value};

/// Deepest nesting followed while splitting and checking references.
const MAX_DEPTH: u32 = 200;

/// One condition: a conjunct of the Requirements, evaluated with the request as MY.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// The conjunct, with the request's literal attributes inlined.
    pub expr: Expr,
    /// How it prints.
    pub text: String,
    /// The comparison `attr op literal` it is, if it is one (for modifications and value
    /// conflicts).
    pub simple: Option<Simple>,
}

/// A condition that compares one attribute of the offer with a literal.
#[derive(Clone, Debug, PartialEq)]
pub struct Simple {
    /// How the offer's attribute is referenced (`TARGET.Memory`, or `Memory` read through
    /// the TARGET fallback).
    pub reference: Expr,
    /// The attribute, case-folded.
    pub attr: Key,
    /// The operator, the attribute on its left.
    pub op: BinOp,
    /// The literal.
    pub value: Value,
}

/// Whether `k` is one of the scope keywords.
pub(crate) fn is_scope(k: Key) -> bool {
    [
        kw::SELF,
        kw::MY,
        kw::TARGET,
        kw::OTHER,
        kw::PARENT,
        kw::ROOT,
        kw::TOPLEVEL,
    ]
    .contains(&k)
}

/// The attribute of `ad` that `e` references as MY, if `e` is such a reference and `ad` has it.
fn own_ref(e: &Expr, ad: &ClassAd) -> Option<Name> {
    let n = match e {
        Expr::Attr(n) if !is_scope(n.key()) => *n,
        Expr::Select(base, n) => match base.unparen() {
            Expr::Attr(s) if s.key() == kw::MY || s.key() == kw::SELF => *n,
            _ => return None,
        },
        _ => return None,
    };
    ad.get_key(n.key()).map(|_| n)
}

/// The offer's attribute `e` reads, when `e` is `TARGET.a` / `other.a`, or a bare `a` the
/// request lacks (read from TARGET through the fallback when `fallback` is on).
pub(crate) fn target_ref(e: &Expr, request: &ClassAd, fallback: bool) -> Option<Key> {
    match e.unparen() {
        Expr::Select(base, n) => match base.unparen() {
            Expr::Attr(s) if s.key() == kw::TARGET || s.key() == kw::OTHER => Some(n.key()),
            _ => None,
        },
        Expr::Attr(n) if fallback && !is_scope(n.key()) && request.get_key(n.key()).is_none() => {
            Some(n.key())
        }
        _ => None,
    }
}

/// The direct subexpressions of `e`.
pub(crate) fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) | Expr::Ad(_) => Vec::new(),
        Expr::Select(b, _) | Expr::Unary(_, b) | Expr::Paren(b) => vec![b],
        Expr::Index(p) | Expr::Binary(_, p) | Expr::Elvis(p) => vec![&p.0, &p.1],
        Expr::Cond(t) => vec![&t.0, &t.1, &t.2],
        Expr::Call(_, args) | Expr::List(args) | Expr::Chain(_, args) => args.iter().collect(),
    }
}

/// The request's Requirements split into conditions; an error names `id` when there are no
/// Requirements, they reach a circular reference, or a condition can never be boolean.
pub fn split_requirements(
    id: &str,
    request: &ClassAd,
    opts: &EvalOptions,
) -> Result<Vec<Condition>, super::AnalyzeError> {
    let key = requirements_key(request)
        .ok_or_else(|| AnalyzeError::NoRequirements { id: id.to_owned() })?;
    let req = request
        .get_key(key)
        .ok_or_else(|| AnalyzeError::NoRequirements { id: id.to_owned() })?;
    let mut path = vec![Name::new(key.as_str())];
    check_cycles(id, req, request, &mut path, 0)?;
    let mut out = Vec::new();
    split(id, req, request, &mut out, 0)?;
    out.into_iter()
        .map(|e| {
            let expr = inline(&e, request, 0);
            if !may_be_boolean(&expr) {
                return Err(AnalyzeError::NotBoolean {
                    id: id.to_owned(),
                    condition: expr.to_string(),
                });
            }
            Ok(condition(expr, request, opts.target_fallback))
        })
        .collect()
}

/// A condition of `expr`.
pub(crate) fn condition(expr: Expr, request: &ClassAd, fallback: bool) -> Condition {
    Condition {
        text: expr.to_string(),
        simple: simple(&expr, request, fallback),
        expr,
    }
}

/// Follows the request's own references from `e`, failing on one that leads back to an
/// attribute on `path`.
fn check_cycles(
    id: &str,
    e: &Expr,
    request: &ClassAd,
    path: &mut Vec<Name>,
    depth: u32,
) -> Result<(), AnalyzeError> {
    if depth > MAX_DEPTH {
        return Err(AnalyzeError::TooDeep { id: id.to_owned() });
    }
    if let Some(n) = own_ref(e, request) {
        if let Some(at) = path.iter().position(|p| p.key() == n.key()) {
            let mut cycle: Vec<String> = path[at..].iter().map(|p| p.as_str().to_owned()).collect();
            cycle.push(n.as_str().to_owned());
            return Err(AnalyzeError::Circular {
                id: id.to_owned(),
                cycle,
            });
        }
        if let Some(body) = request.get_key(n.key()) {
            path.push(n);
            check_cycles(id, body, request, path, depth + 1)?;
            path.pop();
        }
        return Ok(());
    }
    for c in children(e) {
        check_cycles(id, c, request, path, depth + 1)?;
    }
    Ok(())
}

/// Splits `e` at its top-level `&&`s, following the request's own references.
fn split(
    id: &str,
    e: &Expr,
    request: &ClassAd,
    out: &mut Vec<Expr>,
    depth: u32,
) -> Result<(), AnalyzeError> {
    if depth > MAX_DEPTH {
        return Err(AnalyzeError::TooDeep { id: id.to_owned() });
    }
    if let Some(terms) = e.unparen().operands_of(BinOp::And) {
        for t in terms {
            split(id, t, request, out, depth + 1)?;
        }
        return Ok(());
    }
    let inner = e.unparen();
    match own_ref(inner, request).and_then(|n| request.get_key(n.key())) {
        // A reference to a conjunction in the request: its parts are conditions.
        Some(body) if body.unparen().operands_of(BinOp::And).is_some() => {
            split(id, body, request, out, depth + 1)
        }
        _ => {
            out.push(inner.clone());
            Ok(())
        }
    }
}

/// `e` with the request's literal attributes written in place of references to them.
fn inline(e: &Expr, request: &ClassAd, depth: u32) -> Expr {
    if depth > MAX_DEPTH {
        return e.clone();
    }
    if let Some(n) = own_ref(e, request) {
        return match request.get_key(n.key()).map(Expr::unparen) {
            Some(Expr::Lit(v)) if !matches!(v, Value::Ad(_)) => Expr::Lit(v.clone()),
            _ => e.clone(),
        };
    }
    let d = depth + 1;
    match e {
        Expr::Select(b, n) => Expr::Select(Box::new(inline_base(b, request, d)), *n),
        Expr::Unary(op, b) => Expr::Unary(*op, Box::new(inline(b, request, d))),
        Expr::Paren(b) => Expr::Paren(Box::new(inline(b, request, d))),
        Expr::Binary(op, p) => {
            Expr::binary(*op, inline(&p.0, request, d), inline(&p.1, request, d))
        }
        Expr::Elvis(p) => Expr::Elvis(Box::new((
            inline(&p.0, request, d),
            inline(&p.1, request, d),
        ))),
        Expr::Index(p) => Expr::Index(Box::new((
            inline(&p.0, request, d),
            inline(&p.1, request, d),
        ))),
        Expr::Cond(t) => Expr::Cond(Box::new((
            inline(&t.0, request, d),
            inline(&t.1, request, d),
            inline(&t.2, request, d),
        ))),
        // Some functions read their arguments' form (unparse) or names (eval): left whole.
        Expr::Call(name, args) if !inspects_form(*name) => {
            Expr::Call(*name, args.iter().map(|a| inline(a, request, d)).collect())
        }
        Expr::List(items) => Expr::List(items.iter().map(|a| inline(a, request, d)).collect()),
        Expr::Chain(op, items) => match items.split_first() {
            Some((first, rest)) => Expr::fold(
                *op,
                inline(first, request, d),
                rest.iter().map(|a| inline(a, request, d)),
            ),
            None => e.clone(),
        },
        _ => e.clone(),
    }
}

/// The base of a selection: a scope keyword stays, anything else is inlined.
fn inline_base(b: &Expr, request: &ClassAd, depth: u32) -> Expr {
    match b.unparen() {
        Expr::Attr(s) if is_scope(s.key()) => b.clone(),
        _ => inline(b, request, depth),
    }
}

/// Functions whose result depends on how their arguments are written.
fn inspects_form(name: Name) -> bool {
    let n = name.as_str().to_ascii_lowercase();
    matches!(n.as_str(), "unparse" | "eval" | "unresolved" | "debug")
}

/// False when `e` can never be a boolean (a string, list, ad or absolute-time literal; a
/// relative-time literal reads as a real).
fn may_be_boolean(e: &Expr) -> bool {
    match e.unparen() {
        Expr::Lit(v) => matches!(
            *v.as_evaluated(),
            Value::Bool(_) | Value::Int(_) | Value::Real(_) | Value::Undefined | Value::Error
        ),
        Expr::List(_) | Expr::Ad(_) => false,
        _ => true,
    }
}

/// The comparison `attr op literal` that `e` is, if it is one.
fn simple(e: &Expr, request: &ClassAd, fallback: bool) -> Option<Simple> {
    let Expr::Binary(op, p) = e.unparen() else {
        return None;
    };
    let lit = |x: &Expr| match x.unparen() {
        Expr::Lit(v @ (Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_))) => {
            Some(v.clone())
        }
        Expr::Unary(UnOp::Neg, inner) => match inner.unparen() {
            Expr::Lit(Value::Int(i)) => Some(Value::Int(i.wrapping_neg())),
            Expr::Lit(Value::Real(r)) => Some(Value::Real(-r)),
            _ => None,
        },
        _ => None,
    };
    let flip = |op: BinOp| match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    };
    if !matches!(
        op,
        BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Eq
            | BinOp::Ne
            | BinOp::Is
            | BinOp::Isnt
    ) {
        return None;
    }
    let (l, r) = (&p.0, &p.1);
    if let (Some(attr), Some(value)) = (target_ref(l, request, fallback), lit(r)) {
        return Some(Simple {
            reference: l.unparen().clone(),
            attr,
            op: *op,
            value,
        });
    }
    if let (Some(value), Some(attr)) = (lit(l), target_ref(r, request, fallback)) {
        return Some(Simple {
            reference: r.unparen().clone(),
            attr,
            op: flip(*op),
            value,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn texts(ad: &str) -> Result<Vec<String>, String> {
        let ad = parse::classad(ad).map_err(|e| e.to_string())?;
        split_requirements("r", &ad, &EvalOptions::default())
            .map(|cs| cs.into_iter().map(|c| c.text).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn splits_and_inlines() {
        let ok: &[(&str, &[&str])] = &[
            ("[Requirements = TARGET.Memory >= 2048]", &["TARGET.Memory >= 2048"]),
            (
                "[RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == \"X86_64\"]",
                &["TARGET.Memory >= 2048", "TARGET.Arch == \"X86_64\""],
            ),
            (
                "[MyReq = a > 1 && b < 2; Requirements = (MyReq) && c]",
                &["a > 1", "b < 2", "c"],
            ),
            ("[Requirements = a || b]", &["a || b"]),
            ("[Requirements = true]", &["true"]),
            ("[Constraint = x == 1 && y == 2]", &["x == 1", "y == 2"]),
            ("[N = 3; Requirements = MY.N < TARGET.Cpus]", &["3 < TARGET.Cpus"]),
        ];
        for (ad, want) in ok {
            let want: Vec<String> = want.iter().map(|w| w.to_string()).collect();
            assert_eq!(texts(ad), Ok(want), "{ad}");
        }
    }

    #[test]
    fn refuses_bad_requirements() {
        let bad: &[(&str, &str)] = &[
            ("[Memory = 1]", "no Requirements"),
            ("[Requirements = \"yes\"]", "not a boolean"),
            ("[Requirements = x && {1, 2}]", "not a boolean"),
            (
                "[A = B; B = A; Requirements = A]",
                "circular reference: A -> B -> A",
            ),
            ("[Requirements = Requirements && x]", "circular reference"),
            (
                "[A = B + 1 > 0; B = A; Requirements = A && c]",
                "circular reference",
            ),
        ];
        for (ad, want) in bad {
            let got = texts(ad).expect_err(ad);
            assert!(got.contains(want), "{ad}: {got}");
        }
    }

    #[test]
    fn simple_comparisons() {
        let ad = parse::classad("[Mem = 5; Requirements = TARGET.Memory >= 10 && 4 < Cpus && Mem > 2 && OpSys != \"LINUX\" && f(TARGET.x)]")
            .expect("ad");
        let cs = split_requirements("r", &ad, &EvalOptions::default()).expect("split");
        let got: Vec<Option<(String, BinOp, String)>> = cs
            .iter()
            .map(|c| {
                c.simple
                    .as_ref()
                    .map(|s| (s.attr.as_str().to_owned(), s.op, s.value.to_string()))
            })
            .collect();
        assert_eq!(
            got,
            vec![
                Some(("memory".into(), BinOp::Ge, "10".into())),
                Some(("cpus".into(), BinOp::Gt, "4".into())),
                None,
                Some(("opsys".into(), BinOp::Ne, "\"LINUX\"".into())),
                None,
            ]
        );
    }
}
