//! Crops, shops, shopkeepers and fish: the filters, sort orders and pages of crop and fish lists,
//! and the relations the world records show (who sells a seed, which shops a person runs).

use tapster_domain::{Bait, CatalogueEntry, Crop, Fish, ItemId, RecordId, Season, Shop, Water};
use tapster_i18n::Language;

use super::{Page, Sort, Window, page, sort_by};
use crate::Catalog;

/// What a list of crops can be filtered by; every filter given must hold.
#[derive(Debug, Default, Clone, Copy)]
pub struct CropFilter {
    /// Only crops that grow in this season.
    pub season: Option<Season>,
    /// Only crops that do (or do not) yield again after a harvest.
    pub reusable: Option<bool>,
}

/// Sort keys of a list of crops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CropOrder {
    Id,
    /// By name in the requested language, ignoring case and accents.
    Name,
    /// By days from planting to the first harvest.
    Days,
}

/// What a list of fish can be filtered by; every filter given must hold.
#[derive(Debug, Default, Clone, Copy)]
pub struct FishFilter {
    /// Only fish that bite in this season.
    pub season: Option<Season>,
    pub water: Option<Water>,
    pub bait: Option<Bait>,
    /// Only fish of exactly this rarity.
    pub rarity: Option<u8>,
}

impl Catalog {
    /// A page of the crops that pass `filter`, in `sort` order (by id when no sort is given, and
    /// always by id last).
    pub fn crops(
        &self,
        filter: CropFilter,
        sort: &[Sort<CropOrder>],
        lang: Language,
        window: Window,
    ) -> Page<'_, Crop> {
        let passes = |crop: &&Crop| {
            filter.season.is_none_or(|season| crop.seasons.contains(&season))
                && filter.reusable.is_none_or(|reusable| crop.reusable == reusable)
        };
        let mut records: Vec<&Crop> = self.data.crops.iter().filter(passes).collect();
        sort_by(
            &mut records,
            sort,
            |crop| crop.id,
            |key| key == CropOrder::Name,
            |crop| self.name_rank(&crop.name_key, lang),
            |key, a, b| match key {
                CropOrder::Id => a.id.cmp(&b.id),
                CropOrder::Name => std::cmp::Ordering::Equal, // ordered by name in `sort_by`
                CropOrder::Days => a.days_to_grow.cmp(&b.days_to_grow),
            },
        );
        page(records, window)
    }

    /// A page of the fish that pass `filter`, by id.
    pub fn fish(&self, filter: FishFilter, window: Window) -> Page<'_, Fish> {
        let passes = |fish: &&Fish| {
            filter.season.is_none_or(|season| fish.seasons.contains(&season))
                && filter.water.is_none_or(|water| fish.water == water)
                && filter.bait.is_none_or(|bait| fish.bait == bait)
                && filter.rarity.is_none_or(|rarity| fish.rarity.get() == rarity)
        };
        let mut records: Vec<&Fish> = self.data.fish.iter().filter(passes).collect();
        records.sort_by_key(|fish| fish.id);
        page(records, window)
    }

    /// The shops that sell `seed`, each with its catalogue entry for it, in the data's order.
    pub fn seed_sellers(&self, seed: ItemId) -> Vec<(&Shop, &CatalogueEntry)> {
        self.data
            .shops
            .iter()
            .filter_map(|shop| {
                shop.catalogue.iter().find(|entry| entry.item == seed).map(|entry| (shop, entry))
            })
            .collect()
    }

    /// The shops that `shopkeeper` runs, in the data's order.
    pub fn shops_run_by(&self, shopkeeper: RecordId) -> Vec<&Shop> {
        self.data.shops.iter().filter(|shop| shop.shopkeeper == shopkeeper).collect()
    }
}
