//! Values made from a string a deserializer hands over, borrowed when it can lend it (a
//! stored ad's names and strings decode without an intermediate `String`, which serde's
//! `Cow<str>` and `Arc<str>` impls would each allocate).

use serde::de::{Deserializer, Error, Visitor};
use std::fmt;

/// Deserializes a string into `make(text)`; `what` names it in errors ("a name").
pub(crate) fn deserialize_with<'de, D: Deserializer<'de>, T>(
    d: D,
    what: &'static str,
    make: fn(&str) -> T,
) -> Result<T, D::Error> {
    d.deserialize_str(Text { what, make })
}

struct Text<T> {
    what: &'static str,
    make: fn(&str) -> T,
}

impl<T> Visitor<'_> for Text<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_str<E: Error>(self, s: &str) -> Result<T, E> {
        Ok((self.make)(s))
    }
}
