//! What a handler is given: the published game data, where the service is served from, the
//! request's path and checked query, and its path parameters; with the lookups and renderings every
//! handler shares.

use std::collections::BTreeSet;

use serde::Serialize;
use tapster_domain::{ProgressionKey, RecordKey, VersionSelector};
use tapster_store::{Catalog, Store};

use crate::envelope::{Localizer, Pagination};
use crate::error::ApiError;
use crate::params::Query;
use crate::response::{Reply, json};
use crate::site::Site;

/// What a handler gets: the published game data, where the service is served from, the request's
/// path and checked query, and its path parameters.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub(crate) store: &'a Store,
    pub(crate) site: &'a Site,
    pub(crate) path: &'a str,
    pub(crate) query: Query,
    pub(super) params: PathParams,
}

/// The path parameters of a request, checked by the router by its endpoint's rules.
#[derive(Debug, Default)]
pub(crate) struct PathParams {
    pub(super) version: Option<VersionSelector>,
    pub(super) key: Option<PathKey>,
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
    /// The catalog of the version the query asks for.
    pub(crate) fn catalog(&self) -> Result<&Catalog, ApiError> {
        resolve(self.store, &self.query.version())
    }

    /// The `{version}` path parameter.
    pub(crate) fn path_version(&self) -> Result<VersionSelector, ApiError> {
        self.params.version.clone().ok_or_else(|| not_in_path("version"))
    }

    /// The `{key}` path parameter of a record named by id or slug (spec 2.4).
    pub(crate) fn path_key(&self) -> Result<&RecordKey, ApiError> {
        match &self.params.key {
            Some(PathKey::Record(key)) => Ok(key),
            _ => Err(not_in_path("key")),
        }
    }

    /// The catalog the query asks for and the record its `{key}` path parameter names, found by
    /// `find`: a malformed key is a `422`, an unknown one a `404` naming what was asked
    /// (`there is no item 42 in v0.7.0.0.1`).
    pub(crate) fn record<'s, T: 's>(
        &'s self,
        noun: &str,
        find: impl FnOnce(&'s Catalog, &RecordKey) -> Option<&'s T>,
    ) -> Result<(&'s Catalog, &'s T), ApiError> {
        let key = self.path_key()?;
        let catalog = self.catalog()?;
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

    /// The value of the query parameter `name`, a value the game data defines, which the version
    /// must know: an unknown one is a `422` listing the `values` it knows.
    pub(crate) fn known(&self, name: &str, values: &BTreeSet<String>) -> Result<Option<&str>, ApiError> {
        match self.query.text(name) {
            Some(v) if !values.contains(v) => Err(ApiError::invalid(
                name,
                format!(
                    "has no value {v:?} in this game version; the values are {}",
                    values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
                ),
            )),
            other => Ok(other),
        }
    }

    /// Renders `data` in the envelope, with the `fields` the query asked for.
    pub(crate) fn render(&self, localizer: Localizer<'_>, data: impl Serialize) -> Result<Reply, ApiError> {
        let envelope = localizer.envelope(data, self.query.names("fields"), None);
        json(&envelope.map_err(|e| ApiError::Internal(Box::new(e)))?)
    }

    /// Renders one page of a list of `total` records.
    pub(crate) fn render_page(
        &self,
        localizer: Localizer<'_>,
        data: impl Serialize,
        total: u64,
    ) -> Result<Reply, ApiError> {
        let pagination = Pagination::new(
            self.path,
            self.query.canonical(),
            self.query.limit(),
            self.query.offset(),
            total,
        );
        let envelope = localizer.envelope(data, self.query.names("fields"), Some(pagination));
        json(&envelope.map_err(|e| ApiError::Internal(Box::new(e)))?)
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
