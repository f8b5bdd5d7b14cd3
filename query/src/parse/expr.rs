//! The new-syntax expression grammar (HTCondor's `ClassAdParser`, source.cpp) by precedence
//! climbing, with ads `[…]` and lists `{…}` as primaries.
//!
//! Precedence, loosest first: `?:` (right-associative; `a ?: b` is elvis), `||`, `&&`, `|`,
//! `^`, `&`, `== != is isnt =?= =!=`, `< <= > >=`, `<< >> >>>`, `+ -`, `* / %`, unary
//! `- + ! ~`, postfix `.name` `[index]`. Binary operators associate to the left; a run of one
//! chaining operator (`a || b || c`, [`BinOp::chains`]) is one [`Expr::Chain`] node.
//!
//! Bounds: every tree the parser returns is at most [`MAX_DEPTH`] deep (counting every node on
//! the longest root-to-leaf path, through nested ads; a chain counts one level however many
//! operands it has), and recursion is limited to
//! [`MAX_NESTING`] levels before it descends, so deep input yields a [`ParseError`], never a
//! stack overflow (even in debug builds on a 2 MiB thread stack).

use super::lexer::{error_at, Lexer, TokVal, Token, TokenKind};
use crate::ast::{BinOp, Expr, UnOp};
use crate::error::ParseError;
use crate::name::Name;
use crate::value::Value;
use std::sync::Arc;

/// The deepest expression tree the parser builds (nodes on the longest root-to-leaf path,
/// counting left-deep runs of non-chaining operators such as `a - b - c …`; a chain such as
/// `a || b || c …` is one node whatever its length).
pub const MAX_DEPTH: u32 = 1000;

/// The deepest syntactic nesting the parser descends into: parentheses, lists, ads, calls,
/// subscripts, conditionals, and operators of rising precedence each count one level.
pub const MAX_NESTING: u32 = 200;

/// A parsed expression and its depth.
pub(crate) type Parsed = Result<(Expr, u32), ParseError>;

/// The parser: a lexer plus one token of lookahead.
pub(crate) struct Parser<'s> {
    lex: Lexer<'s>,
    pub(super) tok: Token<'s>,
    /// Current recursion depth (nesting being parsed).
    pub(super) nest: u32,
}

/// Binary operators with their precedence (higher binds tighter).
fn binop(kind: TokenKind) -> Option<(BinOp, u8)> {
    use TokenKind as T;
    Some(match kind {
        T::Or => (BinOp::Or, 1),
        T::And => (BinOp::And, 2),
        T::BitOr => (BinOp::BitOr, 3),
        T::BitXor => (BinOp::BitXor, 4),
        T::BitAnd => (BinOp::BitAnd, 5),
        T::Eq => (BinOp::Eq, 6),
        T::Ne => (BinOp::Ne, 6),
        T::MetaEq => (BinOp::Is, 6),
        T::MetaNe => (BinOp::Isnt, 6),
        T::Lt => (BinOp::Lt, 7),
        T::Le => (BinOp::Le, 7),
        T::Gt => (BinOp::Gt, 7),
        T::Ge => (BinOp::Ge, 7),
        T::Shl => (BinOp::Shl, 8),
        T::Shr => (BinOp::Shr, 8),
        T::UShr => (BinOp::UShr, 8),
        T::Plus => (BinOp::Add, 9),
        T::Minus => (BinOp::Sub, 9),
        T::Mul => (BinOp::Mul, 10),
        T::Div => (BinOp::Div, 10),
        T::Mod => (BinOp::Mod, 10),
        _ => return None,
    })
}

/// The precedence of `op` (as `binop` gives it).
pub fn precedence(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Or => 1,
        And => 2,
        BitOr => 3,
        BitXor => 4,
        BitAnd => 5,
        Eq | Ne | Is | Isnt => 6,
        Lt | Le | Gt | Ge => 7,
        Shl | Shr | UShr => 8,
        Add | Sub => 9,
        Mul | Div | Mod => 10,
    }
}

/// How a token reads in an error message.
pub(crate) fn describe(src: &str, tok: &Token<'_>) -> String {
    if tok.kind == TokenKind::End {
        return "end of input".to_string();
    }
    let text = &src[tok.start..tok.end];
    let mut shown: String = text.chars().take(24).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("'{shown}'")
}

impl<'s> Parser<'s> {
    /// A parser over `lex`, primed with its first token.
    pub fn new(mut lex: Lexer<'s>) -> Result<Parser<'s>, ParseError> {
        let tok = lex.next_token()?;
        Ok(Parser { lex, tok, nest: 0 })
    }

    /// The lookahead token.
    pub fn peek(&self) -> &Token<'s> {
        &self.tok
    }

    /// The source text.
    pub fn src(&self) -> &'s str {
        self.lex.src()
    }

    /// Replaces the lookahead with the next token.
    #[inline(never)]
    pub fn advance(&mut self) -> Result<(), ParseError> {
        self.tok = self.lex.next_token()?;
        Ok(())
    }

    /// Consumes the lookahead, returning it.
    pub fn bump(&mut self) -> Result<Token<'s>, ParseError> {
        let next = self.lex.next_token()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    /// An error at the lookahead: "expected WHAT, found TOKEN".
    pub fn expected(&self, what: &str) -> ParseError {
        let found = describe(self.src(), &self.tok);
        error_at(
            self.src(),
            self.tok.start,
            format!("expected {what}, found {found}"),
        )
    }

    /// Consumes a token of `kind` or fails with "expected WHAT".
    #[inline(never)]
    pub fn expect(&mut self, kind: TokenKind, what: &str) -> Result<(), ParseError> {
        if self.tok.kind == kind {
            self.advance()
        } else {
            Err(self.expected(what))
        }
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> ParseError {
        error_at(
            self.src(),
            self.tok.start,
            format!("expression nested too deeply (limits: {MAX_NESTING} levels of nesting, tree depth {MAX_DEPTH})"),
        )
    }

    pub(super) fn check(&self, depth: u32) -> Result<u32, ParseError> {
        if depth > MAX_DEPTH {
            Err(self.too_deep())
        } else {
            Ok(depth)
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        if self.nest >= MAX_NESTING {
            return Err(self.too_deep());
        }
        self.nest += 1;
        Ok(())
    }

    /// Expression ::= OrExpr | OrExpr `?` Expression `:` Expression
    pub fn expr(&mut self) -> Parsed {
        self.enter()?;
        let r = self.binary(1);
        let r = if self.tok.kind == TokenKind::QMark {
            self.conditional(r)
        } else {
            r
        };
        self.nest -= 1;
        r
    }

    #[inline(never)]
    fn conditional(&mut self, cond: Parsed) -> Parsed {
        let c = cond?;
        self.advance()?; // '?'
        let m = self.expr();
        let m = self.middle(m)?;
        let r = self.expr();
        self.make_cond(c, m, r)
    }

    #[inline(never)]
    fn middle(&mut self, m: Parsed) -> Parsed {
        let m = m?;
        self.expect(TokenKind::Colon, "':' in conditional expression")?;
        Ok(m)
    }

    #[inline(never)]
    fn make_elvis(&self, (c, dc): (Expr, u32), r: Parsed) -> Parsed {
        let (r, dr) = r?;
        let d = self.check(1 + dc.max(dr))?;
        Ok((Expr::Elvis(Box::new((c, r))), d))
    }

    #[inline(never)]
    fn make_cond(&self, (c, dc): (Expr, u32), (m, dm): (Expr, u32), r: Parsed) -> Parsed {
        let (r, dr) = r?;
        let d = self.check(1 + dc.max(dm).max(dr))?;
        Ok((Expr::Cond(Box::new((c, m, r))), d))
    }

    /// Binary operators of precedence `min` and tighter, left-associative.
    fn binary(&mut self, min: u8) -> Parsed {
        let mut acc = self.unary()?;
        loop {
            match binop(self.tok.kind) {
                Some((op, prec)) if prec >= min => acc = self.binary_rhs(acc, op, prec)?,
                _ => return Ok(acc),
            }
        }
    }

    /// Consumes `op` and its right operand (of tighter precedence), combining with `lhs`.
    fn binary_rhs(&mut self, lhs: (Expr, u32), op: BinOp, prec: u8) -> Parsed {
        self.advance()?;
        let rhs = if prec >= 10 {
            self.unary()
        } else {
            self.enter()?;
            let r = self.binary(prec + 1);
            self.nest -= 1;
            r
        };
        self.combine(op, lhs, rhs)
    }

    /// `l op r`; a run of one chaining operator grows one [`Expr::Chain`] in place (so a
    /// 50,000-term `||` list is built in linear time and is as deep as its deepest term).
    #[inline(never)]
    fn combine(&self, op: BinOp, (l, dl): (Expr, u32), rhs: Parsed) -> Parsed {
        let (r, dr) = rhs?;
        let joins = op.chains() && matches!(&l, Expr::Binary(o, _) | Expr::Chain(o, _) if *o == op);
        let d = if joins {
            dl.max(1 + dr)
        } else {
            1 + dl.max(dr)
        };
        let d = self.check(d)?;
        Ok((Expr::binary(op, l, r), d))
    }

    /// Unary ::= Postfix | (`-` `+` `!` `~`) Unary — iterative, so a long run of prefix
    /// operators costs no stack.
    fn unary(&mut self) -> Parsed {
        if !matches!(
            self.tok.kind,
            TokenKind::Minus | TokenKind::Plus | TokenKind::Not | TokenKind::BitNot
        ) {
            return self.postfix();
        }
        self.prefixed()
    }

    #[inline(never)]
    fn prefixed(&mut self) -> Parsed {
        let mut ops = Vec::new();
        loop {
            let op = match self.tok.kind {
                TokenKind::Minus => UnOp::Neg,
                TokenKind::Plus => UnOp::Plus,
                TokenKind::Not => UnOp::Not,
                TokenKind::BitNot => UnOp::BitNot,
                _ => break,
            };
            if ops.len() >= MAX_DEPTH as usize {
                return Err(self.too_deep());
            }
            ops.push(op);
            self.advance()?;
        }
        let (mut e, mut d) = self.postfix()?;
        for op in ops.into_iter().rev() {
            d = self.check(d + 1)?;
            e = Expr::Unary(op, Box::new(e));
        }
        Ok((e, d))
    }

    /// Postfix ::= Primary { `.` Name | `[` Expression `]` | `?:` Postfix }
    ///
    /// The elvis operator is a postfix one, as in HTCondor's parser: it binds tighter than
    /// every binary operator (`10 ?: 2 + 3` is 13) and groups to the right (`a ?: b ?: c`).
    fn postfix(&mut self) -> Parsed {
        let r = self.primary();
        match self.tok.kind {
            TokenKind::Selection | TokenKind::OpenBox | TokenKind::Elvis => self.postfix_ops(r?),
            _ => r,
        }
    }

    #[inline(never)]
    fn postfix_ops(&mut self, mut r: (Expr, u32)) -> Parsed {
        loop {
            match self.tok.kind {
                TokenKind::Selection => r = self.selection(r)?,
                TokenKind::OpenBox => r = self.subscript(r)?,
                TokenKind::Elvis => r = self.elvis(r)?,
                _ => return Ok(r),
            }
        }
    }

    #[inline(never)]
    fn selection(&mut self, (e, d): (Expr, u32)) -> Parsed {
        self.advance()?;
        let name = self.name("an attribute name after '.'")?;
        let d = self.check(d + 1)?;
        Ok((Expr::Select(Box::new(e), name), d))
    }

    /// `?:` and its right operand, a postfix expression (nested calls count towards the
    /// nesting limit, so a long `a ?: b ?: …` chain is refused, not a stack overflow).
    #[inline(never)]
    fn elvis(&mut self, left: (Expr, u32)) -> Parsed {
        self.advance()?;
        self.enter()?;
        let r = self.postfix();
        self.nest -= 1;
        self.make_elvis(left, r)
    }

    #[inline(never)]
    fn subscript(&mut self, (e, d): (Expr, u32)) -> Parsed {
        self.advance()?;
        let (i, di) = self.expr()?;
        self.expect(TokenKind::CloseBox, "']' after subscript")?;
        let d = self.check(1 + d.max(di))?;
        Ok((Expr::Index(Box::new((e, i))), d))
    }

    /// Consumes an identifier token and interns it.
    pub fn name(&mut self, what: &str) -> Result<Name, ParseError> {
        if self.tok.kind == TokenKind::Time {
            // A quoted time where only a name can stand (an attribute being defined, or one
            // selected after `.`) is the name HTCondor reads there: it has no quoted times.
            // The token holds no escape (`time_literal`), so its text between the quotes is
            // the name.
            let (start, end) = (self.tok.start, self.tok.end);
            let quoted = self.src().get(start + 1..end.saturating_sub(1));
            if let Some(text) = quoted.filter(|t| !t.contains('\'')).map(str::to_owned) {
                self.bump()?;
                return Ok(Name::new(&text));
            }
        }
        if self.tok.kind != TokenKind::Ident {
            return Err(self.expected(what));
        }
        let t = self.bump()?;
        Ok(Name::new(t.text()))
    }

    fn primary(&mut self) -> Parsed {
        use TokenKind as T;
        match self.tok.kind {
            T::Ident => self.ident(),
            T::Selection => self.root(),
            T::OpenParen => self.paren(),
            T::OpenBox => self.nested_ad(),
            T::OpenBrace => self.list(),
            T::Int | T::Real | T::Bool | T::Str | T::Time | T::Undefined | T::ErrorValue => {
                self.literal()
            }
            _ => Err(self.expected("an expression")),
        }
    }

    #[inline(never)]
    fn literal(&mut self) -> Parsed {
        let t = self.bump()?;
        let v = match t.val {
            TokVal::Int(i) => Value::Int(i),
            TokVal::Real(r) => Value::Real(r),
            TokVal::Bool(b) => Value::Bool(b),
            TokVal::Text(s) => Value::Str(Arc::from(&*s)),
            // The dissertation's quoted relative time (`'00:15'`) is a reltime value, so it is
            // the call `relTime(secs)`; a reltime *literal* would evaluate to a real (HTCondor).
            TokVal::Time(Value::RelTime(secs)) => {
                return Ok((rel_time_call(secs), 2));
            }
            TokVal::Time(v) => v,
            TokVal::None if t.kind == TokenKind::Undefined => Value::Undefined,
            TokVal::None => Value::Error,
        };
        Ok((Expr::Lit(v), 1))
    }

    #[inline(never)]
    fn ident(&mut self) -> Parsed {
        let t = self.bump()?;
        let name = Name::new(t.text());
        if self.tok.kind == TokenKind::OpenParen {
            self.call(name, t.start)
        } else {
            Ok((Expr::Attr(name), 1))
        }
    }

    #[inline(never)]
    fn root(&mut self) -> Parsed {
        self.advance()?;
        let name = self.name("an attribute name after '.'")?;
        Ok((Expr::Root(name), 1))
    }

    fn paren(&mut self) -> Parsed {
        self.advance()?;
        let inner = self.expr();
        self.close_paren(inner)
    }

    #[inline(never)]
    fn close_paren(&mut self, inner: Parsed) -> Parsed {
        let (e, d) = inner?;
        self.expect(TokenKind::CloseParen, "')'")?;
        let d = self.check(d + 1)?;
        Ok((Expr::Paren(Box::new(e)), d))
    }

    #[inline(never)]
    fn nested_ad(&mut self) -> Parsed {
        let (ad, d) = self.classad()?;
        Ok((Expr::Ad(Arc::new(ad)), d))
    }
}

/// `relTime(secs)`: the expression whose value is the relative time `secs`. The argument is
/// an integer only where `relTime` keeps one whole (it truncates integers to 32 bits, as
/// HTCondor does: `relTime(10000000000)` is not `relTime(1e10)`), a real elsewhere.
pub fn rel_time_call(secs: f64) -> Expr {
    // An integer argument cannot carry negative zero.
    let whole = secs.fract() == 0.0
        && !(secs == 0.0 && secs.is_sign_negative())
        && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&secs);
    let arg = if whole {
        Value::Int(secs as i64)
    } else {
        Value::Real(secs)
    };
    Expr::Call(crate::name::Name::new("relTime"), vec![Expr::Lit(arg)])
}
