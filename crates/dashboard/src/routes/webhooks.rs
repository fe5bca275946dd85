//! Webhook endpoints: added with a URL, a description and the events they are told of, their
//! secret shown whole once (on the page that answers the form, or after a rotation on the page it
//! redirects to); listed with their last deliveries; sent a test event, rotated, disabled, enabled
//! and deleted.

use hyper::StatusCode;
use tapster_accounts::{Error, WebhookAttempt, WebhookEndpoint, WebhookEvent, WebhookKind};
use tapster_domain::Timestamp;
use tapster_webhooks::Secret;

use crate::chart::date;
use crate::cookies::Jar;
use crate::ctx::{Ctx, Inner, Session};
use crate::forms::{self, WebhookInput};
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::routes::account::minute;
use crate::views::{CreateWebhook, DeliveryRow, EndpointRow, Revealed, WebhookCreated, Webhooks};

/// Characters of a receiver's answer shown in the list of deliveries.
const ANSWER_SHOWN: usize = 200;

pub(super) async fn page(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let Some(session) = ctx.session else { return Ok(Reply::see_other("/signin")) };
    let revealing = inner.cookies.read(&ctx.headers, Jar::Reveal);
    let reveal = revealing.as_deref().and_then(|id| id.parse::<i64>().ok());
    let view = webhooks_view(inner, ctx, session, None, reveal).await?;
    let mut reply = Reply::page(StatusCode::OK, &view)?;
    if revealing.is_some() {
        // Shown once: the page is not cached, and the next one does not show it again.
        reply.set_cookie(&inner.cookies.clear(Jar::Reveal));
    }
    Ok(reply)
}

pub(super) async fn create(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    let form = ctx.form(inner)?;
    let new = match forms::new_webhook(&form, inner.config.webhooks_allow_private) {
        Ok(new) => new,
        Err(input) => {
            let view = webhooks_view(inner, ctx, session, Some(Edits::Typed(*input)), None).await?;
            return Reply::page(StatusCode::UNPROCESSABLE_ENTITY, &view);
        }
    };
    let secret = new_secret(inner)?;
    let stored = tapster_accounts::NewWebhook {
        url: new.url.as_str().to_owned(),
        description: new.description.clone(),
        kind: new.kind(),
        events: new.events.clone(),
        secret: secret.expose(),
    };
    match inner.accounts.create_webhook(session.info.account, &stored, ctx.now).await {
        Ok(endpoint) => Reply::page(
            StatusCode::OK,
            &WebhookCreated {
                nav: ctx.nav(),
                url: endpoint.url,
                description: endpoint.description,
                secret: endpoint.secret,
                discord: endpoint.kind == WebhookKind::Discord,
            },
        ),
        Err(
            refused @ (Error::TooManyWebhooks { .. } | Error::Unconfirmed | Error::AccountSuspended { .. }),
        ) => {
            let status = match refused {
                Error::TooManyWebhooks { .. } => StatusCode::CONFLICT,
                _ => StatusCode::FORBIDDEN,
            };
            let edits = Edits::Refused(refused_webhook(&refused)?);
            Reply::page(status, &webhooks_view(inner, ctx, session, Some(edits), None).await?)
        }
        Err(other) => Err(other.into()),
    }
}

pub(super) async fn test(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    let Some(outbox) = inner.outbox.get() else {
        return Err(Failure::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Webhooks are not sent here",
            "This server does not deliver webhooks, so it cannot send a test event.",
        ));
    };
    let endpoint = inner.accounts.webhook(session.info.account, id).await?;
    let bodies = outbox.test_bodies(&endpoint, ctx.now);
    let mut nonce = [0; 12];
    inner.env.fill_random(&mut nonce).map_err(Failure::internal)?;
    inner.accounts.queue_webhook_test(session.info.account, id, &bodies, nonce, ctx.now).await?;
    outbox.queued();
    Ok(ctx.redirect(inner, "/account/webhooks", Notice::WebhookTestQueued))
}

pub(super) async fn rotate(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    let secret = new_secret(inner)?;
    inner.accounts.rotate_webhook_secret(session.info.account, id, &secret.expose(), ctx.now).await?;
    let mut reply = ctx.redirect(inner, "/account/webhooks", Notice::WebhookSecretRotated);
    reply.set_cookie(&inner.cookies.set(Jar::Reveal, &id.to_string()));
    Ok(reply)
}

pub(super) async fn disable(inner: &Inner, ctx: &mut Ctx, id: i64, disabled: bool) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    inner.accounts.set_webhook_disabled(session.info.account, id, disabled, ctx.now).await?;
    let notice = if disabled { Notice::WebhookDisabled } else { Notice::WebhookEnabled };
    Ok(ctx.redirect(inner, "/account/webhooks", notice))
}

pub(super) async fn delete(inner: &Inner, ctx: &mut Ctx, id: i64) -> Result<Reply, Failure> {
    let session = ctx.signed_in()?;
    ctx.form(inner)?;
    inner.accounts.delete_webhook(session.info.account, id).await?;
    Ok(ctx.redirect(inner, "/account/webhooks", Notice::WebhookDeleted))
}

/// What a refused form left to show on the page.
enum Edits {
    /// The form as typed, with its messages.
    Typed(WebhookInput),
    /// Why the store refused a new endpoint.
    Refused(String),
}

/// The webhooks page as it is now: the endpoints with their deliveries, the form (with `edits`),
/// and the secret of the endpoint `reveal` names when it is one of the owner's.
async fn webhooks_view(
    inner: &Inner,
    ctx: &Ctx,
    session: Session,
    edits: Option<Edits>,
    reveal: Option<i64>,
) -> Result<Webhooks, Failure> {
    let account = session.info.account;
    let endpoints = inner.accounts.webhooks(account).await?;
    let mut rows = Vec::with_capacity(endpoints.len());
    for endpoint in &endpoints {
        let attempts = inner.accounts.webhook_attempts(account, endpoint.id).await?;
        rows.push(endpoint_row(endpoint, &attempts, ctx.now));
    }
    let revealed = reveal
        .and_then(|id| endpoints.iter().find(|endpoint| endpoint.id == id))
        .map(|endpoint| Revealed { url: endpoint.url.clone(), secret: endpoint.secret.clone() });
    let (input, refused) = match edits {
        Some(Edits::Typed(input)) => (input, None),
        Some(Edits::Refused(refused)) => (WebhookInput::default(), Some(refused)),
        None => (WebhookInput::default(), None),
    };
    let refused = match refused {
        Some(refused) => Some(refused),
        None => allowance(inner, session).await?,
    };
    Ok(Webhooks {
        nav: ctx.nav(),
        notice: ctx.notice.map(Notice::text),
        revealed,
        endpoints: rows,
        create: CreateWebhook {
            refused,
            input,
            events: WebhookEvent::SUBSCRIBED
                .iter()
                .map(|event| (event.as_str(), event_label(*event)))
                .collect(),
            kinds: forms::KINDS.to_vec(),
        },
    })
}

/// Why the owner cannot add an endpoint now, if they cannot, asked before the form is shown so that
/// it is not offered in vain.
async fn allowance(inner: &Inner, session: Session) -> Result<Option<String>, Failure> {
    match inner.accounts.webhook_allowance(session.info.account).await {
        Ok(()) => Ok(None),
        Err(
            refusal @ (Error::TooManyWebhooks { .. } | Error::Unconfirmed | Error::AccountSuspended { .. }),
        ) => refused_webhook(&refusal).map(Some),
        Err(other) => Err(other.into()),
    }
}

/// Why the account cannot add an endpoint, in the words of its page.
fn refused_webhook(refusal: &Error) -> Result<String, Failure> {
    Ok(match refusal {
        Error::AccountSuspended { .. } => "A suspended account cannot add webhook endpoints.".to_owned(),
        Error::Unconfirmed => {
            "Confirm an e-mail address on your account page before you add webhook endpoints.".to_owned()
        }
        Error::TooManyWebhooks { max } => {
            format!(
                "This account has {max} webhook endpoints, the most it may hold. Delete one to add another."
            )
        }
        other => return Err(Failure::internal(other)),
    })
}

fn endpoint_row(endpoint: &WebhookEndpoint, attempts: &[WebhookAttempt], now: Timestamp) -> EndpointRow {
    let state = match (&endpoint.disabled, endpoint.failing_since) {
        (Some((at, reason)), _) => format!("disabled on {}: {reason}", date(at.day())),
        (None, Some(since)) => format!("failing since {} UTC", minute(since)),
        (None, None) => "active".to_owned(),
    };
    EndpointRow {
        id: endpoint.id,
        url: endpoint.url.clone(),
        description: endpoint.description.clone(),
        kind: match endpoint.kind {
            WebhookKind::Standard => "Standard Webhooks, signed",
            WebhookKind::Discord => "Discord message",
        },
        events: endpoint.events.iter().map(|event| event_label(*event)).collect(),
        created: date(endpoint.created_at.day()),
        disabled: endpoint.disabled.is_some(),
        failing: endpoint.disabled.is_none() && endpoint.failing_since.is_some(),
        state,
        rotated_until: endpoint
            .previous_secret
            .as_ref()
            .filter(|(_, until)| *until > now)
            .map(|(_, until)| format!("{} UTC", minute(*until))),
        deliveries: attempts.iter().map(delivery_row).collect(),
    }
}

fn delivery_row(attempt: &WebhookAttempt) -> DeliveryRow {
    let report = &attempt.report;
    let mut answer: String = report.answer.chars().take(ANSWER_SHOWN).collect();
    if report.answer.chars().count() > ANSWER_SHOWN {
        answer.push('…');
    }
    DeliveryRow {
        at: minute(report.at),
        event: attempt.event.as_str(),
        message_id: attempt.message_id.clone(),
        attempt: attempt.attempt,
        status: report.status.map_or_else(|| "–".to_owned(), |status| status.to_string()),
        duration: format!("{} ms", report.duration_ms),
        delivered: report.delivered,
        answer,
        error: report.error.clone().unwrap_or_default(),
    }
}

/// An event as the page names it.
fn event_label(event: WebhookEvent) -> &'static str {
    match event {
        WebhookEvent::VersionPublished => "A game version is published",
        WebhookEvent::KeyExpiring => "One of your keys expires in 7 days",
        WebhookEvent::Test => "A test event",
    }
}

/// A new signing secret, from the environment's randomness.
fn new_secret(inner: &Inner) -> Result<Secret, Failure> {
    let mut random = [0; 32];
    inner.env.fill_random(&mut random).map_err(Failure::internal)?;
    Ok(Secret::generate(random))
}
