//! ClassAd string escapes, as HTCondor's `convert_escapes` (util.cpp) resolves them.

use std::borrow::Cow;

/// Resolves C escapes as HTCondor's `convert_escapes`: `\n \t \a \b \f \r \v \\ \' \" \?`,
/// octal `\ooo` (three digits only when the first is 0–3), any other `\c` is `c`; a trailing
/// lone backslash stays. `None` when an escape yields NUL. Bytes that are not UTF-8 become
/// U+FFFD.
pub fn convert_escapes(raw: Cow<'_, str>) -> Option<Cow<'_, str>> {
    if !raw.as_bytes().contains(&b'\\') {
        return Some(raw);
    }
    let b = raw.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c != b'\\' || i + 1 == b.len() {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let e = b[i];
        i += 1;
        let ch = match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut n = u32::from(e - b'0');
                if i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    n = (n << 3) + u32::from(b[i] - b'0');
                    i += 1;
                    if n < 0x20 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                        n = (n << 3) + u32::from(b[i] - b'0');
                        i += 1;
                    }
                }
                if n == 0 {
                    return None;
                }
                n as u8
            }
            other => other,
        };
        out.push(ch);
    }
    Some(Cow::Owned(match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }))
}
