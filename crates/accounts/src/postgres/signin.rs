//! Signing in: one-time links mailed to an address (and spent once), and sign-ins through a
//! provider. What each reads is what the rules of `model::rules` ask for, and what it writes is what
//! they answer; every one holds the write lock, so that nothing is written between the two.

use tapster_domain::{Email, Timestamp};
use tokio_postgres::{Client, GenericClient};

use super::account::{account_with_email, standing};
use super::write_transaction;
use crate::error::Result;
use crate::model::rules::{self, LinkLanding, LinkPurpose, ProviderSignIn, StoredLink};
use crate::model::{AccountId, Issued, PendingLink, Profile, SignIn};
use crate::token::TokenHash;

/// Stores a link for `email`, unless [`rules::link_issue`] says otherwise. With `account`, spending
/// the link confirms the address for that account rather than signing in to the address's own.
pub(crate) async fn issue_email_token(
    client: &mut Client,
    email: &Email,
    account: Option<AccountId>,
    token: TokenHash,
    now: Timestamp,
) -> Result<Issued> {
    let tx = write_transaction(client).await?;
    let recent: i64 = tx
        .query_one(
            "SELECT count(*) FROM email_tokens WHERE email = $1 AND created_at > $2",
            &[&email.as_str(), &rules::mail_window_start(now)],
        )
        .await?
        .get(0);
    let purpose = match account {
        Some(account) => LinkPurpose::Confirm(standing(&tx, account).await?),
        None => LinkPurpose::SignIn,
    };
    if rules::link_issue(usize::try_from(recent).unwrap_or(usize::MAX), purpose)? == Issued::Throttled {
        return Ok(Issued::Throttled);
    }
    tx.execute(
        "INSERT INTO email_tokens (sha256, email, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
        &[&token.0.as_slice(), &email.as_str(), &account.map(|a| a.0), &now.0, &rules::link_expires_at(now)],
    )
    .await?;
    tx.commit().await?;
    Ok(Issued::Issued)
}

/// Spends a link ([`StoredLink::spendable`] in a browser signed in as `signed_in`) and signs in where
/// [`rules::link_landing`] says, confirming the address there. All or nothing: a refusal leaves the
/// link unspent and nothing changed.
pub(crate) async fn spend_email_token(
    client: &mut Client,
    token: TokenHash,
    signed_in: Option<AccountId>,
    now: Timestamp,
) -> Result<SignIn> {
    let tx = write_transaction(client).await?;
    let link = StoredLink::known(stored_link(&tx, token).await?)?;
    let email = link.spendable(signed_in, now)?;
    let asking = match link.account {
        Some(account) => Some((account, standing(&tx, account).await?)),
        None => None,
    };
    let signed_in = match rules::link_landing(&email, asking, account_with_email(&tx, &email).await?)? {
        LinkLanding::Asking { account, take_address } => {
            if take_address {
                confirm_address(&tx, account, &email).await?;
            }
            SignIn { account, created: false }
        }
        LinkLanding::Holder(account) => SignIn { account, created: false },
        LinkLanding::NewAccount => {
            SignIn { account: create_account(&tx, Some(&email), None, now).await?, created: true }
        }
    };
    tx.execute("UPDATE email_tokens SET spent_at = $2 WHERE sha256 = $1", &[&token.0.as_slice(), &now.0])
        .await?;
    tx.commit().await?;
    Ok(signed_in)
}

/// What a link is for while it can be spent ([`StoredLink::pending`]); `None` for any other.
pub(crate) async fn pending_link(
    client: &mut Client,
    token: TokenHash,
    now: Timestamp,
) -> Result<Option<PendingLink>> {
    Ok(stored_link(&*client, token).await?.and_then(|link| link.pending(now)))
}

/// A link as stored, by the hash of its token.
async fn stored_link(client: &impl GenericClient, token: TokenHash) -> Result<Option<StoredLink>> {
    let row = client
        .query_opt(
            "SELECT email, account_id, expires_at, spent_at FROM email_tokens WHERE sha256 = $1",
            &[&token.0.as_slice()],
        )
        .await?;
    Ok(row.map(|row| StoredLink {
        email: row.get(0),
        account: row.get::<_, Option<i64>>(1).map(AccountId),
        expires_at: row.get(2),
        spent_at: row.get(3),
    }))
}

/// Signs in with a provider's profile where [`rules::provider_sign_in`] says, and writes what it
/// names.
pub(crate) async fn sign_in_with(client: &mut Client, profile: &Profile, now: Timestamp) -> Result<SignIn> {
    let tx = write_transaction(client).await?;
    let linked = match identity_owner(&tx, profile).await? {
        Some(account) => Some((account, standing(&tx, account).await?)),
        None => None,
    };
    let signed_in = match rules::provider_sign_in(profile, linked, vouched_holder(&tx, profile).await?)? {
        ProviderSignIn::Linked { account, address } => {
            refresh_login(&tx, profile).await?;
            if let Some(email) = address {
                confirm_address(&tx, account, email).await?;
            }
            SignIn { account, created: false }
        }
        ProviderSignIn::Holder(account) => {
            insert_identity(&tx, account, profile, now).await?;
            SignIn { account, created: false }
        }
        ProviderSignIn::NewAccount { email, pending } => {
            let account = create_account(&tx, email, pending, now).await?;
            insert_identity(&tx, account, profile, now).await?;
            SignIn { account, created: true }
        }
    };
    tx.commit().await?;
    Ok(signed_in)
}

/// Links a provider's user to `account`, which a signed-in owner chose, when
/// [`rules::link_provider`] allows it, and writes what it names.
pub(crate) async fn link_identity(
    client: &mut Client,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    let tx = write_transaction(client).await?;
    let (standing, linked) = (standing(&tx, account).await?, identity_owner(&tx, profile).await?);
    let link = rules::link_provider(profile, account, standing, linked, vouched_holder(&tx, profile).await?)?;
    if link.known {
        refresh_login(&tx, profile).await?;
    } else {
        insert_identity(&tx, account, profile, now).await?;
    }
    if let Some(email) = link.address {
        confirm_address(&tx, account, email).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The account a provider's user signs in to, if it has one.
async fn identity_owner(client: &impl GenericClient, profile: &Profile) -> Result<Option<AccountId>> {
    let row = client
        .query_opt(
            "SELECT account_id FROM identities WHERE provider = $1 AND subject = $2",
            &[&profile.provider.as_str(), &profile.subject()],
        )
        .await?;
    Ok(row.map(|row| AccountId(row.get(0))))
}

async fn insert_identity(
    client: &impl GenericClient,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    client
        .execute(
            "INSERT INTO identities (provider, subject, account_id, login, created_at) VALUES ($1, $2, $3, $4, $5)",
            &[&profile.provider.as_str(), &profile.subject(), &account.0, &profile.login, &now.0],
        )
        .await?;
    Ok(())
}

/// Keeps the login shown for a provider's user as the provider says it is now.
async fn refresh_login(client: &impl GenericClient, profile: &Profile) -> Result<()> {
    client
        .execute(
            "UPDATE identities SET login = $3 WHERE provider = $1 AND subject = $2",
            &[&profile.provider.as_str(), &profile.subject(), &profile.login],
        )
        .await?;
    Ok(())
}

/// Makes `email` the confirmed address of `account`, which a rule found without one.
async fn confirm_address(client: &impl GenericClient, account: AccountId, email: &Email) -> Result<()> {
    client
        .execute(
            "UPDATE accounts SET email = $2, pending_email = NULL WHERE id = $1",
            &[&account.0, &email.as_str()],
        )
        .await?;
    Ok(())
}

/// The live account that holds the address the provider vouches for ([`rules::vouched`]).
async fn vouched_holder(client: &impl GenericClient, profile: &Profile) -> Result<Option<AccountId>> {
    match rules::vouched(profile) {
        Some(email) => account_with_email(client, email).await,
        None => Ok(None),
    }
}

async fn create_account(
    client: &impl GenericClient,
    email: Option<&Email>,
    pending: Option<&Email>,
    now: Timestamp,
) -> Result<AccountId> {
    let row = client
        .query_one(
            "INSERT INTO accounts (email, pending_email, created_at) VALUES ($1, $2, $3) RETURNING id",
            &[&email.map(Email::as_str), &pending.map(Email::as_str), &now.0],
        )
        .await?;
    Ok(AccountId(row.get(0)))
}
