//! Machine lists for the flat-chain tests (issue 16): `Machine == "host00000.example.org" ||
//! …`, the shape of real pool policies.

/// The name of machine `i`.
pub fn machine(i: usize) -> String {
    format!("host{i:05}.example.org")
}

/// `{scope}Machine == "host00000.example.org" || …` over `n` machines (`scope` is written
/// before `Machine`, e.g. `"TARGET."`, or nothing).
pub fn machine_list(n: usize, scope: &str) -> String {
    (0..n)
        .map(|i| format!("{scope}Machine == \"{}\"", machine(i)))
        .collect::<Vec<_>>()
        .join(" || ")
}
