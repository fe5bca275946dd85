//! The service and its versions: health, the published game versions and their changes, languages.

use tapster_i18n::Language;

use super::{Ctx, resolve};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::response::{Reply, json};
use crate::views::{GameVersionView, Health, LanguageView};

/// `GET /healthz`: answers once game data is loaded, which is before the server listens.
pub(super) fn health(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let store = &ctx.store;
    json(&Health {
        status: "ok",
        latest: store.latest().info.name.to_string(),
        versions: store.versions().len(),
    })
}

/// `GET /v1/versions`: every published version, newest first.
pub(super) fn versions(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let store = &ctx.store;
    let data: Vec<GameVersionView> = store.versions().map(|c| GameVersionView::from(&c.info)).collect();
    ctx.render(Localizer::new(store.latest(), Language::SOURCE), data)
}

/// `GET /v1/versions/{version}`.
pub(super) fn version(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = resolve(ctx.store, &ctx.path_version()?)?;
    ctx.render(Localizer::new(catalog, Language::SOURCE), GameVersionView::from(&catalog.info))
}

/// `GET /v1/languages`: the languages of a version, named in the requested language.
pub(super) fn languages(ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog()?;
    let mut localizer = Localizer::new(catalog, ctx.query.lang());
    let data: Vec<LanguageView> = catalog
        .languages(ctx.query.lang())
        .into_iter()
        .enumerate()
        .map(|(i, info)| {
            localizer.note(info.name.1, || format!("/data/{i}/name"));
            LanguageView::from(info)
        })
        .collect();
    ctx.render(localizer, data)
}
