//! What the fuzz targets share: the offers they match against (mixed types under one name,
//! absent and undefined values, expressions, lists, nested ads, a relative-time literal), the
//! reading of an input as lines of expressions (leaving out inputs whose evaluations may
//! differ), and the dry-run cycle the `cycle` and `carve` targets compare.
#![allow(dead_code)]

use adjoin::cycle::CycleOptions;
use adjoin::query::{parse, Expr};
use adjoin::Db;

/// The offers.
pub const ADS: &[&str] = &[
    r#"[Name = "m0"; Memory = 2048; Cpus = 4; Arch = "X86_64"; Requirements = true]"#,
    r#"[Name = "m1"; Memory = 512.5; Cpus = "many"; Arch = "x86_64"; Tag = {1, "a"}; Requirements = TARGET.Memory =!= undefined]"#,
    r#"[Name = "m2"; Memory = undefined; Cpus = true; Arch = "INTEL"; Requirements = other.Cpus < 8]"#,
    r#"[Name = "m3"; Cpus = 0; Disk = relTime("1:00"); Site = [Name = "s"; Cap = 5]; Requirements = MY.Cpus == 0]"#,
    r#"[Name = "m4"; Memory = Cpus * 1024; Cpus = 2; Arch = error; Requirements = isUndefined(TARGET.x)]"#,
    r#"[Name = "m5"; Memory = -1; Cpus = 1e300; Disk = absTime(0); Arch = ""; Requirements = Memory > 0]"#,
    r#"[Name = "m6"; Memory = TARGET.Memory; Cpus = 16; Tag = "b"; AvailableGPUs = {G}; G = [Capability = 7]]"#,
    r#"[Name = "m7"; memory = 4096; CPUS = 8; arch = "ARM"; Requirements = regexp("^a", TARGET.Arch, "i")]"#,
];

/// Whether `text` may read the clock or draw random numbers.
pub fn unsteady(text: &str) -> bool {
    let l = text.to_ascii_lowercase();
    l.contains("random")
        || l.match_indices("time").any(|(i, _)| {
            let before = &l[..i];
            !(before.ends_with("rel") || before.ends_with("abs"))
        })
}

/// The matches of one kind of dry-run cycle of requests `j` against offers `m`: request,
/// offer and docking vector, in order.
pub fn cycle(db: &Db, naive: bool, no_clusters: bool) -> Vec<(String, String, String)> {
    let opts = CycleOptions {
        dry_run: true,
        naive,
        no_clusters,
        ..CycleOptions::new("j", "m")
    };
    db.match_cycle(&opts)
        .expect("cycle")
        .matches
        .into_iter()
        .map(|m| {
            let v: Vec<String> = m.vector.iter().map(|x| format!("{x:?}")).collect();
            (m.request, m.offer, v.join(" "))
        })
        .collect()
}

/// The input as text, unless it is not UTF-8 or is [`unsteady`].
pub fn steady_text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok().filter(|t| !unsteady(t))
}

/// The input's first `N` lines as expressions, the last taking the rest of the input: `None`
/// for a line missing or blank; `None` in all when a line does not parse.
pub fn expressions<const N: usize>(text: &str) -> Option<[Option<Expr>; N]> {
    let mut lines = text.splitn(N, '\n');
    let mut out = Vec::with_capacity(N);
    for _ in 0..N {
        out.push(match lines.next().map(str::trim) {
            None | Some("") => None,
            Some(l) => Some(parse::expr(l).ok()?),
        });
    }
    out.try_into().ok()
}

/// A database holding [`ADS`] in collection `m`, each under its `Name`.
pub fn offers_db() -> Db {
    let db = Db::open_in_memory().expect("db");
    put_ads(&db);
    db
}

/// Puts [`ADS`] into `db`'s collection `m` (replacing them), each under its `Name`.
pub fn put_ads(db: &Db) {
    for text in ADS {
        let ad = parse::classad(text).expect("offer");
        let id = ad.eval_attr("Name");
        db.put_with_id("m", id.as_str().expect("Name"), &ad)
            .expect("put");
    }
}
