//! The values of accounts as callers see them: accounts and the ways to sign in to them, keys and
//! their state, sessions, usage, and the bounds on them (how long a link or a session lives, how
//! many keys an account may hold). Every rule that decides on them is in [`rules`], once.

use std::collections::HashMap;
use std::fmt;

use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Origins, Timestamp};

use crate::error::{Error, Result};
use crate::token::{KeyHash, hash_key};

pub(crate) mod rules;
mod webhooks;

pub use webhooks::{
    AttemptReport, Audience, DisabledWebhook, EventBodies, MAX_WEBHOOKS, NewWebhook, Nonce,
    WEBHOOK_ATTEMPTS_KEPT, WEBHOOK_FAILING_SECS, WEBHOOK_RETRY_SECS, WEBHOOK_ROTATION_SECS, WebhookAttempt,
    WebhookDescription, WebhookEndpoint, WebhookEvent, WebhookKind, WebhookMessage, message_id,
};

/// A one-time sign-in link is valid this long after it is mailed.
pub const TOKEN_LIFETIME_SECS: i64 = 15 * 60;
/// At most this many links are mailed to one address ...
pub const MAILS_PER_WINDOW: usize = 3;
/// ... within this many seconds.
pub const MAIL_WINDOW_SECS: i64 = 15 * 60;
/// A session not used for this long is over.
pub const SESSION_IDLE_SECS: i64 = 30 * 86_400;
/// A session is over this long after it began, however often it is used: then one signs in again.
pub const SESSION_MAX_SECS: i64 = 90 * 86_400;
/// A session's `last_seen` is written at most this often, so that browsing writes little.
pub const SESSION_TOUCH_SECS: i64 = 5 * 60;
/// Keys an account may hold that are neither revoked nor expired.
pub const MAX_ACTIVE_KEYS: usize = 10;
/// Revoked keys stay listed to their owner this long.
pub const REVOKED_SHOWN_SECS: i64 = 30 * 86_400;
/// Generations of published game data kept unless told otherwise; the current one always is.
pub const KEPT_GENERATIONS: usize = 5;

/// An account's number, as the database gave it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccountId(pub i64);

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The name an owner gives a key: 1 to 64 characters once trimmed, no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyName(String);

impl KeyName {
    pub const MAX_CHARS: usize = 64;

    pub fn parse(value: &str) -> Result<Self> {
        let value = value.trim();
        if value.is_empty() {
            return Err(Error::InvalidKeyName("is required"));
        }
        if value.chars().count() > Self::MAX_CHARS {
            return Err(Error::InvalidKeyName("is at most 64 characters"));
        }
        if value.chars().any(char::is_control) {
            return Err(Error::InvalidKeyName("cannot hold control characters"));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The external sign-in providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    GitHub,
    Discord,
}

impl Provider {
    pub const ALL: [Self; 2] = [Self::GitHub, Self::Discord];

    /// The name stored and used in paths (`/auth/github`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GitHub => "github",
            Self::Discord => "discord",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::GitHub => "GitHub",
            Self::Discord => "Discord",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == value)
    }
}

/// A provider's user: what it says of the person who signed in. The identity is the pair
/// (provider, `subject`); the login is only shown, the address is trusted only when `verified`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub provider: Provider,
    subject: String,
    pub login: String,
    pub email: Option<Email>,
    pub email_verified: bool,
}

impl Profile {
    /// `subject` is the provider's numeric user id (GitHub's `id`, Discord's snowflake); anything
    /// else is refused, so that a login name can never stand in for an identity.
    pub fn new(
        provider: Provider,
        subject: &str,
        login: &str,
        email: Option<Email>,
        email_verified: bool,
    ) -> Option<Self> {
        let numeric =
            !subject.is_empty() && subject.len() <= 20 && subject.bytes().all(|b| b.is_ascii_digit());
        numeric.then(|| Self {
            provider,
            subject: subject.to_owned(),
            login: login.chars().filter(|c| !c.is_control()).take(100).collect(),
            email,
            email_verified,
        })
    }

    pub fn subject(&self) -> &str {
        &self.subject
    }
}

/// An account as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: AccountId,
    /// The confirmed address; `None` until one is confirmed.
    pub email: Option<Email>,
    /// An address a provider gave without vouching for it, to be confirmed by mail.
    pub pending_email: Option<Email>,
    pub suspension: Option<Suspension>,
    pub created_at: Timestamp,
    pub identities: Vec<Identity>,
}

impl Account {
    pub fn confirmed(&self) -> bool {
        self.email.is_some()
    }
}

/// Why an account is suspended, as the operator wrote it (if they did).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suspension {
    pub reason: Option<String>,
}

/// An external sign-in linked to an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub id: i64,
    pub provider: Provider,
    pub login: String,
    pub created_at: Timestamp,
}

/// What spending a link or signing in with a provider did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignIn {
    pub account: AccountId,
    /// A new account was made for this sign-in.
    pub created: bool,
}

/// Whether a link was stored for mailing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issued {
    Issued,
    /// The address had its share of mails lately: nothing was stored, nothing is to be sent.
    Throttled,
}

/// A signed-in browser, as the session's lookup finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionInfo {
    pub account: AccountId,
    /// The session's number, to tell it apart in the list of sessions.
    pub id: i64,
    /// When it began: it is over [`SESSION_MAX_SECS`] later.
    pub created_at: Timestamp,
    /// The lookup moved the session's idle deadline on: the browser's cookie should be renewed too.
    pub renewed: bool,
}

impl SessionInfo {
    /// How long, from a use at `now`, the session lives without another: its idle time, cut short by
    /// its absolute end. A browser's cookie set at `now` need not outlive it.
    pub fn lasts_secs(&self, now: Timestamp) -> i64 {
        SESSION_IDLE_SECS.min(self.created_at.0 + SESSION_MAX_SECS - now.0).max(0)
    }
}

/// What a one-time link is for, as its page tells the person about to spend it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingLink {
    pub email: Email,
    /// It confirms the address for an account that asked, rather than signing in.
    pub confirms: bool,
}

/// A session as its owner sees it in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: i64,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub user_agent: String,
}

/// A key: everything but the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub id: i64,
    pub account: AccountId,
    /// The owner's confirmed address, if it has one.
    pub account_email: Option<Email>,
    pub name: String,
    /// The public start of the key (`tap_Ab12Cd34`).
    pub prefix: String,
    pub limits: Limits,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    pub suspended: bool,
    /// For a browser key, the pages that may call with it; `None` for a key used by servers.
    pub origins: Option<Origins>,
}

/// What a key is made with, besides the key itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyTerms<'a> {
    pub(crate) name: &'a KeyName,
    pub(crate) limits: Limits,
    pub(crate) expires_at: Option<Timestamp>,
    pub(crate) origins: Option<&'a Origins>,
}

/// A key's state at a moment, worst first: a revoked key is revoked whatever else holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStatus {
    Revoked,
    Suspended,
    Expired,
    Active,
}

impl KeyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Revoked => "revoked",
            Self::Suspended => "suspended",
            Self::Expired => "expired",
            Self::Active => "active",
        }
    }
}

impl KeyRecord {
    /// Whether it has expired by `now` (whatever else holds).
    pub(crate) fn expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    pub fn status(&self, now: Timestamp) -> KeyStatus {
        if self.revoked_at.is_some() {
            KeyStatus::Revoked
        } else if self.suspended {
            KeyStatus::Suspended
        } else if self.expired(now) {
            KeyStatus::Expired
        } else {
            KeyStatus::Active
        }
    }
}

/// Requests one key made on one UTC day (days since 1970-01-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyUsage {
    pub key_id: i64,
    pub day: i64,
    pub requests: u32,
}

/// Requests of one key on one day, to be added to what is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub key_id: i64,
    pub day: i64,
    pub requests: u32,
    pub last_used: Timestamp,
}

/// What the server needs to decide on a key, without a query per request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyAccess {
    pub id: i64,
    pub prefix: String,
    /// The name its owner gave it.
    pub name: String,
    pub limits: Limits,
    pub expires_at: Option<Timestamp>,
    pub revoked: bool,
    pub suspended: bool,
    pub account_suspended: bool,
    pub account_confirmed: bool,
    /// For a browser key, the pages that may call with it; `None` for a key used by servers.
    pub origins: Option<Origins>,
}

/// Every key by hash and every blocked address, as of one moment.
#[derive(Debug, Clone, Default)]
pub struct AccessSnapshot {
    pub keys: HashMap<KeyHash, KeyAccess>,
    pub blocked: Vec<AddressBlock>,
}

/// What an administrator does to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// For good: a revoked key is refused with 401 and cannot come back.
    Revoke,
    Suspend,
    Unsuspend,
}

/// How an administrator names a key: its id, its public prefix, or the whole key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySelector {
    Id(i64),
    Prefix(String),
    Key(KeyHash),
}

impl KeySelector {
    pub fn parse(value: &str) -> Result<Self> {
        let value = value.trim();
        if let Ok(id) = value.parse() {
            return Ok(Self::Id(id));
        }
        if let Ok(key) = ApiKey::parse(value) {
            return Ok(Self::Key(hash_key(&key)));
        }
        if value.len() == ApiKey::DISPLAY_LEN
            && value.starts_with(ApiKey::PREFIX)
            && value[ApiKey::PREFIX.len()..].bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Ok(Self::Prefix(value.to_owned()));
        }
        Err(Error::BadKeySelector(value.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names() {
        assert_eq!(KeyName::parse("  wiki bot ").unwrap().as_str(), "wiki bot");
        assert_eq!(KeyName::parse(&"é".repeat(64)).unwrap().as_str().chars().count(), 64);
        assert_eq!(
            KeyName::parse("<script>alert(1)</script>").unwrap().as_str(),
            "<script>alert(1)</script>"
        );
        for bad in ["", "   ", &"x".repeat(65), "a\u{0}b", "line\nbreak"] {
            assert!(KeyName::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn profiles_need_a_numeric_subject() {
        let profile = |subject: &str| Profile::new(Provider::GitHub, subject, "marta", None, false);
        assert_eq!(profile("583231").unwrap().subject(), "583231");
        for bad in ["", "marta", "12a", "-1", "1 2", &"9".repeat(21)] {
            assert!(profile(bad).is_none(), "{bad:?}");
        }
    }

    /// A key of account 1, with the state a test asks for (the rules' tests use it too).
    pub(crate) fn key(revoked_at: Option<i64>, expires_at: Option<i64>, suspended: bool) -> KeyRecord {
        KeyRecord {
            id: 7,
            account: AccountId(1),
            account_email: None,
            name: "k".into(),
            prefix: "tap_00000000".into(),
            limits: Limits::DEFAULT,
            created_at: Timestamp(0),
            last_used_at: None,
            expires_at: expires_at.map(Timestamp),
            revoked_at: revoked_at.map(Timestamp),
            suspended,
            origins: None,
        }
    }

    #[test]
    fn key_status_worst_first() {
        let key = key(None, Some(100), false);
        assert_eq!(key.status(Timestamp(99)), KeyStatus::Active);
        assert_eq!(key.status(Timestamp(100)), KeyStatus::Expired);
        let suspended = KeyRecord { suspended: true, ..key.clone() };
        assert_eq!(suspended.status(Timestamp(100)), KeyStatus::Suspended);
        let revoked = KeyRecord { revoked_at: Some(Timestamp(5)), ..suspended };
        assert_eq!(revoked.status(Timestamp(0)), KeyStatus::Revoked);
    }
}

/// A generation of game data published for every replica: one served game database, stored
/// compressed in chunks. The bytes are the publisher's; this crate keeps them and says what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    pub number: i64,
    /// SHA-256 of the database as served (not as stored).
    pub sha256: [u8; 32],
    /// Bytes of the database as served.
    pub size: u64,
    /// Bytes as stored.
    pub stored: u64,
    /// The game versions it holds.
    pub versions: Vec<String>,
    pub published_at: Timestamp,
    /// Who published it: `user@host`.
    pub published_by: String,
    /// Whether it is the one every replica serves.
    pub current: bool,
}

/// A generation to publish: what identifies and describes the database, and its bytes as stored.
#[derive(Debug, Clone)]
pub struct NewGeneration {
    pub sha256: [u8; 32],
    pub size: u64,
    pub versions: Vec<String>,
    pub published_by: String,
    pub stored: Vec<u8>,
}
