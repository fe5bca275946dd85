//! Signing in: one-time links mailed to an address (and spent once), and sign-ins through a
//! provider, by the same rules as the SQLite backend's (see its `signin` module for why).

use tapster_domain::{Email, Timestamp};
use tokio_postgres::{Client, GenericClient};

use super::write_transaction;
use crate::model::{
    AccountId, Issued, MAIL_WINDOW_SECS, MAILS_PER_WINDOW, PendingLink, Profile, SignIn, TOKEN_LIFETIME_SECS,
    spendable_token,
};
use crate::token::TokenHash;
use crate::{Error, Result};

/// Stores a link for `email`, unless the address had its share of mails lately. With `account`,
/// spending the link confirms the address for that account rather than signing in to the
/// address's own.
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
            &[&email.as_str(), &(now.0 - MAIL_WINDOW_SECS)],
        )
        .await?
        .get(0);
    if recent >= MAILS_PER_WINDOW as i64 {
        return Ok(Issued::Throttled);
    }
    if let Some(account) = account {
        live_account(&tx, account).await?;
    }
    tx.execute(
        "INSERT INTO email_tokens (sha256, email, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
        &[&token.0.as_slice(), &email.as_str(), &account.map(|a| a.0), &now.0, &(now.0 + TOKEN_LIFETIME_SECS)],
    )
    .await?;
    tx.commit().await?;
    Ok(Issued::Issued)
}

/// Spends a link: confirms its address and signs in to the account that now holds it (made when
/// there is none). A link that confirms an address for an account is spent only where that account
/// is signed in (`signed_in`). All or nothing: a refusal leaves the link unspent and nothing changed.
pub(crate) async fn spend_email_token(
    client: &mut Client,
    token: TokenHash,
    signed_in: Option<AccountId>,
    now: Timestamp,
) -> Result<SignIn> {
    let tx = write_transaction(client).await?;
    let found = tx
        .query_opt(
            "SELECT email, account_id, expires_at, spent_at FROM email_tokens WHERE sha256 = $1",
            &[&token.0.as_slice()],
        )
        .await?;
    let Some(row) = found else { return Err(Error::TokenUnknown) };
    let account = row.get::<_, Option<i64>>(1).map(AccountId);
    let email = spendable_token(row.get(0), account, row.get(2), row.get(3), signed_in, now)?;
    tx.execute("UPDATE email_tokens SET spent_at = $2 WHERE sha256 = $1", &[&token.0.as_slice(), &now.0])
        .await?;
    let holder = account_with_email(&tx, &email).await?;
    let signed_in = match (account, holder) {
        // An account asked to confirm an address that another has confirmed meanwhile.
        (Some(asking), Some(holder)) if asking != holder => return Err(Error::AddressTaken(email)),
        (Some(asking), _) => {
            live_account(&tx, asking).await?;
            // An address it confirmed meanwhile (through a provider) stays.
            tx.execute(
                "UPDATE accounts SET email = $2, pending_email = NULL WHERE id = $1 AND email IS NULL",
                &[&asking.0, &email.as_str()],
            )
            .await?;
            SignIn { account: asking, created: false }
        }
        (None, Some(holder)) => SignIn { account: holder, created: false },
        (None, None) => {
            SignIn { account: create_account(&tx, Some(&email), None, now).await?, created: true }
        }
    };
    tx.commit().await?;
    Ok(signed_in)
}

/// What an unspent, unexpired link is for; `None` for any other.
pub(crate) async fn pending_link(
    client: &mut Client,
    token: TokenHash,
    now: Timestamp,
) -> Result<Option<PendingLink>> {
    let found = client
        .query_opt(
            "SELECT email, account_id IS NOT NULL FROM email_tokens
             WHERE sha256 = $1 AND spent_at IS NULL AND expires_at > $2",
            &[&token.0.as_slice(), &now.0],
        )
        .await?;
    Ok(found
        .and_then(|row| Some(PendingLink { email: Email::parse(row.get(0)).ok()?, confirms: row.get(1) })))
}

/// Signs in with a provider's profile, by the rules of the SQLite backend's `sign_in_with`.
pub(crate) async fn sign_in_with(client: &mut Client, profile: &Profile, now: Timestamp) -> Result<SignIn> {
    let tx = write_transaction(client).await?;
    let signed_in = if let Some(account) = identity_owner(&tx, profile).await? {
        refresh_login(&tx, profile).await?;
        take_verified_address(&tx, account, profile).await?;
        SignIn { account, created: false }
    } else {
        let verified = profile.email.as_ref().filter(|_| profile.email_verified);
        let (account, created) = match verified {
            Some(email) => match account_with_email(&tx, email).await? {
                Some(holder) => (holder, false),
                None => (create_account(&tx, Some(email), None, now).await?, true),
            },
            None => (create_account(&tx, None, profile.email.as_ref(), now).await?, true),
        };
        insert_identity(&tx, account, profile, now).await?;
        SignIn { account, created }
    };
    tx.commit().await?;
    Ok(signed_in)
}

/// Links a provider's user to `account`, which a signed-in owner chose. The account takes the
/// address if the provider vouches for it and neither it nor anyone else has one confirmed.
pub(crate) async fn link_identity(
    client: &mut Client,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    let tx = write_transaction(client).await?;
    live_account(&tx, account).await?;
    match identity_owner(&tx, profile).await? {
        Some(owner) if owner != account => return Err(Error::IdentityTaken),
        Some(_) => refresh_login(&tx, profile).await?,
        None => insert_identity(&tx, account, profile, now).await?,
    }
    take_verified_address(&tx, account, profile).await?;
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

/// Gives `account` the address the provider vouches for, when it has none and nobody holds it.
async fn take_verified_address(
    client: &impl GenericClient,
    account: AccountId,
    profile: &Profile,
) -> Result<()> {
    if let Some(email) = profile.email.as_ref().filter(|_| profile.email_verified)
        && account_with_email(client, email).await?.is_none()
    {
        client
            .execute(
                "UPDATE accounts SET email = $2, pending_email = NULL WHERE id = $1 AND email IS NULL",
                &[&account.0, &email.as_str()],
            )
            .await?;
    }
    Ok(())
}

/// The live account whose confirmed address is `email`.
async fn account_with_email(client: &impl GenericClient, email: &Email) -> Result<Option<AccountId>> {
    let row = client
        .query_opt("SELECT id FROM accounts WHERE email = $1 AND deleted_at IS NULL", &[&email.as_str()])
        .await?;
    Ok(row.map(|row| AccountId(row.get(0))))
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

/// Refuses an account that was deleted (or never existed).
pub(super) async fn live_account(client: &impl GenericClient, account: AccountId) -> Result<()> {
    let live: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL)",
            &[&account.0],
        )
        .await?
        .get(0);
    if live { Ok(()) } else { Err(Error::AccountGone) }
}
