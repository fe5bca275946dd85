//! The SQLite backend: one file in the data dir (WAL, so that the admin commands write while the
//! server reads), a small pool of connections, and each call run on tokio's blocking threads so that
//! no request's task waits on the disk.

mod account;
mod keys;
mod schema;
mod sessions;
mod signin;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};
use tapster_domain::Timestamp;

use crate::model::LiveSessions;
use crate::{Error, Result};

pub(crate) use account::*;
pub(crate) use keys::*;
pub(crate) use sessions::*;
pub(crate) use signin::*;

/// File name of the accounts database inside the data dir.
pub const ACCOUNTS_DB: &str = "accounts.sqlite";

#[derive(Debug)]
pub(crate) struct Sqlite {
    path: PathBuf,
    pool: Pool<SqliteConnectionManager>,
}

impl Sqlite {
    /// Opens the accounts database of `data_dir`, creating it (and the dir) when there is none, and
    /// bringing it to this build's schema.
    pub(crate) fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(Error::io(data_dir))?;
        let path = data_dir.join(ACCOUNTS_DB);
        let manager = SqliteConnectionManager::file(&path).with_init(|conn| {
            // The timeout makes concurrent writers (the server, the admin commands) wait for each
            // other instead of failing.
            conn.busy_timeout(Duration::from_secs(5))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "foreign_keys", "ON")?;
            Ok(())
        });
        let pool = Pool::builder().max_size(4).build(manager)?;
        schema::migrate(&mut *pool.get()?, &path)?;
        Ok(Self { path, pool })
    }

    /// Runs `work` on a pooled connection on a blocking thread.
    pub(crate) async fn call<T, F>(self: &Arc<Self>, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let db = Arc::clone(self);
        tokio::task::spawn_blocking(move || work(&mut *db.pool.get()?)).await?
    }

    /// A connection of its own that tells when another one has committed.
    pub(crate) fn watcher(&self) -> Result<SqliteWatcher> {
        let conn = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        Ok(SqliteWatcher { conn: Arc::new(Mutex::new(conn)), seen: None })
    }
}

/// Notices commits made through other connections (`PRAGMA data_version`).
#[derive(Debug)]
pub(crate) struct SqliteWatcher {
    conn: Arc<Mutex<Connection>>,
    seen: Option<i64>,
}

impl SqliteWatcher {
    pub(crate) async fn changed(&mut self) -> Result<bool> {
        let conn = Arc::clone(&self.conn);
        let version = tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            conn.pragma_query_value(None, "data_version", |row| row.get::<_, i64>(0))
        })
        .await??;
        Ok(self.seen.replace(version) != Some(version))
    }
}

/// A consistent copy of the database into the directory `dest` (`VACUUM INTO` reads one
/// transaction's view), never over an existing file; returns the file written.
pub(crate) fn backup(conn: &mut Connection, dest: &Path) -> Result<PathBuf> {
    let target = dest.join(ACCOUNTS_DB);
    if target.exists() {
        return Err(Error::BackupExists(target));
    }
    std::fs::create_dir_all(dest).map_err(Error::io(dest))?;
    conn.execute("VACUUM INTO ?1", [target.to_string_lossy()])?;
    Ok(target)
}

/// Forgets what no longer matters: links that expired a day ago, and sessions past their idle time
/// or their absolute lifetime.
pub(crate) fn purge(conn: &mut Connection, now: Timestamp) -> Result<()> {
    let live = LiveSessions::at(now);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM email_tokens WHERE expires_at < ?1", [now.0 - 86_400])?;
    tx.execute(
        "DELETE FROM sessions WHERE last_seen_at <= ?1 OR created_at <= ?2",
        [live.seen_after, live.created_after],
    )?;
    tx.commit()?;
    Ok(())
}

/// Reads a stored address back; the database only ever holds parsed ones.
fn email_column(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Option<tapster_domain::Email>> {
    row.get::<_, Option<String>>(index)?
        .map(|email| {
            tapster_domain::Email::parse(&email).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
            })
        })
        .transpose()
}
