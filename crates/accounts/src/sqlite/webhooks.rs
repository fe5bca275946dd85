//! Webhooks: an owner's endpoints, the events announced once, the outbox of messages the delivery
//! worker claims, and the tries it reports. SQLite serves one process, so a claim needs no more
//! than its immediate transaction.

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};
use tapster_domain::{Email, Timestamp};

use super::account::standing;
use crate::error::{Error, Result};
use crate::model::rules::{self, AfterAttempt, FAILING_REASON, OWNER_REASON, TestAsked};
use crate::model::{
    AccountId, AttemptReport, Audience, DisabledWebhook, EventBodies, KeyRecord, NewWebhook, Nonce,
    WEBHOOK_ATTEMPTS_KEPT, WebhookAttempt, WebhookEndpoint, WebhookEvent, WebhookKind, WebhookMessage,
    message_id,
};
use crate::sql::{KEY_COLUMNS, WEBHOOK_COLUMNS, events_column, parse_events};

/// Adds an endpoint when [`rules::webhook_allowance`] allows it, in the same transaction.
pub(crate) fn create_webhook(
    conn: &mut Connection,
    account: AccountId,
    new: &NewWebhook,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    allowance(&tx, account)?;
    tx.execute(
        "INSERT INTO webhook_endpoints (account_id, url, description, kind, events, secret, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            account.0,
            new.url,
            new.description.as_str(),
            new.kind.as_str(),
            events_column(&new.events),
            new.secret,
            now.0
        ],
    )?;
    let endpoint = endpoint_by_id(&tx, tx.last_insert_rowid())?.ok_or(Error::NoSuchWebhook)?;
    tx.commit()?;
    Ok(endpoint)
}

/// Whether `account` may add an endpoint now ([`rules::webhook_allowance`]).
pub(crate) fn may_create_webhook(conn: &mut Connection, account: AccountId) -> Result<()> {
    allowance(conn, account)
}

fn allowance(conn: &Connection, account: AccountId) -> Result<()> {
    let held: i64 =
        conn.query_row("SELECT count(*) FROM webhook_endpoints WHERE account_id = ?1", [account.0], |row| {
            row.get(0)
        })?;
    rules::webhook_allowance(standing(conn, account)?, usize::try_from(held).unwrap_or(usize::MAX))
}

/// An owner's endpoints, newest first.
pub(crate) fn webhooks(conn: &mut Connection, account: AccountId) -> Result<Vec<WebhookEndpoint>> {
    let mut stmt = conn.prepare(&format!("{WEBHOOK_COLUMNS} WHERE w.account_id = ?1 ORDER BY w.id DESC"))?;
    let rows = stmt.query_map([account.0], endpoint)?.collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter().collect()
}

/// One of an owner's endpoints ([`rules::owned_webhook`]).
pub(crate) fn webhook(conn: &mut Connection, account: AccountId, id: i64) -> Result<WebhookEndpoint> {
    rules::owned_webhook(endpoint_by_id(conn, id)?, account)
}

/// Replaces an owner's endpoint's secret; the old one signs beside it for a while
/// ([`rules::rotated_secret_until`]).
pub(crate) fn rotate_webhook_secret(
    conn: &mut Connection,
    account: AccountId,
    id: i64,
    secret: &str,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    rules::owned_webhook(endpoint_by_id(&tx, id)?, account)?;
    tx.execute(
        "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = ?2, secret = ?3 WHERE id = ?1",
        params![id, rules::rotated_secret_until(now), secret],
    )?;
    let endpoint = endpoint_by_id(&tx, id)?.ok_or(Error::NoSuchWebhook)?;
    tx.commit()?;
    Ok(endpoint)
}

/// Disables or enables an owner's endpoint. Enabling forgets its failures: its owner says it is
/// mended.
pub(crate) fn set_webhook_disabled(
    conn: &mut Connection,
    account: AccountId,
    id: i64,
    disabled: bool,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    rules::owned_webhook(endpoint_by_id(&tx, id)?, account)?;
    if disabled {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = coalesce(disabled_at, ?2),
                 disabled_reason = coalesce(disabled_reason, ?3) WHERE id = ?1",
            params![id, now.0, OWNER_REASON],
        )?;
    } else {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
             WHERE id = ?1",
            [id],
        )?;
    }
    let endpoint = endpoint_by_id(&tx, id)?.ok_or(Error::NoSuchWebhook)?;
    tx.commit()?;
    Ok(endpoint)
}

/// Deletes an owner's endpoint with its messages and tries.
pub(crate) fn delete_webhook(conn: &mut Connection, account: AccountId, id: i64) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    rules::owned_webhook(endpoint_by_id(&tx, id)?, account)?;
    delete_endpoints(&tx, "id = ?1", id)?;
    tx.commit()?;
    Ok(())
}

/// Deletes the endpoints `filter` (a condition on `webhook_endpoints` with one parameter) selects,
/// and what hangs on them.
pub(super) fn delete_endpoints(tx: &Transaction<'_>, filter: &str, value: i64) -> Result<()> {
    let endpoints = format!("SELECT id FROM webhook_endpoints WHERE {filter}");
    tx.execute(&format!("DELETE FROM webhook_attempts WHERE endpoint_id IN ({endpoints})"), [value])?;
    tx.execute(&format!("DELETE FROM webhook_messages WHERE endpoint_id IN ({endpoints})"), [value])?;
    tx.execute(&format!("DELETE FROM webhook_endpoints WHERE {filter}"), [value])?;
    Ok(())
}

/// Announces `event` about `subject` once: the first call queues a message for every endpoint of
/// `audience` told of it (the body of its kind, `webhook-id` from `nonce`), every later call finds
/// it announced and queues nothing. Returns how many messages it queued.
pub(crate) fn announce(
    conn: &mut Connection,
    event: WebhookEvent,
    subject: &str,
    bodies: &EventBodies,
    audience: Audience,
    nonce: &Nonce,
    now: Timestamp,
) -> Result<usize> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let new = tx.execute(
        "INSERT INTO webhook_announcements (event, subject, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT DO NOTHING",
        params![event.as_str(), subject, now.0],
    )?;
    if new == 0 {
        return Ok(0);
    }
    let account = match audience {
        Audience::Everyone => None,
        Audience::Account(account) => Some(account.0),
    };
    let endpoints: Vec<WebhookEndpoint> = {
        let mut stmt = tx.prepare(&format!(
            "{WEBHOOK_COLUMNS} JOIN accounts a ON a.id = w.account_id
             WHERE w.disabled_at IS NULL AND a.deleted_at IS NULL AND (?1 IS NULL OR w.account_id = ?1)"
        ))?;
        let rows = stmt.query_map([account], endpoint)?.collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter().collect::<Result<_>>()?
    };
    let mut queued = 0;
    for endpoint in endpoints.iter().filter(|endpoint| endpoint.subscribes(event)) {
        queue(&tx, endpoint, event, bodies, nonce, now)?;
        queued += 1;
    }
    tx.commit()?;
    Ok(queued)
}

/// Queues a test message for an owner's endpoint ([`rules::may_test`]), or makes the one still on
/// its way due now ([`rules::test_asked`]).
pub(crate) fn queue_test(
    conn: &mut Connection,
    account: AccountId,
    id: i64,
    bodies: &EventBodies,
    nonce: &Nonce,
    now: Timestamp,
) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let endpoint = rules::owned_webhook(endpoint_by_id(&tx, id)?, account)?;
    rules::may_test(&endpoint)?;
    let pending: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM webhook_messages WHERE endpoint_id = ?1 AND event = ?2 AND done_at IS NULL)",
        params![id, WebhookEvent::Test.as_str()],
        |row| row.get(0),
    )?;
    match rules::test_asked(pending) {
        TestAsked::Queue => queue(&tx, &endpoint, WebhookEvent::Test, bodies, nonce, now)?,
        TestAsked::TryPendingNow => {
            tx.execute(
                "UPDATE webhook_messages SET next_attempt_at = min(next_attempt_at, ?3)
                 WHERE endpoint_id = ?1 AND event = ?2 AND done_at IS NULL",
                params![id, WebhookEvent::Test.as_str(), now.0],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn queue(
    tx: &Transaction<'_>,
    endpoint: &WebhookEndpoint,
    event: WebhookEvent,
    bodies: &EventBodies,
    nonce: &Nonce,
    now: Timestamp,
) -> Result<()> {
    let body = match endpoint.kind {
        WebhookKind::Standard => &bodies.standard,
        WebhookKind::Discord => &bodies.discord,
    };
    tx.execute(
        "INSERT INTO webhook_messages (endpoint_id, message_id, event, body, created_at, next_attempt_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![endpoint.id, message_id(nonce, endpoint.id), event.as_str(), body, now.0],
    )?;
    Ok(())
}

/// Claims up to `limit` messages due at `now` for `lease` seconds, under `claim`: due, not done,
/// not claimed by a worker whose lease still runs, and for an endpoint that is enabled.
pub(crate) fn claim_webhook_messages(
    conn: &mut Connection,
    now: Timestamp,
    lease: i64,
    limit: usize,
    claim: &str,
) -> Result<Vec<WebhookMessage>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let claimed: Vec<(i64, String, String, String, i64, u32, i64)> = {
        let mut stmt = tx.prepare(
            "SELECT m.id, m.message_id, m.event, m.body, m.created_at, m.attempts, m.endpoint_id
             FROM webhook_messages m JOIN webhook_endpoints w ON w.id = m.endpoint_id
             WHERE m.done_at IS NULL AND m.next_attempt_at <= ?1
               AND (m.claimed_until IS NULL OR m.claimed_until <= ?1) AND w.disabled_at IS NULL
             ORDER BY m.next_attempt_at, m.id LIMIT ?2",
        )?;
        stmt.query_map(params![now.0, i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?, row.get(6)?))
        })?
        .collect::<rusqlite::Result<_>>()?
    };
    let mut messages = Vec::with_capacity(claimed.len());
    for (id, message_id, event, body, created_at, attempts, endpoint_id) in claimed {
        tx.execute(
            "UPDATE webhook_messages SET claimed_until = ?2, claim = ?3 WHERE id = ?1",
            params![id, now.0 + lease, claim],
        )?;
        let endpoint = endpoint_by_id(&tx, endpoint_id)?.ok_or(Error::NoSuchWebhook)?;
        let event = WebhookEvent::parse(&event)
            .ok_or_else(|| Error::Corrupt(format!("a webhook event {event:?}")))?;
        messages.push(WebhookMessage {
            id,
            claim: claim.to_owned(),
            message_id,
            event,
            body,
            created_at: Timestamp(created_at),
            attempts,
            endpoint,
        });
    }
    tx.commit()?;
    Ok(messages)
}

/// Records a try of a message claimed under `claim` and what follows it ([`rules::after_attempt`],
/// spread by `jitter`): done, or due again later; and its endpoint's failures
/// ([`rules::failing_after`]), which may disable it ([`rules::disables`]): then it is returned, with
/// its owner's address to tell. A try whose claim is no longer its message's (the lease ran out and
/// another worker claimed it, or the message is gone with its endpoint) records nothing. Keeps the
/// endpoint's last [`WEBHOOK_ATTEMPTS_KEPT`] tries.
pub(crate) fn record_webhook_attempt(
    conn: &mut Connection,
    message: i64,
    claim: &str,
    report: &AttemptReport,
    jitter: u16,
) -> Result<Option<DisabledWebhook>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let Some((endpoint, created_at, attempts, failing_since, disabled)) = tx
        .query_row(
            "SELECT m.endpoint_id, m.created_at, m.attempts, w.failing_since, w.disabled_at IS NOT NULL
             FROM webhook_messages m JOIN webhook_endpoints w ON w.id = m.endpoint_id
             WHERE m.id = ?1 AND m.claim = ?2 AND m.done_at IS NULL",
            params![message, claim],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get(1)?,
                    row.get::<_, u32>(2)?,
                    row.get(3)?,
                    row.get::<_, bool>(4)?,
                ))
            },
        )
        .optional()?
    else {
        return Ok(None);
    };
    tx.execute(
        "INSERT INTO webhook_attempts (endpoint_id, message_id, attempt, at, status, duration_ms, answer, error,
                                       delivered)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            endpoint,
            message,
            attempts + 1,
            report.at.0,
            report.status,
            report.duration_ms,
            report.answer,
            report.error,
            report.delivered
        ],
    )?;
    let (next, done) =
        match rules::after_attempt(report.delivered, attempts, Timestamp(created_at), report.at, jitter) {
            AfterAttempt::Delivered | AfterAttempt::GiveUp => (None, Some(report.at.0)),
            AfterAttempt::RetryAt(at) => (Some(at), None),
        };
    tx.execute(
        "UPDATE webhook_messages SET attempts = attempts + 1, claimed_until = NULL, claim = NULL,
             next_attempt_at = coalesce(?2, next_attempt_at), done_at = ?3 WHERE id = ?1",
        params![message, next, done],
    )?;
    let failing_since = rules::failing_after(report.delivered, failing_since, report.at);
    tx.execute(
        "UPDATE webhook_endpoints SET failing_since = ?2 WHERE id = ?1",
        params![endpoint, failing_since],
    )?;
    tx.execute(
        "DELETE FROM webhook_attempts WHERE endpoint_id = ?1 AND id NOT IN
             (SELECT id FROM webhook_attempts WHERE endpoint_id = ?1 ORDER BY id DESC LIMIT ?2)",
        params![endpoint, WEBHOOK_ATTEMPTS_KEPT as i64],
    )?;
    let disabled_now = if !disabled && rules::disables(report.delivered, failing_since, report.at) {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = ?2, disabled_reason = ?3 WHERE id = ?1",
            params![endpoint, report.at.0, FAILING_REASON],
        )?;
        let endpoint = endpoint_by_id(&tx, endpoint)?.ok_or(Error::NoSuchWebhook)?;
        let owner: Option<String> = tx
            .query_row(
                "SELECT email FROM accounts WHERE id = ?1 AND deleted_at IS NULL",
                [endpoint.account.0],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        let owner = owner
            .map(|email| Email::parse(&email))
            .transpose()
            .map_err(|_| Error::Corrupt(format!("the address of account {}", endpoint.account.0)))?;
        Some(DisabledWebhook { endpoint, owner })
    } else {
        None
    };
    tx.commit()?;
    Ok(disabled_now)
}

/// The last tries of an owner's endpoint, newest first.
pub(crate) fn webhook_attempts(
    conn: &mut Connection,
    account: AccountId,
    id: i64,
) -> Result<Vec<WebhookAttempt>> {
    rules::owned_webhook(endpoint_by_id(conn, id)?, account)?;
    let mut stmt = conn.prepare(
        "SELECT t.id, m.message_id, m.event, t.attempt, t.at, t.status, t.duration_ms, t.answer, t.error,
                t.delivered
         FROM webhook_attempts t JOIN webhook_messages m ON m.id = t.message_id
         WHERE t.endpoint_id = ?1 ORDER BY t.id DESC LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![id, WEBHOOK_ATTEMPTS_KEPT as i64], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, u32>(3)?,
                AttemptReport {
                    at: Timestamp(row.get(4)?),
                    status: row.get(5)?,
                    duration_ms: row.get(6)?,
                    answer: row.get(7)?,
                    error: row.get(8)?,
                    delivered: row.get(9)?,
                },
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(id, message_id, event, attempt, report)| {
            let event = WebhookEvent::parse(&event)
                .ok_or_else(|| Error::Corrupt(format!("a webhook event {event:?}")))?;
            Ok(WebhookAttempt { id, message_id, event, attempt, report })
        })
        .collect()
}

/// Keys that expire after `after` and at or before `until`, of live accounts, not revoked.
pub(crate) fn keys_expiring(
    conn: &mut Connection,
    after: Timestamp,
    until: Timestamp,
) -> Result<Vec<KeyRecord>> {
    let mut stmt = conn.prepare(&format!(
        "{KEY_COLUMNS} WHERE k.expires_at > ?1 AND k.expires_at <= ?2 AND k.revoked_at IS NULL
             AND a.deleted_at IS NULL ORDER BY k.expires_at, k.id"
    ))?;
    let keys =
        stmt.query_map([after.0, until.0], super::keys::key_record)?.collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

fn endpoint_by_id(conn: &Connection, id: i64) -> Result<Option<WebhookEndpoint>> {
    conn.query_row(&format!("{WEBHOOK_COLUMNS} WHERE w.id = ?1"), [id], endpoint).optional()?.transpose()
}

/// An endpoint of a [`WEBHOOK_COLUMNS`] row; a stored value this build cannot read is
/// [`Error::Corrupt`].
fn endpoint(row: &Row<'_>) -> rusqlite::Result<Result<WebhookEndpoint>> {
    let kind: String = row.get(4)?;
    let events: String = row.get(5)?;
    let previous_secret: Option<String> = row.get(7)?;
    let previous_until: Option<i64> = row.get(8)?;
    let disabled_at: Option<i64> = row.get(10)?;
    let disabled_reason: Option<String> = row.get(11)?;
    let (Some(kind), Some(events)) = (WebhookKind::parse(&kind), parse_events(&events)) else {
        return Ok(Err(Error::Corrupt(format!("webhook endpoint {}", row.get::<_, i64>(0)?))));
    };
    Ok(Ok(WebhookEndpoint {
        id: row.get(0)?,
        account: AccountId(row.get(1)?),
        url: row.get(2)?,
        description: row.get(3)?,
        kind,
        events,
        secret: row.get(6)?,
        previous_secret: previous_secret.zip(previous_until.map(Timestamp)),
        created_at: Timestamp(row.get(9)?),
        disabled: disabled_at.map(|at| (Timestamp(at), disabled_reason.unwrap_or_default())),
        failing_since: row.get::<_, Option<i64>>(12)?.map(Timestamp),
    }))
}
