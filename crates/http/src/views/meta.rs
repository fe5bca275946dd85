//! Game versions and languages.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use tapster_store::{ChangeSummary, LanguageInfo, VersionInfo};

use crate::value_sets;

/// The answer of `/healthz`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Health {
    /// `ok` once the game data is loaded; `degraded` while a store shared with other replicas is
    /// out of reach and the service works around it (it still answers, `200`).
    #[schemars(extend("enum" = ["ok", "degraded"]))]
    pub(crate) status: &'static str,
    /// The newest published game version.
    pub(crate) latest: String,
    /// How many game versions are published.
    pub(crate) versions: usize,
    /// What the service works around now; empty when `status` is `ok`.
    pub(crate) degraded: Vec<Degraded>,
}

/// A store the service works around while it is out of reach.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Degraded {
    /// `accounts` (the shared accounts database) or `redis` (the shared rate limits).
    pub(crate) dependency: &'static str,
    /// What it means for callers meanwhile.
    pub(crate) detail: String,
}

/// `GameVersion`: a published game version, what changed since the one before it, and what it holds.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "GameVersion")]
pub(crate) struct GameVersionView {
    version: String,
    build_id: i64,
    #[schemars(extend("format" = "date"))]
    released: String,
    latest: bool,
    previous: Option<String>,
    /// What changed since `previous`; `null` for the first version.
    changes_since_previous: Option<ChangeCounts>,
    /// Records of each type in this version.
    counts: BTreeMap<&'static str, u64>,
    #[schemars(with = "Vec<value_sets::Lang>")]
    languages: Vec<&'static str>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ChangeCounts {
    added: u64,
    removed: u64,
    modified: u64,
}

impl From<&VersionInfo> for GameVersionView {
    fn from(v: &VersionInfo) -> Self {
        Self {
            version: v.name.to_string(),
            build_id: v.build_id,
            released: v.released.to_string(),
            latest: v.latest,
            previous: v.previous.as_ref().map(ToString::to_string),
            changes_since_previous: v
                .changes
                .map(|ChangeSummary { added, removed, modified }| ChangeCounts { added, removed, modified }),
            counts: v.counts.iter().map(|(kind, n)| (kind.plural(), *n)).collect(),
            languages: v.languages.iter().map(|l| l.code()).collect(),
        }
    }
}

/// `Language`: one language of a game version, and how much of it is translated.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Language")]
pub(crate) struct LanguageView {
    #[schemars(with = "value_sets::Lang")]
    code: &'static str,
    /// The language's name in the requested language (English when not translated).
    name: String,
    /// The language's name in itself.
    native_name: &'static str,
    /// How many of the version's texts are translated into it, of `total_texts`.
    translated_texts: u64,
    total_texts: u64,
}

impl From<LanguageInfo> for LanguageView {
    fn from(info: LanguageInfo) -> Self {
        Self {
            code: info.language.code(),
            name: info.name.0,
            native_name: info.language.native_name(),
            translated_texts: info.translated,
            total_texts: info.total,
        }
    }
}
