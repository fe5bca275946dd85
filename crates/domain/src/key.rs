//! Identifiers: numeric record ids, slugs, the keys callers use to name a record, progression keys
//! and localisation keys. Each is parsed once, with its rule, so nothing downstream sees a raw string.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{Error, Result};

/// A string newtype checked once by its rule: `parse` runs the type's own `check` and keeps the
/// value; `as_str`, `Display` and `Deserialize` (refusing what `parse` refuses, naming the value as
/// `$what`) are the same for every such type, so they are written here once.
macro_rules! checked_string {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The value, if it follows the type's rule.
            pub fn parse(value: &str) -> Result<Self> {
                Self::check(value)?;
                Ok(Self(value.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                $name::parse(&raw).map_err(|e| serde::de::Error::custom(format!(concat!($what, " {:?} {}"), raw, e)))
            }
        }
    };
}

/// Most characters a record key, slug or progression key may have (docs/api.md, "Parameters").
pub const MAX_KEY_LEN: usize = 120;

/// Numeric id of a record within its record type. Game extractions use signed ids (some internal
/// items are negative), so the full `i64` range is accepted.
pub type RecordId = i64;

/// Id of an item; the same type as every other record id, named for readability of references.
pub type ItemId = RecordId;

checked_string! {
    /// A lower-case, hyphen-separated name of a record, stable across game versions (`honey-ale`).
    /// It always holds at least one letter, so that it can never be mistaken for a numeric id.
    Slug,
    "slug"
}

impl Slug {
    pub const PATTERN: &'static str = "^[a-z0-9]+(-[a-z0-9]+)*$ with at least one letter";

    fn check(value: &str) -> Result<()> {
        check_len(value)?;
        let well_formed = value.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
        if !well_formed || !value.bytes().any(|b| b.is_ascii_lowercase()) {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(())
    }
}

/// How a caller names an item, recipe, crop, shop or ingredient group in a path: by numeric id or by slug.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RecordKey {
    Id(RecordId),
    Slug(String),
}

impl RecordKey {
    pub const PATTERN: &'static str = "^-?[A-Za-z0-9][A-Za-z0-9-]*$";

    /// Parses a key by the rule of docs/api.md ("Parameters": path keys). A key that reads as an
    /// integer is an id; any other well-formed key is a slug, matched as given (slugs are lower case,
    /// so `Honey-Ale` finds nothing).
    pub fn parse(value: &str) -> Result<Self> {
        check_len(value)?;
        let body = value.strip_prefix('-').unwrap_or(value);
        let mut chars = body.bytes();
        let starts_well = chars.next().is_some_and(|b| b.is_ascii_alphanumeric());
        if !starts_well || !chars.all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        if body.bytes().all(|b| b.is_ascii_digit()) {
            return value
                .parse()
                .map(Self::Id)
                .map_err(|_| Error::OutOfRange { reason: "the id does not fit in 64 bits" });
        }
        Ok(Self::Slug(value.to_owned()))
    }
}

impl fmt::Display for RecordKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => write!(f, "{id}"),
            Self::Slug(slug) => f.write_str(slug),
        }
    }
}

checked_string! {
    /// Key of a progression record (quest, perk, spell, talent, reputation milestone, mission, letter),
    /// as the game names them: `quest.lost-barrel`, `Perk_Brewing_2`, `Marta's Letter`.
    ProgressionKey,
    "key"
}

impl ProgressionKey {
    pub const PATTERN: &'static str = "^[A-Za-z0-9][A-Za-z0-9 _.'-]*$";

    fn check(value: &str) -> Result<()> {
        check_len(value)?;
        let mut bytes = value.bytes();
        let starts_well = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
        if !starts_well
            || !bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'.' | b'\'' | b'-'))
        {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(())
    }
}

checked_string! {
    /// Key of a text in the localisation tables (`item.1204.name`). Records carry these instead of text.
    /// It may be a path of such names (`Items/item_name_1204`), as games' own string tables are keyed.
    TextKey,
    "text key"
}

impl TextKey {
    pub const MAX_LEN: usize = 200;
    pub const PATTERN: &'static str = "^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$";

    fn check(value: &str) -> Result<()> {
        if value.is_empty() {
            return Err(Error::Empty);
        }
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let well_formed = value.split('/').all(|name| {
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        });
        if !well_formed {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(())
    }
}

/// One name of an [`AssetPath`], as a pattern: a word that is not `.` or `..` (it holds something
/// other than a dot, or is three dots or more) and maybe more words after spaces, or `.` or `..`
/// with more words after them.
macro_rules! asset_name {
    () => {
        r"(\.*[A-Za-z0-9_-][A-Za-z0-9_.-]*|\.{3,})( +[A-Za-z0-9_.-]+)*|\.\.?( +[A-Za-z0-9_.-]+)+"
    };
}

checked_string! {
    /// Where a game keeps a file among its own assets, such as an item's icon
    /// (`Sprites/Items/Honey Ale.png`): names joined by single slashes, relative, never climbing out
    /// (`.` and `..` are not names). Tapster serves the path as the game has it, not the file.
    AssetPath,
    "asset path"
}

impl AssetPath {
    pub const MAX_LEN: usize = 200;
    /// What `parse` accepts (below [`AssetPath::MAX_LEN`]), as an RE2-style pattern (no lookaround):
    /// names joined by `/`, a name being words of `A-Z a-z 0-9 _ . -` joined by spaces, and not `.`
    /// nor `..`; which a lone word says by holding something other than a dot, or three dots or more.
    pub const PATTERN: &'static str = concat!("^(", asset_name!(), ")(/(", asset_name!(), "))*$");

    fn check(value: &str) -> Result<()> {
        if value.is_empty() {
            return Err(Error::Empty);
        }
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let well_formed = value.split('/').all(|name| {
            !name.is_empty()
                && name != "."
                && name != ".."
                && !name.starts_with(' ')
                && !name.ends_with(' ')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'.' | b'-'))
        });
        if !well_formed {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(())
    }
}

fn check_len(value: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Error::Empty);
    }
    if value.len() > MAX_KEY_LEN {
        return Err(Error::TooLong { max: MAX_KEY_LEN });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn record_keys_read_as_ids_or_slugs() {
        let cases: &[(&str, Result<RecordKey>)] = &[
            ("1204", Ok(RecordKey::Id(1204))),
            ("-3", Ok(RecordKey::Id(-3))),
            ("0", Ok(RecordKey::Id(0))),
            ("honey-ale", Ok(RecordKey::Slug("honey-ale".into()))),
            ("Honey-Ale", Ok(RecordKey::Slug("Honey-Ale".into()))),
            ("-honey", Ok(RecordKey::Slug("-honey".into()))),
            ("12a", Ok(RecordKey::Slug("12a".into()))),
            ("x", Ok(RecordKey::Slug("x".into()))),
            ("7", Ok(RecordKey::Id(7))),
            ("", Err(Error::Empty)),
            ("-", Err(Error::Pattern { pattern: RecordKey::PATTERN })),
            ("--1", Err(Error::Pattern { pattern: RecordKey::PATTERN })),
            ("honey_ale", Err(Error::Pattern { pattern: RecordKey::PATTERN })),
            ("a b", Err(Error::Pattern { pattern: RecordKey::PATTERN })),
            ("é", Err(Error::Pattern { pattern: RecordKey::PATTERN })),
            ("99999999999999999999", Err(Error::OutOfRange { reason: "the id does not fit in 64 bits" })),
        ];
        for (input, expected) in cases {
            assert_eq!(&RecordKey::parse(input), expected, "{input:?}");
        }
        assert_eq!(RecordKey::parse(&"a".repeat(121)), Err(Error::TooLong { max: 120 }));
        assert!(RecordKey::parse(&"a".repeat(120)).is_ok());
    }

    #[test]
    fn text_keys_are_names_or_paths_of_names() {
        for good in ["item.1204.name", "Items/item_name_1204", "UI/Menus/quest-log.title", "a", "Daily_Ale"] {
            assert_eq!(TextKey::parse(good).map(|key| key.to_string()), Ok(good.to_owned()), "{good}");
        }
        for bad in ["/Items/x", "Items/", "Items//x", "/", "item name", "item:1", "é"] {
            assert_eq!(TextKey::parse(bad), Err(Error::Pattern { pattern: TextKey::PATTERN }), "{bad}");
        }
        assert_eq!(TextKey::parse(""), Err(Error::Empty));
        assert_eq!(TextKey::parse(&format!("{}a", "a/".repeat(100))), Err(Error::TooLong { max: 200 }));
        assert!(TextKey::parse(&format!("{}ab", "a/".repeat(99))).is_ok());
    }

    #[test]
    fn asset_paths_are_relative_paths_of_plain_names() {
        for good in ["Sprites/Items/Honey Ale.png", "icons/1204.png", "a", "UI/item_-3.v2.png"] {
            assert_eq!(AssetPath::parse(good).map(|p| p.to_string()), Ok(good.to_owned()), "{good}");
        }
        for bad in [
            "/Sprites/a.png",
            "Sprites//a.png",
            "Sprites/",
            "../a.png",
            "Sprites/./a.png",
            " a.png",
            "a.png ",
            "Sprites\\a.png",
            "a:b.png",
            "é.png",
        ] {
            assert_eq!(AssetPath::parse(bad), Err(Error::Pattern { pattern: AssetPath::PATTERN }), "{bad}");
        }
        assert_eq!(AssetPath::parse(""), Err(Error::Empty));
        assert_eq!(AssetPath::parse(&"a".repeat(201)), Err(Error::TooLong { max: 200 }));
    }

    /// Strings of the characters that decide these rules (dots, slashes, spaces, and some that no
    /// rule allows), short enough that every arrangement of them comes up.
    fn tricky() -> impl Strategy<Value = String> {
        let alphabet = ['a', 'Z', '7', '.', '.', '/', '/', ' ', ' ', '_', '-', '\'', ':', '\\', 'é'];
        proptest::collection::vec(proptest::sample::select(alphabet.to_vec()), 0..14)
            .prop_map(|chars| chars.into_iter().collect())
    }

    fn pattern(pattern: &str) -> regex::Regex {
        regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"))
    }

    /// Each type's pattern, compiled once for all the cases.
    static PATTERNS: std::sync::LazyLock<[regex::Regex; 5]> = std::sync::LazyLock::new(|| {
        [AssetPath::PATTERN, TextKey::PATTERN, ProgressionKey::PATTERN, RecordKey::PATTERN, Ident::PATTERN]
            .map(pattern)
    });

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        /// Each type's `PATTERN` is a real pattern that accepts exactly what its parser accepts
        /// (short of the length limits, which the patterns leave to `maxLength`).
        #[test]
        fn the_patterns_accept_what_the_parsers_accept(value in tricky()) {
            let parsed = [
                AssetPath::parse(&value).is_ok(),
                TextKey::parse(&value).is_ok(),
                ProgressionKey::parse(&value).is_ok(),
                RecordKey::parse(&value).is_ok(),
                Ident::parse(&value).is_ok(),
            ];
            for (rule, parsed) in PATTERNS.iter().zip(parsed) {
                prop_assert_eq!(rule.is_match(&value), parsed, "{:?} against {}", value, rule);
            }
        }
    }

    #[test]
    fn the_asset_path_pattern_takes_the_table_of_paths_as_the_parser_does() {
        let paths = pattern(AssetPath::PATTERN);
        let cases = [
            ("Sprites/Items/Honey Ale.png", true),
            ("a", true),
            ("...", true),
            (".hidden/..x/x..", true),
            (". a/.. b", true),
            ("a  b/c", true),
            (".", false),
            ("..", false),
            ("a/./b", false),
            ("a/../b", false),
            ("a/..", false),
            ("", false),
            ("a /b", false),
            ("a/ b", false),
            ("a//b", false),
            ("/a", false),
            ("a/", false),
            ("a\tb", false),
        ];
        for (value, accepted) in cases {
            assert_eq!(AssetPath::parse(value).is_ok(), accepted, "parse {value:?}");
            assert_eq!(paths.is_match(value), accepted, "pattern {value:?}");
        }
    }

    #[test]
    fn slugs_are_lower_case_words_with_a_letter() {
        for good in ["honey-ale", "ale", "oak-log-2", "x1"] {
            assert!(Slug::parse(good).is_ok(), "{good}");
        }
        for bad in ["", "123", "Honey", "honey--ale", "-ale", "ale-", "honey_ale", "crème"] {
            assert!(Slug::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn progression_keys_allow_the_game_punctuation() {
        for good in ["quest.lost-barrel", "Perk_Brewing_2", "Marta's Letter", "7"] {
            assert!(ProgressionKey::parse(good).is_ok(), "{good}");
        }
        for bad in ["", " lead", "_x", "a/b", "a\"b", "ä"] {
            assert!(ProgressionKey::parse(bad).is_err(), "{bad}");
        }
    }
}

checked_string! {
    /// A lower-case identifier that the game data defines for itself: item categories and tags,
    /// ingredient types, recipe groups and pages, spell schools, talent trees (`pale_ale`, `brewing`).
    Ident,
    "identifier"
}

impl Ident {
    pub const MAX_LEN: usize = 48;
    pub const PATTERN: &'static str = "^[a-z][a-z0-9_]*$";

    fn check(value: &str) -> Result<()> {
        if value.is_empty() {
            return Err(Error::Empty);
        }
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let mut bytes = value.bytes();
        if !bytes.next().is_some_and(|b| b.is_ascii_lowercase())
            || !bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(())
    }
}
