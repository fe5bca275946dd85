//! Name search over a version, in every language: the index built once per version (see
//! `Catalog::name_index`), and `Catalog::search`, which answers name searches from it.
//!
//! Only what a player can meet is searchable: unlisted items (internal, cut or debug) and recipes that a
//! newer recipe replaces are left out of the index.

use tapster_domain::{GameData, Item, Recipe, RecordType};
use tapster_i18n::Language;
pub use tapster_search::Tier as MatchTier;

use crate::Catalog;

/// The names of a version's items and recipes, folded and indexed per language.
///
/// Documents are numbered in the order ties break in: by id, items before recipes of the same id.
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    index: tapster_search::Index,
    /// Each document's record: its type and position in `GameData`.
    docs: Vec<(RecordType, u32)>,
}

impl NameIndex {
    /// Indexes the names of `data`; `text` gives the text of a key in one language, without fallback.
    pub(crate) fn new<'a>(data: &GameData, text: impl Fn(&str, Language) -> Option<&'a str>) -> Self {
        let mut records: Vec<(i64, RecordType, u32, &str)> = Vec::new();
        for (position, item) in data.items.iter().enumerate().filter(|(_, i)| !i.unlisted) {
            records.push((item.id, RecordType::Item, position as u32, item.name_key.as_str()));
        }
        for (position, recipe) in data.recipes.iter().enumerate().filter(|(_, r)| r.replaced_by.is_none()) {
            records.push((recipe.id, RecordType::Recipe, position as u32, recipe.name_key.as_str()));
        }
        records.sort_by_key(|&(id, kind, ..)| (id, kind != RecordType::Item));
        let mut builder = tapster_search::Index::builder();
        for &language in Language::ALL {
            builder.stop_words(language.index(), tapster_search::stop_words(language.code()));
        }
        let mut docs = Vec::with_capacity(records.len());
        for (doc, &(_, kind, position, key)) in records.iter().enumerate() {
            for &language in Language::ALL {
                if let Some(name) = text(key, language).filter(|t| !t.is_empty()) {
                    builder.add(language.index(), doc as u32, name);
                }
            }
            docs.push((kind, position));
        }
        Self { index: builder.build(), docs }
    }
}

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
