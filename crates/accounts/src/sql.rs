//! The SQL both backends run as written: queries without parameters, whose text means the same in
//! SQLite and PostgreSQL (each backend reads the columns in this order), and the spelling of the
//! values both store as text.

use crate::model::WebhookEvent;

/// Every key with its account's address: `id, account_id, email, name, prefix, per_minute, burst,
/// per_day, created_at, last_used_at, expires_at, revoked_at, suspended, origins`; a `WHERE` may
/// follow.
pub(crate) const KEY_COLUMNS: &str =
    "SELECT k.id, k.account_id, a.email, k.name, k.prefix, k.per_minute, k.burst, k.per_day,
        k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.suspended, k.origins
    FROM keys k JOIN accounts a ON a.id = k.account_id";

/// What the server decides on for every key: `id, prefix, sha256, per_minute, burst, per_day,
/// expires_at, revoked, suspended, account suspended, account confirmed, name, origins`.
pub(crate) const SNAPSHOT_KEYS: &str =
    "SELECT k.id, k.prefix, k.sha256, k.per_minute, k.burst, k.per_day, k.expires_at,
        k.revoked_at IS NOT NULL, k.suspended, a.suspended, a.email IS NOT NULL, k.name, k.origins
    FROM keys k JOIN accounts a ON a.id = k.account_id";

/// Every webhook endpoint: `id, account_id, url, description, kind, events, secret,
/// previous_secret, previous_until, created_at, disabled_at, disabled_reason, failing_since`; a
/// `WHERE` may follow.
pub(crate) const WEBHOOK_COLUMNS: &str =
    "SELECT w.id, w.account_id, w.url, w.description, w.kind, w.events, w.secret, w.previous_secret,
        w.previous_until, w.created_at, w.disabled_at, w.disabled_reason, w.failing_since
    FROM webhook_endpoints w";

/// An endpoint's events as stored: their names, space-separated.
pub(crate) fn events_column(events: &[WebhookEvent]) -> String {
    events.iter().map(|event| event.as_str()).collect::<Vec<_>>().join(" ")
}

/// The events [`events_column`] stored; `None` for a name this build does not know.
pub(crate) fn parse_events(stored: &str) -> Option<Vec<WebhookEvent>> {
    stored.split_whitespace().map(WebhookEvent::parse).collect()
}
