//! Accounts as wholes: what their owner sees, unlinking a sign-in, deleting; and the operator's
//! suspensions and address blocks.

use tapster_domain::{AddressBlock, Email, Timestamp};
use tokio_postgres::{Client, GenericClient};

use super::{email_column, write_transaction};
use crate::error::Result;
use crate::model::rules::{self, Standing};
use crate::model::{Account, AccountId, Identity, Provider, Suspension};

/// What the rules need to know of `account`: `None` when it is gone (deleted, or never made).
pub(super) async fn standing(client: &impl GenericClient, account: AccountId) -> Result<Option<Standing>> {
    let row = client
        .query_opt(
            "SELECT email IS NOT NULL, suspended, suspended_reason FROM accounts
             WHERE id = $1 AND deleted_at IS NULL",
            &[&account.0],
        )
        .await?;
    Ok(row.map(|row| Standing {
        confirmed: row.get(0),
        suspension: row.get::<_, bool>(1).then(|| Suspension { reason: row.get(2) }),
    }))
}

pub(crate) async fn account(client: &mut Client, id: AccountId) -> Result<Account> {
    let tx = client.build_transaction().read_only(true).start().await?;
    let found = tx
        .query_opt(
            "SELECT email, pending_email, suspended, suspended_reason, created_at FROM accounts
             WHERE id = $1 AND deleted_at IS NULL",
            &[&id.0],
        )
        .await?;
    let row = rules::live(found)?;
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

/// Removes a linked sign-in, when [`rules::may_unlink`] allows it and it is the owner's
/// ([`rules::owned_identity`]).
pub(crate) async fn unlink_identity(client: &mut Client, account: AccountId, identity: i64) -> Result<()> {
    let tx = write_transaction(client).await?;
    let identities: i64 =
        tx.query_one("SELECT count(*) FROM identities WHERE account_id = $1", &[&account.0]).await?.get(0);
    rules::may_unlink(standing(&tx, account).await?, usize::try_from(identities).unwrap_or(usize::MAX))?;
    let owner = tx.query_opt("SELECT account_id FROM identities WHERE id = $1", &[&identity]).await?;
    rules::owned_identity(owner.map(|row| AccountId(row.get(0))), account)?;
    tx.execute("DELETE FROM identities WHERE id = $1", &[&identity]).await?;
    Ok(tx.commit().await?)
}

/// Deletes an account: every key is revoked (their usage stays, anonymous), the addresses, linked
/// sign-ins, sessions and links are erased. The row stays, empty, for the keys to point at.
pub(crate) async fn delete_account(client: &mut Client, account: AccountId, now: Timestamp) -> Result<()> {
    let tx = write_transaction(client).await?;
    rules::live(standing(&tx, account).await?)?;
    let email: Option<String> =
        tx.query_one("SELECT email FROM accounts WHERE id = $1", &[&account.0]).await?.get(0);
    tx.execute(
        "UPDATE keys SET revoked_at = coalesce(revoked_at, $2) WHERE account_id = $1",
        &[&account.0, &now.0],
    )
    .await?;
    tx.execute("DELETE FROM identities WHERE account_id = $1", &[&account.0]).await?;
    tx.execute("DELETE FROM sessions WHERE account_id = $1", &[&account.0]).await?;
    super::webhooks::delete_endpoints(&tx, "account_id = $1", account.0).await?;
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

/// Suspends (with the reason its owner will read, [`rules::kept_reason`]) or reinstates the account
/// of `email` ([`rules::named_account`]), and so every key it owns.
pub(crate) async fn set_account_suspended(
    client: &mut Client,
    email: &Email,
    suspended: bool,
    reason: Option<&str>,
) -> Result<()> {
    let tx = write_transaction(client).await?;
    let account = rules::named_account(email, account_with_email(&tx, email).await?)?;
    tx.execute(
        "UPDATE accounts SET suspended = $2, suspended_reason = $3 WHERE id = $1",
        &[&account.0, &suspended, &rules::kept_reason(suspended, reason)],
    )
    .await?;
    Ok(tx.commit().await?)
}

/// The live account whose confirmed address is `email`.
pub(super) async fn account_with_email(
    client: &impl GenericClient,
    email: &Email,
) -> Result<Option<AccountId>> {
    let row = client
        .query_opt("SELECT id FROM accounts WHERE email = $1 AND deleted_at IS NULL", &[&email.as_str()])
        .await?;
    Ok(row.map(|row| AccountId(row.get(0))))
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
