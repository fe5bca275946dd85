//! Search hits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// How the query sits in the name, best first. Hits are ranked by the query words found as whole
/// words (the last also as the start of one), then typos, then words found as typed before words
/// found only typed joined or apart, then how close the words are and in the query's order, then by
/// this, then shorter names, the requested language before English, and id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MatchHow {
    /// The query is the whole name.
    Whole,
    /// The name starts with the query.
    Prefix,
    /// One of the name's words starts with the query.
    WordPrefix,
    /// The query is somewhere inside the name.
    Substring,
    /// The words of the query are in the name, but not in one piece as the query has them (in another
    /// order, with other words between, without a stop word the query has, or typed joined or apart:
    /// `paleale` in "Pale Ale", `erbsen suppe` in "Erbsensuppe").
    Words,
    /// Some word of the query is in the name only with typos: one in a word of 4 to 7 characters, two
    /// from 8 (a letter inserted, left out or replaced, or two neighbours swapped); words of 1 to 3
    /// characters never have one.
    Typo,
    /// A way of matching this crate does not know yet, as the server spelled it.
    #[serde(untagged)]
    #[schemars(skip)]
    Unknown(String),
}

/// One record whose name matched the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    #[serde(rename = "type")]
    pub kind: HitType,
    pub id: i64,
    pub slug: String,
    /// The record's name in the requested language (English when it has no translation, noted in
    /// `meta.lang_fallback`).
    pub name: String,
    /// Why the record was found.
    pub matched: Matched,
}

/// The name that matched the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Matched {
    /// The language of that name: the requested language, or `en`.
    pub lang: Lang,
    /// The name as written in that language.
    pub text: String,
    /// How it matched.
    pub how: MatchHow,
}
