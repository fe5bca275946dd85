//! What a call can fail with: the API's own refusals as the problem it answered (with its status), a
//! rate limit that outlasted the wait the client was allowed, and trouble on the way.

use tapster_wire::{LimitPolicy, Problem};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API refused the request and said why (`application/problem+json`): a `401` for the key,
    /// `404` for what is not there, `422` with each refused parameter in `problem.errors`...
    #[error("{} {}: {}", problem.status, problem.title, problem.detail)]
    Api { problem: Box<Problem> },
    /// Over a rate limit for longer than the client may wait (`ClientBuilder::max_wait`); retry after
    /// `retry_after` seconds.
    #[error("rate limited ({policy}); retry in {retry_after} s", policy = problem.violated_policies.as_deref().and_then(|p| p.first().map(LimitPolicy::as_str)).unwrap_or("unknown policy"))]
    RateLimited { retry_after: u64, problem: Box<Problem> },
    /// An answer that is not what the API documents (not JSON, or not of the shape asked for): a proxy
    /// in between, or a server of another version of the API.
    #[error("unexpected answer ({status}) to {target}: {detail}")]
    Unexpected { status: u16, target: String, detail: String },
    /// The request could not be sent, or its answer not read.
    #[error("transport: {0}")]
    Transport(String),
    /// The client was set up with something unusable (a base URL that is not one, a key that cannot be
    /// a header).
    #[error("configuration: {0}")]
    Config(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
