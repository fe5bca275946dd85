//! The progression records (quests, perks, spells, talents, reputation, missions, letters), one shape with each type's own attributes; and the changes between game versions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// `Document`: a progression record in a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Document {
    /// The kind of record.
    #[serde(rename = "type")]
    pub kind: DocumentType,
    /// The progression key that names the record, for `/v1/<segment>/{key}`.
    pub key: String,
    /// The localized name (a letter's subject line).
    pub name: String,
    /// The first sentence of the localized description; the whole description when it is one sentence.
    pub summary: String,
    /// The game version the record first appeared in.
    pub introduced_in: Option<String>,
}

/// `DocumentDetail`: one progression record, with its full description and its type-specific
/// attributes; `type` says which kind of record it is, and so which shape `attributes` has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DocumentDetail {
    /// A quest, with its giver, objectives and rewards.
    Quest(Detail<QuestAttributes>),
    /// A perk, with its tier, cost and requirements.
    Perk(Detail<PerkAttributes>),
    /// A spell, with its school, mana cost and cooldown.
    Spell(Detail<SpellAttributes>),
    /// A talent, with its tree, ranks and requirements.
    Talent(Detail<TalentAttributes>),
    /// A reputation milestone, with its level, points and rewards.
    Reputation(Detail<ReputationAttributes>),
    /// A mission, with its duration, the reputation it needs and its rewards.
    Mission(Detail<MissionAttributes>),
    /// A letter, with its sender, what makes it arrive, and its attachments.
    Letter(Detail<LetterAttributes>),
    /// A `type` this crate does not know yet: a newer server's answer still reads, without this
    /// record's fields.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// What the detail of every kind of progression record has, and the attributes of its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "{A}Detail")]
pub struct Detail<A> {
    /// The progression key that names the record.
    pub key: String,
    /// The localized name (a letter's subject line).
    pub name: String,
    /// The localized description (a letter's text).
    pub description: String,
    /// The game version the record first appeared in.
    pub introduced_in: Option<String>,
    /// What only this kind of record has, rendered for people.
    pub attributes: A,
}

/// A quest's attributes (`type` = `quest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuestAttributes {
    /// The shopkeeper who hands the quest out; `null` when nobody does.
    pub giver: Option<ShopkeeperRef>,
    /// Quests that must be finished first.
    pub requires: Vec<ProgressionRef>,
    /// Items to deliver.
    pub objectives: Vec<ItemStack>,
    pub rewards: Rewards,
}

/// A perk's attributes (`type` = `perk`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PerkAttributes {
    /// Tier of the perk tree, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub tier: u8,
    /// Perk points it costs.
    pub cost: u32,
    /// Perks that must be taken first.
    pub requires: Vec<ProgressionRef>,
}

/// A spell's attributes (`type` = `spell`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpellAttributes {
    /// The school of magic (`growth`, `frost`, ...), as the data names it.
    pub school: String,
    pub mana_cost: u32,
    pub cooldown_seconds: u32,
}

/// A talent's attributes (`type` = `talent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TalentAttributes {
    /// The talent tree (`brewing`, `service`, ...), as the data names it.
    pub tree: String,
    /// The highest rank it can be raised to.
    #[schemars(range(min = 1))]
    pub max_rank: u8,
    /// Talents that must be learnt first.
    pub requires: Vec<ProgressionRef>,
}

/// A reputation milestone's attributes (`type` = `reputation`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReputationAttributes {
    /// Reputation level, from 1.
    pub level: u32,
    /// Reputation points needed to reach it.
    pub points: u64,
    /// What reaching it gives.
    pub rewards: Rewards,
}

/// A mission's attributes (`type` = `mission`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MissionAttributes {
    /// How many game days the mission takes.
    pub duration_days: u32,
    /// The reputation milestone the tavern must reach before the mission is offered; `null` for none.
    pub min_reputation: Option<MilestoneRef>,
    pub rewards: Rewards,
}

/// A letter's attributes (`type` = `letter`); its `name` is the subject line, its `description` the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LetterAttributes {
    /// The shopkeeper who writes it; `null` when unsigned.
    pub sender: Option<ShopkeeperRef>,
    /// What makes it arrive.
    pub trigger: LetterTrigger,
    /// Items that come with it.
    pub attachments: Vec<ItemStack>,
}

/// What finishing a quest or mission, or reaching a reputation milestone, gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rewards {
    /// Money.
    pub copper: Price,
    /// Reputation points.
    pub reputation: u32,
    pub items: Vec<ItemStack>,
    /// Recipes learnt.
    pub recipes: Vec<RecordRef>,
}

/// What makes a letter arrive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LetterTrigger {
    /// A fixed day of the calendar.
    Day {
        season: Season,
        /// Day of the season, 1 to 28.
        #[schemars(range(min = 1, max = 28))]
        day: u8,
    },
    /// Reaching a reputation milestone.
    Reputation {
        key: String,
        /// The milestone's localized name.
        name: String,
    },
    /// Finishing a quest.
    Quest {
        key: String,
        /// The quest's localized name.
        name: String,
    },
    /// A `kind` this crate does not know yet: a newer server's answer still reads, without this
    /// record's fields.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// `VersionChange`: one record added, removed or modified between two game versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionChange {
    /// The record type, plural as in the data files.
    #[serde(rename = "type")]
    pub kind: ChangeType,
    /// The record's id, for the types named by id (all but the progression records); `null` for the
    /// others.
    pub id: Option<i64>,
    /// The record's progression key, for quests, perks, spells, talents, reputation, missions and
    /// letters; `null` for the others.
    pub key: Option<String>,
    /// The record's slug, for the types that have one; `null` for the others.
    pub slug: Option<String>,
    /// The localized name: as the later version has it for an added or modified record, as the
    /// earlier version had it for a removed one. A fish is named by the item it gives.
    pub name: String,
    pub change: ChangeKind,
    /// The modified fields, as the data format names them (`name` for a changed name text); empty
    /// unless `change` is `modified`.
    pub fields: Vec<String>,
}
