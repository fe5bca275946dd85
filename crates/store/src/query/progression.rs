//! Progression records (quests, perks, spells, talents, reputation, missions, letters): the lists of
//! each record type with their default orders, and their lookups by key.

use std::cmp::Ordering;

use tapster_domain::{
    GameData, Letter, Mission, Perk, ProgressionKey, ProgressionRecord, Quest, ReputationMilestone, Spell,
    Talent,
};

use super::{Page, Window, page};
use crate::Catalog;

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
}
