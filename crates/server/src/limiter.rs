//! Per-key rate limits in this process's memory: the rules of `limits` (a burst that refills at the
//! key's steady rate, a clock minute and a UTC day), applied to a few dozen bytes of state per key.
//! A request passes only when all three allow it, and only a request that passes is counted. A
//! browser key's callers each have a burst and a minute of their own, and share the key's day.
//!
//! The limiter is given the time; it never reads a clock, so its tests are exact and instant.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Mutex;
use std::time::Duration;

use foldhash::fast::RandomState;
use tapster_domain::Limits;

use crate::limits::{Checked, DAY, Decision, Limiter, MINUTE, Subject, gcra, status, wait};

/// The state of one subject: a key (all five fields), or a browser key's caller (its burst and
/// minute; its day is the key's).
#[derive(Debug, Clone, Copy, Default)]
struct KeyState {
    /// Theoretical arrival time of the next request, in nanoseconds since the epoch (GCRA).
    tat: u64,
    minute: u64,
    minute_count: u32,
    day: u64,
    day_count: u32,
}

/// Limits kept in this process's memory: a few dozen bytes per key, and per browser key's caller,
/// seen today.
#[derive(Debug, Default)]
pub struct InProcess {
    keys: Mutex<HashMap<Subject, KeyState, RandomState>>,
}

impl Limiter for InProcess {
    fn limit(&self, subject: Subject, limits: Limits, now: Duration) -> Checked {
        Checked::Now(self.check(subject, limits, now))
    }

    fn seed_day(&self, key: i64, day: u64, requests: u32) {
        let mut keys = self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let state = keys.entry(Subject::key(key)).or_default();
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
    /// Checks one request of `subject` at `now`, and counts it if it passes.
    pub fn check(&self, subject: Subject, limits: Limits, now: Duration) -> Decision {
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let mut keys = self.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if subject.visitor.is_none() {
            // A key's own state is also its whole day: found once, and counted where it lies.
            let entry = keys.entry(subject);
            let own = match &entry {
                Entry::Occupied(held) => *held.get(),
                Entry::Vacant(_) => KeyState::default(),
            };
            let (decision, counted) = judge(limits, now, own, own);
            if let Some(counted) = counted {
                entry.insert_entry(counted);
            }
            return decision;
        }
        let own = keys.get(&subject).copied().unwrap_or_default();
        let whole = keys.get(&subject.whole_key()).copied().unwrap_or_default();
        let (decision, counted) = judge(limits, now, own, whole);
        if let Some(counted) = counted {
            keys.insert(subject, KeyState { day: 0, day_count: 0, ..counted });
            keys.insert(
                subject.whole_key(),
                KeyState { day: counted.day, day_count: counted.day_count, ..whole },
            );
        }
        decision
    }
}

/// The decision on one request of a subject whose state is `own` and whose key's is `whole` (the
/// same for a key), with the subject's state once counted when it passes.
fn judge(limits: Limits, now: u64, own: KeyState, whole: KeyState) -> (Decision, Option<KeyState>) {
    let (interval, _) = gcra(limits);

    let tat = own.tat.max(now);
    let minute = now / MINUTE;
    let day = now / DAY;
    let minute_count = if own.minute == minute { own.minute_count } else { 0 };
    let day_count = if whole.day == day { whole.day_count } else { 0 };

    let wait = wait(limits, now, tat, minute_count, day_count);
    if wait > 0 {
        let status = status(limits, now, tat, minute_count, day_count);
        return (Decision::Limited { status, retry_after: Duration::from_nanos(wait) }, None);
    }
    let (tat, minute_count, day_count) = (tat.saturating_add(interval), minute_count + 1, day_count + 1);
    let counted = KeyState { tat, minute, minute_count, day, day_count };
    (Decision::Allowed(status(limits, now, tat, minute_count, day_count)), Some(counted))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: Subject = Subject { key: 1, visitor: None };
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
        limiter.seed_day(KEY.key, START.as_secs() / 86_400, 8);
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
        assert!(matches!(limiter.check(Subject::key(2), Limits::DEFAULT, at(0)), Decision::Allowed(_)));
    }

    #[test]
    fn a_browser_keys_callers_each_have_a_burst_and_share_the_day() {
        let limits = Limits { per_minute: 300, burst: 5, per_day: 12 };
        let limiter = InProcess::default();
        let first = Subject::visitor(1, "203.0.113.7".parse().unwrap());
        let second = Subject::visitor(1, "2001:db8::1".parse().unwrap());
        let passed = |subject| {
            (0..10).filter(|_| matches!(limiter.check(subject, limits, at(0)), Decision::Allowed(_))).count()
        };
        assert_eq!(passed(first), 5, "the first caller's burst");
        assert_eq!(passed(second), 5, "the second caller's own burst");
        // Another address of the same IPv6 /64 is the same caller.
        assert_eq!(passed(Subject::visitor(1, "2001:db8::ffff:2".parse().unwrap())), 0);
        // The day is the key's: 10 of 12 are used, so a third caller gets only 2.
        let Decision::Allowed(status) =
            limiter.check(Subject::visitor(1, "198.51.100.1".parse().unwrap()), limits, at(0))
        else {
            panic!("the third caller was refused at once")
        };
        assert_eq!((status.burst.left, status.day.left, status.requests_today), (4, 1, 11));
        assert_eq!(passed(Subject::visitor(1, "198.51.100.2".parse().unwrap())), 1);
        assert_eq!(
            passed(Subject::visitor(1, "198.51.100.3".parse().unwrap())),
            0,
            "the day cap holds over all"
        );
        // An IPv4 caller seen through an IPv6 socket is that IPv4 caller.
        assert_eq!(Subject::visitor(1, "::ffff:203.0.113.7".parse().unwrap()), first);
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
