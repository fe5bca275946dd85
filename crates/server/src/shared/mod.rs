//! Rate limits shared by every replica, in Redis (`--redis-url`, or a Redis Cluster with
//! `--redis-cluster`; in plain text or TLS, see `connection`): one atomic round trip per request, a
//! Lua script run by `EVALSHA` (`limits.lua`, sent whole to a node that answers `NOSCRIPT`) that
//! applies the burst, the minute and the day in Redis's own time, so that the replicas' clocks do not
//! matter; in microseconds, the arrival interval rounded down to one. Each API key's state is one
//! hash, `<prefix>:{<key id>}`, and a browser key's caller's burst and minute one more,
//! `<prefix>:{<key id>}:<address>`, whose hash tag keeps them, and so each run of the script, on one
//! slot of a cluster. What is left of each limit is worked out here from what the script returns, by the
//! same functions as the in-process limiter's.
//!
//! A key's requests that arrive while its script is running are judged together by the next run,
//! as if they had reached Redis one after another at that instant: the same decisions as one run
//! each, for one round trip. A busy key (a crawler, a bot) then costs Redis and this process one
//! run per round trip instead of one per request; a request waits at most two runs, each within the
//! timeout.
//!
//! When Redis does not answer within its timeout (`--redis-timeout-ms`, 25 by default), the replica
//! keeps serving: for [`OPEN_FOR`] it does not ask Redis about the key's slot at all (a circuit
//! breaker, see `breakers`: one for a single node, one per hash slot of a cluster, so that a master
//! that is down takes only its own keys out of the shared limits), and limits each of those keys in
//! its own memory at a fair share of its limits (divided by the number of replicas, `--replicas`),
//! starting from its share of the day's count Redis last gave. Once the breaker's second is over,
//! the slot is mended off the requests' path, by one task at a time ([`Inner::mend`], started by the
//! slot's next request or by the upkeep's sweep if none comes): what was admitted meanwhile for its
//! keys is added to Redis's day counts, and since a Redis that restarted has lost its counts, each
//! of those keys' day is raised to at least what Redis last said of it plus those; only then does
//! Redis judge the slot's keys again (and at the next write of usage their day is raised to what the
//! accounts database recorded, see [`Limiter::wants_seed`]). Until then they are decided locally.

mod breakers;
mod connection;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tapster_domain::Limits;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use self::breakers::{Breakers, SLOTS, Turn};
use self::connection::{Connection, Lua};
pub use self::connection::{RedisServers, RedisTls};
use crate::limiter::InProcess;
use crate::limits::{Checked, DAY, Decision, Limiter, Subject, gcra, status, wait};

/// How many times what was admitted while a slot was mended is given back before it waits for the
/// slot's next failure, and the pause between two tries.
const RESTORE_ATTEMPTS: u32 = 5;
const RESTORE_PAUSE: Duration = Duration::from_millis(200);
/// How long a request waits for Redis, unless told otherwise, before its key is limited locally.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(25);
/// How long Redis is left alone after it failed to answer, before it is asked again.
const OPEN_FOR: Duration = Duration::from_secs(1);

/// Where the shared limits live and how a replica uses them (`--redis-url` or `--redis-cluster`,
/// `--redis-ca`, `--redis-prefix`, `--replicas`, `--redis-timeout-ms`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisLimits {
    pub servers: RedisServers,
    pub tls: RedisTls,
    /// What this deployment's keys in Redis start with.
    pub prefix: String,
    /// How many replicas share the limits: each key's share here while Redis is out of reach.
    pub replicas: u32,
    /// How long a request waits for Redis before its key is limited here.
    pub timeout: Duration,
}

impl RedisLimits {
    /// Checks a prefix of the keys in Redis: braces would make a hash tag of it, putting every key
    /// on one slot of a cluster.
    pub fn check_prefix(prefix: &str) -> Result<(), String> {
        match prefix.contains(['{', '}']) {
            true => {
                Err(format!("{prefix:?} holds a brace, which would put every key on one slot of a cluster"))
            }
            false => Ok(()),
        }
    }

    /// The limits on one Redis node at `url`, in plain text or with the system's roots.
    pub fn node(url: &str, prefix: &str, replicas: u32, timeout: Duration) -> Self {
        Self {
            servers: RedisServers::Node(url.to_owned()),
            tls: RedisTls::default(),
            prefix: prefix.to_owned(),
            replicas,
            timeout,
        }
    }
}

/// The limiter of a replica among several, backed by Redis.
#[derive(Debug, Clone)]
pub struct Shared {
    inner: Arc<Inner>,
}

struct Inner {
    redis: Connection,
    limits: Lua,
    add_day: Lua,
    /// Names this deployment's keys in Redis, so that several deployments (or test runs) can share one.
    prefix: String,
    /// How many replicas share the limits: a key's fair share here while Redis is out of reach.
    replicas: u32,
    /// How long a request waits for Redis.
    timeout: Duration,
    /// The limiter while Redis is out of reach.
    local: InProcess,
    /// Whether Redis is asked about a key now, by its slot.
    breakers: Breakers,
    /// The requests waiting for the next run of their subject's script, by subject. A subject is
    /// here while a run for it is in flight.
    queued: Mutex<HashMap<Subject, Vec<Queued>>>,
    /// Requests admitted locally while Redis was out of reach, by key and day.
    owed: Mutex<ByBreaker<(i64, u64), u32>>,
    /// The day's count Redis last gave for each key, by key: day and count.
    seen: Mutex<ByBreaker<i64, (u64, u32)>>,
    /// Set when Redis answers again after it failed: it may have lost its day counts.
    reseed: AtomicBool,
}

/// What this replica keeps of the keys of each breaker, so that mending one reads only its own.
type ByBreaker<K, V> = HashMap<usize, HashMap<K, V>>;

/// A request waiting for the next run of its key's script: its own time (for the local fallback), the
/// key's limits as it was admitted with them, and where its decision goes.
struct Queued {
    now: Duration,
    limits: Limits,
    decision: oneshot::Sender<Decision>,
}

/// Whoever holds this, when dropped, starts the run for the requests of `subject` queued behind its
/// own.
struct HandOn {
    inner: Arc<Inner>,
    subject: Subject,
}

impl Drop for HandOn {
    fn drop(&mut self) {
        self.inner.hand_on(self.subject);
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
            .field("breakers", &self.breakers)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// A limiter on the Redis `config` names. It connects when first asked, and reconnects by
    /// itself: a replica starts, and serves, while Redis is down. Must be called on a tokio runtime.
    pub fn new(config: &RedisLimits) -> anyhow::Result<Self> {
        RedisLimits::check_prefix(&config.prefix).map_err(|why| anyhow::anyhow!("the Redis prefix {why}"))?;
        let breakers = match config.servers {
            RedisServers::Node(_) => 1,
            RedisServers::Cluster(_) => SLOTS,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                redis: Connection::open(&config.servers, &config.tls, config.timeout)?,
                limits: Lua::new(include_str!("limits.lua")),
                add_day: Lua::new(include_str!("add_day.lua")),
                prefix: config.prefix.clone(),
                replicas: config.replicas.max(1),
                timeout: config.timeout,
                local: InProcess::default(),
                breakers: Breakers::new(breakers, OPEN_FOR),
                queued: Mutex::default(),
                owed: Mutex::default(),
                seen: Mutex::default(),
                reseed: AtomicBool::new(false),
            }),
        })
    }

    /// [`Shared::new`], once each server of `config` has been tried: a certificate refused (by
    /// either side) is an error, a server that does not answer only a warning.
    pub async fn connect(config: &RedisLimits) -> anyhow::Result<Self> {
        connection::probe(&config.servers, &config.tls).await?;
        Self::new(config)
    }

    /// Whether Redis failed to answer lately and keys (some, on a cluster) are limited locally.
    pub fn degraded(&self) -> bool {
        self.inner.breakers.tripped() > 0
    }
}

impl Limiter for Shared {
    fn limit(&self, subject: Subject, limits: Limits, now: Duration) -> Checked {
        if self.inner.is_open(subject.key) {
            return Checked::Now(self.inner.local_check(subject, limits, now));
        }
        Checked::Later(Box::pin(Arc::clone(&self.inner).check(subject, limits, now)))
    }

    /// Raises Redis's count of `day` to what the accounts database recorded (after Redis lost its
    /// data, the database's count is the better one), and the local fallback's to its share.
    fn seed_day(&self, key: i64, day: u64, requests: u32) {
        self.inner.local.seed_day(key, day, requests.div_ceil(self.inner.replicas));
        let inner = Arc::clone(&self.inner);
        tokio::spawn(async move {
            if let Err(error) = inner.add_to_day(key, day, requests, Mode::AtLeast).await {
                tracing::warn!(%error, key, "could not seed the day's count in Redis");
            }
        });
    }

    /// Also asks Redis again about the slots it failed for whose keys no request called since, so
    /// that they are given back what they lost and the replica stops saying it is degraded.
    fn sweep(&self, now: Duration) {
        for (breaker, key) in self.inner.breakers.closing() {
            self.inner.start_mending(breaker, key);
        }
        self.inner.local.sweep(now);
        let today = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX) / DAY;
        lock(&self.inner.seen).retain(|_, seen| {
            seen.retain(|_, (day, _)| *day >= today);
            !seen.is_empty()
        });
    }

    fn wants_seed(&self) -> bool {
        self.inner.reseed.swap(false, Ordering::Relaxed)
    }

    fn trouble(&self) -> Option<String> {
        let (tripped, breakers) = (self.inner.breakers.tripped(), self.inner.breakers.len());
        let replicas = self.inner.replicas;
        match (tripped, breakers) {
            (0, _) => None,
            (_, 1) => Some(format!(
                "Redis is out of reach: each key is limited by each replica at 1/{replicas} of its limits until it answers"
            )),
            _ => Some(format!(
                "Redis Cluster: {tripped} of {breakers} slots are out of reach: their keys are limited by each \
                 replica at 1/{replicas} of their limits until they answer"
            )),
        }
    }
}

impl Inner {
    fn redis_key(&self, key: i64) -> String {
        format!("{}:{{{key}}}", self.prefix)
    }

    /// The hash that holds `subject`'s burst and minute: its key's own, or its caller's beside it.
    fn subject_key(&self, subject: Subject) -> String {
        match subject.visitor {
            None => self.redis_key(subject.key),
            Some(visitor) => format!("{}:{{{}}}:{visitor}", self.prefix, subject.key),
        }
    }

    /// Decides one request of `key`: by a run of the script of its own when none is in flight for
    /// the key, or else by the run that follows it, with every other request queued meanwhile.
    async fn check(self: Arc<Self>, subject: Subject, limits: Limits, now: Duration) -> Decision {
        let queued = match lock(&self.queued).entry(subject) {
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
            return decided.await.unwrap_or_else(|_| self.local_check(subject, limits, now));
        }
        // Whether this request's run ends or is dropped (its client went away), the requests queued
        // behind it get theirs.
        let _next = HandOn { inner: Arc::clone(&self), subject };
        self.judge(subject, limits, &[now])
            .await
            .pop()
            .unwrap_or_else(|| self.local_check(subject, limits, now))
    }

    /// Starts the run for the requests of `key` queued behind the one that ended, if there are any;
    /// otherwise the key has no run in flight any more.
    fn hand_on(self: &Arc<Self>, subject: Subject) {
        // With the latest request's limits: a key's limits changed while it was busy apply from its
        // next run.
        let (waiting, limits) = {
            let mut queued = lock(&self.queued);
            match queued.get_mut(&subject).and_then(|waiting| Some((waiting.last()?.limits, waiting))) {
                Some((limits, waiting)) => (std::mem::take(waiting), limits),
                None => {
                    queued.remove(&subject);
                    return;
                }
            }
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // The runtime is going away, and with it the requests.
            lock(&self.queued).remove(&subject);
            return;
        };
        let inner = Arc::clone(self);
        // Made here, not in the task, so that even a task dropped before it ever runs hands on.
        let next = HandOn { inner: Arc::clone(self), subject };
        runtime.spawn(async move {
            let _next = next;
            let times: Vec<Duration> = waiting.iter().map(|queued| queued.now).collect();
            let decisions = inner.judge(subject, limits, &times).await;
            for (queued, decision) in waiting.into_iter().zip(decisions) {
                // A request whose client went away needs no answer.
                let _ = queued.decision.send(decision);
            }
        });
    }

    /// Decides requests of `key` made at `times`, in that order, in one run of the script; without
    /// an answer in time, trips the breaker and decides them locally. After Redis failed for the
    /// key's slot it may have restarted empty: it judges the slot's keys again once it has been
    /// given back what it lost, which this starts, and until then they are decided locally.
    async fn judge(self: &Arc<Self>, subject: Subject, limits: Limits, times: &[Duration]) -> Vec<Decision> {
        let key = subject.key;
        let local = || times.iter().map(|&now| self.local_check(subject, limits, now)).collect();
        if self.is_open(key) {
            return local();
        }
        let breaker = self.breakers.of(key);
        if self.breakers.is_tripped(breaker) {
            self.start_mending(breaker, key);
            return local();
        }
        let requests = u32::try_from(times.len()).unwrap_or(u32::MAX);
        let answer = match self.ask(subject, limits, requests).await {
            Ok(answer) => answer,
            Err(error) => {
                self.failed(key, &error);
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
        lock(&self.seen).entry(breaker).or_default().insert(key, (day, day_after));
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
    async fn ask(&self, subject: Subject, limits: Limits, requests: u32) -> Result<Counted, String> {
        let interval = script_interval(limits);
        let tolerance = interval.saturating_mul(u64::from(limits.burst.max(1) - 1));
        let args = [interval, tolerance, limits.per_minute.into(), limits.per_day.into(), requests.into()];
        let mut redis = self.redis.clone();
        let whole = self.redis_key(subject.key);
        let own = match subject.visitor {
            None => whole.clone(),
            Some(_) => self.subject_key(subject),
        };
        let keys = [own, whole];
        let answer = redis.run::<(u32, u64, u64, u32, u32)>(&self.limits, &keys, &args);
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
    fn local_check(&self, subject: Subject, limits: Limits, now: Duration) -> Decision {
        let share = |limit: u32| limit.div_ceil(self.replicas).max(1);
        let fair = Limits {
            per_minute: share(limits.per_minute),
            burst: share(limits.burst),
            per_day: share(limits.per_day),
        };
        let decision = self.local.check(subject, fair, now);
        if let Decision::Allowed(_) = decision {
            let day = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX) / DAY;
            let key = subject.key;
            *lock(&self.owed).entry(self.breakers.of(key)).or_default().entry((key, day)).or_default() += 1;
        }
        decision
    }

    /// Whether Redis is left alone about `key` now, after it failed for the key's slot.
    fn is_open(&self, key: i64) -> bool {
        self.breakers.is_open(self.breakers.of(key))
    }

    fn failed(&self, key: i64, error: &str) {
        if self.breakers.trip(key) == Turn::FirstTripped {
            tracing::warn!(
                error,
                replicas = self.replicas,
                "Redis is out of reach: limiting its keys here at their share of their limits until it answers"
            );
        }
    }

    /// Redis answered for the slot of `key`: on the way back from an outage, the log says so once
    /// and the day counts are seeded from the accounts database at its next write of usage.
    fn answered(&self, key: i64) {
        let Some(turn) = self.breakers.answered(self.breakers.of(key)) else { return };
        if turn == Turn::AllClosed {
            tracing::info!("Redis answers again: the limits are shared again");
        }
        self.reseed.store(true, Ordering::Relaxed);
    }

    /// Starts mending breaker `breaker` (through `key`, one of its keys) on a task of its own,
    /// unless a task is at it already.
    fn start_mending(self: &Arc<Self>, breaker: usize, key: i64) {
        if !self.breakers.claim(breaker) {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(Arc::clone(self).mend(breaker, key))),
            // The runtime is going away, and with it the requests.
            Err(_) => self.breakers.release(breaker),
        }
    }

    /// Mends breaker `breaker` after Redis failed for its keys: gives Redis back what it may have
    /// lost, asks it whether `key` exists (an answer for the slot), and then lets it judge the slot's
    /// keys again; what was admitted locally in the meantime is given back after. A failure trips
    /// the breaker again.
    async fn mend(self: Arc<Self>, breaker: usize, key: i64) {
        let mended = async {
            self.restore(breaker).await?;
            let (mut redis, mut exists) = (self.redis.clone(), redis::cmd("EXISTS"));
            exists.arg(self.redis_key(key));
            let exists = exists.query_async::<u32>(&mut redis);
            match tokio::time::timeout(self.timeout, exists).await {
                Ok(answered) => answered.map(drop).map_err(|error| error.to_string()),
                Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
            }
        };
        match mended.await {
            Ok(()) => {
                self.answered(key);
                // A master that has just taken over may refuse a write or two while the cluster
                // settles: what was admitted while it was mended is tried again a few times, since
                // after this no failure may come to give it another chance.
                for attempt in 1..=RESTORE_ATTEMPTS {
                    match self.restore(breaker).await {
                        Ok(()) => break,
                        Err(error) if attempt == RESTORE_ATTEMPTS => {
                            tracing::warn!(%error, "could not yet give Redis the requests admitted while it was mended");
                        }
                        Err(_) => tokio::time::sleep(RESTORE_PAUSE).await,
                    }
                }
            }
            Err(error) => self.failed(key, &error),
        }
        self.breakers.release(breaker);
    }

    /// Gives Redis back what it may have lost for the keys of breaker `breaker`: the requests
    /// admitted here without it, and then for each key at least the day's count it last gave plus
    /// those. The calls of each step travel together, each on a task of its own; what could not be
    /// given back is kept for the next time.
    async fn restore(self: &Arc<Self>, breaker: usize) -> Result<(), String> {
        let owed = lock(&self.owed).remove(&breaker).unwrap_or_default();
        let seen: Vec<(i64, (u64, u32))> = lock(&self.seen)
            .get(&breaker)
            .map(|seen| seen.iter().map(|(key, seen)| (*key, *seen)).collect())
            .unwrap_or_default();
        let mut added = JoinSet::new();
        for (&(key, day), &requests) in &owed {
            let inner = Arc::clone(self);
            added.spawn(async move {
                ((key, day), requests, inner.add_to_day(key, day, requests, Mode::Add).await)
            });
        }
        let mut failed = None;
        while let Some(done) = added.join_next().await {
            match done {
                Ok((_, _, Ok(_))) => {}
                Ok((owed_for, requests, Err(error))) => {
                    *lock(&self.owed).entry(breaker).or_default().entry(owed_for).or_default() += requests;
                    failed = Some(error);
                }
                Err(lost) => failed = Some(lost.to_string()),
            }
        }
        if let Some(error) = failed {
            return Err(error);
        }
        // Raised after the additions, so that a count that is already right is not added to.
        let mut raised = JoinSet::new();
        for (key, (day, count)) in seen {
            let (inner, since) = (Arc::clone(self), owed.get(&(key, day)).copied().unwrap_or(0));
            raised.spawn(async move {
                inner.add_to_day(key, day, count.saturating_add(since), Mode::AtLeast).await
            });
        }
        while let Some(done) = raised.join_next().await {
            match done {
                Ok(Ok(_)) => {}
                Ok(Err(error)) => failed = Some(error),
                Err(lost) => failed = Some(lost.to_string()),
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// Adds to (or raises) `key`'s count of `day` in Redis, within the timeout.
    async fn add_to_day(&self, key: i64, day: u64, requests: u32, mode: Mode) -> Result<u32, String> {
        let mode = match mode {
            Mode::Add => 0,
            Mode::AtLeast => 1,
        };
        let keys = [self.redis_key(key)];
        let (mut redis, args) = (self.redis.clone(), [day, requests.into(), mode]);
        let added = redis.run(&self.add_day, &keys, &args);
        match tokio::time::timeout(self.timeout, added).await {
            Ok(added) => added.map_err(|error| error.to_string()),
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
        }
    }
}
/// How [`Inner::add_to_day`] changes a day's count.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Adds requests admitted while Redis was out of reach.
    Add,
    /// Raises the count to at least a number (what Redis last said, what the database recorded).
    AtLeast,
}

/// The key's arrival interval as the script counts it: in microseconds, rounded down, at least one.
fn script_interval(limits: Limits) -> u64 {
    let (interval, _) = gcra(limits);
    (interval / 1_000).max(1)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
