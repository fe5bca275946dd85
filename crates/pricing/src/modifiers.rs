//! The choices a price calculation takes: which member fills an ingredient group, how long a product
//! was aged, and how well it was made.

use std::fmt;

macro_rules! choice {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal, $percent:literal;)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            #[default]
            $($variant),+
        }

        impl $name {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }

            /// Parses the exact spelling.
            pub fn parse(value: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == value)
            }

            /// What it adds to the price, in percent.
            pub fn percent(self) -> u64 {
                match self {
                    $(Self::$variant => $percent),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

choice! {
    /// How long a product was aged in the cellar (game ranks 0 to 4).
    Aging {
        None = "none", 0;
        Young = "young", 0;
        Aged = "aged", 10;
        Reserve = "reserve", 20;
        GrandReserve = "grand_reserve", 30;
    }
}

choice! {
    /// How well a product was made.
    Quality {
        Common = "common", 0;
        Fine = "fine", 15;
        Superior = "superior", 35;
    }
}

/// Which member fills each ingredient group, all the way down the recipe chain.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum IngredientChoice {
    /// The member of lowest value.
    #[default]
    Cheapest,
    /// The member of highest value.
    Expensive,
}

impl IngredientChoice {
    pub const ALL: &'static [Self] = &[Self::Cheapest, Self::Expensive];
    pub const NAMES: &'static [&'static str] = &["cheapest", "expensive"];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cheapest => "cheapest",
            Self::Expensive => "expensive",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == value)
    }
}

impl fmt::Display for IngredientChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_docs_pricing_and_never_lower_a_price() {
        let aging: Vec<(&str, u64)> = Aging::ALL.iter().map(|a| (a.as_str(), a.percent())).collect();
        assert_eq!(aging, [("none", 0), ("young", 0), ("aged", 10), ("reserve", 20), ("grand_reserve", 30)]);
        assert!(Aging::ALL.windows(2).all(|w| w[0].percent() <= w[1].percent()));
        assert!(Quality::ALL.windows(2).all(|w| w[0].percent() <= w[1].percent()));
        assert_eq!(Quality::parse("superior"), Some(Quality::Superior));
        assert_eq!(Quality::parse("Superior"), None);
        assert_eq!(IngredientChoice::parse("expensive"), Some(IngredientChoice::Expensive));
        assert_eq!(Aging::default(), Aging::None);
    }
}
