//! The service and its data: health, the calling key, the bulk exports, game versions, languages.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// The answer of `/healthz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// `ok` once the game data is loaded; `degraded` while a store shared with other replicas is
    /// out of reach, or the current published generation cannot be installed, and the service works
    /// around it (it still answers, `200`).
    pub status: HealthStatus,
    /// The newest published game version.
    pub latest: String,
    /// How many game versions are published.
    pub versions: usize,
    /// What the service works around now; empty when `status` is `ok`.
    pub degraded: Vec<Degraded>,
    /// The generation of game data published for every replica that this one serves (`tapster
    /// publish`); `null` where game data is imported into each data dir, or while the served data is
    /// no published generation.
    pub generation: Option<ServedGeneration>,
}

/// A generation of published game data as a replica serves it: all replicas that agree serve the
/// same number and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServedGeneration {
    pub number: i64,
    /// The SHA-256 of the served database, in lower-case hex.
    pub sha256: String,
}

/// A store the service works around while it is out of reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Degraded {
    /// `accounts` (the shared accounts database), `redis` (the shared rate limits) or `game data`
    /// (the current published generation).
    pub dependency: String,
    /// What it means for callers meanwhile.
    pub detail: String,
}

/// `Key`: the API key the request was made with, and what it may still ask. Every number is as it
/// stands after this request, which counts like any other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Key {
    /// The name its owner gave it.
    pub name: String,
    /// Its public prefix, as the dashboard lists it: `tap_` and the key's next 8 characters.
    #[schemars(regex(pattern = r"^tap_[0-9A-Za-z]{8}$"))]
    pub prefix: String,
    /// When it stops working (RFC 3339, UTC); `null` when it never expires.
    #[schemars(extend("format" = "date-time"))]
    pub expires_at: Option<String>,
    /// Requests it made today (UTC), this one included.
    pub requests_today: u64,
    /// Its rate limits, each with what remains of it: a request passes only when every one allows it.
    pub limits: Vec<Limit>,
}

/// One rate limit of a key, as the `RateLimit-Policy` and `RateLimit` headers name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Limit {
    /// `burst` (requests in a row, refilled at the minute's rate), `minute` or `day` (UTC).
    pub policy: LimitPolicy,
    /// Requests it allows per window.
    pub quota: u32,
    /// The window, in seconds.
    pub window_seconds: u64,
    /// Requests left of `quota`.
    pub remaining: u32,
    /// Seconds until some of the quota comes back; 0 when none is used.
    pub reset_seconds: u64,
}

/// `Export`: one bulk export, a file holding every record of a game version in one language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Export {
    pub version: String,
    pub lang: Lang,
    /// Where to download it (absolute when the service knows the address it is reached at).
    pub url: String,
    /// The name to save it under.
    pub file_name: String,
    /// Its length in bytes.
    pub size: u64,
    /// The SHA-256 of the file, in lowercase hex: also its `ETag`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// How many records it holds, the version's own line aside.
    pub records: u64,
}

/// `manifest.json`, the first file of a version's icons archive (`GET
/// /v1/exports/{version}/icons`): every picture the version's records name, by the path they name
/// it with; the archive holds each file at `assets/<path>`, as a version folder does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PictureManifest {
    pub version: String,
    pub pictures: Vec<PictureEntry>,
}

/// One picture of a [`PictureManifest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PictureEntry {
    /// The asset path records name it by, and its path in the archive.
    pub path: String,
    /// The SHA-256 of the file, in lowercase hex, as its URL holds it.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Its length in bytes.
    pub size: u64,
    /// Where it is served (`icon_url`), in every size and format.
    pub url: String,
    /// The slugs of the items whose icon it is.
    pub items: Vec<String>,
}

/// `GameVersion`: a published game version, what changed since the one before it, and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameVersion {
    pub version: String,
    pub build_id: i64,
    #[schemars(extend("format" = "date"))]
    pub released: String,
    pub latest: bool,
    pub previous: Option<String>,
    /// What changed since `previous`; `null` for the first version.
    pub changes_since_previous: Option<ChangeCounts>,
    /// Records of each type in this version.
    pub counts: BTreeMap<String, u64>,
    pub languages: Vec<Lang>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeCounts {
    pub added: u64,
    pub removed: u64,
    pub modified: u64,
}

/// `Language`: one language of a game version, and how much of it is translated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Language {
    pub code: Lang,
    /// The language's name in the requested language (English when not translated).
    pub name: String,
    /// The language's name in itself.
    pub native_name: String,
    /// How many of the version's texts are translated into it, of `total_texts`.
    pub translated_texts: u64,
    pub total_texts: u64,
}
