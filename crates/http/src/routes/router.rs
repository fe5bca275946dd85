//! Matching a request to its endpoint: the path against the table's templates (binding and
//! percent-decoding the `{name}` segments), the method, and the query against the endpoint's
//! declared parameters; and the canonical form of a matched request, under which its answer is cached.

use std::fmt::Write as _;

use hyper::Method;
use tapster_store::Store;

use tapster_domain::{ProgressionKey, RecordKey, VersionSelector};

use super::ctx::{PathKey, PathParams};
use super::{Ctx, Endpoint, PathRule, endpoints};
use crate::error::ApiError;
use crate::params::Query;
use crate::response::Reply;
use crate::site::Site;

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
    // The query first, then the path: a request wrong in both hears about its query.
    let query = Query::parse(query, endpoint.params)?;
    let params = path_params(endpoint, bound)?;
    let ctx = Ctx { store, site, path, query, params };
    Ok(Routed { endpoint, index, ctx })
}

/// The path parameters bound from a request, checked by `endpoint`'s rules: a malformed one is a
/// `422` naming it, before any lookup.
fn path_params(endpoint: &Endpoint, bound: Vec<(&'static str, String)>) -> Result<PathParams, ApiError> {
    let mut params = PathParams::default();
    for (name, value) in bound {
        let invalid = |e: &dyn std::fmt::Display| ApiError::invalid(name, format!("{e} (given {value:?})"));
        match endpoint.path_rule(name) {
            PathRule::Version => {
                params.version = Some(VersionSelector::parse(&value).map_err(|e| invalid(&e))?)
            }
            PathRule::RecordKey => {
                params.key = Some(PathKey::Record(RecordKey::parse(&value).map_err(|e| invalid(&e))?));
            }
            PathRule::ProgressionKey => {
                params.key =
                    Some(PathKey::Progression(ProgressionKey::parse(&value).map_err(|e| invalid(&e))?));
            }
        }
    }
    Ok(params)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A store of the small hand-written dataset.
    fn mini_store() -> Store {
        Store::open(tapster_test_support::DataDir::mini().path()).unwrap()
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
