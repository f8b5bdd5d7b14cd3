//! The compound primaries of the new-syntax grammar: ads `[ name = expr; … ]`, lists
//! `{ e, … }` and calls `f(args)` (with HTCondor's parse-time `absTime("…")`/`relTime("…")`).
//!
//! Each loop body is a separate non-inlined function so the frames on the recursive path stay
//! small (see the bounds in [`super::expr`]).

use super::expr::{Parsed, Parser};
use super::lexer::{error_at, TokenKind};
use super::time_string;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;
use crate::name::Name;
use crate::value::Value;

/// Binds `name` in `ad`; a repeated name (in any case) replaces the expression but keeps the
/// first spelling, as HTCondor's `ClassAd::Insert` does.
pub(crate) fn insert_keeping_spelling(ad: &mut ClassAd, name: Name, e: Expr) {
    let name = ad.entry(name.key()).map_or(name, |(first, _)| first);
    ad.insert(name, e);
}

impl Parser<'_> {
    /// `name(args)`; `absTime("…")` and `relTime("…")` of one string literal become time
    /// literals, as HTCondor does at parse time.
    #[inline(never)]
    pub(super) fn call(&mut self, name: Name, start: usize) -> Parsed {
        self.advance()?; // '('
        let mut args = Vec::new();
        let mut d = 0;
        if self.tok.kind != TokenKind::CloseParen {
            loop {
                let a = self.expr();
                if !self.item(&mut args, &mut d, a, TokenKind::CloseParen)? {
                    break;
                }
            }
        }
        self.finish_call(name, start, args, d)
    }

    /// Stores a list item or argument, consumes the `,` after it, and says whether another
    /// follows (false at `close`, which is consumed).
    #[inline(never)]
    fn item(
        &mut self,
        items: &mut Vec<Expr>,
        depth: &mut u32,
        e: Parsed,
        close: TokenKind,
    ) -> Result<bool, ParseError> {
        let (e, de) = e?;
        *depth = (*depth).max(de);
        items.push(e);
        match self.tok.kind {
            TokenKind::Comma => {
                self.advance()?;
                Ok(true)
            }
            k if k == close => Ok(false),
            _ if close == TokenKind::CloseParen => {
                Err(self.expected("',' or ')' in function arguments"))
            }
            _ => Err(self.expected("',' or '}' in list")),
        }
    }

    #[inline(never)]
    fn finish_call(&mut self, name: Name, start: usize, args: Vec<Expr>, d: u32) -> Parsed {
        self.advance()?; // ')'
        if let [Expr::Lit(Value::Str(s))] = &args[..] {
            if let Some(v) = self.time_call(name, s, start)? {
                return Ok((Expr::Lit(v), 1));
            }
        }
        let d = self.check(d + 1)?;
        Ok((Expr::Call(name, args), d))
    }

    /// The literal `absTime(s)` / `relTime(s)` stands for (as HTCondor reads them), and the
    /// non-finite reals as the printer spells them (`real("INF")`, `real("-INF")`,
    /// `real("NaN")`: a literal like `1e999` prints so, and must read back as itself); `None`
    /// for other calls.
    #[inline(never)]
    fn time_call(&self, name: Name, s: &str, start: usize) -> Result<Option<Value>, ParseError> {
        let n = name.as_str();
        if n.eq_ignore_ascii_case("real") {
            return Ok(match s {
                "INF" => Some(Value::Real(f64::INFINITY)),
                "-INF" => Some(Value::Real(f64::NEG_INFINITY)),
                "NaN" => Some(Value::Real(f64::NAN)),
                _ => None,
            });
        }
        if n.eq_ignore_ascii_case("absTime") {
            let t = time_string::abs_time_from_string(s)
                .filter(|t| writable_year(*t))
                .ok_or_else(|| {
                    error_at(self.src(), start, format!("invalid absolute time \"{s}\""))
                })?;
            Ok(Some(Value::AbsTime(t)))
        } else if n.eq_ignore_ascii_case("relTime") {
            let t = time_string::rel_time_from_string(s).ok_or_else(|| {
                error_at(self.src(), start, format!("invalid relative time \"{s}\""))
            })?;
            Ok(Some(Value::RelTime(t)))
        } else {
            Ok(None)
        }
    }

    /// `{ e1, e2, … }` — no trailing comma, as in HTCondor.
    #[inline(never)]
    pub(super) fn list(&mut self) -> Parsed {
        self.advance()?; // '{'
        let mut items = Vec::new();
        let mut d = 0;
        if self.tok.kind != TokenKind::CloseBrace {
            loop {
                let e = self.expr();
                if !self.item(&mut items, &mut d, e, TokenKind::CloseBrace)? {
                    break;
                }
            }
        }
        self.finish_list(items, d)
    }

    #[inline(never)]
    fn finish_list(&mut self, items: Vec<Expr>, d: u32) -> Parsed {
        self.advance()?; // '}'
        let d = self.check(d + 1)?;
        Ok((Expr::List(items), d))
    }

    /// `[ name = expr; … ]` — empty statements and a trailing `;` allowed, as in HTCondor.
    pub fn classad(&mut self) -> Result<(ClassAd, u32), ParseError> {
        self.expect(TokenKind::OpenBox, "'[' to open a ClassAd")?;
        // HTCondor accepts leading `;`s only before an attribute: `[;]` is an error.
        if self.tok.kind == TokenKind::Semicolon {
            while self.tok.kind == TokenKind::Semicolon {
                self.advance()?;
            }
            if self.tok.kind == TokenKind::CloseBox {
                return Err(self.expected("an attribute name after ';'"));
            }
        }
        let mut ad = ClassAd::new();
        let mut d = 0;
        while let Some(name) = self.attr_head()? {
            let e = self.expr();
            self.attr_tail(&mut ad, &mut d, name, e)?;
        }
        self.finish_ad(ad, d)
    }

    /// Skips empty statements and reads `name =`; `None` at the closing `]`.
    #[inline(never)]
    fn attr_head(&mut self) -> Result<Option<Name>, ParseError> {
        loop {
            match self.tok.kind {
                TokenKind::CloseBox => return Ok(None),
                TokenKind::Semicolon => self.advance()?,
                _ => break,
            }
        }
        // HTCondor refuses to insert an attribute of the empty name (`''`): the ad fails.
        if self.tok.kind == TokenKind::Ident && self.tok.text().is_empty() {
            return Err(error_at(
                self.src(),
                self.tok.start,
                "an attribute name must not be empty (HTCondor refuses '')",
            ));
        }
        let name = self.name("an attribute name or ']'")?;
        self.expect(TokenKind::BoundTo, "'=' after attribute name")?;
        Ok(Some(name))
    }

    #[inline(never)]
    fn attr_tail(
        &mut self,
        ad: &mut ClassAd,
        depth: &mut u32,
        name: Name,
        e: Parsed,
    ) -> Result<(), ParseError> {
        let (e, de) = e?;
        *depth = (*depth).max(de);
        insert_keeping_spelling(ad, name, e);
        match self.tok.kind {
            TokenKind::Semicolon | TokenKind::CloseBox => Ok(()),
            _ => Err(self.expected("']' or ';' after attribute")),
        }
    }

    #[inline(never)]
    fn finish_ad(&mut self, ad: ClassAd, d: u32) -> Result<(ClassAd, u32), ParseError> {
        self.advance()?; // ']'
        let d = self.check(d + 1)?;
        Ok((ad, d))
    }
}

/// True when the absolute time's wall-clock year is 0–9999: only those print as an
/// `absTime("…")` text that reads back (HTCondor accepts `absTime("0x10")`, year −1, and prints
/// text its own reader refuses).
fn writable_year(t: crate::value::AbsTime) -> bool {
    let local = t.secs.saturating_add(i64::from(t.offset));
    let (year, _, _) = crate::calendar::civil_from_days(local.div_euclid(86_400));
    (0..=9999).contains(&year)
}
