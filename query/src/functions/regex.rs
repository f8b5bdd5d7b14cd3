//! Regular-expression functions: `regexp`, `regexpMember`, `regexps`, `replace`, `replaceAll`.
//!
//! Options are HTCondor's letters, lower case only: `i` (ignore case), `m` (multiline), `s`
//! (dot matches newline), `x` (extended), and for substitution `f` (return the whole target with
//! the replacement applied) and `g` (replace every match); others are ignored. A replacement
//! may refer to groups as `\0`…`\9`; a group number past the last group that took part in the
//! match is an error. Patterns are PCRE's, see [`super::pcre`].

use super::args::{arity, error_or_undefined, eval_all, str_arg};
use super::pcre::{compile, parse_options, Pattern};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("regexp", regexp),
    ("regexpMember", regexp_member),
    ("regexps", regexps),
    ("replace", replace),
    ("replaceAll", replace_all),
];

/// Evaluates `args` (the last, at index `options_at`, being optional options) and applies
/// HTCondor's checks: any error gives error, then any undefined gives undefined, then options
/// that are not a string give error. Returns the values and the option string.
fn checked<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    options_at: usize,
) -> Result<(Vec<Val<'a>>, &'a str), Val<'a>> {
    if !arity(args, options_at, options_at + 1) {
        return Err(Val::Error);
    }
    let vals = eval_all(ev, scope, args);
    if let Some(v) = error_or_undefined(&vals) {
        return Err(v);
    }
    let options = match vals.get(options_at) {
        None => "",
        Some(&v) => str_arg(v).ok_or(Val::Error)?,
    };
    Ok((vals, options))
}

/// `regexp(pattern, target [, options])`: whether the pattern matches somewhere in the target.
fn regexp<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let (vals, options) = match checked(ev, scope, args, 2) {
        Ok(x) => x,
        Err(v) => return v,
    };
    let (Some(pattern), Some(target)) = (str_arg(vals[0]), str_arg(vals[1])) else {
        return Val::Error;
    };
    if !ev.charge((pattern.len() + target.len()) as u64) {
        return Val::Error;
    }
    match compile(pattern, parse_options(options, false)) {
        Some(re) => Val::Bool(re.is_match(target.as_bytes())),
        None => Val::Error,
    }
}

/// `regexpMember(pattern, list [, options])`: whether any string of the list matches. An
/// undefined element makes a non-match undefined; any other non-string is an error. An invalid
/// pattern matches nothing (HTCondor does not report it here).
fn regexp_member<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let (vals, options) = match checked(ev, scope, args, 2) {
        Ok(x) => x,
        Err(v) => return v,
    };
    let (Some(pattern), Val::List(items)) = (str_arg(vals[0]), vals[1]) else {
        return Val::Error;
    };
    let re = compile(pattern, parse_options(options, false));
    let mut undefined = false;
    for &item in items {
        match item {
            Val::Str(s) => {
                if !ev.charge(s.len() as u64 + 1) {
                    return Val::Error;
                }
                if re.as_ref().is_some_and(|re| re.is_match(s.as_bytes())) {
                    return Val::Bool(true);
                }
            }
            Val::Undefined => undefined = true,
            _ => return Val::Error,
        }
    }
    if undefined {
        Val::Undefined
    } else {
        Val::Bool(false)
    }
}

/// Substitution: `extra` options are added to the caller's (`f` for `replace`, `fg` for
/// `replaceAll`).
fn substitute<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    extra: &str,
) -> Val<'a> {
    let (vals, options) = match checked(ev, scope, args, 3) {
        Ok(x) => x,
        Err(v) => return v,
    };
    let (Some(pattern), Some(target), Some(replacement)) =
        (str_arg(vals[0]), str_arg(vals[1]), str_arg(vals[2]))
    else {
        return Val::Error;
    };
    if !ev.charge((pattern.len() + target.len()) as u64) {
        return Val::Error;
    }
    let Some(re) = compile(pattern, parse_options(options, false)) else {
        return Val::Error;
    };
    let has = |c| options.contains(c) || extra.contains(c);
    match apply(
        ev,
        &re,
        target.as_bytes(),
        replacement.as_bytes(),
        has('f'),
        has('g'),
    ) {
        Some(out) => Val::Str(ev.alloc_str(&String::from_utf8_lossy(&out))),
        None => Val::Error,
    }
}

/// Runs HTCondor's substitution loop; `None` is an error (bad group reference, an empty match
/// at the very end in global mode — HTCondor's loop then reads past the subject — or the work
/// budget).
fn apply(
    ev: &mut Evaluator<'_>,
    pattern: &Pattern,
    hay: &[u8],
    replacement: &[u8],
    full: bool,
    global: bool,
) -> Option<Vec<u8>> {
    let re = pattern.for_subject(hay);
    // With `$` read as `\z` (subjects with inner newlines), a pattern that matches nowhere may
    // still match before the final newline, as PCRE's `$` does: try without it.
    let (hay, tail): (&[u8], &[u8]) = match hay.split_last() {
        Some((b'\n', body)) if pattern.end_is_strict(hay) && !re.is_match(hay) => (body, b"\n"),
        _ => (hay, b""),
    };
    let mut locs = re.capture_locations();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(m) = re.captures_read_at(&mut locs, hay, at) {
        let (start, end) = (m.start(), m.end());
        if full {
            out.extend_from_slice(&hay[at..start]);
        }
        expand(replacement, &locs, hay, &mut out)?;
        if !ev.charge((end - at + replacement.len() + 1) as u64) {
            return None;
        }
        at = end;
        if !global {
            break;
        }
        if start == end {
            // PCRE retries here for a non-empty match; the regex crate's preferred match at
            // this place is the empty one, so there is none: HTCondor copies one byte on.
            let &b = hay.get(at)?;
            out.push(b);
            at += 1;
        }
    }
    if full {
        out.extend_from_slice(&hay[at..]);
        out.extend_from_slice(tail);
    }
    Some(out)
}

/// Appends `replacement` with `\N` replaced by group `N`; a backslash before anything else is
/// kept. `None` when `N` is past the last group that took part.
fn expand(
    replacement: &[u8],
    locs: &regex::bytes::CaptureLocations,
    hay: &[u8],
    out: &mut Vec<u8>,
) -> Option<()> {
    let groups = (0..locs.len())
        .rev()
        .find(|&g| locs.get(g).is_some())
        .map_or(0, |g| g + 1);
    let mut i = 0;
    while i < replacement.len() {
        let c = replacement[i];
        match replacement.get(i + 1) {
            Some(d) if c == b'\\' && d.is_ascii_digit() => {
                let g = usize::from(d - b'0');
                if g >= groups {
                    return None;
                }
                if let Some((s, e)) = locs.get(g) {
                    out.extend_from_slice(&hay[s..e]);
                }
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(())
}

/// `regexps(pattern, target, replacement [, options])`.
fn regexps<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    substitute(ev, scope, args, "")
}

/// `replace(pattern, target, replacement [, options])`: the first match replaced.
fn replace<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    substitute(ev, scope, args, "f")
}

/// `replaceAll(pattern, target, replacement [, options])`: every match replaced.
fn replace_all<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    substitute(ev, scope, args, "fg")
}

#[cfg(test)]
mod tests {
    use crate::functions::testutil::{check, eval_with_budget};

    #[test]
    fn large_inputs_are_budgeted() {
        // A 1 MB subject built by replaceAll; then matched. Both fit a generous budget and fail
        // a small one.
        let big = r#"replaceAll("a", strcat(replaceAll("x", "xxxxxxxxxxxxxxxx", "aaaaaaaaaaaaaaaa")), "bb")"#;
        assert_eq!(eval_with_budget(&format!("size({big})"), 10_000_000), "512");
        assert_eq!(eval_with_budget(&format!("size({big})"), 300), "error");
        let many = r#"regexp("(x+x+)+y", substr(replaceAll("a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 0))"#;
        assert_eq!(eval_with_budget(many, 10_000_000), "false");
    }

    #[test]
    fn matching() {
        for (expr, want) in [
            (r#"regexp("a.c", "xabcx")"#, "true"),
            (r#"regexp("^a.c$", "xabcx")"#, "false"),
            (r#"regexp("A", "a", "i")"#, "true"),
            (r#"regexp("A", "a", "I")"#, "false"),
            (r#"regexp("a", "A", "zzz")"#, "false"),
            (r#"regexp("(", "a")"#, "error"),
            (r#"regexp("a", undefined)"#, "undefined"),
            (r#"regexp("a", "a", undefined)"#, "undefined"),
            (r#"regexp("a", error)"#, "error"),
            (r#"regexp(error, undefined)"#, "error"),
            (r#"regexp(undefined, error)"#, "error"),
            (r#"regexp("a", 1)"#, "error"),
            (r#"regexp("a", "a", 1)"#, "error"),
            (r#"regexp("a")"#, "error"),
            (r#"regexp("a", "b", "c", "d")"#, "error"),
            (r#"regexp("(a)\\1", "aa")"#, "error"),
            (r#"regexp("(a{1000}){1000}", "a")"#, "error"),
            (r#"regexp(".*.cs.wisc.edu", "beak.cs.wisc.edu")"#, "true"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn member_matching() {
        for (expr, want) in [
            (r#"regexpMember("a.", {"b", "ab"})"#, "true"),
            (r#"regexpMember("a.", {"b", "cd"})"#, "false"),
            (r#"regexpMember("a.", {})"#, "false"),
            (r#"regexpMember("a.", {"b", undefined})"#, "undefined"),
            (r#"regexpMember("a.", {undefined, "ab"})"#, "true"),
            (r#"regexpMember("a.", {1, "ab"})"#, "error"),
            (r#"regexpMember("a.", {"ab", 1})"#, "true"),
            (r#"regexpMember("A.", {"ab"}, "i")"#, "true"),
            (r#"regexpMember("a.", "ab")"#, "error"),
            (r#"regexpMember("a.", undefined)"#, "undefined"),
            (r#"regexpMember("(", {"ab"})"#, "false"),
            (r#"regexpMember("a.", {error})"#, "error"),
            (r#"regexpMember("a.", {x})"#, "undefined"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn substitution() {
        for (expr, want) in [
            (r#"regexps("a(b)c", "xabcx", "[\\1]")"#, r#""[b]""#),
            (r#"regexps("a(b)c", "xabcx", "[\\0]")"#, r#""[abc]""#),
            (r#"regexps("a(b)c", "xabcx", "[\\2]")"#, "error"),
            (r#"regexps("a(b)c", "xyz", "[\\1]")"#, r#""""#),
            (r#"regexps("a(b)c", "xabcx", "[\\1]", "f")"#, r#""x[b]x""#),
            (r#"regexps("a", "banana", "o", "g")"#, r#""ooo""#),
            (r#"regexps("a", "banana", "o", "fg")"#, r#""bonono""#),
            (r#"regexps("a", "banana", "o", "F")"#, r#""o""#),
            (r#"replace("a", "banana", "o")"#, r#""bonana""#),
            (r#"replaceAll("a", "banana", "o")"#, r#""bonono""#),
            (r#"replaceAll("A", "banana", "o", "i")"#, r#""bonono""#),
            (r#"replace("x", "banana", "o")"#, r#""banana""#),
            (r#"replaceAll("", "abc", "-")"#, "error"),
            (r#"replaceAll("x*", "abc", "-")"#, "error"),
            (r#"replaceAll("a*", "baa", "x")"#, "error"),
            (r#"replace("x*", "abc", "-")"#, r#""-abc""#),
            (r#"replace("(a)|(b)", "b", "[\\1]")"#, r#""[]""#),
            (r#"replace("(a)|(b)", "b", "[\\2]")"#, r#""[b]""#),
            (r#"replace("(a)|(b)", "a", "[\\2]")"#, "error"),
            (r#"replace("a", "a", "\\n")"#, r#""\\n""#),
            (r#"replace("a", "a", "x\\")"#, r#""x\\""#),
            (r#"replaceAll("^", "ab\ncd", "X", "m")"#, r#""Xab\nXcd""#),
            (r#"replaceAll("$", "ab\ncd", "X", "m")"#, "error"),
            (r#"replace("a", undefined, "x")"#, "undefined"),
            (r#"replace("a", "a", undefined)"#, "undefined"),
            (r#"replace("a", "a", 1)"#, "error"),
            (r#"replace("a", "a")"#, "error"),
            (r#"replace("(", "a", "b")"#, "error"),
            (r#"replace("a", "a", "b", 1)"#, "error"),
            (r#"replaceAll("a", "aaa", "\\0\\0")"#, r#""aaaaaa""#),
            (r#"replaceAll("(a)", "aaa", "\\1\\9")"#, "error"),
            (r#"replace("b$", "a\nb\n", "Y")"#, r#""a\nY\n""#),
            (r#"replace("ab\\Z", "ab\n", "Y")"#, r#""Y\n""#),
        ] {
            check(expr, want);
        }
    }
}
