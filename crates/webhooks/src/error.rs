//! The one error of the crate: why a secret, an endpoint, a signature or a delivery was not good,
//! each variant something a caller acts on (shows beside a field, answers `401`, retries, or stops
//! retrying), and each worded for the person who reads it.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A signing secret that is not `whsec_` followed by the base64 of 24 to 64 bytes.
    #[error("not a signing secret: {0}")]
    Secret(&'static str),
    /// An extra root certificate given in the `Config` that rustls does not take.
    #[error("the extra root certificate cannot be trusted: {0}")]
    Root(String),

    /// An endpoint URL a person typed that cannot be delivered to.
    #[error("the endpoint {0}")]
    Endpoint(EndpointProblem),

    /// A received webhook's header that is empty or not in the standard's form.
    #[error("the {header} header is missing or malformed")]
    MalformedHeader { header: &'static str },
    /// A received webhook signed further from now than the tolerance allows (a replay, or a clock
    /// that is off).
    #[error("the webhook's timestamp {timestamp} is more than {} s from now", tolerance.as_secs())]
    Stale { timestamp: i64, tolerance: Duration },
    /// A received webhook none of whose signatures is the one its secret makes.
    #[error("no signature of the webhook matches its secret")]
    SignatureMismatch,

    /// A header the caller asked to send that HTTP cannot carry, or that the delivery sets itself.
    #[error("the header {0} cannot be sent")]
    Header(String),
    /// The endpoint's host did not resolve to any address.
    #[error("{host} could not be resolved: {reason}")]
    Unresolved { host: String, reason: String },
    /// The endpoint's host is or resolved to an address that is not public, while the `Config` does
    /// not allow private addresses. `block` says which kind (`a private address`, `a loopback
    /// address`...).
    #[error("refused: {address} is {block}")]
    NotPublic { address: IpAddr, block: &'static str },
    /// No TCP connection could be made to the endpoint's address.
    #[error("could not connect to {address}: {reason}")]
    Connect { address: SocketAddr, reason: String },
    /// The TLS handshake failed: the certificate is not trusted or not for the host, or the server
    /// refused.
    #[error("TLS: {0}")]
    Tls(String),
    /// The connection broke, or what came back was not an HTTP/1.1 answer.
    #[error("no valid answer: {0}")]
    Http(String),
    /// The whole delivery (resolving, connecting, the request and its answer) took too long.
    #[error("timed out after {} s", .0.as_secs_f64())]
    TimedOut(Duration),
    /// The endpoint answered with a status that is not `2xx`; a redirect is not followed.
    #[error("{}", answered(*status, location.as_deref()))]
    Status { status: u16, location: Option<String> },
}

/// Why a typed endpoint URL is refused, worded to follow "the endpoint" (or the field's label).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointProblem {
    #[error("is empty")]
    Empty,
    #[error("must be at most {max} characters long")]
    TooLong { max: usize },
    #[error("must start with https://")]
    NotHttps,
    #[error("must start with https:// (plain http is only for private networks)")]
    PlainHttp,
    #[error("is not a valid URL: {0}")]
    NotUrl(&'static str),
    #[error("must name a host")]
    NoHost,
    #[error("must not contain a user name or password")]
    Credentials,
    #[error("must not end with a #fragment")]
    Fragment,
    #[error("is {block} ({host}): use a public address")]
    NotPublic { host: String, block: &'static str },
    #[error("is on Discord but is not a Discord webhook URL (https://discord.com/api/webhooks/...)")]
    NotDiscordWebhook,
}

fn answered(status: u16, location: Option<&str>) -> String {
    let reason = hyper::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason());
    let mut words = format!("answered {status}");
    if let Some(reason) = reason {
        words.push(' ');
        words.push_str(reason);
    }
    if let Some(location) = location {
        words.push_str(&format!(", a redirect to {location} that is not followed"));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_as_sentences_for_a_person() {
        let cases = [
            (Error::TimedOut(Duration::from_secs(10)), "timed out after 10 s"),
            (Error::TimedOut(Duration::from_millis(250)), "timed out after 0.25 s"),
            (
                Error::NotPublic { address: "10.0.0.1".parse().unwrap(), block: "a private address" },
                "refused: 10.0.0.1 is a private address",
            ),
            (Error::Tls("certificate not valid for host".into()), "TLS: certificate not valid for host"),
            (Error::Status { status: 500, location: None }, "answered 500 Internal Server Error"),
            (Error::Status { status: 599, location: None }, "answered 599"),
            (
                Error::Status { status: 302, location: Some("https://example.com/".into()) },
                "answered 302 Found, a redirect to https://example.com/ that is not followed",
            ),
            (Error::Endpoint(EndpointProblem::NotHttps), "the endpoint must start with https://"),
        ];
        for (error, words) in cases {
            assert_eq!(error.to_string(), words);
        }
    }
}
