//! Functions about evaluation itself: `ifThenElse`, `eval`, `unparse`, `evalInEachContext`,
//! `countMatches` and `debug` (fnCall.cpp `ifThenElse`, `eval`, `unparse`, `debug`;
//! compat_classad.cpp `evalInEachContext_func`), and the attribute dereference they share with
//! `unresolved`.
//!
//! Several of these look an attribute reference up without evaluating it, as HTCondor's
//! `AttributeReference::Deref` does; see [`deref`]. HTCondor's lookup moves the "current ad" of
//! the evaluation to wherever it stopped, and the functions then evaluate their other arguments
//! there — a quirk kept here because it shows in results (`evalInEachContext(x, {A})` with `x`
//! defined nowhere evaluates `A` from the outermost ad).

use super::args::{arity, eval_args};
use super::convert::to_string_val;
use super::pretty::pretty;
use super::Builtin;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::{bool_equiv, top_parent, Evaluator, Found};
use crate::value::{Scope, Val};
use bumpalo::collections::Vec as BumpVec;
use std::sync::LazyLock;

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("ifThenElse", if_then_else),
    ("eval", eval_fn),
    ("unparse", unparse),
    ("evalInEachContext", eval_in_each_context),
    ("countMatches", count_matches),
    ("debug", debug),
];

/// `ifThenElse(c, a, b)`: `a` when `c` is true or a non-zero number, `b` when false or zero;
/// `undefined` for an undefined `c`, `error` for anything else. Only the branch taken is
/// evaluated.
fn if_then_else<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 3, 3) {
        return Val::Error;
    }
    let c = ev.eval(&args[0], scope);
    match c {
        Val::Undefined => Val::Undefined,
        // Booleans and numbers only: HTCondor rejects strings, times and the rest.
        Val::Bool(_) | Val::Int(_) | Val::Real(_) => {
            let branch = if bool_equiv(&c) == Some(true) { 1 } else { 2 };
            ev.eval(&args[branch], scope)
        }
        _ => Val::Error,
    }
}

/// `eval(s)`: `s` converted to a string as `string()` does, parsed as an expression and
/// evaluated where the call is written. The evaluation's depth and work budgets bound the
/// recursion, and a reference back to the attribute being evaluated is `undefined` (so
/// `[a = eval("a")]` terminates, as in HTCondor).
fn eval_fn<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    let Val::Str(text) = to_string_val(ev, v) else {
        return Val::Error;
    };
    // Parsing costs work in proportion to the text.
    if !ev.charge(text.len() as u64) {
        return Val::Error;
    }
    match crate::parse::expr(text) {
        Ok(e) => {
            let e = ev.alloc_expr(e);
            ev.eval(e, scope)
        }
        Err(_) => Val::Error,
    }
}

/// `unparse(attr)`: the text of the expression bound to `attr` in the ad where the call is
/// written (that ad only; `""` when absent), unevaluated. The argument must be written as an
/// attribute reference; only a plain name can ever be found (HTCondor looks up the reference's
/// text, so `.a` and `MY.a` name no attribute).
fn unparse<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let text = match &args[0] {
        Expr::Attr(name) => match scope.ad.get_key(name.key()) {
            Some(e) => pretty(e),
            None => String::new(),
        },
        Expr::Root(_) | Expr::Select(..) => String::new(),
        _ => return Val::Error,
    };
    Val::Str(ev.alloc_str(&text))
}

/// `debug(e)`: the value of `e` (HTCondor also logs how it was computed).
fn debug<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    ev.eval(&args[0], scope)
}

/// What HTCondor's `AttributeReference::Deref` finds for an attribute reference.
#[derive(Copy, Clone)]
pub(super) enum Target<'a> {
    /// An attribute's expression and the scope of the ad holding it.
    Attr(&'a Expr, &'a Scope<'a>),
    /// A keyword naming an ad (`parent`, `root`, …): the ad itself.
    Ad(&'a Scope<'a>),
    /// `CurrentTime`.
    Time,
    /// `list.attr`: the selections from each element, already evaluated.
    Projected(Val<'a>),
    /// Nothing: the name is bound nowhere, or the reference's base is not an ad.
    Missing,
}

/// Dereferences `e` if it is an attribute reference (`a`, `.a`, `base.a`): what it names, and
/// the scope HTCondor's lookup leaves as the current ad — the ad holding the attribute, or the
/// last ad searched when it is bound nowhere, or `scope` when the lookup never started.
/// `None` when `e` is not an attribute reference.
pub(super) fn deref<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    e: &'a Expr,
) -> Option<(Target<'a>, &'a Scope<'a>)> {
    let (start, key) = match e {
        Expr::Attr(name) => {
            let key = name.key();
            let found = ev.lookup_in_scope(scope, key);
            // Under the old semantics a name missing from a top-level ad is sought in the other
            // ad of the match (HTCondor's alternateScope).
            if let Found::Undefined = found {
                let other = scope.other.get().filter(|_| ev.options().target_fallback);
                if let Some(o) = other {
                    return Some(match o.ad.get_key(key) {
                        Some(x) => (Target::Attr(x, o), o),
                        None => (Target::Missing, last_searched(ev, o)),
                    });
                }
                if ev.options().target_fallback && scope.parent.is_none() {
                    // Without a match to fall back to: in one, the name may be TARGET's.
                    ev.touch();
                }
            }
            return Some(resolved(ev, found, scope));
        }
        Expr::Root(name) => {
            let root = scope.root();
            if root.other.get().is_some() {
                // `.attr` in a match names an attribute of HTCondor's synthetic match ad.
                return Some((Target::Missing, last_searched(ev, scope)));
            }
            ev.touch();
            (root, name.key())
        }
        // `parent.x` in a top-level ad of a match: HTCondor's parent there is the match's
        // context ad of that side (`[ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT]`),
        // and a name it lacks is sought on up to the match ad, where the lookup ends.
        // Outside a match `parent` is undefined and the lookup never starts.
        Expr::Select(base, name) if top_parent(scope, base) => {
            // The lookup ends in the context ad: an ad's lookups from there reach neither ad.
            let here = match scope.other.get() {
                Some(_) => last_searched(ev, scope),
                None => scope,
            };
            return Some(match ev.match_context(scope, name.key()) {
                Val::Ad(s) => (Target::Ad(s), here),
                _ => (Target::Missing, here),
            });
        }
        Expr::Select(base, name) => match ev.eval(base, scope) {
            Val::Ad(s) => (s, name.key()),
            // A selection from a list projects each element; the current ad stays.
            Val::List(_) => return Some((Target::Projected(ev.eval(e, scope)), scope)),
            _ => return Some((Target::Missing, scope)),
        },
        _ => return None,
    };
    let found = ev.lookup_in_scope(start, key);
    Some(resolved(ev, found, start))
}

/// A lookup's result and the ad it left current (`start` for keywords, the last ad searched
/// when nothing was found: [`last_searched`]).
fn resolved<'a>(
    ev: &Evaluator<'a>,
    found: Found<'a>,
    start: &'a Scope<'a>,
) -> (Target<'a>, &'a Scope<'a>) {
    match found {
        Found::Attr(x, holder, _) => (Target::Attr(x, holder), holder),
        Found::Ad(s) => (Target::Ad(s), start),
        Found::Time => (Target::Time, start),
        Found::Undefined => (Target::Missing, last_searched(ev, start)),
    }
}

/// The ad HTCondor's lookup of a name bound nowhere leaves current, searching outwards from
/// `start`: the outermost ad of its chain — or, in a match, the match's own context ad above
/// both top-level ads (`MatchClassAd`), where neither ad's attributes, `MY` nor `TARGET` are
/// bound, so that what is evaluated there next is `undefined` (`countMatches(missing, list)`
/// is 0 in a match). adjoin has no such ad: an empty one stands in.
fn last_searched<'a>(ev: &Evaluator<'a>, start: &'a Scope<'a>) -> &'a Scope<'a> {
    static MATCH_CONTEXT: LazyLock<ClassAd> = LazyLock::new(ClassAd::new);
    let root = start.root();
    match root.other.get() {
        Some(_) => ev.scope(&MATCH_CONTEXT, None),
        None => {
            // In a match the search would end in the match's context instead.
            ev.touch();
            root
        }
    }
}

/// `evalInEachContext(expr, ads)`: `expr` evaluated in each ad of the list, as a list.
fn eval_in_each_context<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Val<'a> {
    each_context(ev, scope, args, false)
}

/// `countMatches(expr, ads)`: how many ads of the list `expr` is true (or a non-zero number)
/// in. Never `undefined`: an undefined list counts 0.
fn count_matches<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    each_context(ev, scope, args, true)
}

/// The shared body of `evalInEachContext` and `countMatches`. When `expr` is written as an
/// attribute reference that names an attribute, that attribute's expression is what gets
/// evaluated in each ad (so `countMatches(RequireGPUs, AvailableGPUs)` evaluates the job's
/// requirement inside each GPU ad); otherwise `expr` itself is. A list element that is not an
/// ad gives `undefined` (if undefined) or `error`.
fn each_context<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    count: bool,
) -> Val<'a> {
    if !arity(args, 2, 2) {
        return Val::Error;
    }
    let (subject, here) = match deref(ev, scope, &args[0]) {
        Some((Target::Attr(e, _), here)) => (Subject::Expr(e), here),
        Some((Target::Ad(s), here)) => (Subject::Value(Val::Ad(s)), here),
        Some((Target::Time, here)) => (Subject::Value(Val::Int(ev.now())), here),
        Some((Target::Projected(v), here)) => (Subject::Value(v), here),
        Some((Target::Missing, here)) => (Subject::Expr(&args[0]), here),
        None => (Subject::Expr(&args[0]), scope),
    };
    // A list written in place, or the list an attribute reference leads to, is taken element by
    // element (HTCondor's lists are lazy); anything else is evaluated first.
    let elements: &'a [Val<'a>] = match list_source(ev, &args[1], scope, here, 0) {
        Some((items, holder)) => {
            let mut out = BumpVec::with_capacity_in(items.len(), ev.bump());
            for item in items {
                // Names in an element resolve where the first argument's lookup left off; an ad
                // written in the list keeps its lexical parent, the ad holding the list.
                let at = match item {
                    Expr::Ad(_) => holder,
                    _ => here,
                };
                out.push(ev.eval(item, at));
            }
            out.into_bump_slice()
        }
        None => match ev.eval(&args[1], here) {
            Val::List(items) => items,
            Val::Undefined if count => return Val::Int(0),
            Val::Undefined => return Val::Undefined,
            _ => return Val::Error,
        },
    };
    let mut results = BumpVec::with_capacity_in(elements.len(), ev.bump());
    let mut matches = 0i64;
    for &element in elements {
        let r = match element {
            Val::Ad(ad) => match subject {
                Subject::Expr(e) => {
                    let ad = in_context(ev, ad);
                    ev.eval(e, ad)
                }
                Subject::Value(v) => v,
            },
            Val::Undefined => Val::Undefined,
            _ => Val::Error,
        };
        if count {
            matches += i64::from(bool_equiv(&r) == Some(true));
        } else {
            results.push(r);
        }
    }
    if count {
        Val::Int(matches)
    } else {
        Val::List(results.into_bump_slice())
    }
}

/// How many references [`list_source`] follows to a list (a cycle of references ends there).
const LIST_REFERENCES: u32 = 32;

/// The list expression `countMatches`/`evalInEachContext` take element by element, and the scope
/// of the ad it is written in: the list itself when written in place, else the list an attribute
/// reference names (through further references), looked up where `here` says, as HTCondor
/// evaluates the second argument there and gets the attribute's unevaluated `ExprList` back.
/// `None` when the argument is not such a list (it is then evaluated).
fn list_source<'a>(
    ev: &mut Evaluator<'a>,
    e: &'a Expr,
    lexical: &'a Scope<'a>,
    here: &'a Scope<'a>,
    depth: u32,
) -> Option<(&'a [Expr], &'a Scope<'a>)> {
    match e {
        Expr::List(items) => Some((items, lexical)),
        Expr::Paren(x) => list_source(ev, x, lexical, here, depth),
        Expr::Attr(_) | Expr::Root(_) | Expr::Select(..) if depth < LIST_REFERENCES => {
            match deref(ev, here, e)? {
                (Target::Attr(x, holder), _) => list_source(ev, x, holder, holder, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The scope `countMatches`/`evalInEachContext` evaluate in for an ad of their list. Under the
/// old semantics, in a match, HTCondor (compat_classad.cpp `evaluateInContext`) gives an ad
/// nested in one top-level ad of the match that ad's alternate scope — the other ad — so that
/// an unscoped name found neither in the nested ad nor around it is sought there
/// (`countMatches(RequireGPUs, AvailableGPUs)` with `RequireGPUs = Capability >= MinCap` reads
/// the job's `MinCap` from inside the slot's GPU ads).
fn in_context<'a>(ev: &mut Evaluator<'a>, ad: &'a Scope<'a>) -> &'a Scope<'a> {
    if ad.parent.is_none() || !ev.options().target_fallback {
        return ad;
    }
    match ad.root().other.get() {
        Some(alternate) => {
            let s = ev.scope(ad.ad, ad.parent);
            s.other.set(Some(alternate));
            s
        }
        None => {
            // Outside a match there is no alternate scope; in one, names could reach it.
            ev.touch();
            ad
        }
    }
}

/// What `evalInEachContext` evaluates in each ad.
#[derive(Copy, Clone)]
enum Subject<'a> {
    /// An expression, evaluated in each ad.
    Expr(&'a Expr),
    /// A value already known, the same in each ad.
    Value(Val<'a>),
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{check, check_in_match, check_in_old_match};

    // Expected values are HTCondor 25's (classad2).

    #[test]
    fn if_then_else() {
        for (expr, want) in [
            ("ifThenElse(true, 1, 2)", "1"),
            ("ifThenElse(false, 1, 2)", "2"),
            ("ifThenElse(1.5, 1, 2)", "1"),
            ("ifThenElse(0, 1, error)", "error"),
            ("ifThenElse(0.0, error, 2)", "2"),
            ("ifThenElse(undefined, 1, 2)", "undefined"),
            ("ifThenElse(error, 1, 2)", "error"),
            ("ifThenElse(\"true\", 1, 2)", "error"),
            ("ifThenElse({1}, 1, 2)", "error"),
            ("ifThenElse(relTime(1), 1, 2)", "error"),
            ("ifThenElse(true, 1)", "error"),
            ("ifThenElse(true, 1, 2, 3)", "error"),
            ("ifThenElse(true, undefined, 2)", "undefined"),
            ("ifThenElse(true, 1, 1/0)", "1"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn eval_strings() {
        for (expr, want) in [
            ("eval(\"1+2\")", "3"),
            ("eval(\"1+\")", "error"),
            ("eval(5)", "5"),
            ("eval(undefined)", "error"),
            ("eval(error)", "error"),
            ("eval(true)", "true"),
            ("eval(\"\")", "error"),
            ("eval(\"  3  \")", "3"),
            ("eval(\"1 2\")", "error"),
            ("eval(\"a = 1\")", "error"),
            ("eval(\"[a = 1]\")", "[ a = 1 ]"),
            ("eval(\"{1,2}\")", "{ 1,2 }"),
            ("eval({1})", "{ 1 }"),
            ("eval(absTime(0))", "error"),
            ("eval(\"[x=1].x\")", "1"),
            ("eval(\"1+2\", 3)", "error"),
            ("eval()", "error"),
            ("[a = 3; b = eval(\"a * 2\")].b", "6"),
            ("[a = eval(\"a\")].a", "undefined"),
            ("[a = eval(\"a + 1\")].a", "undefined"),
            ("[a = eval(\"b\"); b = eval(\"a\")].a", "undefined"),
            ("[a = 3; b = [a = 4; c = eval(\"a\")].c].b", "4"),
            ("[a = 3; b = [c = eval(\"a\")].c].b", "3"),
            ("[a = 3; b = eval(strcat(\"a\", \"+\", \"1\"))].b", "4"),
            // Unbounded self-expansion through text ends at the depth budget.
            ("[f = eval(strcat(\"1+\", unparse(f)))].f", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn unparse_attributes() {
        for (expr, want) in [
            ("[x = 1 + 2; y = unparse(x)].y", r#""1 + 2""#),
            ("[x = 1 + 2; y = unparse(X)].y", r#""1 + 2""#),
            ("[x = 1 + 2; y = unparse(x + 1)].y", "error"),
            ("[x = 1 + 2; y = unparse(z)].y", r#""""#),
            ("[x = 1 + 2; y = unparse(x, x)].y", "error"),
            ("[x = 1 + 2; y = unparse(.x)].y", r#""""#),
            ("[x = 1 + 2; y = unparse(MY.x)].y", r#""""#),
            ("[x = 1 + 2; y = [z = unparse(x)].z].y", r#""""#),
            ("[x = 1 + 2; y = unparse(\"x\")].y", "error"),
            ("[x = y; y = unparse(x)].y", r#""y""#),
            ("[x = 1; y = unparse(y)].y", r#""unparse(y)""#),
            ("[x = a ? b : c; y = unparse(x)].y", r#""a ? b : c""#),
            (
                "[x = -1.5e10 * (2+3); y = unparse(x)].y",
                r#""-1.500000000000000E+10 * (2 + 3)""#,
            ),
            (
                "[x = strcat(\"a\", b); y = unparse(x)].y",
                r#""strcat(\"a\",b)""#,
            ),
            ("[x = a =?= b; y = unparse(x)].y", r#""a is b""#),
            (
                "[x = TARGET.foo && MY.bar; y = unparse(x)].y",
                r#""TARGET.foo && MY.bar""#,
            ),
            (
                "[x = relTime(\"1:00\"); y = unparse(x)].y",
                r#""relTime(\"01:00\")""#,
            ),
            (
                "[x = [a=1;b={1,2}]; y = unparse(x)].y",
                r#""\n    [\n        a = 1; \n        b = \n           {\n              1,\n              2\n           }\n    ]""#,
            ),
            (
                "[x = {1, [a = 2], \"s\"}; y = unparse(x)].y",
                r#""\n   {\n      1,\n      \n          [\n              a = 2\n          ],\n      \"s\"\n   }""#,
            ),
            ("unparse()", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn each_context() {
        for (expr, want) in [
            ("evalInEachContext(Prio > 2, { [Prio=3;], [Prio=1;] })", "{ true,false }"),
            ("evalInEachContext(Prio, { [Prio=3;], [Prio=1;] })", "{ 3,1 }"),
            ("evalInEachContext(Prio > 2, { [Prio=3;], UNDEFINED })", "{ true,undefined }"),
            ("evalInEachContext(Prio > 2, { [Prio=3;], 5 })", "{ true,error }"),
            ("evalInEachContext(Prio > 2, UNDEFINED)", "undefined"),
            ("evalInEachContext(Prio > 2, 5)", "error"),
            ("evalInEachContext(Prio > 2, error)", "error"),
            ("evalInEachContext(Prio > 2, {})", "{  }"),
            ("evalInEachContext(Prio)", "error"),
            ("evalInEachContext(Prio, {[Prio=4]}, 1)", "error"),
            ("evalInEachContext(Prio, {[Prio=4], error})", "{ 4,error }"),
            ("evalInEachContext(Prio, {[Prio=error]})", "{ error }"),
            ("countMatches(Prio > 2, { [Prio=3;], [Prio=1;] })", "1"),
            ("countMatches(Prio > 2, { [Prio=3;], UNDEFINED })", "1"),
            ("countMatches(Prio > 2, UNDEFINED)", "0"),
            ("countMatches(Prio > 2, 5)", "error"),
            (
                "countMatches(Prio, { [Prio=3;], [Prio=1;], [Prio=0.0], [Prio=\"x\"], [Prio=true] })",
                "3",
            ),
            ("[L = { [Prio=3;], [Prio=1;] }; r = countMatches(Prio > 2, L)].r", "1"),
            ("[L = { [Prio=3;], [Prio=1;] }; E = Prio > 2; r = countMatches(E, L)].r", "1"),
            (
                "[L = { [Prio=3;], [Prio=1;] }; E = Prio > 2; r = evalInEachContext(E, L)].r",
                "{ true,false }",
            ),
            // A bound attribute's expression is what is evaluated in each ad.
            ("[L = { [Prio=3;], [Prio=1;] }; Prio = 7; r = evalInEachContext(Prio, L)].r", "{ 7,7 }"),
            ("[A = [Prio=3]; x = 10; r = evalInEachContext(Prio + x, {A})].r", "{ 13 }"),
            ("[x = 10; r = evalInEachContext(x, {[Prio=4]})].r", "{ 10 }"),
            ("[x = 10; r = evalInEachContext(y, {[Prio=4]})].r", "{ undefined }"),
            // An unbound name leaves the lookup in the outermost ad, where `A` is not found.
            ("[A = [Prio=3]; B = [Prio=1]; r = evalInEachContext(Prio, {A, B})].r", "{ undefined,undefined }"),
            ("[A = [Prio=3]; r = evalInEachContext(Prio, {A, [Prio=4]})].r", "{ undefined,4 }"),
            ("[A = [Prio=3]; L = {A}; r = evalInEachContext(Prio, L)].r", "undefined"),
            ("[A = [Prio=3]; r = countMatches(Prio == 3, {A})].r", "1"),
            ("[A = [Prio=3]; r = countMatches(Prio, {A})].r", "0"),
            ("[A = [Prio=3]; r = evalInEachContext((Prio), {A})].r", "{ 3 }"),
            ("[r = evalInEachContext({Prio,1}, {[Prio=4]})].r", "{ { 4,1 } }"),
        ] {
            check(expr, want);
        }
    }

    /// In a match, a name bound nowhere leaves HTCondor's lookup in the match's own context
    /// ad, where nothing of either ad is seen: the list is `undefined` there (classad2,
    /// `MatchClassAd` of the two ads, strict semantics).
    #[test]
    fn each_context_in_a_match() {
        let my = "[ a = 1; l = {1, 2}; zr = 0.0; s = \"x\"; n = [ x = 10 ] ]";
        let target = "[ tonly = 42; lst = {4, 5}; r = 1 ]";
        for (expr, want) in [
            ("countMatches(missing, zr)", "0"),
            ("countMatches(missing, l)", "0"),
            ("countMatches(missing, MY.s)", "0"),
            ("countMatches(tonly, zr)", "0"),
            ("countMatches(TARGET.missing, r)", "0"),
            ("countMatches(n.missing, l)", "0"),
            ("evalInEachContext(missing, l)", "undefined"),
            ("evalInEachContext(missing, a)", "undefined"),
            ("evalInEachContext(tonly, TARGET.lst)", "undefined"),
            ("evalInEachContext([].a0, a)", "undefined"),
            // Found: evaluated where found, as outside a match.
            ("countMatches(a, zr)", "error"),
            ("evalInEachContext(a, l)", "{ error,error }"),
            ("evalInEachContext(TARGET.tonly, lst)", "{ error,error }"),
            ("countMatches(missing, {[a0 = true]})", "0"),
            // A list written in place is taken as written.
            ("evalInEachContext(missing, {[missing = 3]})", "{ 3 }"),
        ] {
            check_in_match(my, target, expr, want);
        }
    }

    /// Under the old semantics an ad of the list, nested in one ad of the match, has the other
    /// ad as its alternate scope (compat_classad.cpp `evaluateInContext`): the job's `MinCap`
    /// is read from inside the slot's GPU ads. A list an attribute names is taken as written
    /// (HTCondor's lists are lazy): its references resolve where the first argument's lookup
    /// left off, its ads written in place keep their lexical parent. Values are classad2's.
    #[test]
    fn each_context_alternate_scope() {
        let job = "[ MinCap = 4; RequireGPUs = Capability >= MinCap; Ex = MinCap > 1; \
                   r1 = countMatches(RequireGPUs, AvailableGPUs); \
                   r2 = evalInEachContext(RequireGPUs, AvailableGPUs); \
                   r3 = evalInEachContext(MinCap + Capability, AvailableGPUs); \
                   r4 = countMatches(Capability >= MinCap, AvailableGPUs); \
                   r5 = evalInEachContext(TARGET.Name, AvailableGPUs); \
                   r6 = evalInEachContext(SlotOnly, AvailableGPUs); \
                   r7 = countMatches(Zed, {[MinCap = 1]}); r8 = evalInEachContext(Zed, {[a = 7]}); \
                   r9 = countMatches(.Ex, AvailableGPUs); r10 = evalInEachContext(.Ex, AvailableGPUs); \
                   r11 = evalInEachContext(parent.Nowhere, AvailableGPUs); \
                   r12 = evalInEachContext(parent.target.Name, AvailableGPUs); \
                   r13 = evalInEachContext(parent.my.MinCap, AvailableGPUs); \
                   r14 = evalInEachContext(parent.target, AvailableGPUs) ]";
        let slot = "[ Name = \"slot1\"; SlotOnly = 9; Zed = TARGET.MinCap; \
                    AvailableGPUs = { GPUs_a, GPUs_b }; \
                    GPUs_a = [ Capability = 5.0 ]; GPUs_b = [ Capability = 3.0 ] ]";
        for (expr, want) in [
            ("MY.r1", "1"),
            ("MY.r2", "{ true,false }"),
            ("MY.r3", "{ 9.000000000000000E+00,7.000000000000000E+00 }"),
            ("MY.r4", "1"),
            ("MY.r5", r#"{ "slot1","slot1" }"#),
            ("MY.r6", "{ 9,9 }"),
            ("MY.r7", "0"),
            ("MY.r8", "{ undefined }"),
            ("MY.r9", "0"),
            ("MY.r10", "undefined"),
            ("MY.r11", "undefined"),
            ("MY.r12", r#"{ "slot1","slot1" }"#),
            ("MY.r13", "{ 4,4 }"),
            ("MY.r14", "undefined"),
        ] {
            check_in_old_match(job, slot, expr, want);
        }
        // Strict semantics: no alternate scope, and the slot's list, named from the job, has
        // its references `GPUs_a`, `GPUs_b` looked up in the job.
        for (expr, want) in [
            ("MY.r1", "0"),
            ("countMatches(RequireGPUs, TARGET.AvailableGPUs)", "0"),
            (
                "evalInEachContext(Capability + 0, TARGET.AvailableGPUs)",
                "{ undefined }",
            ),
            (
                "evalInEachContext(Capability + 0, TARGET.L)",
                "{ 1,undefined }",
            ),
            ("evalInEachContext(MY.MinCap, TARGET.L)", "{ 4,undefined }"),
        ] {
            let slot = "[ AvailableGPUs = { GPUs_a }; GPUs_a = [ Capability = 5.0 ]; \
                        L = { [ Capability = 1 ], GPUs_a } ]";
            check_in_match(job, slot, expr, want);
        }
    }

    #[test]
    fn debug_is_identity() {
        for (expr, want) in [
            ("debug(1+2)", "3"),
            ("debug()", "error"),
            ("debug(1, 2)", "error"),
        ] {
            check(expr, want);
        }
    }
}
