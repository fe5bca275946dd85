//! The SQL both backends run as written: queries without parameters, whose text means the same in
//! SQLite and PostgreSQL. Each backend reads the columns in this order.

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
