//! A short list of numbers held inline when it has one member: most units have one rectangle
//! and most ads one unit, so their RID and unit lists cost no allocation of their own (a
//! million-ad index restored makes two million fewer).

use std::ops::Deref;

/// A list of `u32`, inline while it has at most one member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Few {
    /// No member.
    #[default]
    Empty,
    /// One member.
    One(u32),
    /// Two or more.
    Many(Vec<u32>),
}

impl Few {
    /// Appends `x`.
    pub(crate) fn push(&mut self, x: u32) {
        *self = match std::mem::take(self) {
            Few::Empty => Few::One(x),
            Few::One(a) => Few::Many(vec![a, x]),
            Few::Many(mut v) => {
                v.push(x);
                Few::Many(v)
            }
        };
    }
}

impl From<Vec<u32>> for Few {
    fn from(v: Vec<u32>) -> Few {
        match v.as_slice() {
            [] => Few::Empty,
            [one] => Few::One(*one),
            _ => Few::Many(v),
        }
    }
}

impl Deref for Few {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Few::Empty => &[],
            Few::One(x) => std::slice::from_ref(x),
            Few::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Few {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_and_conversions_keep_the_members_in_order() {
        for n in 0..5_u32 {
            let mut f = Few::default();
            for x in 0..n {
                f.push(x * 10);
            }
            let want: Vec<u32> = (0..n).map(|x| x * 10).collect();
            assert_eq!(&*f, want.as_slice());
            assert_eq!(Few::from(want.clone()), f);
            assert_eq!((&f).into_iter().count(), n as usize);
        }
        assert!(matches!(Few::from(vec![7]), Few::One(7)));
    }
}
