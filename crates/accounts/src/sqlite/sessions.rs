//! Browser sessions: stored by the hash of their id, alive while used at least once every
//! [`SESSION_IDLE_SECS`](crate::SESSION_IDLE_SECS) and for [`SESSION_MAX_SECS`](crate::SESSION_MAX_SECS)
//! at most, ended one by one or all but one.

use rusqlite::{Connection, OptionalExtension, params};
use tapster_domain::Timestamp;

use super::account::standing;
use crate::error::Result;
use crate::model::rules::{self, LiveSessions, StoredSession, kept_user_agent};
use crate::model::{AccountId, SessionInfo, SessionRecord};
use crate::token::TokenHash;

pub(crate) fn create_session(
    conn: &mut Connection,
    account: AccountId,
    session: TokenHash,
    user_agent: &str,
    now: Timestamp,
) -> Result<SessionInfo> {
    let user_agent = kept_user_agent(user_agent);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    rules::live(standing(&tx, account)?)?;
    tx.execute(
        "INSERT INTO sessions (sha256, account_id, created_at, last_seen_at, user_agent) VALUES (?1, ?2, ?3, ?3, ?4)",
        params![session.0.as_slice(), account.0, now.0, user_agent],
    )?;
    let id = tx.last_insert_rowid();
    tx.commit()?;
    Ok(SessionInfo { account, id, created_at: now, renewed: false })
}

/// The session a browser holds, if it is still alive ([`StoredSession::used`]); notes that it was
/// used when that says so.
pub(crate) fn session(
    conn: &mut Connection,
    session: TokenHash,
    now: Timestamp,
) -> Result<Option<SessionInfo>> {
    let found = conn
        .query_row(
            "SELECT s.id, s.account_id, s.created_at, s.last_seen_at, a.deleted_at IS NOT NULL
             FROM sessions s JOIN accounts a ON a.id = s.account_id
             WHERE s.sha256 = ?1",
            [session.0.as_slice()],
            |row| {
                Ok(StoredSession {
                    id: row.get(0)?,
                    account: AccountId(row.get(1)?),
                    created_at: row.get(2)?,
                    last_seen: row.get(3)?,
                    account_deleted: row.get(4)?,
                })
            },
        )
        .optional()?;
    let Some(signed_in) = found.and_then(|stored| stored.used(now)) else { return Ok(None) };
    if signed_in.renewed {
        conn.execute("UPDATE sessions SET last_seen_at = ?2 WHERE id = ?1", params![signed_in.id, now.0])?;
    }
    Ok(Some(signed_in))
}

pub(crate) fn end_session(conn: &mut Connection, session: TokenHash) -> Result<()> {
    conn.execute("DELETE FROM sessions WHERE sha256 = ?1", [session.0.as_slice()])?;
    Ok(())
}

/// Ends every session of `account` but `keep`; returns how many ended.
pub(crate) fn end_other_sessions(conn: &mut Connection, account: AccountId, keep: i64) -> Result<usize> {
    Ok(conn.execute("DELETE FROM sessions WHERE account_id = ?1 AND id != ?2", params![account.0, keep])?)
}

/// Ends one session of `account`, named by its number ([`rules::owned_session`]).
pub(crate) fn end_session_by_id(conn: &mut Connection, account: AccountId, id: i64) -> Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let owner =
        tx.query_row("SELECT account_id FROM sessions WHERE id = ?1", [id], |row| row.get(0)).optional()?;
    rules::owned_session(owner.map(AccountId), account)?;
    tx.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
    Ok(tx.commit()?)
}

/// The live sessions of `account`, most recently used first.
pub(crate) fn sessions(
    conn: &mut Connection,
    account: AccountId,
    now: Timestamp,
) -> Result<Vec<SessionRecord>> {
    let mut stmt = conn.prepare(
        "SELECT id, created_at, last_seen_at, user_agent FROM sessions
         WHERE account_id = ?1 AND last_seen_at > ?2 AND created_at > ?3
         ORDER BY last_seen_at DESC, id DESC",
    )?;
    let live = LiveSessions::at(now);
    let sessions = stmt
        .query_map(params![account.0, live.seen_after, live.created_after], |row| {
            Ok(SessionRecord {
                id: row.get(0)?,
                created_at: Timestamp(row.get(1)?),
                last_seen_at: Timestamp(row.get(2)?),
                user_agent: row.get(3)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(sessions)
}
