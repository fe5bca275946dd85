//! Turning answers and errors into HTTP responses with the right media type.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use serde::Serialize;

use crate::error::ApiError;

pub(crate) type Body = Full<Bytes>;

const JSON: HeaderValue = HeaderValue::from_static("application/json");
const PROBLEM_JSON: HeaderValue = HeaderValue::from_static("application/problem+json");

/// A `200` JSON answer.
pub(crate) fn json(value: &impl Serialize) -> Result<Response<Body>, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(CONTENT_TYPE, JSON);
    Ok(response)
}

/// The problem+json answer for `error`; `instance` is the path that was asked for.
pub(crate) fn problem(error: &ApiError, instance: &str) -> Response<Body> {
    // A problem body holds only strings and numbers, so encoding it cannot fail.
    let body = serde_json::to_vec(&error.problem(instance)).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = error.status();
    response.headers_mut().insert(CONTENT_TYPE, PROBLEM_JSON);
    if error.status() == StatusCode::METHOD_NOT_ALLOWED {
        response.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    response
}
