//! `/v1/search`: items and recipes by part of their name in the requested language or in English.

use tapster_domain::VersionSelector;
use tapster_i18n::Language;
use tapster_wire::SearchResult;

use super::{Ctx, Endpoint, Handle};
use crate::error::ApiError;
use crate::params::{LANG, Param, Rule, SearchType, VERSION, query_params};
use crate::response::Reply;
use crate::schemas::schema;
use crate::value_sets;
use crate::views;

query_params! {
    /// The query of `GET /v1/search`. No `offset` (docs/api.md, "Search"): search answers the best hits, not
    /// pages (a request with it is refused).
    struct SearchParams {
        q: String = Param {
            name: "q",
            rule: Rule::SearchText { min: 2, max: 64, required: true },
            description: "Words of a name in `lang` or in English, in any order, 2 to 64 characters. \
                Whitespace and punctuation only separate words, so a text made only of them (`---`, `  `) \
                is refused with `422`: it must hold a letter, a digit or a symbol, in any script. Each \
                word is found as a whole word of the name, its start or part of it; the last one may be a \
                word being typed. Case, accents, character width, hiragana or katakana and punctuation do \
                not matter; a word of 4 to 7 characters may have one typo, of 8 or more two; stop words \
                (`de`, `the`, `l'`) may be missing from the name. Words typed joined or apart are found \
                too, below the same words as typed: `paleale` finds \"Pale Ale\", `erbsen suppe` \
                \"Erbsensuppe\".",
        },
        kind: Option<SearchType> = Param {
            name: "type",
            rule: Rule::Enum(&value_sets::HitType::SET),
            description: "Only items or only recipes; both when left out.",
        },
        limit: u32 = Param {
            name: "limit",
            rule: Rule::Limit { default: 20, max: 50 },
            description: "Hits to return, 1 to 50 (default 20). Search is not paged: it answers the best `limit` hits, and fewer than `limit` means there are no more; to reach others, make `q` longer or narrower.",
        },
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

pub(super) const ENDPOINTS: &[Endpoint] = &[Endpoint {
    path: "/v1/search",
    key: None,
    summary: "Items and recipes by the words of their name, best matches first: most words found whole, \
        fewest typos, words as typed before words typed joined or apart, words closest and in order, then \
        the whole name, its start, the start of a word, \
        anywhere in it, words apart; then shorter names, the requested language before English, and \
        id. Unlisted items and replaced recipes are not searched.",
    example: Some("/v1/search?q=ale&limit=3"),
    handler: &Handle(search),
    data: schema::<Vec<SearchResult>>,
}];

/// `GET /v1/search`.
fn search(ctx: &Ctx<'_>, p: SearchParams) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let kind = p.kind.map(SearchType::record_type);
    let hits = catalog.search(&p.q, kind, p.lang, p.limit);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(hits.iter(), views::search_result);
    ctx.render(loc, data, None)
}
