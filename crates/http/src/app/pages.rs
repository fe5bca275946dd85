//! Pages served beside the API on the same listener: the dashboard (`tapster-dashboard`), which this
//! crate knows only as [`Pages`], a service of the edge's that claims some paths. Their requests
//! pass the same edge as the API's (`tapster-edge`: the target and header limits, the time budget,
//! the trusted proxies) and are then handed to the pages whole: they read their own forms and render
//! their own answers, refusals included. They get no CORS headers, and no path of the API's is ever
//! theirs (nothing under `/v1`, none of its public routes, `/metrics`), so a session cookie never
//! opens the API and an API key never opens a page. Their requests are counted and logged with the
//! API's, under one route label.
//!
//! The API's own pages (`/docs`, `/changelog`) wear the site's header, which says who is signed in:
//! only the pages know, by the browser's cookies ([`Pages::visit`]). Such a page is rendered once for
//! the data served, with the header of a visitor who is not signed in and cut where the header goes
//! (`response::Page`). A visitor who is not signed in is answered those bytes as they are, and the
//! pages say so at once for a browser without a session cookie; a signed-in one gets the page with
//! their header put in ([`visited`]): a rendering of the header and a copy, not of the page. The
//! answer differs by the session cookie: it says so in `Vary`, a signed-in one is `private` (it holds
//! the browser's form token), and its entity tag is the page's and the header's together, so that a
//! cache never takes one visitor's answer for another's. Pages are not the API's data: they get no
//! CORS headers (`front`).

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use askama::Template;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue, SET_COOKIE, VARY};
use hyper::{Method, Request, Response, StatusCode};
use tapster_edge::{Answer, Refusal, Service};
use tapster_site::Nav;

use super::{App, Noted, failed};
use crate::conditional::{etag, none_match};
use crate::error::ApiError;
use crate::response::{Body, Page, Reply};

/// Who asks for one of the API's pages, as the pages know them by the browser's cookies.
#[derive(Debug, Clone, Default)]
pub struct Visit {
    /// The header of a visitor who is signed in; `None` for one who is not, who is answered the
    /// page as it was rendered once for all of them.
    pub signed_in: Option<Nav>,
    /// What the answer sets in the browser (`Set-Cookie` values), as the pages' own answers would
    /// for the header they show: a session renewed, the form token the sign-out button sends, a
    /// dead session's cookie cleared.
    pub set_cookie: Vec<HeaderValue>,
}

impl Visit {
    /// A visitor who is not signed in, whose answer sets nothing.
    pub const SIGNED_OUT: Self = Self { signed_in: None, set_cookie: Vec::new() };
}

/// Who asks for one of the API's pages: known at once (a browser that sends no session cookie is
/// not signed in), or once the pages have looked the session up. Only a later one costs the request
/// a boxed future.
pub enum Visitor {
    Now(Visit),
    Later(PendingVisit),
}

impl std::fmt::Debug for Visitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Now(visit) => f.debug_tuple("Now").field(visit).finish(),
            Self::Later(_) => f.write_str("Later"),
        }
    }
}

/// A visit still to be known.
pub type PendingVisit = Pin<Box<dyn Future<Output = Visit> + Send>>;

/// HTML pages served beside the API: a service of the edge's for the paths it claims.
pub trait Pages: Service + std::fmt::Debug {
    /// Whether `path` is one of the pages'. A path the API answers stays the API's whatever this
    /// says.
    fn claims(&self, path: &str) -> bool;

    /// Who the browser that sent `headers` from `caller` is, for the header of the API's own page
    /// at `path` (`/docs`, `/changelog`): signed in or not, as the pages' own header says, with the
    /// cookies their own answer would set for it. Every request for those pages asks, so a browser
    /// that cannot be signed in should be answered [`Visitor::Now`].
    fn visit(&self, headers: &HeaderMap, path: &str, caller: IpAddr) -> Visitor;
}

/// One of the API's pages, routed and waiting for the pages to say who asks for it.
pub(crate) struct PageWaiting {
    pub(crate) page: Arc<Page>,
    pub(crate) headers: HeaderMap,
    pub(crate) noted: Noted,
    pub(crate) started: Instant,
}

impl App {
    /// Answers one of the API's pages once the pages have said who asks for it.
    pub(crate) fn answer_visited<B>(
        &self,
        request: &Request<B>,
        peer: IpAddr,
        waiting: PageWaiting,
        visit: Visit,
    ) -> Response<Body> {
        let PageWaiting { page, headers, noted, started } = waiting;
        let reply = visited(request, headers, &page, visit, true);
        self.observe(request.method(), request.uri().path(), peer, reply.status, started, &noted);
        reply.into_response()
    }

    /// The pages, when `path` is theirs rather than the API's: a path the API answers is never the
    /// pages'. The API is asked first: a `/v1` path is known by its prefix, and the endpoint table
    /// refuses any other path by its templates' literal prefixes, so neither walks the pages' table.
    pub(crate) fn pages_for(&self, path: &str) -> Option<&Arc<dyn Pages>> {
        self.pages().filter(|pages| !App::owns(path) && pages.claims(path))
    }

    /// Hands a request to the pages, and counts their answer when it is made.
    pub(crate) fn answer_page(
        self: Arc<Self>,
        pages: Arc<dyn Pages>,
        request: Request<Incoming>,
        caller: IpAddr,
    ) -> Answer {
        let started = Instant::now();
        let (method, path) = (request.method().clone(), request.uri().path().to_owned());
        match pages.call(request, caller) {
            Answer::Ready(response) => {
                self.answered_page(&method, &path, caller, response.status(), started);
                Answer::Ready(response)
            }
            Answer::Later(answer) => Answer::Later(Box::pin(async move {
                let response = answer.await;
                self.answered_page(&method, &path, caller, response.status(), started);
                response
            })),
        }
    }

    /// Hands a refusal of the edge on one of the pages' paths to the pages to render, and counts it.
    pub(crate) fn refused_page(
        &self,
        pages: &dyn Pages,
        request: &Request<Incoming>,
        caller: IpAddr,
        refusal: Refusal,
    ) -> Response<Body> {
        let started = Instant::now();
        let response = pages.refused(request, caller, refusal);
        let method: &Method = request.method();
        self.answered_page(method, request.uri().path(), caller, response.status(), started);
        response
    }
}

/// `page` with `visit`'s header, or `304` when the client holds that answer already. `by_cookie`:
/// the pages said who asks, by the request's cookies; without pages everyone is signed out.
pub(crate) fn visited<B>(
    request: &Request<B>,
    mut headers: HeaderMap,
    page: &Page,
    visit: Visit,
    by_cookie: bool,
) -> Reply {
    let header = match visit.signed_in.as_ref().map(Nav::render).transpose() {
        Ok(header) => header,
        Err(e) => return failed(&ApiError::Internal(Box::new(e)), request.uri().path()),
    };
    // A signed-in answer's strong tag is made of the page's own and the header, without hashing the
    // whole page again on every request.
    let tag = match &header {
        None => page.signed_out_tag.clone(),
        Some(header) => {
            let tag = etag(format!("{}{header}", page.tag).as_bytes());
            // Quoted hex digits: always a valid header value.
            HeaderValue::from_str(&tag).unwrap_or(HeaderValue::from_static("\"\""))
        }
    };
    // Revalidated on every use (the data it shows may be replaced by an import). A signed-in answer
    // holds the browser's form token, and one that sets a cookie is for that browser alone: no
    // shared cache keeps either.
    let private = header.is_some() || !visit.set_cookie.is_empty();
    let cache_control = if private { "private, no-cache" } else { "no-cache" };
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
    if by_cookie {
        headers.insert(VARY, HeaderValue::from_static("Cookie"));
    }
    for cookie in visit.set_cookie {
        headers.append(SET_COOKIE, cookie);
    }
    // Quoted hex digits: always text.
    let held = none_match(request.headers(), tag.to_str().unwrap_or_default());
    headers.insert(ETAG, tag);
    if held && matches!(*request.method(), Method::GET | Method::HEAD) {
        headers.remove(CONTENT_TYPE);
        return Reply::new(StatusCode::NOT_MODIFIED, headers, Bytes::new());
    }
    let body = match header {
        None => page.signed_out.clone(),
        Some(header) => page.framed.with_header(&header).into(),
    };
    Reply::new(StatusCode::OK, headers, body)
}
