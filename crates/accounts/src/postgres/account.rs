//! Accounts as wholes: what their owner sees, unlinking a sign-in, deleting; and the operator's
//! suspensions and address blocks.

use tapster_domain::{AddressBlock, Email, Timestamp};
use tokio_postgres::Client;

use super::{email_column, write_transaction};
use crate::model::{Account, AccountId, Identity, Provider, Suspension};
use crate::{Error, Result};

pub(crate) async fn account(client: &mut Client, id: AccountId) -> Result<Account> {
    let tx = client.build_transaction().read_only(true).start().await?;
    let found = tx
        .query_opt(
            "SELECT email, pending_email, suspended, suspended_reason, created_at FROM accounts
             WHERE id = $1 AND deleted_at IS NULL",
            &[&id.0],
        )
        .await?;
    let Some(row) = found else { return Err(Error::AccountGone) };
    let mut account = Account {
        id,
        email: email_column(&row, 0)?,
        pending_email: email_column(&row, 1)?,
        suspension: row.get::<_, bool>(2).then(|| Suspension { reason: row.get(3) }),
        created_at: Timestamp(row.get(4)),
        identities: Vec::new(),
    };
    let rows = tx
        .query(
            "SELECT id, provider, login, created_at FROM identities WHERE account_id = $1 ORDER BY id",
            &[&id.0],
        )
        .await?;
    tx.commit().await?;
    for row in &rows {
        // A provider this build does not know (left by a later one) is not shown.
        let Some(provider) = Provider::parse(row.get(1)) else { continue };
        account.identities.push(Identity {
            id: row.get(0),
            provider,
            login: row.get(2),
            created_at: Timestamp(row.get(3)),
        });
    }
    Ok(account)
}

/// Removes a linked sign-in, unless it is the last way into the account.
pub(crate) async fn unlink_identity(client: &mut Client, account: AccountId, identity: i64) -> Result<()> {
    let tx = write_transaction(client).await?;
    let row = tx
        .query_opt(
            "SELECT a.email IS NOT NULL, (SELECT count(*) FROM identities i WHERE i.account_id = a.id)
             FROM accounts a WHERE a.id = $1 AND a.deleted_at IS NULL",
            &[&account.0],
        )
        .await?;
    let Some(row) = row else { return Err(Error::AccountGone) };
    let (confirmed, identities): (bool, i64) = (row.get(0), row.get(1));
    if !confirmed && identities <= 1 {
        return Err(Error::LastSignIn);
    }
    match tx
        .execute("DELETE FROM identities WHERE id = $1 AND account_id = $2", &[&identity, &account.0])
        .await?
    {
        0 => Err(Error::NoSuchIdentity),
        _ => Ok(tx.commit().await?),
    }
}

/// Deletes an account: every key is revoked (their usage stays, anonymous), the addresses, linked
/// sign-ins, sessions and links are erased. The row stays, empty, for the keys to point at.
pub(crate) async fn delete_account(client: &mut Client, account: AccountId, now: Timestamp) -> Result<()> {
    let tx = write_transaction(client).await?;
    let found = tx
        .query_opt("SELECT email FROM accounts WHERE id = $1 AND deleted_at IS NULL", &[&account.0])
        .await?;
    let Some(row) = found else { return Err(Error::AccountGone) };
    let email: Option<String> = row.get(0);
    tx.execute(
        "UPDATE keys SET revoked_at = coalesce(revoked_at, $2) WHERE account_id = $1",
        &[&account.0, &now.0],
    )
    .await?;
    tx.execute("DELETE FROM identities WHERE account_id = $1", &[&account.0]).await?;
    tx.execute("DELETE FROM sessions WHERE account_id = $1", &[&account.0]).await?;
    tx.execute("DELETE FROM email_tokens WHERE account_id = $1 OR email = $2", &[&account.0, &email]).await?;
    tx.execute(
        "UPDATE accounts SET email = NULL, pending_email = NULL, suspended_reason = NULL, deleted_at = $2
         WHERE id = $1",
        &[&account.0, &now.0],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Suspends (with the reason its owner will read) or reinstates the account of `email`, and so
/// every key it owns.
pub(crate) async fn set_account_suspended(
    client: &mut Client,
    email: &Email,
    suspended: bool,
    reason: Option<&str>,
) -> Result<()> {
    let tx = write_transaction(client).await?;
    let changed = tx
        .execute(
            "UPDATE accounts SET suspended = $2, suspended_reason = $3 WHERE email = $1 AND deleted_at IS NULL",
            &[&email.as_str(), &suspended, &reason.filter(|_| suspended)],
        )
        .await?;
    if changed == 0 {
        return Err(Error::NoSuchAccount(email.clone()));
    }
    Ok(tx.commit().await?)
}

/// Blocks a calling address or range; returns false when it was already blocked.
pub(crate) async fn block(client: &mut Client, block: AddressBlock, now: Timestamp) -> Result<bool> {
    let tx = write_transaction(client).await?;
    let added = tx
        .execute(
            "INSERT INTO blocked_addresses (block, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&block.to_string(), &now.0],
        )
        .await?;
    tx.commit().await?;
    Ok(added == 1)
}

/// Lifts a block; returns false when there was none.
pub(crate) async fn unblock(client: &mut Client, block: AddressBlock) -> Result<bool> {
    let tx = write_transaction(client).await?;
    let removed = tx.execute("DELETE FROM blocked_addresses WHERE block = $1", &[&block.to_string()]).await?;
    tx.commit().await?;
    Ok(removed == 1)
}
