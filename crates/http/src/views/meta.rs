//! The service: its health, the calling key, game versions and languages.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use tapster_store::{ChangeSummary, ExportInfo, LanguageInfo, VersionInfo};

use crate::gate::{Admission, PolicyState};
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

/// `Key`: the API key the request was made with, and what it may still ask. Every number is as it
/// stands after this request, which counts like any other.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Key")]
pub(crate) struct KeyView {
    /// The name its owner gave it.
    name: String,
    /// Its public prefix, as the dashboard lists it: `tap_` and the key's next 8 characters.
    #[schemars(regex(pattern = r"^tap_[0-9A-Za-z]{8}$"))]
    prefix: String,
    /// When it stops working (RFC 3339, UTC); `null` when it never expires.
    #[schemars(extend("format" = "date-time"))]
    expires_at: Option<String>,
    /// Requests it made today (UTC), this one included.
    requests_today: u64,
    /// Its rate limits, each with what remains of it: a request passes only when every one allows it.
    limits: Vec<LimitView>,
}

/// One rate limit of a key, as the `RateLimit-Policy` and `RateLimit` headers name it.
#[derive(Debug, Serialize, JsonSchema)]
struct LimitView {
    /// `burst` (requests in a row, refilled at the minute's rate), `minute` or `day` (UTC).
    policy: &'static str,
    /// Requests it allows per window.
    quota: u32,
    /// The window, in seconds.
    window_seconds: u64,
    /// Requests left of `quota`.
    remaining: u32,
    /// Seconds until some of the quota comes back; 0 when none is used.
    reset_seconds: u64,
}

impl From<&Admission> for KeyView {
    fn from(admission: &Admission) -> Self {
        let key = &admission.key;
        let limit = |state: &PolicyState| LimitView {
            policy: state.policy.name,
            quota: state.policy.quota,
            window_seconds: state.policy.window,
            remaining: state.remaining,
            reset_seconds: state.reset,
        };
        Self {
            name: key.name.clone(),
            prefix: key.prefix.clone(),
            expires_at: key.expires_at.map(|at| at.to_string()),
            requests_today: admission.requests_today,
            limits: admission.quota.states.iter().map(limit).collect(),
        }
    }
}

/// `Export`: one bulk export, a file holding every record of a game version in one language.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Export")]
pub(crate) struct ExportView {
    version: String,
    #[schemars(with = "value_sets::Lang")]
    lang: &'static str,
    /// Where to download it (absolute when the service knows the address it is reached at).
    url: String,
    /// The name to save it under.
    file_name: String,
    /// Its length in bytes.
    size: u64,
    /// The SHA-256 of the file, in lowercase hex: also its `ETag`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    sha256: String,
    /// How many records it holds, the version's own line aside.
    records: u64,
}

impl ExportView {
    pub(crate) fn new(export: &ExportInfo, url: String, file_name: String) -> Self {
        Self {
            version: export.version.to_string(),
            lang: export.lang.code(),
            url,
            file_name,
            size: export.size,
            sha256: crate::exports::sha256_hex(export),
            records: export.records,
        }
    }
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
