//! The routes: one `match` on method and path segments, and one small handler per page or form in
//! the modules below (parse the form, call the accounts store, render or redirect). The table of
//! routes is `docs/dashboard.md`'s and `../shared/api-contract.md`'s.

mod account;
mod keys;
mod providers;
mod signin;
mod try_it;

use hyper::{Method, StatusCode};
use tapster_accounts::Provider;
use tapster_domain::Limits;

use crate::ctx::{Ctx, Inner};
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::views::Landing;

const STYLE: &str = include_str!("../../static/style.css");
const COPY_SCRIPT: &str = include_str!("../../static/copy.js");
const TRY_SCRIPT: &str = include_str!("../../static/try.js");

pub(crate) async fn route(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let path = ctx.path.clone();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let read = matches!(ctx.method, Method::GET | Method::HEAD);
    let post = ctx.method == Method::POST;
    match segments.as_slice() {
        [""] if read => landing(inner, ctx),
        ["signin"] if read => signin::page(inner, ctx),
        ["signin"] if post => signin::send_link(inner, ctx),
        ["signin", "confirm"] if read => signin::confirm_page(inner, ctx).await,
        ["signin", "confirm"] if post => signin::confirm(inner, ctx).await,
        ["signout"] if post => signout(inner, ctx).await,
        ["auth", provider] if read => providers::start(inner, ctx, provider_named(provider)?),
        ["auth", provider, "callback"] if read => {
            providers::callback(inner, ctx, provider_named(provider)?).await
        }
        ["account"] if read => account::page(inner, ctx).await,
        ["account", "email"] if post => account::confirm_address(inner, ctx).await,
        ["account", "keys"] if post => keys::create(inner, ctx).await,
        ["account", "keys.json"] if read => try_it::keys(inner, ctx).await,
        ["account", "try"] if post => try_it::call(inner, ctx).await,
        ["account", "keys", id, "revoke"] if read => keys::revoke_page(inner, ctx, number(id)?).await,
        ["account", "keys", id, "revoke"] if post => keys::revoke(inner, ctx, number(id)?).await,
        ["account", "sessions", "others", "end"] if post => account::end_other_sessions(inner, ctx).await,
        ["account", "sessions", id, "end"] if post => account::end_session(inner, ctx, number(id)?).await,
        ["account", "sign-ins", id, "unlink"] if post => account::unlink(inner, ctx, number(id)?).await,
        ["account", "delete"] if read => account::delete_page(inner, ctx).await,
        ["account", "delete"] if post => account::delete(inner, ctx).await,
        // Known paths asked the wrong way.
        [""]
        | ["static", _]
        | ["signin", "confirm"]
        | ["auth", _]
        | ["auth", _, "callback"]
        | ["account"]
        | ["account", "keys.json"]
        | ["account", "delete"] => Err(Failure::method_not_allowed("GET, HEAD")),
        ["signin"] | ["account", "keys", _, "revoke"] => Err(Failure::method_not_allowed("GET, HEAD, POST")),
        ["signout"]
        | ["account", "email" | "keys" | "try"]
        | ["account", "sessions", _, "end"]
        | ["account", "sign-ins", _, "unlink"] => Err(Failure::method_not_allowed("POST")),
        _ => Err(Failure::not_found()),
    }
}

fn provider_named(name: &str) -> Result<Provider, Failure> {
    Provider::parse(name).ok_or_else(Failure::not_found)
}

/// A record's number in a path; anything else names no page.
fn number(segment: &str) -> Result<i64, Failure> {
    segment.parse().ok().filter(|n: &i64| *n > 0 && segment.len() <= 19).ok_or_else(Failure::not_found)
}

/// A static file, when `path` names one and `method` reads.
pub(crate) fn asset(method: &Method, path: &str) -> Option<Reply> {
    if !matches!(*method, Method::GET | Method::HEAD) {
        return None;
    }
    match path {
        "/static/style.css" => Some(Reply::asset("text/css; charset=utf-8", STYLE)),
        "/static/copy.js" => Some(Reply::asset("text/javascript; charset=utf-8", COPY_SCRIPT)),
        // The API reference's "try it" forms (`/docs`, served beside the dashboard).
        "/static/try.js" => Some(Reply::asset("text/javascript; charset=utf-8", TRY_SCRIPT)),
        _ => None,
    }
}

fn landing(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    Reply::page(
        StatusCode::OK,
        &Landing {
            nav: ctx.nav(),
            notice: ctx.notice.map(Notice::text),
            api_base: inner.config.public_url.origin().to_owned(),
            providers: inner.provider_links(),
            limits: Limits::DEFAULT,
        },
    )
}

async fn signout(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    ctx.form(inner)?;
    let mut reply = ctx.redirect(inner, "/", Notice::SignedOut);
    ctx.end_session(inner, &mut reply).await?;
    Ok(reply)
}
