//! Fuzz target: every parser (auto-detected format, expressions) on arbitrary text must return a
//! value or an error, never panic or overflow; whatever parses must print and parse back equal,
//! and the recovering reader (`parse::reader`) must read a text that parses as the whole does.
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
            // The recovering reader (`adjoin load`) reads a good text as the whole reader does.
            let read: Result<Vec<_>, _> = parse::reader::read_ads(text, format)
                .map(|r| r.map(|(_, ad)| ad))
                .collect();
            match read {
                Ok(read) => assert_eq!(read, ads, "the recovering reader of {text:?}"),
                Err(e) => panic!("the recovering reader fails on {text:?}: {e}"),
            }
            for ad in ads {
                let printed = ad.to_string();
                let again = parse::classad(&printed).expect("printed ad parses");
                assert_eq!(again, ad, "round trip of {printed:?}");
            }
        }
    }
});
