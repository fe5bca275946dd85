//! An amount of money in copper, and the `<g>g <s>s <c>c` form players read.

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// An amount of money in copper. 1 silver = 100 copper; 1 gold = 100 silver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Copper(pub u64);

impl Copper {
    pub const PER_SILVER: u64 = 100;
    pub const PER_GOLD: u64 = 100 * Self::PER_SILVER;

    pub fn gold(self) -> u64 {
        self.0 / Self::PER_GOLD
    }

    /// The silver part, 0 to 99 once gold is counted apart.
    pub fn silver(self) -> u64 {
        self.0 % Self::PER_GOLD / Self::PER_SILVER
    }

    /// The copper part, 0 to 99.
    pub fn copper(self) -> u64 {
        self.0 % Self::PER_SILVER
    }
}

/// `"<s>s <c>c"` below one gold and `"<g>g <s>s <c>c"` from one gold up:
/// `5` is `0s 5c`, `245` is `2s 45c`, `10000` is `1g 0s 0c`.
impl fmt::Display for Copper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= Self::PER_GOLD {
            write!(f, "{}g ", self.gold())?;
        }
        write!(f, "{}s {}c", self.silver(), self.copper())
    }
}

/// Reads exactly the form [`Display`](fmt::Display) writes, so that display and parse round-trip.
impl FromStr for Copper {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let parts: Vec<&str> = text.split(' ').collect();
        let part = |s: &str, unit: char| -> Result<u64> {
            let digits = s.strip_suffix(unit).ok_or(Error::Malformed)?;
            let canonical = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" || !digits.starts_with('0'));
            if !canonical {
                return Err(Error::Malformed);
            }
            digits.parse().map_err(|_| Error::Overflow)
        };
        let (gold, silver, copper) = match parts.as_slice() {
            [s, c] => (0, part(s, 's')?, part(c, 'c')?),
            [g, s, c] => {
                let gold = part(g, 'g')?;
                if gold == 0 {
                    return Err(Error::Malformed);
                }
                (gold, part(s, 's')?, part(c, 'c')?)
            }
            _ => return Err(Error::Malformed),
        };
        if silver >= 100 || copper >= 100 {
            return Err(Error::Malformed);
        }
        gold.checked_mul(Self::PER_GOLD)
            .and_then(|g| g.checked_add(silver * Self::PER_SILVER + copper))
            .map(Copper)
            .ok_or(Error::Overflow)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn display_follows_docs_pricing() {
        let cases = [
            (0, "0s 0c"),
            (5, "0s 5c"),
            (99, "0s 99c"),
            (100, "1s 0c"),
            (245, "2s 45c"),
            (9_999, "99s 99c"),
            (10_000, "1g 0s 0c"),
            (123_456, "12g 34s 56c"),
            (u64::MAX, "1844674407370955g 16s 15c"),
        ];
        for (copper, text) in cases {
            assert_eq!(Copper(copper).to_string(), text, "{copper}");
            assert_eq!(text.parse(), Ok(Copper(copper)), "{text}");
        }
    }

    #[test]
    fn parse_refuses_every_other_form() {
        for bad in [
            "", "5c", "0s", "1g 0s", "0g 1s 0c", "1s 100c", "100s 0c", "01s 0c", "1s  0c", "1S 0C", "-1s 0c",
            "1s 0c ",
        ] {
            assert_eq!(bad.parse::<Copper>(), Err(Error::Malformed), "{bad:?}");
        }
        assert_eq!("1844674407370956g 0s 0c".parse::<Copper>(), Err(Error::Overflow));
    }

    proptest! {
        #[test]
        fn display_parses_back_to_the_same_copper(copper: u64) {
            prop_assert_eq!(Copper(copper).to_string().parse(), Ok(Copper(copper)));
        }

        #[test]
        fn parts_add_up(copper: u64) {
            let c = Copper(copper);
            prop_assert_eq!(c.gold() * Copper::PER_GOLD + c.silver() * Copper::PER_SILVER + c.copper(), copper);
            prop_assert!(c.silver() < 100 && c.copper() < 100);
        }
    }
}
