//! The routes: one table of endpoints (path template, parameters, handler), each area's part in its
//! own module with the small handlers that read their checked parameters, ask the catalog, and
//! render. `router` matches a request to its endpoint, `ctx` is what a handler is given. The OpenAPI
//! document is written from the same table, so every route is documented as it behaves.

mod changes;
mod ctx;
mod docs;
mod items;
mod meta;
mod prices;
mod progression;
mod recipes;
mod relations;
mod router;
mod search;
mod world;

use schemars::{Schema, SchemaGenerator};

use crate::error::ApiError;
use crate::params::Param;
use crate::response::Reply;
pub(crate) use ctx::{Ctx, resolve};
#[cfg(test)]
pub(crate) use router::{bind, percent_decode};
pub(crate) use router::{endpoint_index, route};

/// One endpoint: its path template (`{name}` marks a path parameter), what it takes, who answers,
/// and the shape of its `data` (of the whole body for the public routes outside `/v1`).
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) path: &'static str,
    pub(crate) summary: &'static str,
    /// What the path's `{key}` names, on the routes that have one: the router checks the segment by
    /// this rule before the handler runs, and the document describes it by the same rule.
    pub(crate) key: Option<KeyRule>,
    /// A request target whose answer on the bundled data is the document's example of this
    /// endpoint's answer; `None` for `/openapi.json`, which would hold itself.
    pub(crate) example: Option<&'static str>,
    pub(crate) params: &'static [Param],
    pub(crate) handler: fn(&Ctx<'_>) -> Result<Reply, ApiError>,
    pub(crate) data: fn(&mut SchemaGenerator) -> Schema,
}

impl Endpoint {
    /// The rule of the path parameter `name`: `{version}` is a version, `{key}` what [`Self::key`] says.
    pub(crate) fn path_rule(&self, name: &str) -> PathRule {
        match (name, self.key) {
            ("version", _) => PathRule::Version,
            (_, Some(KeyRule::Progression)) => PathRule::ProgressionKey,
            _ => PathRule::RecordKey,
        }
    }
}

/// What a `{key}` segment names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyRule {
    /// A record by its integer id or its slug (spec 2.4).
    Record,
    /// A progression record by the key the game gives it.
    Progression,
}

/// What a path parameter must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathRule {
    Version,
    RecordKey,
    ProgressionKey,
}

/// Every endpoint, each area's table in turn. Routes under `/v1` pass the gate first (see `server`).
pub(crate) fn endpoints() -> impl Iterator<Item = &'static Endpoint> {
    [
        meta::ENDPOINTS,
        items::ENDPOINTS,
        docs::ENDPOINTS,
        changes::ENDPOINTS,
        relations::ENDPOINTS,
        prices::ENDPOINTS,
        recipes::ENDPOINTS,
        world::ENDPOINTS,
        progression::ENDPOINTS,
        search::ENDPOINTS,
    ]
    .into_iter()
    .flatten()
}
