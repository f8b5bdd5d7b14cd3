//! The functions HTCondor's daemons add to the ClassAd library (compat_classad.cpp) that are not
//! about string lists: `envV1ToV2`, `mergeEnvironment`, `listToArgs`, `argsToList`, `userHome`
//! and `userMap`. (The string-list ones are in `stringlist`.)
//!
//! `userHome` and `userMap` depend on the host: `userHome` reads the evaluation host's user
//! database (`/etc/passwd` on the real machine, as `getpwnam` reads it); `userMap` maps through
//! the mapfiles HTCondor's
//! configuration names, and no configuration is read here, so it behaves as HTCondor with none
//! configured — every lookup misses — which is what the oracle shows in a bare environment.

use super::args::{arity, eval_all};
use super::argv::{join_v1, join_v2, split_v1, split_v2, Env};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("envV1ToV2", env_v1_to_v2),
    ("mergeEnvironment", merge_environment),
    ("listToArgs", list_to_args),
    ("argsToList", args_to_list),
    ("userHome", user_home),
    ("userMap", user_map),
];

/// `envV1ToV2(env)`: a V1 environment string in V2 syntax; `undefined` stays so.
fn env_v1_to_v2<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    match ev.eval(&args[0], scope) {
        Val::Undefined => Val::Undefined,
        Val::Str(text) => {
            let mut env = Env::default();
            if env.merge_v1_auto(text) {
                Val::Str(ev.alloc_str(&env.to_v2()))
            } else {
                Val::Error
            }
        }
        _ => Val::Error,
    }
}

/// `mergeEnvironment(env…)`: V2 environments merged left to right (later values win), undefined
/// arguments skipped.
fn merge_environment<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Val<'a> {
    let mut env = Env::default();
    for arg in args {
        match ev.eval(arg, scope) {
            Val::Undefined => {}
            Val::Str(text) if env.merge_v2(text) => {}
            _ => return Val::Error,
        }
    }
    Val::Str(ev.alloc_str(&env.to_v2()))
}

/// The optional argument-syntax version (1 or 2, default 2) of `argsToList` / `listToArgs`,
/// `None` when it is anything else.
fn syntax_version<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    arg: Option<&'a Expr>,
) -> Option<i64> {
    match arg.map(|a| ev.eval(a, scope)) {
        None => Some(2),
        Some(Val::Int(v @ (1 | 2))) => Some(v),
        Some(_) => None,
    }
}

/// `argsToList(args [, version])`: an argument string split into a list of strings.
fn args_to_list<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let Some(version) = syntax_version(ev, scope, args.get(1)) else {
        return Val::Error;
    };
    let Val::Str(text) = ev.eval(&args[0], scope) else {
        return Val::Error;
    };
    let parts = if version == 1 {
        split_v1(text)
    } else {
        match split_v2(text) {
            Some(parts) => parts,
            None => return Val::Error,
        }
    };
    let items: Vec<Val<'a>> = parts.iter().map(|p| Val::Str(ev.alloc_str(p))).collect();
    Val::List(ev.alloc_list(&items))
}

/// `listToArgs(list [, version])`: a list of strings joined into an argument string.
fn list_to_args<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let Some(version) = syntax_version(ev, scope, args.get(1)) else {
        return Val::Error;
    };
    let Val::List(items) = ev.eval(&args[0], scope) else {
        return Val::Error;
    };
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Val::Str(s) => parts.push(*s),
            _ => return Val::Error,
        }
    }
    let text = if version == 1 {
        match join_v1(&parts) {
            Some(t) => t,
            None => return Val::Error,
        }
    } else {
        join_v2(&parts)
    };
    Val::Str(ev.alloc_str(&text))
}

/// `userHome(user [, default])`: the user's home directory. A missing user (or an undefined
/// name) gives the default when it is a non-empty string, else `undefined`; a name that is not
/// a string gives the default, else `error`.
fn user_home<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let default = match args.get(1).map(|a| ev.eval(a, scope)) {
        Some(Val::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    let user = ev.eval(&args[0], scope);
    // The answer depends on the host, not only on the ads.
    ev.touch();
    let fallback = |missing: Val<'a>| default.map_or(missing, Val::Str);
    match user {
        Val::Undefined => fallback(Val::Undefined),
        Val::Str(name) => match ev.home_of(name) {
            Some(home) => Val::Str(ev.alloc_str(&home)),
            None => fallback(Val::Undefined),
        },
        _ => fallback(Val::Error),
    }
}

/// `userMap(map, user [, preferred [, default]])`: the groups `user` maps to in `map`. No map is
/// configured, so a lookup always misses: `error` if `map` or `user` is an error, else the
/// default when one is given (whatever its value), else `undefined`.
fn user_map<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 4) {
        return Val::Error;
    }
    let vals = eval_all(ev, scope, args);
    if vals[0].is_error() || vals[1].is_error() {
        return Val::Error;
    }
    vals.get(3).copied().unwrap_or(Val::Undefined)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::check;

    // Expected values are HTCondor 25's (classad2, compat functions registered, bare config).

    #[test]
    fn environments() {
        for (expr, want) in [
            (r#"envV1ToV2("a=b;c=d")"#, r#""a=b c=d""#),
            (r#"envV1ToV2("a=b c;d=e f")"#, r#""a=b' 'c d=e' 'f""#),
            (r#"envV1ToV2("x")"#, "error"),
            (r#"envV1ToV2("")"#, r#""""#),
            ("envV1ToV2(undefined)", "undefined"),
            ("envV1ToV2(5)", "error"),
            ("envV1ToV2(error)", "error"),
            ("envV1ToV2()", "error"),
            (r#"envV1ToV2("a", "b")"#, "error"),
            (r#"mergeEnvironment("b=1 a=2 c=3")"#, r#""a=2 b=1 c=3""#),
            (r#"mergeEnvironment("a=1", "b=2", "a=3")"#, r#""a=3 b=2""#),
            (
                r#"mergeEnvironment("a=1", undefined, "b=2")"#,
                r#""a=1 b=2""#,
            ),
            (r#"mergeEnvironment("a=1", 5)"#, "error"),
            (r#"mergeEnvironment("a=1", error)"#, "error"),
            ("mergeEnvironment()", r#""""#),
            (r#"mergeEnvironment("a=\"x y\"")"#, "error"),
            (r#"mergeEnvironment("=x")"#, "error"),
            (
                r#"mergeEnvironment(envV1ToV2("a=1;b=2"), "b=3")"#,
                r#""a=1 b=3""#,
            ),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn arguments() {
        for (expr, want) in [
            (r#"argsToList("a b  c")"#, r#"{ "a","b","c" }"#),
            (
                r#"argsToList("'a b' c''d 'e''f'")"#,
                r#"{ "a b","cd","e'f" }"#,
            ),
            (r#"argsToList("a 'b")"#, "error"),
            (r#"argsToList("")"#, "{  }"),
            (r#"argsToList("''")"#, r#"{ "" }"#),
            (r#"argsToList("a 'b c'", 1)"#, r#"{ "a","'b","c'" }"#),
            (r#"argsToList("a b", 2)"#, r#"{ "a","b" }"#),
            (r#"argsToList("a b", 3)"#, "error"),
            (r#"argsToList("a b", "1")"#, "error"),
            (r#"argsToList("a b", 1.0)"#, "error"),
            (r#"argsToList("a b", undefined)"#, "error"),
            ("argsToList(undefined)", "error"),
            ("argsToList(5)", "error"),
            ("argsToList()", "error"),
            (r#"argsToList("a", 1, 2)"#, "error"),
            (
                r#"listToArgs({"a", "b c", "", "d'e", "f"})"#,
                r#""a b' 'c '' d''''e f""#,
            ),
            (r#"listToArgs({"a b"}, 1)"#, "error"),
            (r#"listToArgs({"ab", "c"}, 1)"#, r#""ab c""#),
            (r#"listToArgs({"a", 5})"#, "error"),
            (r#"listToArgs({"a", undefined})"#, "error"),
            ("listToArgs({})", r#""""#),
            ("listToArgs(undefined)", "error"),
            (r#"listToArgs("a b")"#, "error"),
            (r#"listToArgs({"a"}, 3)"#, "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn user_functions() {
        for (expr, want) in [
            (r#"userHome("nosuchuserxyz")"#, "undefined"),
            (r#"userHome("nosuchuserxyz", "dflt")"#, r#""dflt""#),
            (r#"userHome("nosuchuserxyz", "")"#, "undefined"),
            ("userHome(undefined)", "undefined"),
            (r#"userHome(undefined, "d")"#, r#""d""#),
            ("userHome(5)", "error"),
            (r#"userHome(5, "d")"#, r#""d""#),
            ("userHome(error)", "error"),
            ("userHome()", "error"),
            (r#"userHome("a", "b", "c")"#, "error"),
            (r#"userMap("a", "b")"#, "undefined"),
            (r#"userMap("a", "b", "c")"#, "undefined"),
            (r#"userMap("a", "b", "c", "d")"#, r#""d""#),
            (r#"userMap(1, "b", "c", "d")"#, r#""d""#),
            (r#"userMap(error, "b")"#, "error"),
            (r#"userMap(1, "b")"#, "undefined"),
            (r#"userMap("a")"#, "error"),
            (r#"userMap("a", undefined, "c", 7)"#, "7"),
        ] {
            check(expr, want);
        }
    }

    #[cfg(unix)]
    #[test]
    fn home_of_root() {
        // Every Unix system this runs on has root in /etc/passwd.
        use crate::eval::host::{Host, System};
        let home = System.home_of("root");
        assert!(
            home.as_deref().is_some_and(|h| h.starts_with('/')),
            "{home:?}"
        );
    }
}
