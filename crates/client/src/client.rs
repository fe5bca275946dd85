//! The client: one key against one Tapster server, over HTTP or HTTPS (rustls, the web's root
//! certificates). Every call is a `GET` whose answer is read whole; on the way it revalidates what it
//! holds (`If-None-Match`, when the ETag cache is on), waits out a `429` for as long as it is allowed,
//! turns problem+json into [`Error::Api`], and keeps the `RateLimit` state the answer reported.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header::{
    AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderValue, IF_NONE_MATCH, IF_RANGE, RANGE,
    RETRY_AFTER, USER_AGENT,
};
use hyper::{Request, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;
use tapster_wire::{Envelope, Meta, Pagination, Problem};

use crate::error::{Error, Result};
use crate::rate_limit::RateLimit;

/// How long the client waits out `429`s of one call unless told otherwise.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(30);
/// How long one request may take unless told otherwise: enough for an export over a slow line.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Answers larger than this are refused rather than read into memory (an export of the bundled data
/// is a few hundred kilobytes).
const MAX_ANSWER_BYTES: usize = 256 * 1024 * 1024;

/// A client of one Tapster server with one API key. Cloning it is cheap and shares its connections,
/// its ETag cache and its rate-limit state.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    /// `https://api.example.org`, without a trailing slash.
    base: String,
    authorization: HeaderValue,
    user_agent: HeaderValue,
    /// Bodies by request target, with their ETag, when the cache is on.
    cache: Option<Mutex<HashMap<String, (HeaderValue, Bytes)>>>,
    max_wait: Duration,
    timeout: Duration,
    rate_limit: Mutex<Option<RateLimit>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Client").field("base", &self.inner.base).finish_non_exhaustive()
    }
}

/// How to set a [`Client`] up: [`Client::builder`].
#[derive(Debug)]
pub struct ClientBuilder {
    base: String,
    key: String,
    user_agent: String,
    etag_cache: bool,
    max_wait: Duration,
    timeout: Duration,
}

impl ClientBuilder {
    /// How long one request may take, from sending it to its whole answer; [`DEFAULT_TIMEOUT`] by
    /// default. Past it the call fails with [`Error::Transport`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Keeps every JSON answer with its ETag and revalidates it with `If-None-Match` when it is asked
    /// for again: a `304` costs the server almost nothing (it still counts toward the limits), and the
    /// answer is read from memory. Answers marked `no-store` (`/v1/key`) and export files are not kept.
    /// Off by default; memory grows with the answers asked for.
    pub fn etag_cache(mut self, on: bool) -> Self {
        self.etag_cache = on;
        self
    }

    /// How long one call may wait out `429`s, by their `Retry-After`, before it fails with
    /// [`Error::RateLimited`]; zero never waits. [`DEFAULT_MAX_WAIT`] by default.
    pub fn max_wait(mut self, wait: Duration) -> Self {
        self.max_wait = wait;
        self
    }

    /// The `User-Agent` sent: name your tool and how to reach you, as the API asks.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    pub fn build(self) -> Result<Client> {
        let base = self.base.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Error::Config(format!(
                "the base URL must start with http:// or https:// (given {base:?})"
            )));
        }
        let mut authorization = HeaderValue::try_from(format!("Bearer {}", self.key))
            .map_err(|_| Error::Config("the key cannot be sent as a header".into()))?;
        authorization.set_sensitive(true);
        let user_agent = HeaderValue::try_from(self.user_agent)
            .map_err(|_| Error::Config("the user agent cannot be sent as a header".into()))?;
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| Error::Config(format!("TLS: {e}")))?
            .https_or_http()
            .enable_http1()
            .build();
        let http = HyperClient::builder(TokioExecutor::new()).build(connector);
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                authorization,
                user_agent,
                cache: self.etag_cache.then(Mutex::default),
                max_wait: self.max_wait,
                timeout: self.timeout,
                rate_limit: Mutex::default(),
            }),
        })
    }
}

/// A successful answer: its `data` in the wire's types, with what the envelope and the headers said.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    pub data: T,
    pub meta: Meta,
    /// On pages of a list.
    pub pagination: Option<Pagination>,
    /// The answer's `ETag`.
    pub etag: Option<String>,
    /// Where the key stood after the call.
    pub rate_limit: Option<RateLimit>,
    /// Whether the server answered `304` and the body came from the client's cache.
    pub revalidated: bool,
}

/// An answer's body and what its headers said, before it is read into a type.
pub(crate) struct Raw {
    pub(crate) status: StatusCode,
    pub(crate) headers: hyper::HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) revalidated: bool,
}

impl Client {
    /// A client of the server at `base` (`https://api.example.org`) calling with `key`.
    pub fn builder(base: impl Into<String>, key: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base: base.into(),
            key: key.into(),
            user_agent: concat!("tapster-client/", env!("CARGO_PKG_VERSION")).to_owned(),
            etag_cache: false,
            max_wait: DEFAULT_MAX_WAIT,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Where the key stood after the last call that said (every `/v1` answer does).
    pub fn rate_limit(&self) -> Option<RateLimit> {
        lock(&self.inner.rate_limit).clone()
    }

    /// `GET target` (a path and query, as `pagination.next` gives them), its `data` read as `T`.
    pub async fn get<T: DeserializeOwned>(&self, target: &str) -> Result<Answer<T>> {
        let raw = self.send(target, None).await?;
        let envelope: Envelope<T> = serde_json::from_slice(&raw.body).map_err(|e| Error::Unexpected {
            status: raw.status.as_u16(),
            target: target.to_owned(),
            detail: format!("the body does not read as documented: {e}"),
        })?;
        Ok(Answer {
            data: envelope.data,
            meta: envelope.meta,
            pagination: envelope.pagination,
            etag: raw.headers.get(ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned),
            rate_limit: RateLimit::from_headers(&raw.headers),
            revalidated: raw.revalidated,
        })
    }

    /// `GET target`, whose whole body (not an envelope) reads as `T`: `/healthz`.
    pub(crate) async fn get_plain<T: DeserializeOwned>(&self, target: &str) -> Result<T> {
        let raw = self.send(target, None).await?;
        serde_json::from_slice(&raw.body).map_err(|e| Error::Unexpected {
            status: raw.status.as_u16(),
            target: target.to_owned(),
            detail: format!("the body does not read as documented: {e}"),
        })
    }

    /// One call, the way every call goes: with the key and, when the cache holds the target, its
    /// ETag; a `429` (or a `503` that says when to come back) waited out while the budget allows; a
    /// refusal as its problem. `resume` asks for the bytes from an offset on, if the file still has
    /// the given ETag (`Range`, `If-Range`).
    pub(crate) async fn send(&self, target: &str, resume: Option<(u64, &str)>) -> Result<Raw> {
        let inner = &self.inner;
        let mut waited = Duration::ZERO;
        loop {
            let cached = match (&inner.cache, resume) {
                (Some(cache), None) => lock(cache).get(target).cloned(),
                _ => None,
            };
            let sent = self.attempt(target, cached.as_ref().map(|(tag, _)| tag), resume);
            let (head, body) = tokio::time::timeout(inner.timeout, sent).await.map_err(|_| {
                Error::Transport(format!("no whole answer within {} s", inner.timeout.as_secs()))
            })??;
            if let Some(state) = RateLimit::from_headers(&head.headers) {
                *lock(&inner.rate_limit) = Some(state);
            }
            match (head.status, cached) {
                (StatusCode::NOT_MODIFIED, Some((_, body))) => {
                    return Ok(Raw {
                        status: StatusCode::OK,
                        headers: head.headers,
                        body,
                        revalidated: true,
                    });
                }
                (status, _) if status.is_success() => {
                    if let (Some(cache), Some(tag), None) = (&inner.cache, head.headers.get(ETAG), resume)
                        && worth_keeping(&head.headers)
                    {
                        lock(cache).insert(target.to_owned(), (tag.clone(), body.clone()));
                    }
                    return Ok(Raw { status, headers: head.headers, body, revalidated: false });
                }
                (status @ (StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE), _) => {
                    let problem = problem(status, target, &body);
                    let retry_after = head
                        .headers
                        .get(RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok());
                    let wait = Duration::from_secs(retry_after.unwrap_or(1));
                    // A `503` without `Retry-After` says nothing of when to come back: it is told.
                    let retryable = status == StatusCode::TOO_MANY_REQUESTS || retry_after.is_some();
                    if !retryable || waited + wait > inner.max_wait {
                        return Err(match status {
                            StatusCode::TOO_MANY_REQUESTS => {
                                Error::RateLimited { retry_after: wait.as_secs(), problem: Box::new(problem) }
                            }
                            _ => Error::Api { problem: Box::new(problem) },
                        });
                    }
                    tokio::time::sleep(wait).await;
                    waited += wait;
                }
                (status, _) => return Err(Error::Api { problem: Box::new(problem(status, target, &body)) }),
            }
        }
    }

    /// One request and its answer, read whole.
    async fn attempt(
        &self,
        target: &str,
        held: Option<&HeaderValue>,
        resume: Option<(u64, &str)>,
    ) -> Result<(hyper::http::response::Parts, Bytes)> {
        let inner = &self.inner;
        let mut request = Request::get(format!("{}{target}", inner.base))
            .header(AUTHORIZATION, inner.authorization.clone())
            .header(USER_AGENT, inner.user_agent.clone());
        if let Some(tag) = held {
            request = request.header(IF_NONE_MATCH, tag.clone());
        }
        if let Some((offset, tag)) = resume {
            request = request.header(RANGE, format!("bytes={offset}-")).header(IF_RANGE, tag);
        }
        let request = request.body(Empty::new()).map_err(|e| Error::Config(e.to_string()))?;
        let response = inner.http.request(request).await.map_err(|e| Error::Transport(e.to_string()))?;
        let (head, body) = response.into_parts();
        let body = http_body_util::Limited::new(body, MAX_ANSWER_BYTES).collect().await.map_err(|e| {
            Error::Transport(format!("reading the answer (at most {MAX_ANSWER_BYTES} bytes are read): {e}"))
        })?;
        Ok((head, body.to_bytes()))
    }
}

/// Whether the ETag cache keeps an answer: JSON that may be stored (not `/v1/key`'s `no-store`, not
/// an export's file, which the caller keeps as it likes).
fn worth_keeping(headers: &hyper::HeaderMap) -> bool {
    let header = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).unwrap_or_default();
    header(CONTENT_TYPE).starts_with("application/json") && !header(CACHE_CONTROL).contains("no-store")
}

/// The problem a refusal told; one made of its status and body when it told none (a proxy's page).
fn problem(status: StatusCode, target: &str, body: &[u8]) -> Problem {
    serde_json::from_slice(body).unwrap_or_else(|_| Problem {
        kind: "about:blank".to_owned(),
        title: status.canonical_reason().unwrap_or("Error").to_owned(),
        status: status.as_u16(),
        detail: String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned(),
        instance: target.to_owned(),
        errors: None,
        violated_policies: None,
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
