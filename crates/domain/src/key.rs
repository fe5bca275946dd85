//! Identifiers: numeric record ids, slugs, the keys callers use to name a record, progression keys
//! and localisation keys. Each is parsed once, with its rule, so nothing downstream sees a raw string.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{Error, Result};

/// Most characters a record key, slug or progression key may have (spec 2.4).
pub const MAX_KEY_LEN: usize = 120;

/// Numeric id of a record within its record type. Game extractions use signed ids (some internal
/// items are negative), so the full `i64` range is accepted.
pub type RecordId = i64;

/// Id of an item; the same type as every other record id, named for readability of references.
pub type ItemId = RecordId;

/// A lower-case, hyphen-separated name of a record, stable across game versions (`honey-ale`).
/// It always holds at least one letter, so that it can never be mistaken for a numeric id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Slug(String);

impl Slug {
    pub const PATTERN: &'static str = "^[a-z0-9]+(-[a-z0-9]+)*$ with at least one letter";

    pub fn parse(value: &str) -> Result<Self> {
        check_len(value)?;
        let well_formed = value.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
        if !well_formed || !value.bytes().any(|b| b.is_ascii_lowercase()) {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Slug::parse(&raw).map_err(|e| serde::de::Error::custom(format!("slug {raw:?} {e}")))
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

    /// Parses a key by the rule of spec 2.4. A key that reads as an integer is an id; any other
    /// well-formed key is a slug, matched as given (slugs are lower case, so `Honey-Ale` finds nothing).
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

/// Key of a progression record (quest, perk, spell, talent, reputation milestone, mission, letter),
/// as the game names them: `quest.lost-barrel`, `Perk_Brewing_2`, `Marta's Letter`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ProgressionKey(String);

impl ProgressionKey {
    pub const PATTERN: &'static str = "^[A-Za-z0-9][A-Za-z0-9 _.'-]*$";

    pub fn parse(value: &str) -> Result<Self> {
        check_len(value)?;
        let mut bytes = value.bytes();
        let starts_well = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
        if !starts_well
            || !bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'.' | b'\'' | b'-'))
        {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProgressionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ProgressionKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        ProgressionKey::parse(&raw).map_err(|e| serde::de::Error::custom(format!("key {raw:?} {e}")))
    }
}

/// Key of a text in the localisation tables (`item.1204.name`). Records carry these instead of text.
/// It may be a path of such names (`Items/item_name_1204`), as games' own string tables are keyed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct TextKey(String);

impl TextKey {
    pub const MAX_LEN: usize = 200;
    pub const PATTERN: &'static str = "^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$";

    pub fn parse(value: &str) -> Result<Self> {
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
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TextKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TextKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        TextKey::parse(&raw).map_err(|e| serde::de::Error::custom(format!("text key {raw:?} {e}")))
    }
}

/// Where a game keeps a file among its own assets, such as an item's icon
/// (`Sprites/Items/Honey Ale.png`): names joined by single slashes, relative, never climbing out
/// (`.` and `..` are not names). Tapster serves the path as the game has it, not the file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct AssetPath(String);

impl AssetPath {
    pub const MAX_LEN: usize = 200;
    pub const PATTERN: &'static str = "^[A-Za-z0-9_.-]+( +[A-Za-z0-9_.-]+)*(/[A-Za-z0-9_.-]+( +[A-Za-z0-9_.-]+)*)*$ with no `.` or `..` name";

    pub fn parse(value: &str) -> Result<Self> {
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
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AssetPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for AssetPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        AssetPath::parse(&raw).map_err(|e| serde::de::Error::custom(format!("asset path {raw:?} {e}")))
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

/// A lower-case identifier that the game data defines for itself: item categories and tags,
/// ingredient types, recipe groups and pages, spell schools, talent trees (`pale_ale`, `brewing`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Ident(String);

impl Ident {
    pub const MAX_LEN: usize = 48;
    pub const PATTERN: &'static str = "^[a-z][a-z0-9_]*$";

    pub fn parse(value: &str) -> Result<Self> {
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
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Ident::parse(&raw).map_err(|e| serde::de::Error::custom(format!("identifier {raw:?} {e}")))
    }
}
