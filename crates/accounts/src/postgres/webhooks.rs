//! Webhooks, as the SQLite backend keeps them, for several replicas: an owner's writes under the
//! write lock; an event announced once by its row's primary key, whichever replica comes first;
//! messages claimed with `FOR UPDATE SKIP LOCKED`, so that of replicas claiming at once each takes
//! other rows and every message is delivered by one of them; a try recorded under the claim it was
//! made with, which also decides, for one replica, whether its endpoint is now disabled.

use tapster_domain::{Email, Timestamp};
use tokio_postgres::{Client, GenericClient, Row};

use super::account::standing;
use super::write_transaction;
use crate::error::{Error, Result};
use crate::model::rules::{self, AfterAttempt, FAILING_REASON, OWNER_REASON, TestAsked};
use crate::model::{
    AccountId, AttemptReport, Audience, DisabledWebhook, EventBodies, KeyRecord, NewWebhook, Nonce,
    WEBHOOK_ATTEMPTS_KEPT, WebhookAttempt, WebhookEndpoint, WebhookEvent, WebhookKind, WebhookMessage,
    message_id,
};
use crate::sql::{KEY_COLUMNS, WEBHOOK_COLUMNS, events_column, parse_events};

/// Adds an endpoint when [`rules::webhook_allowance`] allows it, under the write lock.
pub(crate) async fn create_webhook(
    client: &mut Client,
    account: AccountId,
    new: &NewWebhook,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = write_transaction(client).await?;
    let held: i64 = tx
        .query_one("SELECT count(*) FROM webhook_endpoints WHERE account_id = $1", &[&account.0])
        .await?
        .get(0);
    rules::webhook_allowance(standing(&tx, account).await?, usize::try_from(held).unwrap_or(usize::MAX))?;
    let id: i64 = tx
        .query_one(
            "INSERT INTO webhook_endpoints (account_id, url, description, kind, events, secret, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            &[
                &account.0,
                &new.url,
                &new.description.as_str(),
                &new.kind.as_str(),
                &events_column(&new.events),
                &new.secret,
                &now.0,
            ],
        )
        .await?
        .get(0);
    let endpoint = endpoint_by_id(&tx, id).await?.ok_or(Error::NoSuchWebhook)?;
    tx.commit().await?;
    Ok(endpoint)
}

/// Whether `account` may add an endpoint now ([`rules::webhook_allowance`]).
pub(crate) async fn may_create_webhook(client: &mut Client, account: AccountId) -> Result<()> {
    allowance(&*client, account).await
}

async fn allowance(client: &impl GenericClient, account: AccountId) -> Result<()> {
    let held: i64 = client
        .query_one("SELECT count(*) FROM webhook_endpoints WHERE account_id = $1", &[&account.0])
        .await?
        .get(0);
    rules::webhook_allowance(standing(client, account).await?, usize::try_from(held).unwrap_or(usize::MAX))
}

/// An owner's endpoints, newest first.
pub(crate) async fn webhooks(client: &mut Client, account: AccountId) -> Result<Vec<WebhookEndpoint>> {
    let rows = client
        .query(&format!("{WEBHOOK_COLUMNS} WHERE w.account_id = $1 ORDER BY w.id DESC"), &[&account.0])
        .await?;
    rows.iter().map(endpoint).collect()
}

/// One of an owner's endpoints ([`rules::owned_webhook`]).
pub(crate) async fn webhook(client: &mut Client, account: AccountId, id: i64) -> Result<WebhookEndpoint> {
    rules::owned_webhook(endpoint_by_id(&*client, id).await?, account)
}

/// Replaces an owner's endpoint's secret; the old one signs beside it for a while
/// ([`rules::rotated_secret_until`]).
pub(crate) async fn rotate_webhook_secret(
    client: &mut Client,
    account: AccountId,
    id: i64,
    secret: &str,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = write_transaction(client).await?;
    rules::owned_webhook(endpoint_by_id(&tx, id).await?, account)?;
    tx.execute(
        "UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $2, secret = $3 WHERE id = $1",
        &[&id, &rules::rotated_secret_until(now), &secret],
    )
    .await?;
    let endpoint = endpoint_by_id(&tx, id).await?.ok_or(Error::NoSuchWebhook)?;
    tx.commit().await?;
    Ok(endpoint)
}

/// Disables or enables an owner's endpoint. Enabling forgets its failures: its owner says it is
/// mended.
pub(crate) async fn set_webhook_disabled(
    client: &mut Client,
    account: AccountId,
    id: i64,
    disabled: bool,
    now: Timestamp,
) -> Result<WebhookEndpoint> {
    let tx = write_transaction(client).await?;
    rules::owned_webhook(endpoint_by_id(&tx, id).await?, account)?;
    if disabled {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = coalesce(disabled_at, $2),
                 disabled_reason = coalesce(disabled_reason, $3) WHERE id = $1",
            &[&id, &now.0, &OWNER_REASON],
        )
        .await?;
    } else {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
             WHERE id = $1",
            &[&id],
        )
        .await?;
    }
    let endpoint = endpoint_by_id(&tx, id).await?.ok_or(Error::NoSuchWebhook)?;
    tx.commit().await?;
    Ok(endpoint)
}

/// Deletes an owner's endpoint with its messages and tries.
pub(crate) async fn delete_webhook(client: &mut Client, account: AccountId, id: i64) -> Result<()> {
    let tx = write_transaction(client).await?;
    rules::owned_webhook(endpoint_by_id(&tx, id).await?, account)?;
    delete_endpoints(&tx, "id = $1", id).await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes the endpoints `filter` (a condition on `webhook_endpoints` with one parameter) selects,
/// and what hangs on them.
pub(super) async fn delete_endpoints(client: &impl GenericClient, filter: &str, value: i64) -> Result<()> {
    let endpoints = format!("SELECT id FROM webhook_endpoints WHERE {filter}");
    client
        .execute(&format!("DELETE FROM webhook_attempts WHERE endpoint_id IN ({endpoints})"), &[&value])
        .await?;
    client
        .execute(&format!("DELETE FROM webhook_messages WHERE endpoint_id IN ({endpoints})"), &[&value])
        .await?;
    client.execute(&format!("DELETE FROM webhook_endpoints WHERE {filter}"), &[&value]).await?;
    Ok(())
}

/// Announces `event` about `subject` once (see the SQLite backend's `announce`). Replicas that
/// announce at once meet at the announcement's primary key: one inserts it, the others wait for its
/// commit, find it and queue nothing.
pub(crate) async fn announce(
    client: &mut Client,
    event: WebhookEvent,
    subject: &str,
    bodies: &EventBodies,
    audience: Audience,
    nonce: &Nonce,
    now: Timestamp,
) -> Result<usize> {
    let tx = client.transaction().await?;
    let new = tx
        .execute(
            "INSERT INTO webhook_announcements (event, subject, created_at) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&event.as_str(), &subject, &now.0],
        )
        .await?;
    if new == 0 {
        return Ok(0);
    }
    let account = match audience {
        Audience::Everyone => None,
        Audience::Account(account) => Some(account.0),
    };
    let rows = tx
        .query(
            &format!(
                "{WEBHOOK_COLUMNS} JOIN accounts a ON a.id = w.account_id
                 WHERE w.disabled_at IS NULL AND a.deleted_at IS NULL
                   AND ($1::BIGINT IS NULL OR w.account_id = $1)"
            ),
            &[&account],
        )
        .await?;
    let mut queued = 0;
    for row in &rows {
        let endpoint = endpoint(row)?;
        if endpoint.subscribes(event) {
            queue(&tx, &endpoint, event, bodies, nonce, now).await?;
            queued += 1;
        }
    }
    tx.commit().await?;
    Ok(queued)
}

/// Queues a test message for an owner's endpoint ([`rules::may_test`]), or makes the one still on
/// its way due now ([`rules::test_asked`]).
pub(crate) async fn queue_test(
    client: &mut Client,
    account: AccountId,
    id: i64,
    bodies: &EventBodies,
    nonce: &Nonce,
    now: Timestamp,
) -> Result<()> {
    let tx = write_transaction(client).await?;
    let endpoint = rules::owned_webhook(endpoint_by_id(&tx, id).await?, account)?;
    rules::may_test(&endpoint)?;
    let pending: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM webhook_messages WHERE endpoint_id = $1 AND event = $2 AND done_at IS NULL)",
            &[&id, &WebhookEvent::Test.as_str()],
        )
        .await?
        .get(0);
    match rules::test_asked(pending) {
        TestAsked::Queue => queue(&tx, &endpoint, WebhookEvent::Test, bodies, nonce, now).await?,
        TestAsked::TryPendingNow => {
            tx.execute(
                "UPDATE webhook_messages SET next_attempt_at = least(next_attempt_at, $3)
                 WHERE endpoint_id = $1 AND event = $2 AND done_at IS NULL",
                &[&id, &WebhookEvent::Test.as_str(), &now.0],
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

async fn queue(
    client: &impl GenericClient,
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
    client
        .execute(
            "INSERT INTO webhook_messages (endpoint_id, message_id, event, body, created_at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
            &[&endpoint.id, &message_id(nonce, endpoint.id), &event.as_str(), body, &now.0],
        )
        .await?;
    Ok(())
}

/// Claims up to `limit` messages due at `now` for `lease` seconds under `claim` (see the SQLite
/// backend's), the rows another replica is claiming skipped.
pub(crate) async fn claim_webhook_messages(
    client: &mut Client,
    now: Timestamp,
    lease: i64,
    limit: usize,
    claim: &str,
) -> Result<Vec<WebhookMessage>> {
    let tx = client.transaction().await?;
    let rows = tx
        .query(
            "UPDATE webhook_messages SET claimed_until = $3, claim = $4 WHERE id IN (
                 SELECT m.id FROM webhook_messages m JOIN webhook_endpoints w ON w.id = m.endpoint_id
                 WHERE m.done_at IS NULL AND m.next_attempt_at <= $1
                   AND (m.claimed_until IS NULL OR m.claimed_until <= $1) AND w.disabled_at IS NULL
                 ORDER BY m.next_attempt_at, m.id LIMIT $2
                 FOR UPDATE OF m SKIP LOCKED)
             RETURNING id, message_id, event, body, created_at, attempts, endpoint_id",
            &[&now.0, &i64::try_from(limit).unwrap_or(i64::MAX), &(now.0 + lease), &claim],
        )
        .await?;
    let mut messages = Vec::with_capacity(rows.len());
    for row in &rows {
        let event: String = row.get(2);
        let event = WebhookEvent::parse(&event)
            .ok_or_else(|| Error::Corrupt(format!("a webhook event {event:?}")))?;
        let endpoint = endpoint_by_id(&tx, row.get(6)).await?.ok_or(Error::NoSuchWebhook)?;
        messages.push(WebhookMessage {
            id: row.get(0),
            claim: claim.to_owned(),
            message_id: row.get(1),
            event,
            body: row.get(3),
            created_at: Timestamp(row.get(4)),
            attempts: u32::try_from(row.get::<_, i64>(5)).unwrap_or(u32::MAX),
            endpoint,
        });
    }
    messages.sort_by_key(|message| message.id);
    tx.commit().await?;
    Ok(messages)
}

/// Records a try of a message claimed under `claim` and what follows it, and whether it disables
/// its endpoint (see the SQLite backend's); the rows locked, so that of two reports one counts.
pub(crate) async fn record_webhook_attempt(
    client: &mut Client,
    message: i64,
    claim: &str,
    report: &AttemptReport,
    jitter: u16,
) -> Result<Option<DisabledWebhook>> {
    let tx = client.transaction().await?;
    let Some(row) = tx
        .query_opt(
            "SELECT m.endpoint_id, m.created_at, m.attempts, w.failing_since, w.disabled_at IS NOT NULL
             FROM webhook_messages m JOIN webhook_endpoints w ON w.id = m.endpoint_id
             WHERE m.id = $1 AND m.claim = $2 AND m.done_at IS NULL
             FOR UPDATE OF m, w",
            &[&message, &claim],
        )
        .await?
    else {
        return Ok(None);
    };
    let (endpoint, created_at, attempts, failing_since, disabled): (i64, i64, i64, Option<i64>, bool) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    tx.execute(
        "INSERT INTO webhook_attempts (endpoint_id, message_id, attempt, at, status, duration_ms, answer, error,
                                       delivered)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &endpoint,
            &message,
            &(attempts + 1),
            &report.at.0,
            &report.status.map(i64::from),
            &i64::from(report.duration_ms),
            &report.answer,
            &report.error,
            &report.delivered,
        ],
    )
    .await?;
    let attempts = u32::try_from(attempts).unwrap_or(u32::MAX);
    let (next, done) =
        match rules::after_attempt(report.delivered, attempts, Timestamp(created_at), report.at, jitter) {
            AfterAttempt::Delivered | AfterAttempt::GiveUp => (None, Some(report.at.0)),
            AfterAttempt::RetryAt(at) => (Some(at), None),
        };
    tx.execute(
        "UPDATE webhook_messages SET attempts = attempts + 1, claimed_until = NULL, claim = NULL,
             next_attempt_at = coalesce($2, next_attempt_at), done_at = $3 WHERE id = $1",
        &[&message, &next, &done],
    )
    .await?;
    let failing_since = rules::failing_after(report.delivered, failing_since, report.at);
    tx.execute("UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1", &[&endpoint, &failing_since])
        .await?;
    tx.execute(
        "DELETE FROM webhook_attempts WHERE endpoint_id = $1 AND id NOT IN
             (SELECT id FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2)",
        &[&endpoint, &i64::try_from(WEBHOOK_ATTEMPTS_KEPT).unwrap_or(i64::MAX)],
    )
    .await?;
    let disabled_now = if !disabled && rules::disables(report.delivered, failing_since, report.at) {
        tx.execute(
            "UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = $3 WHERE id = $1",
            &[&endpoint, &report.at.0, &FAILING_REASON],
        )
        .await?;
        let endpoint = endpoint_by_id(&tx, endpoint).await?.ok_or(Error::NoSuchWebhook)?;
        let owner: Option<String> = tx
            .query_opt(
                "SELECT email FROM accounts WHERE id = $1 AND deleted_at IS NULL",
                &[&endpoint.account.0],
            )
            .await?
            .and_then(|row| row.get(0));
        let owner = owner
            .map(|email| Email::parse(&email))
            .transpose()
            .map_err(|_| Error::Corrupt(format!("the address of account {}", endpoint.account.0)))?;
        Some(DisabledWebhook { endpoint, owner })
    } else {
        None
    };
    tx.commit().await?;
    Ok(disabled_now)
}

/// The last tries of an owner's endpoint, newest first.
pub(crate) async fn webhook_attempts(
    client: &mut Client,
    account: AccountId,
    id: i64,
) -> Result<Vec<WebhookAttempt>> {
    rules::owned_webhook(endpoint_by_id(&*client, id).await?, account)?;
    let rows = client
        .query(
            "SELECT t.id, m.message_id, m.event, t.attempt, t.at, t.status, t.duration_ms, t.answer, t.error,
                    t.delivered
             FROM webhook_attempts t JOIN webhook_messages m ON m.id = t.message_id
             WHERE t.endpoint_id = $1 ORDER BY t.id DESC LIMIT $2",
            &[&id, &i64::try_from(WEBHOOK_ATTEMPTS_KEPT).unwrap_or(i64::MAX)],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let event: String = row.get(2);
            let event = WebhookEvent::parse(&event)
                .ok_or_else(|| Error::Corrupt(format!("a webhook event {event:?}")))?;
            Ok(WebhookAttempt {
                id: row.get(0),
                message_id: row.get(1),
                event,
                attempt: u32::try_from(row.get::<_, i64>(3)).unwrap_or(u32::MAX),
                report: AttemptReport {
                    at: Timestamp(row.get(4)),
                    status: row.get::<_, Option<i64>>(5).and_then(|status| u16::try_from(status).ok()),
                    duration_ms: u32::try_from(row.get::<_, i64>(6)).unwrap_or(u32::MAX),
                    answer: row.get(7),
                    error: row.get(8),
                    delivered: row.get(9),
                },
            })
        })
        .collect()
}

/// Keys that expire after `after` and at or before `until`, of live accounts, not revoked.
pub(crate) async fn keys_expiring(
    client: &mut Client,
    after: Timestamp,
    until: Timestamp,
) -> Result<Vec<KeyRecord>> {
    let rows = client
        .query(
            &format!(
                "{KEY_COLUMNS} WHERE k.expires_at > $1 AND k.expires_at <= $2 AND k.revoked_at IS NULL
                     AND a.deleted_at IS NULL ORDER BY k.expires_at, k.id"
            ),
            &[&after.0, &until.0],
        )
        .await?;
    rows.iter().map(super::keys::key_record).collect()
}

async fn endpoint_by_id(client: &impl GenericClient, id: i64) -> Result<Option<WebhookEndpoint>> {
    client
        .query_opt(&format!("{WEBHOOK_COLUMNS} WHERE w.id = $1"), &[&id])
        .await?
        .as_ref()
        .map(endpoint)
        .transpose()
}

/// An endpoint of a [`WEBHOOK_COLUMNS`] row; a stored value this build cannot read is
/// [`Error::Corrupt`].
fn endpoint(row: &Row) -> Result<WebhookEndpoint> {
    let kind: String = row.get(4);
    let events: String = row.get(5);
    let id: i64 = row.get(0);
    let (Some(kind), Some(events)) = (WebhookKind::parse(&kind), parse_events(&events)) else {
        return Err(Error::Corrupt(format!("webhook endpoint {id}")));
    };
    let previous_secret: Option<String> = row.get(7);
    let previous_until: Option<i64> = row.get(8);
    let disabled_at: Option<i64> = row.get(10);
    let disabled_reason: Option<String> = row.get(11);
    Ok(WebhookEndpoint {
        id,
        account: AccountId(row.get(1)),
        url: row.get(2),
        description: row.get(3),
        kind,
        events,
        secret: row.get(6),
        previous_secret: previous_secret.zip(previous_until.map(Timestamp)),
        created_at: Timestamp(row.get(9)),
        disabled: disabled_at.map(|at| (Timestamp(at), disabled_reason.unwrap_or_default())),
        failing_since: row.get::<_, Option<i64>>(12).map(Timestamp),
    })
}
