//! Sign-in by e-mail: the form, the same "check your mail" page for every address (the mail is made
//! off the request path), and the one-time link, which a `GET` only shows (mail scanners follow
//! links) and a `POST` spends.

use hyper::StatusCode;
use tapster_accounts::{Error, TOKEN_LIFETIME_SECS};

use crate::ctx::{Ctx, Inner};
use crate::forms;
use crate::mail;
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::views::{Confirm, SignIn, SignInSent};

pub(super) fn page(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    if ctx.session.is_some() {
        return Ok(Reply::see_other("/account"));
    }
    let page =
        SignIn { nav: ctx.nav(), email: String::new(), error: None, providers: inner.provider_links() };
    Reply::page(StatusCode::OK, &page)
}

/// Queues a sign-in mail and answers the same page whatever becomes of it: past the calling
/// address's limit, or the address's own, no mail is sent, and the page does not say so.
pub(super) fn send_link(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let form = ctx.form(inner)?;
    let email = match forms::email(&form) {
        Ok(email) => email,
        Err(input) => {
            let page = SignIn {
                nav: ctx.nav(),
                email: input.typed,
                error: Some(input.error),
                providers: inner.provider_links(),
            };
            return Reply::page(StatusCode::UNPROCESSABLE_ENTITY, &page);
        }
    };
    inner.mail(ctx, mail::Request::Link { to: email.clone(), confirming: None });
    let page = SignInSent {
        nav: ctx.nav(),
        email: email.to_string(),
        outbox: inner.mails_to_outbox(),
        minutes: TOKEN_LIFETIME_SECS / 60,
    };
    Reply::page(StatusCode::OK, &page)
}

/// The link's page: what pressing its button will do, for which address. Reading it spends
/// nothing; a link that can no longer be used says so at once.
pub(super) async fn confirm_page(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let token = forms::token(ctx.query_value("token").as_deref())?;
    let Some(link) = inner.accounts.pending_link(token.hash(), ctx.now).await? else {
        return Err(link_failure(
            "It has been used already, it has expired (links work for 15 minutes), or it was never sent.",
        ));
    };
    let page = Confirm {
        nav: ctx.nav(),
        token: token.expose().to_owned(),
        email: link.email.to_string(),
        confirms: link.confirms,
    };
    Reply::page(StatusCode::OK, &page)
}

fn link_failure(message: &str) -> Failure {
    Failure::new(StatusCode::BAD_REQUEST, "This link cannot be used", message.to_owned())
        .next("/signin", "Ask for a new link")
}

/// Spends the link, then signs the browser in to the account it opens, with a new session.
pub(super) async fn confirm(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let form = ctx.form(inner)?;
    let token = forms::token(form.get("token"))?;
    let signed_in = ctx.session.map(|session| session.info.account);
    let outcome = match inner.accounts.spend_email_token(token.hash(), signed_in, ctx.now).await {
        Ok(outcome) => outcome,
        Err(Error::TokenUnknown) => {
            return Err(link_failure("It was never sent, or it was changed on the way."));
        }
        Err(Error::TokenSpent) => {
            return Err(link_failure("It has been used already: each link works once."));
        }
        Err(Error::TokenExpired) => {
            return Err(link_failure("It has expired: a link works for 15 minutes after it is sent."));
        }
        Err(Error::TokenForAnotherAccount) => {
            return Err(Failure::new(
                StatusCode::FORBIDDEN,
                "Open this link where you asked for it",
                "It confirms an address for an account that is not signed in in this browser. Open it in the \
                 browser where you are signed in to that account.",
            ));
        }
        Err(Error::AddressTaken(email)) => {
            return Err(Failure::new(
                StatusCode::CONFLICT,
                "That address has an account already",
                format!(
                    "{email} is confirmed for another account. Sign out and sign in with it to use that account, \
                     or confirm another address here."
                ),
            )
            .next("/account", "Back to your keys"));
        }
        Err(other) => return Err(other.into()),
    };
    let mut reply = match (outcome.created, signed_in == Some(outcome.account)) {
        (true, _) => ctx.redirect(inner, "/account", Notice::Welcome),
        (false, true) => ctx.redirect(inner, "/account", Notice::Confirmed),
        (false, false) => Reply::see_other("/account"),
    };
    ctx.start_session(inner, outcome.account, &mut reply).await?;
    Ok(reply)
}
