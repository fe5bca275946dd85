//! Rate limits shared by every replica, in Redis (`--redis-url`): one atomic round trip per request,
//! a Lua script run by `EVALSHA` (`limits.lua`, reloaded by the client when Redis answers `NOSCRIPT`)
//! that applies the burst, the minute and the day in Redis's own time, so that the replicas' clocks
//! do not matter. Each API key's state is one hash, `<prefix>:{<key id>}`, so that it also works on
//! Redis Cluster. What is left of each limit is worked out here from what the script returns, by the
//! same functions as the in-process limiter's.
//!
//! When Redis does not answer within [`TIMEOUT`], the replica keeps serving: for [`OPEN_FOR`] it does
//! not ask Redis at all (a circuit breaker), and limits each key in its own memory at a fair share of
//! its limits (divided by the number of replicas, `--replicas`). What it admits meanwhile is counted
//! and added to Redis's day counts once Redis answers again, so that the day cap holds across the
//! outage.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tapster_domain::Limits;

use crate::limiter::{Checked, DAY, Decision, InProcess, Limiter, MINUTE, status, wait};

/// How long a request waits for Redis before its key is limited locally.
pub(crate) const TIMEOUT: Duration = Duration::from_millis(25);
/// How long Redis is left alone after it failed to answer, before it is asked again.
pub(crate) const OPEN_FOR: Duration = Duration::from_secs(1);

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
    /// The limiter while Redis is out of reach.
    local: InProcess,
    /// Until when Redis is not asked, after it failed.
    open_until: Mutex<Option<Instant>>,
    /// Requests admitted locally while Redis was out of reach, by key and day.
    owed: Mutex<HashMap<(i64, u64), u32>>,
    degraded: AtomicBool,
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
    /// A limiter on the Redis at `url` for `replicas` replicas. It connects when first asked, and
    /// reconnects by itself: a replica starts, and serves, while Redis is down.
    pub fn new(url: &str, prefix: &str, replicas: u32) -> anyhow::Result<Self> {
        let bad = || format!("the Redis URL {}", tapster_domain::url_without_password(url));
        let client = redis::Client::open(url).with_context(bad)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(TIMEOUT))
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
                local: InProcess::default(),
                open_until: Mutex::new(None),
                owed: Mutex::default(),
                degraded: AtomicBool::new(false),
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
        let inner = Arc::clone(&self.inner);
        Checked::Later(Box::pin(async move { inner.check(key, limits, now).await }))
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

    /// Asks Redis; on no answer in time, trips the breaker and decides locally.
    async fn check(self: Arc<Self>, key: i64, limits: Limits, now: Duration) -> Decision {
        let interval = MINUTE / u64::from(limits.per_minute.max(1));
        let tolerance = interval * u64::from(limits.burst.max(1) - 1);
        let mut invocation = self.limits.key(self.redis_key(key));
        invocation.arg(interval / 1_000).arg(tolerance / 1_000).arg(limits.per_minute).arg(limits.per_day);
        let mut redis = self.redis.clone();
        let answer =
            tokio::time::timeout(TIMEOUT, invocation.invoke_async::<(u8, u64, u64, u32, u32)>(&mut redis));
        match answer.await {
            Ok(Ok((passed, now_us, tat_us, minute_count, day_count))) => {
                self.answered();
                let (now, tat) = (now_us.saturating_mul(1_000), tat_us.saturating_mul(1_000));
                let status = status(limits, now, tat, minute_count, day_count);
                if passed == 1 {
                    Decision::Allowed(status)
                } else {
                    let wait = wait(limits, now, tat, minute_count, day_count).max(1);
                    Decision::Limited { status, retry_after: Duration::from_nanos(wait) }
                }
            }
            Ok(Err(error)) => {
                self.failed(&error.to_string());
                self.local_check(key, limits, now)
            }
            Err(_) => {
                self.failed(&format!("no answer within {} ms", TIMEOUT.as_millis()));
                self.local_check(key, limits, now)
            }
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
            *self
                .owed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .entry((key, day))
                .or_default() += 1;
        }
        decision
    }

    fn is_open(&self) -> bool {
        let open_until = self.open_until.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        open_until.is_some_and(|until| Instant::now() < until)
    }

    fn failed(&self, error: &str) {
        *self.open_until.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
            Some(Instant::now() + OPEN_FOR);
        if !self.degraded.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error,
                replicas = self.replicas,
                "Redis is out of reach: limiting each key here at its share of its limits until it answers"
            );
        }
    }

    /// Redis answered: if it had not lately, hand it what was admitted meanwhile.
    fn answered(self: &Arc<Self>) {
        if !self.degraded.swap(false, Ordering::Relaxed) {
            return;
        }
        tracing::info!("Redis answers again: the limits are shared again");
        let owed = std::mem::take(&mut *self.owed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        let inner = Arc::clone(self);
        tokio::spawn(async move {
            for ((key, day), requests) in owed {
                if let Err(error) = inner.add_to_day(key, day, requests, "add").await {
                    tracing::warn!(%error, key, requests, "could not add the requests admitted without Redis");
                }
            }
        });
    }

    async fn add_to_day(&self, key: i64, day: u64, requests: u32, mode: &str) -> redis::RedisResult<u32> {
        let mut invocation = self.add_day.key(self.redis_key(key));
        invocation.arg(day).arg(requests).arg(mode);
        invocation.invoke_async(&mut self.redis.clone()).await
    }
}
