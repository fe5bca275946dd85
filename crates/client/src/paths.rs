//! The API's paths the client calls, each declared once with the query struct its method takes and
//! the data its answer holds. The methods build their targets only through these declarations, so a
//! method that sends another struct's parameters to a path, or reads another path's answer, does not
//! compile; and [`ENDPOINTS`] lists the same declarations as (path, parameters), which the client's
//! tests hold to the server's OpenAPI document.

use std::marker::PhantomData;

use bytes::Bytes;
use tapster_wire::{
    CraftingStation, Crop, Document, DocumentDetail, Export, Fish, GameVersion, Health, IngredientGroup,
    ItemDetail, ItemPrice, ItemSummary, Key, Language, Npc, RankingRow, RecipeDetail, RecipeSummary,
    SearchResult, ShopDetail, ShopSummary, Sources, TreeNode, UsedIn, VersionChange,
};

use crate::query::{
    ChangesQuery, CropsQuery, FishQuery, ItemQuery, ItemsQuery, NoQuery, PageQuery, Parameter, PictureQuery,
    PriceQuery, Query, RankingsQuery, RecipesQuery, SearchQuery, TreeQuery, VersionLang, segment,
};

/// One path the client calls, and the query parameters its method can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Endpoint {
    /// The path as the server's OpenAPI document writes it (`/v1/items/{key}`). The progression
    /// records share two, `/v1/{type}` and `/v1/{type}/{key}`, where `{type}` is `quests`, `perks`,
    /// `spells`, `talents`, `reputation`, `missions` or `letters`.
    pub path: &'static str,
    /// The `PARAMETERS` of the query struct its method takes; none when it takes no query.
    pub parameters: &'static [Parameter],
}

/// A path whose method takes the query `Q` and whose answer holds a `T`, with `N` segments to fill
/// (`{key}`), as many as the template has.
pub(crate) struct Path<Q, T, const N: usize> {
    template: &'static str,
    takes: PhantomData<fn(&Q) -> T>,
}

impl<Q: Query, T, const N: usize> Path<Q, T, N> {
    const fn new(template: &'static str) -> Self {
        Self { template, takes: PhantomData }
    }

    /// The target: each `{name}` of the template replaced by the next of `segments`,
    /// percent-encoded, then the query string.
    pub(crate) fn target(&self, segments: [&str; N], query: &Q) -> String {
        let mut segments = segments.iter();
        let mut target = String::new();
        for part in self.template.split('/').skip(1) {
            target.push('/');
            if part.starts_with('{') {
                // `N` is the count of `{name}` parts, so there is one for each.
                target.push_str(&segments.next().map(|value| segment(value)).unwrap_or_default());
            } else {
                target.push_str(part);
            }
        }
        target + &query.to_query()
    }
}

/// How many `{name}` segments `template` has: the `N` of its [`Path`].
const fn holes(template: &str) -> usize {
    let bytes = template.as_bytes();
    let (mut i, mut holes) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b'{' {
            holes += 1;
        }
        i += 1;
    }
    holes
}

/// Declares each path once, `NAME: Query => Answer = "template"`: the typed [`Path`] the methods use
/// and its row of [`ENDPOINTS`] both come from that line.
macro_rules! paths {
    ($($name:ident: $query:ty => $answer:ty = $template:literal;)+) => {
        $(pub(crate) const $name: Path<$query, $answer, { holes($template) }> = Path::new($template);)+

        /// Every path the client calls, with the parameters its method can send: the table the
        /// methods are built from, for a program that wants to know what this client asks of the API.
        pub const ENDPOINTS: &[Endpoint] =
            &[$(Endpoint { path: $template, parameters: <$query>::PARAMETERS }),+];
    };
}

paths! {
    HEALTH: NoQuery => Health = "/healthz";
    KEY: NoQuery => Key = "/v1/key";
    VERSIONS: NoQuery => Vec<GameVersion> = "/v1/versions";
    VERSION: NoQuery => GameVersion = "/v1/versions/{version}";
    CHANGES: ChangesQuery => Vec<VersionChange> = "/v1/versions/{version}/changes";
    LANGUAGES: VersionLang => Vec<Language> = "/v1/languages";
    EXPORTS: NoQuery => Vec<Export> = "/v1/exports";
    EXPORT_FILE: NoQuery => Bytes = "/v1/exports/{version}/{lang}";
    ICONS_FILE: NoQuery => Bytes = "/v1/exports/{version}/icons";
    ITEMS: ItemsQuery => Vec<ItemSummary> = "/v1/items";
    ITEM: ItemQuery => ItemDetail = "/v1/items/{key}";
    ITEM_PRICE: PriceQuery => ItemPrice = "/v1/items/{key}/price";
    ITEM_USED_IN: PageQuery => Vec<UsedIn> = "/v1/items/{key}/used-in";
    ITEM_SOURCES: VersionLang => Sources = "/v1/items/{key}/sources";
    RANKINGS: RankingsQuery => Vec<RankingRow> = "/v1/rankings/products";
    RECIPES: RecipesQuery => Vec<RecipeSummary> = "/v1/recipes";
    RECIPE: VersionLang => RecipeDetail = "/v1/recipes/{key}";
    RECIPE_TREE: TreeQuery => TreeNode = "/v1/recipes/{key}/tree";
    INGREDIENT_GROUP: VersionLang => IngredientGroup = "/v1/ingredient-groups/{key}";
    CRAFTERS: VersionLang => Vec<CraftingStation> = "/v1/crafters";
    CROPS: CropsQuery => Vec<Crop> = "/v1/crops";
    CROP: VersionLang => Crop = "/v1/crops/{key}";
    SHOPS: VersionLang => Vec<ShopSummary> = "/v1/shops";
    SHOP: VersionLang => ShopDetail = "/v1/shops/{key}";
    NPCS: VersionLang => Vec<Npc> = "/v1/npcs";
    FISH: FishQuery => Vec<Fish> = "/v1/fish";
    DOCUMENTS: PageQuery => Vec<Document> = "/v1/{type}";
    DOCUMENT: VersionLang => DocumentDetail = "/v1/{type}/{key}";
    SEARCH: SearchQuery => Vec<SearchResult> = "/v1/search";
    PICTURE: PictureQuery => Bytes = "/assets/{sha256}/{name}";
}

#[cfg(test)]
mod tests {
    use tapster_wire::Lang;

    use super::*;

    #[test]
    fn targets_fill_each_segment_encoded_then_the_query() {
        let price = PriceQuery { lang: Some(Lang::De), ..Default::default() };
        assert_eq!(ITEM_PRICE.target(["pale ale"], &price), "/v1/items/pale%20ale/price?lang=de");
        assert_eq!(
            DOCUMENT.target(["quests", "Daily.Bread"], &VersionLang::default()),
            "/v1/quests/Daily.Bread"
        );
        assert_eq!(EXPORT_FILE.target(["v1.0.1.0.0", "pt-BR"], &NoQuery), "/v1/exports/v1.0.1.0.0/pt-BR");
        assert_eq!(HEALTH.target([], &NoQuery), "/healthz");
    }

    #[test]
    fn the_table_lists_each_path_once_with_its_struct() {
        let paths: Vec<&str> = ENDPOINTS.iter().map(|endpoint| endpoint.path).collect();
        let mut unique = paths.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), paths.len(), "{paths:?}");
        let sources = ENDPOINTS.iter().find(|endpoint| endpoint.path == ITEM_SOURCES.template);
        assert_eq!(sources.map(|endpoint| endpoint.parameters), Some(VersionLang::PARAMETERS));
        assert_eq!(holes("/v1/{type}/{key}"), 2);
    }
}
