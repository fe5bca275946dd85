//! The service and its versions: health, the calling key, the published game versions, languages,
//! and the operators' counters.

use tapster_i18n::Language;
use tapster_wire::{self as wire, Degraded, GameVersion, Health, HealthStatus, Key, ServedGeneration};

use super::{Ctx, Endpoint, Handle, resolve};
use crate::error::ApiError;
use crate::params::{NoParams, VersionLang};
use crate::response::{Reply, json};
use crate::schemas::schema;
use crate::views;

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/healthz",
        key: None,
        summary: "Whether the service has its data loaded",
        example: Some("/healthz"),
        handler: &Handle(health),
        data: schema::<Health>,
    },
    Endpoint {
        path: "/v1/key",
        key: None,
        summary: "The calling API key: its name, limits, what remains of each, and its expiry",
        example: Some("/v1/key"),
        handler: &Handle(calling_key),
        data: schema::<Key>,
    },
    Endpoint {
        path: "/v1/versions",
        key: None,
        summary: "Published game versions, newest first",
        example: Some("/v1/versions"),
        handler: &Handle(versions),
        data: schema::<Vec<GameVersion>>,
    },
    Endpoint {
        path: "/v1/versions/{version}",
        key: None,
        summary: "One game version",
        example: Some("/v1/versions/latest"),
        handler: &Handle(version),
        data: schema::<GameVersion>,
    },
    Endpoint {
        path: "/v1/languages",
        key: None,
        summary: "The languages of a game version, named in the requested language",
        example: Some("/v1/languages?lang=de"),
        handler: &Handle(languages),
        data: schema::<Vec<wire::Language>>,
    },
];

/// The endpoints for operators rather than clients, which the OpenAPI document leaves out.
pub(super) const OPERATORS: &[Endpoint] = &[Endpoint {
    path: "/metrics",
    key: None,
    summary: "The service's counters in the Prometheus text format",
    example: None,
    handler: &Handle(metrics),
    data: schema::<String>,
}];

/// `GET /healthz`: answers once game data is loaded, which is before the server listens.
/// While a shared store is out of reach it says `degraded`, still with `200`: the service answers.
fn health(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let store = &ctx.store;
    let degraded: Vec<Degraded> = ctx
        .metrics
        .troubles()
        .into_iter()
        .map(|(dependency, detail)| Degraded { dependency: dependency.to_owned(), detail })
        .collect();
    json(&Health {
        status: if degraded.is_empty() { HealthStatus::Ok } else { HealthStatus::Degraded },
        latest: store.latest().info.name.to_string(),
        versions: store.versions().len(),
        degraded,
        generation: ctx.metrics.generation().map(|(number, sha256)| ServedGeneration { number, sha256 }),
    })
}

/// `GET /metrics`: the service's counters, never cached.
fn metrics(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    Ok(ctx.metrics.answer(ctx.store.versions().len()))
}

/// `GET /v1/key`: the key the request was admitted with, in the envelope of `/v1/versions`. The
/// answer is about this caller at this moment, so neither the service's cache nor any other keeps it.
fn calling_key(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let caller = ctx
        .caller
        .ok_or_else(|| ApiError::Internal("`/v1/key` was routed without the gate's admission".into()))?;
    let localizer = ctx.localizer(ctx.store.latest(), Language::SOURCE);
    Ok(ctx.render(localizer, views::key(caller), None)?.private())
}

/// `GET /v1/versions`: every published version, newest first.
fn versions(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let store = &ctx.store;
    let data: Vec<GameVersion> = store.versions().map(|c| views::game_version(&c.info)).collect();
    ctx.render(ctx.localizer(store.latest(), Language::SOURCE), data, None)
}

/// `GET /v1/versions/{version}`.
fn version(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let catalog = resolve(ctx.store, &ctx.path_version()?)?;
    ctx.render(ctx.localizer(catalog, Language::SOURCE), views::game_version(&catalog.info), None)
}

/// `GET /v1/languages`: the languages of a version, named in the requested language.
fn languages(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let mut localizer = ctx.localizer(catalog, p.lang);
    let data: Vec<wire::Language> = catalog
        .languages(p.lang)
        .into_iter()
        .enumerate()
        .map(|(i, info)| {
            localizer.note(info.name.1, || format!("/data/{i}/name"));
            views::language(info)
        })
        .collect();
    ctx.render(localizer, data, None)
}
