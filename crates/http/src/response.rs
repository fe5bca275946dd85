//! Answers as they are built: status, headers and the whole body, kept as bytes until the end so that
//! the entity tag can be computed from them. Converted to a hyper response only when sent.

use bytes::Bytes;
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::error::ApiError;

pub(crate) use tapster_edge::Body;

const JSON: HeaderValue = HeaderValue::from_static("application/json");

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Reply {
    pub(crate) fn into_response(self) -> Response<Body> {
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

/// `Cache-Control` of an answer about the caller (`/v1/key`) or about this moment (`/metrics`),
/// which no cache may keep, the service's own included.
pub(crate) const NO_STORE: &str = "no-store";

/// A `200` JSON answer.
pub(crate) fn json(value: &impl Serialize) -> Result<Reply, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, JSON);
    Ok(Reply { status: StatusCode::OK, headers, body: body.into() })
}
