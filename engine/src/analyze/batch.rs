//! The batch (`--unmatched`) read as a matchmaking cycle reads it: the offers read
//! undecoded, one ad decoded per distinct shape to learn what offers read of requests (the
//! cycle's roots), the requests read undecoded and clustered by the cycle's shapes (one ad
//! decoded per shape), and each cluster's match settled through the offer collection's held
//! index — no offer is decoded to settle it.

use super::conditions::Condition;
use super::indexed::over_offer;
use super::unmatched::Clustered;
use super::{AnalyzeError, AnalyzeOptions, Pool};
use crate::cycle::cluster::roots;
use crate::cycle::{read_requests, CycleOptions, RootsFrom, WindowShare};
use crate::db::Held;
use crate::{Db, DbError};
use adjoin_index::{AdId, Query, RoaringBitmap};
use adjoin_query::ast::{BinOp, Expr};
use adjoin_query::specialize::specialize;
use adjoin_query::{ClassAd, Value};
use adjoin_storage::raw::is_plain_literal;
use rustc_hash::FxHashSet;
use std::sync::{mpsc, Arc};

impl Db {
    /// One ad of each shape of `offers` (its names in order, and each expression's encoding
    /// unless a plain literal): they read of requests what all the offers read.
    fn offer_shapes(&self, offers: &str) -> Result<Vec<Arc<ClassAd>>, AnalyzeError> {
        let mut seen: FxHashSet<Box<[u8]>> = FxHashSet::default();
        let mut reps = Vec::new();
        let mut key: Vec<u8> = Vec::new();
        let scan = self.store().scan_with(offers, |_, _, raw| {
            key.clear();
            let walked = raw.for_each_attr(|n, bytes| {
                key.extend_from_slice(&n.key().0.to_le_bytes());
                if is_plain_literal(bytes) {
                    key.push(0);
                } else {
                    key.push(1);
                    key.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                    key.extend_from_slice(bytes);
                }
            });
            if walked.is_err() || !seen.contains(key.as_slice()) {
                seen.insert(key.as_slice().into());
                reps.push(Arc::new(raw.decode()?));
            }
            Ok(())
        })?;
        for item in scan {
            item?;
        }
        Ok(reps)
    }

    /// The requests of `requests`, read undecoded and clustered as a cycle against `offers`
    /// would cluster them (the cycle's own reader: the offers' shapes are read on a second
    /// thread meanwhile); every request its own cluster when what the offers read of
    /// requests cannot be seen.
    pub(crate) fn clustered(
        &self,
        requests: &str,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Clustered, AnalyzeError> {
        let cycle = CycleOptions {
            requests: requests.to_owned(),
            offers: offers.to_owned(),
            ..CycleOptions::default()
        };
        let (roots_to, roots_from) = mpsc::channel();
        // The first request of each shape, which a cycle readies its index for: not used (nor
        // its windows made: no side waits for them).
        let (reps_to, _) = mpsc::channel();
        let no_windows = WindowShare::none_made();
        let (read, shapes) = std::thread::scope(|scope| {
            let offer_side = scope.spawn(|| {
                let shapes = self.offer_shapes(offers);
                let found = shapes.as_ref().ok().and_then(|r| roots(r, &[], &opts.eval));
                // The reader gone has failed; its error is the answer.
                let _ = roots_to.send(RootsFrom::Found(found));
                shapes
            });
            let read = read_requests(
                self,
                &cycle,
                &opts.eval,
                &roots_from,
                (&reps_to, &no_windows),
                false,
            );
            let shapes = offer_side
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (read, shapes)
        });
        shapes?;
        let (read, shapes, _) = read.map_err(|e| DbError::Cycle(Box::new(e)))?;
        if let Some(e) = read.damaged.into_iter().next() {
            return Err(e.into());
        }
        Ok(match shapes {
            Some(shapes) => Clustered::of_shapes(shapes, &read.ids),
            None => Clustered::singletons(&Pool {
                ids: read.ids,
                ads: read.ads,
            }),
        })
    }
}

/// Whether `q` has a hit among `available`: a candidate known to match settles it without
/// evaluation; the others are confirmed.
fn any_hit(held: &mut Held, q: &Query, available: &RoaringBitmap) -> bool {
    held.index.prepare(q);
    let mut a = held.index.candidates(q);
    let known = a.exact.iter().any(|rid| {
        held.index
            .owner(rid)
            .is_some_and(|(ad, _)| available.contains(ad))
    });
    known || !(&held.index.confirm_ads(q, &mut a) & available).is_empty()
}

/// Whether some offer of `available` in the held index matches `request` both ways.
pub(crate) fn any_match(
    held: &mut Held,
    request: &Arc<ClassAd>,
    available: &RoaringBitmap,
) -> bool {
    let opts = held.index.options().clone();
    Query::two_sided(request, &opts)
        .iter()
        .any(|q| any_hit(held, q, available))
}

/// Why a request that matches no offer matches none, when that is told without its
/// conditions' answers: its Requirements are true for some offer, and every offer rejects it
/// ([`Quick::Attribute`]) or some accept it ([`Quick::BothWays`]).
pub(crate) enum Quick {
    /// Offers the request likes do not like it.
    BothWays,
    /// Every offer rejects it: the offers its offer side reads back (the first `most`, as
    /// the full analysis reads them).
    Attribute(Vec<(AdId, String)>),
}

/// [`Quick`] for `request` (of conditions `conds`) against the offers `available` of the held
/// index, reading back at most `most` offers; `None` when its Requirements are true for no
/// offer (the full analysis then finds the condition or conflict) or cannot be rewritten.
pub(crate) fn quick(
    held: &mut Held,
    request: &ClassAd,
    conds: &[Condition],
    opts: &AnalyzeOptions,
    available: &RoaringBitmap,
    most: usize,
) -> Option<Quick> {
    if !held.ported_ads().is_empty() {
        return None;
    }
    let iopts = held.index.options().clone();
    let fallback = opts.eval.target_fallback;
    // The conditions together, each as the full analysis rewrites it over the offer.
    let all = conds
        .iter()
        .map(|c| {
            let known = specialize(&c.expr, request, &opts.eval);
            over_offer(&known, request, fallback, 0).map(|e| Expr::Paren(Box::new(e)))
        })
        .collect::<Option<Vec<Expr>>>()?
        .into_iter()
        .reduce(|a, b| Expr::binary(BinOp::And, a, b))
        .unwrap_or(Expr::Lit(Value::Bool(true)));
    let probe = Arc::new(request.clone());
    // With the request as TARGET: the offers' own attributes may read it.
    let q = Query::one_sided(&all, &iopts).against(Arc::clone(&probe));
    if !any_hit(held, &q, available) {
        return None;
    }
    if Query::reverse(&probe, &iopts)
        .iter()
        .any(|q| any_hit(held, q, available))
    {
        return Some(Quick::BothWays);
    }
    Some(Quick::Attribute(
        available
            .iter()
            .take(most)
            .filter_map(|n| held.id(n).map(|id| (n, id)))
            .collect(),
    ))
}
