//! String lists — lists written as one string, `"a, b, c"` — and splitting strings into lists:
//! the `stringList*` family, `stringListsIntersect`, `split`, `splitUserName`, `splitSlotName`.
//!
//! A delimiter argument is a set of characters. Items are what lies between delimiters, trimmed
//! of white space, empty ones dropped. The default delimiters differ by function, as in
//! HTCondor: `", "` for size/sum/avg/min/max/regexpMember, `", \t\r\n"` for member and subset
//! match, `" ,"` (and no trimming) for `stringListsIntersect`, `", \t"` for `split`.

use super::args::{arity, eval_all, eval_args, str_arg};
use super::convert::{is_c_space, real_to_int, strtod};
use super::pcre::{compile, parse_options};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};
use rustc_hash::FxHashSet;

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("stringListSize", size),
    ("stringListSum", sum),
    ("stringListAvg", avg),
    ("stringListMin", min),
    ("stringListMax", max),
    ("stringListMember", member),
    ("stringListIMember", imember),
    ("stringListSubsetMatch", subset_match),
    ("stringListISubsetMatch", isubset_match),
    ("stringListsIntersect", intersect),
    ("stringList_regexpMember", regexp_member),
    ("split", split),
    ("splitUserName", split_user_name),
    ("splitSlotName", split_slot_name),
];

const SUMMARY_DELIMS: &str = ", ";
const MEMBER_DELIMS: &str = ", \t\r\n";

/// The items of `list`: split at any character of `delims`, trimmed, empty items dropped. With
/// no delimiters the whole (trimmed) string is the one item.
fn items<'s>(list: &'s str, delims: &'s str) -> impl Iterator<Item = &'s str> + 's {
    list.split(move |c| delims.contains(c))
        .map(|s| s.trim_matches(|c: char| c.is_ascii() && is_c_space(c as u8)))
        .filter(|s| !s.is_empty())
}

/// Evaluates `(list [, delims])` with every argument required to be a string.
fn list_and_delims<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Option<(&'a str, &'a str)> {
    if !arity(args, 1, 2) {
        return None;
    }
    let vals = eval_all(ev, scope, args);
    let list = str_arg(vals[0])?;
    let delims = match vals.get(1) {
        Some(&d) => str_arg(d)?,
        None => SUMMARY_DELIMS,
    };
    ev.charge(list.len() as u64).then_some((list, delims))
}

fn size<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    match list_and_delims(ev, scope, args) {
        Some((list, delims)) => Val::Int(items(list, delims).count() as i64),
        None => Val::Error,
    }
}

/// How the items of a numeric string list are combined.
#[derive(Copy, Clone, PartialEq)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

/// HTCondor's numeric summary: items read with `%lf` (so `1abc` reads 1); the result is a real
/// if any item has a character other than `+-0123456789`, else the (truncated) integer. Sum
/// and average of no items are `0.0`, min and max `undefined`. Min and max start from
/// `FLT_MAX` / `FLT_MIN` (the smallest positive float), as HTCondor does — so the max of
/// negative numbers is `0` (or `1.175494350822288E-38` when real).
fn summarize<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    how: Summary,
) -> Val<'a> {
    let Some((list, delims)) = list_and_delims(ev, scope, args) else {
        return Val::Error;
    };
    let mut acc = match how {
        Summary::Sum | Summary::Avg => 0.0,
        Summary::Min => f64::from(f32::MAX),
        Summary::Max => f64::from(f32::MIN_POSITIVE),
    };
    let mut count = 0usize;
    let mut real = false;
    for item in items(list, delims) {
        let Some(v) = strtod(item) else {
            return Val::Error;
        };
        real |= item.bytes().any(|c| !b"+-0123456789".contains(&c));
        acc = match how {
            Summary::Sum | Summary::Avg => v + acc,
            Summary::Min => {
                if v < acc {
                    v
                } else {
                    acc
                }
            }
            Summary::Max => {
                if v > acc {
                    v
                } else {
                    acc
                }
            }
        };
        count += 1;
    }
    if count == 0 {
        return match how {
            Summary::Sum | Summary::Avg => Val::Real(0.0),
            Summary::Min | Summary::Max => Val::Undefined,
        };
    }
    if how == Summary::Avg {
        acc /= count as f64;
    }
    if real {
        Val::Real(acc)
    } else {
        Val::Int(real_to_int(acc))
    }
}

fn sum<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    summarize(ev, scope, args, Summary::Sum)
}

fn avg<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    summarize(ev, scope, args, Summary::Avg)
}

fn min<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    summarize(ev, scope, args, Summary::Min)
}

fn max<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    summarize(ev, scope, args, Summary::Max)
}

/// The two leading string-or-undefined arguments and the delimiters of member / subset
/// functions, or their result when checking decides it: any error argument is an error, a
/// value that is neither a string nor undefined (or a non-string delimiter) is an error.
/// Undefined delimiters mean the default.
fn two_lists<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Result<(Option<&'a str>, Option<&'a str>, &'a str), Val<'a>> {
    if !arity(args, 2, 3) {
        return Err(Val::Error);
    }
    let vals = eval_all(ev, scope, args);
    if vals.iter().any(Val::is_error) {
        return Err(Val::Error);
    }
    let text = |v: Val<'a>| match v {
        Val::Str(s) => Ok(Some(s)),
        Val::Undefined => Ok(None),
        _ => Err(Val::Error),
    };
    let (a, b) = (text(vals[0])?, text(vals[1])?);
    let delims = match vals.get(2) {
        Some(&d) => text(d)?.unwrap_or(MEMBER_DELIMS),
        None => MEMBER_DELIMS,
    };
    let work = a.map_or(0, str::len) + b.map_or(0, str::len);
    if !ev.charge(work as u64) {
        return Err(Val::Error);
    }
    Ok((a, b, delims))
}

/// `stringListMember(x, list [, delims])` (`ignore_case` for `stringListIMember`): false when
/// one of `x`, `list` is undefined, undefined when both are.
fn membership<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    ignore_case: bool,
) -> Val<'a> {
    match two_lists(ev, scope, args) {
        Err(v) => v,
        Ok((None, None, _)) => Val::Undefined,
        Ok((Some(x), Some(list), delims)) => Val::Bool(items(list, delims).any(|item| {
            if ignore_case {
                item.eq_ignore_ascii_case(x)
            } else {
                item == x
            }
        })),
        Ok(_) => Val::Bool(false),
    }
}

fn member<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    membership(ev, scope, args, false)
}

fn imember<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    membership(ev, scope, args, true)
}

/// `stringListSubsetMatch(l1, l2 [, delims])`: every item of `l1` is in `l2` (as sets). An
/// undefined list counts as empty, but both undefined is undefined; an empty `l1` is a subset,
/// a non-empty one with no items (`" "` split at `,`) is not, as in HTCondor.
fn subset<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    ignore_case: bool,
) -> Val<'a> {
    let (l1, l2, delims) = match two_lists(ev, scope, args) {
        Err(v) => return v,
        Ok((None, None, _)) => return Val::Undefined,
        Ok(x) => x,
    };
    let key = |s: &str| {
        if ignore_case {
            s.to_ascii_lowercase()
        } else {
            s.to_string()
        }
    };
    let l1 = l1.unwrap_or("");
    // The empty string is a subset of anything; any other `l1` must hold an item (HTCondor
    // starts from "no match" and skips empty items: `" "` split at `,` is a subset of nothing).
    if l1.is_empty() {
        return Val::Bool(true);
    }
    let set: FxHashSet<String> = items(l2.unwrap_or(""), delims).map(key).collect();
    let mut l1_items = items(l1, delims).peekable();
    Val::Bool(l1_items.peek().is_some() && l1_items.all(|item| set.contains(&key(item))))
}

fn subset_match<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    subset(ev, scope, args, false)
}

fn isubset_match<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    subset(ev, scope, args, true)
}

/// `stringListsIntersect(l1, l2 [, delims])`: some item is in both. HTCondor's library
/// version: strict (error, then undefined), items not trimmed, empty delimiters mean `" ,"`.
fn intersect<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 3) {
        return Val::Error;
    }
    let vals = eval_all(ev, scope, args);
    if let Some(v) = super::args::error_or_undefined(&vals) {
        return v;
    }
    let strs: Option<Vec<&str>> = vals.iter().map(|&v| str_arg(v)).collect();
    let Some(strs) = strs else {
        return Val::Error;
    };
    let delims = match strs.get(2) {
        Some(d) if !d.is_empty() => *d,
        _ => " ,",
    };
    if !ev.charge((strs[0].len() + strs[1].len()) as u64) {
        return Val::Error;
    }
    let pieces = |s: &'a str| {
        s.split(move |c| delims.contains(c))
            .filter(|p| !p.is_empty())
    };
    let set: FxHashSet<&str> = pieces(strs[1]).collect();
    let found = pieces(strs[0]).any(|p| set.contains(p));
    Val::Bool(found)
}

/// `stringList_regexpMember(pattern, list [, delims [, options]])`: some item matches. All
/// arguments must be strings; options may be upper case here; an empty list is undefined.
fn regexp_member<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 4) {
        return Val::Error;
    }
    let vals = eval_all(ev, scope, args);
    let strs: Option<Vec<&str>> = vals.iter().map(|&v| str_arg(v)).collect();
    let Some(strs) = strs else {
        return Val::Error;
    };
    let (pattern, list) = (strs[0], strs[1]);
    let delims = strs.get(2).copied().unwrap_or(SUMMARY_DELIMS);
    let flags = parse_options(strs.get(3).copied().unwrap_or(""), true);
    if !ev.charge((pattern.len() + list.len()) as u64) {
        return Val::Error;
    }
    let Some(re) = compile(pattern, flags) else {
        return Val::Error;
    };
    let mut any = false;
    for item in items(list, delims) {
        if re.is_match(item.as_bytes()) {
            return Val::Bool(true);
        }
        any = true;
    }
    if any {
        Val::Bool(false)
    } else {
        Val::Undefined
    }
}

/// `split(s [, separators])`: `s` cut at every separator character (default `", \t"`). A run
/// of separators yields one cut, except that a repeated non-space separator (`a,,b`) yields an
/// empty item between; leading and trailing separators yield nothing.
fn split<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let vals = eval_all(ev, scope, args);
    let Some(s) = str_arg(vals[0]) else {
        return Val::Error;
    };
    let seps = match vals.get(1) {
        Some(&v) => match str_arg(v) {
            Some(seps) => seps,
            None => return Val::Error,
        },
        None => ", \t",
    };
    if !ev.charge(s.len() as u64) {
        return Val::Error;
    }
    let mut out = Vec::new();
    let mut from = 0;
    // The last non-space separator seen: a repeat of it right away makes an empty item.
    let mut last_sep: Option<char> = None;
    for (i, c) in s.char_indices() {
        if !seps.contains(c) {
            continue;
        }
        if i > from {
            out.push(Val::Str(&s[from..i]));
        } else if last_sep == Some(c) {
            out.push(Val::Str(""));
        }
        if !(c.is_ascii() && is_c_space(c as u8)) {
            last_sep = Some(c);
        }
        from = i + c.len_utf8();
    }
    if from < s.len() {
        out.push(Val::Str(&s[from..]));
    }
    Val::List(ev.alloc_list(&out))
}

/// `{before, after}` the first `@` of the single string argument; without an `@` the whole
/// string is `before` (user names) or `after` (slot names).
fn split_at<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    whole_is_first: bool,
) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    let Some(s) = str_arg(v) else {
        return Val::Error;
    };
    let (a, b) = match s.split_once('@') {
        Some(parts) => parts,
        None if whole_is_first => (s, ""),
        None => ("", s),
    };
    Val::List(ev.alloc_list(&[Val::Str(a), Val::Str(b)]))
}

fn split_user_name<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    split_at(ev, scope, args, true)
}

fn split_slot_name<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    split_at(ev, scope, args, false)
}

#[cfg(test)]
mod tests;
