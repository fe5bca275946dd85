//! What every limiter decides, and the rules it decides by, written once: a burst that refills at
//! the key's steady rate (GCRA, the generic cell rate algorithm), at most `per_minute` requests in
//! each clock minute, and `per_day` in each UTC day. A browser key's burst and minute are counted
//! for each calling address on its own ([`Subject`]), its day for the key over all of them. The in-process limiter (`limiter`) and the one
//! shared through Redis (`shared`, which falls back on the in-process one) both stand on this
//! module, which names neither of them.
//!
//! It reads no clock: the time comes in, and the arithmetic counts in nanoseconds since the Unix
//! epoch.

use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};
use std::pin::Pin;
use std::time::Duration;

use tapster_domain::Limits;

const NANOS_PER_SECOND: u64 = 1_000_000_000;
pub(crate) const MINUTE: u64 = 60 * NANOS_PER_SECOND;
pub(crate) const DAY: u64 = 86_400 * NANOS_PER_SECOND;

/// Whose burst and minute a request counts toward: its key's, or for a browser key the calling
/// address's under that key. The day is always the key's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subject {
    pub key: i64,
    /// The calling address, for a browser key: an IPv4 address, or the /64 network of an IPv6 one
    /// (what one household or server is given, and can hop within).
    pub visitor: Option<IpAddr>,
}

impl Subject {
    /// A key whose limits hold for all its callers together.
    pub fn key(key: i64) -> Self {
        Self { key, visitor: None }
    }

    /// One calling address under a browser key.
    pub fn visitor(key: i64, peer: IpAddr) -> Self {
        let visitor = match peer {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
            },
            v4 => v4,
        };
        Self { key, visitor: Some(visitor) }
    }

    /// The key's own subject, which holds its day.
    pub fn whole_key(self) -> Self {
        Self::key(self.key)
    }
}

/// Decides whether a key's request passes, and counts it if it does: in this process's memory (the
/// default), or in Redis for several replicas.
pub trait Limiter: Send + Sync + std::fmt::Debug {
    /// Checks one request of `subject` at `now` (time since the Unix epoch; a shared limiter takes
    /// the time of its store instead, so that replicas' clocks do not matter).
    fn limit(&self, subject: Subject, limits: Limits, now: Duration) -> Checked;
    /// Sets how many requests `key` already made on `day` (days since the epoch), as recorded before a restart.
    fn seed_day(&self, key: i64, day: u64, requests: u32);
    /// Forgets keys that hold nothing worth keeping at `now`.
    fn sweep(&self, now: Duration);
    /// Whether the limiter's day counts should be raised again to what the accounts database
    /// recorded (a shared store that may have lost them); asked after each write of usage, and
    /// true once per such loss.
    fn wants_seed(&self) -> bool {
        false
    }
    /// Why the limits are not what they should be now (a shared store out of reach), if they are not.
    fn trouble(&self) -> Option<String> {
        None
    }
}

/// A limiter's decision: at once, or after a round trip to a shared store.
pub enum Checked {
    Now(Decision),
    Later(Pin<Box<dyn Future<Output = Decision> + Send>>),
}

impl std::fmt::Debug for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Now(decision) => f.debug_tuple("Now").field(decision).finish(),
            Self::Later(_) => f.write_str("Later"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed(Status),
    /// Refused; it would pass after `retry_after`.
    Limited {
        status: Status,
        retry_after: Duration,
    },
}

/// What is left of each policy, and how long until some of it comes back (zero when nothing is used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub burst: Remaining,
    pub minute: Remaining,
    pub day: Remaining,
    /// Requests counted today (UTC); while a shared limiter's store is out of reach, this
    /// replica's count, which starts from its share of the day's.
    pub requests_today: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remaining {
    pub left: u32,
    pub reset: Duration,
}

/// The burst's parameters in nanoseconds: the interval between requests at the key's steady rate,
/// and how far the next arrival time may run ahead of now (the burst less one).
pub(crate) fn gcra(limits: Limits) -> (u64, u64) {
    let interval = (MINUTE / u64::from(limits.per_minute.max(1))).max(1);
    (interval, interval.saturating_mul(u64::from(limits.burst.max(1) - 1)))
}

/// How long a request at `now` (nanoseconds since the epoch) must wait to pass, given the key's
/// arrival time and counts as of `now`; zero when it passes.
pub(crate) fn wait(limits: Limits, now: u64, tat: u64, minute_count: u32, day_count: u32) -> u64 {
    let (_, tolerance) = gcra(limits);
    let mut wait = 0;
    if tat > now.saturating_add(tolerance) {
        wait = wait.max(tat - tolerance - now);
    }
    if minute_count >= limits.per_minute {
        wait = wait.max((now / MINUTE + 1) * MINUTE - now);
    }
    if day_count >= limits.per_day {
        wait = wait.max((now / DAY + 1) * DAY - now);
    }
    wait
}

/// What is left of each policy for a key with this arrival time and these counts at `now`.
pub(crate) fn status(limits: Limits, now: u64, tat: u64, minute_count: u32, day_count: u32) -> Status {
    let (interval, tolerance) = gcra(limits);
    // Requests that would pass right now: how far the next arrival time is below its ceiling.
    let slack = now.saturating_add(tolerance).saturating_add(interval).saturating_sub(tat);
    let burst_left = u32::try_from(slack / interval).unwrap_or(u32::MAX).min(limits.burst);
    let burst_reset = if tat <= now {
        0
    } else if now.saturating_add(tolerance).saturating_add(interval) < tat {
        tat - tolerance - interval - now + interval
    } else {
        interval - slack % interval
    };
    let minute = now / MINUTE;
    let day = now / DAY;
    Status {
        burst: Remaining { left: burst_left, reset: Duration::from_nanos(burst_reset) },
        minute: Remaining {
            left: limits.per_minute.saturating_sub(minute_count),
            reset: Duration::from_nanos(if minute_count == 0 { 0 } else { (minute + 1) * MINUTE - now }),
        },
        day: Remaining {
            left: limits.per_day.saturating_sub(day_count),
            reset: Duration::from_nanos(if day_count == 0 { 0 } else { (day + 1) * DAY - now }),
        },
        requests_today: day_count,
    }
}
