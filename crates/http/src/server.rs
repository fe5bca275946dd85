//! Accepting connections, and the path of every request: public routes answer directly; `/v1`
//! requests pass the gate (key, address, rate limits) first, and their answers carry the rate-limit
//! and caching headers, or become `304` when the client already holds them.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER,
    VARY, WWW_AUTHENTICATE,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tapster_store::Store;
use tokio::net::TcpListener;

use crate::cache::{Rendered, ResponseCache};
use crate::conditional::{accepts_gzip, none_match};
use crate::error::ApiError;
use crate::gate::{Credentials, Gate, Quota, Refusal};
use crate::response::{Body, Reply, problem};
use crate::routes::route;

/// How long clients may reuse an answer before revalidating it with its `ETag`.
const MAX_AGE: &str = "private, max-age=300";
const RATE_LIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATE_LIMIT: HeaderName = HeaderName::from_static("ratelimit");

/// The response cache's memory budget unless told otherwise.
pub const DEFAULT_CACHE_BUDGET: usize = 64 * 1024 * 1024;

/// Everything a request may read: the game-data store, the gate that admits `/v1` requests, and the
/// cache of answers already rendered from this store.
#[derive(Debug)]
pub struct App {
    pub(crate) store: Store,
    gate: Box<dyn Gate>,
    cache: ResponseCache,
}

impl App {
    pub fn new(store: Store, gate: impl Gate) -> Self {
        Self { store, gate: Box::new(gate), cache: ResponseCache::new(DEFAULT_CACHE_BUDGET) }
    }

    /// Sets the response cache's memory budget in bytes; 0 renders every answer afresh.
    pub fn with_cache_budget(mut self, bytes: usize) -> Self {
        self.cache = ResponseCache::new(bytes);
        self
    }

    /// Answers one request from `peer`, whole. Answers come from memory in microseconds, so they are
    /// made on the runtime's threads. Public so that the service can be embedded or measured without
    /// a socket.
    pub fn handle<B>(&self, request: &Request<B>, peer: IpAddr) -> Response<Body> {
        self.reply(request, peer).into_response()
    }

    fn reply<B>(&self, request: &Request<B>, peer: IpAddr) -> Reply {
        let uri = request.uri();
        let path = uri.path();
        if !path.starts_with("/v1/") && path != "/v1" {
            let answer = route(self, request.method(), path, uri.query()).and_then(|routed| routed.answer());
            return answer.unwrap_or_else(|error| failed(&error, path));
        }
        let credentials = Credentials::from_headers(request.headers());
        let admission = match self.gate.admit(peer, &credentials) {
            Ok(admission) => admission,
            Err(refusal) => return refused(&refusal, path),
        };
        let mut response = match self.rendered(request.method(), path, uri.query()) {
            Ok(rendered) => data_reply(request, &rendered),
            Err(error) => failed(&error, path),
        };
        rate_limit_headers(&mut response, &admission.quota);
        response
    }

    /// The rendered answer to a `/v1` request: from the cache when it holds it, else rendered now
    /// (and kept, when the request has a canonical form).
    fn rendered(&self, method: &Method, path: &str, query: Option<&str>) -> Result<Arc<Rendered>, ApiError> {
        let routed = route(self, method, path, query)?;
        let key = if self.cache.enabled() { routed.cache_key() } else { None };
        if let Some(hit) = key.as_deref().and_then(|key| self.cache.get(key)) {
            return Ok(hit);
        }
        let reply = routed.answer()?;
        let content_type =
            reply.headers.get(CONTENT_TYPE).cloned().unwrap_or(HeaderValue::from_static("application/json"));
        let rendered = Arc::new(Rendered::new(content_type, reply.body));
        if let Some(key) = key {
            self.cache.insert(&key, Arc::clone(&rendered));
        }
        Ok(rendered)
    }
}

/// A `200` data answer in the encoding the client takes, or `304` when it already holds it.
fn data_reply<B>(request: &Request<B>, rendered: &Rendered) -> Reply {
    let zipped = if accepts_gzip(request.headers()) { rendered.gzip() } else { None };
    let (body, tag, gzipped) = match zipped {
        Some((zipped, tag)) => (zipped.clone(), tag.as_str(), true),
        None => (rendered.body.clone(), rendered.etag.as_str(), false),
    };
    let mut headers = HeaderMap::new();
    headers.insert(ETAG, header(tag));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(MAX_AGE));
    if none_match(request.headers(), tag) && matches!(*request.method(), Method::GET | Method::HEAD) {
        return Reply { status: StatusCode::NOT_MODIFIED, headers, body: Bytes::new() };
    }
    headers.insert(CONTENT_TYPE, rendered.content_type.clone());
    if gzipped {
        headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    Reply { status: StatusCode::OK, headers, body }
}

/// The problem+json answer for `error`; an internal cause goes to the log only.
fn failed(error: &ApiError, path: &str) -> Reply {
    if let ApiError::Internal(cause) = error {
        log_internal(path, cause.as_ref());
    }
    problem(error, path)
}

fn refused(refusal: &Refusal, path: &str) -> Reply {
    let mut response = problem(&ApiError::from(refusal), path);
    let headers = &mut response.headers;
    match refusal {
        Refusal::RateLimited { quota, retry_after } => {
            headers.insert(RETRY_AFTER, HeaderValue::from(*retry_after));
            rate_limit_headers(&mut response, quota);
        }
        Refusal::MissingKey => {
            headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"tapster\""));
        }
        Refusal::MalformedKey { .. } | Refusal::UnknownKey | Refusal::RevokedKey => {
            headers.insert(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"tapster\", error=\"invalid_token\""),
            );
        }
        _ => {}
    }
    response.headers.insert(VARY, HeaderValue::from_static("Authorization, Accept-Encoding"));
    response
}

fn rate_limit_headers(response: &mut Reply, quota: &Quota) {
    let headers = &mut response.headers;
    headers.insert(RATE_LIMIT_POLICY, header(&quota.policy_header()));
    if let Some(state) = quota.state_header() {
        headers.insert(RATE_LIMIT, header(&state));
    }
    headers.insert(VARY, HeaderValue::from_static("Authorization, Accept-Encoding"));
}

/// Header values built here are ASCII by construction (quoted hex, policy names, numbers).
fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[allow(clippy::print_stderr, reason = "structured logging arrives with the hardening issue")]
fn log_internal(path: &str, cause: &dyn std::error::Error) {
    eprintln!("error: {path}: {cause}");
}

/// Serves `app` on `listener` until `shutdown` completes, then lets requests in flight finish
/// (for at most `grace`).
pub async fn serve(
    listener: TcpListener,
    app: App,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    // Out of descriptors or a connection reset before accept: wait a little and go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let app = Arc::clone(&app);
                let peer: SocketAddr = peer;
                let service = service_fn(move |request: Request<Incoming>| {
                    let response = app.handle(&request, peer.ip());
                    async move { Ok::<_, Infallible>(response) }
                });
                let connection = graceful.watch(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
                tokio::spawn(connection);
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
    Ok(())
}
