//! One method per endpoint of the API, each taking the parameters its route documents and answering
//! in the wire's types; a paged list also has a `*_pages` method, a [`Pages`] stream that follows
//! `pagination.next` to the end. Each builds its target from its declaration in `paths`, which
//! names the query struct it takes and the data it reads.

use bytes::Bytes;
use serde::de::DeserializeOwned;
use tapster_wire::{
    CraftingStation, Crop, Document, DocumentDetail, DocumentType, Export, Fish, GameVersion, Health,
    IngredientGroup, ItemDetail, ItemPrice, ItemSummary, Key, Language, Npc, RankingRow, RecipeDetail,
    RecipeSummary, SearchResult, ShopDetail, ShopSummary, Sources, TreeNode, UsedIn, VersionChange,
};

use crate::client::{Answer, Client};
use crate::error::{Error, Result};
use crate::pages::Pages;
use crate::paths::*;
use crate::query::{
    ChangesQuery, CropsQuery, FishQuery, ItemQuery, ItemsQuery, NoQuery, PageQuery, PictureQuery, PriceQuery,
    Query, RankingsQuery, RecipesQuery, SearchQuery, TreeQuery, VersionLang, decode_segment,
};

/// The path segment of a progression type's routes (`quests`, `reputation`).
fn documents_path(kind: &DocumentType) -> Result<&'static str> {
    Ok(match kind {
        DocumentType::Quest => "quests",
        DocumentType::Perk => "perks",
        DocumentType::Spell => "spells",
        DocumentType::Talent => "talents",
        DocumentType::Reputation => "reputation",
        DocumentType::Mission => "missions",
        DocumentType::Letter => "letters",
        other => return Err(Error::Config(format!("this client has no route for records of type {other}"))),
    })
}

impl Client {
    /// One answer of `path`, the data read as the path's declaration says.
    async fn call<Q: Query, T: DeserializeOwned, const N: usize>(
        &self,
        path: &Path<Q, T, N>,
        segments: [&str; N],
        query: &Q,
    ) -> Result<Answer<T>> {
        self.get(&path.target(segments, query)).await
    }

    /// Every page of a list `path`.
    fn every_page<Q: Query, T: DeserializeOwned + Send + 'static, const N: usize>(
        &self,
        path: &Path<Q, Vec<T>, N>,
        segments: [&str; N],
        query: &Q,
    ) -> Pages<T> {
        self.pages(path.target(segments, query))
    }

    /// `GET /healthz`: whether the service has its data and works around nothing.
    pub async fn health(&self) -> Result<Health> {
        self.get_plain(&HEALTH.target([], &NoQuery)).await
    }

    /// `GET /v1/key`: the calling key, its limits, what remains of each, requests today, expiry.
    pub async fn key(&self) -> Result<Answer<Key>> {
        self.call(&KEY, [], &NoQuery).await
    }

    /// `GET /v1/versions`: the published game versions, newest first.
    pub async fn versions(&self) -> Result<Answer<Vec<GameVersion>>> {
        self.call(&VERSIONS, [], &NoQuery).await
    }

    /// `GET /v1/versions/{version}`.
    pub async fn version(&self, version: &str) -> Result<Answer<GameVersion>> {
        self.call(&VERSION, [version], &NoQuery).await
    }

    /// `GET /v1/versions/{version}/changes`: one page.
    pub async fn changes(&self, version: &str, query: &ChangesQuery) -> Result<Answer<Vec<VersionChange>>> {
        self.call(&CHANGES, [version], query).await
    }

    /// Every page of [`Client::changes`].
    pub fn changes_pages(&self, version: &str, query: &ChangesQuery) -> Pages<VersionChange> {
        self.every_page(&CHANGES, [version], query)
    }

    /// `GET /v1/languages`: a version's languages, named in `lang`.
    pub async fn languages(&self, query: &VersionLang) -> Result<Answer<Vec<Language>>> {
        self.call(&LANGUAGES, [], query).await
    }

    /// `GET /v1/exports`: the bulk exports, one per game version and language.
    pub async fn exports(&self) -> Result<Answer<Vec<Export>>> {
        self.call(&EXPORTS, [], &NoQuery).await
    }

    /// `GET /v1/exports/{version}/{lang}`: the whole file (gzip-compressed NDJSON). Compare its
    /// SHA-256 with `export.sha256`.
    pub async fn export_file(&self, export: &Export) -> Result<Bytes> {
        Ok(self.send(&export_target(export), None).await?.body)
    }

    /// The rest of an export from byte `offset` on, to resume a download cut short (`Range`); the
    /// server answers the rest only if the file is still the one `export` lists (`If-Range`). Any
    /// other answer (the whole file, when it changed or a proxy dropped the range) is
    /// [`Error::Unexpected`], never spliced onto what you hold: download it again whole. An `offset`
    /// at or past the end is [`Error::Api`] (`416`).
    pub async fn export_file_from(&self, export: &Export, offset: u64) -> Result<Bytes> {
        let target = export_target(export);
        let tag = format!("\"{}\"", export.sha256);
        let raw = self.send(&target, Some((offset, &tag))).await?;
        if raw.status != hyper::StatusCode::PARTIAL_CONTENT {
            return Err(Error::Unexpected {
                status: raw.status.as_u16(),
                target,
                detail: "the server sent the whole file, not the rest (it changed since it was listed, or a \
                         proxy dropped the range): download it again whole"
                    .into(),
            });
        }
        Ok(raw.body)
    }

    /// `GET /v1/exports/{version}/icons`: every picture of a game version (`latest`, or a name) in
    /// one tar archive, `manifest.json` (a [`PictureManifest`](tapster_wire::PictureManifest)) first,
    /// then each file at `assets/<the path its records name>`.
    pub async fn icons_file(&self, version: &str) -> Result<Bytes> {
        Ok(self.send(&ICONS_FILE.target([version], &NoQuery), None).await?.body)
    }

    /// `GET /v1/items`: one page.
    pub async fn items(&self, query: &ItemsQuery) -> Result<Answer<Vec<ItemSummary>>> {
        self.call(&ITEMS, [], query).await
    }

    /// Every page of [`Client::items`].
    pub fn items_pages(&self, query: &ItemsQuery) -> Pages<ItemSummary> {
        self.every_page(&ITEMS, [], query)
    }

    /// `GET /v1/items/{key}` by id or slug.
    pub async fn item(&self, key: &str, query: &ItemQuery) -> Result<Answer<ItemDetail>> {
        self.call(&ITEM, [key], query).await
    }

    /// `GET /v1/items/{key}/price`: one serving's price, step by step.
    pub async fn item_price(&self, key: &str, query: &PriceQuery) -> Result<Answer<ItemPrice>> {
        self.call(&ITEM_PRICE, [key], query).await
    }

    /// `GET /v1/items/{key}/used-in`: one page.
    pub async fn item_used_in(&self, key: &str, query: &PageQuery) -> Result<Answer<Vec<UsedIn>>> {
        self.call(&ITEM_USED_IN, [key], query).await
    }

    /// Every page of [`Client::item_used_in`].
    pub fn item_used_in_pages(&self, key: &str, query: &PageQuery) -> Pages<UsedIn> {
        self.every_page(&ITEM_USED_IN, [key], query)
    }

    /// `GET /v1/items/{key}/sources`: everywhere the item comes from.
    pub async fn item_sources(&self, key: &str, query: &VersionLang) -> Result<Answer<Sources>> {
        self.call(&ITEM_SOURCES, [key], query).await
    }

    /// `GET /v1/rankings/products`: one page.
    pub async fn rankings(&self, query: &RankingsQuery) -> Result<Answer<Vec<RankingRow>>> {
        self.call(&RANKINGS, [], query).await
    }

    /// Every page of [`Client::rankings`].
    pub fn rankings_pages(&self, query: &RankingsQuery) -> Pages<RankingRow> {
        self.every_page(&RANKINGS, [], query)
    }

    /// `GET /v1/recipes`: one page.
    pub async fn recipes(&self, query: &RecipesQuery) -> Result<Answer<Vec<RecipeSummary>>> {
        self.call(&RECIPES, [], query).await
    }

    /// Every page of [`Client::recipes`].
    pub fn recipes_pages(&self, query: &RecipesQuery) -> Pages<RecipeSummary> {
        self.every_page(&RECIPES, [], query)
    }

    /// `GET /v1/recipes/{key}` by id or slug.
    pub async fn recipe(&self, key: &str, query: &VersionLang) -> Result<Answer<RecipeDetail>> {
        self.call(&RECIPE, [key], query).await
    }

    /// `GET /v1/recipes/{key}/tree`: the whole ingredient tree down to raw items.
    pub async fn recipe_tree(&self, key: &str, query: &TreeQuery) -> Result<Answer<TreeNode>> {
        self.call(&RECIPE_TREE, [key], query).await
    }

    /// `GET /v1/ingredient-groups/{key}` by id or slug.
    pub async fn ingredient_group(&self, key: &str, query: &VersionLang) -> Result<Answer<IngredientGroup>> {
        self.call(&INGREDIENT_GROUP, [key], query).await
    }

    /// `GET /v1/crafters`: every crafting station with its recipes.
    pub async fn crafters(&self, query: &VersionLang) -> Result<Answer<Vec<CraftingStation>>> {
        self.call(&CRAFTERS, [], query).await
    }

    /// `GET /v1/crops`: one page.
    pub async fn crops(&self, query: &CropsQuery) -> Result<Answer<Vec<Crop>>> {
        self.call(&CROPS, [], query).await
    }

    /// Every page of [`Client::crops`].
    pub fn crops_pages(&self, query: &CropsQuery) -> Pages<Crop> {
        self.every_page(&CROPS, [], query)
    }

    /// `GET /v1/crops/{key}` by id or slug.
    pub async fn crop(&self, key: &str, query: &VersionLang) -> Result<Answer<Crop>> {
        self.call(&CROP, [key], query).await
    }

    /// `GET /v1/shops`: every shop.
    pub async fn shops(&self, query: &VersionLang) -> Result<Answer<Vec<ShopSummary>>> {
        self.call(&SHOPS, [], query).await
    }

    /// `GET /v1/shops/{key}` by id or slug, with its catalogue.
    pub async fn shop(&self, key: &str, query: &VersionLang) -> Result<Answer<ShopDetail>> {
        self.call(&SHOP, [key], query).await
    }

    /// `GET /v1/npcs`: every shopkeeper.
    pub async fn npcs(&self, query: &VersionLang) -> Result<Answer<Vec<Npc>>> {
        self.call(&NPCS, [], query).await
    }

    /// `GET /v1/fish`: one page.
    pub async fn fish(&self, query: &FishQuery) -> Result<Answer<Vec<Fish>>> {
        self.call(&FISH, [], query).await
    }

    /// Every page of [`Client::fish`].
    pub fn fish_pages(&self, query: &FishQuery) -> Pages<Fish> {
        self.every_page(&FISH, [], query)
    }

    /// `GET /v1/{quests,perks,spells,talents,reputation,missions,letters}`: one page of `kind`.
    pub async fn documents(&self, kind: &DocumentType, query: &PageQuery) -> Result<Answer<Vec<Document>>> {
        self.call(&DOCUMENTS, [documents_path(kind)?], query).await
    }

    /// Every page of [`Client::documents`].
    pub fn documents_pages(&self, kind: &DocumentType, query: &PageQuery) -> Result<Pages<Document>> {
        Ok(self.every_page(&DOCUMENTS, [documents_path(kind)?], query))
    }

    /// `GET /v1/{type}/{key}`: one progression record of `kind` by the key the game gives it.
    pub async fn document(
        &self,
        kind: &DocumentType,
        key: &str,
        query: &VersionLang,
    ) -> Result<Answer<DocumentDetail>> {
        self.call(&DOCUMENT, [documents_path(kind)?, key], query).await
    }

    /// `GET /v1/search`: items and recipes by name.
    pub async fn search(&self, query: &SearchQuery) -> Result<Answer<Vec<SearchResult>>> {
        self.call(&SEARCH, [], query).await
    }

    /// `GET /assets/{sha256}/{name}`: the picture an `icon_url` names (absolute or relative, as an
    /// answer gave it), asked of this client's server in the size and format `query` asks for. A
    /// picture's URL names its content, so its bytes never change: keep them as long as you like.
    pub async fn picture(&self, icon_url: &str, query: &PictureQuery) -> Result<Bytes> {
        let (sha256, name) = picture_segments(icon_url).ok_or_else(|| {
            Error::Config(format!("{icon_url} is not a picture's URL, which ends in /assets/<sha256>/<name>"))
        })?;
        Ok(self.send(&PICTURE.target([sha256, &name], query), None).await?.body)
    }
}

/// The hash and the decoded file name of a picture's URL (`.../assets/<sha256>/<name>`).
fn picture_segments(url: &str) -> Option<(&str, String)> {
    let path = url.split(['?', '#']).next()?;
    let (_, rest) = path.rsplit_once("/assets/")?;
    let (sha256, name) = rest.split_once('/')?;
    let hex = sha256.len() == 64 && sha256.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    (hex && !name.is_empty() && !name.contains('/')).then_some(())?;
    Some((sha256, decode_segment(name)?))
}

fn export_target(export: &Export) -> String {
    EXPORT_FILE.target([&export.version, export.lang.as_str()], &NoQuery)
}
