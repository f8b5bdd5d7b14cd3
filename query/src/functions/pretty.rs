//! HTCondor's `PrettyPrint` unparse (sink.cpp), which `unparse()` returns: the compact form,
//! except that every ad and list is laid out one element per line, ads indented by 4 and lists
//! by 3 per level:
//!
//! ```text
//! [x = [a = 1; b = {1, 2}]]  →  "\n    [\n        a = 1; \n        b = \n           {\n …
//! ```
//!
//! Everything but the layout of ads and lists comes from the compact printer in its
//! HTCondor-exact form (`Unparser::htcondor`: `%.15E` reals, `a.b c` after a dot — the text is
//! data, not meant to be read back): each outermost ad or list inside an expression is replaced
//! by a placeholder name, the expression printed, and the placeholders replaced by the laid-out
//! text.

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::Name;
use crate::print::Unparser;
use crate::value::Value;

/// Spaces added per level of an ad.
const AD_INDENT: usize = 4;
/// Spaces added per level of a list.
const LIST_INDENT: usize = 3;

/// `e` as HTCondor's `PrettyPrint` unparses it.
pub(crate) fn pretty(e: &Expr) -> String {
    let mut out = String::new();
    Pretty { out: &mut out }.expr(e, 0);
    out
}

struct Pretty<'o> {
    out: &'o mut String,
}

/// The parts of an ad or a list to lay out.
enum Block<'e> {
    List(Vec<Expr>),
    AdRef(&'e ClassAd),
    ListRef(&'e [Expr]),
}

/// `e` as a block to lay out, if it is an ad or a list.
fn block(e: &Expr) -> Option<Block<'_>> {
    match e {
        Expr::Ad(ad) => Some(Block::AdRef(ad)),
        Expr::List(items) => Some(Block::ListRef(items)),
        Expr::Lit(Value::Ad(ad)) => Some(Block::AdRef(ad)),
        Expr::Lit(Value::List(items)) => {
            Some(Block::List(items.iter().cloned().map(Expr::Lit).collect()))
        }
        _ => None,
    }
}

impl Pretty<'_> {
    /// Appends `e` at nesting `indent`.
    fn expr(&mut self, e: &Expr, indent: usize) {
        if let Some(b) = block(e) {
            return self.block(b, indent);
        }
        if !contains_block(e) {
            Unparser::htcondor(self.out).expr(e);
            return;
        }
        // Print with placeholders for the outermost blocks, then fill them in.
        let prefix = placeholder_prefix(e);
        let mut blocks = Vec::new();
        let masked = mask(e, &prefix, &mut blocks);
        let mut text = String::new();
        Unparser::htcondor(&mut text).expr(&masked);
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&prefix) {
            self.out.push_str(&rest[..at]);
            rest = &rest[at + prefix.len()..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let index: usize = rest[..digits].parse().unwrap_or(usize::MAX);
            rest = &rest[digits..];
            match blocks.get(index) {
                Some(b) => self.expr(b, indent),
                None => self.out.push_str(&prefix),
            }
        }
        self.out.push_str(rest);
    }

    fn block(&mut self, b: Block<'_>, indent: usize) {
        match b {
            Block::AdRef(ad) => self.ad(ad.iter_htcondor().into_iter(), indent),
            Block::List(items) => self.list(&items, indent),
            Block::ListRef(items) => self.list(items, indent),
        }
    }

    fn ad<'e>(&mut self, attrs: impl Iterator<Item = (Name, &'e Expr)>, indent: usize) {
        let outer = indent + AD_INDENT;
        let inner = outer + AD_INDENT;
        self.line(outer, "[");
        for (i, (name, e)) in attrs.enumerate() {
            if i > 0 {
                self.out.push_str("; ");
            }
            self.out.push('\n');
            self.spaces(inner);
            crate::print::write_name(self.out, name.as_str());
            self.out.push_str(" = ");
            self.expr(e, inner);
        }
        self.line(outer, "]");
    }

    fn list(&mut self, items: &[Expr], indent: usize) {
        let outer = indent + LIST_INDENT;
        let inner = outer + LIST_INDENT;
        self.line(outer, "{");
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push('\n');
            self.spaces(inner);
            self.expr(e, inner);
        }
        self.line(outer, "}");
    }

    /// A new line of `indent` spaces then `text`.
    fn line(&mut self, indent: usize, text: &str) {
        self.out.push('\n');
        self.spaces(indent);
        self.out.push_str(text);
    }

    fn spaces(&mut self, n: usize) {
        self.out.push_str(&" ".repeat(n));
    }
}

/// True when an ad or a list occurs anywhere in `e`.
fn contains_block(e: &Expr) -> bool {
    if block(e).is_some() {
        return true;
    }
    match e {
        Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) => false,
        Expr::Select(x, _) | Expr::Unary(_, x) | Expr::Paren(x) => contains_block(x),
        Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => {
            contains_block(&b.0) || contains_block(&b.1)
        }
        Expr::Cond(b) => contains_block(&b.0) || contains_block(&b.1) || contains_block(&b.2),
        Expr::Call(_, args) | Expr::Chain(_, args) => args.iter().any(contains_block),
        Expr::List(_) | Expr::Ad(_) => true,
    }
}

/// A name prefix that occurs nowhere in the printed `e`, for placeholders `<prefix><n>`.
fn placeholder_prefix(e: &Expr) -> String {
    let text = e.to_string();
    let mut prefix = String::from("zzPrettyBlock");
    while text.contains(&prefix) {
        prefix.push('Z');
    }
    prefix
}

/// A copy of `e` with each outermost ad or list replaced by the name `<prefix><n>`, the
/// replaced expressions collected in `blocks` (index `n`).
fn mask(e: &Expr, prefix: &str, blocks: &mut Vec<Expr>) -> Expr {
    if block(e).is_some() {
        let name = Name::new(&format!("{prefix}{}", blocks.len()));
        blocks.push(e.clone());
        return Expr::Attr(name);
    }
    if !contains_block(e) {
        return e.clone();
    }
    let mut m = |x: &Expr| mask(x, prefix, blocks);
    match e {
        Expr::Select(x, n) => Expr::Select(Box::new(m(x)), *n),
        Expr::Unary(op, x) => Expr::Unary(*op, Box::new(m(x))),
        Expr::Paren(x) => Expr::Paren(Box::new(m(x))),
        Expr::Index(b) => Expr::Index(Box::new((m(&b.0), m(&b.1)))),
        Expr::Binary(op, b) => Expr::Binary(*op, Box::new((m(&b.0), m(&b.1)))),
        Expr::Elvis(b) => Expr::Elvis(Box::new((m(&b.0), m(&b.1)))),
        Expr::Cond(b) => Expr::Cond(Box::new((m(&b.0), m(&b.1), m(&b.2)))),
        Expr::Call(n, args) => Expr::Call(*n, args.iter().map(m).collect()),
        Expr::Chain(op, terms) => Expr::Chain(*op, terms.iter().map(m).collect()),
        _ => e.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::pretty;
    use crate::parse;

    #[test]
    fn layouts() {
        // Expected texts are HTCondor 25's unparse() results.
        for (expr, want) in [
            ("1 + 2", "1 + 2"),
            ("strcat(\"a\", b)", "strcat(\"a\",b)"),
            (
                "[a=1;b={1,2}]",
                "\n    [\n        a = 1; \n        b = \n           {\n              1,\n              2\n           }\n    ]",
            ),
            (
                "{1, [a = 2], \"s\"}",
                "\n   {\n      1,\n      \n          [\n              a = 2\n          ],\n      \"s\"\n   }",
            ),
            ("{}", "\n   {\n   }"),
            ("[]", "\n    [\n    ]"),
            ("size({1}) + 1", "size(\n   {\n      1\n   }) + 1"),
            ("[a = {1} + 2]", "\n    [\n        a = \n           {\n              1\n           } + 2\n    ]"),
            ("zzPrettyBlock0 + {1}", "zzPrettyBlock0 + \n   {\n      1\n   }"),
            (
                "{[a=1;b=2]}.a",
                "\n   {\n      \n          [\n              a = 1; \n              b = 2\n          ]\n   }.a",
            ),
            ("['b c' = 1]", "\n    [\n        'b c' = 1\n    ]"),
        ] {
            let e = parse::expr(expr).unwrap_or_else(|err| panic!("{expr}: {err}"));
            assert_eq!(pretty(&e), want, "{expr}");
        }
    }
}
