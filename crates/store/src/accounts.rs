//! Accounts, API keys, blocked addresses and daily usage, in their own SQLite file beside the game
//! data (which imports replace). Written by the admin commands and by the server's usage flush, read
//! by the server as a snapshot that it reloads whenever another connection commits.
//!
//! Only the SHA-256 of a key is stored; the key itself is shown once, by whoever created it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use sha2::{Digest, Sha256};
use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Timestamp};

use crate::{Error, Result};

/// File name of the accounts database inside the data dir.
pub const ACCOUNTS_DB: &str = "accounts.sqlite";

const SCHEMA_VERSION: i64 = 1;

const DDL: &str = "
CREATE TABLE accounts (
    id         INTEGER PRIMARY KEY,
    email      TEXT    NOT NULL UNIQUE,
    confirmed  INTEGER NOT NULL,
    suspended  INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE TABLE keys (
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    name         TEXT    NOT NULL,
    prefix       TEXT    NOT NULL,
    sha256       BLOB    NOT NULL UNIQUE,
    per_minute   INTEGER NOT NULL,
    burst        INTEGER NOT NULL,
    per_day      INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER,
    suspended    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX keys_by_prefix ON keys (prefix);
CREATE TABLE blocked_addresses (
    block      TEXT    PRIMARY KEY,
    created_at INTEGER NOT NULL
);
-- Requests each key made on each UTC day (days since 1970-01-01).
CREATE TABLE daily_usage (
    key_id   INTEGER NOT NULL REFERENCES keys (id),
    day      INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (key_id, day)
) WITHOUT ROWID;
";

/// The SHA-256 of a key: what is stored and looked up instead of the key.
pub type KeyHash = [u8; 32];

pub fn hash_key(key: &ApiKey) -> KeyHash {
    Sha256::digest(key.expose().as_bytes()).into()
}

/// The accounts database of a data dir.
#[derive(Debug, Clone)]
pub struct Accounts {
    path: PathBuf,
    pool: Pool<SqliteConnectionManager>,
}

/// A key as listed to an administrator: everything but the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub id: i64,
    pub account: Email,
    pub name: String,
    /// The public start of the key (`tap_Ab12Cd34`).
    pub prefix: String,
    pub limits: Limits,
    pub created_at: Timestamp,
    pub last_used_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    pub suspended: bool,
}

/// What the server needs to decide on a key, without a query per request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyAccess {
    pub id: i64,
    pub prefix: String,
    pub limits: Limits,
    pub revoked: bool,
    pub suspended: bool,
    pub account_suspended: bool,
    pub account_confirmed: bool,
}

/// Every key by hash and every blocked address, as of one moment.
#[derive(Debug, Clone, Default)]
pub struct AccessSnapshot {
    pub keys: HashMap<KeyHash, KeyAccess>,
    pub blocked: Vec<AddressBlock>,
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
        Err(Error::Admin(format!(
            "{value:?} names no key: give a key id, a key's public prefix (tap_ and 8 characters) or the whole key"
        )))
    }
}

/// What an administrator does to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// For good: a revoked key is refused with 401 and cannot come back.
    Revoke,
    Suspend,
    Unsuspend,
}

impl Accounts {
    /// Opens the accounts database of `data_dir`, creating it (and the dir) when there is none.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(Error::io(data_dir))?;
        let path = data_dir.join(ACCOUNTS_DB);
        let manager = SqliteConnectionManager::file(&path).with_init(|conn| {
            // WAL lets the admin commands write while the server reads; the timeout makes concurrent
            // writers wait for each other instead of failing.
            conn.busy_timeout(Duration::from_secs(5))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "foreign_keys", "ON")?;
            Ok(())
        });
        let pool = Pool::builder().max_size(4).build(manager)?;
        let conn = pool.get()?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        match version {
            0 => {
                conn.execute_batch(&format!(
                    "BEGIN IMMEDIATE; {DDL} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                ))
                .or_else(|e| {
                    // Another process created it between our check and our write.
                    let now: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
                    if now == SCHEMA_VERSION { Ok(()) } else { Err(e) }
                })?;
            }
            SCHEMA_VERSION => {}
            found => return Err(Error::Schema { path, found, expected: SCHEMA_VERSION }),
        }
        drop(conn);
        Ok(Self { path, pool })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether any key exists at all, revoked or not.
    pub fn has_keys(&self) -> Result<bool> {
        let conn = self.pool.get()?;
        Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM keys)", [], |row| row.get(0))?)
    }

    /// Stores a new key for the account of `email`, creating the account (confirmed: an administrator
    /// vouches for it) when there is none.
    pub fn create_key(
        &self,
        email: &Email,
        name: &str,
        limits: Limits,
        key: &ApiKey,
        now: Timestamp,
    ) -> Result<KeyRecord> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(Error::Admin("a key's name is 1 to 100 characters".into()));
        }
        let mut conn = self.pool.get()?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO accounts (email, confirmed, created_at) VALUES (?1, 1, ?2) ON CONFLICT (email) DO NOTHING",
            params![email.as_str(), now.0],
        )?;
        let account_id: i64 =
            tx.query_row("SELECT id FROM accounts WHERE email = ?1", [email.as_str()], |row| row.get(0))?;
        tx.execute(
            "INSERT INTO keys (account_id, name, prefix, sha256, per_minute, burst, per_day, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                account_id,
                name,
                key.display_prefix(),
                hash_key(key).as_slice(),
                limits.per_minute,
                limits.burst,
                limits.per_day,
                now.0
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        self.key(&conn, id)
    }

    /// Every key, or those of one account, oldest first.
    pub fn list_keys(&self, account: Option<&Email>) -> Result<Vec<KeyRecord>> {
        let conn = self.pool.get()?;
        let mut stmt =
            conn.prepare(&format!("{KEY_COLUMNS} WHERE ?1 IS NULL OR a.email = ?1 ORDER BY k.id"))?;
        let keys = stmt.query_map([account.map(Email::as_str)], key_record)?.collect::<Result<_, _>>()?;
        Ok(keys)
    }

    /// Revokes, suspends or unsuspends one key, and returns it as it now is.
    pub fn change_key(&self, selector: &KeySelector, action: KeyAction, now: Timestamp) -> Result<KeyRecord> {
        let conn = self.pool.get()?;
        let id = self.find_key(&conn, selector)?;
        let current = self.key(&conn, id)?;
        if current.revoked_at.is_some() && action != KeyAction::Revoke {
            return Err(Error::Admin(format!(
                "key {} ({}) is revoked; a revoked key stays revoked",
                id, current.prefix
            )));
        }
        match action {
            KeyAction::Revoke => conn.execute(
                "UPDATE keys SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1",
                params![id, now.0],
            )?,
            KeyAction::Suspend => conn.execute("UPDATE keys SET suspended = 1 WHERE id = ?1", [id])?,
            KeyAction::Unsuspend => conn.execute("UPDATE keys SET suspended = 0 WHERE id = ?1", [id])?,
        };
        self.key(&conn, id)
    }

    /// Suspends or reinstates an account, and so every key it owns.
    pub fn set_account_suspended(&self, email: &Email, suspended: bool) -> Result<()> {
        let conn = self.pool.get()?;
        let changed = conn.execute(
            "UPDATE accounts SET suspended = ?2 WHERE email = ?1",
            params![email.as_str(), suspended],
        )?;
        if changed == 0 {
            return Err(Error::Admin(format!("there is no account {email}")));
        }
        Ok(())
    }

    /// Blocks a calling address or range; returns false when it was already blocked.
    pub fn block(&self, block: AddressBlock, now: Timestamp) -> Result<bool> {
        let conn = self.pool.get()?;
        let added = conn.execute(
            "INSERT INTO blocked_addresses (block, created_at) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            params![block.to_string(), now.0],
        )?;
        Ok(added == 1)
    }

    /// Lifts a block; returns false when there was none.
    pub fn unblock(&self, block: AddressBlock) -> Result<bool> {
        let conn = self.pool.get()?;
        Ok(conn.execute("DELETE FROM blocked_addresses WHERE block = ?1", [block.to_string()])? == 1)
    }

    /// Every key and block as they are now.
    pub fn snapshot(&self) -> Result<AccessSnapshot> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare(
            "SELECT k.id, k.prefix, k.sha256, k.per_minute, k.burst, k.per_day, k.revoked_at IS NOT NULL,
                    k.suspended, a.suspended, a.confirmed
             FROM keys k JOIN accounts a ON a.id = k.account_id",
        )?;
        let mut keys = HashMap::new();
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let hash: Vec<u8> = row.get(2)?;
            let Ok(hash) = KeyHash::try_from(hash.as_slice()) else { continue };
            keys.insert(
                hash,
                KeyAccess {
                    id: row.get(0)?,
                    prefix: row.get(1)?,
                    limits: limits(row, 3)?,
                    revoked: row.get(6)?,
                    suspended: row.get(7)?,
                    account_suspended: row.get(8)?,
                    account_confirmed: row.get(9)?,
                },
            );
        }
        let mut stmt = conn.prepare("SELECT block FROM blocked_addresses")?;
        let blocked = stmt
            .query_map([], |row| row.get::<_, String>(0))?
            .filter_map(|block| block.map(|b| AddressBlock::parse(&b).ok()).transpose())
            .collect::<Result<_, _>>()?;
        Ok(AccessSnapshot { keys, blocked })
    }

    /// Adds requests to the daily counts and records when each key was last used.
    pub fn record_usage(&self, usage: &[Usage]) -> Result<()> {
        if usage.is_empty() {
            return Ok(());
        }
        let mut conn = self.pool.get()?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let mut count = tx.prepare_cached(
                "INSERT INTO daily_usage (key_id, day, requests) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key_id, day) DO UPDATE SET requests = requests + excluded.requests",
            )?;
            let mut used = tx.prepare_cached(
                "UPDATE keys SET last_used_at = max(coalesce(last_used_at, 0), ?2) WHERE id = ?1",
            )?;
            for u in usage {
                count.execute(params![u.key_id, u.day, u.requests])?;
                used.execute(params![u.key_id, u.last_used.0])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Requests each key made on `day` so far, as recorded.
    pub fn usage_on(&self, day: i64) -> Result<HashMap<i64, u32>> {
        let conn = self.pool.get()?;
        let mut stmt = conn.prepare("SELECT key_id, requests FROM daily_usage WHERE day = ?1")?;
        let usage = stmt.query_map([day], |row| Ok((row.get(0)?, row.get(1)?)))?.collect::<Result<_, _>>()?;
        Ok(usage)
    }

    /// A connection that tells when another one has committed, to reload snapshots only then.
    pub fn watcher(&self) -> Result<Watcher> {
        let conn = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut watcher = Watcher { conn, seen: None };
        watcher.changed()?;
        Ok(watcher)
    }

    fn find_key(&self, conn: &Connection, selector: &KeySelector) -> Result<i64> {
        let found: Vec<i64> = match selector {
            KeySelector::Id(id) => conn
                .query_row("SELECT id FROM keys WHERE id = ?1", [id], |row| row.get(0))
                .optional()?
                .into_iter()
                .collect(),
            KeySelector::Key(hash) => conn
                .query_row("SELECT id FROM keys WHERE sha256 = ?1", [hash.as_slice()], |row| row.get(0))
                .optional()?
                .into_iter()
                .collect(),
            KeySelector::Prefix(prefix) => {
                let mut stmt = conn.prepare("SELECT id FROM keys WHERE prefix = ?1")?;
                stmt.query_map([prefix], |row| row.get(0))?.collect::<Result<_, _>>()?
            }
        };
        match found.as_slice() {
            [id] => Ok(*id),
            [] => Err(Error::Admin("no such key".into())),
            _ => Err(Error::Admin("several keys share that prefix; name the key by its id".into())),
        }
    }

    fn key(&self, conn: &Connection, id: i64) -> Result<KeyRecord> {
        Ok(conn.query_row(&format!("{KEY_COLUMNS} WHERE k.id = ?1"), [id], key_record)?)
    }
}

/// Requests of one key on one day, to be added to what is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub key_id: i64,
    pub day: i64,
    pub requests: u32,
    pub last_used: Timestamp,
}

/// Notices commits made through other connections (`PRAGMA data_version`).
#[derive(Debug)]
pub struct Watcher {
    conn: Connection,
    seen: Option<i64>,
}

impl Watcher {
    /// Whether another connection committed since the last call (always true on the first).
    pub fn changed(&mut self) -> Result<bool> {
        let version: i64 = self.conn.pragma_query_value(None, "data_version", |row| row.get(0))?;
        Ok(self.seen.replace(version) != Some(version))
    }
}

const KEY_COLUMNS: &str = "SELECT k.id, a.email, k.name, k.prefix, k.per_minute, k.burst, k.per_day,
        k.created_at, k.last_used_at, k.revoked_at, k.suspended
    FROM keys k JOIN accounts a ON a.id = k.account_id";

fn key_record(row: &Row<'_>) -> rusqlite::Result<KeyRecord> {
    let email: String = row.get(1)?;
    Ok(KeyRecord {
        id: row.get(0)?,
        account: Email::parse(&email).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(e))
        })?,
        name: row.get(2)?,
        prefix: row.get(3)?,
        limits: limits(row, 4)?,
        created_at: Timestamp(row.get(7)?),
        last_used_at: row.get::<_, Option<i64>>(8)?.map(Timestamp),
        revoked_at: row.get::<_, Option<i64>>(9)?.map(Timestamp),
        suspended: row.get(10)?,
    })
}

fn limits(row: &Row<'_>, first: usize) -> rusqlite::Result<Limits> {
    Ok(Limits { per_minute: row.get(first)?, burst: row.get(first + 1)?, per_day: row.get(first + 2)? })
}
