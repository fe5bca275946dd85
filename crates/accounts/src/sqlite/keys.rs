//! Keys: made by an administrator or by their owner, listed, revoked and suspended; the snapshot
//! the server decides on; and the requests each key made each day.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};
use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Origins, Timestamp};

use super::account::standing;
use super::email_column;
use crate::error::Result;
use crate::model::rules::{self, KeyWrite};
use crate::model::{
    AccessSnapshot, AccountId, DailyUsage, KeyAccess, KeyAction, KeyName, KeyRecord, KeySelector, KeyTerms,
    Usage,
};
use crate::sql::{KEY_COLUMNS, SNAPSHOT_KEYS};
use crate::token::{KeyHash, hash_key};

/// A key made by an administrator for the account of `email`, which is created (confirmed: the
/// administrator vouches for the address) when there is none. No cap on the number of keys.
pub(crate) fn admin_create_key(
    conn: &mut Connection,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let record = insert_admin_key(&tx, email, name, limits, key, now)?;
    tx.commit()?;
    Ok(record)
}

/// [`admin_create_key`] when [`rules::first_key_due`] says so, checked in the same transaction.
pub(crate) fn admin_create_first_key(
    conn: &mut Connection,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<Option<KeyRecord>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !rules::first_key_due(tx.query_row("SELECT EXISTS (SELECT 1 FROM keys)", [], |row| row.get(0))?) {
        return Ok(None);
    }
    let record = insert_admin_key(&tx, email, name, limits, key, now)?;
    tx.commit()?;
    Ok(Some(record))
}

fn insert_admin_key(
    tx: &Transaction<'_>,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    tx.execute(
        "INSERT INTO accounts (email, created_at) VALUES (?1, ?2) ON CONFLICT (email) DO NOTHING",
        params![email.as_str(), now.0],
    )?;
    let account =
        tx.query_row("SELECT id FROM accounts WHERE email = ?1", [email.as_str()], |row| row.get(0))?;
    let id = insert_key(
        tx,
        AccountId(account),
        KeyTerms { name, limits, expires_at: None, origins: None },
        key,
        now,
    )?;
    key_by_id(tx, id)
}

/// A key made by its owner, when [`may_create_key`] allows it in the same transaction.
pub(crate) fn owner_create_key(
    conn: &mut Connection,
    account: AccountId,
    name: &KeyName,
    expires_at: Option<Timestamp>,
    origins: Option<&Origins>,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    may_create_key(&tx, account, now)?;
    let id =
        insert_key(&tx, account, KeyTerms { name, limits: Limits::DEFAULT, expires_at, origins }, key, now)?;
    let record = key_by_id(&tx, id)?;
    tx.commit()?;
    Ok(record)
}

/// Whether `account` may make a key now, by [`rules::key_allowance`].
pub(crate) fn may_create_key(conn: &Connection, account: AccountId, now: Timestamp) -> Result<()> {
    rules::key_allowance(standing(conn, account)?, &account_keys(conn, account, now)?, now)
}

fn insert_key(
    tx: &Transaction<'_>,
    account: AccountId,
    terms: KeyTerms<'_>,
    key: &ApiKey,
    now: Timestamp,
) -> Result<i64> {
    tx.execute(
        "INSERT INTO keys (account_id, name, prefix, sha256, per_minute, burst, per_day, created_at, expires_at,
                           origins)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            account.0,
            terms.name.as_str(),
            key.display_prefix(),
            hash_key(key).as_slice(),
            terms.limits.per_minute,
            terms.limits.burst,
            terms.limits.per_day,
            now.0,
            terms.expires_at.map(|at| at.0),
            terms.origins.map(Origins::to_lines)
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// Every key, or those of the account of one address, oldest first.
pub(crate) fn list_keys(conn: &mut Connection, account: Option<&Email>) -> Result<Vec<KeyRecord>> {
    let mut stmt = conn.prepare(&format!("{KEY_COLUMNS} WHERE ?1 IS NULL OR a.email = ?1 ORDER BY k.id"))?;
    let keys = stmt.query_map([account.map(Email::as_str)], key_record)?.collect::<Result<_, _>>()?;
    Ok(keys)
}

/// The keys an owner sees ([`rules::shown_to_owner`]), newest first.
pub(crate) fn owner_keys(
    conn: &mut Connection,
    account: AccountId,
    now: Timestamp,
) -> Result<Vec<KeyRecord>> {
    let mut keys = account_keys(conn, account, now)?;
    keys.retain(|key| rules::shown_to_owner(key, now));
    Ok(keys)
}

/// The keys of `account` that the rules look at ([`rules::keys_revoked_after`]), newest first.
fn account_keys(conn: &Connection, account: AccountId, now: Timestamp) -> Result<Vec<KeyRecord>> {
    let mut stmt = conn.prepare(&format!(
        "{KEY_COLUMNS} WHERE k.account_id = ?1 AND (k.revoked_at IS NULL OR k.revoked_at > ?2)
         ORDER BY k.id DESC"
    ))?;
    let keys =
        stmt.query_map([account.0, rules::keys_revoked_after(now)], key_record)?.collect::<Result<_, _>>()?;
    Ok(keys)
}

/// One of an owner's keys ([`rules::owned_key`]).
pub(crate) fn owner_key(conn: &mut Connection, account: AccountId, id: i64) -> Result<KeyRecord> {
    rules::owned_key(key_with_id(conn, id)?, account)
}

/// Revokes one of an owner's keys ([`rules::owned_key`], then [`rules::key_change`]: again,
/// harmlessly, when it already is).
pub(crate) fn owner_revoke_key(
    conn: &mut Connection,
    account: AccountId,
    id: i64,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let key = rules::owned_key(key_with_id(&tx, id)?, account)?;
    write_key(&tx, id, rules::key_change(&key, KeyAction::Revoke)?, now)?;
    let record = key_by_id(&tx, id)?;
    tx.commit()?;
    Ok(record)
}

/// Revokes, suspends or unsuspends one key ([`rules::key_change`]), and returns it as it now is.
pub(crate) fn change_key(
    conn: &mut Connection,
    selector: &KeySelector,
    action: KeyAction,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let id = find_key(&tx, selector)?;
    write_key(&tx, id, rules::key_change(&key_by_id(&tx, id)?, action)?, now)?;
    let record = key_by_id(&tx, id)?;
    tx.commit()?;
    Ok(record)
}

/// Writes what [`rules::key_change`] answered to the key `id`.
fn write_key(tx: &Transaction<'_>, id: i64, write: KeyWrite, now: Timestamp) -> Result<()> {
    match write {
        KeyWrite::Revoke => tx.execute(
            "UPDATE keys SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1",
            params![id, now.0],
        )?,
        KeyWrite::Suspended(suspended) => {
            tx.execute("UPDATE keys SET suspended = ?2 WHERE id = ?1", params![id, suspended])?
        }
    };
    Ok(())
}

/// The key an administrator's selector names ([`rules::selected_key`]).
fn find_key(conn: &Connection, selector: &KeySelector) -> Result<i64> {
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
    rules::selected_key(&found)
}

fn key_by_id(conn: &Connection, id: i64) -> Result<KeyRecord> {
    Ok(conn.query_row(&format!("{KEY_COLUMNS} WHERE k.id = ?1"), [id], key_record)?)
}

/// The key numbered `id`, whoever owns it, if there is one.
fn key_with_id(conn: &Connection, id: i64) -> Result<Option<KeyRecord>> {
    Ok(conn.query_row(&format!("{KEY_COLUMNS} WHERE k.id = ?1"), [id], key_record).optional()?)
}

/// Every key and block as they are now.
pub(crate) fn snapshot(conn: &mut Connection) -> Result<AccessSnapshot> {
    let tx = conn.transaction()?;
    let mut keys = HashMap::new();
    {
        let mut stmt = tx.prepare(SNAPSHOT_KEYS)?;
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
                    expires_at: row.get::<_, Option<i64>>(6)?.map(Timestamp),
                    revoked: row.get(7)?,
                    suspended: row.get(8)?,
                    account_suspended: row.get(9)?,
                    account_confirmed: row.get(10)?,
                    name: row.get(11)?,
                    origins: origins_column(row, 12)?,
                },
            );
        }
    }
    let blocked = {
        let mut stmt = tx.prepare("SELECT block FROM blocked_addresses")?;
        stmt.query_map([], |row| row.get::<_, String>(0))?
            .filter_map(|block| block.map(|b| AddressBlock::parse(&b).ok()).transpose())
            .collect::<Result<_, _>>()?
    };
    Ok(AccessSnapshot { keys, blocked })
}

/// Adds requests to the daily counts and records when each key was last used.
pub(crate) fn record_usage(conn: &mut Connection, usage: &[Usage]) -> Result<()> {
    if usage.is_empty() {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
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
pub(crate) fn usage_on(conn: &mut Connection, day: i64) -> Result<HashMap<i64, u32>> {
    let mut stmt = conn.prepare("SELECT key_id, requests FROM daily_usage WHERE day = ?1")?;
    let usage = stmt.query_map([day], |row| Ok((row.get(0)?, row.get(1)?)))?.collect::<Result<_, _>>()?;
    Ok(usage)
}

/// Requests each of an account's keys made on each day from `first` to `last`, as recorded.
pub(crate) fn account_usage(
    conn: &mut Connection,
    account: AccountId,
    first: i64,
    last: i64,
) -> Result<Vec<DailyUsage>> {
    let mut stmt = conn.prepare(
        "SELECT u.key_id, u.day, u.requests FROM daily_usage u JOIN keys k ON k.id = u.key_id
         WHERE k.account_id = ?1 AND u.day BETWEEN ?2 AND ?3 ORDER BY u.key_id, u.day",
    )?;
    let usage = stmt
        .query_map(params![account.0, first, last], |row| {
            Ok(DailyUsage { key_id: row.get(0)?, day: row.get(1)?, requests: row.get(2)? })
        })?
        .collect::<Result<_, _>>()?;
    Ok(usage)
}

pub(super) fn key_record(row: &Row<'_>) -> rusqlite::Result<KeyRecord> {
    Ok(KeyRecord {
        id: row.get(0)?,
        account: AccountId(row.get(1)?),
        account_email: email_column(row, 2)?,
        name: row.get(3)?,
        prefix: row.get(4)?,
        limits: limits(row, 5)?,
        created_at: Timestamp(row.get(8)?),
        last_used_at: row.get::<_, Option<i64>>(9)?.map(Timestamp),
        expires_at: row.get::<_, Option<i64>>(10)?.map(Timestamp),
        revoked_at: row.get::<_, Option<i64>>(11)?.map(Timestamp),
        suspended: row.get(12)?,
        origins: origins_column(row, 13)?,
    })
}

/// A browser key's origins, as [`Origins::to_lines`] stored them.
fn origins_column(row: &Row<'_>, index: usize) -> rusqlite::Result<Option<Origins>> {
    row.get::<_, Option<String>>(index)?
        .map(|lines| {
            Origins::from_stored(&lines).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
            })
        })
        .transpose()
}

fn limits(row: &Row<'_>, first: usize) -> rusqlite::Result<Limits> {
    Ok(Limits { per_minute: row.get(first)?, burst: row.get(first + 1)?, per_day: row.get(first + 2)? })
}
