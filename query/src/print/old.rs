//! Old ClassAd syntax output, as HTCondor's `printOld` / `condor_status -long`: one
//! `Name = expression` line per attribute, ads separated by a blank line.

use super::unparse::{write_name_old, Unparser};
use crate::classad::ClassAd;

/// Appends `ad` in old syntax: `Name = expression\n` per attribute.
pub fn write_ad_old(out: &mut String, ad: &ClassAd) {
    for (n, e) in ad.iter() {
        write_name_old(out, n.as_str());
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

    /// Names print as `printOld` writes them: quoted when not plain, only `'` escaped (found
    /// by the formats differential run against classad2: adjoin wrote `'a\\b'`, `'\303\251'`).
    #[test]
    fn names_print_like_print_old() {
        let cases: &[(&str, &str)] = &[
            (r"[ 'a\\b' = 1 ]", "'a\\b' = 1\n"),
            (r"[ 'é' = 1 ]", "'é' = 1\n"),
            (r"[ 'x\'y' = 1 ]", "'x\\'y' = 1\n"),
            (r"[ 'a\tb' = 1 ]", "'a\tb' = 1\n"),
            (
                r"[ 'a b' = 1; if = 2; 'true' = 3; 'parent' = 4; '1x' = 5 ]",
                "'a b' = 1\nif = 2\n'true' = 3\n'parent' = 4\n'1x' = 5\n",
            ),
            (
                r"[ x = 'a\\b' + 'é' + 'x\'y'; y = [ 'é' = 1 ] ]",
                "x = 'a\\b' + 'é' + 'x\\'y'\ny = [ 'é' = 1 ]\n",
            ),
            (r"[ x = a.'c d' + a.parent ]", "x = a.'c d' + a.parent\n"),
        ];
        for (src, want) in cases {
            let ad = parse::classad(src).unwrap();
            assert_eq!(ad_to_old(&ad), *want, "{src}");
        }
        // Names without a backslash at the end read back through the old-syntax reader.
        let ad = parse::classad(r"[ x = 'a\\b' + 'é' + 'x\'y' ]").unwrap();
        let back = parse::ads(&ad_to_old(&ad), parse::Format::Old).unwrap();
        assert_eq!(back[0].to_string(), ad.to_string());
    }
}
