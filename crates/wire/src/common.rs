//! What many answers share: prices, references to other records, amounts of items.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A price in copper (100 copper are a silver, 100 silver a gold), and as players read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Price {
    pub copper: u64,
    /// `<s>s <c>c` below one gold (10000 copper), `<g>g <s>s <c>c` from one gold up: 5 is `0s 5c`,
    /// 245 is `2s 45c`, 10000 is `1g 0s 0c`, 123456 is `12g 34s 56c`.
    #[schemars(regex(pattern = r"^([1-9][0-9]*g )?[0-9]{1,2}s [0-9]{1,2}c$"))]
    pub display: String,
}

/// Another record, named well enough that a client needs no second request: id, slug, localized name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordRef {
    pub id: i64,
    pub slug: String,
    pub name: String,
}

/// An amount of one item: a recipe's output, an objective, a reward, a letter's attachment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ItemStack {
    /// The item.
    pub item: RecordRef,
    /// How many.
    pub amount: u32,
}

/// A shopkeeper named in another record: id, slug, their name and their trade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShopkeeperRef {
    pub id: i64,
    pub slug: String,
    /// The person's name, localized.
    pub name: String,
    /// The trade they are known by ("Blacksmith"), localized.
    pub title: String,
}

/// Another progression record: its key (for `/v1/<type>/{key}`) and localized name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProgressionRef {
    pub key: String,
    pub name: String,
}

/// A reputation milestone: its key, localized name and the level it marks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MilestoneRef {
    pub key: String,
    pub name: String,
    /// The reputation level it marks.
    pub level: u32,
}
