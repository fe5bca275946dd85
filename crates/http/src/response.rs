//! Answers as they are built: status, headers and the whole body, kept as bytes until the end so that
//! the entity tag can be computed from them, and what kind of answer each is, which decides how it is
//! kept and served. Converted to a hyper response only when sent.

use std::ops::Range;
use std::sync::Arc;

use askama::Template;
use bytes::Bytes;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;
use tapster_site::{Framed, Nav};

use crate::conditional::etag;
use crate::error::ApiError;

pub(crate) use tapster_edge::Body;

const JSON: HeaderValue = HeaderValue::from_static("application/json");

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) kind: Kind,
}

/// What an answer is, which decides whether the response cache keeps it and how the request's
/// conditional headers and `Range` are answered.
#[derive(Debug)]
pub(crate) enum Kind {
    /// The same for every caller, as an answer rendered from the published data, a page or a
    /// problem: a `/v1` answer of this kind is kept in the response cache, tagged by its bytes and
    /// served compressed when the client takes it.
    Data,
    /// About the caller or this moment (`/v1/key`, `/metrics`): `no-store`, never kept.
    Private,
    /// A file kept whole where it comes from (an export), whose bytes are read only when and as far
    /// as the request asks for them; the body is then empty.
    File(File),
    /// A page of the site, rendered once for every visitor, that shows each the header of who they
    /// are when it is served (`app::pages`); the body is then empty.
    Page(Arc<Page>),
}

/// A page of the site as rendered once for every visitor: whole with the header of a visitor who
/// is not signed in, as most are answered it, and cut where a signed-in visitor's header goes.
#[derive(Debug)]
pub(crate) struct Page {
    /// The path it is served at, whose link its header marks as the current page.
    pub(crate) path: &'static str,
    pub(crate) framed: Framed,
    /// The strong entity tag of the page as rendered, without a header: a part of the tag of every
    /// signed-in visitor's answer.
    pub(crate) tag: String,
    /// The page with the header of a visitor who is not signed in, and its strong entity tag.
    pub(crate) signed_out: Bytes,
    pub(crate) signed_out_tag: HeaderValue,
}

impl Page {
    /// `html`, a page served at `path` rendered with a `HeaderSlot` in its header's place, which it
    /// must have exactly once.
    pub(crate) fn new(path: &'static str, html: &str) -> Result<Self, ApiError> {
        let internal = |e: Box<dyn std::error::Error + Send + Sync>| ApiError::Internal(e);
        let framed = Framed::split(html)
            .ok_or_else(|| internal("a page has no one place for its header: none, or two".into()))?;
        let header = Nav::signed_out(path).render().map_err(|e| internal(Box::new(e)))?;
        let signed_out = Bytes::from(framed.with_header(&header));
        let signed_out_tag = HeaderValue::try_from(etag(&signed_out)).map_err(|e| internal(Box::new(e)))?;
        Ok(Self { path, framed, tag: etag(html.as_bytes()), signed_out, signed_out_tag })
    }
}

/// A file answer's own entity tag and size, and how to read its bytes.
pub(crate) struct File {
    /// Its strong entity tag, quoted, as `ETag` carries it.
    pub(crate) tag: String,
    pub(crate) size: u64,
    /// Reads the bytes of a range within `0..size`.
    pub(crate) read: Box<dyn FnOnce(Range<u64>) -> Result<Bytes, ApiError> + Send>,
}

impl File {
    /// A file held whole in memory (a picture, the icons archive) whose ranges are slices of it,
    /// shared rather than copied; the app asks only for ranges within its length.
    pub(crate) fn in_memory(tag: String, bytes: Bytes) -> Self {
        let size = bytes.len() as u64;
        let read = move |range: Range<u64>| Ok(bytes.slice(range.start as usize..range.end as usize));
        Self { tag, size, read: Box::new(read) }
    }
}

impl std::fmt::Debug for File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("File").field("tag", &self.tag).field("size", &self.size).finish_non_exhaustive()
    }
}

impl Reply {
    /// A data answer.
    pub(crate) fn new(status: StatusCode, headers: HeaderMap, body: impl Into<Bytes>) -> Self {
        Self { status, headers, body: body.into(), kind: Kind::Data }
    }

    /// The problem+json answer of `error`; `instance` is the path that was asked for.
    pub(crate) fn problem(error: &ApiError, instance: &str) -> Self {
        // A problem body holds only strings and numbers, so encoding it cannot fail.
        let body = serde_json::to_vec(&error.problem(instance)).unwrap_or_default();
        Self::new(error.status(), error.headers(), body)
    }

    /// A `200` file answer with `headers` and the file's own `ETag`, its bytes read later.
    pub(crate) fn file(mut headers: HeaderMap, file: File) -> Result<Self, ApiError> {
        let tag = HeaderValue::try_from(&file.tag).map_err(|e| ApiError::Internal(Box::new(e)))?;
        headers.insert(ETAG, tag);
        Ok(Self { status: StatusCode::OK, headers, body: Bytes::new(), kind: Kind::File(file) })
    }

    /// Marks the answer as one about the caller or this moment, which no cache may keep, the
    /// service's own included.
    pub(crate) fn private(mut self) -> Self {
        self.headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        self.kind = Kind::Private;
        self
    }

    /// A `200` page of the site, whose header is put in when it is served.
    pub(crate) fn page(headers: HeaderMap, page: Arc<Page>) -> Self {
        Self { status: StatusCode::OK, headers, body: Bytes::new(), kind: Kind::Page(page) }
    }

    pub(crate) fn into_response(self) -> Response<Body> {
        debug_assert!(!matches!(self.kind, Kind::File(_)), "a file answer is sent through `file_reply`");
        debug_assert!(!matches!(self.kind, Kind::Page(_)), "a page is sent through `App::visited`");
        let mut response = Response::new(Body::new(self.body));
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers;
        response
    }
}

/// `Cache-Control` of an answer about `latest`, whose data moves with every import.
pub(crate) const LATEST_MAX_AGE: &str = "private, max-age=300";
/// `Cache-Control` of an answer about a version named by its number, whose data changes only if that
/// version is imported again (a correction), which is rare.
pub(crate) const NAMED_VERSION_MAX_AGE: &str = "private, max-age=86400";

/// A `200` JSON answer.
pub(crate) fn json(value: &impl Serialize) -> Result<Reply, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, JSON);
    Ok(Reply::new(StatusCode::OK, headers, body))
}

#[cfg(test)]
mod tests {
    use hyper::header::{ALLOW, RETRY_AFTER, WWW_AUTHENTICATE};

    use super::*;
    use crate::gate::Refusal;

    fn header(error: &ApiError, name: hyper::header::HeaderName) -> Option<String> {
        Reply::problem(error, "/v1/items").headers.get(name).map(|v| v.to_str().unwrap().to_owned())
    }

    /// Each error's answer carries the headers its status calls for, and only those.
    #[test]
    fn every_answer_carries_the_headers_its_status_needs() {
        let missing = ApiError::from(&Refusal::MissingKey);
        assert_eq!(header(&missing, WWW_AUTHENTICATE).as_deref(), Some("Bearer realm=\"tapster\""));
        let revoked = ApiError::from(&Refusal::RevokedKey);
        assert_eq!(
            header(&revoked, WWW_AUTHENTICATE).as_deref(),
            Some("Bearer realm=\"tapster\", error=\"invalid_token\"")
        );
        let method = ApiError::MethodNotAllowed { method: "POST".into() };
        assert_eq!(header(&method, ALLOW).as_deref(), Some("GET, HEAD"));
        for error in [
            ApiError::RateLimited { policy: "minute", retry_after: 7 },
            ApiError::TooManyFailures { retry_after: 7 },
            ApiError::Unavailable { reason: "too many connections", retry_after: 7 },
        ] {
            assert_eq!(header(&error, RETRY_AFTER).as_deref(), Some("7"), "{error:?}");
            assert_eq!(header(&error, WWW_AUTHENTICATE), None, "{error:?}");
        }
        let missing_record = ApiError::NotFound("there is no item 9".into());
        let reply = Reply::problem(&missing_record, "/v1/items/9");
        assert_eq!(reply.status, StatusCode::NOT_FOUND);
        assert_eq!(reply.headers.len(), 1, "{:?}", reply.headers);
        assert_eq!(reply.headers[CONTENT_TYPE], "application/problem+json");
    }

    /// A page has its header's place once: a page without it, or with it twice (a text printed
    /// unescaped that holds the mark), is refused rather than served with two headers or none.
    #[test]
    fn a_page_has_one_place_for_its_header() {
        let slot = tapster_site::HeaderSlot.to_string();
        for html in ["<main>no header</main>".to_owned(), format!("{slot}<main>{slot}</main>")] {
            let refused = Page::new("/docs", &html);
            assert!(matches!(refused, Err(ApiError::Internal(_))), "{html}: {refused:?}");
        }
        let page = Page::new("/docs", &format!("<body>{slot}<main>the page</main></body>")).unwrap();
        let shown = std::str::from_utf8(&page.signed_out).unwrap();
        assert!(shown.starts_with("<body><header class=\"top\">"), "{shown}");
        assert!(shown.ends_with("<main>the page</main></body>"), "{shown}");
        assert!(shown.contains(r#"<a href="/docs" aria-current="page">"#), "{shown}");
        assert_eq!(page.signed_out_tag.to_str().unwrap(), etag(shown.as_bytes()));
    }
}
