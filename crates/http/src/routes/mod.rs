//! The routes: one table of endpoints (path template, parameters, handler), matched by `route`, and
//! one small handler per endpoint that reads its checked parameters, asks the catalog, and renders.
//! The OpenAPI document is written from the same table, so every route is documented as it behaves.

mod changes;
mod docs;
mod items;
mod meta;
mod prices;
mod progression;
mod recipes;
mod relations;
mod search;
mod world;

use std::fmt::Write as _;

use hyper::Method;
use schemars::{Schema, SchemaGenerator};
use serde::Serialize;
use tapster_domain::{ProgressionKey, RecordKey, VersionSelector};
use tapster_store::{Catalog, Store};

use crate::envelope::{Localizer, Pagination};
use crate::error::ApiError;
use crate::openapi::schema;
use crate::params::{LANG, Param, Query, VERSION};
use crate::response::{Reply, json};
use crate::site::Site;
use crate::views::{GameVersionView, Health, ItemDetail, ItemSummary, LanguageView};

/// One endpoint: its path template (`{name}` marks a path parameter), what it takes, who answers,
/// and the shape of its `data` (of the whole body for the public routes outside `/v1`).
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) path: &'static str,
    pub(crate) summary: &'static str,
    /// A request target whose answer on the bundled data is the document's example of this
    /// endpoint's answer; `None` for `/openapi.json`, which would hold itself.
    pub(crate) example: Option<&'static str>,
    pub(crate) params: &'static [Param],
    pub(crate) handler: fn(&Ctx<'_>) -> Result<Reply, ApiError>,
    pub(crate) data: fn(&mut SchemaGenerator) -> Schema,
}

/// The rule of the path parameter `name` of the endpoint at `template`: `{version}` is a version;
/// `{key}` is a progression key on the progression routes and an id or slug everywhere else.
pub(crate) fn path_rule(template: &str, name: &str) -> PathRule {
    if name == "version" {
        PathRule::Version
    } else if progression::ENDPOINTS.iter().any(|e| e.path == template) {
        PathRule::ProgressionKey
    } else {
        PathRule::RecordKey
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathRule {
    Version,
    RecordKey,
    ProgressionKey,
}

/// The endpoints of this module: the service and its versions.
const META: &[Endpoint] = &[
    Endpoint {
        path: "/healthz",
        summary: "Whether the service has its data loaded",
        example: Some("/healthz"),
        params: &[],
        handler: meta::health,
        data: schema::<Health>,
    },
    Endpoint {
        path: "/v1/versions",
        summary: "Published game versions, newest first",
        example: Some("/v1/versions"),
        params: &[],
        handler: meta::versions,
        data: schema::<Vec<GameVersionView>>,
    },
    Endpoint {
        path: "/v1/versions/{version}",
        summary: "One game version",
        example: Some("/v1/versions/latest"),
        params: &[],
        handler: meta::version,
        data: schema::<GameVersionView>,
    },
    Endpoint {
        path: "/v1/languages",
        summary: "The languages of a game version, named in the requested language",
        example: Some("/v1/languages?lang=de"),
        params: &[VERSION, LANG],
        handler: meta::languages,
        data: schema::<Vec<LanguageView>>,
    },
    Endpoint {
        path: "/v1/items",
        summary: "Items, filtered, sorted and paged",
        example: Some("/v1/items?kind=drink&sort=-price&limit=2"),
        params: items::LIST_PARAMS,
        handler: items::list,
        data: schema::<Vec<ItemSummary>>,
    },
    Endpoint {
        path: "/v1/items/{key}",
        summary: "One item by id or slug",
        example: Some("/v1/items/pale-ale?expand=recipes,shops,groups"),
        params: items::DETAIL_PARAMS,
        handler: items::detail,
        data: schema::<ItemDetail>,
    },
];

/// Every endpoint, each area's table in turn. Routes under `/v1` pass the gate first (see `server`).
pub(crate) fn endpoints() -> impl Iterator<Item = &'static Endpoint> {
    [
        META,
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

/// What a handler gets: the published game data, where the service is served from, the request's
/// path and checked query, and its path parameters.
#[derive(Debug)]
pub(crate) struct Ctx<'a> {
    pub(crate) store: &'a Store,
    pub(crate) site: &'a Site,
    pub(crate) path: &'a str,
    pub(crate) query: Query,
    segments: Vec<(&'static str, String)>,
}

impl Ctx<'_> {
    fn segment(&self, name: &str) -> &str {
        self.segments.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str()).unwrap_or_default()
    }

    /// The catalog of the version the query asks for.
    pub(crate) fn catalog(&self) -> Result<&Catalog, ApiError> {
        resolve(self.store, &self.query.version())
    }

    /// The `{version}` path parameter, checked.
    pub(crate) fn path_version(&self) -> Result<VersionSelector, ApiError> {
        VersionSelector::parse(self.segment("version"))
            .map_err(|e| ApiError::invalid("version", format!("{e} (given {:?})", self.segment("version"))))
    }

    /// The `{key}` path parameter: an id or a slug (spec 2.4), checked before any lookup.
    pub(crate) fn path_key(&self) -> Result<RecordKey, ApiError> {
        RecordKey::parse(self.segment("key"))
            .map_err(|e| ApiError::invalid("key", format!("{e} (given {:?})", self.segment("key"))))
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
        let record = find(catalog, &key).ok_or_else(|| {
            ApiError::NotFound(format!("there is no {noun} {key} in {}", catalog.info.name))
        })?;
        Ok((catalog, record))
    }

    /// The `{key}` path parameter of a progression record.
    pub(crate) fn path_progression_key(&self) -> Result<ProgressionKey, ApiError> {
        ProgressionKey::parse(self.segment("key"))
            .map_err(|e| ApiError::invalid("key", format!("{e} (given {:?})", self.segment("key"))))
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

/// A request matched to its endpoint with its query checked: ready to answer, and to name its answer.
#[derive(Debug)]
pub(crate) struct Routed<'a> {
    endpoint: &'static Endpoint,
    /// The endpoint's position in [`endpoints`], which numbers the metrics' route labels.
    index: usize,
    ctx: Ctx<'a>,
}

impl Routed<'_> {
    /// The endpoint's position in [`endpoints`].
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn answer(&self) -> Result<Reply, ApiError> {
        (self.endpoint.handler)(&self.ctx)
    }

    /// The canonical form of the request, under which its answer is cached: the path, then the given
    /// parameters in the order the endpoint declares them, with their decoded values. Everything an
    /// answer holds comes from it (the pagination links keep exactly these parameters), so equal
    /// keys mean equal answers. It is written as a request target that asks for exactly this
    /// request (`/v1/items?kind=food&sort=-price,name`), so that a request arriving in this form is
    /// found by its target before it is parsed. A cache belongs to one published data set, so
    /// `latest` needs no resolving here.
    pub(crate) fn cache_key(&self) -> String {
        let mut key = String::with_capacity(self.ctx.path.len() + 64);
        key.push_str(self.ctx.path);
        for (i, (name, value)) in self.ctx.query.canonical().enumerate() {
            key.push(if i == 0 { '?' } else { '&' });
            key.push_str(name);
            key.push('=');
            push_escaped(&mut key, value);
        }
        key
    }
}

/// Writes `value` as a query value that decodes back to it: visible ASCII stays as it is, except the
/// characters that the query syntax or its decoding gives a meaning (`%`, `&`, `=`, `+`, `#`); every
/// other byte is percent-encoded.
fn push_escaped(out: &mut String, value: &str) {
    for byte in value.bytes() {
        if byte.is_ascii_graphic() && !matches!(byte, b'%' | b'&' | b'=' | b'+' | b'#') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
}

/// Finds the endpoint for `path`, and checks the method and the query.
pub(crate) fn route<'a>(
    store: &'a Store,
    site: &'a Site,
    method: &Method,
    path: &'a str,
    query: Option<&'a str>,
) -> Result<Routed<'a>, ApiError> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let (index, endpoint, bound) = endpoints()
        .enumerate()
        .find_map(|(index, endpoint)| bind(endpoint.path, &segments).map(|bound| (index, endpoint, bound)))
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "there is no endpoint at {path}; the endpoints are listed in /openapi.json"
            ))
        })?;
    if method != Method::GET && method != Method::HEAD {
        return Err(ApiError::MethodNotAllowed { method: method.to_string() });
    }
    let ctx = Ctx { store, site, path, query: Query::parse(query, endpoint.params)?, segments: bound };
    Ok(Routed { endpoint, index, ctx })
}

/// The position in [`endpoints`] of the endpoint whose template `path` matches, whatever the method
/// and query: names the route of a request refused before or while it was routed.
pub(crate) fn endpoint_index(path: &str) -> Option<usize> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    endpoints().position(|endpoint| bind(endpoint.path, &segments).is_some())
}

/// Matches path segments against a template, binding `{name}` segments (percent-decoded).
pub(crate) fn bind(template: &'static str, segments: &[&str]) -> Option<Vec<(&'static str, String)>> {
    let parts: Vec<&'static str> = template.split('/').skip(1).collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut bound = Vec::new();
    for (part, segment) in parts.iter().zip(segments) {
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) => bound.push((name, percent_decode(segment)?)),
            None if part == segment => {}
            None => return None,
        }
    }
    Some(bound)
}

/// Decodes `%XX` escapes of a path segment; `None` for a broken escape or bytes that are not UTF-8.
pub(crate) fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Exactly two hex digits: `from_str_radix` alone would also take a sign (`%+1`).
            let hex = segment.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A store of the hand-written dataset that the store's tests use.
    fn mini_store() -> Store {
        let dir = tempfile::TempDir::new().unwrap().keep();
        let mini = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/tests/data/mini");
        tapster_store::import(&dir, &mini).unwrap();
        Store::open(&dir).unwrap()
    }

    #[test]
    fn the_cache_key_is_a_target_that_asks_for_the_same_request() {
        let store = mini_store();
        let site = Site::new(None);
        let key_of = |target: &str| {
            let (path, query) = target.split_once('?').map_or((target, None), |(p, q)| (p, Some(q)));
            route(&store, &site, &Method::GET, path, query).unwrap().cache_key()
        };
        let cases = [
            ("/v1/items", "/v1/items"),
            ("/v1/items?limit=20&kind=food", "/v1/items?kind=food&limit=20"),
            ("/v1/items?lang=de&sort=-price%2Cname", "/v1/items?sort=-price,name&lang=de"),
            ("/v1/search?q=pale+ale", "/v1/search?q=pale%20ale"),
            ("/v1/search?q=%E3%81%B3%E3%83%BC%E3%82%8B", "/v1/search?q=%E3%81%B3%E3%83%BC%E3%82%8B"),
            ("/v1/search?q=a%2Bb%26c%3Dd%25", "/v1/search?q=a%2Bb%26c%3Dd%25"),
        ];
        for (target, canonical) in cases {
            let key = key_of(target);
            assert!(
                key.ends_with(&canonical[canonical.find('?').unwrap_or(canonical.len())..]),
                "{target}: {key}"
            );
            // Asked for by its canonical form, the request is the same request.
            assert_eq!(key_of(&key), key, "{target}");
        }
    }

    #[test]
    fn templates_bind_decoded_segments() {
        let bound = bind("/v1/quests/{key}", &["v1", "quests", "Marta%27s%20Letter"]).unwrap();
        assert_eq!(bound, [("key", "Marta's Letter".to_owned())]);
        assert_eq!(bind("/v1/quests/{key}", &["v1", "quests"]), None);
        assert_eq!(bind("/v1/quests/{key}", &["v1", "perks", "x"]), None);
        assert_eq!(bind("/v1/quests/{key}", &["v1", "quests", "%zz"]), None);
        assert_eq!(bind("/v1/quests/{key}", &["v1", "quests", "%ff"]), None);
        assert_eq!(bind("/v1/quests/{key}", &["v1", "quests", "%+1"]), None);
    }
}
