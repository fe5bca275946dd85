//! Every way a request can fail, and the one place where each one's answer is decided: its status,
//! the headers it needs (`Allow`, `WWW-Authenticate`, `Retry-After`) and its problem+json body
//! (RFC 9457), which `Reply::problem` (`crate::response`) puts together. Each variant carries what
//! its answer says; a new variant does not compile until its answer is decided here.

use hyper::StatusCode;
use hyper::header::{
    ALLOW, CONTENT_RANGE, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use tapster_wire::{InvalidParam, LimitPolicy, Problem};

use crate::gate::Refusal;

const PROBLEM_JSON: HeaderValue = HeaderValue::from_static("application/problem+json");

/// What a `401` asks the client for (RFC 6750).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Challenge {
    /// No key was sent: which scheme to send one with.
    Bearer,
    /// A key was sent but cannot be used: malformed, unknown, revoked or expired.
    InvalidToken,
}

impl Challenge {
    fn header(self) -> HeaderValue {
        match self {
            Self::Bearer => HeaderValue::from_static("Bearer realm=\"tapster\""),
            Self::InvalidToken => {
                HeaderValue::from_static("Bearer realm=\"tapster\", error=\"invalid_token\"")
            }
        }
    }
}

/// One invalid parameter of a request, as the `errors` of its `422` name it.
pub(crate) fn invalid_param(parameter: impl Into<String>, detail: impl Into<String>) -> InvalidParam {
    InvalidParam { parameter: parameter.into(), detail: detail.into() }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// Parameters outside their pattern, length, bounds or allowed values; unknown or repeated ones.
    #[error("{}", .0.iter().map(|e| format!("`{}` {}", e.parameter, e.detail)).collect::<Vec<_>>().join("; "))]
    Validation(Vec<InvalidParam>),
    /// No usable key: missing, malformed, unknown, revoked or expired.
    #[error("{detail}")]
    Unauthorized { detail: String, challenge: Challenge },
    /// The key, its account or the calling address is suspended.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{method} is not supported here; this API only reads")]
    MethodNotAllowed { method: String },
    /// A `Range` of a download that starts past its end.
    #[error("the range asked for starts past the end of the file, which is {size} bytes long")]
    RangeNotSatisfiable { size: u64 },
    /// Over the key's `policy` (`burst`, `minute` or `day`).
    #[error("the {policy} rate limit of this key is reached; retry in {retry_after} second{}", if *retry_after == 1 { "" } else { "s" })]
    RateLimited { policy: &'static str, retry_after: u64 },
    /// A request that carries a body (`Content-Length` above 0, `Transfer-Encoding`, HTTP/2 data).
    #[error("this API only reads; requests must not carry a body")]
    ContentTooLarge,
    #[error("the request target is {length} bytes long; at most {limit} are accepted")]
    UriTooLong { length: usize, limit: usize },
    #[error("the request's header fields take {size} bytes; at most {limit} are accepted")]
    HeadersTooLarge { size: usize, limit: usize },
    /// The service cannot take the request now (too many connections, or the request waited past its
    /// time budget); the answer carries `Retry-After`.
    #[error("{reason}; retry in {retry_after} second{}", if *retry_after == 1 { "" } else { "s" })]
    Unavailable { reason: &'static str, retry_after: u64 },
    /// The request came through a trusted proxy whose header does not say who sent it.
    #[error(
        "the request came through the proxy {proxy}, whose {header} header does not say who sent it: {reason}"
    )]
    UnknownCaller { header: &'static str, proxy: std::net::IpAddr, reason: String },
    #[error("too many failed authentications from this address; retry in {retry_after} second{}", if *retry_after == 1 { "" } else { "s" })]
    TooManyFailures { retry_after: u64 },
    /// Something failed inside the service; the cause is logged, never shown.
    #[error("the service failed to answer; try again later")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    pub(crate) fn invalid(parameter: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::Validation(vec![invalid_param(parameter, detail)])
    }

    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Self::UnknownCaller { .. } => StatusCode::BAD_REQUEST,
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::RangeNotSatisfiable { .. } => StatusCode::RANGE_NOT_SATISFIABLE,
            Self::RateLimited { .. } | Self::TooManyFailures { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::ContentTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UriTooLong { .. } => StatusCode::URI_TOO_LONG,
            Self::HeadersTooLarge { .. } => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Self::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The problem type and its title, as docs/api.md names them ("Errors").
    fn kind(&self) -> (&'static str, &'static str) {
        match self {
            Self::UnknownCaller { .. } => ("/errors/unknown-caller", "Calling address unknown"),
            Self::Validation(_) => ("/errors/validation", "Invalid parameter"),
            Self::Unauthorized { .. } => ("/errors/unauthorized", "Unauthorized"),
            Self::Forbidden(_) => ("/errors/forbidden", "Forbidden"),
            Self::NotFound(_) => ("/errors/not-found", "Not found"),
            Self::MethodNotAllowed { .. } => ("/errors/method-not-allowed", "Method not allowed"),
            Self::RangeNotSatisfiable { .. } => ("/errors/range-not-satisfiable", "Range not satisfiable"),
            Self::RateLimited { .. } | Self::TooManyFailures { .. } => {
                ("/errors/rate-limited", "Too many requests")
            }
            Self::ContentTooLarge => ("/errors/content-too-large", "Content too large"),
            Self::UriTooLong { .. } => ("/errors/uri-too-long", "URI too long"),
            Self::HeadersTooLarge { .. } => ("/errors/headers-too-large", "Request header fields too large"),
            Self::Unavailable { .. } => ("/errors/unavailable", "Service unavailable"),
            Self::Internal(_) => ("/errors/internal", "Internal error"),
        }
    }

    /// The headers the answer needs beside its body.
    pub(crate) fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, PROBLEM_JSON);
        match self {
            Self::MethodNotAllowed { .. } => {
                headers.insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            }
            Self::Unauthorized { challenge, .. } => {
                headers.insert(WWW_AUTHENTICATE, challenge.header());
            }
            Self::RangeNotSatisfiable { size } => {
                // Digits only: always a valid header.
                if let Ok(range) = HeaderValue::try_from(format!("bytes */{size}")) {
                    headers.insert(CONTENT_RANGE, range);
                }
            }
            Self::RateLimited { retry_after, .. }
            | Self::TooManyFailures { retry_after }
            | Self::Unavailable { retry_after, .. } => {
                headers.insert(RETRY_AFTER, HeaderValue::from(*retry_after));
            }
            Self::Validation(_)
            | Self::UnknownCaller { .. }
            | Self::Forbidden(_)
            | Self::NotFound(_)
            | Self::ContentTooLarge
            | Self::UriTooLong { .. }
            | Self::HeadersTooLarge { .. }
            | Self::Internal(_) => {}
        }
        headers
    }

    /// The problem+json body; `instance` is the path that was asked for.
    pub(crate) fn problem(&self, instance: &str) -> Problem {
        let (kind, title) = self.kind();
        Problem {
            kind: kind.to_owned(),
            title: title.to_owned(),
            status: self.status().as_u16(),
            detail: self.to_string(),
            instance: instance.to_owned(),
            errors: match self {
                Self::Validation(errors) => Some(errors.clone()),
                _ => None,
            },
            // The RateLimit header fields draft's quota-exceeded problems name the policy used up.
            violated_policies: match self {
                Self::RateLimited { policy, .. } => Some(vec![LimitPolicy::parse(policy)]),
                _ => None,
            },
        }
    }
}

impl From<&Refusal> for ApiError {
    fn from(refusal: &Refusal) -> Self {
        let unauthorized = |detail: &str| Self::Unauthorized {
            detail: detail.to_owned(),
            challenge: Challenge::InvalidToken,
        };
        let forbidden = |detail: &str| Self::Forbidden(detail.to_owned());
        match refusal {
            Refusal::MissingKey => Self::Unauthorized {
                detail: "this endpoint needs an API key: send `Authorization: Bearer <API key>`".to_owned(),
                challenge: Challenge::Bearer,
            },
            Refusal::MalformedKey { detail } => unauthorized(detail),
            Refusal::UnknownKey => unauthorized("this API key is not valid"),
            Refusal::RevokedKey => unauthorized("this API key has been revoked; create a new one"),
            Refusal::ExpiredKey => {
                unauthorized("this API key has expired; create a new one in the dashboard")
            }
            Refusal::SuspendedKey => forbidden("this API key is suspended"),
            Refusal::SuspendedAccount => forbidden("the account that owns this API key is suspended"),
            Refusal::UnconfirmedAccount => {
                forbidden("the account that owns this API key has not confirmed its e-mail address")
            }
            Refusal::BlockedAddress => forbidden("requests from this address are blocked"),
            Refusal::OriginNotAllowed { origin: None } => forbidden(
                "this is a browser key: it answers only requests a browser sends from the pages its owner \
                 allowed, and this one names no Origin; call with a key made for servers instead",
            ),
            Refusal::OriginNotAllowed { origin: Some(origin) } => Self::Forbidden(format!(
                "this is a browser key, and its owner did not allow pages of {origin} to use it; the owner \
                 can make a key for that origin in the dashboard"
            )),
            Refusal::RateLimited { quota, retry_after } => Self::RateLimited {
                // The gate refuses on the policy nearest to exhaustion, the one used up; a key
                // without limits is never refused, so there always is one.
                policy: quota.nearest().map_or("", |state| state.policy.name),
                retry_after: *retry_after,
            },
            Refusal::TooManyFailures { retry_after } => Self::TooManyFailures { retry_after: *retry_after },
        }
    }
}

impl From<tapster_store::Error> for ApiError {
    fn from(error: tapster_store::Error) -> Self {
        Self::Internal(Box::new(error))
    }
}
