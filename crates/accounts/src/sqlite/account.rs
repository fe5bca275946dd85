//! Accounts as wholes: what their owner sees, unlinking a sign-in, deleting; and the operator's
//! suspensions and address blocks.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use tapster_domain::{AddressBlock, Email, Timestamp};

use super::email_column;
use crate::error::Result;
use crate::model::rules::{self, Standing};
use crate::model::{Account, AccountId, Identity, Provider, Suspension};

/// What the rules need to know of `account`: `None` when it is gone (deleted, or never made).
pub(super) fn standing(conn: &Connection, account: AccountId) -> Result<Option<Standing>> {
    Ok(conn
        .query_row(
            "SELECT email IS NOT NULL, suspended, suspended_reason FROM accounts
             WHERE id = ?1 AND deleted_at IS NULL",
            [account.0],
            |row| {
                Ok(Standing {
                    confirmed: row.get(0)?,
                    suspension: row
                        .get::<_, bool>(1)?
                        .then(|| row.get(2).map(|reason| Suspension { reason }))
                        .transpose()?,
                })
            },
        )
        .optional()?)
}

pub(crate) fn account(conn: &mut Connection, id: AccountId) -> Result<Account> {
    let tx = conn.transaction()?;
    let found = tx
        .query_row(
            "SELECT email, pending_email, suspended, suspended_reason, created_at FROM accounts
             WHERE id = ?1 AND deleted_at IS NULL",
            [id.0],
            |row| {
                Ok(Account {
                    id,
                    email: email_column(row, 0)?,
                    pending_email: email_column(row, 1)?,
                    suspension: row
                        .get::<_, bool>(2)?
                        .then(|| row.get(3).map(|reason| Suspension { reason }))
                        .transpose()?,
                    created_at: Timestamp(row.get(4)?),
                    identities: Vec::new(),
                })
            },
        )
        .optional()?;
    let mut account = rules::live(found)?;
    let mut stmt = tx.prepare(
        "SELECT id, provider, login, created_at FROM identities WHERE account_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([id.0])?;
    while let Some(row) = rows.next()? {
        // A provider this build does not know (left by a later one) is not shown.
        let Some(provider) = Provider::parse(&row.get::<_, String>(1)?) else { continue };
        account.identities.push(Identity {
            id: row.get(0)?,
            provider,
            login: row.get(2)?,
            created_at: Timestamp(row.get(3)?),
        });
    }
    Ok(account)
}

/// Removes a linked sign-in, when [`rules::may_unlink`] allows it and it is the owner's
/// ([`rules::owned_identity`]).
pub(crate) fn unlink_identity(conn: &mut Connection, account: AccountId, identity: i64) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let identities: i64 =
        tx.query_row("SELECT count(*) FROM identities WHERE account_id = ?1", [account.0], |row| row.get(0))?;
    rules::may_unlink(standing(&tx, account)?, usize::try_from(identities).unwrap_or(usize::MAX))?;
    let owner = tx
        .query_row("SELECT account_id FROM identities WHERE id = ?1", [identity], |row| row.get(0))
        .optional()?;
    rules::owned_identity(owner.map(AccountId), account)?;
    tx.execute("DELETE FROM identities WHERE id = ?1", [identity])?;
    Ok(tx.commit()?)
}

/// Deletes an account: every key is revoked (their usage stays, anonymous), the addresses, linked
/// sign-ins, sessions and links are erased. The row stays, empty, for the keys to point at.
pub(crate) fn delete_account(conn: &mut Connection, account: AccountId, now: Timestamp) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    rules::live(standing(&tx, account)?)?;
    let email: Option<String> =
        tx.query_row("SELECT email FROM accounts WHERE id = ?1", [account.0], |row| row.get(0))?;
    tx.execute(
        "UPDATE keys SET revoked_at = coalesce(revoked_at, ?2) WHERE account_id = ?1",
        params![account.0, now.0],
    )?;
    tx.execute("DELETE FROM identities WHERE account_id = ?1", [account.0])?;
    tx.execute("DELETE FROM sessions WHERE account_id = ?1", [account.0])?;
    super::webhooks::delete_endpoints(&tx, "account_id = ?1", account.0)?;
    tx.execute("DELETE FROM email_tokens WHERE account_id = ?1 OR email = ?2", params![account.0, email])?;
    tx.execute(
        "UPDATE accounts SET email = NULL, pending_email = NULL, suspended_reason = NULL, deleted_at = ?2
         WHERE id = ?1",
        params![account.0, now.0],
    )?;
    tx.commit()?;
    Ok(())
}

/// Suspends (with the reason its owner will read, [`rules::kept_reason`]) or reinstates the account
/// of `email` ([`rules::named_account`]), and so every key it owns.
pub(crate) fn set_account_suspended(
    conn: &mut Connection,
    email: &Email,
    suspended: bool,
    reason: Option<&str>,
) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let account = rules::named_account(email, account_with_email(&tx, email)?)?;
    tx.execute(
        "UPDATE accounts SET suspended = ?2, suspended_reason = ?3 WHERE id = ?1",
        params![account.0, suspended, rules::kept_reason(suspended, reason)],
    )?;
    Ok(tx.commit()?)
}

/// The live account whose confirmed address is `email`.
pub(super) fn account_with_email(conn: &Connection, email: &Email) -> Result<Option<AccountId>> {
    Ok(conn
        .query_row(
            "SELECT id FROM accounts WHERE email = ?1 AND deleted_at IS NULL",
            [email.as_str()],
            |row| row.get(0),
        )
        .optional()?
        .map(AccountId))
}

/// Blocks a calling address or range; returns false when it was already blocked.
pub(crate) fn block(conn: &mut Connection, block: AddressBlock, now: Timestamp) -> Result<bool> {
    let added = conn.execute(
        "INSERT INTO blocked_addresses (block, created_at) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        params![block.to_string(), now.0],
    )?;
    Ok(added == 1)
}

/// Lifts a block; returns false when there was none.
pub(crate) fn unblock(conn: &mut Connection, block: AddressBlock) -> Result<bool> {
    Ok(conn.execute("DELETE FROM blocked_addresses WHERE block = ?1", [block.to_string()])? == 1)
}
