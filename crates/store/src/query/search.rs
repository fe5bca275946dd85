//! Name search over a version, in every language: `Catalog::search`, which answers from the
//! version's name index (`crate::names`, built once per version by `Catalog::name_index`). Only what a
//! player can meet is searchable: the index leaves out unlisted items and replaced recipes.

use tapster_domain::{Item, Recipe, RecordType};
use tapster_i18n::Language;
pub use tapster_search::Tier as MatchTier;

use crate::Catalog;

/// A record a search found.
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    Item(&'a Item),
    Recipe(&'a Recipe),
}

/// One search hit: the record, the language of the name that matched, and how well it matched.
#[derive(Debug, Clone, Copy)]
pub struct SearchHit<'a> {
    pub record: Found<'a>,
    /// The requested language, or English when the English name matched better (or only it exists).
    pub matched: Language,
    pub tier: MatchTier,
}

impl Catalog {
    /// The best `limit` items and recipes (only those of `kind` when it is given) whose name in `lang`
    /// or in English holds the words of `query`, in any order, ignoring case, accents, width and kana
    /// script, with the typos and stop words `tapster_search` allows; best first, each record once.
    /// Unlisted items and replaced recipes are never found.
    pub fn search(
        &self,
        query: &str,
        kind: Option<RecordType>,
        lang: Language,
        limit: u32,
    ) -> Vec<SearchHit<'_>> {
        let index = self.name_index();
        let lists: &[usize] = &[lang.index(), Language::SOURCE.index()];
        let lists = if lang == Language::SOURCE { &lists[..1] } else { lists };
        let keep = |doc: u32| kind.is_none_or(|k| index.docs[doc as usize].0 == k);
        index
            .index
            .search(query, lists, keep, limit as usize)
            .into_iter()
            .filter_map(|hit| {
                let (kind, position) = index.docs[hit.doc as usize];
                let record = match kind {
                    RecordType::Recipe => Found::Recipe(self.data.recipes.get(position as usize)?),
                    _ => Found::Item(self.data.items.get(position as usize)?),
                };
                let matched = if hit.list == 0 { lang } else { Language::SOURCE };
                Some(SearchHit { record, matched, tier: hit.tier })
            })
            .collect()
    }
}
