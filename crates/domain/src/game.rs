//! One game version as a whole: its manifest, every record type, and its localisation tables.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    BuildId, CraftingStation, Crop, Fish, GameVersion, IngredientGroup, Item, Letter, Mission, Perk, Quest,
    Recipe, ReleaseDate, ReputationMilestone, Shop, Shopkeeper, Spell, Talent, TextKey,
};

/// The format generation this model reads; a manifest of another generation is refused.
pub const FORMAT: u32 = 1;

/// `manifest.json` of a game version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    pub game_version: GameVersion,
    pub build_id: BuildId,
    pub released: ReleaseDate,
}

/// The texts of one language: localisation key to text.
pub type TextTable = BTreeMap<TextKey, String>;

/// Everything a game update delivers for one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameData {
    pub manifest: Manifest,
    pub items: Vec<Item>,
    pub recipes: Vec<Recipe>,
    pub ingredient_groups: Vec<IngredientGroup>,
    pub crafting_stations: Vec<CraftingStation>,
    pub crops: Vec<Crop>,
    pub shops: Vec<Shop>,
    pub shopkeepers: Vec<Shopkeeper>,
    pub fish: Vec<Fish>,
    pub quests: Vec<Quest>,
    pub perks: Vec<Perk>,
    pub spells: Vec<Spell>,
    pub talents: Vec<Talent>,
    pub reputation: Vec<ReputationMilestone>,
    pub missions: Vec<Mission>,
    pub letters: Vec<Letter>,
    /// Localisation tables by language code. English (`en`) is the source language and must hold
    /// every key a record refers to; other languages may lack some.
    pub texts: BTreeMap<String, TextTable>,
}

/// The source language, whose table is complete and stands in for missing translations.
pub const SOURCE_LANGUAGE: &str = "en";

impl GameData {
    /// A version with no records and no texts yet, to be filled.
    pub fn new(manifest: Manifest) -> Self {
        Self {
            manifest,
            items: Vec::new(),
            recipes: Vec::new(),
            ingredient_groups: Vec::new(),
            crafting_stations: Vec::new(),
            crops: Vec::new(),
            shops: Vec::new(),
            shopkeepers: Vec::new(),
            fish: Vec::new(),
            quests: Vec::new(),
            perks: Vec::new(),
            spells: Vec::new(),
            talents: Vec::new(),
            reputation: Vec::new(),
            missions: Vec::new(),
            letters: Vec::new(),
            texts: BTreeMap::new(),
        }
    }

    /// Every localisation key a record refers to, each once, in key order.
    pub fn text_keys(&self) -> std::collections::BTreeSet<&TextKey> {
        use crate::ProgressionRecord;
        let mut keys = std::collections::BTreeSet::new();
        for item in &self.items {
            keys.insert(&item.name_key);
            keys.extend(&item.description_key);
        }
        keys.extend(self.recipes.iter().map(|r| &r.name_key));
        keys.extend(self.ingredient_groups.iter().map(|g| &g.name_key));
        for station in &self.crafting_stations {
            keys.insert(&station.name_key);
            keys.extend(&station.description_key);
        }
        keys.extend(self.crops.iter().map(|c| &c.name_key));
        keys.extend(self.shops.iter().map(|s| &s.name_key));
        for keeper in &self.shopkeepers {
            keys.insert(&keeper.name_key);
            keys.insert(&keeper.title_key);
        }
        fn texts<'a, R: ProgressionRecord>(
            keys: &mut std::collections::BTreeSet<&'a TextKey>,
            records: &'a [R],
        ) {
            for record in records {
                keys.insert(record.name_key());
                keys.insert(record.description_key());
            }
        }
        texts(&mut keys, &self.quests);
        texts(&mut keys, &self.perks);
        texts(&mut keys, &self.spells);
        texts(&mut keys, &self.talents);
        texts(&mut keys, &self.reputation);
        texts(&mut keys, &self.missions);
        texts(&mut keys, &self.letters);
        keys
    }
}
