//! The envelope of every successful data answer (spec 2.1): `data`, and `meta` saying which game
//! version and language produced it and which texts fell back to English.

use serde::Serialize;
use tapster_i18n::Language;
use tapster_store::VersionInfo;

#[derive(Debug, Serialize)]
pub(crate) struct Envelope<T> {
    pub(crate) data: T,
    pub(crate) meta: Meta,
}

#[derive(Debug, Serialize)]
pub(crate) struct Meta {
    /// Always the concrete version, never `latest`.
    pub(crate) game_version: String,
    pub(crate) build_id: i64,
    pub(crate) lang: &'static str,
    /// JSON Pointers (RFC 6901), in document order, to each text served in English because the
    /// requested language lacks it.
    pub(crate) lang_fallback: Vec<String>,
}

impl<T> Envelope<T> {
    pub(crate) fn new(data: T, version: &VersionInfo, lang: Language, fallbacks: Fallbacks) -> Self {
        Self {
            data,
            meta: Meta {
                game_version: version.name.to_string(),
                build_id: version.build_id,
                lang: lang.code(),
                lang_fallback: fallbacks.pointers,
            },
        }
    }
}

/// Collects the JSON Pointers of English stand-ins while a handler builds its `data`.
#[derive(Debug, Default)]
pub(crate) struct Fallbacks {
    pointers: Vec<String>,
}

impl Fallbacks {
    /// Records that the text at `pointer` (below `/data`) is in `served` although `requested` was asked for.
    pub(crate) fn note(&mut self, requested: Language, served: Language, pointer: impl FnOnce() -> String) {
        if served != requested {
            self.pointers.push(pointer());
        }
    }
}
