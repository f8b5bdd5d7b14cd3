//! JSON as the issues and the README print it: one line, `{"key": value, "list": [1, 2]}` —
//! a space after each `:` and `,` (Python's `json.dumps` default), so that every JSON the CLI
//! and the library write reads alike whichever serializer made it.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io;

/// `value` as one line of spaced JSON.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    value.serialize(&mut ser)?;
    // The serializer writes UTF-8 only.
    String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

/// The compact formatter with a space after each separator.
struct Spaced;

/// `, ` before every element but the first.
fn separate<W: ?Sized + io::Write>(w: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

impl Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separate(w, first)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separate(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn separators_are_spaced_and_strings_left_alone() {
        for (value, want) in [
            (json!({}), "{}"),
            (json!([]), "[]"),
            (json!({"a": 1}), r#"{"a": 1}"#),
            (
                json!({"dominates": true, "flips": [{"from": "a, b: c", "variable": "os"}]}),
                r#"{"dominates": true, "flips": [{"from": "a, b: c", "variable": "os"}]}"#,
            ),
            (json!([1, [2, 3], null, 1.5]), "[1, [2, 3], null, 1.5]"),
        ] {
            let got = super::to_string(&value).expect("serializes");
            assert_eq!(got, want);
            let back: serde_json::Value = serde_json::from_str(&got).expect("parses");
            assert_eq!(back, value);
        }
    }
}
