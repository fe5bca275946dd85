//! The records of one game version, exactly as a game update delivers them (`docs/data-format.md`
//! documents every field), and the kinds they come in (`RecordType`). Records point at each other by
//! id or key and carry localisation keys instead of text.

use serde::{Deserialize, Serialize};

use crate::{AssetPath, Error, Ident, ItemId, ProgressionKey, RecordId, Slug, TextKey};

/// Declares a closed set of values the game data may use, with its exact spelling in the data
/// format and on the wire, and a parser whose error lists the allowed spellings.
macro_rules! closed_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// The spellings, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            pub const ALLOWED: &'static str = concat!($("`", $text, "` "),+);

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }

            /// Parses the exact spelling, case-sensitively (docs/api.md, "Parameters").
            pub fn parse(value: &str) -> crate::Result<Self> {
                match value {
                    $($text => Ok(Self::$variant),)+
                    _ => Err(Error::UnknownVariant { allowed: Self::ALLOWED.trim_end() }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

closed_enum! {
    /// What happened to a record between two game versions.
    ChangeKind {
        Added = "added",
        Removed = "removed",
        Modified = "modified",
    }
}

closed_enum! {
    /// What an item is, the coarsest way to browse the catalogue.
    ItemKind {
        Ingredient = "ingredient",
        Material = "material",
        Food = "food",
        Drink = "drink",
        Seed = "seed",
        Fish = "fish",
        Tool = "tool",
        Furniture = "furniture",
    }
}

closed_enum! {
    /// How a tavern serves a product; rankings compare products of one food type.
    FoodType {
        Food = "food",
        Drink = "drink",
        Dessert = "dessert",
        Snack = "snack",
    }
}

closed_enum! {
    Season {
        Spring = "spring",
        Summer = "summer",
        Autumn = "autumn",
        Winter = "winter",
    }
}

closed_enum! {
    /// How an item is gathered in the world, besides being bought, grown, crafted, caught or given.
    GatherMethod {
        Foraging = "foraging",
        Mining = "mining",
        Animal = "animal",
    }
}

closed_enum! {
    /// Where a fish lives.
    Water {
        Fresh = "FreshWater",
        Salt = "SaltWater",
        Mine = "MineWater",
    }
}

closed_enum! {
    /// What a fish bites on.
    Bait {
        Meat = "Meat",
        Larva = "Larva",
        Worm = "Worm",
        Seafood = "Seafood",
        Artificial = "Artificial",
    }
}

/// How rare a fish is, from 0 (everywhere) to 10 (legendary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Rarity(u8);

impl Rarity {
    pub const MAX: u8 = 10;

    pub fn new(value: u8) -> crate::Result<Self> {
        if value > Self::MAX {
            return Err(Error::OutOfRange { reason: "rarity goes from 0 to 10" });
        }
        Ok(Self(value))
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Rarity {
    type Error = Error;
    fn try_from(value: u8) -> crate::Result<Self> {
        Self::new(value)
    }
}

impl From<Rarity> for u8 {
    fn from(rarity: Rarity) -> u8 {
        rarity.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub id: ItemId,
    pub slug: Slug,
    pub name_key: TextKey,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_key: Option<TextKey>,
    pub kind: ItemKind,
    pub category: Ident,
    #[serde(default)]
    pub tags: Vec<Ident>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingredient_type: Option<Ident>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub food_type: Option<FoodType>,
    /// Value of one unit in copper.
    pub base_price: u64,
    /// What buying one unit costs, where the game sets it apart from `base_price`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buy_price: Option<u64>,
    /// What a merchant pays for one unit, where the game sets it apart from `base_price`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sell_price: Option<u64>,
    /// Servings one unit makes (a cask of ale pours many); 1 for everything not served.
    #[serde(default = "one")]
    pub servings: u32,
    /// Units one inventory slot holds; 1 for what does not stack.
    #[serde(default = "one")]
    pub stack_size: u32,
    #[serde(default)]
    pub can_be_sold: bool,
    #[serde(default)]
    pub can_be_aged: bool,
    /// Hidden from the game's own catalogue (internal, cut or debug items).
    #[serde(default)]
    pub unlisted: bool,
    /// The game's own path to the item's icon among its assets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<AssetPath>,
    /// Fuel units one unit gives when a station burns it; none for what does not burn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel_value: Option<u32>,
    /// Where the item is gathered in the world.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gathering: Vec<Gathering>,
}

impl Item {
    /// What buying one unit costs: `buy_price`, or the base price where the game sets none.
    pub fn buy_price_or_base(&self) -> u64 {
        self.buy_price.unwrap_or(self.base_price)
    }

    /// What a merchant pays for one unit: `sell_price`, or the base price where the game sets none.
    pub fn sell_price_or_base(&self) -> u64 {
        self.sell_price.unwrap_or(self.base_price)
    }
}

fn one() -> u32 {
    1
}

/// One way of gathering an item in the world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gathering {
    pub method: GatherMethod,
    /// Where, or from what: a place (`old_mine`, `birch_wood`) or an animal (`hen`).
    pub from: Ident,
    /// Seasons in which it can be gathered; empty means all year.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<Season>,
}

/// One item of a stated amount: a recipe output, a reward, an objective, a letter attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemAmount {
    pub item: ItemId,
    pub amount: u32,
}

/// What a recipe ingredient asks for: one particular item, or any member of an ingredient group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Input {
    Item(ItemId),
    Group(RecordId),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "IngredientForm", into = "IngredientForm")]
pub struct Ingredient {
    pub input: Input,
    pub amount: u32,
}

/// The data-format shape of an ingredient: exactly one of `item` and `group`, with an amount.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IngredientForm {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    item: Option<ItemId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<RecordId>,
    amount: u32,
}

impl TryFrom<IngredientForm> for Ingredient {
    type Error = &'static str;
    fn try_from(form: IngredientForm) -> Result<Self, Self::Error> {
        let input = match (form.item, form.group) {
            (Some(item), None) => Input::Item(item),
            (None, Some(group)) => Input::Group(group),
            _ => return Err("an ingredient names exactly one of `item` and `group`"),
        };
        Ok(Self { input, amount: form.amount })
    }
}

impl From<Ingredient> for IngredientForm {
    fn from(ingredient: Ingredient) -> Self {
        let (item, group) = match ingredient.input {
            Input::Item(id) => (Some(id), None),
            Input::Group(id) => (None, Some(id)),
        };
        Self { item, group, amount: ingredient.amount }
    }
}

/// How the player learns a recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Unlock {
    /// Known from the start.
    Default,
    Reputation {
        key: ProgressionKey,
    },
    Perk {
        key: ProgressionKey,
    },
    Quest {
        key: ProgressionKey,
    },
    Talent {
        key: ProgressionKey,
    },
    Mission {
        key: ProgressionKey,
    },
}

impl Unlock {
    pub const KINDS: &'static [&'static str] =
        &["default", "reputation", "perk", "quest", "talent", "mission"];

    pub fn kind(&self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Reputation { .. } => "reputation",
            Self::Perk { .. } => "perk",
            Self::Quest { .. } => "quest",
            Self::Talent { .. } => "talent",
            Self::Mission { .. } => "mission",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    /// The crafting station that makes it.
    pub station: RecordId,
    pub output: ItemAmount,
    pub ingredients: Vec<Ingredient>,
    /// Crafting time in game minutes.
    pub craft_minutes: u32,
    /// Recipe group, the station's tab in the game (`brewing`, `baking`).
    pub group: Ident,
    /// Recipe-book page it is printed on (`ales`, `soups`).
    pub page_name: Ident,
    pub unlock: Unlock,
    /// The newer recipe that supersedes this one, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<RecordId>,
    /// Fuel units one craft burns at its station; 0 where the station burns none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fuel: u32,
    /// Days the output spends in a cellar to reach each aging rank, where the game has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aging_days: Option<AgingDays>,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Days of cellar aging, counted from the craft, after which a product reaches each rank; each rank
/// takes longer than the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgingDays {
    pub young: u32,
    pub aged: u32,
    pub reserve: u32,
    pub grand_reserve: u32,
}

impl AgingDays {
    /// The ranks with their days, shortest first.
    pub fn ranks(&self) -> [(&'static str, u32); 4] {
        [
            ("young", self.young),
            ("aged", self.aged),
            ("reserve", self.reserve),
            ("grand_reserve", self.grand_reserve),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngredientGroup {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    pub members: Vec<ItemId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CraftingStation {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_key: Option<TextKey>,
}

/// What a crop yields at each harvest: between `min` and `max` of one item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harvest {
    pub item: ItemId,
    pub min: u32,
    pub max: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crop {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    /// The seed item that is planted.
    pub seed: ItemId,
    pub harvest: Harvest,
    pub seasons: Vec<Season>,
    pub days_to_grow: u32,
    /// Whether the plant stays after a harvest and yields again.
    pub reusable: bool,
    /// Days from one harvest to the next; present exactly when `reusable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regrow_days: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueEntry {
    pub item: ItemId,
    /// What the shop charges for one unit, in copper.
    pub price: u64,
    /// Seasons in which it is on offer; empty means all year.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<Season>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shop {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    pub shopkeeper: RecordId,
    /// Opening hour, 0 to 23.
    pub opens_at: u8,
    /// Closing hour, after `opens_at`, 1 to 24.
    pub closes_at: u8,
    pub catalogue: Vec<CatalogueEntry>,
}

/// A day of the game's calendar: a season and a day of it, 1 to 28.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameDay {
    pub season: Season,
    pub day: u8,
}

impl GameDay {
    pub const DAYS_PER_SEASON: u8 = 28;
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shopkeeper {
    pub id: RecordId,
    pub slug: Slug,
    pub name_key: TextKey,
    /// The trade they are known by ("Blacksmith").
    pub title_key: TextKey,
    pub birthday: GameDay,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fish {
    pub id: RecordId,
    /// The item a catch gives; its name is the fish's name.
    pub item: ItemId,
    pub seasons: Vec<Season>,
    pub water: Water,
    pub bait: Bait,
    pub rarity: Rarity,
}

/// What completing a quest, reaching a reputation level or a mission gives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rewards {
    #[serde(default)]
    pub copper: u64,
    #[serde(default)]
    pub reputation: u32,
    #[serde(default)]
    pub items: Vec<ItemAmount>,
    /// Recipes learnt.
    #[serde(default)]
    pub recipes: Vec<RecordId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quest {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    /// The shopkeeper who hands the quest out, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub giver: Option<RecordId>,
    /// Quests that must be finished first.
    #[serde(default)]
    pub requires: Vec<ProgressionKey>,
    /// Items to deliver.
    pub objectives: Vec<ItemAmount>,
    pub rewards: Rewards,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Perk {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    /// Tier of the perk tree, 1 to 5.
    pub tier: u8,
    /// Perk points it costs.
    pub cost: u32,
    #[serde(default)]
    pub requires: Vec<ProgressionKey>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spell {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    pub school: Ident,
    pub mana_cost: u32,
    pub cooldown_seconds: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Talent {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    pub tree: Ident,
    pub max_rank: u8,
    #[serde(default)]
    pub requires: Vec<ProgressionKey>,
}

/// One milestone of the tavern's reputation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReputationMilestone {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    /// Reputation level, unique, from 1.
    pub level: u32,
    /// Reputation points needed to reach it; grows with the level.
    pub points: u64,
    pub rewards: Rewards,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mission {
    pub key: ProgressionKey,
    pub name_key: TextKey,
    pub description_key: TextKey,
    pub duration_days: u32,
    /// Reputation level the tavern needs before the mission is offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_reputation: Option<u32>,
    pub rewards: Rewards,
}

/// What makes a letter arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LetterTrigger {
    /// A fixed day of the calendar.
    Day { season: Season, day: u8 },
    /// Reaching a reputation milestone.
    Reputation { key: ProgressionKey },
    /// Finishing a quest.
    Quest { key: ProgressionKey },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Letter {
    pub key: ProgressionKey,
    /// The subject line, which names the letter.
    pub name_key: TextKey,
    /// The letter's text.
    pub description_key: TextKey,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<RecordId>,
    pub trigger: LetterTrigger,
    #[serde(default)]
    pub attachments: Vec<ItemAmount>,
}

/// The kinds of record a game version holds, in the order the data format lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordType {
    Item,
    Recipe,
    IngredientGroup,
    CraftingStation,
    Crop,
    Shop,
    Shopkeeper,
    Fish,
    Quest,
    Perk,
    Spell,
    Talent,
    Reputation,
    Mission,
    Letter,
}

impl RecordType {
    pub const ALL: [Self; 15] = [
        Self::Item,
        Self::Recipe,
        Self::IngredientGroup,
        Self::CraftingStation,
        Self::Crop,
        Self::Shop,
        Self::Shopkeeper,
        Self::Fish,
        Self::Quest,
        Self::Perk,
        Self::Spell,
        Self::Talent,
        Self::Reputation,
        Self::Mission,
        Self::Letter,
    ];

    /// The plural names of [`Self::ALL`], in the same order.
    pub const PLURALS: [&'static str; 15] = [
        "items",
        "recipes",
        "ingredient_groups",
        "crafting_stations",
        "crops",
        "shops",
        "shopkeepers",
        "fish",
        "quests",
        "perks",
        "spells",
        "talents",
        "reputation",
        "missions",
        "letters",
    ];

    /// The plural, snake-case name used for the record file (`items` -> `items.json`) and for the
    /// `type` of version changes.
    pub fn plural(self) -> &'static str {
        // `ALL` lists the variants in declaration order, so a variant's discriminant is its index.
        Self::PLURALS[self as usize]
    }

    /// The singular, snake-case name of one record of this type (`quest`, `ingredient_group`).
    pub fn singular(self) -> &'static str {
        match self {
            Self::Item => "item",
            Self::Recipe => "recipe",
            Self::IngredientGroup => "ingredient_group",
            Self::CraftingStation => "crafting_station",
            Self::Crop => "crop",
            Self::Shop => "shop",
            Self::Shopkeeper => "shopkeeper",
            Self::Fish => "fish",
            Self::Quest => "quest",
            Self::Perk => "perk",
            Self::Spell => "spell",
            Self::Talent => "talent",
            Self::Reputation => "reputation",
            Self::Mission => "mission",
            Self::Letter => "letter",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.plural() == value)
    }

    /// Whether records of this type are named by a progression key rather than an id and slug.
    pub fn is_progression(self) -> bool {
        matches!(
            self,
            Self::Quest
                | Self::Perk
                | Self::Spell
                | Self::Talent
                | Self::Reputation
                | Self::Mission
                | Self::Letter
        )
    }
}

impl std::fmt::Display for RecordType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.plural())
    }
}

/// What every progression record has: the key it is named by and its two texts.
pub trait ProgressionRecord {
    const TYPE: RecordType;
    fn key(&self) -> &ProgressionKey;
    fn name_key(&self) -> &TextKey;
    fn description_key(&self) -> &TextKey;
}

macro_rules! progression_record {
    ($($record:ty => $kind:ident),+ $(,)?) => {$(
        impl ProgressionRecord for $record {
            const TYPE: RecordType = RecordType::$kind;
            fn key(&self) -> &ProgressionKey {
                &self.key
            }
            fn name_key(&self) -> &TextKey {
                &self.name_key
            }
            fn description_key(&self) -> &TextKey {
                &self.description_key
            }
        }
    )+};
}

progression_record! {
    Quest => Quest,
    Perk => Perk,
    Spell => Spell,
    Talent => Talent,
    ReputationMilestone => Reputation,
    Mission => Mission,
    Letter => Letter,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_type_has_its_own_plural_and_parses_back() {
        for (index, kind) in RecordType::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, index);
            assert_eq!(RecordType::parse(kind.plural()), Some(kind));
        }
        let mut plurals = RecordType::PLURALS.to_vec();
        plurals.sort_unstable();
        plurals.dedup();
        assert_eq!(plurals.len(), RecordType::ALL.len());
    }
}
