//! The SQLite backend: one file in the data dir (WAL, so that the admin commands write while the
//! server reads), a small pool of connections, and each call run on tokio's blocking threads so that
//! no request's task waits on the disk. The file, its WAL and a backup of it are their owner's alone
//! to read, whatever the umask.

mod account;
mod keys;
mod published;
mod schema;
mod sessions;
mod signin;
mod webhooks;

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};
use tapster_domain::Timestamp;

use crate::error::{Error, Result};
use crate::model::rules::Purge;

pub(crate) use account::*;
pub(crate) use keys::*;
pub(crate) use published::*;
pub(crate) use sessions::*;
pub(crate) use signin::*;
pub(crate) use webhooks::*;

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
        owner_only(&path)?;
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
    // `VACUUM INTO` writes into an empty file as into a new one, and keeps its mode.
    match open_owner_only(OpenOptions::new().write(true).create_new(true), &target) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(Error::BackupExists(target)),
        Err(e) => return Err(Error::io(&target)(e)),
    }
    if let Err(e) = conn.execute("VACUUM INTO ?1", [target.to_string_lossy()]) {
        let _ = std::fs::remove_file(&target);
        return Err(e.into());
    }
    Ok(target)
}

/// Forgets what no longer matters ([`Purge`]): links long expired, and sessions past their idle
/// time or their absolute lifetime.
pub(crate) fn purge(conn: &mut Connection, now: Timestamp) -> Result<()> {
    let Purge { links_expired_before, live, messages_done_before } = Purge::at(now);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute(
        "DELETE FROM webhook_messages WHERE done_at < ?1
             AND NOT EXISTS (SELECT 1 FROM webhook_attempts t WHERE t.message_id = webhook_messages.id)",
        [messages_done_before],
    )?;
    tx.execute("DELETE FROM email_tokens WHERE expires_at < ?1", [links_expired_before])?;
    tx.execute(
        "DELETE FROM sessions WHERE last_seen_at <= ?1 OR created_at <= ?2",
        [live.seen_after, live.created_after],
    )?;
    tx.commit()?;
    Ok(())
}

/// Makes the database at `path` its owner's alone: created with mode `0600` before SQLite opens it,
/// or narrowed to that mode when it was there already. SQLite gives the files it keeps beside it
/// (the write-ahead log, `-wal`, and its index, `-shm`) the database's mode when it creates them;
/// those left from before are narrowed too.
fn owner_only(path: &Path) -> Result<()> {
    open_owner_only(OpenOptions::new().write(true).create(true).truncate(false), path)
        .map_err(Error::io(path))?;
    for suffix in ["-wal", "-shm"] {
        let mut beside = OsString::from(path);
        beside.push(suffix);
        let beside = PathBuf::from(beside);
        match open_owner_only(OpenOptions::new().write(true), &beside) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(Error::io(&beside)(e)),
            _ => {}
        }
    }
    Ok(())
}

/// Opens the file at `path` with `options` (which say whether it may exist already, or must), as
/// its owner's alone to read and write: created with mode `0600`, then set to exactly that, whatever
/// the umask took from it or the mode it had before. (Elsewhere than on Unix, access is the
/// directory's to decide.)
fn open_owner_only(options: &mut OpenOptions, path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let file = options.mode(0o600).open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
    }
    #[cfg(not(unix))]
    options.open(path).map(drop)
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
