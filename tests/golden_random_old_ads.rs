//! Random ads as HTCondor prints them (`tests/golden/random-old-ads/`, made by
//! `gen/random_old_ads.py`): the old-syntax text of `printOld()` (backslashes left alone, a
//! string ending in a backslash written `"…\"`, escaped quotes, apostrophes, tabs, `$(x)`, `#`)
//! reads into exactly the ads its new-syntax text reads into, and each ad printed by adjoin in
//! old syntax and read back is the same ad again.

mod common;

use adjoin::query::parse::{self, Format};

#[test]
fn old_syntax_as_htcondor_prints_it_reads_back() {
    let old = parse::ads(
        &common::read("tests/golden/random-old-ads/old.ads"),
        Format::Old,
    )
    .expect("old syntax parses");
    let new = parse::ads(
        &common::read("tests/golden/random-old-ads/new.ads"),
        Format::New,
    )
    .expect("new syntax parses");
    assert_eq!(old.len(), 500);
    assert_eq!(old.len(), new.len());
    for (i, (o, n)) in old.iter().zip(&new).enumerate() {
        assert_eq!(o, n, "ad {i}");
        let again = parse::ads(&adjoin::query::print::old::ad_to_old(n), Format::Old)
            .expect("adjoin's old syntax parses");
        assert_eq!(
            again.as_slice(),
            std::slice::from_ref(n),
            "ad {i} printed by adjoin"
        );
    }
}
