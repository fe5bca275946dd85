//! The gate every `/v1` request passes before it is routed: who is calling (the key in
//! `Authorization`), whether they may, and how much of their allowance is left. This crate reads the
//! credentials and renders the verdict; the verdict itself comes from a [`Gate`] the server supplies.

use std::fmt::Write as _;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use hyper::HeaderMap;
use hyper::header::{AUTHORIZATION, HeaderValue};
use tapster_domain::{ApiKey, Limits, Timestamp};

/// What a request presents in its `Authorization` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    Missing,
    /// A header that is not `Bearer <key>`, or a key of the wrong shape or checksum; `detail` says which.
    Malformed {
        detail: &'static str,
    },
    Key(ApiKey),
}

impl Credentials {
    /// Reads `Authorization: Bearer <key>`; the scheme is matched case-insensitively (RFC 9110).
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return if headers.contains_key(AUTHORIZATION) {
                Self::Malformed { detail: "send one Authorization header, not several" }
            } else {
                Self::Missing
            };
        };
        let Ok(value) = value.to_str() else {
            return Self::Malformed { detail: "the Authorization header must be `Bearer <API key>`" };
        };
        // Visible ASCII, spaces and tabs (`to_str` allows no more): ASCII whitespace is all there is.
        let value = value.trim_ascii();
        let (scheme, key) = value.split_once(' ').unwrap_or((value, ""));
        let key = key.trim_ascii();
        if !scheme.eq_ignore_ascii_case("bearer") || key.is_empty() {
            return Self::Malformed { detail: "the Authorization header must be `Bearer <API key>`" };
        }
        match ApiKey::parse(key) {
            Ok(key) => Self::Key(key),
            Err(tapster_domain::Error::Checksum) => {
                Self::Malformed { detail: "the API key fails its checksum: it was mistyped or cut short" }
            }
            Err(_) => Self::Malformed {
                detail: "that is not an API key: keys are `tap_` and 36 letters and digits",
            },
        }
    }
}

/// Decides on each `/v1` request. Implementations count every admitted request against the key's
/// limits, and never count a refused one.
pub trait Gate: Send + Sync + std::fmt::Debug + 'static {
    /// The verdict on a request from the calling address `peer` presenting `credentials`, sent by a
    /// browser from the page of `origin` (its `Origin` header, as sent) when one is named.
    fn admit(&self, peer: IpAddr, credentials: &Credentials, origin: Option<&str>) -> Verdict;
}

/// A gate shared with whoever else needs it (the server's upkeep thread reloads and flushes it).
impl<G: Gate> Gate for std::sync::Arc<G> {
    fn admit(&self, peer: IpAddr, credentials: &Credentials, origin: Option<&str>) -> Verdict {
        G::admit(self, peer, credentials, origin)
    }
}

/// A gate's decision: made at once (from memory, as for the limits kept in the process), or later
/// (the limits shared by several replicas are asked over the network). Only a later decision costs
/// the request a boxed future.
#[allow(
    clippy::large_enum_variant,
    reason = "`Now` is almost every request's verdict: boxing it would allocate for each, as `Later` already does"
)]
pub enum Verdict {
    Now(Result<Admission, Refusal>),
    Later(PendingVerdict),
}

/// A decision still to come.
pub type PendingVerdict = Pin<Box<dyn Future<Output = Result<Admission, Refusal>> + Send>>;

impl From<Result<Admission, Refusal>> for Verdict {
    fn from(decided: Result<Admission, Refusal>) -> Self {
        Self::Now(decided)
    }
}

impl std::fmt::Debug for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Now(decided) => f.debug_tuple("Now").field(decided).finish(),
            Self::Later(_) => f.write_str("Later"),
        }
    }
}

/// A request that may proceed, with what is left of the key's allowance after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub key: Arc<CallingKey>,
    pub quota: Quota,
    /// Requests the key made today (UTC), this one included.
    pub requests_today: u64,
    /// For a browser key, the origin the request came from, which its owner allows: CORS names it
    /// instead of `*`.
    pub allowed_origin: Option<HeaderValue>,
}

/// The key a request was admitted with, as `GET /v1/key` describes it (the log names it by its
/// prefix). It is the same for every answer to the key, so the gate makes it once per key and every
/// admission shares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallingKey {
    /// The key's public prefix (`tap_` and its first characters), never the key.
    pub prefix: String,
    /// The name its owner gave it.
    pub name: String,
    /// When it stops working; `None` for never.
    pub expires_at: Option<Timestamp>,
}

/// Why a request may not proceed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    MissingKey,
    MalformedKey {
        detail: &'static str,
    },
    UnknownKey,
    RevokedKey,
    /// A key past the expiry its owner chose.
    ExpiredKey,
    SuspendedKey,
    SuspendedAccount,
    UnconfirmedAccount,
    BlockedAddress,
    /// A browser key sent without an `Origin` (`None`) or from a page its owner did not allow.
    OriginNotAllowed {
        origin: Option<String>,
    },
    /// Over a limit: `retry_after` whole seconds (at least 1) until the request would pass. The
    /// quota is boxed: refusals are rare, and the admitted requests' results stay small.
    RateLimited {
        quota: Box<Quota>,
        retry_after: u64,
    },
    /// The calling address failed authentication too often lately: refused without looking the key
    /// up, for `retry_after` whole seconds (at least 1).
    TooManyFailures {
        retry_after: u64,
    },
}

/// A key's rate-limit policies and where the key stands in each, for the `RateLimit-Policy` and
/// `RateLimit` headers of every answer to it and for `GET /v1/key`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quota {
    pub policies: Policies,
    /// Each policy after the request, in the order of `policies`, held in place (every answer has
    /// one, so it costs no allocation); the first `held` count.
    states: [PolicyState; Quota::MAX_POLICIES],
    held: usize,
}

/// One rate-limit policy: what it allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// `burst`, `minute` or `day`.
    pub name: &'static str,
    /// Requests the policy allows per window.
    pub quota: u32,
    /// The window, in seconds.
    pub window: u64,
}

impl Policy {
    /// Every name a policy may have: a key's own, then a browser key's per calling address.
    pub const NAMES: [&'static str; 5] =
        ["burst", "minute", "day", "burst-per-address", "minute-per-address"];

    /// A key's limits as the three policies its answers name: the burst, refilled at the minute's
    /// rate, the minute and the UTC day.
    pub fn for_limits(limits: Limits) -> [Self; 3] {
        let refill_seconds = (u64::from(limits.burst) * 60).div_ceil(u64::from(limits.per_minute.max(1)));
        [
            Self { name: "burst", quota: limits.burst, window: refill_seconds },
            Self { name: "minute", quota: limits.per_minute, window: 60 },
            Self { name: "day", quota: limits.per_day, window: 86_400 },
        ]
    }

    /// A browser key's limits: the burst and the minute apply to each calling address on its own
    /// (named so), the day to the key over all of them.
    pub fn for_browser_key(limits: Limits) -> [Self; 3] {
        let [burst, minute, day] = Self::for_limits(limits);
        [Self { name: "burst-per-address", ..burst }, Self { name: "minute-per-address", ..minute }, day]
    }
}

/// What is left of one policy after a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PolicyState {
    pub policy: Policy,
    pub remaining: u32,
    /// Seconds until some of the quota comes back (0 when none is used).
    pub reset: u64,
}

/// A key's policies as the `RateLimit-Policy` value, e.g. `"burst";q=60;w=12, "minute";q=300;w=60,
/// "day";q=20000;w=86400`. It is the same for every answer to the key, so the gate makes it once
/// per key and every answer shares its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policies(HeaderValue);

impl Policies {
    pub fn new(policies: &[Policy]) -> Self {
        let mut header = String::with_capacity(24 * policies.len());
        for (i, p) in policies.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            let _ = write!(header, "{separator}\"{}\";q={};w={}", p.name, p.quota, p.window);
        }
        Self(ascii_header(header))
    }

    pub(crate) fn header(&self) -> &HeaderValue {
        &self.0
    }
}

impl Default for Policies {
    fn default() -> Self {
        Self(HeaderValue::from_static(""))
    }
}

impl Quota {
    /// The most policies a key has: its burst, minute and day.
    pub const MAX_POLICIES: usize = 3;

    /// `policies` with the state of each after a request.
    ///
    /// # Panics
    /// With more than [`Quota::MAX_POLICIES`] states: no key has more policies.
    pub fn new(policies: Policies, states: &[PolicyState]) -> Self {
        assert!(states.len() <= Self::MAX_POLICIES, "a key has at most {} policies", Self::MAX_POLICIES);
        let mut held = [PolicyState::default(); Self::MAX_POLICIES];
        held[..states.len()].copy_from_slice(states);
        Self { policies, states: held, held: states.len() }
    }

    /// Each policy after the request, in the order of `policies`; none for a key without limits.
    pub fn states(&self) -> &[PolicyState] {
        &self.states[..self.held]
    }

    /// The policy nearest to exhaustion: the smallest share left, and on a tie the one that takes
    /// longest to come back; `None` for a key without limits.
    pub fn nearest(&self) -> Option<PolicyState> {
        self.states().iter().copied().min_by(|a, b| {
            let share_a = u64::from(a.remaining) * u64::from(b.policy.quota);
            let share_b = u64::from(b.remaining) * u64::from(a.policy.quota);
            share_a.cmp(&share_b).then(b.reset.cmp(&a.reset))
        })
    }

    /// `RateLimit`: the policy nearest to exhaustion, e.g. `"burst";r=42;t=1`.
    pub(crate) fn state_header(&self) -> Option<HeaderValue> {
        let nearest = self.nearest()?;
        // Written piece by piece, as every answer has one: `format!` cost more than the rest of
        // the headers together.
        let (mut remaining, mut reset) = (itoa::Buffer::new(), itoa::Buffer::new());
        let (remaining, reset) = (remaining.format(nearest.remaining), reset.format(nearest.reset));
        let mut bytes = Vec::with_capacity(nearest.policy.name.len() + remaining.len() + reset.len() + 8);
        for piece in ["\"", nearest.policy.name, "\";r=", remaining, ";t=", reset] {
            bytes.extend_from_slice(piece.as_bytes());
        }
        let mut value = HeaderValue::from_maybe_shared(Bytes::from(bytes))
            .unwrap_or_else(|_| HeaderValue::from_static(""));
        // New with every answer: marked so that HTTP/2 sends it as a literal that is never indexed
        // (HPACK), rather than adding each value to the connection's header table, where it pushed
        // out the headers that repeat (Cache-Control, Vary, CORS...) and had them encoded anew. A
        // proxy keeps the mark; `Debug` prints the value as `Sensitive`.
        value.set_sensitive(true);
        Some(value)
    }
}

/// A header value made of policy names and numbers (ASCII by construction); its bytes become the
/// header without a copy.
fn ascii_header(value: String) -> HeaderValue {
    HeaderValue::from_maybe_shared(Bytes::from(value)).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(values: &[&str]) -> Credentials {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        Credentials::from_headers(&headers)
    }

    #[test]
    fn reads_bearer_keys_case_insensitively() {
        let key = ApiKey::generate({
            let mut n = 0u8;
            move || {
                n = n.wrapping_add(31);
                n
            }
        });
        for header in [
            format!("Bearer {}", key.expose()),
            format!("bearer {}", key.expose()),
            format!("BEARER  {} ", key.expose()),
        ] {
            assert_eq!(credentials(&[&header]), Credentials::Key(key.clone()), "{header}");
        }
        assert_eq!(credentials(&[]), Credentials::Missing);
        let mut broken = key.expose().to_owned();
        broken.replace_range(10..11, if &broken[10..11] == "A" { "B" } else { "A" });
        let malformed = [
            "Basic dXNlcjpwYXNz".to_owned(),
            "Bearer".to_owned(),
            key.expose().to_owned(),
            format!("Bearer {broken}"),
            "Bearer tap_short".to_owned(),
        ];
        for header in malformed {
            assert!(matches!(credentials(&[&header]), Credentials::Malformed { .. }), "{header}");
        }
        let header = format!("Bearer {}", key.expose());
        assert!(matches!(credentials(&[&header, &header]), Credentials::Malformed { .. }));
    }

    #[test]
    fn headers_name_every_policy_and_the_nearest_one() {
        let (burst, minute, day) = (
            Policy { name: "burst", quota: 60, window: 12 },
            Policy { name: "minute", quota: 300, window: 60 },
            Policy { name: "day", quota: 20000, window: 86400 },
        );
        let quota = Quota::new(
            Policies::new(&[burst, minute, day]),
            &[
                PolicyState { policy: burst, remaining: 42, reset: 1 },
                PolicyState { policy: minute, remaining: 282, reset: 48 },
                PolicyState { policy: day, remaining: 19000, reset: 3600 },
            ],
        );
        assert_eq!(
            quota.policies.header(),
            r#""burst";q=60;w=12, "minute";q=300;w=60, "day";q=20000;w=86400"#
        );
        assert_eq!(quota.state_header().unwrap(), r#""burst";r=42;t=1"#);
        // Never indexed by HPACK: a new value with every answer would crowd the repeating headers out.
        assert!(quota.state_header().unwrap().is_sensitive());
        assert!(!quota.policies.header().is_sensitive());
        // The same share left: the policy that takes longest to come back is the nearer.
        let tied = Quota::new(
            Policies::new(&[minute, day]),
            &[
                PolicyState { policy: minute, remaining: 150, reset: 30 },
                PolicyState { policy: day, remaining: 10000, reset: 3600 },
            ],
        );
        assert_eq!(tied.state_header().unwrap(), r#""day";r=10000;t=3600"#);
        assert_eq!(Quota::default().state_header(), None);
    }
}
