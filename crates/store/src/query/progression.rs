//! Progression records (quests, perks, spells, talents, reputation, missions, letters) and the changes
//! between versions: the lists of each record type and of a version's changes, with their default
//! orders, their lookups by key, and the names of changed records.

use std::cmp::Ordering;

use tapster_domain::{
    ChangeKind, GameData, GameVersion, Letter, Mission, Perk, ProgressionKey, ProgressionRecord, Quest,
    RecordKey, RecordType, ReputationMilestone, Slug, Spell, Talent, TextKey,
};

use super::{Page, Window, page};
use crate::{Catalog, Change};

/// A type of progression record as the catalog lists it: where its records are and their default order.
pub trait ProgressionSet: ProgressionRecord + Sized + 'static {
    /// Every record of this type in a version, in the data's order.
    fn records(data: &GameData) -> &[Self];

    /// The default order of the list; it must be total (the key is unique, so ending on it is enough).
    fn order(a: &Self, b: &Self) -> Ordering {
        a.key().as_str().cmp(b.key().as_str())
    }
}

macro_rules! by_key {
    ($($record:ty => $field:ident),+ $(,)?) => {$(
        impl ProgressionSet for $record {
            fn records(data: &GameData) -> &[Self] {
                &data.$field
            }
        }
    )+};
}

by_key! {
    Quest => quests,
    Spell => spells,
    Talent => talents,
    Mission => missions,
    Letter => letters,
}

/// Perks list by tier, then key.
impl ProgressionSet for Perk {
    fn records(data: &GameData) -> &[Self] {
        &data.perks
    }

    fn order(a: &Self, b: &Self) -> Ordering {
        a.tier.cmp(&b.tier).then_with(|| a.key.as_str().cmp(b.key.as_str()))
    }
}

/// Reputation milestones list by level (unique), then key.
impl ProgressionSet for ReputationMilestone {
    fn records(data: &GameData) -> &[Self] {
        &data.reputation
    }

    fn order(a: &Self, b: &Self) -> Ordering {
        a.level.cmp(&b.level).then_with(|| a.key.as_str().cmp(b.key.as_str()))
    }
}

/// What a list of a version's changes can be filtered by; every filter given must hold.
#[derive(Debug, Default, Clone, Copy)]
pub struct ChangeFilter {
    pub kind: Option<RecordType>,
    pub change: Option<ChangeKind>,
}

/// How a changed record is named: its slug when it has one, and the text key of its name.
#[derive(Debug, Clone, Copy)]
pub struct RecordLabel<'a> {
    pub slug: Option<&'a Slug>,
    pub name_key: &'a TextKey,
}

impl Catalog {
    /// A page of the records of type `R` in their default order.
    pub fn progression_page<R: ProgressionSet>(&self, window: Window) -> Page<'_, R> {
        let mut records: Vec<&R> = R::records(&self.data).iter().collect();
        records.sort_by(|a, b| R::order(a, b));
        page(records, window)
    }

    /// The record of type `R` named by `key`.
    pub fn progression_record<R: ProgressionSet>(&self, key: &ProgressionKey) -> Option<&R> {
        R::records(&self.data).iter().find(|r| r.key() == key)
    }

    /// The reputation milestone of `level`.
    pub fn reputation_milestone_at(&self, level: u32) -> Option<&ReputationMilestone> {
        self.data.reputation.iter().find(|m| m.level == level)
    }

    /// A page of the changes from the earlier version `from` to this one that pass `filter`, in the
    /// stored order (by type in the data format's order, then by id or key); `None` when `from` is
    /// not an earlier published version.
    pub fn changes_page(
        &self,
        from: &GameVersion,
        filter: ChangeFilter,
        window: Window,
    ) -> Option<Page<'_, Change>> {
        let changes = self.changes_from(from)?;
        let records: Vec<&Change> = changes
            .iter()
            .filter(|c| filter.kind.is_none_or(|kind| c.kind == kind))
            .filter(|c| filter.change.is_none_or(|change| c.change == change))
            .collect();
        Some(page(records, window))
    }

    /// The slug and name of the record of `kind` that changes call `record_key` (an id in decimal, or
    /// a progression key); a fish is named by the item it gives.
    pub fn record_label(&self, kind: RecordType, record_key: &str) -> Option<RecordLabel<'_>> {
        fn keyed<'a, R: ProgressionSet>(data: &'a GameData, key: &str) -> Option<RecordLabel<'a>> {
            R::records(data)
                .iter()
                .find(|r| r.key().as_str() == key)
                .map(|r| RecordLabel { slug: None, name_key: r.name_key() })
        }
        fn label<'a>(slug: &'a Slug, name_key: &'a TextKey) -> RecordLabel<'a> {
            RecordLabel { slug: Some(slug), name_key }
        }
        let id = || record_key.parse::<i64>().ok().map(RecordKey::Id);
        match kind {
            RecordType::Item => self.item(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Recipe => self.recipe(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::IngredientGroup => self.group(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::CraftingStation => self.station(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Crop => self.crop(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Shop => self.shop(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Shopkeeper => {
                let id = record_key.parse::<i64>().ok()?;
                self.shopkeeper_by_id(id).map(|r| label(&r.slug, &r.name_key))
            }
            RecordType::Fish => {
                let id = record_key.parse::<i64>().ok()?;
                let fish = self.data.fish.iter().find(|r| r.id == id)?;
                self.item_by_id(fish.item).map(|item| RecordLabel { slug: None, name_key: &item.name_key })
            }
            RecordType::Quest => keyed::<Quest>(&self.data, record_key),
            RecordType::Perk => keyed::<Perk>(&self.data, record_key),
            RecordType::Spell => keyed::<Spell>(&self.data, record_key),
            RecordType::Talent => keyed::<Talent>(&self.data, record_key),
            RecordType::Reputation => keyed::<ReputationMilestone>(&self.data, record_key),
            RecordType::Mission => keyed::<Mission>(&self.data, record_key),
            RecordType::Letter => keyed::<Letter>(&self.data, record_key),
        }
    }
}
