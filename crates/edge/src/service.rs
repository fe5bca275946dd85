//! What the edge serves: a [`Service`] answers the requests that pass the edge's limits and renders
//! the [`Refusal`]s of those that do not, so that every request, refused or not, is answered in the
//! service's own format and counted by it.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};

/// The body of every answer: whole, in memory.
pub type Body = Full<Bytes>;

/// A service's answer to one request: made at once (the API answers from memory, so it pays for
/// neither a task nor a boxed future), or later (a page that reads a form first).
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
}

/// What the edge hands requests to.
pub trait Service: Send + Sync + 'static {
    /// Answers a request that passed the edge's limits; `caller` is the calling address (behind a
    /// trusted proxy, the address it forwarded for).
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer;

    /// Renders, and counts, the answer to a request the edge refused.
    fn refused(&self, request: &Request<Incoming>, caller: IpAddr, refusal: Refusal) -> Response<Body>;
}
