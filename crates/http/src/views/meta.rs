//! The service: its health, the calling key, the bulk exports, game versions and languages.

use tapster_store::{ChangeSummary, ExportInfo, LanguageInfo, VersionInfo};
use tapster_wire::{self as wire, ChangeCounts, Export, GameVersion, Key, Limit, LimitPolicy};

use crate::envelope::lang;
use crate::gate::{Admission, PolicyState};

/// The key `admission` let through, as `/v1/key` describes it.
pub(crate) fn key(admission: &Admission) -> Key {
    let key = &admission.key;
    let limit = |state: &PolicyState| Limit {
        policy: LimitPolicy::parse(state.policy.name),
        quota: state.policy.quota,
        window_seconds: state.policy.window,
        remaining: state.remaining,
        reset_seconds: state.reset,
    };
    Key {
        name: key.name.clone(),
        prefix: key.prefix.clone(),
        expires_at: key.expires_at.map(|at| at.to_string()),
        requests_today: admission.requests_today,
        limits: admission.quota.states().iter().map(limit).collect(),
    }
}

/// A kept export, to be downloaded at `url`.
pub(crate) fn export(export: &ExportInfo, url: String) -> Export {
    Export {
        version: export.version.to_string(),
        lang: lang(export.lang),
        url,
        file_name: export.file_name(),
        size: export.size,
        sha256: export.sha256_hex(),
        records: export.records,
    }
}

pub(crate) fn game_version(v: &VersionInfo) -> GameVersion {
    GameVersion {
        version: v.name.to_string(),
        build_id: v.build_id,
        released: v.released.to_string(),
        latest: v.latest,
        previous: v.previous.as_ref().map(ToString::to_string),
        changes_since_previous: v.changes.map(|ChangeSummary { added, removed, modified }| ChangeCounts {
            added,
            removed,
            modified,
        }),
        counts: v.counts.iter().map(|(kind, n)| (kind.plural().to_owned(), *n)).collect(),
        languages: v.languages.iter().map(|l| lang(*l)).collect(),
    }
}

pub(crate) fn language(info: LanguageInfo) -> wire::Language {
    wire::Language {
        code: lang(info.language),
        name: info.name.0,
        native_name: info.language.native_name().to_owned(),
        translated_texts: info.translated,
        total_texts: info.total,
    }
}
