//! The world: crops, shops and shopkeepers, fish.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// `Crop`: a plant, what it is grown from and what it yields, and where its seed is sold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Crop {
    pub id: i64,
    pub slug: String,
    /// The crop's name, localized.
    pub name: String,
    /// The seed item that is planted.
    pub seed: RecordRef,
    /// What one harvest yields.
    pub harvest: CropHarvest,
    /// The seasons it grows in.
    pub seasons: Vec<Season>,
    /// Days from planting to the first harvest.
    pub days_to_grow: u32,
    /// Whether the plant stays after a harvest and yields again.
    pub reusable: bool,
    /// Days from one harvest to the next; `null` unless `reusable`.
    pub regrow_days: Option<u32>,
    /// The shops that sell its seed, with their price, in the data's order.
    pub sold_by: Vec<SeedOffer>,
    /// The game version the crop first appeared in.
    pub introduced_in: Option<String>,
}

/// What one harvest yields: between `min` and `max` of one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CropHarvest {
    /// The item harvested.
    pub item: RecordRef,
    /// The least one harvest yields.
    pub min: u32,
    /// The most one harvest yields.
    pub max: u32,
}

/// A shop that sells a crop's seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedOffer {
    /// The shop.
    pub shop: RecordRef,
    /// What the shop charges for one seed.
    pub price: Price,
}

/// `ShopSummary`: a shop, who runs it, its hours and how much it sells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShopSummary {
    pub id: i64,
    pub slug: String,
    /// The shop's name, localized.
    pub name: String,
    /// The person who runs it.
    pub shopkeeper: ShopkeeperRef,
    /// Opening hour, 0 to 23.
    #[schemars(range(min = 0, max = 23))]
    pub opens_at: u8,
    /// Closing hour, 1 to 24, after `opens_at`.
    #[schemars(range(min = 1, max = 24))]
    pub closes_at: u8,
    /// How many items its catalogue holds.
    pub catalogue_size: usize,
    /// The game version the shop first appeared in.
    pub introduced_in: Option<String>,
}

/// `ShopDetail`: the summary's fields and the shop's catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShopDetail {
    #[serde(flatten)]
    pub summary: ShopSummary,
    /// What it sells, in the data's order.
    pub catalogue: Vec<CatalogueLine>,
}

/// One item a shop sells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogueLine {
    /// The item.
    pub item: RecordRef,
    /// What the shop charges for one unit.
    pub price: Price,
    /// The seasons it is on offer; empty for all year.
    pub seasons: Vec<Season>,
}

/// `Npc`: a shopkeeper, their trade, birthday and the shops they run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Npc {
    pub id: i64,
    pub slug: String,
    /// The person's name, localized.
    pub name: String,
    /// The trade they are known by ("Blacksmith"), localized.
    pub title: String,
    /// Their birthday in the game's calendar.
    pub birthday: Birthday,
    /// The shops they run, in the data's order.
    pub shops: Vec<RecordRef>,
    /// The game version the shopkeeper first appeared in.
    pub introduced_in: Option<String>,
}

/// A day of the game's calendar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Birthday {
    /// `spring`, `summer`, `autumn` or `winter`.
    pub season: Season,
    /// Day of the season, 1 to 28.
    #[schemars(range(min = 1, max = 28))]
    pub day: u8,
}

/// `Fish`: where and when a fish bites, named by the item a catch gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fish {
    pub id: i64,
    /// The fish's name: the localized name of its item.
    pub name: String,
    /// The item a catch gives.
    pub item: RecordRef,
    /// The seasons it bites in.
    pub seasons: Vec<Season>,
    /// Where it lives: `FreshWater`, `SaltWater` or `MineWater`.
    pub water: Water,
    /// What it bites on: `Meat`, `Larva`, `Worm`, `Seafood` or `Artificial`.
    pub bait: Bait,
    /// 0 (everywhere) to 10 (legendary).
    #[schemars(range(min = 0, max = 10))]
    pub rarity: u8,
    /// The game's value of one catch (its item's base price).
    pub base_price: Price,
    /// The game version the fish first appeared in.
    pub introduced_in: Option<String>,
}
