//! Signing in: one-time links mailed to an address (and spent once), and sign-ins through a
//! provider, with the rules that link them to accounts.
//!
//! An address counts only once it is confirmed: by a spent link, or by a provider that vouches for
//! it. An unconfirmed address is kept apart (`pending_email`) and never matched, so naming someone
//! else's address at a provider cannot lead into, or prepare a trap for, their account.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use tapster_domain::{Email, Timestamp};

use crate::model::{
    AccountId, Issued, MAIL_WINDOW_SECS, MAILS_PER_WINDOW, PendingLink, Profile, SignIn, TOKEN_LIFETIME_SECS,
    spendable_token,
};
use crate::token::TokenHash;
use crate::{Error, Result};

/// Stores a link for `email`, unless the address had its share of mails lately. With `account`,
/// spending the link confirms the address for that account rather than signing in to the
/// address's own.
pub(crate) fn issue_email_token(
    conn: &mut Connection,
    email: &Email,
    account: Option<AccountId>,
    token: TokenHash,
    now: Timestamp,
) -> Result<Issued> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let recent: i64 = tx.query_row(
        "SELECT count(*) FROM email_tokens WHERE email = ?1 AND created_at > ?2",
        params![email.as_str(), now.0 - MAIL_WINDOW_SECS],
        |row| row.get(0),
    )?;
    if recent >= MAILS_PER_WINDOW as i64 {
        return Ok(Issued::Throttled);
    }
    if let Some(account) = account {
        live_account(&tx, account)?;
    }
    tx.execute(
        "INSERT INTO email_tokens (sha256, email, account_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token.0.as_slice(), email.as_str(), account.map(|a| a.0), now.0, now.0 + TOKEN_LIFETIME_SECS],
    )?;
    tx.commit()?;
    Ok(Issued::Issued)
}

/// Spends a link: confirms its address and signs in to the account that now holds it (made when
/// there is none). A link that confirms an address for an account is spent only where that account
/// is signed in (`signed_in`), so that nobody is led to confirm their address into someone else's
/// account. All or nothing: a refusal leaves the link unspent and nothing changed.
pub(crate) fn spend_email_token(
    conn: &mut Connection,
    token: TokenHash,
    signed_in: Option<AccountId>,
    now: Timestamp,
) -> Result<SignIn> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = tx
        .query_row(
            "SELECT email, account_id, expires_at, spent_at FROM email_tokens WHERE sha256 = ?1",
            [token.0.as_slice()],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<i64>>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((email, account, expires_at, spent_at)) = found else { return Err(Error::TokenUnknown) };
    let account = account.map(AccountId);
    let email = spendable_token(&email, account, expires_at, spent_at, signed_in, now)?;
    tx.execute(
        "UPDATE email_tokens SET spent_at = ?2 WHERE sha256 = ?1",
        params![token.0.as_slice(), now.0],
    )?;
    let holder = account_with_email(&tx, &email)?;
    let signed_in = match (account, holder) {
        // An account asked to confirm an address that another has confirmed meanwhile.
        (Some(asking), Some(holder)) if asking != holder => return Err(Error::AddressTaken(email)),
        (Some(asking), _) => {
            live_account(&tx, asking)?;
            // An address it confirmed meanwhile (through a provider) stays.
            tx.execute(
                "UPDATE accounts SET email = ?2, pending_email = NULL WHERE id = ?1 AND email IS NULL",
                params![asking.0, email.as_str()],
            )?;
            SignIn { account: asking, created: false }
        }
        (None, Some(holder)) => SignIn { account: holder, created: false },
        (None, None) => SignIn { account: create_account(&tx, Some(&email), None, now)?, created: true },
    };
    tx.commit()?;
    Ok(signed_in)
}

/// What an unspent, unexpired link is for; `None` for any other.
pub(crate) fn pending_link(
    conn: &mut Connection,
    token: TokenHash,
    now: Timestamp,
) -> Result<Option<PendingLink>> {
    let found = conn
        .query_row(
            "SELECT email, account_id IS NOT NULL FROM email_tokens
             WHERE sha256 = ?1 AND spent_at IS NULL AND expires_at > ?2",
            params![token.0.as_slice(), now.0],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, bool>(1)?)),
        )
        .optional()?;
    Ok(found.and_then(|(email, confirms)| Some(PendingLink { email: Email::parse(&email).ok()?, confirms })))
}

/// Signs in with a provider's profile:
/// - a known identity signs in to its account (which takes the address if the provider vouches for
///   it and the account has none yet);
/// - a new identity with a verified address joins the account that holds the address, or a new one;
/// - a new identity without a verified address gets a new account whose address waits to be
///   confirmed by mail.
pub(crate) fn sign_in_with(conn: &mut Connection, profile: &Profile, now: Timestamp) -> Result<SignIn> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let signed_in = if let Some(account) = identity_owner(&tx, profile)? {
        refresh_login(&tx, profile)?;
        take_verified_address(&tx, account, profile)?;
        SignIn { account, created: false }
    } else {
        let verified = profile.email.as_ref().filter(|_| profile.email_verified);
        let (account, created) = match verified {
            Some(email) => match account_with_email(&tx, email)? {
                Some(holder) => (holder, false),
                None => (create_account(&tx, Some(email), None, now)?, true),
            },
            None => (create_account(&tx, None, profile.email.as_ref(), now)?, true),
        };
        insert_identity(&tx, account, profile, now)?;
        SignIn { account, created }
    };
    tx.commit()?;
    Ok(signed_in)
}

/// Links a provider's user to `account`, which a signed-in owner chose. The account takes the
/// address if the provider vouches for it and neither it nor anyone else has one confirmed.
pub(crate) fn link_identity(
    conn: &mut Connection,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    live_account(&tx, account)?;
    match identity_owner(&tx, profile)? {
        Some(owner) if owner != account => return Err(Error::IdentityTaken),
        Some(_) => refresh_login(&tx, profile)?,
        None => insert_identity(&tx, account, profile, now)?,
    }
    take_verified_address(&tx, account, profile)?;
    tx.commit()?;
    Ok(())
}

/// The account a provider's user signs in to, if it has one.
fn identity_owner(tx: &Transaction<'_>, profile: &Profile) -> Result<Option<AccountId>> {
    Ok(tx
        .query_row(
            "SELECT account_id FROM identities WHERE provider = ?1 AND subject = ?2",
            params![profile.provider.as_str(), profile.subject()],
            |row| row.get(0),
        )
        .optional()?
        .map(AccountId))
}

fn insert_identity(
    tx: &Transaction<'_>,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    tx.execute(
        "INSERT INTO identities (provider, subject, account_id, login, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![profile.provider.as_str(), profile.subject(), account.0, profile.login, now.0],
    )?;
    Ok(())
}

/// Keeps the login shown for a provider's user as the provider says it is now.
fn refresh_login(tx: &Transaction<'_>, profile: &Profile) -> Result<()> {
    tx.execute(
        "UPDATE identities SET login = ?3 WHERE provider = ?1 AND subject = ?2",
        params![profile.provider.as_str(), profile.subject(), profile.login],
    )?;
    Ok(())
}

/// Gives `account` the address the provider vouches for, when it has none and nobody holds it.
fn take_verified_address(tx: &Transaction<'_>, account: AccountId, profile: &Profile) -> Result<()> {
    if let Some(email) = profile.email.as_ref().filter(|_| profile.email_verified)
        && account_with_email(tx, email)?.is_none()
    {
        tx.execute(
            "UPDATE accounts SET email = ?2, pending_email = NULL WHERE id = ?1 AND email IS NULL",
            params![account.0, email.as_str()],
        )?;
    }
    Ok(())
}

/// The live account whose confirmed address is `email`.
fn account_with_email(tx: &Transaction<'_>, email: &Email) -> Result<Option<AccountId>> {
    Ok(tx
        .query_row(
            "SELECT id FROM accounts WHERE email = ?1 AND deleted_at IS NULL",
            [email.as_str()],
            |row| row.get(0),
        )
        .optional()?
        .map(AccountId))
}

fn create_account(
    tx: &Transaction<'_>,
    email: Option<&Email>,
    pending: Option<&Email>,
    now: Timestamp,
) -> Result<AccountId> {
    tx.execute(
        "INSERT INTO accounts (email, pending_email, created_at) VALUES (?1, ?2, ?3)",
        params![email.map(Email::as_str), pending.map(Email::as_str), now.0],
    )?;
    Ok(AccountId(tx.last_insert_rowid()))
}

/// Refuses an account that was deleted (or never existed).
pub(super) fn live_account(tx: &Connection, account: AccountId) -> Result<()> {
    let live: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM accounts WHERE id = ?1 AND deleted_at IS NULL)",
        [account.0],
        |row| row.get(0),
    )?;
    if live { Ok(()) } else { Err(Error::AccountGone) }
}
