//! What the edge serves: a [`Service`] answers the requests that pass the edge's limits and renders
//! the [`Refusal`]s of those that do not, so that every request, refused or not, is answered in the
//! service's own format. A service that takes a body reads it with [`read_body`].

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{Request, Response};

/// The body of every answer: whole, in memory.
pub type Body = Full<Bytes>;

/// A service's answer to one request: made at once (an answer from memory pays for neither a task
/// nor a boxed future), or later (one that reads a body or waits on something first).
pub enum Answer {
    Ready(Response<Body>),
    Later(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Ready(response) => f.debug_tuple("Ready").field(&response.status()).finish(),
            Self::Later(_) => f.write_str("Later"),
        }
    }
}

/// Why the edge answered a request itself instead of handing it to the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The request target (path and query) is `length` bytes, over the `limit` (`414`).
    UriTooLong { length: usize, limit: usize },
    /// The header fields are `size` bytes in all, over the `limit` (`431`).
    HeadersTooLarge { size: usize, limit: usize },
    /// The request waited longer than its time budget before it could be handled; the client may
    /// retry after `retry_after` seconds (`503`).
    OverBudget { retry_after: u64 },
    /// The connection was accepted over the connection limit and closes after this answer; the
    /// client may retry after `retry_after` seconds (`503`).
    TooManyConnections { retry_after: u64 },
    /// The request came through the trusted `proxy`, whose `header` does not say who sent it: the
    /// entry that should name the caller is missing, unreadable or hidden, as the `reason` says
    /// (`400`). The request is not attributed to the proxy, whose address every client behind it
    /// shares.
    UnknownCaller { header: &'static str, proxy: IpAddr, reason: String },
}

/// Why [`read_body`] could not read a request's body; the service that asked renders it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// The body is over the `limit` in bytes, declared or as it streamed (`413`).
    TooLarge { limit: usize },
    /// The body did not arrive whole within `seconds` (`408`).
    TimedOut { seconds: u64 },
    /// The body broke off, or its framing was wrong (`400`).
    Unreadable,
}

/// Reads a request's body whole, for a service that takes a small form: at most `limit` bytes
/// (refused at once when the declared length is over it), arriving within `timeout`.
pub async fn read_body(
    request: Request<Incoming>,
    limit: usize,
    timeout: Duration,
) -> Result<Request<Bytes>, BodyError> {
    let declared = request.headers().get(CONTENT_LENGTH).and_then(|length| length.to_str().ok());
    if declared.and_then(|length| length.trim().parse::<u64>().ok()).is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge { limit });
    }
    let (head, body) = request.into_parts();
    let bytes = match tokio::time::timeout(timeout, Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<LengthLimitError>() => return Err(BodyError::TooLarge { limit }),
        // The client broke the body off (or its HTTP framing was wrong).
        Ok(Err(_)) => return Err(BodyError::Unreadable),
        Err(_) => return Err(BodyError::TimedOut { seconds: timeout.as_secs() }),
    };
    Ok(Request::from_parts(head, bytes))
}

/// What the edge hands requests to.
pub trait Service: Send + Sync + 'static {
    /// Answers a request that passed the edge's limits; `caller` is the calling address (behind a
    /// trusted proxy, the address it forwarded for).
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer;

    /// Renders the answer to a request the edge refused; whether and how it is counted is the
    /// service's business, as for the requests it answers. `caller` is the calling address, or
    /// the peer's when the refusal is that the caller is unknown.
    fn refused(&self, request: &Request<Incoming>, caller: IpAddr, refusal: Refusal) -> Response<Body>;
}
