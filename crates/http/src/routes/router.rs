//! Matching a request to its endpoint: the path against the table's templates (binding and
//! percent-decoding the `{name}` segments), the method, and the query against the endpoint's
//! declared parameters; and the canonical form of a matched request, under which its answer is cached.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::OnceLock;

use hyper::Method;
use tapster_store::Store;

use tapster_domain::{ProgressionKey, RecordKey, VersionSelector};

use super::ctx::{PathKey, PathParams};
use super::{Ctx, Documents, Endpoint, OPERATORS, PathRule, endpoints};
use crate::error::ApiError;
use crate::gate::Admission;
use crate::metrics::Metrics;
use crate::params::{Query, parse_lang};
use crate::response::Reply;

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
        self.endpoint.handler.answer(&self.ctx)
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

/// A request's path matched to its endpoint, with its `{name}` segments bound but not yet checked.
#[derive(Debug)]
pub(crate) struct Matched<'a> {
    /// The endpoint's position in [`endpoints`], which numbers the metrics' route labels.
    pub(crate) index: usize,
    endpoint: &'static Endpoint,
    bound: Bound<'a>,
    path: &'a str,
}

/// Finds the endpoint whose template `path` matches, whatever the method and query: the one match of
/// the table a request pays for. Each template's literal start is compared first, as bytes, so that
/// only the templates that can match are split into segments.
pub(crate) fn find(path: &str) -> Option<Matched<'_>> {
    endpoints().zip(literal_starts()).enumerate().find_map(|(index, (endpoint, literal))| {
        if !path.starts_with(literal) {
            return None;
        }
        Some(Matched { index, endpoint, bound: bind(endpoint.path, path)?, path })
    })
}

/// The literal start of each endpoint's template, up to its first `{name}` (the whole template when
/// it has none), in the table's order: worked out once.
fn literal_starts() -> &'static [&'static str] {
    static STARTS: OnceLock<Vec<&'static str>> = OnceLock::new();
    STARTS.get_or_init(|| endpoints().map(|endpoint| literal_start(endpoint.path)).collect())
}

fn literal_start(template: &'static str) -> &'static str {
    template.find('{').map_or(template, |at| &template[..at])
}

/// The `404` of a path that no endpoint's template matches.
pub(crate) fn no_endpoint(path: &str) -> ApiError {
    ApiError::NotFound(format!("there is no endpoint at {path}; the endpoints are listed in /openapi.json"))
}

impl<'a> Matched<'a> {
    /// Whether the endpoint is for operators (`/metrics`) rather than clients.
    pub(crate) fn is_for_operators(&self) -> bool {
        OPERATORS.iter().any(|endpoint| endpoint.path == self.endpoint.path)
    }

    /// Whether the operators' own address answers the endpoint: theirs, and `/healthz` for the
    /// health checks of a load balancer, which reach it without a proxy's header.
    pub(crate) fn serves_operators(&self) -> bool {
        self.is_for_operators() || self.endpoint.path == "/healthz"
    }

    /// Checks the method and the query, then the path parameters, and gives the request its context.
    pub(crate) fn route(
        self,
        store: &'a Store,
        site: &'a dyn Documents,
        metrics: &'a Metrics,
        caller: Option<&'a Admission>,
        method: &Method,
        query: Option<&str>,
    ) -> Result<Routed<'a>, ApiError> {
        if method != Method::GET && method != Method::HEAD {
            return Err(ApiError::MethodNotAllowed { method: method.to_string() });
        }
        // The query first, then the path: a request wrong in both hears about its query.
        let query = Query::parse(query, self.endpoint.params())?;
        let params = path_params(self.endpoint, &self.bound)?;
        let ctx = Ctx { store, site, metrics, caller, path: self.path, query, params };
        Ok(Routed { endpoint: self.endpoint, index: self.index, ctx })
    }
}

/// Finds the endpoint for `path`, and checks the method and the query.
pub(crate) fn route<'a>(
    store: &'a Store,
    site: &'a dyn Documents,
    metrics: &'a Metrics,
    caller: Option<&'a Admission>,
    method: &Method,
    path: &'a str,
    query: Option<&str>,
) -> Result<Routed<'a>, ApiError> {
    find(path).ok_or_else(|| no_endpoint(path))?.route(store, site, metrics, caller, method, query)
}

/// The path parameters bound from a request, checked by `endpoint`'s rules: a malformed one is a
/// `422` naming it, before any lookup.
fn path_params(endpoint: &Endpoint, bound: &Bound<'_>) -> Result<PathParams, ApiError> {
    let mut params = PathParams::default();
    for (name, value) in bound.iter() {
        let invalid = |e: &dyn std::fmt::Display| ApiError::invalid(name, format!("{e} (given {value:?})"));
        match endpoint.path_rule(name) {
            PathRule::Version => {
                params.version = Some(VersionSelector::parse(value).map_err(|e| invalid(&e))?)
            }
            PathRule::Lang => {
                params.lang = Some(parse_lang(value).map_err(|e| invalid(&e))?);
            }
            PathRule::RecordKey => {
                params.key = Some(PathKey::Record(RecordKey::parse(value).map_err(|e| invalid(&e))?));
            }
            PathRule::ProgressionKey => {
                params.key =
                    Some(PathKey::Progression(ProgressionKey::parse(value).map_err(|e| invalid(&e))?));
            }
            PathRule::PictureHash => {
                let hash = tapster_domain::sha256_from_hex(value)
                    .ok_or_else(|| invalid(&"is 64 lowercase hexadecimal digits"))?;
                params.picture = Some(hash);
            }
            PathRule::FileName => params.file_name = Some(value.to_owned()),
        }
    }
    Ok(params)
}

/// The most `{name}` segments a template has.
pub(crate) const MAX_PATH_PARAMS: usize = 2;

/// The `{name}` segments of a path bound to a template, percent-decoded: borrowed from the path
/// unless they held escapes, so that binding allocates nothing for the paths clients send.
#[derive(Debug, Default)]
pub(crate) struct Bound<'a>([Option<(&'static str, Cow<'a, str>)>; MAX_PATH_PARAMS]);

impl Bound<'_> {
    /// Each bound `{name}` and its decoded value, in the template's order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.0.iter().flatten().map(|(name, value)| (*name, value.as_ref()))
    }
}

/// Matches `path` against a template, binding `{name}` segments (percent-decoded).
pub(crate) fn bind<'a>(template: &'static str, path: &'a str) -> Option<Bound<'a>> {
    if !template.contains('{') {
        return (path == template).then(Bound::default);
    }
    let mut bound = Bound::default();
    let mut filled = 0;
    let mut segments = path.split('/');
    for part in template.split('/') {
        let segment = segments.next()?;
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) => {
                *bound.0.get_mut(filled)? = Some((name, percent_decode(segment)?));
                filled += 1;
            }
            None if part == segment => {}
            None => return None,
        }
    }
    segments.next().is_none().then_some(bound)
}

/// Decodes `%XX` escapes of a path segment; `None` for a broken escape or bytes that are not UTF-8.
pub(crate) fn percent_decode(segment: &str) -> Option<Cow<'_, str>> {
    if !segment.contains('%') {
        return Some(Cow::Borrowed(segment));
    }
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
    String::from_utf8(out).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A site whose documents no test here asks for.
    #[derive(Debug)]
    struct NoDocuments;

    impl Documents for NoDocuments {
        fn origin(&self) -> &str {
            ""
        }

        fn openapi(&self, _: &Store, _: &Metrics) -> bytes::Bytes {
            unreachable!("no route of these tests serves the document")
        }

        fn reference(
            &self,
            _: &Store,
            _: &Metrics,
        ) -> Result<std::sync::Arc<crate::response::Page>, ApiError> {
            unreachable!("no route of these tests serves the reference")
        }

        fn changelog(
            &self,
            _: &dyn Fn() -> Result<crate::response::Page, ApiError>,
        ) -> Result<std::sync::Arc<crate::response::Page>, ApiError> {
            unreachable!("no route of these tests serves the changelog page")
        }

        fn icons(
            &self,
            _: &Store,
            _: &tapster_store::Catalog,
        ) -> Result<std::sync::Arc<crate::routes::IconsArchive>, ApiError> {
            unreachable!("no route of these tests serves the pictures' archive")
        }
    }

    /// A store of the small hand-written dataset.
    fn mini_store() -> Store {
        Store::open(tapster_test_support::DataDir::mini().path()).unwrap()
    }

    #[test]
    fn the_cache_key_is_a_target_that_asks_for_the_same_request() {
        let store = mini_store();
        let site = NoDocuments;
        let metrics = Metrics::new(endpoints().map(|e| e.path));
        let key_of = |target: &str| {
            let (path, query) = target.split_once('?').map_or((target, None), |(p, q)| (p, Some(q)));
            route(&store, &site, &metrics, None, &Method::GET, path, query).unwrap().cache_key()
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

    /// Comparing literal starts first finds what binding every template in turn finds.
    #[test]
    fn the_literal_starts_change_nothing_found() {
        let mut paths: Vec<String> = endpoints()
            .map(|e| {
                e.path.replace("{version}", "latest").replace("{lang}", "de").replace("{key}", "pale-ale")
            })
            .map(|path| path.replace("{sha256}", &"a".repeat(64)).replace("{name}", "x.png"))
            .collect();
        paths.extend(
            ["/", "/v1", "/v1/", "/v1/items/", "/v1/items/a/b", "/assets/x", "/docs/", "/v2/items"]
                .map(String::from),
        );
        for path in &paths {
            let slow = endpoints().position(|endpoint| bind(endpoint.path, path).is_some());
            assert_eq!(find(path).map(|matched| matched.index), slow, "{path}");
        }
    }

    #[test]
    fn templates_bind_decoded_segments() {
        let bound = bind("/v1/quests/{key}", "/v1/quests/Marta%27s%20Letter").unwrap();
        assert_eq!(bound.iter().collect::<Vec<_>>(), [("key", "Marta's Letter")]);
        let unbound = |path| bind("/v1/quests/{key}", path).is_none();
        assert!(unbound("/v1/quests"));
        assert!(unbound("/v1/perks/x"));
        assert!(unbound("/v1/quests/%zz"));
        assert!(unbound("/v1/quests/%ff"));
        assert!(unbound("/v1/quests/%+1"));
        assert!(unbound("/v1/quests/x/y"));
    }

    /// A segment without escapes is bound as a slice of the path, not a copy.
    #[test]
    fn plain_segments_are_borrowed() {
        let bound = bind("/v1/items/{key}", "/v1/items/pale-ale").unwrap();
        assert!(matches!(bound.0[0], Some((_, Cow::Borrowed("pale-ale")))));
    }

    #[test]
    fn no_template_has_more_path_parameters_than_a_binding_holds() {
        for endpoint in endpoints() {
            assert!(endpoint.path.matches('{').count() <= MAX_PATH_PARAMS, "{}", endpoint.path);
        }
    }
}
