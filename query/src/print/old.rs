//! Old ClassAd syntax output, as HTCondor's `printOld` / `condor_status -long`: one
//! `Name = expression` line per attribute, ads separated by a blank line.

use super::unparse::{write_name, Unparser};
use crate::classad::ClassAd;

/// Appends `ad` in old syntax: `Name = expression\n` per attribute.
pub fn write_ad_old(out: &mut String, ad: &ClassAd) {
    for (n, e) in ad.iter() {
        write_name(out, n.as_str());
        out.push_str(" = ");
        Unparser::old(out).expr(e);
        out.push('\n');
    }
}

/// `ad` in old syntax.
pub fn ad_to_old(ad: &ClassAd) -> String {
    let mut s = String::new();
    write_ad_old(&mut s, ad);
    s
}

/// Several ads in old syntax, each followed by a blank line (so they read back as separate ads).
pub fn ads_to_old(ads: &[ClassAd]) -> String {
    let mut s = String::new();
    for ad in ads {
        write_ad_old(&mut s, ad);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn prints_like_print_old() {
        let ad = parse::classad(
            r#"[a = 1; b = 1.5; c = "x\"y\\z"; d = {1, "a", {}}; e = [x = 1; y = []];
                f = a =?= b; g = 1.0/3; h = relTime("1:00"); i = -0.0; j = 1e100]"#,
        )
        .unwrap();
        let want = "a = 1\nb = 1.5\nc = \"x\\\"y\\z\"\nd = { 1,\"a\",{  } }\n\
                    e = [ x = 1; y = [  ] ]\nf = a =?= b\ng = 1.0 / 3\nh = relTime(\"01:00\")\n\
                    i = -0.0\nj = 1E+100\n";
        assert_eq!(ad_to_old(&ad), want);
        let back = parse::ads(&ads_to_old(&[ad.clone(), ad.clone()]), parse::Format::Old).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].to_string(), ad.to_string());
    }
}
