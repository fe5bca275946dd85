//! `/v1/versions/{version}/changes`: what changed between two game versions.

use tapster_domain::{ChangeKind, RecordType, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{ChangeFilter, Window};
use tapster_wire::VersionChange;

use super::{Ctx, Endpoint, Handle, resolve};
use crate::error::ApiError;
use crate::params::{LANG, LIMIT, Named, OFFSET, Param, Rule, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets::{self, ChangeType};
use crate::views;

pub(super) const ENDPOINTS: &[Endpoint] = &[Endpoint {
    path: "/v1/versions/{version}/changes",
    key: None,
    summary: "The records a game version added, removed or modified since an earlier one",
    example: Some("/v1/versions/latest/changes?type=items&change=modified&limit=2"),
    handler: &Handle(changes),
    data: schema::<Vec<VersionChange>>,
}];

query_params! {
    /// The query of `GET /v1/versions/{version}/changes`. The spec's row lists `from`, `type`,
    /// `change`, `limit` and `offset`; the version is in the path, so `version` is not taken. `lang`
    /// is, so that names are localized and texts compared as a reader of that language sees them.
    struct ChangesParams {
        from: Option<Named<VersionSelector>> = Param {
            name: "from",
            rule: Rule::Version,
            description: "The published version to compare with (default: the one released just before \
                          `{version}`): an earlier one gives what `{version}` changed; a later one gives the \
                          same changes in reverse, what going back from it undoes; `{version}` itself, none.",
        },
        kind: Option<RecordType> = Param {
            name: "type",
            rule: Rule::Enum(&ChangeType::SET),
            description: "Only changes to records of this type.",
        },
        change: Option<ChangeKind> = Param {
            name: "change",
            rule: Rule::Enum(&value_sets::ChangeKind::SET),
            description: "Only changes of this kind.",
        },
        lang: Language = Param {
            description: "Language of the names, and of the texts compared: a text field (`name`, `description`, \
                          `title`) is listed when the text served in this language changed, a translation \
                          added, changed or withdrawn or an English text it falls back to changed; `en` \
                          (the default) compares the English texts.",
            ..LANG
        },
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

/// `GET /v1/versions/{version}/changes`.
fn changes(ctx: &Ctx<'_>, p: ChangesParams) -> Result<Reply, ApiError> {
    let catalog = resolve(ctx.store, &ctx.path_version()?)?;
    let from = match &p.from {
        Some(from) => Some(resolve(ctx.store, &from.value)?),
        None => {
            let previous = catalog.info.previous.clone();
            previous.and_then(|name| ctx.store.resolve(&VersionSelector::Exact(name)))
        }
    };
    let mut loc = ctx.localizer(catalog, p.lang);
    let window = Window { limit: p.limit, offset: p.offset };
    // The first version has nothing before it: no changes.
    let Some(from) = from else {
        return ctx.render_page(loc, Vec::<VersionChange>::new(), None, window, 0);
    };
    let filter = ChangeFilter { kind: p.kind, change: p.change };
    let page = catalog.changes_page(from, p.lang, filter, window);
    let data: Vec<VersionChange> = page
        .records
        .iter()
        .enumerate()
        .map(|(i, change)| {
            // A removed record is only in the version compared with.
            let named_in = if change.change == ChangeKind::Removed { from } else { catalog };
            views::version_change(&mut loc, change, named_in, &format!("/data/{i}"))
        })
        .collect();
    ctx.render_page(loc, data, None, window, page.total)
}
