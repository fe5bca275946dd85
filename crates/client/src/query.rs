//! The parameters of each kind of request, as structs whose fields are the documented parameters:
//! every field is optional and left out of the query when `None` (or empty, or `false` for a filter
//! that only narrows), so `..Default::default()` asks for the server's defaults.
//!
//! ```
//! use tapster_client::{ItemsQuery, Lang, ItemKind};
//! let drinks = ItemsQuery { kind: Some(ItemKind::Drink), lang: Some(Lang::De), ..Default::default() };
//! ```

use std::fmt::Display;

use tapster_wire::{
    Aging, Bait, ChangeKind, ChangeType, FoodType, HitType, IngredientChoice, ItemKind, Lang, Quality,
    Season, UnlockKind, Water,
};

/// A query string as it is built: name and value pairs, encoded when it is written.
#[derive(Debug, Default)]
pub(crate) struct QueryString(Vec<(&'static str, String)>);

impl QueryString {
    fn opt(&mut self, name: &'static str, value: Option<impl Display>) -> &mut Self {
        if let Some(value) = value {
            self.0.push((name, value.to_string()));
        }
        self
    }

    fn flag(&mut self, name: &'static str, on: bool) -> &mut Self {
        if on {
            self.0.push((name, "true".to_owned()));
        }
        self
    }

    fn list(&mut self, name: &'static str, values: &[impl Display]) -> &mut Self {
        if !values.is_empty() {
            let joined: Vec<String> = values.iter().map(ToString::to_string).collect();
            self.0.push((name, joined.join(",")));
        }
        self
    }

    /// `?a=1&b=x` (nothing when there are no pairs).
    pub(crate) fn finish(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut serializer = form_urlencoded::Serializer::for_suffix(String::from("?"), 1);
        for (name, value) in &self.0 {
            serializer.append_pair(name, value);
        }
        serializer.finish()
    }
}

/// What every query ends with.
pub(crate) trait Query {
    fn write(&self, query: &mut QueryString);

    fn to_query(&self) -> String {
        let mut query = QueryString::default();
        self.write(&mut query);
        query.finish()
    }
}

/// The game version (`latest`, or a name such as `v0.6.4.2.1`) and the language of the texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionLang {
    pub version: Option<String>,
    pub lang: Option<Lang>,
}

impl Query for VersionLang {
    fn write(&self, q: &mut QueryString) {
        q.opt("version", self.version.as_ref()).opt("lang", self.lang.as_ref());
    }
}

/// A page of a list: [`VersionLang`], with `limit` (records per page) and `offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageQuery {
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for PageQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/items`: filters, sort keys (`-price,name`), and the page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemsQuery {
    pub kind: Option<ItemKind>,
    pub category: Option<String>,
    pub tag: Option<String>,
    pub ingredient_type: Option<String>,
    pub can_be_sold: Option<bool>,
    pub can_be_aged: Option<bool>,
    /// A shop's id or slug: only what it sells.
    pub shop: Option<String>,
    pub ids: Vec<i64>,
    pub include_unlisted: bool,
    /// Sort keys, `-` for descending: `id`, `name`, `price`.
    pub sort: Option<String>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for ItemsQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("kind", self.kind.as_ref())
            .opt("category", self.category.as_ref())
            .opt("tag", self.tag.as_ref())
            .opt("ingredient_type", self.ingredient_type.as_ref())
            .opt("can_be_sold", self.can_be_sold)
            .opt("can_be_aged", self.can_be_aged)
            .opt("shop", self.shop.as_ref())
            .list("ids", &self.ids)
            .flag("include_unlisted", self.include_unlisted)
            .opt("sort", self.sort.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// A relation `GET /v1/items/{key}` can add with `expand`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expansion {
    /// The recipes that make the item.
    Recipes,
    /// The shops that sell it, with their prices.
    Shops,
    /// The ingredient groups it fills.
    Groups,
}

impl Display for Expansion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Recipes => "recipes",
            Self::Shops => "shops",
            Self::Groups => "groups",
        })
    }
}

/// `GET /v1/items/{key}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemQuery {
    pub expand: Vec<Expansion>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
}

impl Query for ItemQuery {
    fn write(&self, q: &mut QueryString) {
        q.list("expand", &self.expand).opt("version", self.version.as_ref()).opt("lang", self.lang.as_ref());
    }
}

/// `GET /v1/items/{key}/price`: how the product is made, aged and refined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceQuery {
    pub ingredients: Option<IngredientChoice>,
    pub aging: Option<Aging>,
    pub quality: Option<Quality>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
}

impl Query for PriceQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("ingredients", self.ingredients.as_ref())
            .opt("aging", self.aging.as_ref())
            .opt("quality", self.quality.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref());
    }
}

/// `GET /v1/rankings/products`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankingsQuery {
    pub food_type: Option<FoodType>,
    pub ingredients: Option<IngredientChoice>,
    pub aging: Option<Aging>,
    pub quality: Option<Quality>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for RankingsQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("food_type", self.food_type.as_ref())
            .opt("ingredients", self.ingredients.as_ref())
            .opt("aging", self.aging.as_ref())
            .opt("quality", self.quality.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/recipes`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecipesQuery {
    pub group: Option<String>,
    pub page_name: Option<String>,
    pub unlock: Option<UnlockKind>,
    pub output_kind: Option<ItemKind>,
    /// A crafting station's id or slug.
    pub crafter: Option<String>,
    pub ids: Vec<i64>,
    pub include_replaced: bool,
    /// Sort keys, `-` for descending: `id`, `name`, `time`.
    pub sort: Option<String>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for RecipesQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("group", self.group.as_ref())
            .opt("page_name", self.page_name.as_ref())
            .opt("unlock", self.unlock.as_ref())
            .opt("output_kind", self.output_kind.as_ref())
            .opt("crafter", self.crafter.as_ref())
            .list("ids", &self.ids)
            .flag("include_replaced", self.include_replaced)
            .opt("sort", self.sort.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/recipes/{key}/tree`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeQuery {
    pub ingredients: Option<IngredientChoice>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
}

impl Query for TreeQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("ingredients", self.ingredients.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref());
    }
}

/// `GET /v1/crops`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CropsQuery {
    pub season: Option<Season>,
    pub reusable: Option<bool>,
    /// Sort keys, `-` for descending: `id`, `name`, `days`.
    pub sort: Option<String>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for CropsQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("season", self.season.as_ref())
            .opt("reusable", self.reusable)
            .opt("sort", self.sort.as_ref())
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/fish`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FishQuery {
    pub season: Option<Season>,
    pub water: Option<Water>,
    pub bait: Option<Bait>,
    /// 0 (everywhere) to 10 (legendary).
    pub rarity: Option<u8>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for FishQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("season", self.season.as_ref())
            .opt("water", self.water.as_ref())
            .opt("bait", self.bait.as_ref())
            .opt("rarity", self.rarity)
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/versions/{version}/changes`: since `from` (the version before by default; a later one
/// gives what an upgrade undoes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangesQuery {
    pub from: Option<String>,
    pub record_type: Option<ChangeType>,
    pub change: Option<ChangeKind>,
    pub lang: Option<Lang>,
    pub limit: Option<u32>,
    pub offset: Option<u32>,
}

impl Query for ChangesQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("from", self.from.as_ref())
            .opt("type", self.record_type.as_ref())
            .opt("change", self.change.as_ref())
            .opt("lang", self.lang.as_ref())
            .opt("limit", self.limit)
            .opt("offset", self.offset);
    }
}

/// `GET /v1/search`: `q` is required.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchQuery {
    pub q: String,
    pub record_type: Option<HitType>,
    pub limit: Option<u32>,
    pub version: Option<String>,
    pub lang: Option<Lang>,
}

impl Query for SearchQuery {
    fn write(&self, q: &mut QueryString) {
        q.opt("q", Some(&self.q))
            .opt("type", self.record_type.as_ref())
            .opt("limit", self.limit)
            .opt("version", self.version.as_ref())
            .opt("lang", self.lang.as_ref());
    }
}

/// A path segment with everything but the unreserved characters percent-encoded: keys may hold
/// spaces and quotes (`Mission 01 - Salt Road`).
pub(crate) fn segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_leave_out_what_is_not_asked_and_encode_the_rest() {
        assert_eq!(ItemsQuery::default().to_query(), "");
        let query = ItemsQuery {
            kind: Some(ItemKind::Drink),
            ids: vec![1, 2],
            include_unlisted: true,
            sort: Some("-price,name".into()),
            lang: Some(Lang::PtBr),
            ..Default::default()
        };
        assert_eq!(
            query.to_query(),
            "?kind=drink&ids=1%2C2&include_unlisted=true&sort=-price%2Cname&lang=pt-BR"
        );
        let search = SearchQuery { q: "pale ale & co".into(), ..Default::default() };
        assert_eq!(search.to_query(), "?q=pale+ale+%26+co");
        assert_eq!(segment("Marta's Letter 01"), "Marta%27s%20Letter%2001");
    }
}
