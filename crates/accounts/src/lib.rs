//! Accounts and everything hung on them: confirmed e-mail addresses, sign-ins through external
//! providers, one-time e-mail links, browser sessions, API keys (with expiry) and their daily usage,
//! and the operator's suspensions and address blocks; and, for several replicas sharing PostgreSQL,
//! the generations of game data published for all of them (bytes to this crate).
//!
//! Webhooks too: the endpoints accounts register, the events announced once, and the outbox the
//! server's worker delivers from.
//!
//! Only hashes of secrets are stored: of API keys, of session ids, of one-time links; a webhook
//! endpoint's signing secret is the one kept whole, since signing needs it. Every caller
//! goes through [`Accounts`], whatever backend holds the data: SQLite in the data dir for one
//! process, PostgreSQL for several replicas.
//! Time and randomness come in as arguments; this crate reads no clock and no random source.

mod accounts;
mod error;
mod model;
mod postgres;
mod sql;
mod sqlite;
mod token;

pub use accounts::{Accounts, Location, Watcher};
pub use error::{Error, Result};
pub use model::{
    AccessSnapshot, Account, AccountId, AttemptReport, Audience, DailyUsage, DisabledWebhook, EventBodies,
    Generation, Identity, Issued, KEPT_GENERATIONS, KeyAccess, KeyAction, KeyName, KeyRecord, KeySelector,
    KeyStatus, MAIL_WINDOW_SECS, MAILS_PER_WINDOW, MAX_ACTIVE_KEYS, MAX_WEBHOOKS, NewGeneration, NewWebhook,
    Nonce, PendingLink, Profile, Provider, REVOKED_SHOWN_SECS, SESSION_IDLE_SECS, SESSION_MAX_SECS,
    SESSION_TOUCH_SECS, SessionInfo, SessionRecord, SignIn, Suspension, TOKEN_LIFETIME_SECS, Usage,
    WEBHOOK_ATTEMPTS_KEPT, WEBHOOK_FAILING_SECS, WEBHOOK_RETRY_SECS, WEBHOOK_ROTATION_SECS, WebhookAttempt,
    WebhookDescription, WebhookEndpoint, WebhookEvent, WebhookKind, WebhookMessage, message_id,
};
pub use sqlite::ACCOUNTS_DB;
pub use token::{KeyHash, Token, TokenHash, hash_key};
