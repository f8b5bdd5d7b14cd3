//! Fuzz target: every parser (auto-detected format, expressions) on arbitrary text must return a
//! value or an error, never panic or overflow; whatever parses must print and parse back equal.
#![no_main]

use adjoin_query::parse::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = parse::expr(text) {
        let printed = e.to_string();
        let again = parse::expr(&printed).expect("printed expression parses");
        assert_eq!(again, e, "round trip of {printed:?}");
    }
    for format in [Format::Auto, Format::Old, Format::Json, Format::Xml] {
        if let Ok(ads) = parse::ads(text, format) {
            for ad in ads {
                let printed = ad.to_string();
                let again = parse::classad(&printed).expect("printed ad parses");
                assert_eq!(again, ad, "round trip of {printed:?}");
            }
        }
    }
});
