//! The [`App`] as the edge's [`Service`]: a request for the pages is handed to them (see `pages`);
//! every other one is the API's, answered with what browser tools need (the CORS headers, answers to
//! `OPTIONS` preflights) and a `413` for a body, which no API request takes. The API's own pages
//! (`/docs`, `/changelog`) get no CORS headers: they differ by the visitor's cookies, and CORS is for
//! the API's data. The requests the edge
//! refused on the API's paths are rendered here as problem+json and counted like every other.
//! [`Operators`] is the service of the operators' own address, which answers `/metrics` and
//! `/healthz`.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW, CONTENT_LENGTH, HeaderMap, HeaderValue,
    TRANSFER_ENCODING,
};
use hyper::{Method, Request, Response, StatusCode};
use tapster_edge::{Answer, Refusal, Service};

use crate::app::{App, Responding, Waiting};
use crate::error::ApiError;
use crate::response::{Body, Reply};

const ANY_ORIGIN: HeaderValue = HeaderValue::from_static("*");
/// The response headers a browser tool may read beyond the CORS-safelisted ones.
const EXPOSED: HeaderValue = HeaderValue::from_static(
    "ETag, RateLimit, RateLimit-Policy, Retry-After, Content-Encoding, WWW-Authenticate, Allow, \
     Content-Range, Accept-Ranges, Content-Disposition",
);
const METHODS: HeaderValue = HeaderValue::from_static("GET, HEAD, OPTIONS");
/// What a browser tool may send: the key, revalidation, and resuming a download.
const REQUEST_HEADERS: HeaderValue =
    HeaderValue::from_static("Authorization, If-None-Match, Range, If-Range");
/// How long a browser may reuse a preflight answer, in seconds (browsers cap it lower).
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static("86400");

impl Service for App {
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer {
        if let Some(pages) = self.pages_for(request.uri().path()) {
            let pages = Arc::clone(pages);
            return self.answer_page(pages, request, caller);
        }
        self.answer_api(request, caller)
    }

    fn refused(&self, request: &Request<Incoming>, caller: IpAddr, refusal: Refusal) -> Response<Body> {
        if let Refusal::UnknownCaller { header, proxy, reason } = &refusal {
            // A proxy that does not say who its clients are is misconfigured: the operator must hear.
            tracing::warn!(%proxy, header, reason, "a request through a trusted proxy does not say who sent it");
        }
        if let Some(pages) = self.pages_for(request.uri().path()) {
            return self.refused_page(pages.as_ref(), request, caller, refusal);
        }
        let started = Instant::now();
        let path = request.uri().path();
        let mut response = Reply::problem(&ApiError::from(refusal), path).into_response();
        self.answered_unrouted(request, caller, response.status(), started);
        allow_cross_origin(response.headers_mut());
        response
    }
}

impl App {
    /// Answers a request for the API: a preflight or a request with a body here, every other one by
    /// [`App::respond`] (later only when the gate, or the pages for a page's header, decide later);
    /// each with the CORS headers, but a page.
    fn answer_api(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer {
        let started = Instant::now();
        let method = request.method();
        let screened = if !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            // Answered `405` by the routes, body or not.
            None
        } else if carries_body(&request) {
            Some(Reply::problem(&ApiError::ContentTooLarge, request.uri().path()).into_response())
        } else if method == Method::OPTIONS {
            Some(preflight())
        } else {
            None
        };
        let mut response = match screened {
            Some(response) => {
                self.answered_unrouted(&request, caller, response.status(), started);
                response
            }
            None => match self.respond(&request, caller) {
                Responding::Now(response) => response,
                Responding::Waiting(Waiting { verdict, noted, started }) => {
                    return Answer::Later(Box::pin(async move {
                        let verdict = verdict.await;
                        let mut response = self.resume(&request, caller, verdict, noted, started);
                        allow_cross_origin(response.headers_mut());
                        response
                    }));
                }
                Responding::Page(response) => return Answer::Ready(response),
                Responding::Visiting(visit, waiting) => {
                    return Answer::Later(Box::pin(async move {
                        let visit = visit.await;
                        self.answer_visited(&request, caller, waiting, visit)
                    }));
                }
            },
        };
        allow_cross_origin(response.headers_mut());
        Answer::Ready(response)
    }
}

/// The problem a request the edge refused is answered with.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::UriTooLong { length, limit } => Self::UriTooLong { length, limit },
            Refusal::HeadersTooLarge { size, limit } => Self::HeadersTooLarge { size, limit },
            Refusal::OverBudget { retry_after } => {
                Self::Unavailable { reason: "the request waited longer than its time budget", retry_after }
            }
            Refusal::TooManyConnections { retry_after } => {
                Self::Unavailable { reason: "the server has too many open connections", retry_after }
            }
            Refusal::UnknownCaller { header, proxy, reason } => Self::UnknownCaller { header, proxy, reason },
        }
    }
}

fn carries_body<B: hyper::body::Body>(request: &Request<B>) -> bool {
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .is_some_and(|length| length.to_str().ok().and_then(|l| l.trim().parse::<u64>().ok()) != Some(0));
    declared || request.headers().contains_key(TRANSFER_ENCODING) || !request.body().is_end_stream()
}

/// `204` to a CORS preflight (or any `OPTIONS`): what a browser tool may send, without a key.
fn preflight() -> Response<Body> {
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(ALLOW, METHODS);
    headers.insert(ACCESS_CONTROL_ALLOW_METHODS, METHODS);
    headers.insert(ACCESS_CONTROL_ALLOW_HEADERS, REQUEST_HEADERS);
    headers.insert(ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
    response
}

/// Lets browser tools on any origin read the answer and the headers they need. The API's data is
/// keyed by a bearer token, never by cookies (a session cookie never opens `/v1`), so `*` gives no
/// page access it could not have otherwise. The one kind of answer that does differ by cookies, a
/// page wearing the visitor's header, never comes here. An answer to a browser key already names
/// the one origin its owner allows, which stays.
fn allow_cross_origin(headers: &mut HeaderMap) {
    headers.entry(ACCESS_CONTROL_ALLOW_ORIGIN).or_insert(ANY_ORIGIN);
    headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
}

/// The operators' port: `GET /metrics` of an [`App`], and `/healthz` for a load balancer's health
/// checks (which come without a proxy's header), on an address of its own that only scrapers and
/// balancers reach (`--metrics-addr`), while the API's address answers `/metrics` with `404`
/// ([`App::with_metrics_apart`]). No CORS headers: no browser tool has business there.
#[derive(Debug)]
pub struct Operators(Arc<App>);

impl App {
    /// The operators' port of this app, which counts its requests with the API's.
    pub fn operators(self: &Arc<Self>) -> Operators {
        Operators(Arc::clone(self))
    }
}

impl Service for Operators {
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer {
        Answer::Ready(self.0.answer_operators(&request, caller))
    }

    fn refused(&self, request: &Request<Incoming>, caller: IpAddr, refusal: Refusal) -> Response<Body> {
        let started = Instant::now();
        let response = Reply::problem(&ApiError::from(refusal), request.uri().path()).into_response();
        self.0.answered_unrouted(request, caller, response.status(), started);
        response
    }
}
