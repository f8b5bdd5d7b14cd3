//! The unparser: expressions, values and ads to HTCondor's compact text (`ClassAdUnParser`),
//! in new syntax or with old syntax's differences (`=?=`, `%.16G` reals, unescaped strings).
//!
//! HTCondor prints trees exactly as parsed (parentheses are nodes). We do the same, and add
//! parentheses only where a tree built by code would otherwise print as a different tree
//! (e.g. `Mul(Add(a, b), c)`), which never happens for parsed trees.

use super::real::{
    write_abs_time, write_real, write_real_htcondor, write_real_old, write_rel_time,
};
use crate::ast::{BinOp, Expr, UnOp};
use crate::classad::ClassAd;
use crate::name::Name;
use crate::parse::precedence;
use crate::value::{Val, Value};
use std::fmt::Write;

/// Deepest nesting printed; anything deeper prints as `error` (trees the parser builds are
/// far shallower, see [`crate::parse::MAX_DEPTH`]).
pub const MAX_PRINT_DEPTH: u32 = 2000;

/// Binding strength of an expression's outermost construct, for deciding parentheses:
/// 0 conditional, 1–10 binary operators (see [`precedence`]), 11 unary, 12 elvis (a postfix
/// operator whose right operand swallows the postfix operators after it), 13 other postfix and
/// primary expressions.
pub(crate) fn strength(e: &Expr) -> u8 {
    match e {
        Expr::Cond(_) => 0,
        Expr::Binary(op, _) | Expr::Chain(op, _) => precedence(*op),
        Expr::Unary(..) => 11,
        Expr::Elvis(_) => 12,
        _ => 13,
    }
}

/// An unparser appending to a string.
pub struct Unparser<'o> {
    out: &'o mut String,
    /// Old-syntax spelling.
    old: bool,
    /// HTCondor's own text where the printer otherwise departs from it so that the text reads
    /// back (docs/language.md, "Deviations"): reals always `%.15E`, `-` before a number with no
    /// space, a name after `.` bare, an integer before `.` with no space. For text that is data
    /// (`unparse()`, `string()` of a list or an ad), not for text meant to be read back.
    exact: bool,
    depth: u32,
}

impl<'o> Unparser<'o> {
    /// An unparser for new syntax.
    pub fn new(out: &'o mut String) -> Unparser<'o> {
        Unparser {
            out,
            old: false,
            exact: false,
            depth: 0,
        }
    }

    /// An unparser writing new syntax exactly as HTCondor's `ClassAdUnParser` does, for text
    /// that is data rather than for reading back (see the `exact` field).
    pub fn htcondor(out: &'o mut String) -> Unparser<'o> {
        Unparser {
            out,
            old: false,
            exact: true,
            depth: 0,
        }
    }

    /// An unparser for old syntax's expression spelling.
    pub fn old(out: &'o mut String) -> Unparser<'o> {
        Unparser {
            out,
            old: true,
            exact: false,
            depth: 0,
        }
    }

    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_PRINT_DEPTH {
            self.out.push_str("error");
            self.depth -= 1;
            return false;
        }
        true
    }

    /// Appends `e`.
    pub fn expr(&mut self, e: &Expr) {
        if !self.enter() {
            return;
        }
        self.expr_inner(e);
        self.depth -= 1;
    }

    /// Appends `e`, in parentheses when it binds looser than `min`.
    fn operand(&mut self, e: &Expr, min: u8) {
        if strength(e) < min {
            self.out.push('(');
            self.expr(e);
            self.out.push(')');
        } else {
            self.expr(e);
        }
    }

    fn expr_inner(&mut self, e: &Expr) {
        match e {
            Expr::Lit(v) => self.value(v),
            Expr::Attr(n) => self.name(*n),
            Expr::Root(n) => {
                self.out.push('.');
                self.name(*n);
            }
            Expr::Select(base, n) => {
                // `1.a` would lex as a malformed real, and `(1).a` reads back with a Paren node:
                // a space keeps the tree (found by the `parse` fuzz target).
                self.operand(base, 13);
                if !self.exact && matches!(**base, Expr::Lit(Value::Int(_))) {
                    self.out.push(' ');
                }
                self.out.push('.');
                self.member_name(*n);
            }
            Expr::Index(b) => {
                self.operand(&b.0, 13);
                self.out.push('[');
                self.expr(&b.1);
                self.out.push(']');
            }
            // `-` before a number literal (or a selection/subscript of one) prints with a
            // space: ` -1` would read back as the literal -1 (HTCondor lexes `-1` at the start or
            // after an operator as one token), so `- 1` prints as ` - 1` to keep
            // parse(print(x)) == x (found by fuzzing).
            Expr::Unary(UnOp::Neg, x) if !self.exact && starts_with_number(x) => {
                self.out.push_str(" - ");
                self.operand(x, 11);
            }
            Expr::Unary(op, x) => {
                self.out.push_str(match op {
                    UnOp::Neg => " -",
                    UnOp::Plus => " +",
                    UnOp::Not => " !",
                    UnOp::BitNot => " ~",
                });
                self.operand(x, 11);
            }
            Expr::Binary(op, b) => {
                let p = precedence(*op);
                self.operand(&b.0, p);
                self.out.push_str(self.op_text(*op));
                self.operand(&b.1, p + 1);
            }
            // The left fold's printing: the first operand as a left side, the others as
            // right sides (parenthesized when they bind no tighter than `op`).
            // An empty chain (never built by the parser or `Expr::binary`) evaluates to error.
            Expr::Chain(_, terms) if terms.is_empty() => self.out.push_str("error"),
            Expr::Chain(op, terms) => {
                let p = precedence(*op);
                for (i, t) in terms.iter().enumerate() {
                    if i == 0 {
                        self.operand(t, p);
                    } else {
                        self.out.push_str(self.op_text(*op));
                        self.operand(t, p + 1);
                    }
                }
            }
            Expr::Cond(b) => {
                self.operand(&b.0, 1);
                self.out.push_str(" ? ");
                self.expr(&b.1);
                self.out.push_str(" : ");
                self.expr(&b.2);
            }
            Expr::Elvis(b) => {
                self.operand(&b.0, 13);
                self.out.push_str(" ?: ");
                self.operand(&b.1, 12);
            }
            Expr::Call(n, args) => {
                self.name(*n);
                self.out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.expr(a);
                }
                self.out.push(')');
            }
            Expr::List(items) => {
                self.out.push_str("{ ");
                for (i, a) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.expr(a);
                }
                self.out.push_str(" }");
            }
            Expr::Ad(ad) => self.ad(ad),
            Expr::Paren(x) => {
                self.out.push('(');
                self.expr(x);
                self.out.push(')');
            }
        }
    }

    fn op_text(&self, op: BinOp) -> &'static str {
        use BinOp::*;
        match op {
            Mul => " * ",
            Div => " / ",
            Mod => " % ",
            Add => " + ",
            Sub => " - ",
            Shl => " << ",
            Shr => " >> ",
            UShr => " >>> ",
            Lt => " < ",
            Le => " <= ",
            Gt => " > ",
            Ge => " >= ",
            Eq => " == ",
            Ne => " != ",
            Is if self.old => " =?= ",
            Isnt if self.old => " =!= ",
            Is => " is ",
            Isnt => " isnt ",
            BitAnd => " & ",
            BitXor => " ^ ",
            BitOr => " | ",
            And => " && ",
            Or => " || ",
        }
    }

    /// Appends an ad as `[ a = 1; b = 2 ]` (`[  ]` when empty, as HTCondor prints it).
    pub fn ad(&mut self, ad: &ClassAd) {
        if !self.enter() {
            return;
        }
        self.out.push_str("[ ");
        // HTCondor-exact text lists the attributes in HTCondor's order; text to read back keeps
        // the ad's own.
        if self.exact {
            for (i, (n, e)) in ad.iter_htcondor().into_iter().enumerate() {
                self.attribute(i, n, e);
            }
        } else {
            for (i, (n, e)) in ad.iter().enumerate() {
                self.attribute(i, n, e);
            }
        }
        self.out.push_str(" ]");
        self.depth -= 1;
    }

    /// Appends the `i`th binding of an ad, `n = e`.
    fn attribute(&mut self, i: usize, n: Name, e: &Expr) {
        if i > 0 {
            self.out.push_str("; ");
        }
        self.name(n);
        self.out.push_str(" = ");
        self.expr(e);
    }

    /// Appends an attribute name, quoted with `'…'` when it is not a plain identifier or is a
    /// reserved word.
    pub fn name(&mut self, n: Name) {
        if self.old {
            write_name_old(self.out, n.as_str());
        } else {
            write_name(self.out, n.as_str());
        }
    }

    /// Appends the name selected after a `.`: as [`Unparser::name`], except that `parent` prints
    /// plain (`a.parent.b`, as HTCondor prints it): after a dot it can only be a name, and reads
    /// back as one.
    fn member_name(&mut self, n: Name) {
        if self.exact || n.as_str().eq_ignore_ascii_case("parent") {
            self.out.push_str(n.as_str());
        } else {
            self.name(n);
        }
    }

    /// Appends an owned value.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Undefined => self.out.push_str("undefined"),
            Value::Error => self.out.push_str("error"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Real(r) => self.real(*r),
            Value::Str(s) => self.string(s),
            Value::AbsTime(t) => self.abs_time(*t),
            Value::RelTime(t) => self.rel_time(*t),
            Value::List(items) => self.list(items, Self::value),
            Value::Ad(ad) => self.ad(ad),
        }
    }

    /// Appends an evaluation-time value.
    pub fn val(&mut self, v: &Val<'_>) {
        match *v {
            Val::Undefined => self.out.push_str("undefined"),
            Val::Error => self.out.push_str("error"),
            Val::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Val::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Val::Real(r) => self.real(r),
            Val::Str(s) => self.string(s),
            Val::AbsTime(t) => self.abs_time(t),
            Val::RelTime(t) => self.rel_time(t),
            Val::List(items) => self.list(items, Self::val),
            Val::Ad(scope) => self.ad(scope.ad),
        }
    }

    /// `absTime("…")`.
    fn abs_time(&mut self, t: crate::value::AbsTime) {
        self.out.push_str("absTime(\"");
        write_abs_time(self.out, t);
        self.out.push_str("\")");
    }

    /// `{ a,b }`, each item printed by `item`, within the depth limit.
    fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        if !self.enter() {
            return;
        }
        self.out.push_str("{ ");
        for (i, a) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            item(self, a);
        }
        self.out.push_str(" }");
        self.depth -= 1;
    }

    /// `relTime("…")`. A negative zero (`relTime("-")` reads as one, as in HTCondor) prints
    /// `relTime("-00")` so that it reads back as itself; HTCondor's text is `relTime("00")`.
    fn rel_time(&mut self, t: f64) {
        if !self.exact && t == 0.0 && t.is_sign_negative() {
            self.out.push_str("relTime(\"-00\")");
        } else {
            write_rel_time(self.out, t);
        }
    }

    fn real(&mut self, r: f64) {
        if self.old {
            write_real_old(self.out, r)
        } else if self.exact {
            write_real_htcondor(self.out, r)
        } else {
            write_real(self.out, r)
        }
    }

    fn string(&mut self, s: &str) {
        if self.old {
            write_string_old(self.out, s)
        } else {
            write_string(self.out, s)
        }
    }
}

/// Appends `s` as a new-syntax string literal: `"` and `\` escaped, control characters as
/// `\n \t …`, other non-printable bytes (including every byte of a non-ASCII character) as
/// three-digit octal escapes, as HTCondor does.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    escape_into(out, s, b'"');
    out.push('"');
}

/// Appends `s` as an old-syntax string literal: only `"` is escaped.
pub fn write_string_old(out: &mut String, s: &str) {
    write_quoted_old(out, s, '"');
}

/// Appends `s` between `delim`s, only `delim` escaped (old syntax's strings and quoted names).
fn write_quoted_old(out: &mut String, s: &str, delim: char) {
    out.push(delim);
    let mut rest = s;
    while let Some(i) = rest.find(delim) {
        out.push_str(&rest[..i]);
        out.push('\\');
        out.push(delim);
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out.push(delim);
}

/// Escapes `s` for a literal delimited by `delim`.
fn escape_into(out: &mut String, s: &str, delim: u8) {
    let b = s.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: Option<&str> = match c {
            _ if c == delim => Some(if delim == b'"' { "\\\"" } else { "\\'" }),
            0x07 => Some("\\a"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x0b => Some("\\v"),
            b'\\' => Some("\\\\"),
            0x20..=0x7e => None,
            _ => Some(""),
        };
        if let Some(e) = esc {
            // Runs hold only printable ASCII (every non-ASCII byte is escaped), so `run` and
            // `i` are character boundaries whenever the run is non-empty.
            if run < i {
                out.push_str(&s[run..i]);
            }
            if e.is_empty() {
                let _ = write!(out, "\\{c:03o}");
            } else {
                out.push_str(e);
            }
            run = i + 1;
        }
    }
    if run < b.len() {
        out.push_str(&s[run..]);
    }
}

/// True for names that print without quotes: `[A-Za-z_][A-Za-z0-9_]*` and not a reserved word
/// (`true false undefined error is isnt`, and `parent`, which HTCondor also quotes).
pub fn is_plain_name(s: &str) -> bool {
    let b = s.as_bytes();
    let ok = matches!(b.first(), Some(c) if c.is_ascii_alphabetic() || *c == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    ok && ![
        "true",
        "false",
        "undefined",
        "error",
        "is",
        "isnt",
        "parent",
    ]
    .iter()
    .any(|r| s.eq_ignore_ascii_case(r))
}

/// Appends an attribute name, quoted `'…'` (with escapes) unless [`is_plain_name`]. A name that
/// would read as one of the dissertation's quoted time literals (`'10:00'`) gets its colons
/// escaped (`'10\:00'`), which HTCondor reads as the same name.
pub fn write_name(out: &mut String, s: &str) {
    if is_plain_name(s) {
        out.push_str(s);
        return;
    }
    out.push('\'');
    if crate::parse::time_literal::quoted(s).is_some() {
        let mut e = String::new();
        escape_into(&mut e, s, b'\'');
        out.push_str(&e.replace(':', "\\:"));
    } else {
        escape_into(out, s, b'\'');
    }
    out.push('\'');
}

/// Appends an attribute name in old syntax's spelling, as HTCondor's `printOld` writes it:
/// quoted `'…'` unless [`is_plain_name`], with only `'` escaped (old syntax reads a backslash in
/// a quoted name literally, as in its strings: `'a\b'` is the name `a\b`, `'é'` is `é`).
pub fn write_name_old(out: &mut String, s: &str) {
    if is_plain_name(s) {
        out.push_str(s);
        return;
    }
    write_quoted_old(out, s, '\'');
}

/// True when `e` prints starting with a number literal (`1`, `1 .a`, `2.5[0]`).
fn starts_with_number(e: &Expr) -> bool {
    match e {
        Expr::Lit(Value::Int(_) | Value::Real(_)) => true,
        Expr::Select(base, _) => starts_with_number(base),
        Expr::Index(b) | Expr::Elvis(b) => starts_with_number(&b.0),
        _ => false,
    }
}
