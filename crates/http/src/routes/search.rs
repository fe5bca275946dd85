//! `/v1/search`: items and recipes by part of their name in the requested language or in English.

use tapster_domain::RecordType;

use super::{Ctx, Endpoint};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, Param, Rule, VERSION};
use crate::response::Reply;
use crate::value_sets;
use crate::views::search::SearchResult;

/// No `offset` (spec 4.6): search answers the best hits, not pages (a request with it is refused).
const PARAMS: &[Param] = &[
    Param {
        name: "q",
        rule: Rule::Text { min: 2, max: 64, required: true },
        description: "Part of a name in `lang` or in English, 2 to 64 characters. Case, accents, character \
            width, hiragana or katakana and punctuation do not matter; a word of 5 characters or more may \
            have one typo.",
    },
    Param {
        name: "type",
        rule: Rule::Enum(&value_sets::HitType::SET),
        description: "Only items or only recipes; both when left out.",
    },
    Param {
        name: "limit",
        rule: Rule::Limit { default: 20, max: 50 },
        description: "Hits to return, 1 to 50 (default 20). Search is not paged: it answers the best `limit` hits, and fewer than `limit` means there are no more; to reach others, make `q` longer or narrower.",
    },
    VERSION,
    LANG,
];

pub(super) const ENDPOINTS: &[Endpoint] = &[Endpoint {
    path: "/v1/search",
    key: None,
    summary: "Items and recipes by name, best matches first: the whole name, its start, the start of a \
        word, anywhere in it, then with one typo; then shorter names, then by id. Unlisted items and \
        replaced recipes are not searched.",
    example: Some("/v1/search?q=ale&limit=3"),
    params: PARAMS,
    handler: search,
    data: schema::<Vec<SearchResult>>,
}];

/// `GET /v1/search`.
fn search(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let q = &ctx.query;
    let kind = match q.text("type") {
        Some("item") => Some(RecordType::Item),
        Some(_) => Some(RecordType::Recipe),
        None => None,
    };
    let hits = catalog.search(q.text("q").unwrap_or_default(), kind, q.lang(), q.limit());
    let mut loc = Localizer::new(catalog, q.lang());
    let data = loc.list(hits.iter(), SearchResult::new);
    ctx.render(loc, data)
}
