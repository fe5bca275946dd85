//! One game version held in memory for serving: its records, indexes to find them by id, slug or key,
//! its texts in every language, and what was derived across versions (when each record first
//! appeared, what changed). Built once when the store opens; requests only read it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use tapster_domain::{
    AssetPath, BuildId, ChangeKind, CraftingStation, Crop, GameData, GameVersion, IngredientGroup, Item,
    Recipe, RecordId, RecordKey, RecordType, ReleaseDate, Shop, Shopkeeper, TextKey,
};
use tapster_i18n::{Language, Translated, translate};

use crate::names::NameIndex;

/// A published game version and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    pub name: GameVersion,
    pub build_id: BuildId,
    pub released: ReleaseDate,
    /// Whether it is the version `latest` names.
    pub latest: bool,
    /// The version released before it, if any.
    pub previous: Option<GameVersion>,
    /// What changed since `previous`.
    pub changes: Option<ChangeSummary>,
    /// Number of records of each type.
    pub counts: BTreeMap<RecordType, u64>,
    /// The languages it has texts in, in the game's order.
    pub languages: Vec<Language>,
}

/// How many records a version added, removed and modified relative to the one before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeSummary {
    pub added: u64,
    pub removed: u64,
    pub modified: u64,
}

/// The values the game data defines for itself, as found in one version.
#[derive(Debug, Default)]
pub struct Vocabulary {
    pub categories: BTreeSet<String>,
    pub tags: BTreeSet<String>,
    pub ingredient_types: BTreeSet<String>,
    pub recipe_groups: BTreeSet<String>,
    pub page_names: BTreeSet<String>,
}

impl Vocabulary {
    pub(crate) fn new(data: &GameData) -> Self {
        let mut vocabulary = Self::default();
        for item in &data.items {
            vocabulary.categories.insert(item.category.to_string());
            vocabulary.tags.extend(item.tags.iter().map(ToString::to_string));
            vocabulary.ingredient_types.extend(item.ingredient_type.iter().map(ToString::to_string));
        }
        for recipe in &data.recipes {
            vocabulary.recipe_groups.insert(recipe.group.to_string());
            vocabulary.page_names.insert(recipe.page_name.to_string());
        }
        vocabulary
    }
}

/// Of the texts records use, how many each language translates, and how many there are.
pub(crate) type Coverage = BTreeMap<Language, (u64, u64)>;

/// One change between two versions, as stored at import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: RecordType,
    /// The record's id in decimal, or its progression key.
    pub record_key: String,
    pub change: ChangeKind,
    /// Names of the modified fields.
    pub fields: Vec<String>,
}

impl Change {
    /// The same change seen from the later version back to the earlier: an addition undone is a
    /// removal, and the other way round; a modification touches the same fields.
    pub(crate) fn reversed(&self) -> Self {
        let change = match self.change {
            ChangeKind::Added => ChangeKind::Removed,
            ChangeKind::Removed => ChangeKind::Added,
            ChangeKind::Modified => ChangeKind::Modified,
        };
        Self { change, ..self.clone() }
    }
}

/// A language of one game version: its name and how much of the version it translates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageInfo {
    pub language: Language,
    /// The language's name in the requested language, and the language that name is actually in
    /// (English when the requested language does not name it).
    pub name: (String, Language),
    /// Texts of the version's records that are translated, of `total`.
    pub translated: u64,
    pub total: u64,
}

/// Localisation keys that name a language (`language.de`).
pub(crate) const LANGUAGE_NAME_PREFIX: &str = "language.";

/// A game version in memory.
#[derive(Debug)]
pub struct Catalog {
    pub info: VersionInfo,
    /// The records; `data.texts` is empty, the texts live in [`Catalog::text`].
    pub data: GameData,
    texts: Texts,
    coverage: Coverage,
    items: Index,
    recipes: Index,
    groups: Index,
    stations: Index,
    crops: Index,
    shops: Index,
    shopkeepers: Index,
    /// The values the data defines for itself (categories, tags, ...).
    pub vocabulary: Vocabulary,
    /// The value of every item under each ingredient choice, computed at load.
    pub prices: tapster_pricing::PriceBook,
    /// The names of items and recipes in every language, indexed for search: at load for the latest
    /// version, at its first search for an older one (most are never searched; each index costs
    /// megabytes and tens of milliseconds).
    search: OnceLock<NameIndex>,
    /// Per language, the place of every text (by text row) in name order, case and accents not
    /// counting, English where the language lacks it; equal names share a place. Made the first time
    /// a list is sorted by name in that language, so that sorting compares numbers, not strings.
    name_ranks: Vec<OnceLock<Vec<u32>>>,
    /// The version each record first appeared in, by type and record key.
    pub(crate) introduced: HashMap<(RecordType, String), GameVersion>,
    /// The changes from each earlier version (by name) to this one.
    pub(crate) changes: HashMap<String, Vec<Change>>,
    /// The picture (by its SHA-256) each asset path of this version names; empty for data imported
    /// before pictures were kept.
    pub(crate) assets: HashMap<AssetPath, [u8; 32]>,
}

/// Finds records of one type by id or slug.
#[derive(Debug, Default)]
struct Index {
    by_id: HashMap<RecordId, usize>,
    by_slug: HashMap<String, usize>,
}

impl Index {
    fn new<'a>(records: impl Iterator<Item = (RecordId, &'a str)>) -> Self {
        let mut index = Self::default();
        for (position, (id, slug)) in records.enumerate() {
            index.by_id.insert(id, position);
            index.by_slug.insert(slug.to_owned(), position);
        }
        index
    }

    fn find(&self, key: &RecordKey) -> Option<usize> {
        match key {
            RecordKey::Id(id) => self.by_id.get(id).copied(),
            RecordKey::Slug(slug) => self.by_slug.get(slug).copied(),
        }
    }

    fn id(&self, id: RecordId) -> Option<usize> {
        self.by_id.get(&id).copied()
    }
}

/// Every text of a version, by key and language.
#[derive(Debug, Default)]
pub(crate) struct Texts {
    keys: HashMap<Box<str>, u32>,
    /// One column per language (indexed by [`Language::index`]), one row per key. The texts are
    /// shared through a [`TextPool`]: with every other version (a patch changes few texts) and
    /// within the version (descriptions repeat).
    tables: Vec<Vec<Option<Arc<str>>>>,
}

/// The texts read so far, each held once, while a store's versions are read.
#[derive(Debug, Default)]
pub(crate) struct TextPool(HashSet<Arc<str>>);

impl TextPool {
    /// `text`, shared with an equal text read before.
    pub(crate) fn share(&mut self, text: &str) -> Arc<str> {
        if let Some(shared) = self.0.get(text) {
            return Arc::clone(shared);
        }
        let text: Arc<str> = text.into();
        self.0.insert(Arc::clone(&text));
        text
    }
}

impl Texts {
    pub(crate) fn insert(&mut self, key: &str, language: Language, text: Arc<str>) {
        if self.tables.is_empty() {
            self.tables = vec![Vec::new(); Language::ALL.len()];
        }
        let next = self.keys.len() as u32;
        let row = *self.keys.entry(key.into()).or_insert(next) as usize;
        let table = &mut self.tables[language.index()];
        if table.len() <= row {
            table.resize(row + 1, None);
        }
        table[row] = Some(text);
    }

    pub(crate) fn get(&self, key: &str, language: Language) -> Option<&str> {
        self.at(*self.keys.get(key)? as usize, language)
    }

    fn at(&self, row: usize, language: Language) -> Option<&str> {
        self.tables.get(language.index())?.get(row)?.as_deref()
    }
}

impl Catalog {
    pub(crate) fn new(info: VersionInfo, data: GameData, texts: Texts, coverage: Coverage) -> Self {
        Self {
            items: Index::new(data.items.iter().map(|r| (r.id, r.slug.as_str()))),
            recipes: Index::new(data.recipes.iter().map(|r| (r.id, r.slug.as_str()))),
            groups: Index::new(data.ingredient_groups.iter().map(|r| (r.id, r.slug.as_str()))),
            stations: Index::new(data.crafting_stations.iter().map(|r| (r.id, r.slug.as_str()))),
            crops: Index::new(data.crops.iter().map(|r| (r.id, r.slug.as_str()))),
            shops: Index::new(data.shops.iter().map(|r| (r.id, r.slug.as_str()))),
            shopkeepers: Index::new(data.shopkeepers.iter().map(|r| (r.id, r.slug.as_str()))),
            vocabulary: Vocabulary::new(&data),
            name_ranks: Language::ALL.iter().map(|_| OnceLock::new()).collect(),
            prices: tapster_pricing::PriceBook::new(&data),
            search: OnceLock::new(),
            info,
            data,
            texts,
            coverage,
            introduced: HashMap::new(),
            changes: HashMap::new(),
            assets: HashMap::new(),
        }
    }

    /// The name index of this version, built the first time it is needed.
    pub(crate) fn name_index(&self) -> &NameIndex {
        self.search.get_or_init(|| NameIndex::new(&self.data, |key, language| self.texts.get(key, language)))
    }

    /// Where the text `key` comes in name order in `lang`, as a person expects it: case and accents
    /// do not count. Texts with the same folded name share a place; a missing text comes first.
    pub(crate) fn name_rank(&self, key: &TextKey, lang: Language) -> u32 {
        let Some(&row) = self.texts.keys.get(key.as_str()) else { return 0 };
        let ranks = self.name_ranks[lang.index()].get_or_init(|| {
            let folded: Vec<String> = (0..self.texts.keys.len())
                .map(|row| {
                    let text =
                        translate(lang, |language| self.texts.at(row, language)).map_or("", |t| t.text);
                    tapster_search::fold(text)
                })
                .collect();
            let mut rows: Vec<usize> = (0..folded.len()).collect();
            rows.sort_by(|&a, &b| folded[a].cmp(&folded[b]));
            let mut ranks = vec![0; folded.len()];
            let mut rank = 0;
            for (i, &row) in rows.iter().enumerate() {
                if i > 0 && folded[row] != folded[rows[i - 1]] {
                    rank += 1;
                }
                // Place 0 is kept for texts that are missing altogether.
                ranks[row] = rank + u32::from(!folded[rows[0]].is_empty());
            }
            ranks
        });
        ranks.get(row as usize).copied().unwrap_or(0)
    }

    /// The text of `key` in `lang`, or in English when `lang` lacks it.
    pub fn text(&self, key: &TextKey, lang: Language) -> Option<Translated<'_>> {
        translate(lang, |language| self.texts.get(key.as_str(), language))
    }

    /// The version's languages in the game's order, each named in `lang` (or in English, and failing
    /// that by its English name from the language table).
    pub fn languages(&self, lang: Language) -> Vec<LanguageInfo> {
        self.info
            .languages
            .iter()
            .map(|&language| {
                let key = format!("{LANGUAGE_NAME_PREFIX}{}", language.code());
                let name = translate(lang, |table| self.texts.get(&key, table))
                    .map(|t| (t.text.to_owned(), t.language))
                    .unwrap_or_else(|| (language.english_name().to_owned(), Language::SOURCE));
                let (translated, total) = self.coverage.get(&language).copied().unwrap_or_default();
                LanguageInfo { language, name, translated, total }
            })
            .collect()
    }

    /// The version a record first appeared in.
    pub fn introduced_in(&self, kind: RecordType, record_key: &str) -> Option<&GameVersion> {
        self.introduced.get(&(kind, record_key.to_owned()))
    }

    /// The changes from the earlier version `from` to this one; `None` when `from` is not earlier.
    pub fn changes_from(&self, from: &GameVersion) -> Option<&[Change]> {
        self.changes.get(from.as_str()).map(Vec::as_slice)
    }

    pub fn item(&self, key: &RecordKey) -> Option<&Item> {
        self.items.find(key).map(|i| &self.data.items[i])
    }

    /// The SHA-256 of the picture `path` names in this version: the name of the picture the store
    /// keeps for it ([`Store::picture`](crate::Store::picture)); `None` for data imported before
    /// pictures were kept.
    pub fn picture_of(&self, path: &AssetPath) -> Option<&[u8; 32]> {
        self.assets.get(path)
    }

    pub fn item_by_id(&self, id: RecordId) -> Option<&Item> {
        self.items.id(id).map(|i| &self.data.items[i])
    }

    pub fn recipe(&self, key: &RecordKey) -> Option<&Recipe> {
        self.recipes.find(key).map(|i| &self.data.recipes[i])
    }

    pub fn recipe_by_id(&self, id: RecordId) -> Option<&Recipe> {
        self.recipes.id(id).map(|i| &self.data.recipes[i])
    }

    pub fn group(&self, key: &RecordKey) -> Option<&IngredientGroup> {
        self.groups.find(key).map(|i| &self.data.ingredient_groups[i])
    }

    pub fn group_by_id(&self, id: RecordId) -> Option<&IngredientGroup> {
        self.groups.id(id).map(|i| &self.data.ingredient_groups[i])
    }

    pub fn station(&self, key: &RecordKey) -> Option<&CraftingStation> {
        self.stations.find(key).map(|i| &self.data.crafting_stations[i])
    }

    pub fn station_by_id(&self, id: RecordId) -> Option<&CraftingStation> {
        self.stations.id(id).map(|i| &self.data.crafting_stations[i])
    }

    pub fn crop(&self, key: &RecordKey) -> Option<&Crop> {
        self.crops.find(key).map(|i| &self.data.crops[i])
    }

    pub fn shop(&self, key: &RecordKey) -> Option<&Shop> {
        self.shops.find(key).map(|i| &self.data.shops[i])
    }

    pub fn shopkeeper_by_id(&self, id: RecordId) -> Option<&Shopkeeper> {
        self.shopkeepers.id(id).map(|i| &self.data.shopkeepers[i])
    }
}
