//! Progression records (quests, perks, spells, talents, reputation, missions, letters) as `Document` in
//! lists and `DocumentDetail` when single, and the changes between game versions as `VersionChange`.
//! Every reference to another record carries its localized name, so no second request is needed.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{
    Letter, LetterTrigger, Mission, Perk, ProgressionKey, Quest, RecordId, RecordType, ReputationMilestone,
    Rewards, Spell, Talent,
};
use tapster_store::{Catalog, Change, ProgressionSet};

use super::{ItemStack, MilestoneRef, Price, ProgressionRef, RecordRef, ShopkeeperRef, introduced};
use crate::envelope::Localizer;
use crate::value_sets;

/// What a person calls one record of the progression type `kind` (`reputation milestone`).
pub(crate) fn noun(kind: RecordType) -> &'static str {
    match kind {
        RecordType::Reputation => "reputation milestone",
        other => other.singular(),
    }
}

/// `Document`: a progression record in a list.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Document {
    /// The kind of record.
    #[serde(rename = "type")]
    #[schemars(with = "value_sets::DocumentType")]
    kind: &'static str,
    /// The progression key that names the record, for `/v1/<segment>/{key}`.
    key: String,
    /// The localized name (a letter's subject line).
    name: String,
    /// The first sentence of the localized description; the whole description when it is one sentence.
    summary: String,
    /// The game version the record first appeared in.
    introduced_in: Option<String>,
}

/// `DocumentDetail`: one progression record, with its full description and its type-specific
/// attributes; `type` says which kind of record it is, and so which shape `attributes` has.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum DocumentDetail {
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
}

/// What the detail of every kind of progression record has, and the attributes of its kind.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "{A}Detail")]
pub(crate) struct Detail<A> {
    /// The progression key that names the record.
    key: String,
    /// The localized name (a letter's subject line).
    name: String,
    /// The localized description (a letter's text).
    description: String,
    /// The game version the record first appeared in.
    introduced_in: Option<String>,
    /// What only this kind of record has, rendered for people.
    attributes: A,
}

/// A quest's attributes (`type` = `quest`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct QuestAttributes {
    /// The shopkeeper who hands the quest out; `null` when nobody does.
    giver: Option<ShopkeeperRef>,
    /// Quests that must be finished first.
    requires: Vec<ProgressionRef>,
    /// Items to deliver.
    objectives: Vec<ItemStack>,
    rewards: RewardsView,
}

/// A perk's attributes (`type` = `perk`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PerkAttributes {
    /// Tier of the perk tree, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    tier: u8,
    /// Perk points it costs.
    cost: u32,
    /// Perks that must be taken first.
    requires: Vec<ProgressionRef>,
}

/// A spell's attributes (`type` = `spell`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SpellAttributes {
    /// The school of magic (`growth`, `frost`, ...), as the data names it.
    school: String,
    mana_cost: u32,
    cooldown_seconds: u32,
}

/// A talent's attributes (`type` = `talent`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct TalentAttributes {
    /// The talent tree (`brewing`, `service`, ...), as the data names it.
    tree: String,
    /// The highest rank it can be raised to.
    #[schemars(range(min = 1))]
    max_rank: u8,
    /// Talents that must be learnt first.
    requires: Vec<ProgressionRef>,
}

/// A reputation milestone's attributes (`type` = `reputation`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ReputationAttributes {
    /// Reputation level, from 1.
    level: u32,
    /// Reputation points needed to reach it.
    points: u64,
    /// What reaching it gives.
    rewards: RewardsView,
}

/// A mission's attributes (`type` = `mission`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissionAttributes {
    /// How many game days the mission takes.
    duration_days: u32,
    /// The reputation milestone the tavern must reach before the mission is offered; `null` for none.
    min_reputation: Option<MilestoneRef>,
    rewards: RewardsView,
}

/// A letter's attributes (`type` = `letter`); its `name` is the subject line, its `description` the text.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LetterAttributes {
    /// The shopkeeper who writes it; `null` when unsigned.
    sender: Option<ShopkeeperRef>,
    /// What makes it arrive.
    trigger: Trigger,
    /// Items that come with it.
    attachments: Vec<ItemStack>,
}

/// What finishing a quest or mission, or reaching a reputation milestone, gives.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Rewards")]
pub(crate) struct RewardsView {
    /// Money.
    copper: Price,
    /// Reputation points.
    reputation: u32,
    items: Vec<ItemStack>,
    /// Recipes learnt.
    recipes: Vec<RecordRef>,
}

/// What makes a letter arrive.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(rename = "LetterTrigger")]
pub(crate) enum Trigger {
    /// A fixed day of the calendar.
    Day {
        #[schemars(with = "value_sets::Season")]
        season: &'static str,
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
}

/// A progression record type the API renders: its kind, its attributes, and the variant of
/// [`DocumentDetail`] that holds them.
pub(crate) trait Documented: ProgressionSet {
    type Attributes;
    const DETAIL: fn(Detail<Self::Attributes>) -> DocumentDetail;

    /// The type-specific fields; `at` is the JSON Pointer of the `attributes` object.
    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> Self::Attributes;
}

impl Document {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new<R: Documented>(loc: &mut Localizer<'_>, record: &R, at: &str) -> Self {
        let name = loc.text(record.name_key(), || format!("{at}/name"));
        let description = loc.text(record.description_key(), || format!("{at}/summary"));
        Self {
            kind: R::TYPE.singular(),
            key: record.key().to_string(),
            name,
            summary: first_sentence(&description).to_owned(),
            introduced_in: introduced(loc.catalog, R::TYPE, record.key()),
        }
    }
}

impl DocumentDetail {
    pub(crate) fn new<R: Documented>(loc: &mut Localizer<'_>, record: &R) -> Self {
        R::DETAIL(Detail {
            key: record.key().to_string(),
            name: loc.text(record.name_key(), || "/data/name".into()),
            description: loc.text(record.description_key(), || "/data/description".into()),
            introduced_in: introduced(loc.catalog, R::TYPE, record.key()),
            attributes: record.attributes(loc, "/data/attributes"),
        })
    }
}

impl Documented for Quest {
    type Attributes = QuestAttributes;
    const DETAIL: fn(Detail<QuestAttributes>) -> DocumentDetail = DocumentDetail::Quest;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> QuestAttributes {
        QuestAttributes {
            giver: self.giver.map(|id| ShopkeeperRef::new(loc, id, &format!("{at}/giver"))),
            requires: linked::<Quest>(loc, &self.requires, &format!("{at}/requires")),
            objectives: ItemStack::list(loc, &self.objectives, &format!("{at}/objectives")),
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Perk {
    type Attributes = PerkAttributes;
    const DETAIL: fn(Detail<PerkAttributes>) -> DocumentDetail = DocumentDetail::Perk;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> PerkAttributes {
        PerkAttributes {
            tier: self.tier,
            cost: self.cost,
            requires: linked::<Perk>(loc, &self.requires, &format!("{at}/requires")),
        }
    }
}

impl Documented for Spell {
    type Attributes = SpellAttributes;
    const DETAIL: fn(Detail<SpellAttributes>) -> DocumentDetail = DocumentDetail::Spell;

    fn attributes(&self, _loc: &mut Localizer<'_>, _at: &str) -> SpellAttributes {
        SpellAttributes {
            school: self.school.to_string(),
            mana_cost: self.mana_cost,
            cooldown_seconds: self.cooldown_seconds,
        }
    }
}

impl Documented for Talent {
    type Attributes = TalentAttributes;
    const DETAIL: fn(Detail<TalentAttributes>) -> DocumentDetail = DocumentDetail::Talent;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> TalentAttributes {
        TalentAttributes {
            tree: self.tree.to_string(),
            max_rank: self.max_rank,
            requires: linked::<Talent>(loc, &self.requires, &format!("{at}/requires")),
        }
    }
}

impl Documented for ReputationMilestone {
    type Attributes = ReputationAttributes;
    const DETAIL: fn(Detail<ReputationAttributes>) -> DocumentDetail = DocumentDetail::Reputation;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> ReputationAttributes {
        ReputationAttributes {
            level: self.level,
            points: self.points,
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Mission {
    type Attributes = MissionAttributes;
    const DETAIL: fn(Detail<MissionAttributes>) -> DocumentDetail = DocumentDetail::Mission;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> MissionAttributes {
        let catalog = loc.catalog;
        let min_reputation = self
            .min_reputation
            .and_then(|level| catalog.reputation_milestone_at(level))
            .map(|milestone| MilestoneRef::new(loc, milestone, &format!("{at}/min_reputation")));
        MissionAttributes {
            duration_days: self.duration_days,
            min_reputation,
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Letter {
    type Attributes = LetterAttributes;
    const DETAIL: fn(Detail<LetterAttributes>) -> DocumentDetail = DocumentDetail::Letter;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> LetterAttributes {
        let sender = self.sender.map(|id| ShopkeeperRef::new(loc, id, &format!("{at}/sender")));
        let pointer = || format!("{at}/trigger/name");
        let trigger = match &self.trigger {
            LetterTrigger::Day { season, day } => Trigger::Day { season: season.as_str(), day: *day },
            LetterTrigger::Reputation { key } => Trigger::Reputation {
                key: key.to_string(),
                name: name_of::<ReputationMilestone>(loc, key, pointer),
            },
            LetterTrigger::Quest { key } => {
                Trigger::Quest { key: key.to_string(), name: name_of::<Quest>(loc, key, pointer) }
            }
        };
        LetterAttributes {
            sender,
            trigger,
            attachments: ItemStack::list(loc, &self.attachments, &format!("{at}/attachments")),
        }
    }
}

/// A shopkeeper by id, named and titled; `at` is the pointer of the object.
/// The localized name of the `R` named `key`; the key itself if the version lacks it (import forbids that).
fn name_of<R: ProgressionSet>(
    loc: &mut Localizer<'_>,
    key: &ProgressionKey,
    at: impl FnOnce() -> String,
) -> String {
    match loc.catalog.progression_record::<R>(key) {
        Some(record) => loc.text(record.name_key(), at),
        None => key.to_string(),
    }
}

/// Records of type `R` by key, named; `at` is the pointer of the array.
fn linked<R: ProgressionSet>(
    loc: &mut Localizer<'_>,
    keys: &[ProgressionKey],
    at: &str,
) -> Vec<ProgressionRef> {
    let catalog = loc.catalog;
    let found: Vec<&R> = keys.iter().filter_map(|key| catalog.progression_record::<R>(key)).collect();
    found
        .into_iter()
        .enumerate()
        .map(|(i, r)| ProgressionRef::new(loc, r.key(), r.name_key(), &format!("{at}/{i}")))
        .collect()
}

/// Amounts of items, each item named; `at` is the pointer of the array.
/// Rewards with every item and recipe named; `at` is the pointer of the object.
fn rewards(loc: &mut Localizer<'_>, rewards: &Rewards, at: &str) -> RewardsView {
    let catalog = loc.catalog;
    let items = ItemStack::list(loc, &rewards.items, &format!("{at}/items"));
    let recipes: Vec<_> = rewards.recipes.iter().filter_map(|id| catalog.recipe_by_id(*id)).collect();
    let recipes = recipes
        .into_iter()
        .enumerate()
        .map(|(i, r)| RecordRef::new(loc, r.id, r.slug.as_str(), &r.name_key, &format!("{at}/recipes/{i}")))
        .collect();
    RewardsView { copper: Price::new(rewards.copper), reputation: rewards.reputation, items, recipes }
}

/// The first sentence of `text`: up to a sentence end (`.`, `!` or `?` before a space, or a
/// full-width stop such as `。`), or the whole text when it has no earlier sentence end.
pub(crate) fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        let ends = match c {
            '.' | '!' | '?' => chars.peek().is_some_and(|(_, next)| next.is_whitespace()),
            '。' | '！' | '？' | '।' | '؟' | '۔' => true,
            _ => false,
        };
        if ends {
            return &text[..end];
        }
    }
    text
}

/// `VersionChange`: one record added, removed or modified between two game versions.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VersionChange {
    /// The record type, plural as in the data files.
    #[serde(rename = "type")]
    #[schemars(with = "value_sets::ChangeType")]
    kind: &'static str,
    /// The record's id, for the types named by id (all but the progression records); `null` for the
    /// others.
    id: Option<RecordId>,
    /// The record's progression key, for quests, perks, spells, talents, reputation, missions and
    /// letters; `null` for the others.
    key: Option<String>,
    /// The record's slug, for the types that have one; `null` for the others.
    slug: Option<String>,
    /// The localized name: as the later version has it for an added or modified record, as the
    /// earlier version had it for a removed one. A fish is named by the item it gives.
    name: String,
    #[schemars(with = "value_sets::ChangeKind")]
    change: &'static str,
    /// The modified fields, as the data format names them (`name` for a changed name text); empty
    /// unless `change` is `modified`.
    fields: Vec<String>,
}

impl VersionChange {
    /// `named_in` is the version whose record names it; `at` is the pointer of this object.
    pub(crate) fn new(loc: &mut Localizer<'_>, change: &Change, named_in: &Catalog, at: &str) -> Self {
        let (id, key) = if change.kind.is_progression() {
            (None, Some(change.record_key.clone()))
        } else {
            match change.record_key.parse::<RecordId>() {
                Ok(id) => (Some(id), None),
                Err(_) => (None, Some(change.record_key.clone())),
            }
        };
        let label = named_in.record_label(change.kind, &change.record_key);
        let name = label.and_then(|label| named_in.text(label.name_key, loc.lang)).map(|text| {
            loc.note(text.language, || format!("{at}/name"));
            text.text.to_owned()
        });
        Self {
            kind: change.kind.plural(),
            id,
            key,
            slug: label.and_then(|l| l.slug).map(ToString::to_string),
            // Import guarantees every record a name in English, the fallback of every language.
            name: name.unwrap_or_default(),
            change: change.change.as_str(),
            fields: change.fields.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_sentence() {
        let cases = [
            ("Weaving yields more cloth. Builds on the previous rank.", "Weaving yields more cloth."),
            ("Makes flowers bloom out of season.", "Makes flowers bloom out of season."),
            ("No stop at all", "No stop at all"),
            ("Version 0.7 is out! Enjoy.", "Version 0.7 is out!"),
            ("Really?! Yes.", "Really?!"),
            ("酒場はまだ始まったばかりだ。季節が許したら", "酒場はまだ始まったばかりだ。"),
            ("Ends with a dot.", "Ends with a dot."),
            ("", ""),
        ];
        for (text, summary) in cases {
            assert_eq!(first_sentence(text), summary, "{text:?}");
        }
    }
}
