//! The path of every request: public routes answer directly; `/v1` requests pass the gate (key,
//! address, rate limits) first, and their answers carry the rate-limit and caching headers, or become
//! `304` when the client already holds them.
//!
//! Every request is counted in the [`Metrics`] served at `GET /metrics` and leaves one `info` event
//! (target `tapster::request`) with its route, status, duration and the key's public prefix, never
//! the key or the query.
//!
//! The game data an `App` answers from can be replaced while it serves ([`App::publish`]): each
//! request reads one published data set from start to end, together with the response cache made
//! from that set alone, so no request ever mixes two sets and no answer outlives the data it came from.

mod pages;

use std::net::IpAddr;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use bytes::Bytes;
use hyper::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LANGUAGE, CONTENT_LENGTH,
    CONTENT_RANGE, CONTENT_TYPE, ETAG, HeaderMap, HeaderName, HeaderValue, ORIGIN, VARY,
};
use hyper::{Method, Request, Response, StatusCode};
use tapster_store::Store;

use crate::cache::{Headers, Rendered, ResponseCache};
use crate::conditional::{Wanted, accepts_gzip, byte_range, none_match};
use crate::error::ApiError;
use crate::gate::{Admission, CallingKey, Credentials, Gate, PendingVerdict, Quota, Refusal, Verdict};
use crate::metrics::{Dependency, Lookup, Metrics, Route};
use crate::response::{Body, File, Kind, LATEST_MAX_AGE, Reply};
use crate::routes::{Matched, endpoints, find, no_endpoint};
use crate::site::Site;

use pages::{PageWaiting, visited};
pub use pages::{Pages, PendingVisit, Visit, Visitor};

/// The IETF RateLimit header fields draft's: a key's policies, and where it stands in the nearest.
const RATE_LIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATE_LIMIT: HeaderName = HeaderName::from_static("ratelimit");

/// The response cache's memory budget unless told otherwise.
pub const DEFAULT_CACHE_BUDGET: usize = 64 * 1024 * 1024;

/// Everything a request may read: the published game data with the answers already rendered from
/// it, and the gate that admits `/v1` requests.
#[derive(Debug)]
pub struct App {
    published: RwLock<Arc<Published>>,
    gate: Box<dyn Gate>,
    cache_budget: usize,
    metrics: Metrics,
    /// The pages served beside the API, if any.
    pages: Option<Arc<dyn Pages>>,
    /// The address clients reach the service at, if the embedder named it.
    public_url: Option<String>,
    /// Whether `/metrics` is answered beside the API; otherwise only on the operators' port
    /// ([`App::operators`]).
    public_metrics: bool,
}

/// What the request's log event and the metrics say about it, noted while it is answered.
#[derive(Debug)]
pub(crate) struct Noted {
    route: Route,
    lookup: Lookup,
    key: Option<Arc<CallingKey>>,
}

/// Where a request stands once its gate has been asked.
enum Gated {
    Answered(Reply),
    Waiting(PendingVerdict),
}

/// A request answered at once, or waiting for its gate, or (one of the API's pages) for the pages
/// to say who asks for it. A page, answered now or later, is told apart from the API's data, which
/// alone gets CORS headers.
pub(crate) enum Responding {
    Now(Response<Body>),
    Waiting(Waiting),
    Page(Response<Body>),
    Visiting(PendingVisit, PageWaiting),
}

/// A request waiting for its gate's verdict, with what was noted of it so far.
pub(crate) struct Waiting {
    pub(crate) verdict: PendingVerdict,
    pub(crate) noted: Noted,
    pub(crate) started: Instant,
}

/// One game-data set, the cache of answers rendered from it, and the documents written for it (the
/// OpenAPI document's examples are its answers): they are replaced together.
#[derive(Debug)]
struct Published {
    store: Store,
    cache: ResponseCache,
    site: Site,
}

impl Published {
    fn new(store: Store, cache_budget: usize, public_url: Option<&str>) -> Self {
        Self { store, cache: ResponseCache::new(cache_budget), site: Site::new(public_url) }
    }
}

impl App {
    pub fn new(store: Store, gate: impl Gate) -> Self {
        Self {
            published: RwLock::new(Arc::new(Published::new(store, DEFAULT_CACHE_BUDGET, None))),
            gate: Box::new(gate),
            cache_budget: DEFAULT_CACHE_BUDGET,
            metrics: Metrics::new(endpoints().map(|endpoint| endpoint.path)),
            pages: None,
            public_url: None,
            public_metrics: true,
        }
    }

    /// Answers `/metrics` only on the operators' port ([`App::operators`]), served on an address
    /// of its own: beside the API it is then `404`, as any path without an endpoint.
    pub fn with_metrics_apart(mut self) -> Self {
        self.public_metrics = false;
        self
    }

    /// Names `origin` (`https://api.example.com`), the address clients reach the service at, as the
    /// OpenAPI document's server and in the changelog feed's links. Without it they are relative,
    /// which works from wherever the service is reached.
    pub fn with_public_url(mut self, origin: &str) -> Self {
        self.public_url = Some(origin.to_owned());
        self.publish(self.store());
        self
    }

    /// Reports on a store the service depends on, named `name`, in `/healthz` (`degraded` while
    /// `trouble` says why) and in `/metrics` (`tapster_dependency_up`).
    pub fn with_dependency(
        mut self,
        name: &'static str,
        trouble: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.metrics.depend_on(Dependency { name, trouble: Box::new(trouble) });
        self
    }

    /// Says in `/healthz` and `/metrics` which generation of published game data is served, and its
    /// SHA-256, as `served` tells it (when the server follows the published generations).
    pub fn with_generation(
        mut self,
        served: impl Fn() -> Option<(i64, String)> + Send + Sync + 'static,
    ) -> Self {
        self.metrics.serve_generation(Box::new(served));
        self
    }

    /// Serves `pages` beside the API, on the paths they claim.
    pub fn with_pages(mut self, pages: impl Pages) -> Self {
        self.pages = Some(Arc::new(pages));
        self
    }

    pub(crate) fn pages(&self) -> Option<&Arc<dyn Pages>> {
        self.pages.as_ref()
    }

    /// Whether the API answers `path`: anything under `/v1`, `/metrics` and the public routes.
    pub(crate) fn owns(path: &str) -> bool {
        path == "/v1" || path.starts_with("/v1/") || find(path).is_some()
    }

    /// Sets the response cache's memory budget in bytes; 0 renders every answer afresh.
    pub fn with_cache_budget(mut self, bytes: usize) -> Self {
        self.cache_budget = bytes;
        let store = self.store();
        self.publish(store);
        self
    }

    /// The game data being served now.
    pub fn store(&self) -> Store {
        self.current().store.clone()
    }

    /// Serves `store` from now on, with an empty response cache. Requests already under way finish
    /// on the data they started with.
    pub fn publish(&self, store: Store) {
        let published = Arc::new(Published::new(store, self.cache_budget, self.public_url.as_deref()));
        *self.published.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = published;
    }

    fn current(&self) -> Arc<Published> {
        Arc::clone(&self.published.read().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// Answers one request from `peer`, whole. Public so that the service can be embedded or
    /// measured without a socket; with a gate that decides at once, the future is ready when first
    /// polled.
    pub async fn handle<B>(&self, request: &Request<B>, peer: IpAddr) -> Response<Body> {
        match self.respond(request, peer) {
            Responding::Now(response) | Responding::Page(response) => response,
            Responding::Waiting(waiting) => {
                let Waiting { verdict, noted, started } = waiting;
                self.resume(request, peer, verdict.await, noted, started)
            }
            Responding::Visiting(visit, waiting) => self.answer_visited(request, peer, waiting, visit.await),
        }
    }

    /// Answers a request at once when it can: answers come from memory in microseconds, so they are
    /// made on the runtime's threads. Only a gate that decides later leaves the request waiting.
    pub(crate) fn respond<B>(&self, request: &Request<B>, peer: IpAddr) -> Responding {
        let started = Instant::now();
        let mut noted = Noted { route: self.metrics.unmatched(), lookup: Lookup::Bypass, key: None };
        let reply = match self.reply(request, peer, &mut noted) {
            Gated::Answered(reply) => reply,
            Gated::Waiting(verdict) => return Responding::Waiting(Waiting { verdict, noted, started }),
        };
        let Kind::Page(page) = &reply.kind else {
            self.observe(request.method(), request.uri().path(), peer, reply.status, started, &noted);
            return Responding::Now(reply.into_response());
        };
        let page = Arc::clone(page);
        let reply = match self.pages().map(|pages| pages.visit(request.headers(), page.path, peer)) {
            Some(Visitor::Now(visit)) => visited(request, reply.headers, &page, visit, true),
            Some(Visitor::Later(visit)) => {
                let waiting = PageWaiting { page, headers: reply.headers, noted, started };
                return Responding::Visiting(visit, waiting);
            }
            None => visited(request, reply.headers, &page, Visit::SIGNED_OUT, false),
        };
        self.observe(request.method(), request.uri().path(), peer, reply.status, started, &noted);
        Responding::Page(reply.into_response())
    }

    /// Answers a request that waited for its gate's `verdict`.
    pub(crate) fn resume<B>(
        &self,
        request: &Request<B>,
        peer: IpAddr,
        verdict: Result<Admission, Refusal>,
        mut noted: Noted,
        started: Instant,
    ) -> Response<Body> {
        let reply = self.admitted(request, verdict, &mut noted);
        self.observe(request.method(), request.uri().path(), peer, reply.status, started, &noted);
        reply.into_response()
    }

    /// Answers `GET target` (a path and query under `/v1`) with the gate's `verdict` already made
    /// for it, as the dashboard's API console calls it for a signed-in person's key (which it holds
    /// only as a hash): the same routes, cache, headers, metrics and log as a request from `peer`.
    pub fn answer_as(
        &self,
        target: &str,
        peer: IpAddr,
        verdict: Result<Admission, Refusal>,
    ) -> Response<Body> {
        let started = Instant::now();
        let request = match Request::get(target).body(()) {
            Ok(request) => request,
            Err(_) => {
                let error = ApiError::invalid("target", "is not a path and query");
                return failed(&error, target).into_response();
            }
        };
        let mut noted = Noted { route: self.metrics.unmatched(), lookup: Lookup::Bypass, key: None };
        let reply = self.admitted(&request, verdict, &mut noted);
        self.observe(request.method(), request.uri().path(), peer, reply.status, started, &noted);
        reply.into_response()
    }

    /// Counts and logs a request answered before it was routed (a limit of the edge, a CORS
    /// preflight), so that `/metrics` and the log see every request.
    pub(crate) fn answered_unrouted<B>(
        &self,
        request: &Request<B>,
        peer: IpAddr,
        status: StatusCode,
        started: Instant,
    ) {
        let noted = Noted { route: self.route_of(request.uri().path()), lookup: Lookup::Bypass, key: None };
        self.observe(request.method(), request.uri().path(), peer, status, started, &noted);
    }

    /// Counts and logs a request the pages answered.
    pub(crate) fn answered_page(
        &self,
        method: &Method,
        path: &str,
        peer: IpAddr,
        status: StatusCode,
        started: Instant,
    ) {
        let noted = Noted { route: self.metrics.pages_route(), lookup: Lookup::Bypass, key: None };
        self.observe(method, path, peer, status, started, &noted);
    }

    fn observe(
        &self,
        method: &Method,
        path: &str,
        peer: IpAddr,
        status: StatusCode,
        started: Instant,
        noted: &Noted,
    ) {
        let elapsed = started.elapsed();
        self.metrics.record(noted.route, status, elapsed);
        tracing::info!(
            target: "tapster::request",
            method = %method,
            path,
            route = self.metrics.label(noted.route),
            status = status.as_u16(),
            duration_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            key_prefix = noted.key.as_ref().map_or("", |key| key.prefix.as_str()),
            peer = %peer,
            cached = noted.lookup == Lookup::Hit,
            "request"
        );
    }

    /// The answer to a request, unless its gate decides later.
    fn reply<B>(&self, request: &Request<B>, peer: IpAddr, noted: &mut Noted) -> Gated {
        let uri = request.uri();
        let path = uri.path();
        if !path.starts_with("/v1/") && path != "/v1" {
            let matched = find(path).filter(|matched| self.public_metrics || !matched.is_for_operators());
            return Gated::Answered(self.answer_keyless(request, matched, || no_endpoint(path), noted));
        }
        let headers = request.headers();
        // A browser always sends its page's origin as text; bytes that are not are no origin a key allows.
        let origin = headers.get(ORIGIN).map(|origin| origin.to_str().unwrap_or("\u{fffd}"));
        match self.gate.admit(peer, &Credentials::from_headers(headers), origin) {
            Verdict::Now(verdict) => Gated::Answered(self.admitted(request, verdict, noted)),
            Verdict::Later(verdict) => Gated::Waiting(verdict),
        }
    }

    /// The answer to a `/v1` request once its gate has decided.
    fn admitted<B>(
        &self,
        request: &Request<B>,
        verdict: Result<Admission, Refusal>,
        noted: &mut Noted,
    ) -> Reply {
        let uri = request.uri();
        let path = uri.path();
        let admission = match verdict {
            Ok(admission) => admission,
            Err(refusal) => {
                self.metrics.refused(&refusal);
                noted.route = self.route_of(path);
                return refused(&refusal, path);
            }
        };
        noted.key = Some(Arc::clone(&admission.key));
        let published = self.current();
        let target = uri.path_and_query().map_or(path, |target| target.as_str());
        let (endpoint, rendered) =
            published.rendered(&self.metrics, &admission, request.method(), target, path, uri.query());
        noted.route = endpoint.map_or(self.metrics.unmatched(), |index| self.metrics.endpoint(index));
        let mut response = match rendered {
            Ok(Answer::Rendered(rendered, lookup)) => {
                noted.lookup = lookup;
                self.metrics.lookup(lookup);
                data_reply(request, &rendered)
            }
            Ok(Answer::File(headers, file)) => {
                file_reply(request, headers, file).unwrap_or_else(|error| failed(&error, path))
            }
            Err(error) => failed(&error, path),
        };
        rate_limit_headers(&mut response, &admission.quota);
        if let Some(origin) = admission.allowed_origin {
            // A browser key's answer is for the page it allows, and differs by the page that asks.
            response.headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            response.headers.insert(VARY, HeaderValue::from_static("Authorization, Accept-Encoding, Origin"));
        }
        response
    }

    /// The answer of the operators' port: `/metrics`, counted and logged as it is beside the API;
    /// every other path is `404`.
    pub(crate) fn answer_operators<B>(&self, request: &Request<B>, peer: IpAddr) -> Response<Body> {
        let started = Instant::now();
        let path = request.uri().path();
        let matched = find(path).filter(Matched::serves_operators);
        let missing =
            || ApiError::NotFound(format!("this address serves only /metrics and /healthz, not {path}"));
        let mut noted = Noted { route: self.metrics.unmatched(), lookup: Lookup::Bypass, key: None };
        let reply = self.answer_keyless(request, matched, missing, &mut noted);
        self.observe(request.method(), path, peer, reply.status, started, &noted);
        reply.into_response()
    }

    /// The answer of a route that takes no key (`matched`, or the error `missing` makes when there is
    /// none), from the published data, with its route noted.
    fn answer_keyless<B>(
        &self,
        request: &Request<B>,
        matched: Option<Matched<'_>>,
        missing: impl FnOnce() -> ApiError,
        noted: &mut Noted,
    ) -> Reply {
        let published = self.current();
        noted.route = matched.as_ref().map_or(self.metrics.unmatched(), |m| self.metrics.endpoint(m.index));
        let (store, site, method, query) =
            (&published.store, &published.site, request.method(), request.uri().query());
        let answer = matched
            .ok_or_else(missing)
            .and_then(|matched| matched.route(store, site, &self.metrics, None, method, query)?.answer())
            .and_then(|reply| match reply.kind {
                Kind::File(file) => file_reply(request, reply.headers, file),
                Kind::Data | Kind::Private | Kind::Page(_) => Ok(reply),
            });
        answer.unwrap_or_else(|error| failed(&error, request.uri().path()))
    }

    /// The route label of a request refused before it was routed: its endpoint's template when the
    /// path matches one, else the label all unknown paths share.
    fn route_of(&self, path: &str) -> Route {
        find(path).map_or(self.metrics.unmatched(), |matched| self.metrics.endpoint(matched.index))
    }
}

impl Published {
    /// The rendered answer to a `/v1` request: from the cache when it holds it (asked first by the
    /// request target as it came, then by the canonical form of the request), else rendered now (and
    /// kept); with whether the cache answered, and the endpoint's position in the table when the path
    /// matched one. The table is matched at most once, and not at all for a hit by target.
    fn rendered(
        &self,
        metrics: &Metrics,
        caller: &Admission,
        method: &Method,
        target: &str,
        path: &str,
        query: Option<&str>,
    ) -> (Option<usize>, Result<Answer, ApiError>) {
        // Only reads are cached; any other method is routed to its `405`.
        if self.cache.enabled()
            && matches!(*method, Method::GET | Method::HEAD)
            && let Some(hit) = self.cache.get(target)
        {
            return (Some(hit.endpoint), Ok(Answer::Rendered(hit, Lookup::Hit)));
        }
        let Some(matched) = find(path) else { return (None, Err(no_endpoint(path))) };
        let index = matched.index;
        (Some(index), self.render(matched, metrics, caller, method, query))
    }

    /// Routes a matched request and renders its answer, unless the cache holds it under its
    /// canonical form. A private answer (one about the caller, as `/v1/key`) is never kept: it was
    /// never put under a request target either, so no other caller is ever answered it. Nor is a
    /// file, which is already kept whole where it comes from (an export in the store, the icons
    /// archive in the site).
    fn render(
        &self,
        matched: Matched<'_>,
        metrics: &Metrics,
        caller: &Admission,
        method: &Method,
        query: Option<&str>,
    ) -> Result<Answer, ApiError> {
        let routed = matched.route(&self.store, &self.site, metrics, Some(caller), method, query)?;
        let key = self.cache.enabled().then(|| routed.cache_key());
        if let Some(hit) = key.as_deref().and_then(|key| self.cache.get(key)) {
            return Ok(Answer::Rendered(hit, Lookup::Hit));
        }
        let Reply { headers, body, kind, .. } = routed.answer()?;
        let key = match kind {
            Kind::File(file) => return Ok(Answer::File(headers, file)),
            // A page is made per visitor (and none is under `/v1`).
            Kind::Private | Kind::Page(_) => None,
            Kind::Data => key,
        };
        let content_type =
            headers.get(CONTENT_TYPE).cloned().unwrap_or(HeaderValue::from_static("application/json"));
        let content_language = headers.get(CONTENT_LANGUAGE).cloned();
        let cache_control =
            headers.get(CACHE_CONTROL).cloned().unwrap_or(HeaderValue::from_static(LATEST_MAX_AGE));
        let rendered = Arc::new(Rendered::new(
            routed.index(),
            Headers { content_type, content_language, cache_control },
            body,
        ));
        let Some(key) = key else { return Ok(Answer::Rendered(rendered, Lookup::Bypass)) };
        self.cache.insert(&key, Arc::clone(&rendered));
        Ok(Answer::Rendered(rendered, Lookup::Miss))
    }
}

/// What a `/v1` route answered: a rendered answer, cached or not, or a file (with its headers) to
/// serve in part or whole.
enum Answer {
    Rendered(Arc<Rendered>, Lookup),
    File(HeaderMap, File),
}

/// A file answer (an export, the icons archive, a picture), as the request's conditional headers and
/// `Range` ask: `304` when the
/// client holds it, `206` with the bytes a `GET` asked for (RFC 9110 serves ranges to `GET` only),
/// `416` for a range past its end, else all of it. Only the bytes sent are read.
fn file_reply<B>(request: &Request<B>, mut headers: HeaderMap, file: File) -> Result<Reply, ApiError> {
    let File { tag, size, read } = file;
    if none_match(request.headers(), &tag) {
        let mut held = HeaderMap::with_capacity(6);
        for name in [ETAG, CACHE_CONTROL] {
            if let Some(value) = headers.remove(&name) {
                held.insert(name, value);
            }
        }
        return Ok(Reply::new(StatusCode::NOT_MODIFIED, held, Bytes::new()));
    }
    if request.method() == Method::HEAD {
        // The whole file's length, without reading it; hyper keeps it for a `HEAD`'s empty body.
        headers.insert(CONTENT_LENGTH, HeaderValue::from(size));
        return Ok(Reply::new(StatusCode::OK, headers, Bytes::new()));
    }
    // Only a `GET` is left: the routes answer any other method `405`.
    match byte_range(request.headers(), size, &tag) {
        Wanted::Whole => Ok(Reply::new(StatusCode::OK, headers, read(0..size)?)),
        Wanted::Part(range) => {
            // Digits only: always a valid header.
            let content_range = format!("bytes {}-{}/{size}", range.start, range.end - 1);
            if let Ok(value) = HeaderValue::try_from(content_range) {
                headers.insert(CONTENT_RANGE, value);
            }
            Ok(Reply::new(StatusCode::PARTIAL_CONTENT, headers, read(range)?))
        }
        Wanted::PastTheEnd => Err(ApiError::RangeNotSatisfiable { size }),
    }
}

/// A `200` data answer in the encoding the client takes, or `304` when it already holds it.
fn data_reply<B>(request: &Request<B>, rendered: &Rendered) -> Reply {
    let zipped = if accepts_gzip(request.headers()) { rendered.gzip() } else { None };
    let (body, tag, gzipped) = match zipped {
        Some((zipped, tag)) => (zipped.clone(), tag, true),
        None => (rendered.body.clone(), &rendered.etag, false),
    };
    // Room for every header an answer gets (these, the rate-limit ones, `Vary` and CORS) without
    // growing the map halfway.
    let mut headers = HeaderMap::with_capacity(11);
    headers.insert(ETAG, tag.header.clone());
    headers.insert(CACHE_CONTROL, rendered.headers.cache_control.clone());
    if none_match(request.headers(), &tag.text) && matches!(*request.method(), Method::GET | Method::HEAD) {
        return Reply::new(StatusCode::NOT_MODIFIED, headers, Bytes::new());
    }
    headers.insert(CONTENT_TYPE, rendered.headers.content_type.clone());
    if let Some(languages) = &rendered.headers.content_language {
        headers.insert(CONTENT_LANGUAGE, languages.clone());
    }
    if gzipped {
        headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    Reply::new(StatusCode::OK, headers, body)
}

/// The problem+json answer for `error`; an internal cause goes to the log only.
fn failed(error: &ApiError, path: &str) -> Reply {
    if let ApiError::Internal(cause) = error {
        log_internal(path, cause.as_ref());
    }
    Reply::problem(error, path)
}

/// The answer to a request the gate refused; a rate-limited one also says where the key stands.
fn refused(refusal: &Refusal, path: &str) -> Reply {
    let mut response = Reply::problem(&ApiError::from(refusal), path);
    if let Refusal::RateLimited { quota, .. } = refusal {
        rate_limit_headers(&mut response, quota);
    }
    response.headers.insert(VARY, HeaderValue::from_static("Authorization, Accept-Encoding"));
    response
}

fn rate_limit_headers(response: &mut Reply, quota: &Quota) {
    let headers = &mut response.headers;
    headers.insert(RATE_LIMIT_POLICY, quota.policies.header().clone());
    if let Some(state) = quota.state_header() {
        headers.insert(RATE_LIMIT, state);
    }
    headers.insert(VARY, HeaderValue::from_static("Authorization, Accept-Encoding"));
}

fn log_internal(path: &str, cause: &dyn std::error::Error) {
    tracing::error!(path, cause = %cause, "failed to answer");
}
