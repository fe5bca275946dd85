//! The rate-limit state an answer reports in the `RateLimit` header (IETF RateLimit header fields
//! draft): the policy nearest to exhaustion, what remains of it and when it comes back.

use hyper::HeaderMap;
use tapster_wire::LimitPolicy;

/// Where the key stood after a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// The policy nearest to exhaustion.
    pub policy: LimitPolicy,
    /// Requests left of it.
    pub remaining: u64,
    /// Seconds until some of it comes back.
    pub reset: u64,
}

impl RateLimit {
    /// The state `headers` report, if they carry a `RateLimit` field that reads.
    pub(crate) fn from_headers(headers: &HeaderMap) -> Option<Self> {
        Self::parse(headers.get("ratelimit")?.to_str().ok()?)
    }

    /// `"burst";r=42;t=1`.
    fn parse(value: &str) -> Option<Self> {
        let mut parts = value.split(';').map(str::trim);
        let policy = LimitPolicy::parse(parts.next()?.trim_matches('"'));
        let (mut remaining, mut reset) = (None, None);
        for part in parts {
            match part.split_once('=') {
                Some(("r", r)) => remaining = r.parse().ok(),
                Some(("t", t)) => reset = t.parse().ok(),
                _ => {}
            }
        }
        Some(Self { policy, remaining: remaining?, reset: reset.unwrap_or(0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_draft_s_fields() {
        assert_eq!(
            RateLimit::parse(r#""burst";r=42;t=1"#),
            Some(RateLimit { policy: LimitPolicy::Burst, remaining: 42, reset: 1 })
        );
        assert_eq!(RateLimit::parse(r#""day";t=5;r=0"#).map(|r| (r.remaining, r.reset)), Some((0, 5)));
        assert_eq!(RateLimit::parse("nonsense"), None);
    }
}
