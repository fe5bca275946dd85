//! What surrounds every answer: the envelope of a successful one (`data`, `meta`, and `pagination`
//! on pages) and the problem (RFC 9457) an error is told in.

use serde::{Deserialize, Serialize};

use crate::{Lang, LimitPolicy};

/// A successful answer of `/v1`: the `data` asked for, what produced it, and where a page sits in its
/// list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    pub data: T,
    pub meta: Meta,
    /// On pages of a list; absent on whole lists, single records and search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
}

/// Which game version and language produced an answer, and which of its texts are in English
/// because the language lacks them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// Always the concrete version, never `latest`.
    pub game_version: String,
    pub build_id: i64,
    pub lang: Lang,
    /// JSON Pointers (RFC 6901) into the body, in document order, to each text served in English.
    pub lang_fallback: Vec<String>,
}

/// Where a page sits in its list, with the path and query of its neighbours (`None` at the ends).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    pub limit: u32,
    pub offset: u32,
    pub total: u64,
    pub next: Option<String>,
    pub prev: Option<String>,
}

/// An error answer (`application/problem+json`, RFC 9457).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// `/errors/validation`, `/errors/not-found`, ... (docs/api.md, "Errors").
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What went wrong with this request, in words.
    pub detail: String,
    /// The path that was asked for.
    pub instance: String,
    /// On `422`: each parameter that was refused and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<InvalidParam>>,
    /// On `429` for a rate limit: the policy used up (`burst`, `minute` or `day`).
    #[serde(rename = "violated-policies", default, skip_serializing_if = "Option::is_none")]
    pub violated_policies: Option<Vec<LimitPolicy>>,
}

/// One refused parameter of a `422`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidParam {
    pub parameter: String,
    pub detail: String,
}
