//! `/v1/versions/{version}/changes`: what changed between two game versions.

use tapster_domain::{ChangeKind, RecordType, VersionSelector};
use tapster_store::ChangeFilter;

use super::{Ctx, Endpoint, resolve};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, LIMIT, OFFSET, Param, Rule};
use crate::response::Reply;
use crate::value_sets::{self, ChangeType};
use crate::views::progression::VersionChange;

pub(super) const ENDPOINTS: &[Endpoint] = &[Endpoint {
    path: "/v1/versions/{version}/changes",
    key: None,
    summary: "The records a game version added, removed or modified since an earlier one",
    example: Some("/v1/versions/latest/changes?type=items&change=modified&limit=2"),
    params: PARAMS,
    handler: changes,
    data: schema::<Vec<VersionChange>>,
}];

/// The spec's row lists `from`, `type`, `change`, `limit` and `offset`; the version is in the path, so
/// `version` is not taken. `lang` is, so that names can be localized.
const PARAMS: &[Param] = &[
    Param {
        name: "from",
        rule: Rule::Version,
        description: "The earlier published version to compare with (default: the version released just \
                      before `{version}`); a version that is not earlier is refused.",
    },
    Param {
        name: "type",
        rule: Rule::Enum(&ChangeType::SET),
        description: "Only changes to records of this type.",
    },
    Param {
        name: "change",
        rule: Rule::Enum(&value_sets::ChangeKind::SET),
        description: "Only changes of this kind.",
    },
    LANG,
    LIMIT,
    OFFSET,
];

/// `GET /v1/versions/{version}/changes`.
fn changes(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = resolve(ctx.store, &ctx.path_version()?)?;
    let q = &ctx.query;
    let earlier = match ctx.query.version_of("from") {
        Some(selector) => Some(resolve(ctx.store, &selector)?),
        None => {
            let previous = catalog.info.previous.clone();
            previous.and_then(|name| ctx.store.resolve(&VersionSelector::Exact(name)))
        }
    };
    let mut loc = Localizer::new(catalog, q.lang());
    // The first version has nothing before it: no changes.
    let Some(earlier) = earlier else {
        return ctx.render_page(loc, Vec::<VersionChange>::new(), 0);
    };
    let filter = ChangeFilter {
        kind: q.text("type").and_then(RecordType::parse),
        change: q.text("change").and_then(|change| ChangeKind::parse(change).ok()),
    };
    let window = q.window();
    let page = catalog.changes_page(&earlier.info.name, filter, window).ok_or_else(|| {
        ApiError::invalid(
            "from",
            format!("must be a version published before {}; {} is not", catalog.info.name, earlier.info.name),
        )
    })?;
    let data: Vec<VersionChange> = page
        .records
        .iter()
        .enumerate()
        .map(|(i, change)| {
            let named_in = if change.change == ChangeKind::Removed { earlier } else { catalog };
            VersionChange::new(&mut loc, change, named_in, &format!("/data/{i}"))
        })
        .collect();
    ctx.render_page(loc, data, page.total)
}
