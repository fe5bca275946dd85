//! The name index of one version: the names of its items and recipes in every language, folded and
//! indexed by `tapster_search` once per version (see `Catalog::name_index`), which
//! `Catalog::search` (`query::search`) answers name searches from.
//!
//! Only what a player can meet is indexed: unlisted items (internal, cut or debug) and recipes that a
//! newer recipe replaces are left out.

use tapster_domain::{GameData, RecordType};
use tapster_i18n::Language;

/// The names of a version's items and recipes, folded and indexed per language.
///
/// Documents are numbered in the order ties break in: by id, items before recipes of the same id.
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    pub(crate) index: tapster_search::Index,
    /// Each document's record: its type and position in `GameData`.
    pub(crate) docs: Vec<(RecordType, u32)>,
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
