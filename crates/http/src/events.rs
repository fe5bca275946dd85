//! What the webhooks tell of a published version, in the wire's shapes and from the store as the
//! API's own answers are made (the version as `/v1/versions/{version}` describes it, its changes as
//! `/v1/versions/{version}/changes` names them, in English), so that an event and the answers its
//! links lead to say the same. The server's webhook worker sends it.

use tapster_domain::{ChangeKind, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, ChangeFilter, Store, Window};
use tapster_wire::{ChangeCounts, VersionChange, VersionLinks, VersionPublished};

use crate::envelope::Localizer;
use crate::views;

/// Records a version's event names at most, as its headline.
const HIGHLIGHTS: u32 = 10;

/// The `data` of `version.published` for `version` of `store`, its links under `origin`
/// (`https://api.example`).
pub fn version_published(store: &Store, version: &Catalog, origin: &str) -> VersionPublished {
    let info = &version.info;
    let name = info.name.to_string();
    let previous =
        info.previous.as_ref().and_then(|name| store.resolve(&VersionSelector::Exact(name.clone())));
    let highlights = previous.map_or_else(Vec::new, |previous| highlights(version, previous));
    VersionPublished {
        version: name.clone(),
        build_id: info.build_id,
        released: info.released.to_string(),
        previous: info.previous.as_ref().map(ToString::to_string),
        changes: info.changes.map(|summary| ChangeCounts {
            added: summary.added,
            removed: summary.removed,
            modified: summary.modified,
        }),
        highlights,
        links: VersionLinks {
            version: format!("{origin}/v1/versions/{name}"),
            changes: format!("{origin}/v1/versions/{name}/changes"),
            exports: format!("{origin}/v1/exports"),
        },
    }
}

/// The first records added, then modified, from `previous` to `version`, named in English.
fn highlights(version: &Catalog, previous: &Catalog) -> Vec<VersionChange> {
    let mut loc = Localizer::new(version, Language::English);
    let mut picked = Vec::new();
    for change in [ChangeKind::Added, ChangeKind::Modified] {
        let left = HIGHLIGHTS - u32::try_from(picked.len()).unwrap_or(HIGHLIGHTS);
        if left == 0 {
            break;
        }
        let filter = ChangeFilter { kind: None, change: Some(change) };
        let page =
            version.changes_page(previous, Language::English, filter, Window { limit: left, offset: 0 });
        for record in &page.records {
            let at = format!("/highlights/{}", picked.len());
            picked.push(views::version_change(&mut loc, record, version, &at));
        }
    }
    picked
}
