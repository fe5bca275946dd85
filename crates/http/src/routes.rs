//! The routes: one `route` that matches the method and path, and one small function per endpoint
//! that parses its typed parameters, asks the store, and renders the answer.

use hyper::Method;
use tapster_domain::VersionSelector;
use tapster_i18n::Language;
use tapster_store::VersionInfo;

use crate::envelope::{Envelope, Fallbacks};
use crate::error::ApiError;
use crate::params::{self, Query, VersionLang};
use crate::response::{Reply, json};
use crate::server::App;
use crate::views::{GameVersionView, LanguageView};

pub(crate) fn route(app: &App, method: &Method, path: &str, query: Option<&str>) -> Result<Reply, ApiError> {
    if method != Method::GET && method != Method::HEAD {
        return Err(ApiError::MethodNotAllowed { method: method.to_string() });
    }
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
    match segments.as_slice() {
        ["healthz"] => health(app, query),
        ["v1", "versions"] => versions(app, query),
        ["v1", "versions", name] => version(app, name, query),
        ["v1", "languages"] => languages(app, query),
        _ => Err(ApiError::NotFound(format!("there is no endpoint at {path}"))),
    }
}

/// `GET /healthz`: answers once game data is loaded, which is before the server listens.
fn health(app: &App, query: Option<&str>) -> Result<Reply, ApiError> {
    Query::parse(query, &[])?;
    let latest = app.store.latest();
    json(&serde_json::json!({
        "status": "ok",
        "latest": latest.name.as_str(),
        "versions": app.store.versions().len(),
    }))
}

/// `GET /v1/versions`: every published version, newest first.
fn versions(app: &App, query: Option<&str>) -> Result<Reply, ApiError> {
    Query::parse(query, &[])?;
    let data: Vec<GameVersionView> = app.store.versions().iter().map(GameVersionView::from).collect();
    json(&Envelope::new(data, app.store.latest(), Language::SOURCE, Fallbacks::default()))
}

/// `GET /v1/versions/{version}`.
fn version(app: &App, name: &str, query: Option<&str>) -> Result<Reply, ApiError> {
    Query::parse(query, &[])?;
    let selector = params::version(name).map_err(|detail| ApiError::invalid("version", detail))?;
    let version = resolve(app, &selector)?;
    json(&Envelope::new(GameVersionView::from(version), version, Language::SOURCE, Fallbacks::default()))
}

/// `GET /v1/languages`: the languages of a version, named in the requested language.
fn languages(app: &App, query: Option<&str>) -> Result<Reply, ApiError> {
    let query = Query::parse(query, VersionLang::NAMES)?;
    let VersionLang { version, lang } = VersionLang::from_query(&query)?;
    let version = resolve(app, &version)?;
    let mut fallbacks = Fallbacks::default();
    let data: Vec<LanguageView> = app
        .store
        .languages(version, lang)?
        .into_iter()
        .enumerate()
        .map(|(i, info)| {
            fallbacks.note(lang, info.name.1, || format!("/data/{i}/name"));
            LanguageView::from(info)
        })
        .collect();
    json(&Envelope::new(data, version, lang, fallbacks))
}

fn resolve<'a>(app: &'a App, selector: &VersionSelector) -> Result<&'a VersionInfo, ApiError> {
    app.store.resolve(selector).ok_or_else(|| {
        let published: Vec<&str> = app.store.versions().iter().map(|v| v.name.as_str()).collect();
        let asked = match selector {
            VersionSelector::Latest => "latest",
            VersionSelector::Exact(name) => name.as_str(),
        };
        ApiError::NotFound(format!(
            "no game version {asked} is published; the published versions are {}",
            published.join(", ")
        ))
    })
}
