//! The account page, and its forms other than keys: confirming an address, ending sessions,
//! unlinking a sign-in, deleting the account.

use hyper::StatusCode;
use tapster_accounts::{Account, KeyRecord, KeyStatus, Provider, SessionRecord};
use tapster_domain::{Origins, Timestamp};

use crate::chart::{self, chart, date, thousands};
use crate::ctx::{Ctx, Inner, Session};
use crate::forms::{self, EXPIRIES, NewKeyInput};
use crate::mail;
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::views::{self, ConfirmAddress, CreateKey, Delete, IdentityRow, KeyRow, ProviderLink, SessionRow};

pub(super) async fn page(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let Some(session) = ctx.session else { return Ok(Reply::see_other("/signin")) };
    let view = account_view(inner, ctx, session, Edits::default()).await?;
    Reply::page(StatusCode::OK, &view)
}

/// What a refused form typed, shown again on the account page beside its messages.
#[derive(Debug, Default)]
pub(super) struct Edits {
    pub(super) new_key: Option<NewKeyInput>,
    pub(super) confirm: Option<ConfirmAddress>,
    /// Why the new key was refused, when the store refused it.
    pub(super) refused: Option<String>,
}

/// The account page as it is now, with `edits` in place of empty forms.
pub(super) async fn account_view(
    inner: &Inner,
    ctx: &Ctx,
    session: Session,
    edits: Edits,
) -> Result<views::Account, Failure> {
    let id = session.info.account;
    let account = inner.accounts.account(id).await?;
    let keys = inner.accounts.keys(id, ctx.now).await?;
    let today = ctx.now.day();
    let usage = inner.accounts.usage(id, today - chart::DAYS + 1, today).await?;
    let sessions = inner.accounts.sessions(id, ctx.now).await?;

    let rows: Vec<KeyRow> = keys
        .iter()
        .map(|key| {
            let used = usage.iter().filter(|u| u.key_id == key.id).map(|u| (u.day, u.requests));
            key_row(key, ctx.now, used)
        })
        .collect();
    let refused = match edits.refused {
        Some(refused) => Some(refused),
        None => inner
            .accounts
            .key_allowance(id, ctx.now)
            .await
            .err()
            .map(|refusal| refused_key(&refusal))
            .transpose()?,
    };
    let confirm = (!account.confirmed()).then(|| {
        edits.confirm.unwrap_or_else(|| ConfirmAddress {
            email: account.pending_email.as_ref().map(ToString::to_string).unwrap_or_default(),
            error: None,
        })
    });
    let linked: Vec<Provider> = account.identities.iter().map(|identity| identity.provider).collect();
    let removable = account.confirmed() || account.identities.len() > 1;
    Ok(views::Account {
        nav: ctx.nav(),
        who: who(&account),
        notice: ctx.notice.map(Notice::text),
        suspended: account.suspension.as_ref().map(|suspension| suspension.reason.clone()),
        confirm,
        keys: rows,
        create: CreateKey { refused, input: edits.new_key.unwrap_or_default(), expiries: EXPIRIES.to_vec() },
        email: account.email.as_ref().map(ToString::to_string),
        identities: account
            .identities
            .iter()
            .map(|identity| IdentityRow {
                id: identity.id,
                provider: identity.provider.label(),
                login: identity.login.clone(),
                linked: date(identity.created_at.day()),
                removable,
            })
            .collect(),
        link: inner
            .provider_links()
            .into_iter()
            .filter(|link: &ProviderLink| !linked.iter().any(|provider| provider.as_str() == link.slug))
            .collect(),
        sessions: sessions.iter().map(|record| session_row(record, session.info.id)).collect(),
        api_base: inner.config.public_url.origin().to_owned(),
    })
}

/// Why the account cannot make a key, in the words of its page; a storage failure is internal.
pub(super) fn refused_key(refusal: &tapster_accounts::Error) -> Result<String, Failure> {
    use tapster_accounts::Error as E;
    Ok(match refusal {
        E::AccountSuspended { .. } => "A suspended account cannot create keys.".to_owned(),
        E::Unconfirmed => "Confirm an e-mail address (above) before you create keys.".to_owned(),
        E::TooManyKeys { max } => format!(
            "This account has {max} keys that are neither revoked nor expired, the most it may hold. \
             Revoke one to create another."
        ),
        other => return Err(Failure::internal(other)),
    })
}

/// How the account is named to its owner: its address, else its first linked sign-in.
fn who(account: &Account) -> String {
    match (&account.email, account.identities.first()) {
        (Some(email), _) => email.to_string(),
        (None, Some(identity)) => format!("{} user {}", identity.provider.label(), identity.login),
        (None, None) => format!("account {}", account.id),
    }
}

pub(super) fn key_row(key: &KeyRecord, now: Timestamp, usage: impl Iterator<Item = (i64, u32)>) -> KeyRow {
    let usage: Vec<(i64, u32)> = usage.collect();
    let today: u64 = usage.iter().filter(|(day, _)| *day == now.day()).map(|(_, n)| u64::from(*n)).sum();
    let status = key.status(now);
    KeyRow {
        id: key.id,
        name: key.name.clone(),
        prefix: key.prefix.clone(),
        created: date(key.created_at.day()),
        last_used: key.last_used_at.map_or_else(|| "never".to_owned(), minute),
        expires: key.expires_at.map_or_else(|| "never".to_owned(), |at| date(at.day())),
        status: status.as_str(),
        origins: origin_list(key.origins.as_ref()),
        revocable: status != KeyStatus::Revoked,
        today: thousands(today),
        chart: chart(now.day(), usage),
    }
}

/// A browser key's origins as the pages list them; none for a key for servers.
pub(super) fn origin_list(origins: Option<&Origins>) -> Vec<String> {
    origins.map(|origins| origins.iter().map(ToString::to_string).collect()).unwrap_or_default()
}

/// A moment in UTC as `2026-11-22 14:05` (the tables say the zone in their heading).
pub(super) fn minute(at: Timestamp) -> String {
    let text = at.to_string();
    format!("{} {}", &text[..10], &text[11..16])
}

fn session_row(record: &SessionRecord, current: i64) -> SessionRow {
    SessionRow {
        id: record.id,
        browser: browser(&record.user_agent),
        created: date(record.created_at.day()),
        last_seen: minute(record.last_seen_at),
        current: record.id == current,
    }
}

/// A `User-Agent` as a person names it: "Firefox on Linux".
fn browser(user_agent: &str) -> String {
    let name = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
        ("curl/", "curl"),
    ]
    .into_iter()
    .find(|(token, _)| user_agent.contains(token))
    .map(|(_, name)| name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(token, _)| user_agent.contains(token))
    .map(|(_, system)| system);
    match (name, system) {
        (Some(name), Some(system)) => format!("{name} on {system}"),
        (Some(name), None) => name.to_owned(),
        (None, _) if user_agent.trim().is_empty() => "An unknown browser".to_owned(),
        (None, _) => user_agent.chars().take(40).collect(),
    }
}

/// Mails a link that confirms an address for this account.
pub(super) async fn confirm_address(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    let form = ctx.form(inner)?;
    let email = match forms::email(&form) {
        Ok(email) => email,
        Err(input) => {
            let edits = Edits {
                confirm: Some(ConfirmAddress { email: input.typed, error: Some(input.error) }),
                ..Edits::default()
            };
            let view = account_view(inner, ctx, session, edits).await?;
            return Reply::page(StatusCode::UNPROCESSABLE_ENTITY, &view);
        }
    };
    if inner.accounts.account(session.info.account).await?.confirmed() {
        return Ok(Reply::see_other("/account"));
    }
    inner.mail(ctx, mail::Request::Link { to: email, confirming: Some(session.info.account) });
    Ok(ctx.redirect(inner, "/account", Notice::ConfirmationSent))
}

pub(super) async fn end_other_sessions(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    inner.accounts.end_other_sessions(session.info.account, session.info.id).await?;
    Ok(ctx.redirect(inner, "/account", Notice::SignedOutElsewhere))
}

pub(super) async fn end_session(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    if id == session.info.id {
        let mut reply = ctx.redirect(inner, "/", Notice::SignedOut);
        ctx.end_session(inner, &mut reply).await?;
        return Ok(reply);
    }
    inner.accounts.end_session_by_id(session.info.account, id).await?;
    Ok(ctx.redirect(inner, "/account", Notice::SessionEnded))
}

pub(super) async fn unlink(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    match inner.accounts.unlink_identity(session.info.account, id).await {
        Ok(()) => Ok(ctx.redirect(inner, "/account", Notice::Unlinked)),
        Err(tapster_accounts::Error::LastSignIn) => Err(Failure::new(
            StatusCode::CONFLICT,
            "That is your only way in",
            "Confirm an e-mail address or link another sign-in first, so that you can still sign in afterwards.",
        )
        .next("/account", "Back to your keys")),
        Err(other) => Err(other.into()),
    }
}

pub(super) async fn delete_page(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let Some(session) = ctx.session else { return Ok(Reply::see_other("/signin")) };
    let account = inner.accounts.account(session.info.account).await?;
    let keys = inner.accounts.keys(account.id, ctx.now).await?;
    let active_keys = keys.iter().filter(|key| key.status(ctx.now) != KeyStatus::Revoked).count();
    Reply::page(StatusCode::OK, &Delete { nav: ctx.nav(), who: who(&account), active_keys })
}

pub(super) async fn delete(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    inner.accounts.delete_account(session.info.account, ctx.now).await?;
    let mut reply = ctx.redirect(inner, "/", Notice::Deleted);
    ctx.end_session(inner, &mut reply).await?;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_are_named_as_people_name_them() {
        let cases = [
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            ("curl/8.5.0", "curl"),
            ("", "An unknown browser"),
        ];
        for (user_agent, name) in cases {
            assert_eq!(browser(user_agent), name, "{user_agent}");
        }
    }
}
