//! Crops, shops, shopkeepers and fish as clients see them: every reference named (id, slug,
//! localized name), prices as price objects, seasons by name, and the version each record came in.

use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{self as domain, RecordType, Shop, Shopkeeper};

use super::{Price, RecordRef, ShopkeeperRef, introduced, season_names};
use crate::envelope::Localizer;
use crate::value_sets;

/// `Crop`: a plant, what it is grown from and what it yields, and where its seed is sold.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Crop {
    id: i64,
    slug: String,
    /// The crop's name, localized.
    name: String,
    /// The seed item that is planted.
    seed: RecordRef,
    /// What one harvest yields.
    harvest: CropHarvest,
    /// The seasons it grows in.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
    /// Days from planting to the first harvest.
    days_to_grow: u32,
    /// Whether the plant stays after a harvest and yields again.
    reusable: bool,
    /// Days from one harvest to the next; `null` unless `reusable`.
    regrow_days: Option<u32>,
    /// The shops that sell its seed, with their price, in the data's order.
    sold_by: Vec<SeedOffer>,
    /// The game version the crop first appeared in.
    introduced_in: Option<String>,
}

/// What one harvest yields: between `min` and `max` of one item.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CropHarvest {
    /// The item harvested.
    item: RecordRef,
    /// The least one harvest yields.
    min: u32,
    /// The most one harvest yields.
    max: u32,
}

/// A shop that sells a crop's seed.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SeedOffer {
    /// The shop.
    shop: RecordRef,
    /// What the shop charges for one seed.
    price: Price,
}

impl Crop {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, crop: &domain::Crop, at: &str) -> Self {
        let catalog = loc.catalog;
        // Texts are asked for in the order the fields serialize, so fallbacks come in document order.
        let name = loc.text(&crop.name_key, || format!("{at}/name"));
        let seed = RecordRef::item_by_id(loc, crop.seed, &format!("{at}/seed"));
        let harvest = CropHarvest {
            item: RecordRef::item_by_id(loc, crop.harvest.item, &format!("{at}/harvest/item")),
            min: crop.harvest.min,
            max: crop.harvest.max,
        };
        let sold_by = catalog
            .seed_sellers(crop.seed)
            .into_iter()
            .enumerate()
            .map(|(i, (shop, entry))| SeedOffer {
                shop: shop_ref(loc, shop, &format!("{at}/sold_by/{i}/shop")),
                price: Price::new(entry.price),
            })
            .collect();
        Self {
            id: crop.id,
            slug: crop.slug.to_string(),
            name,
            seed,
            harvest,
            seasons: season_names(&crop.seasons),
            days_to_grow: crop.days_to_grow,
            reusable: crop.reusable,
            regrow_days: if crop.reusable { crop.regrow_days } else { None },
            sold_by,
            introduced_in: introduced(catalog, RecordType::Crop, crop.id),
        }
    }
}

/// `ShopSummary`: a shop, who runs it, its hours and how much it sells.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShopSummary {
    id: i64,
    slug: String,
    /// The shop's name, localized.
    name: String,
    /// The person who runs it.
    shopkeeper: ShopkeeperRef,
    /// Opening hour, 0 to 23.
    #[schemars(range(min = 0, max = 23))]
    opens_at: u8,
    /// Closing hour, 1 to 24, after `opens_at`.
    #[schemars(range(min = 1, max = 24))]
    closes_at: u8,
    /// How many items its catalogue holds.
    catalogue_size: usize,
    /// The game version the shop first appeared in.
    introduced_in: Option<String>,
}

impl ShopSummary {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, shop: &Shop, at: &str) -> Self {
        let catalog = loc.catalog;
        let name = loc.text(&shop.name_key, || format!("{at}/name"));
        let shopkeeper = ShopkeeperRef::new(loc, shop.shopkeeper, &format!("{at}/shopkeeper"));
        Self {
            id: shop.id,
            slug: shop.slug.to_string(),
            name,
            shopkeeper,
            opens_at: shop.opens_at,
            closes_at: shop.closes_at,
            catalogue_size: shop.catalogue.len(),
            introduced_in: introduced(catalog, RecordType::Shop, shop.id),
        }
    }
}

/// `ShopDetail`: the summary's fields and the shop's catalogue.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ShopDetail {
    #[serde(flatten)]
    summary: ShopSummary,
    /// What it sells, in the data's order.
    catalogue: Vec<CatalogueLine>,
}

/// One item a shop sells.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CatalogueLine {
    /// The item.
    item: RecordRef,
    /// What the shop charges for one unit.
    price: Price,
    /// The seasons it is on offer; empty for all year.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
}

impl ShopDetail {
    pub(crate) fn new(loc: &mut Localizer<'_>, shop: &Shop) -> Self {
        let summary = ShopSummary::new(loc, shop, "/data");
        let catalogue = shop
            .catalogue
            .iter()
            .enumerate()
            .map(|(i, entry)| CatalogueLine {
                item: RecordRef::item_by_id(loc, entry.item, &format!("/data/catalogue/{i}/item")),
                price: Price::new(entry.price),
                seasons: season_names(&entry.seasons),
            })
            .collect();
        Self { summary, catalogue }
    }
}

/// `Npc`: a shopkeeper, their trade, birthday and the shops they run.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Npc {
    id: i64,
    slug: String,
    /// The person's name, localized.
    name: String,
    /// The trade they are known by ("Blacksmith"), localized.
    title: String,
    /// Their birthday in the game's calendar.
    birthday: Birthday,
    /// The shops they run, in the data's order.
    shops: Vec<RecordRef>,
    /// The game version the shopkeeper first appeared in.
    introduced_in: Option<String>,
}

/// A day of the game's calendar.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Birthday {
    /// `spring`, `summer`, `autumn` or `winter`.
    #[schemars(with = "value_sets::Season")]
    season: &'static str,
    /// Day of the season, 1 to 28.
    #[schemars(range(min = 1, max = 28))]
    day: u8,
}

impl Npc {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, npc: &Shopkeeper, at: &str) -> Self {
        let catalog = loc.catalog;
        let name = loc.text(&npc.name_key, || format!("{at}/name"));
        let title = loc.text(&npc.title_key, || format!("{at}/title"));
        let shops = catalog
            .shops_run_by(npc.id)
            .into_iter()
            .enumerate()
            .map(|(i, shop)| shop_ref(loc, shop, &format!("{at}/shops/{i}")))
            .collect();
        Self {
            id: npc.id,
            slug: npc.slug.to_string(),
            name,
            title,
            birthday: Birthday { season: npc.birthday.season.as_str(), day: npc.birthday.day },
            shops,
            introduced_in: introduced(catalog, RecordType::Shopkeeper, npc.id),
        }
    }
}

/// `Fish`: where and when a fish bites, named by the item a catch gives.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Fish {
    id: i64,
    /// The fish's name: the localized name of its item.
    name: String,
    /// The item a catch gives.
    item: RecordRef,
    /// The seasons it bites in.
    #[schemars(with = "Vec<value_sets::Season>")]
    seasons: Vec<&'static str>,
    /// Where it lives: `FreshWater`, `SaltWater` or `MineWater`.
    #[schemars(with = "value_sets::Water")]
    water: &'static str,
    /// What it bites on: `Meat`, `Larva`, `Worm`, `Seafood` or `Artificial`.
    #[schemars(with = "value_sets::Bait")]
    bait: &'static str,
    /// 0 (everywhere) to 10 (legendary).
    #[schemars(range(min = 0, max = 10))]
    rarity: u8,
    /// The game's value of one catch (its item's base price).
    base_price: Price,
    /// The game version the fish first appeared in.
    introduced_in: Option<String>,
}

impl Fish {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, fish: &domain::Fish, at: &str) -> Self {
        let catalog = loc.catalog;
        let item = catalog.item_by_id(fish.item);
        let name = match item {
            Some(item) => loc.text(&item.name_key, || format!("{at}/name")),
            None => String::new(),
        };
        Self {
            id: fish.id,
            name,
            item: RecordRef::item_by_id(loc, fish.item, &format!("{at}/item")),
            seasons: season_names(&fish.seasons),
            water: fish.water.as_str(),
            bait: fish.bait.as_str(),
            rarity: fish.rarity.get(),
            base_price: Price::new(item.map_or(0, |item| item.base_price)),
            introduced_in: introduced(catalog, RecordType::Fish, fish.id),
        }
    }
}

fn shop_ref(loc: &mut Localizer<'_>, shop: &Shop, at: &str) -> RecordRef {
    RecordRef::new(loc, shop.id, shop.slug.as_str(), &shop.name_key, at)
}
