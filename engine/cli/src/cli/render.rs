//! Output formatting shared by the database commands: ads in old syntax or one-line JSON,
//! attribute projection, parse errors with a caret under the source, times, sizes and tables.

use adjoin::query::print::{json::write_ad_json, old::write_ad_old, real::write_abs_time};
use adjoin::query::{AbsTime, ClassAd, Key, ParseError};
use std::fmt::Write as _;

/// How ads are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdStyle {
    /// Old syntax, `Name = expr` per line, each ad followed by a blank line
    /// (`condor_status -long`).
    Old,
    /// HTCondor's JSON form, one ad per line.
    JsonLine,
    /// New syntax, one ad per line (`[ Name = "x"; Memory = 1024 ]`).
    NewLine,
}

impl AdStyle {
    /// `JsonLine` when `json`, else `Old`.
    pub fn from_json_flag(json: bool) -> AdStyle {
        if json {
            AdStyle::JsonLine
        } else {
            AdStyle::Old
        }
    }
}

/// Appends `ad` in `style`, with its separator (a blank line, or a newline for JSON).
pub fn write_ad(out: &mut String, ad: &ClassAd, style: AdStyle) {
    match style {
        AdStyle::Old => {
            write_ad_old(out, ad);
            out.push('\n');
        }
        AdStyle::JsonLine => {
            write_ad_json(out, ad, true);
            out.push('\n');
        }
        AdStyle::NewLine => {
            let _ = writeln!(out, "{ad}");
        }
    }
}

/// The attributes of `ad` named in `attrs` (matched ignoring case, spelled as the ad spells
/// them), in the order of `attrs`; names the ad lacks are left out.
pub fn project(ad: &ClassAd, attrs: &[String]) -> ClassAd {
    let mut out = ClassAd::new();
    for a in attrs {
        if let Some((name, e)) = ad.entry(Key::of(a)) {
            out.insert(name, e.clone());
        }
    }
    out
}

/// `what` failed to parse: the message with line:column, the source line and a caret under
/// the column, e.g.
/// ```text
/// constraint does not parse: 1:9: expected an expression
///   Memory >
///           ^
/// ```
pub fn parse_error(what: &str, source: &str, e: &ParseError) -> String {
    let mut s = format!("{what} does not parse: {e}");
    let line = source
        .lines()
        .nth(e.line.saturating_sub(1) as usize)
        .unwrap_or("");
    // Tabs would misplace the caret; show them as spaces.
    let shown: String = line
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let col = (e.col.max(1) as usize - 1).min(shown.chars().count());
    let _ = write!(s, "\n  {shown}\n  {}^", " ".repeat(col));
    s
}

/// A Unix time as `2014-12-05T19:36:59Z`.
pub fn utc_time(secs: i64) -> String {
    let mut s = String::new();
    write_abs_time(&mut s, AbsTime { secs, offset: 0 });
    // write_abs_time spells a zero offset `-00:00`, as HTCondor does.
    match s.strip_suffix("-00:00") {
        Some(t) => format!("{t}Z"),
        None => s,
    }
}

/// A byte count for people: `512 B`, `1.5 KiB`, `12.3 MiB`, `2.0 GiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A count with thousands separators: `20,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` things, with thousands separators and a plural `s` unless `n` is 1: `1 ad`, `20,000 ads`.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

/// A duration for people: `850 µs`, `12.3 ms`, `1.52 s`.
pub fn duration(d: std::time::Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// Rows of cells printed as aligned columns, each column left- or right-aligned.
pub struct Table {
    rows: Vec<Vec<String>>,
    /// `l` or `r` per column; columns past its end are right-aligned.
    align: Vec<u8>,
}

impl Default for Table {
    /// The first column left-aligned (a label), the rest right-aligned (numbers).
    fn default() -> Table {
        Table::aligned("l")
    }
}

impl Table {
    /// A table aligned as `align` says, a letter per column: `l` left, `r` right (e.g. `"llr"`).
    pub fn aligned(align: &str) -> Table {
        Table {
            rows: Vec::new(),
            align: align.bytes().collect(),
        }
    }

    /// Adds a row.
    pub fn row<S: ToString>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows
            .push(cells.into_iter().map(|c| c.to_string()).collect());
    }

    /// The table, each line indented by `indent` spaces and ended with a newline.
    pub fn render(&self, indent: usize) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for r in &self.rows {
            let mut line = " ".repeat(indent);
            for (c, cell) in r.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = width[c] - cell.chars().count();
                if self.align.get(c) == Some(&b'l') {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                } else {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin::query::parse;

    fn ad(text: &str) -> ClassAd {
        parse::classad(text).expect("ad")
    }

    #[test]
    fn ads_in_each_style() {
        for (text, style, want) in [
            ("[a = 1; B = \"x\"]", AdStyle::Old, "a = 1\nB = \"x\"\n\n"),
            (
                "[a = 1; B = \"x\"]",
                AdStyle::JsonLine,
                "{\"a\": 1,\"B\": \"x\"}\n",
            ),
            ("[]", AdStyle::Old, "\n"),
        ] {
            let mut out = String::new();
            write_ad(&mut out, &ad(text), style);
            assert_eq!(out, want, "{text} {style:?}");
        }
    }

    #[test]
    fn projection_keeps_the_asked_order_and_the_ads_spelling() {
        for (attrs, want) in [
            (&["b", "A"][..], "b = 2\na = 1\n"),
            (&["MISSING", "a"][..], "a = 1\n"),
            (&[][..], ""),
        ] {
            let attrs: Vec<String> = attrs.iter().map(|s| s.to_string()).collect();
            let p = project(&ad("[a = 1; b = 2; c = 3]"), &attrs);
            assert_eq!(adjoin::query::print::old::ad_to_old(&p), want, "{attrs:?}");
        }
    }

    #[test]
    fn carets_under_the_column() {
        for (src, want) in [
            ("Memory >", "  Memory >\n          ^"),
            ("a +\n  * b", "    * b\n    ^"),
            ("\tx y", "   x y\n     ^"),
        ] {
            let e = parse::expr(src).expect_err("must fail");
            let got = parse_error("constraint", src, &e);
            assert!(got.starts_with("constraint does not parse: "), "{got}");
            assert!(got.ends_with(want), "{src:?}: {got}");
        }
    }

    #[test]
    fn numbers_and_times() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_time(1_417_808_219), "2014-12-05T19:36:59Z");
        for (n, want) in [
            (0, "0 B"),
            (1023, "1023 B"),
            (1536, "1.5 KiB"),
            (3 << 20, "3.0 MiB"),
        ] {
            assert_eq!(human_bytes(n), want);
        }
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (20_000, "20,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), want);
        }
        for (n, want) in [
            (0, "0 ads"),
            (1, "1 ad"),
            (2, "2 ads"),
            (12_345, "12,345 ads"),
        ] {
            assert_eq!(count(n, "ad"), want);
        }
    }

    #[test]
    fn tables_align() {
        let mut t = Table::default();
        t.row(["collection", "ads"]);
        t.row(["m", "20000"]);
        assert_eq!(t.render(2), "  collection    ads\n  m           20000\n");
        let mut t = Table::aligned("lrl");
        t.row(["a", "1", "bbb"]);
        t.row(["ccc", "22", "d"]);
        assert_eq!(t.render(0), "a     1  bbb\nccc  22  d\n");
    }
}
