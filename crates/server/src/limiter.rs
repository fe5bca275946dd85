//! Per-key rate limits in this process's memory: the rules of `limits` (a burst that refills at the
//! key's steady rate, a clock minute and a UTC day), applied to a few dozen bytes of state per key.
//! A request passes only when all three allow it, and only a request that passes is counted.
//!
//! The limiter is given the time; it never reads a clock, so its tests are exact and instant.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tapster_domain::Limits;

use crate::limits::{Checked, DAY, Decision, Limiter, MINUTE, gcra, status, wait};

/// The state of one key.
#[derive(Debug, Clone, Copy, Default)]
struct KeyState {
    /// Theoretical arrival time of the next request, in nanoseconds since the epoch (GCRA).
    tat: u64,
    minute: u64,
    minute_count: u32,
    day: u64,
    day_count: u32,
}

/// Limits kept in this process's memory: a few dozen bytes per key seen today.
#[derive(Debug, Default)]
pub struct InProcess {
    keys: Mutex<HashMap<i64, KeyState>>,
}

impl Limiter for InProcess {
    fn limit(&self, key: i64, limits: Limits, now: Duration) -> Checked {
        Checked::Now(self.check(key, limits, now))
    }

    fn seed_day(&self, key: i64, day: u64, requests: u32) {
        let mut keys = self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let state = keys.entry(key).or_default();
        if state.day < day || (state.day == day && state.day_count < requests) {
            state.day = day;
            state.day_count = requests;
        }
    }

    fn sweep(&self, now: Duration) {
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let mut keys = self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        keys.retain(|_, s| s.tat > now || s.minute == now / MINUTE || s.day == now / DAY);
    }
}

impl InProcess {
    /// Checks one request of `key` at `now`, and counts it if it passes.
    pub fn check(&self, key: i64, limits: Limits, now: Duration) -> Decision {
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let mut keys = self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let state = keys.entry(key).or_default();
        let (interval, _) = gcra(limits);

        let tat = state.tat.max(now);
        let minute = now / MINUTE;
        let day = now / DAY;
        let minute_count = if state.minute == minute { state.minute_count } else { 0 };
        let day_count = if state.day == day { state.day_count } else { 0 };

        let wait = wait(limits, now, tat, minute_count, day_count);
        if wait > 0 {
            let status = status(limits, now, tat, minute_count, day_count);
            return Decision::Limited { status, retry_after: Duration::from_nanos(wait) };
        }
        *state = KeyState {
            tat: tat.saturating_add(interval),
            minute,
            minute_count: minute_count + 1,
            day,
            day_count: day_count + 1,
        };
        Decision::Allowed(status(limits, now, state.tat, state.minute_count, state.day_count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: i64 = 1;
    /// A moment well inside a minute and a day, so that windows do not roll over mid-test.
    const START: Duration = Duration::from_secs(1_795_296_810);

    fn at(offset_millis: u64) -> Duration {
        START + Duration::from_millis(offset_millis)
    }

    fn passes(limiter: &InProcess, limits: Limits, now: Duration) -> bool {
        matches!(limiter.check(KEY, limits, now), Decision::Allowed(_))
    }

    #[test]
    fn exactly_the_burst_passes_at_once_then_the_wait_is_one_interval() {
        let limiter = InProcess::default();
        for n in 0..60 {
            assert!(passes(&limiter, Limits::DEFAULT, at(0)), "request {n}");
        }
        match limiter.check(KEY, Limits::DEFAULT, at(0)) {
            Decision::Limited { status, retry_after } => {
                assert_eq!(retry_after, Duration::from_millis(200));
                assert_eq!(status.burst.left, 0);
            }
            allowed => panic!("the 61st request passed: {allowed:?}"),
        }
    }

    #[test]
    fn the_burst_refills_at_five_per_second() {
        let limiter = InProcess::default();
        for _ in 0..60 {
            assert!(passes(&limiter, Limits::DEFAULT, at(0)));
        }
        assert!(!passes(&limiter, Limits::DEFAULT, at(199)));
        // One second later, exactly five more pass.
        let passed = (0..10).filter(|_| passes(&limiter, Limits::DEFAULT, at(1_000))).count();
        assert_eq!(passed, 5);
    }

    #[test]
    fn refused_requests_use_up_nothing() {
        let limiter = InProcess::default();
        for _ in 0..60 {
            assert!(passes(&limiter, Limits::DEFAULT, at(0)));
        }
        for _ in 0..1_000 {
            assert!(!passes(&limiter, Limits::DEFAULT, at(100)));
        }
        assert!(passes(&limiter, Limits::DEFAULT, at(200)));
    }

    #[test]
    fn no_more_than_the_minute_allows_even_when_the_burst_refills() {
        let limits = Limits { per_minute: 300, burst: 60, per_day: 20_000 };
        let limiter = InProcess::default();
        // Spread over the minute at the steady rate, the burst never runs dry, but the minute does.
        let minute_start = (START.as_secs() / 60) * 60;
        let mut passed = 0;
        for n in 0..400u64 {
            let now = Duration::from_secs(minute_start) + Duration::from_millis(n * 140);
            if now.as_secs() / 60 != minute_start / 60 {
                break;
            }
            passed += u32::from(passes(&limiter, limits, now));
        }
        assert_eq!(passed, 300);
        let decision = limiter.check(KEY, limits, Duration::from_secs(minute_start + 59));
        let Decision::Limited { retry_after, status } = decision else { panic!("{decision:?}") };
        assert_eq!(retry_after, Duration::from_secs(1));
        assert_eq!(status.minute.left, 0);
    }

    #[test]
    fn the_daily_cap_holds_until_midnight_utc() {
        let limits = Limits { per_minute: 300, burst: 60, per_day: 10 };
        let limiter = InProcess::default();
        let midnight = Duration::from_secs((START.as_secs() / 86_400 + 1) * 86_400);
        let before = midnight - Duration::from_secs(3_600);
        for n in 0..10 {
            assert!(passes(&limiter, limits, before + Duration::from_secs(n)), "request {n}");
        }
        let Decision::Limited { retry_after, status } =
            limiter.check(KEY, limits, before + Duration::from_secs(10))
        else {
            panic!("the 11th request of the day passed")
        };
        assert_eq!(retry_after, Duration::from_secs(3_590));
        assert_eq!(status.day.left, 0);
        assert!(passes(&limiter, limits, midnight));
    }

    #[test]
    fn a_seeded_day_counts_toward_the_cap() {
        let limits = Limits { per_minute: 300, burst: 60, per_day: 10 };
        let limiter = InProcess::default();
        limiter.seed_day(KEY, START.as_secs() / 86_400, 8);
        assert!(passes(&limiter, limits, at(0)));
        assert!(passes(&limiter, limits, at(1)));
        assert!(!passes(&limiter, limits, at(2)));
    }

    #[test]
    fn keys_do_not_share_limits() {
        let limiter = InProcess::default();
        for _ in 0..60 {
            assert!(passes(&limiter, Limits::DEFAULT, at(0)));
        }
        assert!(matches!(limiter.check(2, Limits::DEFAULT, at(0)), Decision::Allowed(_)));
    }

    #[test]
    fn status_reports_what_is_left_and_when_it_comes_back() {
        let limiter = InProcess::default();
        let Decision::Allowed(first) = limiter.check(KEY, Limits::DEFAULT, at(0)) else { panic!() };
        assert_eq!((first.burst.left, first.minute.left, first.day.left), (59, 299, 19_999));
        assert_eq!(first.burst.reset, Duration::from_millis(200));
        for _ in 0..17 {
            limiter.check(KEY, Limits::DEFAULT, at(0));
        }
        let Decision::Allowed(later) = limiter.check(KEY, Limits::DEFAULT, at(50)) else { panic!() };
        assert_eq!(later.burst.left, 41);
        assert_eq!(later.burst.reset, Duration::from_millis(150));
    }

    #[test]
    fn sweeping_keeps_todays_counts_and_drops_the_rest() {
        let limits = Limits { per_minute: 300, burst: 60, per_day: 10 };
        let limiter = InProcess::default();
        for _ in 0..10 {
            limiter.check(KEY, limits, at(0));
        }
        limiter.sweep(at(120_000));
        assert!(!passes(&limiter, limits, at(120_000)), "the day's count was forgotten");
        limiter.sweep(START + Duration::from_secs(2 * 86_400));
        assert!(limiter.keys.lock().unwrap().is_empty());
    }
}
