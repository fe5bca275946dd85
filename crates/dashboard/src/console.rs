//! The API console behind the reference page's "try it" forms (`/docs`): a signed-in person picks
//! one of their keys and a `/v1` request, and the dashboard has it answered as that key. Keys are
//! kept only as hashes, so the page cannot send one itself; the server gives the dashboard a
//! [`Console`] that calls the API as a key chosen by its id, counted against that key's limits as any
//! other request of it.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;

/// Answers a `/v1` request as one key, for the dashboard: the server's implementation runs it through
/// its gate (by the key's id) and the API.
pub trait Console: Send + Sync + std::fmt::Debug + 'static {
    /// Answers `GET target` (a path and query under `/v1`) as the key `key`, called from `peer`.
    fn call(
        &self,
        key: i64,
        target: String,
        peer: IpAddr,
    ) -> Pin<Box<dyn Future<Output = ConsoleAnswer> + Send>>;
}

/// What the API answered, as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleAnswer {
    pub status: u16,
    pub content_type: String,
    /// The `RateLimit` header: where the key stands after the call.
    pub rate_limit: Option<String>,
    /// The body as text (the API answers JSON).
    pub body: String,
}
