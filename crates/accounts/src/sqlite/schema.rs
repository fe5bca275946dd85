//! The accounts database's schema and the steps from each generation to the next. `PRAGMA
//! user_version` says which generation a file is; a file is brought up to date when it is opened,
//! in one transaction, so a process that opens it meanwhile sees it whole before or whole after.

use rusqlite::Connection;

use crate::error::{Error, Result};

/// Each step takes the database from generation `n` to `n + 1` (the first from an empty file).
const STEPS: &[&str] = &[V1, V2, V3, V4];

/// The generation this build writes.
pub(crate) const VERSION: i64 = STEPS.len() as i64;

/// Accounts, keys, blocks and daily usage, as the first server kept them.
const V1: &str = include_str!("migrations/1.sql");

/// The dashboard: an account's address may be unconfirmed (kept apart, so that nobody can claim an
/// address by naming it) or gone (a deleted account); sign-ins through providers, one-time links,
/// browser sessions, and keys that expire.
const V2: &str = include_str!("migrations/2.sql");

/// Browser keys: the origins a key answers.
const V3: &str = include_str!("migrations/3.sql");

/// Webhooks: endpoints, the events announced, the outbox and the tries at delivering it.
const V4: &str = include_str!("migrations/4.sql");

/// Brings the database on `conn` to [`VERSION`]; refuses a file of a later generation.
pub(crate) fn migrate(conn: &mut Connection, path: &std::path::Path) -> Result<()> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if found == VERSION {
        return Ok(());
    }
    if found > VERSION {
        return Err(Error::Schema { store: path.display().to_string(), found, expected: VERSION });
    }
    // Rebuilding a table that others refer to needs the foreign-key checks off, and SQLite only
    // switches them outside a transaction; the references are checked whole before committing.
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let migrated = (|| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have migrated between our first look and our lock.
        let now: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if now > VERSION {
            return Err(Error::Schema { store: path.display().to_string(), found: now, expected: VERSION });
        }
        for step in &STEPS[usize::try_from(now).unwrap_or(0)..] {
            tx.execute_batch(step)?;
        }
        let broken: i64 =
            tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0))?;
        if broken > 0 {
            return Err(Error::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
                Some(format!("{broken} references would break in the schema migration")),
            )));
        }
        tx.pragma_update(None, "user_version", VERSION)?;
        tx.commit()?;
        Ok(())
    })();
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrated
}
