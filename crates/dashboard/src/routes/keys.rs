//! Keys: created with a name, an expiry and, for a browser key, the origins whose pages may use it,
//! and shown whole once, on a page of its own that no browser keeps; revoked after a confirmation
//! step.

use hyper::StatusCode;
use tapster_accounts::{Error, KeyStatus};
use tapster_domain::Timestamp;

use crate::chart::date;
use crate::ctx::{Ctx, Inner};
use crate::env::Secrets;
use crate::forms;
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::routes::account::{Edits, account_view, key_row, origin_list, refused_key};
use crate::views::{KeyCreated, Revoke};

pub(super) async fn create(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    let form = ctx.form(inner)?;
    let new = match forms::new_key(&form) {
        Ok(new) => new,
        Err(input) => {
            let view = account_view(inner, ctx, session, Edits { new_key: Some(*input), ..Edits::default() })
                .await?;
            return Reply::page(StatusCode::UNPROCESSABLE_ENTITY, &view);
        }
    };
    let key = inner.env.api_key().map_err(Failure::internal)?;
    let expires_at = new.days.map(|days| Timestamp(ctx.now.0 + i64::from(days) * 86_400));
    let created = inner.accounts.create_key(
        session.info.account,
        &new.name,
        expires_at,
        new.origins.as_ref(),
        &key,
        ctx.now,
    );
    let refused = match created.await {
        Ok(record) => {
            let page = KeyCreated {
                nav: ctx.nav(),
                key: key.expose().to_owned(),
                expires: record.expires_at.map(|at| date(at.day())),
                api_base: inner.config.public_url.origin().to_owned(),
                origins: origin_list(record.origins.as_ref()),
                name: record.name,
            };
            return Reply::page(StatusCode::OK, &page);
        }
        Err(error @ (Error::TooManyKeys { .. } | Error::Unconfirmed | Error::AccountSuspended { .. })) => {
            error
        }
        Err(other) => return Err(other.into()),
    };
    let status = if matches!(refused, Error::TooManyKeys { .. }) {
        StatusCode::CONFLICT
    } else {
        StatusCode::FORBIDDEN
    };
    let edits = Edits { refused: Some(refused_key(&refused)?), ..Edits::default() };
    Reply::page(status, &account_view(inner, ctx, session, edits).await?)
}

pub(super) async fn revoke_page(inner: &Inner, ctx: &Ctx, id: i64) -> Result<Reply, Failure> {
    let Some(session) = ctx.session else { return Ok(Reply::see_other("/signin")) };
    let key = inner.accounts.key(session.info.account, id).await?;
    if key.status(ctx.now) == KeyStatus::Revoked {
        return Ok(Reply::see_other("/account"));
    }
    let today = ctx.now.day();
    let usage = inner.accounts.usage(session.info.account, today, today).await?;
    let used = usage.iter().filter(|u| u.key_id == id).map(|u| (u.day, u.requests));
    Reply::page(StatusCode::OK, &Revoke { nav: ctx.nav(), key: key_row(&key, ctx.now, used) })
}

pub(super) async fn revoke(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    inner.accounts.revoke_key(session.info.account, id, ctx.now).await?;
    Ok(ctx.redirect(inner, "/account", Notice::Revoked))
}
