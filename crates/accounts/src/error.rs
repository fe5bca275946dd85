//! What can go wrong with accounts: each refusal a caller can act on (show the user why, pick a
//! status) is its own variant; storage failures are kept apart, at the end.

use std::path::PathBuf;

use tapster_domain::Email;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An administrator's key selector that is neither an id, a public prefix nor a whole key.
    #[error(
        "{0:?} names no key: give a key id, a key's public prefix (tap_ and 8 characters) or the whole key"
    )]
    BadKeySelector(String),
    #[error("no such key")]
    NoSuchKey,
    #[error("several keys share that prefix; name the key by its id")]
    AmbiguousKeyPrefix,
    /// Only revoking is possible once a key is revoked.
    #[error("key {id} ({prefix}) is revoked; a revoked key stays revoked")]
    KeyRevoked { id: i64, prefix: String },
    #[error("there is no account {0}")]
    NoSuchAccount(Email),
    /// An account that has been deleted, or whose id was never given out.
    #[error("that account does not exist")]
    AccountGone,
    #[error("a key's name {0}")]
    InvalidKeyName(&'static str),
    #[error(
        "an account may hold at most {max} keys that are neither revoked nor expired; revoke one to make another"
    )]
    TooManyKeys { max: usize },
    /// Keys are for accounts whose e-mail address is confirmed.
    #[error("confirm an e-mail address for this account before creating keys")]
    Unconfirmed,
    #[error("this account is suspended{}", reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    AccountSuspended { reason: Option<String> },
    /// A one-time link that was never issued (or is not a token at all).
    #[error("this sign-in link is not valid")]
    TokenUnknown,
    #[error("this sign-in link has been used already")]
    TokenSpent,
    #[error("this sign-in link has expired")]
    TokenExpired,
    /// A link that confirms an address for an account, spent where that account is not signed in.
    #[error(
        "this link confirms an address for an account that is not signed in here; open it in the browser where you asked for it"
    )]
    TokenForAnotherAccount,
    /// Confirming an address that another account has already confirmed.
    #[error("{0} belongs to another account")]
    AddressTaken(Email),
    /// The only way left to sign in to the account would go.
    #[error("this is the account's only way to sign in")]
    LastSignIn,
    #[error("no such sign-in")]
    NoSuchIdentity,
    /// Linking a provider's user that another account has linked already.
    #[error("that sign-in belongs to another account")]
    IdentityTaken,
    #[error("no such session")]
    NoSuchSession,
    #[error("no such webhook endpoint")]
    NoSuchWebhook,
    #[error("an account may have at most {max} webhook endpoints; delete one first")]
    TooManyWebhooks { max: usize },
    #[error("a webhook endpoint's {0}")]
    InvalidWebhook(&'static str),
    #[error("this endpoint is disabled; enable it first")]
    WebhookDisabled,
    /// `store` is the file, or the database's URL without its password.
    #[error(
        "{store} was written by another generation of Tapster (schema {found}, this build reads up to {expected})"
    )]
    Schema { store: String, found: i64, expected: i64 },
    #[error("{} exists already; back up into a new directory", .0.display())]
    BackupExists(PathBuf),
    #[error(
        "the accounts are in PostgreSQL: back them up with PostgreSQL's own tools (pg_dump, or the server's backups)"
    )]
    BackupElsewhere,
    /// Publishing game data needs the store every replica shares.
    #[error(
        "game data is published to every replica through the accounts in PostgreSQL: give --accounts-url; \
         a replica with a data dir of its own takes `tapster import`"
    )]
    NotShared,
    #[error("there is no published generation {0}")]
    NoSuchGeneration(i64),
    /// A generation whose stored chunks do not add up (altered or cut short in the database).
    #[error("published generation {number} is damaged: {reason}")]
    BrokenGeneration { number: i64, reason: String },
    /// An accounts URL that names no store this build can open.
    #[error("accounts URL {url}: {reason}")]
    BadUrl { url: String, reason: String },
    /// The TLS handshake with the database at `url` (without its password) failed: a certificate it
    /// refused or that was refused, or a server without TLS where TLS is required.
    #[error("the TLS handshake with the accounts database {url} failed: {reason}")]
    Tls { url: String, reason: String },
    /// A stored value that this build cannot read back (written by hand, or by a later build).
    #[error("accounts database holds {0}, which cannot be read")]
    Corrupt(String),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("accounts database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("accounts connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("accounts database (PostgreSQL): {}", postgres_message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    #[error("accounts database (PostgreSQL) connection: {0}")]
    PostgresPool(#[from] deadpool_postgres::PoolError),
    /// The thread a blocking database call ran on panicked or was cancelled.
    #[error("accounts database task: {0}")]
    Task(#[from] tokio::task::JoinError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }

    /// Whether the store could not be reached (PostgreSQL down, restarting, or out of connections):
    /// a failure that passes by itself, unlike a storage error that stays (a refused password, a
    /// schema from a later build).
    pub fn is_unreachable(&self) -> bool {
        match self {
            Self::PostgresPool(deadpool_postgres::PoolError::Timeout(_)) => true,
            Self::PostgresPool(deadpool_postgres::PoolError::Backend(error)) | Self::Postgres(error) => {
                let io = std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>());
                // Class 08 is a connection exception; 57P01-57P03, a server shutting down or starting.
                // A refused password (28P01) or a database that does not exist (3D000) is not.
                let state = error.as_db_error().map(|db| db.code().code());
                error.is_closed() || io || state.is_some_and(|s| s.starts_with("08") || s.starts_with("57P0"))
            }
            _ => false,
        }
    }
}

/// What PostgreSQL said, whole: the error's own text, and the server's message when it sent one
/// (tokio-postgres shows only "db error" for those).
fn postgres_message(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => error.to_string(),
    }
}
