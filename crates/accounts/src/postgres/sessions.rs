//! Browser sessions: stored by the hash of their id, alive while used at least once every
//! [`SESSION_IDLE_SECS`](crate::SESSION_IDLE_SECS) and for [`SESSION_MAX_SECS`](crate::SESSION_MAX_SECS)
//! at most, ended one by one or all but one. In the shared database, a browser signed in through one
//! replica is signed in through all.

use tapster_domain::Timestamp;
use tokio_postgres::Client;

use super::account::standing;
use super::write_transaction;
use crate::error::Result;
use crate::model::rules::{self, LiveSessions, StoredSession, kept_user_agent};
use crate::model::{AccountId, SessionInfo, SessionRecord};
use crate::token::TokenHash;

pub(crate) async fn create_session(
    client: &mut Client,
    account: AccountId,
    session: TokenHash,
    user_agent: &str,
    now: Timestamp,
) -> Result<SessionInfo> {
    let user_agent = kept_user_agent(user_agent);
    let tx = write_transaction(client).await?;
    rules::live(standing(&tx, account).await?)?;
    let id: i64 = tx
        .query_one(
            "INSERT INTO sessions (sha256, account_id, created_at, last_seen_at, user_agent)
             VALUES ($1, $2, $3, $3, $4) RETURNING id",
            &[&session.0.as_slice(), &account.0, &now.0, &user_agent],
        )
        .await?
        .get(0);
    tx.commit().await?;
    Ok(SessionInfo { account, id, created_at: now, renewed: false })
}

/// The session a browser holds, if it is still alive ([`StoredSession::used`]); notes that it was
/// used when that says so.
pub(crate) async fn session(
    client: &mut Client,
    session: TokenHash,
    now: Timestamp,
) -> Result<Option<SessionInfo>> {
    let found = client
        .query_opt(
            "SELECT s.id, s.account_id, s.created_at, s.last_seen_at, a.deleted_at IS NOT NULL
             FROM sessions s JOIN accounts a ON a.id = s.account_id
             WHERE s.sha256 = $1",
            &[&session.0.as_slice()],
        )
        .await?;
    let stored = found.map(|row| StoredSession {
        id: row.get(0),
        account: AccountId(row.get(1)),
        created_at: row.get(2),
        last_seen: row.get(3),
        account_deleted: row.get(4),
    });
    let Some(signed_in) = stored.and_then(|stored| stored.used(now)) else { return Ok(None) };
    if signed_in.renewed {
        client
            .execute("UPDATE sessions SET last_seen_at = $2 WHERE id = $1", &[&signed_in.id, &now.0])
            .await?;
    }
    Ok(Some(signed_in))
}

pub(crate) async fn end_session(client: &mut Client, session: TokenHash) -> Result<()> {
    client.execute("DELETE FROM sessions WHERE sha256 = $1", &[&session.0.as_slice()]).await?;
    Ok(())
}

/// Ends every session of `account` but `keep`; returns how many ended.
pub(crate) async fn end_other_sessions(client: &mut Client, account: AccountId, keep: i64) -> Result<usize> {
    let ended = client
        .execute("DELETE FROM sessions WHERE account_id = $1 AND id != $2", &[&account.0, &keep])
        .await?;
    Ok(usize::try_from(ended).unwrap_or(usize::MAX))
}

/// Ends one session of `account`, named by its number ([`rules::owned_session`]).
pub(crate) async fn end_session_by_id(client: &mut Client, account: AccountId, id: i64) -> Result<()> {
    let tx = write_transaction(client).await?;
    let owner = tx.query_opt("SELECT account_id FROM sessions WHERE id = $1", &[&id]).await?;
    rules::owned_session(owner.map(|row| AccountId(row.get(0))), account)?;
    tx.execute("DELETE FROM sessions WHERE id = $1", &[&id]).await?;
    Ok(tx.commit().await?)
}

/// The live sessions of `account`, most recently used first.
pub(crate) async fn sessions(
    client: &mut Client,
    account: AccountId,
    now: Timestamp,
) -> Result<Vec<SessionRecord>> {
    let live = LiveSessions::at(now);
    let rows = client
        .query(
            "SELECT id, created_at, last_seen_at, user_agent FROM sessions
             WHERE account_id = $1 AND last_seen_at > $2 AND created_at > $3
             ORDER BY last_seen_at DESC, id DESC",
            &[&account.0, &live.seen_after, &live.created_after],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| SessionRecord {
            id: row.get(0),
            created_at: Timestamp(row.get(1)),
            last_seen_at: Timestamp(row.get(2)),
            user_agent: row.get(3),
        })
        .collect())
}
