//! The reference page's "try it" forms (`/docs`, whose script is `static/try.js`): the signed-in
//! person's usable keys, and one `/v1` request answered as the key they chose, through the server's
//! [`Console`](crate::Console). Both answer JSON to the page's script; the call is a form `POST` like
//! every other, so it must come from the site's own page with this browser's form token.

use hyper::StatusCode;
use serde_json::json;
use tapster_accounts::KeyStatus;

use crate::ctx::{Ctx, Inner};
use crate::reply::{Failure, Reply};

/// The longest request target a form may ask for (the API refuses longer ones anyway).
const MAX_TARGET: usize = 2048;

/// `GET /account/keys.json`: whether the browser is signed in and, when it is, its form token and
/// the keys that can be used now (id, name, public prefix).
pub(super) async fn keys(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let Some(session) = ctx.session else {
        return Ok(Reply::json(StatusCode::OK, &json!({ "signed_in": false })));
    };
    let keys: Vec<_> = inner
        .accounts
        .keys(session.info.account, ctx.now)
        .await?
        .into_iter()
        .filter(|key| key.status(ctx.now) == KeyStatus::Active)
        .map(|key| json!({ "id": key.id, "name": key.name, "prefix": key.prefix }))
        .collect();
    Ok(Reply::json(StatusCode::OK, &json!({ "signed_in": true, "csrf": ctx.csrf, "keys": keys })))
}

/// `POST /account/try` (form `csrf`, `key`: a key's id, `target`: a path and query under `/v1/`):
/// the API's answer to `GET target` as that key, which must be one of the signed-in person's usable
/// keys; `{status, content_type, rate_limit, body}`.
pub(super) async fn call(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let form = ctx.form(inner)?;
    let session = ctx.signed_in()?;
    let refuse = |message: &str| Ok(Reply::json(StatusCode::BAD_REQUEST, &json!({ "error": message })));
    let Some(key) = form.get("key").and_then(|id| id.parse::<i64>().ok()) else {
        return refuse("choose one of your keys");
    };
    let target = form.get("target").unwrap_or_default();
    if !target.starts_with("/v1/") || target.len() > MAX_TARGET || target.chars().any(char::is_control) {
        return refuse("the request must be a path under /v1/, at most 2048 characters");
    }
    let usable = inner
        .accounts
        .keys(session.info.account, ctx.now)
        .await?
        .iter()
        .any(|record| record.id == key && record.status(ctx.now) == KeyStatus::Active);
    if !usable {
        return refuse("that is not one of your usable keys");
    }
    let Some(console) = inner.console.get() else {
        return Ok(Reply::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({ "error": "trying the API from this page is not available on this server" }),
        ));
    };
    let answer = console.call(key, target.to_owned(), ctx.peer).await;
    Ok(Reply::json(
        StatusCode::OK,
        &json!({
            "status": answer.status,
            "content_type": answer.content_type,
            "rate_limit": answer.rate_limit,
            "body": answer.body,
        }),
    ))
}
