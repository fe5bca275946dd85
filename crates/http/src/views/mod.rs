//! The JSON shapes of the resources, built from catalog records. Field names here are the public
//! interface; domain and store types are never serialized to clients directly. Every localized text
//! goes through the [`Localizer`], which notes where English stood in.

mod items;
mod meta;
pub(crate) mod progression;
pub(crate) mod recipes;
pub(crate) mod world;

pub(crate) use items::{ITEM_DETAIL_FIELDS, ITEM_EXPANSIONS, ITEM_SUMMARY_FIELDS, ItemDetail, ItemSummary};
pub(crate) use meta::{GameVersionView, Health, LanguageView};
use schemars::JsonSchema;
use serde::Serialize;
use tapster_domain::{Item, RecordId, TextKey};
use tapster_pricing::Copper;

use crate::envelope::Localizer;

/// A price: copper, and the `<g>g <s>s <c>c` form players read.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Price {
    copper: u64,
    display: String,
}

impl Price {
    pub(crate) fn new(copper: u64) -> Self {
        Self { copper, display: Copper(copper).to_string() }
    }
}

/// Another record, named well enough that a client needs no second request: id, slug, localized name.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecordRef {
    id: RecordId,
    slug: String,
    name: String,
}

impl RecordRef {
    /// `at` is the JSON Pointer of this object in the body.
    pub(crate) fn new(loc: &mut Localizer<'_>, id: RecordId, slug: &str, name: &TextKey, at: &str) -> Self {
        Self { id, slug: slug.to_owned(), name: loc.text(name, || format!("{at}/name")) }
    }

    pub(crate) fn item(loc: &mut Localizer<'_>, item: &Item, at: &str) -> Self {
        Self::new(loc, item.id, item.slug.as_str(), &item.name_key, at)
    }
}
