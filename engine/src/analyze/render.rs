//! The text form of an analysis, after HTCondor's `condor_q -better-analyze`: the summary
//! ("Of N slots, …"), the Step / Matched / Condition table, then conflicts, suggestions and
//! the offer side, and for a request with `Ports` the per-port table.

use super::{Action, Analysis, ConflictKind, Metric};
use std::fmt::Write;

/// `a` as text; `offers` and `request` name the two sides ("slots", "job"; reversed:
/// "jobs", "slot").
pub fn render_text(a: &Analysis, offers: &str, request: &str) -> String {
    let mut s = String::new();
    let _ = render(&mut s, a, offers, request);
    s
}

fn render(s: &mut String, a: &Analysis, offers: &str, request: &str) -> std::fmt::Result {
    if a.conditions.is_empty() && a.gang.is_some() {
        writeln!(
            s,
            "The {request} {} has no Requirements of its own: its constraints are its ports'.",
            a.request
        )?;
        writeln!(s)?;
    } else {
        conditions(s, a, offers, request)?;
    }
    writeln!(
        s,
        "{}: Run analysis summary. Of {} {offers},",
        a.request, a.offers
    )?;
    writeln!(
        s,
        "  {:>8} are rejected by your {request}'s requirements",
        a.rejected_by_request
    )?;
    writeln!(
        s,
        "  {:>8} reject your {request} because of their own requirements",
        a.rejecting_request
    )?;
    writeln!(s, "  {:>8} match", a.matching)?;
    if !a.conflicts.is_empty() || !a.conflicts_cut_short.is_empty() {
        writeln!(s)?;
        writeln!(
            s,
            "Conflicts (conditions no {} satisfies together):",
            singular(offers)
        )?;
        for c in &a.conflicts {
            let ids: Vec<String> = c.conditions.iter().map(|i| format!("[{i}]")).collect();
            let why = match c.kind {
                ConflictKind::Data => format!("no {} satisfies them together", singular(offers)),
                ConflictKind::Value => "no value can satisfy them together".to_owned(),
            };
            writeln!(s, "  {}  ({why})", ids.join(" "))?;
        }
    }
    for k in &a.conflicts_cut_short {
        let kind = match k {
            ConflictKind::Data => "data",
            ConflictKind::Value => "value",
        };
        writeln!(
            s,
            "  (the search for {kind} conflicts stopped at its work budget: there may be more)"
        )?;
    }
    if !a.suggestions.is_empty() {
        writeln!(s)?;
        writeln!(s, "Suggestions (each checked by re-matching):")?;
        for (n, sg) in a.suggestions.iter().enumerate() {
            let metric = match sg.metric {
                Metric::M1 => "M1",
                Metric::M2 => "M2",
            };
            writeln!(
                s,
                "  {}. ({metric}) would match {} {}:",
                n + 1,
                sg.would_match,
                plural(offers, sg.would_match)
            )?;
            for ch in &sg.changes {
                match (ch.action, &ch.to) {
                    (Action::Modify, Some(to)) => {
                        writeln!(s, "       modify [{}] to {to}", ch.condition)?
                    }
                    _ => writeln!(
                        s,
                        "       remove [{}] {}",
                        ch.condition,
                        a.conditions
                            .get(ch.condition)
                            .map(|c| c.condition.as_str())
                            .unwrap_or("")
                    )?,
                }
            }
        }
    }
    if !a.offer_side.is_empty() {
        writeln!(s)?;
        writeln!(
            s,
            "Attributes of your {request} that {offers} reject it over:"
        )?;
        for o in &a.offer_side {
            match &o.suggest {
                Some(v) => writeln!(
                    s,
                    "  {:<24} rejected by {:>7}; {} = {v} would match {}",
                    o.attribute, o.rejecting, o.attribute, o.would_match
                )?,
                None => writeln!(s, "  {:<24} rejected by {:>7}", o.attribute, o.rejecting)?,
            }
        }
    }
    if let Some(g) = &a.gang {
        writeln!(s)?;
        writeln!(s, "Ports of your {request} (gangmatching):")?;
        writeln!(s, "Port   Candidates  Label")?;
        writeln!(s, "-----  ----------  -----")?;
        for p in &g.ports {
            let mark = if g.first_unfillable == Some(p.port) {
                "  <- cannot be filled together with the ports before it"
            } else {
                ""
            };
            writeln!(
                s,
                "{:<5}  {:>10}  {}{mark}",
                format!("[{}]", p.port),
                p.candidates,
                p.label
            )?;
        }
        match g.first_unfillable {
            Some(k) => writeln!(s, "No gang fills ports [0] to [{k}] together.")?,
            None => writeln!(s, "A gang fills every port.")?,
        }
    }
    Ok(())
}

/// The Step / Matched / Condition table.
fn conditions(s: &mut String, a: &Analysis, offers: &str, request: &str) -> std::fmt::Result {
    writeln!(
        s,
        "The Requirements expression for {request} {} reduces to these conditions:",
        a.request
    )?;
    writeln!(s)?;
    writeln!(s, "         {}", cap(offers))?;
    writeln!(s, "Step    Matched  Cumulative  Condition")?;
    writeln!(s, "-----  --------  ----------  ---------")?;
    for (i, c) in a.conditions.iter().enumerate() {
        writeln!(
            s,
            "{:<5}  {:>8}  {:>10}  {}",
            format!("[{i}]"),
            c.matched,
            c.step_matched,
            c.condition
        )?;
    }
    writeln!(s)
}

/// `word` capitalized.
fn cap(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `word`, without its final `s` for one.
fn plural(word: &str, n: u64) -> &str {
    if n == 1 {
        singular(word)
    } else {
        word
    }
}

/// `word` without a final `s`.
fn singular(word: &str) -> &str {
    word.strip_suffix('s').unwrap_or(word)
}
