//! Signing in: one-time links mailed to an address (and spent once), and sign-ins through a
//! provider. What each reads is what the rules of `model::rules` ask for, and what it writes is what
//! they answer; every one is an immediate transaction, so that nothing is written between the two.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use tapster_domain::{Email, Timestamp};

use super::account::{account_with_email, standing};
use crate::error::Result;
use crate::model::rules::{self, LinkLanding, LinkPurpose, ProviderSignIn, StoredLink};
use crate::model::{AccountId, Issued, PendingLink, Profile, SignIn};
use crate::token::TokenHash;

/// Stores a link for `email`, unless [`rules::link_issue`] says otherwise. With `account`, spending
/// the link confirms the address for that account rather than signing in to the address's own.
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
        params![email.as_str(), rules::mail_window_start(now)],
        |row| row.get(0),
    )?;
    let purpose = match account {
        Some(account) => LinkPurpose::Confirm(standing(&tx, account)?),
        None => LinkPurpose::SignIn,
    };
    if rules::link_issue(usize::try_from(recent).unwrap_or(usize::MAX), purpose)? == Issued::Throttled {
        return Ok(Issued::Throttled);
    }
    tx.execute(
        "INSERT INTO email_tokens (sha256, email, account_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token.0.as_slice(), email.as_str(), account.map(|a| a.0), now.0, rules::link_expires_at(now)],
    )?;
    tx.commit()?;
    Ok(Issued::Issued)
}

/// Spends a link ([`StoredLink::spendable`] in a browser signed in as `signed_in`) and signs in where
/// [`rules::link_landing`] says, confirming the address there. All or nothing: a refusal leaves the
/// link unspent and nothing changed.
pub(crate) fn spend_email_token(
    conn: &mut Connection,
    token: TokenHash,
    signed_in: Option<AccountId>,
    now: Timestamp,
) -> Result<SignIn> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let link = StoredLink::known(stored_link(&tx, token)?)?;
    let email = link.spendable(signed_in, now)?;
    let asking = match link.account {
        Some(account) => Some((account, standing(&tx, account)?)),
        None => None,
    };
    let signed_in = match rules::link_landing(&email, asking, account_with_email(&tx, &email)?)? {
        LinkLanding::Asking { account, take_address } => {
            if take_address {
                confirm_address(&tx, account, &email)?;
            }
            SignIn { account, created: false }
        }
        LinkLanding::Holder(account) => SignIn { account, created: false },
        LinkLanding::NewAccount => {
            SignIn { account: create_account(&tx, Some(&email), None, now)?, created: true }
        }
    };
    tx.execute(
        "UPDATE email_tokens SET spent_at = ?2 WHERE sha256 = ?1",
        params![token.0.as_slice(), now.0],
    )?;
    tx.commit()?;
    Ok(signed_in)
}

/// What a link is for while it can be spent ([`StoredLink::pending`]); `None` for any other.
pub(crate) fn pending_link(
    conn: &mut Connection,
    token: TokenHash,
    now: Timestamp,
) -> Result<Option<PendingLink>> {
    Ok(stored_link(conn, token)?.and_then(|link| link.pending(now)))
}

/// A link as stored, by the hash of its token.
fn stored_link(conn: &Connection, token: TokenHash) -> Result<Option<StoredLink>> {
    Ok(conn
        .query_row(
            "SELECT email, account_id, expires_at, spent_at FROM email_tokens WHERE sha256 = ?1",
            [token.0.as_slice()],
            |row| {
                Ok(StoredLink {
                    email: row.get(0)?,
                    account: row.get::<_, Option<i64>>(1)?.map(AccountId),
                    expires_at: row.get(2)?,
                    spent_at: row.get(3)?,
                })
            },
        )
        .optional()?)
}

/// Signs in with a provider's profile where [`rules::provider_sign_in`] says, and writes what it
/// names.
pub(crate) fn sign_in_with(conn: &mut Connection, profile: &Profile, now: Timestamp) -> Result<SignIn> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let linked = match identity_owner(&tx, profile)? {
        Some(account) => Some((account, standing(&tx, account)?)),
        None => None,
    };
    let signed_in = match rules::provider_sign_in(profile, linked, vouched_holder(&tx, profile)?)? {
        ProviderSignIn::Linked { account, address } => {
            refresh_login(&tx, profile)?;
            if let Some(email) = address {
                confirm_address(&tx, account, email)?;
            }
            SignIn { account, created: false }
        }
        ProviderSignIn::Holder(account) => {
            insert_identity(&tx, account, profile, now)?;
            SignIn { account, created: false }
        }
        ProviderSignIn::NewAccount { email, pending } => {
            let account = create_account(&tx, email, pending, now)?;
            insert_identity(&tx, account, profile, now)?;
            SignIn { account, created: true }
        }
    };
    tx.commit()?;
    Ok(signed_in)
}

/// Links a provider's user to `account`, which a signed-in owner chose, when
/// [`rules::link_provider`] allows it, and writes what it names.
pub(crate) fn link_identity(
    conn: &mut Connection,
    account: AccountId,
    profile: &Profile,
    now: Timestamp,
) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (standing, linked) = (standing(&tx, account)?, identity_owner(&tx, profile)?);
    let link = rules::link_provider(profile, account, standing, linked, vouched_holder(&tx, profile)?)?;
    if link.known {
        refresh_login(&tx, profile)?;
    } else {
        insert_identity(&tx, account, profile, now)?;
    }
    if let Some(email) = link.address {
        confirm_address(&tx, account, email)?;
    }
    tx.commit()?;
    Ok(())
}

/// The account a provider's user signs in to, if it has one.
fn identity_owner(conn: &Connection, profile: &Profile) -> Result<Option<AccountId>> {
    Ok(conn
        .query_row(
            "SELECT account_id FROM identities WHERE provider = ?1 AND subject = ?2",
            params![profile.provider.as_str(), profile.subject()],
            |row| row.get(0),
        )
        .optional()?
        .map(AccountId))
}

fn insert_identity(conn: &Connection, account: AccountId, profile: &Profile, now: Timestamp) -> Result<()> {
    conn.execute(
        "INSERT INTO identities (provider, subject, account_id, login, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![profile.provider.as_str(), profile.subject(), account.0, profile.login, now.0],
    )?;
    Ok(())
}

/// Keeps the login shown for a provider's user as the provider says it is now.
fn refresh_login(conn: &Connection, profile: &Profile) -> Result<()> {
    conn.execute(
        "UPDATE identities SET login = ?3 WHERE provider = ?1 AND subject = ?2",
        params![profile.provider.as_str(), profile.subject(), profile.login],
    )?;
    Ok(())
}

/// Makes `email` the confirmed address of `account`, which a rule found without one.
fn confirm_address(conn: &Connection, account: AccountId, email: &Email) -> Result<()> {
    conn.execute(
        "UPDATE accounts SET email = ?2, pending_email = NULL WHERE id = ?1",
        params![account.0, email.as_str()],
    )?;
    Ok(())
}

/// The live account that holds the address the provider vouches for ([`rules::vouched`]).
fn vouched_holder(conn: &Connection, profile: &Profile) -> Result<Option<AccountId>> {
    rules::vouched(profile).map_or(Ok(None), |email| account_with_email(conn, email))
}

fn create_account(
    conn: &Connection,
    email: Option<&Email>,
    pending: Option<&Email>,
    now: Timestamp,
) -> Result<AccountId> {
    conn.execute(
        "INSERT INTO accounts (email, pending_email, created_at) VALUES (?1, ?2, ?3)",
        params![email.map(Email::as_str), pending.map(Email::as_str), now.0],
    )?;
    Ok(AccountId(conn.last_insert_rowid()))
}
