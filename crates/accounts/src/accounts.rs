//! [`Accounts`]: the one handle every caller uses, whatever stores the accounts. Each operation that
//! writes more than one row, or reads before it writes, is one transaction in the backend; time is
//! always given, never read, so that expiries can be tested exactly.
//!
//! The seam is the [`Backend`] enum: SQLite in the data dir (one process, the default) or
//! PostgreSQL (several replicas). Each backend has a function of the same name and arguments for
//! every operation, so that a method here names the operation once and no caller knows which
//! backend answers.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Origins, Timestamp};
use tokio::sync::Notify;

use crate::error::{Error, Result};
use crate::model::{
    AccessSnapshot, Account, AccountId, AttemptReport, Audience, DailyUsage, DisabledWebhook, EventBodies,
    Generation, Issued, KeyAction, KeyName, KeyRecord, KeySelector, NewGeneration, NewWebhook, Nonce,
    PendingLink, Profile, SessionInfo, SessionRecord, SignIn, Usage, WebhookAttempt, WebhookEndpoint,
    WebhookEvent, WebhookMessage,
};
use crate::postgres::{self, Postgres, PostgresWatcher};
use crate::sqlite::{self, Sqlite, SqliteWatcher};
use crate::token::TokenHash;

/// Where the accounts are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// `accounts.sqlite` in this data dir.
    DataDir(PathBuf),
    /// A PostgreSQL database, by its `postgres://` (or `postgresql://`) URL.
    Postgres(String),
}

impl Location {
    /// The store an accounts URL names (`--accounts-url`), or without one the SQLite file of the data
    /// dir. Only PostgreSQL URLs name a store.
    pub fn new(url: Option<&str>, data_dir: &Path) -> Result<Self> {
        match url.map(str::trim) {
            None => Ok(Self::DataDir(data_dir.to_owned())),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Self::Postgres(url.to_owned()))
            }
            Some(url) => Err(Error::BadUrl {
                url: postgres::shown(url),
                reason: "the accounts URL must start with postgres:// or postgresql://; without one, the \
                         accounts live in the data dir's accounts.sqlite"
                    .into(),
            }),
        }
    }
}

/// The store, without a password its URL may hold.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DataDir(dir) => write!(f, "{}", dir.join(sqlite::ACCOUNTS_DB).display()),
            Self::Postgres(url) => f.write_str(&postgres::shown(url)),
        }
    }
}

/// The accounts store; cheap to clone, shared by the server, the dashboard and the admin commands.
#[derive(Debug, Clone)]
pub struct Accounts {
    backend: Backend,
    /// Woken by every write that may change access, for the [`Watcher`] of this process.
    written: Arc<Notify>,
}

#[derive(Debug, Clone)]
enum Backend {
    Sqlite(Arc<Sqlite>),
    Postgres(Arc<Postgres>),
}

/// Runs the operation `$op` on whichever backend holds the accounts: the backend module's function
/// of that name, given a connection and then `$arg`s. A `write` is one that may change what the
/// server's gate decides (keys, accounts, blocks): once it succeeds, this process's [`Watcher`] is
/// woken at once instead of at its next poll.
macro_rules! on_backend {
    ($self:ident, $op:ident($($arg:expr),*)) => {
        match &$self.backend {
            Backend::Sqlite(db) => db.call(move |conn| sqlite::$op(conn, $($arg),*)).await,
            Backend::Postgres(db) => {
                let mut client = db.client().await?;
                postgres::$op(&mut client, $($arg),*).await
            }
        }
    };
    (write $self:ident, $op:ident($($arg:expr),*)) => {{
        let done = on_backend!($self, $op($($arg),*));
        if done.is_ok() {
            $self.written.notify_one();
        }
        done
    }};
}

impl Accounts {
    /// Opens the accounts store, creating it when there is none and bringing its schema up to date.
    pub async fn open(location: &Location) -> Result<Self> {
        let backend = match location {
            Location::DataDir(dir) => {
                let dir = dir.clone();
                Backend::Sqlite(Arc::new(tokio::task::spawn_blocking(move || Sqlite::open(&dir)).await??))
            }
            Location::Postgres(url) => Backend::Postgres(Arc::new(Postgres::open(url).await?)),
        };
        Ok(Self { backend, written: Arc::default() })
    }

    // ---- the operator

    /// Stores a key an administrator made for the account of `email`, creating the account (with
    /// its address confirmed: the administrator vouches for it) when there is none.
    pub async fn admin_create_key(
        &self,
        email: &Email,
        name: &KeyName,
        limits: Limits,
        key: &ApiKey,
        now: Timestamp,
    ) -> Result<KeyRecord> {
        let (email, name, key) = (email.clone(), name.clone(), key.clone());
        on_backend!(write self, admin_create_key(&email, &name, limits, &key, now))
    }

    /// [`Accounts::admin_create_key`] when the store holds no key at all, in the same transaction
    /// as that check, so that of replicas starting together on an empty store one makes it;
    /// `None` when there are keys.
    pub async fn admin_create_first_key(
        &self,
        email: &Email,
        name: &KeyName,
        limits: Limits,
        key: &ApiKey,
        now: Timestamp,
    ) -> Result<Option<KeyRecord>> {
        let (email, name, key) = (email.clone(), name.clone(), key.clone());
        on_backend!(write self, admin_create_first_key(&email, &name, limits, &key, now))
    }

    /// Every key, or those of the account of one address, oldest first.
    pub async fn list_keys(&self, account: Option<&Email>) -> Result<Vec<KeyRecord>> {
        let account = account.cloned();
        on_backend!(self, list_keys(account.as_ref()))
    }

    /// Revokes, suspends or unsuspends one key, and returns it as it now is.
    pub async fn change_key(
        &self,
        selector: &KeySelector,
        action: KeyAction,
        now: Timestamp,
    ) -> Result<KeyRecord> {
        let selector = selector.clone();
        on_backend!(write self, change_key(&selector, action, now))
    }

    /// Suspends (with a reason its owner reads in the dashboard) or reinstates an account.
    pub async fn set_account_suspended(
        &self,
        email: &Email,
        suspended: bool,
        reason: Option<&str>,
    ) -> Result<()> {
        let (email, reason) = (email.clone(), reason.map(str::to_owned));
        on_backend!(write self, set_account_suspended(&email, suspended, reason.as_deref()))
    }

    /// Blocks a calling address or range; returns false when it was already blocked.
    pub async fn block(&self, block: AddressBlock, now: Timestamp) -> Result<bool> {
        on_backend!(write self, block(block, now))
    }

    /// Lifts a block; returns false when there was none.
    pub async fn unblock(&self, block: AddressBlock) -> Result<bool> {
        on_backend!(write self, unblock(block))
    }

    /// Writes a consistent copy of the store into the directory `dest` (never over an existing
    /// file); returns the file written.
    pub async fn backup(&self, dest: &Path) -> Result<PathBuf> {
        let dest = dest.to_owned();
        on_backend!(self, backup(&dest))
    }

    /// Forgets expired links and idle sessions.
    pub async fn purge(&self, now: Timestamp) -> Result<()> {
        on_backend!(self, purge(now))
    }

    // ---- game data published for every replica (PostgreSQL only: `Error::NotShared` on SQLite)

    /// Stores `new` as the next generation of published game data and makes it current, in one
    /// transaction; then forgets the oldest beyond `keep` (never the current one).
    pub async fn publish_generation(
        &self,
        new: NewGeneration,
        keep: usize,
        now: Timestamp,
    ) -> Result<Generation> {
        on_backend!(self, publish_generation(&new, keep, now))
    }

    /// Every generation kept, newest first.
    pub async fn generations(&self) -> Result<Vec<Generation>> {
        on_backend!(self, generations())
    }

    /// The generation every replica is to serve, once one was published.
    pub async fn current_generation(&self) -> Result<Option<Generation>> {
        on_backend!(self, current_generation())
    }

    /// Makes the kept generation `number` current again.
    pub async fn activate_generation(&self, number: i64) -> Result<Generation> {
        on_backend!(self, activate_generation(number))
    }

    /// The bytes of generation `number` as they were stored.
    pub async fn generation_bytes(&self, number: i64) -> Result<Vec<u8>> {
        on_backend!(self, generation_bytes(number))
    }

    // ---- the server's gate

    /// Every key and block as they are now.
    pub async fn snapshot(&self) -> Result<AccessSnapshot> {
        on_backend!(self, snapshot())
    }

    /// Adds requests to the daily counts and records when each key was last used.
    pub async fn record_usage(&self, usage: Vec<Usage>) -> Result<()> {
        on_backend!(self, record_usage(&usage))
    }

    /// Requests each key made on `day` so far, as recorded.
    pub async fn usage_on(&self, day: i64) -> Result<HashMap<i64, u32>> {
        on_backend!(self, usage_on(day))
    }

    /// Tells when the store changed, so that snapshots are reloaded only then.
    pub fn watcher(&self) -> Result<Watcher> {
        let backend = match &self.backend {
            Backend::Sqlite(db) => WatcherBackend::Sqlite(db.watcher()?),
            Backend::Postgres(db) => WatcherBackend::Postgres(db.watcher()),
        };
        Ok(Watcher { backend, written: Arc::clone(&self.written) })
    }

    // ---- signing in

    /// Stores a one-time link for `email` (see [`Issued`] for when it is not). With `account`,
    /// spending it confirms the address for that account.
    pub async fn issue_email_token(
        &self,
        email: &Email,
        account: Option<AccountId>,
        token: TokenHash,
        now: Timestamp,
    ) -> Result<Issued> {
        let email = email.clone();
        on_backend!(self, issue_email_token(&email, account, token, now))
    }

    /// Spends a one-time link: confirms its address and signs in to the account that holds it.
    /// `signed_in` is the account of the browser that spends it, if any.
    pub async fn spend_email_token(
        &self,
        token: TokenHash,
        signed_in: Option<AccountId>,
        now: Timestamp,
    ) -> Result<SignIn> {
        on_backend!(write self, spend_email_token(token, signed_in, now))
    }

    /// What a link is for, while it can still be spent; reads only.
    pub async fn pending_link(&self, token: TokenHash, now: Timestamp) -> Result<Option<PendingLink>> {
        on_backend!(self, pending_link(token, now))
    }

    /// Signs in with what a provider said of its user.
    pub async fn sign_in_with(&self, profile: &Profile, now: Timestamp) -> Result<SignIn> {
        let profile = profile.clone();
        on_backend!(write self, sign_in_with(&profile, now))
    }

    /// Links a provider's user to the account of a signed-in owner.
    pub async fn link_identity(&self, account: AccountId, profile: &Profile, now: Timestamp) -> Result<()> {
        let profile = profile.clone();
        on_backend!(write self, link_identity(account, &profile, now))
    }

    // ---- sessions

    pub async fn create_session(
        &self,
        account: AccountId,
        session: TokenHash,
        user_agent: &str,
        now: Timestamp,
    ) -> Result<SessionInfo> {
        let user_agent = user_agent.to_owned();
        on_backend!(self, create_session(account, session, &user_agent, now))
    }

    /// The live session a browser holds, if any.
    pub async fn session(&self, session: TokenHash, now: Timestamp) -> Result<Option<SessionInfo>> {
        on_backend!(self, session(session, now))
    }

    pub async fn end_session(&self, session: TokenHash) -> Result<()> {
        on_backend!(self, end_session(session))
    }

    /// Ends every session of `account` but the one numbered `keep`; returns how many ended.
    pub async fn end_other_sessions(&self, account: AccountId, keep: i64) -> Result<usize> {
        on_backend!(self, end_other_sessions(account, keep))
    }

    pub async fn end_session_by_id(&self, account: AccountId, id: i64) -> Result<()> {
        on_backend!(self, end_session_by_id(account, id))
    }

    pub async fn sessions(&self, account: AccountId, now: Timestamp) -> Result<Vec<SessionRecord>> {
        on_backend!(self, sessions(account, now))
    }

    // ---- an owner's account

    pub async fn account(&self, account: AccountId) -> Result<Account> {
        on_backend!(self, account(account))
    }

    pub async fn unlink_identity(&self, account: AccountId, identity: i64) -> Result<()> {
        on_backend!(self, unlink_identity(account, identity))
    }

    /// Revokes every key and erases the account's addresses, sign-ins and sessions.
    pub async fn delete_account(&self, account: AccountId, now: Timestamp) -> Result<()> {
        on_backend!(write self, delete_account(account, now))
    }

    /// Stores a key its owner made, within the rules: a confirmed, unsuspended account, at most
    /// [`MAX_ACTIVE_KEYS`](crate::MAX_ACTIVE_KEYS) active keys. With `origins`, a browser key that
    /// answers only pages of those origins.
    pub async fn create_key(
        &self,
        account: AccountId,
        name: &KeyName,
        expires_at: Option<Timestamp>,
        origins: Option<&Origins>,
        key: &ApiKey,
        now: Timestamp,
    ) -> Result<KeyRecord> {
        let (name, origins, key) = (name.clone(), origins.cloned(), key.clone());
        on_backend!(write self, owner_create_key(account, &name, expires_at, origins.as_ref(), &key, now))
    }

    /// Whether the owner may make a key now: refused as [`create_key`](Self::create_key) would refuse.
    pub async fn key_allowance(&self, account: AccountId, now: Timestamp) -> Result<()> {
        on_backend!(self, may_create_key(account, now))
    }

    /// The keys an owner sees, newest first.
    pub async fn keys(&self, account: AccountId, now: Timestamp) -> Result<Vec<KeyRecord>> {
        on_backend!(self, owner_keys(account, now))
    }

    /// One of the owner's keys ([`Error::NoSuchKey`] for anyone else's).
    pub async fn key(&self, account: AccountId, id: i64) -> Result<KeyRecord> {
        on_backend!(self, owner_key(account, id))
    }

    pub async fn revoke_key(&self, account: AccountId, id: i64, now: Timestamp) -> Result<KeyRecord> {
        on_backend!(write self, owner_revoke_key(account, id, now))
    }

    /// Requests each of the account's keys made on each day from `first` to `last` (day numbers).
    pub async fn usage(&self, account: AccountId, first: i64, last: i64) -> Result<Vec<DailyUsage>> {
        on_backend!(self, account_usage(account, first, last))
    }

    // ---- an owner's webhooks

    /// Whether the owner may add an endpoint now: refused as [`create_webhook`](Self::create_webhook)
    /// would refuse.
    pub async fn webhook_allowance(&self, account: AccountId) -> Result<()> {
        on_backend!(self, may_create_webhook(account))
    }

    /// Adds an endpoint, within the rules: a confirmed, unsuspended account, at most
    /// [`MAX_WEBHOOKS`](crate::MAX_WEBHOOKS) endpoints.
    pub async fn create_webhook(
        &self,
        account: AccountId,
        new: &NewWebhook,
        now: Timestamp,
    ) -> Result<WebhookEndpoint> {
        let new = new.clone();
        on_backend!(self, create_webhook(account, &new, now))
    }

    /// The owner's endpoints, newest first.
    pub async fn webhooks(&self, account: AccountId) -> Result<Vec<WebhookEndpoint>> {
        on_backend!(self, webhooks(account))
    }

    /// One of the owner's endpoints ([`Error::NoSuchWebhook`] for anyone else's).
    pub async fn webhook(&self, account: AccountId, id: i64) -> Result<WebhookEndpoint> {
        on_backend!(self, webhook(account, id))
    }

    /// Gives the owner's endpoint a new secret; the replaced one still signs beside it for
    /// [`WEBHOOK_ROTATION_SECS`](crate::WEBHOOK_ROTATION_SECS).
    pub async fn rotate_webhook_secret(
        &self,
        account: AccountId,
        id: i64,
        secret: &str,
        now: Timestamp,
    ) -> Result<WebhookEndpoint> {
        let secret = secret.to_owned();
        on_backend!(self, rotate_webhook_secret(account, id, &secret, now))
    }

    /// Disables the owner's endpoint (nothing is sent to it meanwhile), or enables it again.
    pub async fn set_webhook_disabled(
        &self,
        account: AccountId,
        id: i64,
        disabled: bool,
        now: Timestamp,
    ) -> Result<WebhookEndpoint> {
        on_backend!(self, set_webhook_disabled(account, id, disabled, now))
    }

    /// Deletes the owner's endpoint, with what waits for it and its deliveries.
    pub async fn delete_webhook(&self, account: AccountId, id: i64) -> Result<()> {
        on_backend!(self, delete_webhook(account, id))
    }

    /// Queues a test event for the owner's endpoint, unless it is disabled; one at a time: while one
    /// is still on its way, asking again makes it due now.
    pub async fn queue_webhook_test(
        &self,
        account: AccountId,
        id: i64,
        bodies: &EventBodies,
        nonce: Nonce,
        now: Timestamp,
    ) -> Result<()> {
        let bodies = bodies.clone();
        on_backend!(self, queue_test(account, id, &bodies, &nonce, now))
    }

    /// The last deliveries of the owner's endpoint, newest first.
    pub async fn webhook_attempts(&self, account: AccountId, id: i64) -> Result<Vec<WebhookAttempt>> {
        on_backend!(self, webhook_attempts(account, id))
    }

    // ---- the webhooks' outbox

    /// Announces `event` about `subject` (a version's name, a key's expiry) once, for every replica
    /// and restart: the first call queues a message for each endpoint of `audience` that is told of
    /// it, the body of its kind, with a `webhook-id` made from `nonce`; later calls queue nothing.
    /// Returns how many it queued.
    pub async fn announce(
        &self,
        event: WebhookEvent,
        subject: &str,
        bodies: &EventBodies,
        audience: Audience,
        nonce: Nonce,
        now: Timestamp,
    ) -> Result<usize> {
        let (subject, bodies) = (subject.to_owned(), bodies.clone());
        on_backend!(self, announce(event, &subject, &bodies, audience, &nonce, now))
    }

    /// Claims up to `limit` messages due at `now`, for `lease` seconds, under `claim` (a value of the
    /// caller's randomness): no other worker (of this process or another replica) takes them
    /// meanwhile, and one that crashed, or outlived its lease, leaves them to be claimed again.
    /// Replicas' clocks must agree to well within a lease.
    pub async fn claim_webhook_messages(
        &self,
        now: Timestamp,
        lease: i64,
        limit: usize,
        claim: &str,
    ) -> Result<Vec<WebhookMessage>> {
        let claim = claim.to_owned();
        on_backend!(self, claim_webhook_messages(now, lease, limit, &claim))
    }

    /// Records a try of `message`, as it was claimed: done, or due again after a wait spread by
    /// `jitter` (per mille, from the caller's randomness). A try whose claim another worker has
    /// taken over since records nothing. When the try disables its endpoint (every try failed for
    /// [`WEBHOOK_FAILING_SECS`](crate::WEBHOOK_FAILING_SECS)), the endpoint is returned with its
    /// owner to tell.
    pub async fn record_webhook_attempt(
        &self,
        message: &WebhookMessage,
        report: &AttemptReport,
        jitter: u16,
    ) -> Result<Option<DisabledWebhook>> {
        let (id, claim, report) = (message.id, message.claim.clone(), report.clone());
        on_backend!(self, record_webhook_attempt(id, &claim, &report, jitter))
    }

    /// Keys that expire after `after` and at or before `until`, not revoked, of live accounts.
    pub async fn keys_expiring(&self, after: Timestamp, until: Timestamp) -> Result<Vec<KeyRecord>> {
        on_backend!(self, keys_expiring(after, until))
    }
}

/// Notices changes to the store: at once when this process made them, within a poll when another
/// process did (an admin command).
#[derive(Debug)]
pub struct Watcher {
    backend: WatcherBackend,
    written: Arc<Notify>,
}

#[derive(Debug)]
enum WatcherBackend {
    Sqlite(SqliteWatcher),
    Postgres(PostgresWatcher),
}

impl Watcher {
    /// Whether the store changed since the last call (always true on the first).
    pub async fn changed(&mut self) -> Result<bool> {
        match &mut self.backend {
            WatcherBackend::Sqlite(watcher) => watcher.changed().await,
            WatcherBackend::Postgres(watcher) => watcher.changed().await,
        }
    }

    /// Waits until this process changed access or `poll` has passed, then says whether the store
    /// changed since the last call, through this process or any other.
    pub async fn next_change(&mut self, poll: Duration) -> Result<bool> {
        let _ = tokio::time::timeout(poll, self.written.notified()).await;
        self.changed().await
    }
}
