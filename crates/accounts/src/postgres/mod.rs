//! The PostgreSQL backend, for several replicas sharing one accounts store: a pool of connections
//! (deadpool), the schema brought up to date under an advisory lock, and each operation the same
//! transaction as the SQLite backend's, in PostgreSQL's SQL.
//!
//! Writers are serialized as SQLite serializes them: every write that reads before it writes (the key
//! cap, spending a link, signing in) or that moves the access version (keys, accounts, blocks) first
//! takes one transaction-scoped advisory lock, [`WRITE_LOCK`], so no two of them interleave or wait
//! on each other's rows. Such writes are rare (a person in the dashboard, an operator), so one lock
//! costs nothing and keeps every rule as simple as on SQLite. Usage, written every few seconds by
//! every replica, is an upsert that needs no lock; sessions and links touch rows of their own.

mod account;
mod keys;
mod published;
mod schema;
mod sessions;
mod signin;
mod tls;
mod webhooks;

use std::path::{Path, PathBuf};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use tapster_domain::{Email, Timestamp};
use tokio_postgres::{Client, Transaction};

use crate::error::{Error, Result};
use crate::model::rules::Purge;

pub(crate) use account::*;
pub(crate) use keys::*;
pub(crate) use published::*;
pub(crate) use sessions::*;
pub(crate) use signin::*;
pub(crate) use webhooks::*;

/// The advisory lock every reading writer holds for its transaction (an arbitrary number: "tap" and
/// "w" in ASCII).
const WRITE_LOCK: i64 = 0x7461_7077;

/// How long a replica waits for a connection to PostgreSQL before it says the store is unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long sent data may go unacknowledged, or a connection idle unprobed, before it counts as dead.
const DEAD_AFTER: Duration = Duration::from_secs(5);
/// How long an operation waits for a free connection of the pool.
const WAIT_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections per process: the server's gate and upkeep, the dashboard's pages.
const POOL_SIZE: usize = 8;

/// The accounts in a PostgreSQL database.
#[derive(Debug)]
pub(crate) struct Postgres {
    pool: Pool,
    /// The URL without its password, for messages.
    shown: String,
}

impl Postgres {
    /// Connects to the database at `url` (with TLS as its libpq parameters say, see `tls`) and
    /// brings it to this build's schema.
    pub(crate) async fn open(url: &str) -> Result<Self> {
        let shown = shown(url);
        let (mut config, connector) =
            tls::connector(url).map_err(|reason| Error::BadUrl { url: shown.clone(), reason })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        // A database that vanishes without closing its connections (a network that drops packets)
        // is noticed within seconds, not when TCP gives up a quarter of an hour later.
        config
            .tcp_user_timeout(DEAD_AFTER)
            .keepalives_idle(DEAD_AFTER)
            .keepalives_interval(Duration::from_secs(1));
        config.application_name("tapster");
        let manager = Manager::from_connect(
            config,
            connector,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WAIT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| Error::BadUrl { url: shown.clone(), reason: e.to_string() })?;
        let db = Self { pool, shown };
        let mut client = db.client().await?;
        schema::migrate(&mut client, &db.shown).await?;
        drop(client);
        Ok(db)
    }

    /// A pooled connection.
    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object> {
        // A connection that could not be made says why: the TLS handshake's failure, or the server's
        // own message (the pool's error shows neither).
        self.pool.get().await.map_err(|error| match error {
            PoolError::Backend(backend) => match tls::failure(&backend) {
                Some(reason) => Error::Tls { url: self.shown.clone(), reason },
                None => Error::Postgres(backend),
            },
            other => other.into(),
        })
    }

    /// A watcher of the access version, on a pooled connection per look.
    pub(crate) fn watcher(&self) -> PostgresWatcher {
        PostgresWatcher { pool: self.pool.clone(), seen: None }
    }
}

/// Notices changes to what the servers decide on by the version the schema's triggers count.
#[derive(Debug)]
pub(crate) struct PostgresWatcher {
    pool: Pool,
    seen: Option<i64>,
}

impl PostgresWatcher {
    pub(crate) async fn changed(&mut self) -> Result<bool> {
        let client = self.pool.get().await?;
        let version: i64 = client.query_one("SELECT version FROM access_version", &[]).await?.get(0);
        Ok(self.seen.replace(version) != Some(version))
    }
}

/// An accounts URL as messages and logs may show it: without the password in its authority
/// (`postgres://user:password@host`), nor libpq's `password` parameter in its query.
pub(crate) fn shown(url: &str) -> String {
    let url = tapster_domain::url_without_password(url);
    let Some((base, query)) = url.split_once('?') else { return url };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.split('=').next().unwrap_or_default().eq_ignore_ascii_case("password"))
        .collect();
    if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) }
}

/// Starts a transaction that holds the write lock: it sees every write committed before it and
/// none is committed beside it.
async fn write_transaction(client: &mut Client) -> Result<Transaction<'_>> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).await?;
    Ok(tx)
}

/// Backups of a PostgreSQL database are PostgreSQL's (`pg_dump`, or the server's own backups and
/// point-in-time recovery), which see every replica's writes; copying it from here would not.
pub(crate) async fn backup(_: &mut Client, _: &Path) -> Result<PathBuf> {
    Err(Error::BackupElsewhere)
}

/// Forgets what no longer matters ([`Purge`]): links long expired, and sessions past their idle
/// time or their absolute lifetime.
pub(crate) async fn purge(client: &mut Client, now: Timestamp) -> Result<()> {
    let Purge { links_expired_before, live, messages_done_before } = Purge::at(now);
    let tx = client.transaction().await?;
    tx.execute(
        "DELETE FROM webhook_messages WHERE done_at < $1
             AND NOT EXISTS (SELECT 1 FROM webhook_attempts t WHERE t.message_id = webhook_messages.id)",
        &[&messages_done_before],
    )
    .await?;
    tx.execute("DELETE FROM email_tokens WHERE expires_at < $1", &[&links_expired_before]).await?;
    tx.execute(
        "DELETE FROM sessions WHERE last_seen_at <= $1 OR created_at <= $2",
        &[&live.seen_after, &live.created_after],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Reads a stored address back; the database only ever holds parsed ones.
fn email_column(row: &tokio_postgres::Row, index: usize) -> Result<Option<Email>> {
    row.get::<_, Option<String>>(index)
        .map(|email| Email::parse(&email).map_err(|_| Error::Corrupt(format!("a stored address {email:?}"))))
        .transpose()
}

/// A count stored as BIGINT (never negative: the schema checks it).
fn count(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_url_is_shown_without_a_password_wherever_it_is() {
        let cases = [
            ("postgres://app:s3cret@db:5432/t?sslmode=require", "postgres://app@db:5432/t?sslmode=require"),
            ("postgres://db/t?sslmode=require&password=s3cret", "postgres://db/t?sslmode=require"),
            (
                "postgres://app@db/t?Password=s3cret&sslmode=verify-full",
                "postgres://app@db/t?sslmode=verify-full",
            ),
            ("postgres://db/t?password=s3cret", "postgres://db/t"),
            ("postgres://db/t?passwords_are=kept", "postgres://db/t?passwords_are=kept"),
        ];
        for (url, shown) in cases {
            assert_eq!(super::shown(url), shown, "{url}");
        }
    }
}
