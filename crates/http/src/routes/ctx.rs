//! What a handler is given: the published game data, where the service is served from, the
//! request's path and checked query, and its path parameters; with the lookups and renderings every
//! handler shares.

use std::sync::Arc;

use bytes::Bytes;
use hyper::header::{CACHE_CONTROL, CONTENT_LANGUAGE, HeaderValue};
use serde::Serialize;
use tapster_domain::{ProgressionKey, RecordKey, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, Store, Window};

use super::IconsArchive;
use crate::envelope::{Envelope, Localizer, content_language, pagination};
use crate::error::ApiError;
use crate::gate::Admission;
use crate::metrics::Metrics;
use crate::params::Query;
use crate::response::{LATEST_MAX_AGE, NAMED_VERSION_MAX_AGE, Page, Reply, json};

/// What a handler gets besides its parameters: the published game data, where the service is served
/// from, the service's counters, who is calling, the request's path and checked query (for the
/// links of a page), and its path parameters.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub(crate) store: &'a Store,
    pub(crate) site: &'a dyn Documents,
    /// The service's counters, which `/metrics` answers.
    pub(crate) metrics: &'a Metrics,
    /// The key a `/v1` request was admitted with; `None` on the public routes, which take no key.
    pub(crate) caller: Option<&'a Admission>,
    pub(crate) path: &'a str,
    pub(crate) query: Query,
    pub(super) params: PathParams,
}

/// What the service publishes about itself, for the handlers that serve it: the address clients
/// reach it at, and the documents written from the whole endpoint table (the OpenAPI document with
/// its examples, the reference page). They are written above the routes (`crate::site`), since they
/// read every route and ask some for examples; a handler knows them only through this trait.
pub(crate) trait Documents: Sync + std::fmt::Debug {
    /// The public address without a trailing slash (`https://api.example`), or empty when it is
    /// not known and links are relative.
    fn origin(&self) -> &str;

    /// The URL of `path` (which starts with `/`): absolute when the public address is known.
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    /// `/openapi.json`'s body for the data in `store`.
    fn openapi(&self, store: &Store, metrics: &Metrics) -> Bytes;

    /// `/docs`'s page for the data in `store`.
    fn reference(&self, store: &Store, metrics: &Metrics) -> Result<Arc<Page>, ApiError>;

    /// `/changelog`'s page for the data served, made by `render` on its first request.
    fn changelog(&self, render: &dyn Fn() -> Result<Page, ApiError>) -> Result<Arc<Page>, ApiError>;

    /// The pictures of `catalog`, a version of `store`, in one archive, built on first request.
    fn icons(&self, store: &Store, catalog: &Catalog) -> Result<Arc<IconsArchive>, ApiError>;
}

/// The path parameters of a request, checked by the router by its endpoint's rules.
#[derive(Debug, Default)]
pub(crate) struct PathParams {
    pub(super) version: Option<VersionSelector>,
    pub(super) lang: Option<Language>,
    pub(super) key: Option<PathKey>,
    /// `{sha256}`, read as the hash it spells.
    pub(super) picture: Option<[u8; 32]>,
    /// `{name}`, the file name a picture's URL ends in.
    pub(super) file_name: Option<String>,
}

/// A checked `{key}`.
#[derive(Debug)]
pub(crate) enum PathKey {
    Record(RecordKey),
    Progression(ProgressionKey),
}

/// A handler asked for a path parameter its route does not have: a mistake in the table.
fn not_in_path(name: &str) -> ApiError {
    ApiError::Internal(format!("the route has no `{{{name}}}` of that kind").into())
}

impl Ctx<'_> {
    /// What renders the views of `catalog` in `lang`, its links under the service's address.
    pub(crate) fn localizer<'c>(&'c self, catalog: &'c Catalog, lang: Language) -> Localizer<'c> {
        Localizer::new(catalog, lang).with_origin(self.site.origin())
    }

    /// The catalog of `version`.
    pub(crate) fn catalog(&self, version: &VersionSelector) -> Result<&Catalog, ApiError> {
        resolve(self.store, version)
    }

    /// The `{version}` path parameter.
    pub(crate) fn path_version(&self) -> Result<VersionSelector, ApiError> {
        self.params.version.clone().ok_or_else(|| not_in_path("version"))
    }

    /// The `{lang}` path parameter.
    pub(crate) fn path_lang(&self) -> Result<Language, ApiError> {
        self.params.lang.ok_or_else(|| not_in_path("lang"))
    }

    /// The `{sha256}` and `{name}` path parameters of a picture.
    pub(crate) fn path_picture(&self) -> Result<(&[u8; 32], &str), ApiError> {
        let sha256 = self.params.picture.as_ref().ok_or_else(|| not_in_path("sha256"))?;
        let name = self.params.file_name.as_deref().ok_or_else(|| not_in_path("name"))?;
        Ok((sha256, name))
    }

    /// The `{key}` path parameter of a record named by id or slug.
    pub(crate) fn path_key(&self) -> Result<&RecordKey, ApiError> {
        match &self.params.key {
            Some(PathKey::Record(key)) => Ok(key),
            _ => Err(not_in_path("key")),
        }
    }

    /// The catalog of `version` and the record its `{key}` path parameter names, found by `find`:
    /// an unknown key is a `404` naming what was asked (`there is no item 42 in v0.7.0.0.1`).
    pub(crate) fn record<'s, T: 's>(
        &'s self,
        noun: &str,
        version: &VersionSelector,
        find: impl FnOnce(&'s Catalog, &RecordKey) -> Option<&'s T>,
    ) -> Result<(&'s Catalog, &'s T), ApiError> {
        let key = self.path_key()?;
        let catalog = self.catalog(version)?;
        let record = find(catalog, key).ok_or_else(|| {
            ApiError::NotFound(format!("there is no {noun} {key} in {}", catalog.info.name))
        })?;
        Ok((catalog, record))
    }

    /// The `{key}` path parameter of a progression record.
    pub(crate) fn path_progression_key(&self) -> Result<&ProgressionKey, ApiError> {
        match &self.params.key {
            Some(PathKey::Progression(key)) => Ok(key),
            _ => Err(not_in_path("key")),
        }
    }

    /// Renders `data` in the envelope, with only the `fields` asked for when there are some.
    pub(crate) fn render(
        &self,
        localizer: Localizer<'_>,
        data: impl Serialize,
        fields: Option<&[&'static str]>,
    ) -> Result<Reply, ApiError> {
        let envelope = localizer.envelope(data, fields, None);
        self.answer(&envelope.map_err(|e| ApiError::Internal(Box::new(e)))?)
    }

    /// Renders the page `window` of a list of `total` records, with its links.
    pub(crate) fn render_page(
        &self,
        localizer: Localizer<'_>,
        data: impl Serialize,
        fields: Option<&[&'static str]>,
        window: Window,
        total: u64,
    ) -> Result<Reply, ApiError> {
        let pagination = pagination(self.path, self.query.canonical(), window.limit, window.offset, total);
        let envelope = localizer.envelope(data, fields, Some(pagination));
        self.answer(&envelope.map_err(|e| ApiError::Internal(Box::new(e)))?)
    }

    /// A `200` JSON answer of `envelope`, saying in `Content-Language` which languages its texts are
    /// in, and kept longer when it is about a version named by its number.
    fn answer<T: Serialize>(&self, envelope: &Envelope<T>) -> Result<Reply, ApiError> {
        let mut reply = json(envelope)?;
        reply.headers.insert(CONTENT_LANGUAGE, content_language(&envelope.meta));
        let max_age = if self.names_a_version() { NAMED_VERSION_MAX_AGE } else { LATEST_MAX_AGE };
        reply.headers.insert(CACHE_CONTROL, HeaderValue::from_static(max_age));
        Ok(reply)
    }

    /// Whether the request names a version by its number (`version=v0.6.4.2.1`, or in the path) rather
    /// than `latest`, which moves with every import.
    fn names_a_version(&self) -> bool {
        let named = |selector: &VersionSelector| matches!(selector, VersionSelector::Exact(_));
        self.params.version.as_ref().is_some_and(named)
            || self.query.canonical().any(|(name, value)| {
                name == "version" && VersionSelector::parse(value).is_ok_and(|selector| named(&selector))
            })
    }
}

pub(crate) fn resolve<'a>(store: &'a Store, selector: &VersionSelector) -> Result<&'a Catalog, ApiError> {
    store.resolve(selector).ok_or_else(|| {
        let published: Vec<&str> = store.versions().map(|v| v.info.name.as_str()).collect();
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
