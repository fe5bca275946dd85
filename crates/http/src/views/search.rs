//! Search hits: what each record found is, its name in the requested language, and the text that matched.

use tapster_store::{Found, MatchTier, SearchHit};
use tapster_wire::{self as wire, MatchHow, Matched, SearchResult};

use crate::envelope::Localizer;
use crate::envelope::lang;

/// One hit; `at` is the JSON Pointer of this object in the body.
pub(crate) fn search_result(loc: &mut Localizer<'_>, hit: &SearchHit<'_>, at: &str) -> SearchResult {
    let (kind, id, slug, key) = match hit.record {
        Found::Item(item) => (wire::HitType::Item, item.id, item.slug.as_str(), &item.name_key),
        Found::Recipe(recipe) => (wire::HitType::Recipe, recipe.id, recipe.slug.as_str(), &recipe.name_key),
    };
    let name = loc.text(key, || format!("{at}/name"));
    // The matched text is in the language it says, never a stand-in: it is not a fallback.
    let text = loc.catalog.text(key, hit.matched).map(|t| t.text.to_owned()).unwrap_or_default();
    let how = match hit.tier {
        MatchTier::Whole => MatchHow::Whole,
        MatchTier::Prefix => MatchHow::Prefix,
        MatchTier::WordPrefix => MatchHow::WordPrefix,
        MatchTier::Substring => MatchHow::Substring,
        MatchTier::Words => MatchHow::Words,
        MatchTier::Typo => MatchHow::Typo,
    };
    SearchResult {
        kind,
        id,
        slug: slug.to_owned(),
        name,
        matched: Matched { lang: lang(hit.matched), text, how },
    }
}
