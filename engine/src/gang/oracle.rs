//! The exhaustive search the algorithms are tested against: every way of docking free offers
//! at every open port, in every order, each complete tree checked by evaluation alone
//! ([`valid`]). Exponential; for small pools in tests.

use super::env::{valid, Tree, MAX_MEMBERS};
use super::pool::Pool;
use super::ports::GangAd;
use adjoin_query::eval::EvalOptions;
use std::sync::Arc;

/// Whether some valid gang for `root` exists among the free offers of `pool`.
pub fn exists(pool: &Pool, root: Arc<GangAd>, opts: &EvalOptions) -> bool {
    let n = root.ports.len();
    let mut tree = Tree::root(root);
    let mut open: Vec<(usize, usize)> = (0..n).map(|p| (0, p)).collect();
    fill(pool, &mut tree, &mut open, opts)
}

fn fill(pool: &Pool, tree: &mut Tree, open: &mut Vec<(usize, usize)>, opts: &EvalOptions) -> bool {
    let Some(slot) = open.pop() else {
        return valid(tree, opts);
    };
    if tree.members.len() < MAX_MEMBERS {
        for c in pool.all() {
            if tree.uses(c.offer()) {
                continue;
            }
            let Some(gad) = pool.free(c.offer()).cloned() else {
                continue;
            };
            let child = tree.dock(slot, Arc::clone(&gad), c.offer(), c.port);
            let before = open.len();
            open.extend(
                (0..gad.ports.len())
                    .filter(|&j| j != c.port)
                    .map(|j| (child, j)),
            );
            if fill(pool, tree, open, opts) {
                return true;
            }
            open.truncate(before);
            tree.undock();
        }
    }
    open.push(slot);
    false
}
