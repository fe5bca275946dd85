//! Search hits: what each record found is, its name in the requested language, and the text that matched.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::RecordType;
use tapster_store::{Found, MatchTier, SearchHit};

use crate::envelope::Localizer;
use crate::value_sets;

/// The kind of record a hit is; its schema is the set the `type` parameter takes.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum HitType {
    Item,
    Recipe,
}

impl HitType {
    /// The record type of the hits of this kind.
    pub(crate) fn record_type(self) -> RecordType {
        match self {
            Self::Item => RecordType::Item,
            Self::Recipe => RecordType::Recipe,
        }
    }

    /// Parses the spelling its schema gives (`item`, `recipe`).
    pub(crate) fn parse(value: &str) -> Option<Self> {
        match value {
            "item" => Some(Self::Item),
            "recipe" => Some(Self::Recipe),
            _ => None,
        }
    }
}

/// How the query sits in the name, best first. Hits are ranked by the query words found as whole
/// words (the last also as the start of one), then typos, then how close the words are and in the
/// query's order, then by this, then shorter names, the requested language before English, and id.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MatchHow {
    /// The query is the whole name.
    Whole,
    /// The name starts with the query.
    Prefix,
    /// One of the name's words starts with the query.
    WordPrefix,
    /// The query is somewhere inside the name.
    Substring,
    /// The words of the query are in the name, but not in one piece as the query has them (in another
    /// order, with other words between, or without a stop word the query has).
    Words,
    /// Some word of the query is in the name only with typos: one in a word of 4 to 7 characters, two
    /// from 8 (a letter inserted, left out or replaced, or two neighbours swapped); words of 1 to 3
    /// characters never have one.
    Typo,
}

/// One record whose name matched the query.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchResult {
    #[serde(rename = "type")]
    #[schemars(with = "value_sets::HitType")]
    kind: HitType,
    id: i64,
    slug: String,
    /// The record's name in the requested language (English when it has no translation, noted in
    /// `meta.lang_fallback`).
    name: String,
    /// Why the record was found.
    matched: Matched,
}

/// The name that matched the query.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Matched {
    /// The language of that name: the requested language, or `en`.
    #[schemars(with = "value_sets::Lang")]
    lang: &'static str,
    /// The name as written in that language.
    text: String,
    /// How it matched.
    how: MatchHow,
}

impl SearchResult {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, hit: &SearchHit<'_>, at: &str) -> Self {
        let (kind, id, slug, key) = match hit.record {
            Found::Item(item) => (HitType::Item, item.id, item.slug.as_str(), &item.name_key),
            Found::Recipe(recipe) => (HitType::Recipe, recipe.id, recipe.slug.as_str(), &recipe.name_key),
        };
        let name = loc.text(key, || format!("{at}/name"));
        // The matched text is in the language it says, never a stand-in: it is not a fallback.
        let text = loc.catalog.text(key, hit.matched).map(|t| t.text.to_owned()).unwrap_or_default();
        let how = match hit.tier {
            MatchTier::Whole => MatchHow::Whole,
            MatchTier::Prefix => MatchHow::Prefix,
            MatchTier::WordPrefix => MatchHow::WordPrefix,
            MatchTier::Substring => MatchHow::Substring,
            MatchTier::Words => MatchHow::Words,
            MatchTier::Typo => MatchHow::Typo,
        };
        Self {
            kind,
            id,
            slug: slug.to_owned(),
            name,
            matched: Matched { lang: hit.matched.code(), text, how },
        }
    }
}
