//! The gate of the running server: keys and blocked addresses from a snapshot of the accounts
//! database (reloaded within a quarter of a second of any change an admin command commits), rate
//! limits from the [`Limiter`], and each key's daily usage, written back in batches. Failed
//! authentications are counted per address (`failures`): past their limit, `429` instead of `401`.
//!
//! A key whose public prefix belongs to no key is refused before it is hashed and looked up: it
//! cannot be valid, and a guesser's keys are all of that kind.
//!
//! A browser key answers only requests that name one of its owner's origins in `Origin`, and its
//! burst and minute hold for each calling address on its own (see [`Subject`]), its day for all.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use foldhash::fast::RandomState;
use hyper::header::HeaderValue;
use tapster_accounts::{AccessSnapshot, Accounts, KeyAccess, KeyHash, Usage, hash_key};
use tapster_domain::{AddressBlock, AddressLimit, ApiKey, Limits, Timestamp};
use tapster_http::{
    Admission, CallingKey, Credentials, Gate, Policies, Policy, PolicyState, Quota, Refusal, Verdict,
};

use crate::failures::failures;
use crate::limits::{Checked, Decision, Limiter, Remaining, Status, Subject};

/// How often the accounts database is checked for changes.
pub(crate) const RELOAD_EVERY: Duration = Duration::from_millis(250);
/// How often counted requests are written to the accounts database.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_secs(5);
/// Keys whose hash is remembered at most (a few megabytes).
const REMEMBERED_KEYS: usize = 50_000;

/// Where the gate reads the time: the wall clock, or one a test sets.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> Duration + Send + Sync>);

impl Clock {
    /// The wall clock, as time since the Unix epoch.
    pub fn system() -> Self {
        Self(Arc::new(now))
    }

    /// A clock that reads `time` (time since the Unix epoch) whenever it is asked.
    pub fn from_fn(time: impl Fn() -> Duration + Send + Sync + 'static) -> Self {
        Self(Arc::new(time))
    }

    pub(crate) fn now(&self) -> Duration {
        (self.0)()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// Requests counted and not yet written to the accounts database, by key and day.
type Pending = Mutex<HashMap<(i64, i64), Usage, RandomState>>;

#[derive(Debug)]
pub struct Access {
    accounts: Accounts,
    clock: Clock,
    snapshot: RwLock<Arc<Keys>>,
    limiter: Box<dyn Limiter>,
    failures: AddressLimit,
    hashes: KeyHashes,
    /// Requests counted since the last flush, by key and day; shared with the decisions a limiter
    /// makes later.
    pending: Arc<Pending>,
    /// Why the accounts store cannot be read now, while it cannot: keys are judged by the last
    /// snapshot meanwhile.
    accounts_trouble: Mutex<Option<String>>,
}

impl Access {
    /// Loads every key and block, and today's recorded usage so that daily caps survive restarts;
    /// keys, limits and usage are then judged by the time `clock` tells.
    pub async fn load(
        accounts: Accounts,
        limiter: impl Limiter + 'static,
        clock: Clock,
    ) -> tapster_accounts::Result<Self> {
        let snapshot = accounts.snapshot().await?;
        seed(&accounts, &limiter, clock.now()).await?;
        Ok(Self {
            accounts,
            clock,
            snapshot: RwLock::new(Arc::new(Keys::from(snapshot))),
            limiter: Box::new(limiter),
            failures: failures(),
            hashes: KeyHashes::default(),
            pending: Arc::default(),
            accounts_trouble: Mutex::default(),
        })
    }

    /// Why the rate limits are not shared now, while they are not.
    pub fn limits_trouble(&self) -> Option<String> {
        self.limiter.trouble()
    }

    /// Why the accounts store cannot be read now, while it cannot.
    pub fn accounts_trouble(&self) -> Option<String> {
        self.accounts_trouble.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Notes whether the accounts store answered (`Ok`) or not; true when that changed.
    pub(crate) fn accounts_answered(&self, answered: Result<(), String>) -> bool {
        let mut trouble = self.accounts_trouble.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let changed = trouble.is_some() != answered.is_err();
        *trouble = answered.err();
        changed
    }

    /// Whether the operator blocked the calling address `peer`.
    pub fn is_blocked(&self, peer: IpAddr) -> bool {
        self.snapshot.read().unwrap_or_else(|poisoned| poisoned.into_inner()).blocks(peer)
    }

    /// Replaces the snapshot with the accounts database as it is now.
    pub async fn reload(&self) -> tapster_accounts::Result<()> {
        let snapshot = Arc::new(Keys::from(self.accounts.snapshot().await?));
        *self.snapshot.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = snapshot;
        Ok(())
    }

    /// Writes the requests counted since the last flush; on failure they are kept for the next one.
    /// Then forgets rate-limit and failure state that holds nothing any more.
    pub async fn flush(&self) -> tapster_accounts::Result<()> {
        let usage: Vec<Usage> = {
            let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            pending.drain().map(|(_, usage)| usage).collect()
        };
        if let Err(error) = self.accounts.record_usage(usage.clone()).await {
            let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for u in usage {
                merge(&mut pending, u);
            }
            return Err(error);
        }
        if self.limiter.wants_seed() {
            seed(&self.accounts, self.limiter.as_ref(), self.clock.now()).await?;
        }
        self.limiter.sweep(self.clock.now());
        self.failures.sweep(self.clock.now());
        Ok(())
    }

    /// `refusal`, counted as a failed authentication of `peer`; or, when `peer` has failed too often
    /// lately, the `429` that takes its place (and counts nothing).
    fn failed(&self, peer: IpAddr, now: Duration, refusal: Refusal) -> Refusal {
        match self.failures.take(peer, now) {
            Ok(()) => refusal,
            Err(wait) => Refusal::TooManyFailures { retry_after: whole_seconds(wait).max(1) },
        }
    }
}

/// The SHA-256 of keys that were found in the accounts database, by the key itself: a client's key is
/// hashed once instead of on every request (on a CPU without SHA instructions the hash is the
/// costliest step of the key check). Only keys that exist are kept, at most [`REMEMBERED_KEYS`], and
/// the map starts again empty when full. A key is only ever kept here, in memory, never written or
/// logged; what it opens is still looked up in the current snapshot on every request, so revoking
/// it takes effect as before.
#[derive(Debug, Default)]
struct KeyHashes(RwLock<HashMap<ApiKey, KeyHash, RandomState>>);

impl KeyHashes {
    /// What `lookup` finds under the hash of `key`, remembering the hash when it finds something.
    fn find<'a, T>(&self, key: &ApiKey, lookup: impl Fn(&KeyHash) -> Option<&'a T>) -> Option<&'a T> {
        let remembered = self.0.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(key).copied();
        if let Some(hash) = remembered {
            return lookup(&hash);
        }
        let hash = hash_key(key);
        let found = lookup(&hash)?;
        let mut hashes = self.0.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        if hashes.len() >= REMEMBERED_KEYS {
            hashes.clear();
        }
        hashes.insert(key.clone(), hash);
        Some(found)
    }
}

/// A snapshot of the accounts database made ready for requests: every key by hash, the public
/// prefixes of all of them, and the blocked addresses.
#[derive(Debug)]
struct Keys {
    keys: HashMap<KeyHash, KeyEntry, RandomState>,
    /// The hash of every key, by its id: for the dashboard's console, which names keys by id.
    ids: HashMap<i64, KeyHash, RandomState>,
    prefixes: HashSet<String, RandomState>,
    blocked: Vec<AddressBlock>,
}

/// One key as the gate reads it, with what every answer to it shares made once: what `/v1/key` and
/// the log say of it, its policies, and their `RateLimit-Policy` value.
#[derive(Debug)]
struct KeyEntry {
    access: KeyAccess,
    described: Arc<CallingKey>,
    named: [Policy; 3],
    policies: Policies,
}

impl From<AccessSnapshot> for Keys {
    fn from(snapshot: AccessSnapshot) -> Self {
        let prefixes = snapshot.keys.values().map(|access| access.prefix.clone()).collect();
        let ids = snapshot.keys.iter().map(|(hash, access)| (access.id, *hash)).collect();
        let keys = snapshot
            .keys
            .into_iter()
            .map(|(hash, access)| {
                let named = policies(&access);
                let entry = KeyEntry {
                    described: Arc::new(CallingKey {
                        prefix: access.prefix.clone(),
                        name: access.name.clone(),
                        expires_at: access.expires_at,
                    }),
                    named,
                    policies: Policies::new(&named),
                    access,
                };
                (hash, entry)
            })
            .collect();
        Self { keys, ids, prefixes, blocked: snapshot.blocked }
    }
}

/// The policies a key's answers name: a browser key's burst and minute are per calling address.
fn policies(access: &KeyAccess) -> [Policy; 3] {
    match access.origins {
        Some(_) => Policy::for_browser_key(access.limits),
        None => Policy::for_limits(access.limits),
    }
}

impl Keys {
    /// Whether a block of the snapshot holds `peer`.
    fn blocks(&self, peer: IpAddr) -> bool {
        self.blocked.iter().any(|block| block.contains(peer))
    }
}

/// Raises the limiter's counts of today to the requests the accounts database recorded, so that
/// daily caps survive restarts (of the server, or of a shared store that kept nothing).
async fn seed(accounts: &Accounts, limiter: &dyn Limiter, now: Duration) -> tapster_accounts::Result<()> {
    let today = now.as_secs() / 86_400;
    for (key, requests) in accounts.usage_on(today as i64).await? {
        limiter.seed_day(key, today, requests);
    }
    Ok(())
}

/// Adds `usage` to what is pending for its key and day.
fn merge(pending: &mut HashMap<(i64, i64), Usage, RandomState>, usage: Usage) {
    pending
        .entry((usage.key_id, usage.day))
        .and_modify(|held| {
            held.requests += usage.requests;
            held.last_used = held.last_used.max(usage.last_used);
        })
        .or_insert(usage);
}

impl Gate for Access {
    fn admit(&self, peer: IpAddr, credentials: &Credentials, origin: Option<&str>) -> Verdict {
        let now = self.clock.now();
        match self.check_key(peer, credentials, Page::Sent(origin), now) {
            Ok(key) => self.limit(key, now),
            Err(refusal) => Verdict::Now(Err(refusal)),
        }
    }
}

impl Access {
    /// The verdict on a request of the key `id` from `peer`, as the dashboard's console makes it for
    /// a signed-in person's own key (which it holds only by id): the same checks and limits as a
    /// request that sent the key, and counted like one; a browser key's origins aside, since the
    /// console is its owner's own page.
    pub fn admit_key(&self, id: i64, peer: IpAddr) -> Verdict {
        let now = self.clock.now();
        let keys = Arc::clone(&self.snapshot.read().unwrap_or_else(|poisoned| poisoned.into_inner()));
        if keys.blocks(peer) {
            return Verdict::Now(Err(Refusal::BlockedAddress));
        }
        let Some(entry) = keys.ids.get(&id).and_then(|hash| keys.keys.get(hash)) else {
            return Verdict::Now(Err(Refusal::UnknownKey));
        };
        match usable(entry, peer, Page::Console, now) {
            Ok(key) => self.limit(key, now),
            Err(refusal) => Verdict::Now(Err(refusal)),
        }
    }

    /// The limiter's verdict on a request of `key` at `now`; an admitted one is counted.
    fn limit(&self, key: Caller, now: Duration) -> Verdict {
        match self.limiter.limit(key.subject, key.limits, now) {
            Checked::Now(decision) => Verdict::Now(decided(&self.pending, &key, decision, now)),
            Checked::Later(decision) => {
                let pending = Arc::clone(&self.pending);
                Verdict::Later(Box::pin(async move { decided(&pending, &key, decision.await, now) }))
            }
        }
    }
}

/// A key that passed its checks, as the limiter is asked about it, with what its answers share.
struct Caller {
    /// The key, or for a browser key the calling address under it.
    subject: Subject,
    limits: Limits,
    described: Arc<CallingKey>,
    /// Its burst, minute and day, as its answers name them.
    named: [Policy; 3],
    policies: Policies,
    /// For a browser key, the allowed origin the request came from.
    allowed_origin: Option<HeaderValue>,
}

/// Where a request comes from, as a browser key's origins are held to it.
#[derive(Debug, Clone, Copy)]
enum Page<'a> {
    /// A request as it came: the `Origin` a browser named, if any.
    Sent(Option<&'a str>),
    /// The dashboard's console, on its owner's own signed-in page.
    Console,
}

/// The admission or refusal of the limiter's `decision`; an admitted request is counted in `pending`.
fn decided(pending: &Pending, key: &Caller, decision: Decision, now: Duration) -> Result<Admission, Refusal> {
    match decision {
        Decision::Allowed(status) => {
            let usage = Usage {
                key_id: key.subject.key,
                day: (now.as_secs() / 86_400) as i64,
                requests: 1,
                last_used: Timestamp(now.as_secs() as i64),
            };
            merge(&mut pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()), usage);
            Ok(Admission {
                key: Arc::clone(&key.described),
                quota: quota(key, status),
                requests_today: u64::from(status.requests_today),
                allowed_origin: key.allowed_origin.clone(),
            })
        }
        Decision::Limited { status, retry_after } => Err(Refusal::RateLimited {
            quota: Box::new(quota(key, status)),
            retry_after: whole_seconds(retry_after).max(1),
        }),
    }
}

impl Access {
    /// The key `credentials` present, when it may call from `peer` and `page` at `now` (the limits
    /// aside).
    fn check_key(
        &self,
        peer: IpAddr,
        credentials: &Credentials,
        page: Page<'_>,
        now: Duration,
    ) -> Result<Caller, Refusal> {
        let keys = Arc::clone(&self.snapshot.read().unwrap_or_else(|poisoned| poisoned.into_inner()));
        if keys.blocks(peer) {
            return Err(Refusal::BlockedAddress);
        }
        let key = match credentials {
            // Mistakes, told apart without a lookup: they do not count as guesses.
            Credentials::Missing => return Err(Refusal::MissingKey),
            Credentials::Malformed { detail } => return Err(Refusal::MalformedKey { detail }),
            Credentials::Key(key) => key,
        };
        if !keys.prefixes.contains(key.display_prefix()) {
            return Err(self.failed(peer, now, Refusal::UnknownKey));
        }
        let Some(entry) = self.hashes.find(key, |hash| keys.keys.get(hash)) else {
            return Err(self.failed(peer, now, Refusal::UnknownKey));
        };
        usable(entry, peer, page, now).map_err(|refusal| match refusal {
            // A key that opens nothing any more counts as a guess, as an unknown one does.
            Refusal::RevokedKey | Refusal::ExpiredKey => self.failed(peer, now, refusal),
            refusal => refusal,
        })
    }
}

/// The key of `entry` as the limiter is asked about it, when it may call from `peer` and `page` at
/// `now`.
fn usable(entry: &KeyEntry, peer: IpAddr, page: Page<'_>, now: Duration) -> Result<Caller, Refusal> {
    let access = &entry.access;
    if access.revoked {
        return Err(Refusal::RevokedKey);
    }
    if access.expires_at.is_some_and(|at| at.0 <= now.as_secs() as i64) {
        return Err(Refusal::ExpiredKey);
    }
    if access.suspended {
        return Err(Refusal::SuspendedKey);
    }
    if access.account_suspended {
        return Err(Refusal::SuspendedAccount);
    }
    if !access.account_confirmed {
        return Err(Refusal::UnconfirmedAccount);
    }
    let (subject, allowed_origin) = match (&access.origins, page) {
        (None, _) => (Subject::key(access.id), None),
        (Some(_), Page::Console) => (Subject::visitor(access.id, peer), None),
        (Some(origins), Page::Sent(Some(origin))) if origins.allow(origin) => {
            (Subject::visitor(access.id, peer), HeaderValue::from_str(origin).ok())
        }
        (Some(_), Page::Sent(origin)) => {
            return Err(Refusal::OriginNotAllowed { origin: origin.map(str::to_owned) });
        }
    };
    Ok(Caller {
        subject,
        limits: access.limits,
        described: Arc::clone(&entry.described),
        named: entry.named,
        policies: entry.policies.clone(),
        allowed_origin,
    })
}

/// The limiter's status of `key` for the `RateLimit` headers.
fn quota(key: &Caller, status: Status) -> Quota {
    let [burst, minute, day] = key.named;
    let state = |policy, window: Remaining| PolicyState {
        policy,
        remaining: window.left,
        reset: whole_seconds(window.reset),
    };
    Quota::new(
        key.policies.clone(),
        &[state(burst, status.burst), state(minute, status.minute), state(day, status.day)],
    )
}

/// Rounds up, so that a client waiting this long is never early.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

/// The wall clock, as time since the Unix epoch.
pub(crate) fn now() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// The wall clock to the second, as accounts record it.
pub(crate) fn timestamp() -> Timestamp {
    Timestamp(now().as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hashes_of_keys_that_open_something_are_remembered() {
        let hashes = KeyHashes::default();
        let known = ApiKey::generate(|| 1);
        let unknown = ApiKey::generate(|| 2);
        let table: HashMap<KeyHash, &str> = HashMap::from([(hash_key(&known), "known")]);
        let lookups = std::cell::Cell::new(0);
        let lookup = |hash: &KeyHash| {
            lookups.set(lookups.get() + 1);
            table.get(hash)
        };

        assert_eq!(hashes.find(&unknown, lookup), None);
        assert_eq!(hashes.find(&known, lookup), Some(&"known"));
        assert_eq!(hashes.find(&known, lookup), Some(&"known"));
        let remembered = hashes.0.read().unwrap();
        assert_eq!(remembered.len(), 1, "the unknown key must not be kept");
        assert_eq!(remembered.get(&known), Some(&hash_key(&known)));
        // Every request still looks up what the key opens (revocations apply), hashed or not.
        assert_eq!(lookups.get(), 3);
    }
}
