//! Rate limits shared by every replica, in Redis (`--redis-url`): one atomic round trip per request,
//! a Lua script run by `EVALSHA` (`limits.lua`, reloaded by the client when Redis answers `NOSCRIPT`)
//! that applies the burst, the minute and the day in Redis's own time, so that the replicas' clocks
//! do not matter; in microseconds, the arrival interval rounded down to one. Each API key's state is
//! one hash, `<prefix>:{<key id>}`. What is left of each limit is worked out here from what the
//! script returns, by the same functions as the in-process limiter's.
//!
//! A key's requests that arrive while its script is running are judged together by the next run,
//! as if they had reached Redis one after another at that instant: the same decisions as one run
//! each, for one round trip. A busy key (a crawler, a bot) then costs Redis and this process one
//! run per round trip instead of one per request; a request waits at most two runs, each within the
//! timeout, but for the first run after Redis failed, which first gives Redis back what it lost.
//!
//! When Redis does not answer within its timeout (`--redis-timeout-ms`, 25 by default), the replica
//! keeps serving: for [`OPEN_FOR`] it does not ask Redis at all (a circuit breaker), and limits each
//! key in its own memory at a fair share of its limits (divided by the number of replicas,
//! `--replicas`), starting from its share of the day's count Redis last gave. Once Redis answers
//! again, what it admitted meanwhile is added to Redis's day counts, and since a Redis that restarted
//! has lost its counts, each key's day is raised at once to at least what Redis last said of it plus
//! those, and at the next write of usage to what the accounts database recorded (see
//! [`Limiter::wants_seed`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tapster_domain::Limits;
use tokio::sync::oneshot;

use crate::limiter::{Checked, DAY, Decision, InProcess, Limiter, gcra, status, wait};

/// How long a request waits for Redis, unless told otherwise, before its key is limited locally.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(25);
/// How long Redis is left alone after it failed to answer, before it is asked again.
const OPEN_FOR: Duration = Duration::from_secs(1);

/// The limiter of a replica among several, backed by Redis.
#[derive(Debug, Clone)]
pub struct Shared {
    inner: Arc<Inner>,
}

struct Inner {
    redis: ConnectionManager,
    limits: Script,
    add_day: Script,
    /// Names this deployment's keys in Redis, so that several deployments (or test runs) can share one.
    prefix: String,
    /// How many replicas share the limits: a key's fair share here while Redis is out of reach.
    replicas: u32,
    /// How long a request waits for Redis.
    timeout: Duration,
    /// The limiter while Redis is out of reach.
    local: InProcess,
    /// When this limiter was made: the origin of `open_until`.
    started: Instant,
    /// Until when Redis is not asked after it failed, in milliseconds since `started` (an atomic:
    /// every request reads it).
    open_until: AtomicU64,
    /// The requests waiting for the next run of their key's script, by key. A key is here while a
    /// run for it is in flight.
    queued: Mutex<HashMap<i64, Vec<Queued>>>,
    /// Requests admitted locally while Redis was out of reach, by key and day.
    owed: Mutex<HashMap<(i64, u64), u32>>,
    /// The day's count Redis last gave for each key, by key: day and count.
    seen: Mutex<HashMap<i64, (u64, u32)>>,
    degraded: AtomicBool,
    /// Set when Redis answers again after it failed: it may have lost its day counts.
    reseed: AtomicBool,
}

/// A request waiting for the next run of its key's script: its own time (for the local fallback), the
/// key's limits as it was admitted with them, and where its decision goes.
struct Queued {
    now: Duration,
    limits: Limits,
    decision: oneshot::Sender<Decision>,
}

/// Whoever holds this, when dropped, starts the run for the requests of `key` queued behind its own.
struct HandOn {
    inner: Arc<Inner>,
    key: i64,
}

impl Drop for HandOn {
    fn drop(&mut self) {
        self.inner.hand_on(self.key);
    }
}

/// What the limits script says of some requests of one key: how many of them passed, Redis's time,
/// and the key's arrival time and counts before them (in microseconds since the epoch).
struct Counted {
    admitted: u32,
    now: u64,
    tat: u64,
    minute_count: u32,
    day_count: u32,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("prefix", &self.prefix)
            .field("replicas", &self.replicas)
            .field("degraded", &self.degraded.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// A limiter on the Redis at `url` for `replicas` replicas, waiting at most `timeout` for each
    /// answer. It connects when first asked, and reconnects by itself: a replica starts, and serves,
    /// while Redis is down.
    pub fn new(url: &str, prefix: &str, replicas: u32, timeout: Duration) -> anyhow::Result<Self> {
        let bad = || format!("the Redis URL {}", tapster_domain::url_without_password(url));
        let client = redis::Client::open(url).with_context(bad)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(timeout))
            .set_connection_timeout(Some(Duration::from_millis(250)))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(1));
        let redis = ConnectionManager::new_lazy_with_config(client, config).with_context(bad)?;
        Ok(Self {
            inner: Arc::new(Inner {
                redis,
                limits: Script::new(include_str!("limits.lua")),
                add_day: Script::new(include_str!("add_day.lua")),
                prefix: prefix.to_owned(),
                replicas: replicas.max(1),
                timeout,
                local: InProcess::default(),
                started: Instant::now(),
                open_until: AtomicU64::new(0),
                queued: Mutex::default(),
                owed: Mutex::default(),
                seen: Mutex::default(),
                degraded: AtomicBool::new(false),
                reseed: AtomicBool::new(false),
            }),
        })
    }

    /// Whether Redis failed to answer lately and keys are limited locally.
    pub fn degraded(&self) -> bool {
        self.inner.degraded.load(Ordering::Relaxed)
    }
}

impl Limiter for Shared {
    fn limit(&self, key: i64, limits: Limits, now: Duration) -> Checked {
        if self.inner.is_open() {
            return Checked::Now(self.inner.local_check(key, limits, now));
        }
        Checked::Later(Box::pin(Arc::clone(&self.inner).check(key, limits, now)))
    }

    /// Raises Redis's count of `day` to what the accounts database recorded (after Redis lost its
    /// data, the database's count is the better one), and the local fallback's to its share.
    fn seed_day(&self, key: i64, day: u64, requests: u32) {
        self.inner.local.seed_day(key, day, requests.div_ceil(self.inner.replicas));
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move {
            if let Err(error) = inner.add_to_day(key, day, requests, "at-least").await {
                tracing::warn!(%error, key, "could not seed the day's count in Redis");
            }
        });
    }

    fn sweep(&self, now: Duration) {
        self.inner.local.sweep(now);
        let today = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX) / DAY;
        lock(&self.inner.seen).retain(|_, (day, _)| *day >= today);
    }

    fn wants_seed(&self) -> bool {
        self.inner.reseed.swap(false, Ordering::Relaxed)
    }

    fn trouble(&self) -> Option<String> {
        self.degraded().then(|| {
            format!(
                "Redis is out of reach: each key is limited by each replica at 1/{} of its limits until it answers",
                self.inner.replicas
            )
        })
    }
}

impl Inner {
    fn redis_key(&self, key: i64) -> String {
        format!("{}:{{{key}}}", self.prefix)
    }

    /// Decides one request of `key`: by a run of the script of its own when none is in flight for
    /// the key, or else by the run that follows it, with every other request queued meanwhile.
    async fn check(self: Arc<Self>, key: i64, limits: Limits, now: Duration) -> Decision {
        let queued = match lock(&self.queued).entry(key) {
            Entry::Occupied(mut waiting) => {
                let (decision, decided) = oneshot::channel();
                waiting.get_mut().push(Queued { now, limits, decision });
                Some(decided)
            }
            Entry::Vacant(slot) => {
                slot.insert(Vec::new());
                None
            }
        };
        if let Some(decided) = queued {
            // Only lost if the run's task was: then decided here, as without Redis.
            return decided.await.unwrap_or_else(|_| self.local_check(key, limits, now));
        }
        // Whether this request's run ends or is dropped (its client went away), the requests queued
        // behind it get theirs.
        let _next = HandOn { inner: Arc::clone(&self), key };
        self.judge(key, limits, &[now]).await.pop().unwrap_or_else(|| self.local_check(key, limits, now))
    }

    /// Starts the run for the requests of `key` queued behind the one that ended, if there are any;
    /// otherwise the key has no run in flight any more.
    fn hand_on(self: &Arc<Self>, key: i64) {
        // With the latest request's limits: a key's limits changed while it was busy apply from its
        // next run.
        let (waiting, limits) = {
            let mut queued = lock(&self.queued);
            match queued.get_mut(&key).and_then(|waiting| Some((waiting.last()?.limits, waiting))) {
                Some((limits, waiting)) => (std::mem::take(waiting), limits),
                None => {
                    queued.remove(&key);
                    return;
                }
            }
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // The runtime is going away, and with it the requests.
            lock(&self.queued).remove(&key);
            return;
        };
        let inner = Arc::clone(self);
        // Made here, not in the task, so that even a task dropped before it ever runs hands on.
        let next = HandOn { inner: Arc::clone(self), key };
        runtime.spawn(async move {
            let _next = next;
            let times: Vec<Duration> = waiting.iter().map(|queued| queued.now).collect();
            let decisions = inner.judge(key, limits, &times).await;
            for (queued, decision) in waiting.into_iter().zip(decisions) {
                // A request whose client went away needs no answer.
                let _ = queued.decision.send(decision);
            }
        });
    }

    /// Decides requests of `key` made at `times`, in that order, in one run of the script; without
    /// an answer in time, trips the breaker and decides them locally. The first answer after Redis
    /// failed is not trusted: Redis may have restarted empty, so it is first given back what it
    /// lost, and then asked again.
    async fn judge(&self, key: i64, limits: Limits, times: &[Duration]) -> Vec<Decision> {
        let local = || times.iter().map(|&now| self.local_check(key, limits, now)).collect();
        if self.is_open() {
            return local();
        }
        let requests = u32::try_from(times.len()).unwrap_or(u32::MAX);
        let answer = match self.ask(key, limits, requests).await {
            Ok(answer) if self.recovered() => {
                self.restore().await;
                self.ask(key, limits, requests).await.unwrap_or(answer)
            }
            Ok(answer) => answer,
            Err(error) => {
                self.failed(&error);
                return local();
            }
        };
        let Counted { admitted, now, tat, minute_count, day_count } = answer;
        let interval = script_interval(limits);
        let day = now * 1_000 / DAY;
        // Should Redis go away, this replica goes on from its share of the day so far; should it come
        // back empty, it is given the day back.
        let day_after = day_count.saturating_add(admitted);
        self.local.seed_day(key, day, day_after.div_ceil(self.replicas));
        lock(&self.seen).insert(key, (day, day_after));
        // The key's state after the first `passed` requests, in nanoseconds as the limiter's functions take it.
        let after = |passed: u32| {
            let tat = tat.saturating_add(interval.saturating_mul(u64::from(passed)));
            (tat.saturating_mul(1_000), minute_count.saturating_add(passed), day_count.saturating_add(passed))
        };
        let now = now.saturating_mul(1_000);
        (0..requests)
            .map(|request| {
                if request < admitted {
                    let (tat, minute_count, day_count) = after(request + 1);
                    Decision::Allowed(status(limits, now, tat, minute_count, day_count))
                } else {
                    let (tat, minute_count, day_count) = after(admitted);
                    let status = status(limits, now, tat, minute_count, day_count);
                    let wait = wait(limits, now, tat, minute_count, day_count).max(1);
                    Decision::Limited { status, retry_after: Duration::from_nanos(wait) }
                }
            })
            .collect()
    }

    /// One run of the limits script for `requests` requests of `key`, within the timeout.
    async fn ask(&self, key: i64, limits: Limits, requests: u32) -> Result<Counted, String> {
        let interval = script_interval(limits);
        let tolerance = interval.saturating_mul(u64::from(limits.burst.max(1) - 1));
        let mut invocation = self.limits.key(self.redis_key(key));
        invocation.arg(interval).arg(tolerance).arg(limits.per_minute).arg(limits.per_day).arg(requests);
        let mut redis = self.redis.clone();
        let answer = invocation.invoke_async::<(u32, u64, u64, u32, u32)>(&mut redis);
        match tokio::time::timeout(self.timeout, answer).await {
            Ok(Ok((admitted, now, tat, minute_count, day_count))) => {
                Ok(Counted { admitted: admitted.min(requests), now, tat, minute_count, day_count })
            }
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
        }
    }

    /// The decision of the local fallback, at the key's fair share; an admitted request is owed to
    /// Redis's day count.
    fn local_check(&self, key: i64, limits: Limits, now: Duration) -> Decision {
        let share = |limit: u32| limit.div_ceil(self.replicas).max(1);
        let fair = Limits {
            per_minute: share(limits.per_minute),
            burst: share(limits.burst),
            per_day: share(limits.per_day),
        };
        let decision = self.local.check(key, fair, now);
        if let Decision::Allowed(_) = decision {
            let day = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX) / DAY;
            *lock(&self.owed).entry((key, day)).or_default() += 1;
        }
        decision
    }

    /// Milliseconds since this limiter was made.
    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn is_open(&self) -> bool {
        self.elapsed_ms() < self.open_until.load(Ordering::Relaxed)
    }

    fn failed(&self, error: &str) {
        let open_for = u64::try_from(OPEN_FOR.as_millis()).unwrap_or(u64::MAX);
        self.open_until.store(self.elapsed_ms().saturating_add(open_for), Ordering::Relaxed);
        if !self.degraded.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error,
                replicas = self.replicas,
                "Redis is out of reach: limiting each key here at its share of its limits until it answers"
            );
        }
    }

    /// Whether Redis answers after it had failed (once per outage).
    fn recovered(&self) -> bool {
        // A read first: the write is only paid on the way back from an outage.
        if !self.degraded.load(Ordering::Relaxed) || !self.degraded.swap(false, Ordering::Relaxed) {
            return false;
        }
        tracing::info!("Redis answers again: the limits are shared again");
        self.reseed.store(true, Ordering::Relaxed);
        true
    }

    /// Gives Redis back what it may have lost: the requests admitted here without it, and for each
    /// key at least the day's count it last gave plus those.
    async fn restore(&self) {
        let owed = std::mem::take(&mut *lock(&self.owed));
        let seen = lock(&self.seen).clone();
        for (&(key, day), &requests) in &owed {
            if let Err(error) = self.add_to_day(key, day, requests, "add").await {
                tracing::warn!(%error, key, requests, "could not yet add the requests admitted without Redis");
                // Kept for the next time Redis answers after failing.
                let mut owed = lock(&self.owed);
                *owed.entry((key, day)).or_default() += requests;
            }
        }
        for (key, (day, count)) in seen {
            let since = owed.get(&(key, day)).copied().unwrap_or(0);
            if let Err(error) = self.add_to_day(key, day, count.saturating_add(since), "at-least").await {
                tracing::warn!(%error, key, "could not give Redis back the day's count");
            }
        }
    }

    async fn add_to_day(&self, key: i64, day: u64, requests: u32, mode: &str) -> redis::RedisResult<u32> {
        let mut invocation = self.add_day.key(self.redis_key(key));
        invocation.arg(day).arg(requests).arg(mode);
        invocation.invoke_async(&mut self.redis.clone()).await
    }
}

/// The key's arrival interval as the script counts it: in microseconds, rounded down, at least one.
fn script_interval(limits: Limits) -> u64 {
    let (interval, _) = gcra(limits);
    (interval / 1_000).max(1)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
