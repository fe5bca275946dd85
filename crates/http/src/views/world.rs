//! Crops, shops, shopkeepers and fish as clients see them: every reference named (id, slug,
//! localized name), prices as price objects, seasons by name, and the version each record came in.

use tapster_domain::{self as domain, RecordType, Shop, Shopkeeper};
use tapster_wire::{
    self as wire, Birthday, CatalogueLine, Crop, CropHarvest, Fish, Npc, SeedOffer, ShopDetail, ShopSummary,
};

use super::*;
use crate::envelope::Localizer;

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn crop(loc: &mut Localizer<'_>, crop: &domain::Crop, at: &str) -> Crop {
    let catalog = loc.catalog;
    // Texts are asked for in the order the fields serialize, so fallbacks come in document order.
    let name = loc.text(&crop.name_key, || format!("{at}/name"));
    let seed = item_ref_by_id(loc, crop.seed, &format!("{at}/seed"));
    let harvest = CropHarvest {
        item: item_ref_by_id(loc, crop.harvest.item, &format!("{at}/harvest/item")),
        min: crop.harvest.min,
        max: crop.harvest.max,
    };
    let sold_by = catalog
        .seed_sellers(crop.seed)
        .into_iter()
        .enumerate()
        .map(|(i, (shop, entry))| SeedOffer {
            shop: shop_ref(loc, shop, &format!("{at}/sold_by/{i}/shop")),
            price: price_of(entry.price),
        })
        .collect();
    Crop {
        id: crop.id,
        slug: crop.slug.to_string(),
        name,
        seed,
        harvest,
        seasons: seasons(&crop.seasons),
        days_to_grow: crop.days_to_grow,
        reusable: crop.reusable,
        regrow_days: if crop.reusable { crop.regrow_days } else { None },
        sold_by,
        introduced_in: introduced(catalog, RecordType::Crop, crop.id),
    }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn shop_summary(loc: &mut Localizer<'_>, shop: &Shop, at: &str) -> ShopSummary {
    let catalog = loc.catalog;
    let name = loc.text(&shop.name_key, || format!("{at}/name"));
    let shopkeeper = shopkeeper_ref(loc, shop.shopkeeper, &format!("{at}/shopkeeper"));
    ShopSummary {
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

pub(crate) fn shop_detail(loc: &mut Localizer<'_>, shop: &Shop) -> ShopDetail {
    let summary = shop_summary(loc, shop, "/data");
    let catalogue = shop
        .catalogue
        .iter()
        .enumerate()
        .map(|(i, entry)| CatalogueLine {
            item: item_ref_by_id(loc, entry.item, &format!("/data/catalogue/{i}/item")),
            price: price_of(entry.price),
            seasons: seasons(&entry.seasons),
        })
        .collect();
    ShopDetail { summary, catalogue }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn npc(loc: &mut Localizer<'_>, npc: &Shopkeeper, at: &str) -> Npc {
    let catalog = loc.catalog;
    let name = loc.text(&npc.name_key, || format!("{at}/name"));
    let title = loc.text(&npc.title_key, || format!("{at}/title"));
    let shops = catalog
        .shops_run_by(npc.id)
        .into_iter()
        .enumerate()
        .map(|(i, shop)| shop_ref(loc, shop, &format!("{at}/shops/{i}")))
        .collect();
    Npc {
        id: npc.id,
        slug: npc.slug.to_string(),
        name,
        title,
        birthday: Birthday {
            season: wire::Season::parse(npc.birthday.season.as_str()),
            day: npc.birthday.day,
        },
        shops,
        introduced_in: introduced(catalog, RecordType::Shopkeeper, npc.id),
    }
}

/// `at` is the JSON Pointer of this object in the body.
pub(crate) fn fish(loc: &mut Localizer<'_>, fish: &domain::Fish, at: &str) -> Fish {
    let catalog = loc.catalog;
    let item = catalog.item_by_id(fish.item);
    let name = match item {
        Some(item) => loc.text(&item.name_key, || format!("{at}/name")),
        None => String::new(),
    };
    Fish {
        id: fish.id,
        name,
        item: item_ref_by_id(loc, fish.item, &format!("{at}/item")),
        seasons: seasons(&fish.seasons),
        water: wire::Water::parse(fish.water.as_str()),
        bait: wire::Bait::parse(fish.bait.as_str()),
        rarity: fish.rarity.get(),
        base_price: price_of(item.map_or(0, |item| item.base_price)),
        introduced_in: introduced(catalog, RecordType::Fish, fish.id),
    }
}

fn shop_ref(loc: &mut Localizer<'_>, shop: &Shop, at: &str) -> RecordRef {
    record_ref(loc, shop.id, shop.slug.as_str(), &shop.name_key, at)
}
