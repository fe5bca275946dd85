//! Keys: made by an administrator or by their owner, listed, revoked and suspended; the snapshot
//! the servers decide on; and the requests each key made each day.

use std::collections::HashMap;

use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Origins, Timestamp};
use tokio_postgres::{Client, GenericClient, Row};

use super::account::standing;
use super::{count, email_column, write_transaction};
use crate::error::{Error, Result};
use crate::model::rules::{self, KeyWrite};
use crate::model::{
    AccessSnapshot, AccountId, DailyUsage, KeyAccess, KeyAction, KeyName, KeyRecord, KeySelector, KeyTerms,
    Usage,
};
use crate::sql::{KEY_COLUMNS, SNAPSHOT_KEYS};
use crate::token::{KeyHash, hash_key};

/// A key made by an administrator for the account of `email`, which is created (confirmed: the
/// administrator vouches for the address) when there is none. No cap on the number of keys.
pub(crate) async fn admin_create_key(
    client: &mut Client,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = write_transaction(client).await?;
    let record = insert_admin_key(&tx, email, name, limits, key, now).await?;
    tx.commit().await?;
    Ok(record)
}

/// [`admin_create_key`] when [`rules::first_key_due`] says so, checked under the write lock.
pub(crate) async fn admin_create_first_key(
    client: &mut Client,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<Option<KeyRecord>> {
    let tx = write_transaction(client).await?;
    if !rules::first_key_due(tx.query_one("SELECT EXISTS (SELECT 1 FROM keys)", &[]).await?.get(0)) {
        return Ok(None);
    }
    let record = insert_admin_key(&tx, email, name, limits, key, now).await?;
    tx.commit().await?;
    Ok(Some(record))
}

async fn insert_admin_key(
    client: &impl GenericClient,
    email: &Email,
    name: &KeyName,
    limits: Limits,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    client
        .execute(
            "INSERT INTO accounts (email, created_at) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING",
            &[&email.as_str(), &now.0],
        )
        .await?;
    let account: i64 =
        client.query_one("SELECT id FROM accounts WHERE email = $1", &[&email.as_str()]).await?.get(0);
    let id = insert_key(
        client,
        AccountId(account),
        KeyTerms { name, limits, expires_at: None, origins: None },
        key,
        now,
    )
    .await?;
    key_by_id(client, id).await
}

/// A key made by its owner, when [`rules::key_allowance`] allows it under the write lock.
pub(crate) async fn owner_create_key(
    client: &mut Client,
    account: AccountId,
    name: &KeyName,
    expires_at: Option<Timestamp>,
    origins: Option<&Origins>,
    key: &ApiKey,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = write_transaction(client).await?;
    allowance(&tx, account, now).await?;
    let id =
        insert_key(&tx, account, KeyTerms { name, limits: Limits::DEFAULT, expires_at, origins }, key, now)
            .await?;
    let record = key_by_id(&tx, id).await?;
    tx.commit().await?;
    Ok(record)
}

/// Whether `account` may make a key now, by [`rules::key_allowance`].
pub(crate) async fn may_create_key(client: &mut Client, account: AccountId, now: Timestamp) -> Result<()> {
    allowance(&*client, account, now).await
}

async fn allowance(client: &impl GenericClient, account: AccountId, now: Timestamp) -> Result<()> {
    rules::key_allowance(standing(client, account).await?, &account_keys(client, account, now).await?, now)
}

async fn insert_key(
    client: &impl GenericClient,
    account: AccountId,
    terms: KeyTerms<'_>,
    key: &ApiKey,
    now: Timestamp,
) -> Result<i64> {
    let row = client
        .query_one(
            "INSERT INTO keys (account_id, name, prefix, sha256, per_minute, burst, per_day, created_at, expires_at,
                               origins)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
            &[
                &account.0,
                &terms.name.as_str(),
                &key.display_prefix(),
                &hash_key(key).as_slice(),
                &i64::from(terms.limits.per_minute),
                &i64::from(terms.limits.burst),
                &i64::from(terms.limits.per_day),
                &now.0,
                &terms.expires_at.map(|at| at.0),
                &terms.origins.map(Origins::to_lines),
            ],
        )
        .await?;
    Ok(row.get(0))
}

/// Every key, or those of the account of one address, oldest first.
pub(crate) async fn list_keys(client: &mut Client, account: Option<&Email>) -> Result<Vec<KeyRecord>> {
    let rows = client
        .query(
            &format!("{KEY_COLUMNS} WHERE $1::text IS NULL OR a.email = $1 ORDER BY k.id"),
            &[&account.map(Email::as_str)],
        )
        .await?;
    rows.iter().map(key_record).collect()
}

/// The keys an owner sees ([`rules::shown_to_owner`]), newest first.
pub(crate) async fn owner_keys(
    client: &mut Client,
    account: AccountId,
    now: Timestamp,
) -> Result<Vec<KeyRecord>> {
    let mut keys = account_keys(&*client, account, now).await?;
    keys.retain(|key| rules::shown_to_owner(key, now));
    Ok(keys)
}

/// The keys of `account` that the rules look at ([`rules::keys_revoked_after`]), newest first.
async fn account_keys(
    client: &impl GenericClient,
    account: AccountId,
    now: Timestamp,
) -> Result<Vec<KeyRecord>> {
    let rows = client
        .query(
            &format!(
                "{KEY_COLUMNS} WHERE k.account_id = $1 AND (k.revoked_at IS NULL OR k.revoked_at > $2)
                 ORDER BY k.id DESC"
            ),
            &[&account.0, &rules::keys_revoked_after(now)],
        )
        .await?;
    rows.iter().map(key_record).collect()
}

/// One of an owner's keys ([`rules::owned_key`]).
pub(crate) async fn owner_key(client: &mut Client, account: AccountId, id: i64) -> Result<KeyRecord> {
    rules::owned_key(key_with_id(&*client, id).await?, account)
}

/// Revokes one of an owner's keys ([`rules::owned_key`], then [`rules::key_change`]: again,
/// harmlessly, when it already is).
pub(crate) async fn owner_revoke_key(
    client: &mut Client,
    account: AccountId,
    id: i64,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = write_transaction(client).await?;
    let key = rules::owned_key(key_with_id(&tx, id).await?, account)?;
    write_key(&tx, id, rules::key_change(&key, KeyAction::Revoke)?, now).await?;
    let record = key_by_id(&tx, id).await?;
    tx.commit().await?;
    Ok(record)
}

/// Revokes, suspends or unsuspends one key ([`rules::key_change`]), and returns it as it now is.
pub(crate) async fn change_key(
    client: &mut Client,
    selector: &KeySelector,
    action: KeyAction,
    now: Timestamp,
) -> Result<KeyRecord> {
    let tx = write_transaction(client).await?;
    let id = find_key(&tx, selector).await?;
    write_key(&tx, id, rules::key_change(&key_by_id(&tx, id).await?, action)?, now).await?;
    let record = key_by_id(&tx, id).await?;
    tx.commit().await?;
    Ok(record)
}

/// Writes what [`rules::key_change`] answered to the key `id`.
async fn write_key(client: &impl GenericClient, id: i64, write: KeyWrite, now: Timestamp) -> Result<()> {
    match write {
        KeyWrite::Revoke => {
            client
                .execute(
                    "UPDATE keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1",
                    &[&id, &now.0],
                )
                .await?
        }
        KeyWrite::Suspended(suspended) => {
            client.execute("UPDATE keys SET suspended = $2 WHERE id = $1", &[&id, &suspended]).await?
        }
    };
    Ok(())
}

/// The key an administrator's selector names ([`rules::selected_key`]).
async fn find_key(client: &impl GenericClient, selector: &KeySelector) -> Result<i64> {
    let rows = match selector {
        KeySelector::Id(id) => client.query("SELECT id FROM keys WHERE id = $1", &[id]).await?,
        KeySelector::Key(hash) => {
            client.query("SELECT id FROM keys WHERE sha256 = $1", &[&hash.as_slice()]).await?
        }
        KeySelector::Prefix(prefix) => {
            client.query("SELECT id FROM keys WHERE prefix = $1", &[prefix]).await?
        }
    };
    rules::selected_key(&rows.iter().map(|row| row.get(0)).collect::<Vec<i64>>())
}

async fn key_by_id(client: &impl GenericClient, id: i64) -> Result<KeyRecord> {
    key_record(&client.query_one(&format!("{KEY_COLUMNS} WHERE k.id = $1"), &[&id]).await?)
}

/// The key numbered `id`, whoever owns it, if there is one.
async fn key_with_id(client: &impl GenericClient, id: i64) -> Result<Option<KeyRecord>> {
    client
        .query_opt(&format!("{KEY_COLUMNS} WHERE k.id = $1"), &[&id])
        .await?
        .as_ref()
        .map(key_record)
        .transpose()
}

/// Every key and block as they are now, read in one snapshot of the database.
pub(crate) async fn snapshot(client: &mut Client) -> Result<AccessSnapshot> {
    let tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead);
    let tx = tx.start().await?;
    let rows = tx.query(SNAPSHOT_KEYS, &[]).await?;
    let mut keys = HashMap::with_capacity(rows.len());
    for row in &rows {
        let hash: &[u8] = row.get(2);
        let Ok(hash) = KeyHash::try_from(hash) else { continue };
        keys.insert(
            hash,
            KeyAccess {
                id: row.get(0),
                prefix: row.get(1),
                limits: limits(row, 3),
                expires_at: row.get::<_, Option<i64>>(6).map(Timestamp),
                revoked: row.get(7),
                suspended: row.get(8),
                account_suspended: row.get(9),
                account_confirmed: row.get(10),
                name: row.get(11),
                origins: origins_column(row, 12)?,
            },
        );
    }
    let blocked = tx
        .query("SELECT block FROM blocked_addresses", &[])
        .await?
        .iter()
        .filter_map(|row| AddressBlock::parse(row.get(0)).ok())
        .collect();
    tx.commit().await?;
    Ok(AccessSnapshot { keys, blocked })
}

/// Adds requests to the daily counts and records when each key was last used: two statements for
/// the whole batch, without the write lock (an upsert decides nothing), its rows in key order so
/// that replicas writing at once lock them in the same order.
pub(crate) async fn record_usage(client: &mut Client, usage: &[Usage]) -> Result<()> {
    if usage.is_empty() {
        return Ok(());
    }
    let mut usage = usage.to_vec();
    usage.sort_by_key(|u| (u.key_id, u.day));
    let keys: Vec<i64> = usage.iter().map(|u| u.key_id).collect();
    let days: Vec<i64> = usage.iter().map(|u| u.day).collect();
    let requests: Vec<i64> = usage.iter().map(|u| i64::from(u.requests)).collect();
    let used: Vec<i64> = usage.iter().map(|u| u.last_used.0).collect();
    let tx = client.transaction().await?;
    tx.execute(
        "INSERT INTO daily_usage (key_id, day, requests)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
         ON CONFLICT (key_id, day) DO UPDATE SET requests = daily_usage.requests + excluded.requests",
        &[&keys, &days, &requests],
    )
    .await?;
    tx.execute(
        "UPDATE keys SET last_used_at = greatest(coalesce(keys.last_used_at, 0), used.at)
         FROM (SELECT id, max(at) AS at FROM unnest($1::bigint[], $2::bigint[]) AS u (id, at) GROUP BY id) used
         WHERE keys.id = used.id",
        &[&keys, &used],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Requests each key made on `day` so far, as recorded.
pub(crate) async fn usage_on(client: &mut Client, day: i64) -> Result<HashMap<i64, u32>> {
    let rows = client.query("SELECT key_id, requests FROM daily_usage WHERE day = $1", &[&day]).await?;
    Ok(rows.iter().map(|row| (row.get(0), count(row.get(1)))).collect())
}

/// Requests each of an account's keys made on each day from `first` to `last`, as recorded.
pub(crate) async fn account_usage(
    client: &mut Client,
    account: AccountId,
    first: i64,
    last: i64,
) -> Result<Vec<DailyUsage>> {
    let rows = client
        .query(
            "SELECT u.key_id, u.day, u.requests FROM daily_usage u JOIN keys k ON k.id = u.key_id
             WHERE k.account_id = $1 AND u.day BETWEEN $2 AND $3 ORDER BY u.key_id, u.day",
            &[&account.0, &first, &last],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| DailyUsage { key_id: row.get(0), day: row.get(1), requests: count(row.get(2)) })
        .collect())
}

pub(super) fn key_record(row: &Row) -> Result<KeyRecord> {
    Ok(KeyRecord {
        id: row.get(0),
        account: AccountId(row.get(1)),
        account_email: email_column(row, 2)?,
        name: row.get(3),
        prefix: row.get(4),
        limits: limits(row, 5),
        created_at: Timestamp(row.get(8)),
        last_used_at: row.get::<_, Option<i64>>(9).map(Timestamp),
        expires_at: row.get::<_, Option<i64>>(10).map(Timestamp),
        revoked_at: row.get::<_, Option<i64>>(11).map(Timestamp),
        suspended: row.get(12),
        origins: origins_column(row, 13)?,
    })
}

/// A browser key's origins, as [`Origins::to_lines`] stored them.
fn origins_column(row: &Row, index: usize) -> Result<Option<Origins>> {
    row.get::<_, Option<String>>(index)
        .map(|lines| {
            Origins::from_stored(&lines)
                .map_err(|_| Error::Corrupt(format!("a key's stored origins {lines:?}")))
        })
        .transpose()
}

fn limits(row: &Row, first: usize) -> Limits {
    Limits {
        per_minute: count(row.get(first)),
        burst: count(row.get(first + 1)),
        per_day: count(row.get(first + 2)),
    }
}
