//! Outcome keys remembered across a cycle's matchlists: requests whose `Preferences` and
//! everything its values read of the request are alike give every offer the same outcome,
//! provided everything the values read of the offer is a plain literal there (no expression of
//! the offer is evaluated, so nothing else of either ad is read). A cycle's clusters differ in
//! much, but their preferences are few: each offer's key is evaluated once per kind of
//! preferences instead of once per cluster. Exact: every key is the one evaluation gives.

use super::net::Preferences;
use adjoin_index::AdId;
use adjoin_query::eval::EvalOptions;
use adjoin_query::refs::references;
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Keys remembered, at most, over all kinds (the tables are dense over offers).
const REMEMBERED: usize = 1 << 24;

/// Each offer's key, by position: `None` not yet known, `Some(None)` not to be remembered.
type Keys = Vec<Option<Option<u64>>>;

/// The remembered keys of one cycle.
#[derive(Clone, Debug, Default)]
pub struct Remembered {
    /// Per kind of preferences (their printed form and what they read of the request): what
    /// they read of the offer, and each offer's key once known (`Some(None)`: not to be
    /// remembered, as the offer binds a read attribute to an expression).
    tables: HashMap<String, (Vec<Key>, Keys)>,
    entries: usize,
}

/// Whether `e` is a plain literal (not a list or an ad).
fn plain(e: &Expr) -> bool {
    matches!(e, Expr::Lit(v) if !matches!(v, Value::List(_) | Value::Ad(_)))
}

impl Remembered {
    /// The outcome key of each candidate (positions in `offers`) for `request`, in order.
    pub fn keys(
        &mut self,
        prefs: &Preferences,
        request: &ClassAd,
        candidates: &[AdId],
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Vec<u64> {
        let eval = |o: &ClassAd| prefs.key(&prefs.outcome(request, o, opts));
        let Some((reads, table)) = self.table(prefs, request, offers.len(), opts) else {
            return candidates
                .iter()
                .map(|&o| offers.get(o as usize).map_or(0, |a| eval(a)))
                .collect();
        };
        candidates
            .iter()
            .map(|&o| {
                let Some(offer) = offers.get(o as usize) else {
                    return 0;
                };
                match table.get_mut(o as usize) {
                    Some(Some(Some(k))) => *k,
                    Some(Some(None)) | None => eval(offer),
                    Some(slot @ None) => {
                        let k = eval(offer);
                        let fixed = reads.iter().all(|&r| offer.get_key(r).is_none_or(plain));
                        *slot = Some(fixed.then_some(k));
                        k
                    }
                }
            })
            .collect()
    }

    /// The table of `request`'s kind of preferences, made on first use; `None` when what the
    /// values read cannot be known statically, or the bound is reached.
    fn table(
        &mut self,
        prefs: &Preferences,
        request: &ClassAd,
        offers: usize,
        opts: &EvalOptions,
    ) -> Option<(&[Key], &mut Keys)> {
        let mut kind = format!("{:?}", request.get("Preferences")?);
        let mut reads: Vec<Key> = Vec::new();
        for v in &prefs.vars {
            let refs = references(&v.value, request, opts);
            if !refs.complete {
                return None;
            }
            for name in &refs.internal {
                kind.push_str(&format!("\n{name}={:?}", request.get(name)));
            }
            reads.extend(refs.external.iter().map(|n| Key::of(n)));
        }
        if !self.tables.contains_key(&kind) {
            if self.entries + offers > REMEMBERED {
                return None;
            }
            self.entries += offers;
            reads.sort_unstable();
            reads.dedup();
            self.tables
                .insert(kind.clone(), (reads, vec![None; offers]));
        }
        let (reads, table) = self.tables.get_mut(&kind)?;
        (table.len() == offers).then_some((reads.as_slice(), table))
    }
}
