//! HTCondor's text forms of job arguments and environments (condor_arglist.cpp, env.cpp), which
//! the compatibility functions convert between.
//!
//! - V1 arguments: split at blanks (space, tab, newline, return); no quoting.
//! - V2 arguments: split at blanks outside single quotes; `''` inside quotes is a quote. Written
//!   back with each run of blanks or quotes quoted (`a b` → `a' 'b`, `''` for an empty one).
//! - V1 environment: `NAME=value` entries separated by `;` (or by the first character when it
//!   is one of `!#$%&*+,-/:;<>?@^`|~` and 0x1F) or newlines.
//! - V2 environment: V2 arguments, each `NAME=value`.
//!
//! An environment is a map from name to value, kept sorted by name as HTCondor's `std::map`.

use std::collections::BTreeMap;

/// HTCondor's blanks for argument splitting.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Splits V2 arguments; `None` on an unbalanced quote.
pub(crate) fn split_v2(args: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut in_token = false;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_token = true;
                loop {
                    match chars.next() {
                        None => return None,
                        Some('\'') if chars.peek() == Some(&'\'') => {
                            chars.next();
                            buf.push('\'');
                        }
                        Some('\'') => break,
                        Some(c) => buf.push(c),
                    }
                }
            }
            c if is_blank(c) => {
                if in_token {
                    out.push(std::mem::take(&mut buf));
                    in_token = false;
                }
            }
            c => {
                in_token = true;
                buf.push(c);
            }
        }
    }
    if in_token {
        out.push(buf);
    }
    Some(out)
}

/// Splits V1 arguments at blanks.
pub(crate) fn split_v1(args: &str) -> Vec<String> {
    args.split(is_blank)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect()
}

/// Appends `arg` to V2 arguments in `out` (HTCondor's `append_arg`).
fn append_v2(out: &mut String, arg: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    if arg.is_empty() {
        out.push_str("''");
    }
    for c in arg.chars() {
        if is_blank(c) || c == '\'' {
            // Extend a quoted section just closed rather than open another.
            if out.ends_with('\'') {
                out.pop();
            } else {
                out.push('\'');
            }
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
            out.push('\'');
        } else {
            out.push(c);
        }
    }
}

/// Joins arguments as V2.
pub(crate) fn join_v2<S: AsRef<str>>(args: &[S]) -> String {
    let mut out = String::new();
    for a in args {
        append_v2(&mut out, a.as_ref());
    }
    out
}

/// Joins arguments as V1; `None` when one holds a blank (V1 cannot say it).
pub(crate) fn join_v1<S: AsRef<str>>(args: &[S]) -> Option<String> {
    let mut out = String::new();
    for a in args {
        let a = a.as_ref();
        if a.contains(is_blank) {
            return None;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(a);
    }
    Some(out)
}

/// An environment: names to values (`None` for an unexpanded `$$(…)` entry kept verbatim).
#[derive(Default, Debug)]
pub(crate) struct Env {
    vars: BTreeMap<String, Option<String>>,
}

impl Env {
    /// Adds one `NAME=value` entry; false when it has no `=` (and is not a `$$(…)` macro) or an
    /// empty name.
    fn set(&mut self, entry: &str) -> bool {
        match entry.split_once('=') {
            Some(("", _)) => false,
            Some((name, value)) => {
                self.vars.insert(name.to_string(), Some(value.to_string()));
                true
            }
            None if entry.contains("$$") => {
                self.vars.insert(entry.to_string(), None);
                true
            }
            None => false,
        }
    }

    /// Merges a V2 environment; false when it does not parse.
    pub(crate) fn merge_v2(&mut self, text: &str) -> bool {
        match split_v2(text) {
            Some(entries) => entries.iter().all(|e| self.set(e)),
            None => false,
        }
    }

    /// Merges a V1 environment, its delimiter `;` unless the text starts with another permitted
    /// one (HTCondor's `MergeFromV1AutoDelim`); false when an entry is malformed.
    pub(crate) fn merge_v1_auto(&mut self, text: &str) -> bool {
        const PERMITTED: &str = "!#$%&*+,-/:;<>?@^`|~\x1f";
        let mut delim = ';';
        let mut body = text;
        if let Some(first) = text.chars().next() {
            if first == delim || PERMITTED.contains(first) {
                delim = first;
                body = &text[first.len_utf8()..];
            }
        }
        for entry in body.split([delim, '\n']) {
            // Leading blanks of an entry are dropped; the rest is taken verbatim.
            let entry = entry.trim_start_matches(is_blank);
            if !entry.is_empty() && !self.set(entry) {
                return false;
            }
        }
        true
    }

    /// The environment as V2 text.
    pub(crate) fn to_v2(&self) -> String {
        let entries: Vec<String> = self
            .vars
            .iter()
            .map(|(name, value)| match value {
                Some(v) => format!("{name}={v}"),
                None => name.clone(),
            })
            .collect();
        join_v2(&entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_arguments() {
        for (text, want) in [
            ("a b  c", Some(vec!["a", "b", "c"])),
            ("'a b' c''d 'e''f'", Some(vec!["a b", "cd", "e'f"])),
            ("a 'b", None),
            ("", Some(vec![])),
            ("''", Some(vec![""])),
            ("a\tb\nc", Some(vec!["a", "b", "c"])),
            ("a \"b c\"", Some(vec!["a", "\"b", "c\""])),
        ] {
            let want: Option<Vec<String>> = want.map(|v| v.into_iter().map(String::from).collect());
            assert_eq!(split_v2(text), want, "{text:?}");
        }
        for (args, want) in [
            (vec!["a", "b c", "", "d'e", "f"], "a b' 'c '' d''''e f"),
            (vec!["x\ty"], "x'\t'y"),
            (vec!["'"], "''''"),
            (vec!["''"], "''''''"),
            (vec![" a "], "' 'a' '"),
            (vec!["a'", "b"], "a'''' b"),
        ] {
            assert_eq!(join_v2(&args), want, "{args:?}");
        }
    }

    #[test]
    fn v1_arguments() {
        assert_eq!(split_v1(" a 'b c' "), vec!["a", "'b", "c'"]);
        assert_eq!(join_v1(&["ab", "c"]), Some("ab c".to_string()));
        assert_eq!(join_v1(&["a b"]), None);
    }

    #[test]
    fn environments() {
        let v1 = |t: &str| {
            let mut e = Env::default();
            e.merge_v1_auto(t).then(|| e.to_v2())
        };
        for (text, want) in [
            ("a=b;c=d", Some("a=b c=d")),
            ("a=b|c=d", Some("a=b|c=d")),
            ("|a=b|c=d", Some("a=b c=d")),
            ("a=b c;d=e f", Some("a=b' 'c d=e' 'f")),
            ("a=b\nc=d", Some("a=b c=d")),
            ("a=x'y", Some("a=x''''y")),
            ("x", None),
            ("", Some("")),
            (" ;a=1; ;b=2;", Some("a=1 b=2")),
            ("a= x ", Some("a=' 'x' '")),
            ("$$(X);a=1", Some("(X);a=1")),
            ("a=1;a=2", Some("a=2")),
            ("=x", None),
        ] {
            assert_eq!(v1(text).as_deref(), want, "{text:?}");
        }
        let v2 = |t: &str| {
            let mut e = Env::default();
            e.merge_v2(t).then(|| e.to_v2())
        };
        for (text, want) in [
            ("b=1 a=2 c=3", Some("a=2 b=1 c=3")),
            ("B=1 a=2 A=3", Some("A=3 B=1 a=2")),
            (
                "zeta=1 alpha=2 Mid=3 _u=4 9x=5",
                Some("9x=5 Mid=3 _u=4 alpha=2 zeta=1"),
            ),
            ("a='x ''y'", Some("a=x' '''y")),
            ("$$(FOO)", Some("$$(FOO)")),
            ("a=", Some("a=")),
            ("a", None),
            ("a='unterminated", None),
            ("a=x y=' ' z=''", Some("a=x y=' ' z=")),
        ] {
            assert_eq!(v2(text).as_deref(), want, "{text:?}");
        }
    }
}
