//! The gang evaluation environment, exactly the dissertation's Figure 32: one record holding,
//! for each member `i` of the gang, a context `_ctx_i = [L = _ctx_k._ad.Ports[j]; …; MY = _ad;
//! _ad = <the ad>]` binding each of its port labels `L` to the port record of the partner
//! docked there (for the implicit port `other`, and `TARGET` too, bound to the partner's
//! record). A port record's enclosing scope is its ad and the ad's is its context, so labels
//! resolve from anywhere in the ad, and a partner's record finds its ad's attributes.
//!
//! A port not yet docked binds its label to `TARGET`, which resolves to nothing: evaluation
//! reports it reached outside ([`eval_tracked`]), and the answer is tentative ([`Check::Maybe`]).

use super::ports::{ports_key, GangAd};
use adjoin_query::eval::{eval_tracked, EvalOptions};
use adjoin_query::{ClassAd, Expr, Name, Value};
use std::sync::{Arc, OnceLock};

/// The most members a gang may have.
pub const MAX_MEMBERS: usize = 64;

/// One member of a gang under construction.
#[derive(Clone, Debug)]
pub struct Member {
    /// The ad.
    pub ad: Arc<GangAd>,
    /// Where it comes from: `None` for the root, else (offer collection, position).
    pub offer: Option<(usize, u32)>,
    /// The parent's (member, port) this member fills, and its own port docked there.
    pub parent: Option<((usize, usize), usize)>,
    /// Per port: the partner docked there, as (member, its port).
    pub docked: Vec<Option<(usize, usize)>>,
}

/// Whether a docking holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Both constraints are true, and stay so whatever is docked later.
    Yes,
    /// A constraint is not true, whatever is docked later.
    No,
    /// Depends on ports not yet docked.
    Maybe,
}

/// A gang under construction: its members, the root first.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// The members; member 0 is the root.
    pub members: Vec<Member>,
}

/// `_ctx_i` names, made once.
fn ctx_name(i: usize) -> Name {
    static NAMES: OnceLock<Vec<Name>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..MAX_MEMBERS)
            .map(|i| Name::new(&format!("_ctx_{i}")))
            .collect()
    });
    names
        .get(i)
        .copied()
        .unwrap_or_else(|| Name::new(&format!("_ctx_{i}")))
}

/// `_ad`.
fn ad_name() -> Name {
    Name::new("_ad")
}

impl Tree {
    /// A gang of the root `root` alone.
    pub fn root(root: Arc<GangAd>) -> Tree {
        let n = root.ports.len();
        Tree {
            members: vec![Member {
                ad: root,
                offer: None,
                parent: None,
                docked: vec![None; n],
            }],
        }
    }

    /// Whether the offer `(collection, position)` is in the gang.
    pub fn uses(&self, offer: (usize, u32)) -> bool {
        self.members.iter().any(|m| m.offer == Some(offer))
    }

    /// Docks `ad` (offer `offer`) by its port `port` at `slot` (member, port); its index.
    pub fn dock(
        &mut self,
        slot: (usize, usize),
        ad: Arc<GangAd>,
        offer: (usize, u32),
        port: usize,
    ) -> usize {
        let i = self.members.len();
        let mut docked = vec![None; ad.ports.len()];
        if let Some(d) = docked.get_mut(port) {
            *d = Some(slot);
        }
        self.members.push(Member {
            ad,
            offer: Some(offer),
            parent: Some((slot, port)),
            docked,
        });
        if let Some(d) = self
            .members
            .get_mut(slot.0)
            .and_then(|m| m.docked.get_mut(slot.1))
        {
            *d = Some((i, port));
        }
        i
    }

    /// Undoes the last [`Tree::dock`].
    pub fn undock(&mut self) {
        if let Some(Member {
            parent: Some((slot, _)),
            ..
        }) = self.members.pop()
        {
            if let Some(d) = self
                .members
                .get_mut(slot.0)
                .and_then(|m| m.docked.get_mut(slot.1))
            {
                *d = None;
            }
        }
    }

    /// The Figure-32 record of the gang as it stands.
    pub fn environment(&self) -> ClassAd {
        let mut env = ClassAd::with_capacity(self.members.len());
        let target = Name::new("TARGET");
        for (i, m) in self.members.iter().enumerate() {
            let mut ctx = ClassAd::with_capacity(m.ad.ports.len() + 3);
            for (p, port) in m.ad.ports.iter().enumerate() {
                let bound = match m.docked.get(p).copied().flatten() {
                    Some((k, j)) => self.record_path(k, j),
                    None => Expr::Attr(target),
                };
                if m.ad.implicit {
                    ctx.insert(target, bound.clone());
                }
                ctx.insert(port.label, bound);
            }
            ctx.insert(Name::new("MY"), Expr::Attr(ad_name()));
            ctx.insert(ad_name(), Expr::Ad(Arc::clone(&m.ad.ad)));
            env.insert(ctx_name(i), Expr::Ad(Arc::new(ctx)));
        }
        env
    }

    /// `_ctx_k._ad.Ports[j]` (or `_ctx_k._ad` for an implicit port).
    pub fn record_path(&self, k: usize, j: usize) -> Expr {
        let ad = Expr::Select(Box::new(Expr::Attr(ctx_name(k))), ad_name());
        match self.members.get(k) {
            Some(m) if !m.ad.implicit => {
                let ports = Expr::Select(Box::new(ad), Name::new(ports_key().as_str()));
                Expr::Index(Box::new((ports, Expr::Lit(Value::Int(j as i64)))))
            }
            _ => ad,
        }
    }

    /// Evaluates `attr` of the record of port `p` of member `m` in `env` (the
    /// [`Tree::environment`]): the value, and whether it may change as more is docked.
    pub fn eval_port_attr(
        &self,
        env: &ClassAd,
        m: usize,
        p: usize,
        attr: Name,
        opts: &EvalOptions,
    ) -> (Value, bool) {
        let e = Expr::Select(Box::new(self.record_path(m, p)), attr);
        eval_tracked(&e, env, opts)
    }

    /// Whether the constraint of port `p` of member `m` holds in `env`.
    pub fn port_holds(&self, env: &ClassAd, m: usize, p: usize, opts: &EvalOptions) -> Check {
        let Some(key) = self
            .members
            .get(m)
            .and_then(|x| x.ad.ports.get(p))
            .and_then(|x| x.constraint)
        else {
            return Check::No;
        };
        let (v, touched) = self.eval_port_attr(env, m, p, Name::new(key.as_str()), opts);
        match (v, touched) {
            (Value::Bool(true), false) => Check::Yes,
            (_, true) => Check::Maybe,
            _ => Check::No,
        }
    }

    /// Whether the docking of member `c` (not the root) with its parent holds in `env`: both
    /// constraints.
    pub fn edge_holds(&self, env: &ClassAd, c: usize, opts: &EvalOptions) -> Check {
        let Some(((pm, pp), own)) = self.members.get(c).and_then(|m| m.parent) else {
            return Check::Yes;
        };
        let a = self.port_holds(env, pm, pp, opts);
        if a == Check::No {
            return Check::No;
        }
        match (a, self.port_holds(env, c, own, opts)) {
            (_, Check::No) => Check::No,
            (Check::Yes, Check::Yes) => Check::Yes,
            _ => Check::Maybe,
        }
    }

    /// The labels from the root down to the port member `c` fills, joined by `/`.
    pub fn path(&self, c: usize) -> String {
        let mut parts = Vec::new();
        let mut cur = c;
        while let Some(((pm, pp), _)) = self.members.get(cur).and_then(|m| m.parent) {
            if let Some(port) = self.members.get(pm).and_then(|m| m.ad.ports.get(pp)) {
                parts.push(port.label.as_str());
            }
            cur = pm;
        }
        parts.reverse();
        parts.join("/")
    }
}

/// Whether every docking of a complete gang holds (ports all docked; values final): what the
/// tests check every gang against.
#[cfg(test)]
pub fn valid(tree: &Tree, opts: &EvalOptions) -> bool {
    if tree
        .members
        .iter()
        .any(|m| m.docked.iter().any(Option::is_none))
    {
        return false;
    }
    let env = tree.environment();
    (1..tree.members.len()).all(|c| {
        let Some(((pm, pp), own)) = tree.members[c].parent else {
            return false;
        };
        holds_final(tree, &env, pm, pp, opts) && holds_final(tree, &env, c, own, opts)
    })
}

/// Whether a constraint is true in a complete gang's `env` (reaching outside is final there).
pub fn holds_final(tree: &Tree, env: &ClassAd, m: usize, p: usize, opts: &EvalOptions) -> bool {
    let Some(key) = tree
        .members
        .get(m)
        .and_then(|x| x.ad.ports.get(p))
        .and_then(|x| x.constraint)
    else {
        return false;
    };
    matches!(
        tree.eval_port_attr(env, m, p, Name::new(key.as_str()), opts)
            .0,
        Value::Bool(true)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn gad(text: &str) -> Arc<GangAd> {
        Arc::new(GangAd::new(Arc::new(parse::classad(text).expect("ad"))).expect("ports"))
    }

    #[test]
    fn figure_32() {
        let job = gad(r#"[Ports = {[Label = Cpu; ImageSize = 100; MemoryReqs = 10;
                Constraint = cpu.Arch == "INTEL" && cpu.VirtualMemory > ImageSize],
              [Label = License; HostId = cpu.Key; Constraint = License.App == "app1"]}]"#);
        let machine = gad(
            r#"[Key = 90; Arch = "INTEL"; VirtualMemory = 400; Memory = 800;
                Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory - 15]}]"#,
        );
        let license = gad(r#"[App = "app1";
                Ports = {[Label = Job; Constraint = Job.HostID >= 50 && Job.HostId < 100]}]"#);
        let opts = EvalOptions::default();
        let mut t = Tree::root(job);
        // The license first: its constraint reads cpu.Key through the job, undocked yet.
        let l = t.dock((0, 1), license, (1, 0), 0);
        assert_eq!(t.edge_holds(&t.environment(), l, &opts), Check::Maybe);
        let m = t.dock((0, 0), machine, (0, 0), 0);
        let env = t.environment();
        assert_eq!(t.edge_holds(&env, m, &opts), Check::Yes);
        assert_eq!(t.edge_holds(&env, l, &opts), Check::Yes);
        assert!(valid(&t, &opts));
        assert_eq!(
            (t.path(m), t.path(l)),
            ("Cpu".to_owned(), "License".to_owned())
        );
        let (v, _) = t.eval_port_attr(&env, 0, 1, Name::new("HostId"), &opts);
        assert!(v.same_as(&Value::Int(90)));
    }

    #[test]
    fn plain_ads_dock_through_other_and_target() {
        let job =
            gad(r#"[Memory = 10; Requirements = TARGET.Memory >= MY.Memory && other.Arch == "X"]"#);
        let slot = gad(r#"[Memory = 20; Arch = "X"; Requirements = TARGET.Memory <= 10]"#);
        let small = gad(r#"[Memory = 5; Arch = "X"; Requirements = true]"#);
        let opts = EvalOptions::default();
        for (offer, want) in [(slot, Check::Yes), (small, Check::No)] {
            let mut t = Tree::root(Arc::clone(&job));
            let c = t.dock((0, 0), offer, (0, 0), 0);
            assert_eq!(t.edge_holds(&t.environment(), c, &opts), want);
        }
    }
}
