//! Sign-in through GitHub and Discord. The start draws a `state` and a PKCE verifier, keeps them in
//! a short-lived cookie of this browser's, and sends the browser to the provider; the callback
//! accepts only the `state` this browser was given, exchanges the code with the verifier, reads the
//! provider's user, and signs in (or, for a signed-in owner, links the sign-in to their account).
//! Every refusal is a page, and leaves no session and no half-made account behind.

use hyper::StatusCode;
use tapster_accounts::{Error, Provider, Token, TokenHash};

use crate::constant_time_eq;
use crate::cookies::Jar;
use crate::ctx::{Ctx, Inner};
use crate::env::Secrets;
use crate::notice::Notice;
use crate::oauth::ProviderFailure;
use crate::reply::{Failure, Reply};

/// The longest authorization code taken from a provider; theirs are a few dozen characters.
const MAX_CODE_LEN: usize = 512;

/// What the sign-in cookie holds while the browser is away at the provider.
#[derive(Debug, PartialEq, Eq)]
struct InFlight {
    provider: Provider,
    state: Token,
    verifier: Token,
    /// Started by a signed-in owner to link the sign-in to their account: the hash of that session,
    /// so that it is linked to no other (a cookie planted by someone else names no session of the
    /// victim's, and a session begun meanwhile is not the one that asked).
    link: Option<TokenHash>,
}

impl InFlight {
    fn encode(&self) -> String {
        let mode =
            self.link.map_or_else(|| "sign-in".to_owned(), |session| format!("link-{}", session.to_hex()));
        format!("{}:{}:{}:{mode}", self.provider.as_str(), self.state.expose(), self.verifier.expose())
    }

    fn decode(value: &str) -> Option<Self> {
        let mut parts = value.split(':');
        let in_flight = Self {
            provider: Provider::parse(parts.next()?)?,
            state: Token::parse(parts.next()?)?,
            verifier: Token::parse(parts.next()?)?,
            link: match parts.next()? {
                "sign-in" => None,
                mode => Some(TokenHash::from_hex(mode.strip_prefix("link-")?)?),
            },
        };
        parts.next().is_none().then_some(in_flight)
    }
}

pub(super) fn start(inner: &Inner, ctx: &Ctx, provider: Provider) -> Result<Reply, Failure> {
    let client = inner.provider(provider).ok_or_else(Failure::not_found)?;
    let state = inner.env.token().map_err(Failure::internal)?;
    let verifier = inner.env.token().map_err(Failure::internal)?;
    let in_flight = InFlight { provider, state, verifier, link: ctx.session.map(|session| session.hash) };
    let mut reply = Reply::see_other_absolute(&client.authorize_url(&in_flight.state, &in_flight.verifier))?;
    reply.set_cookie(&inner.cookies.set(Jar::OAuth, &in_flight.encode()));
    Ok(reply)
}

pub(super) async fn callback(inner: &Inner, ctx: &mut Ctx, provider: Provider) -> Result<Reply, Failure> {
    let client = inner.provider(provider).ok_or_else(Failure::not_found)?;
    let label = provider.label();
    let in_flight = inner.cookies.read(&ctx.headers, Jar::OAuth).as_deref().and_then(InFlight::decode);
    let state = ctx.query_value("state").unwrap_or_default();
    let in_flight = match in_flight {
        Some(in_flight)
            if in_flight.provider == provider
                && constant_time_eq(state.as_bytes(), in_flight.state.expose().as_bytes()) =>
        {
            in_flight
        }
        _ => {
            return Err(cleared(
                Failure::new(
                    StatusCode::BAD_REQUEST,
                    "This sign-in was not started here",
                    format!(
                        "The answer from {label} does not belong to a sign-in this browser started in the last 10 \
                         minutes (or cookies are off). Nothing was signed in; start again."
                    ),
                )
                .next("/signin", "Sign in"),
            ));
        }
    };
    if let Some(error) = ctx.query_value("error") {
        let (status, message) = if error == "access_denied" {
            (
                StatusCode::FORBIDDEN,
                format!("You did not allow Tapster to read your {label} account, so nothing was signed in."),
            )
        } else {
            (
                StatusCode::BAD_GATEWAY,
                format!("{label} stopped the sign-in ({}). Nothing was signed in.", printable(&error)),
            )
        };
        return Err(cleared(
            Failure::new(status, "Not signed in", message).next("/signin", "Sign in another way"),
        ));
    }
    let code = ctx.query_value("code").filter(|code| !code.is_empty() && code.len() <= MAX_CODE_LEN);
    let Some(code) = code else {
        return Err(cleared(
            Failure::bad_request(format!(
                "{label} sent the browser back without a usable code. Start again."
            ))
            .next("/signin", "Sign in"),
        ));
    };
    let profile = client.profile(&inner.http, &code, &in_flight.verifier).await.map_err(|failure| {
        let status = match failure {
            ProviderFailure::Refused { .. } => StatusCode::BAD_REQUEST,
            ProviderFailure::Unreachable { .. } | ProviderFailure::Garbage { .. } => StatusCode::BAD_GATEWAY,
        };
        tracing::warn!(target: "tapster::dashboard", error = %failure, "a provider sign-in failed");
        cleared(
            Failure::new(
                status,
                "Not signed in",
                format!(
                    "{}. Nothing was signed in; try again.",
                    crate::reply::capitalized(&failure.to_string()).trim_end_matches('.')
                ),
            )
            .next("/signin", "Sign in"),
        )
    })?;

    if let Some(asking) = in_flight.link {
        let session = ctx.session.filter(|session| session.hash == asking).ok_or_else(|| {
            cleared(
                Failure::new(
                    StatusCode::FORBIDDEN,
                    "Not linked",
                    format!(
                        "This link of a {label} account was started by a session that is not the one signed in \
                         here now. Nothing was linked; start again from your keys page."
                    ),
                )
                .next("/account", "Back to your keys"),
            )
        })?;
        return match inner.accounts.link_identity(session.info.account, &profile, ctx.now).await {
            Ok(()) => Ok(with_cleared(inner, ctx.redirect(inner, "/account", Notice::Linked))),
            Err(Error::IdentityTaken) => Err(cleared(
                Failure::new(
                    StatusCode::CONFLICT,
                    "Linked to another account",
                    format!("That {label} account signs in to another Tapster account, so it cannot be linked here."),
                )
                .next("/account", "Back to your keys"),
            )),
            Err(other) => Err(other.into()),
        };
    }
    let outcome = inner.accounts.sign_in_with(&profile, ctx.now).await?;
    let reply = if outcome.created {
        ctx.redirect(inner, "/account", Notice::Welcome)
    } else {
        Reply::see_other("/account")
    };
    let mut reply = with_cleared(inner, reply);
    ctx.start_session(inner, outcome.account, &mut reply).await?;
    Ok(reply)
}

/// A failure that also ends the sign-in in flight.
fn cleared(failure: Failure) -> Failure {
    failure.clearing(Jar::OAuth)
}

/// A reply that ends the sign-in in flight.
fn with_cleared(inner: &Inner, mut reply: Reply) -> Reply {
    reply.set_cookie(&inner.cookies.clear(Jar::OAuth));
    reply
}

/// A provider's error code as it may be shown: short, letters, digits and `_` only.
fn printable(code: &str) -> String {
    code.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_in_cookie_round_trips_and_refuses_anything_else() {
        let in_flight = InFlight {
            provider: Provider::Discord,
            state: Token::from_random([1; 32]),
            verifier: Token::from_random([2; 32]),
            link: Some(Token::from_random([3; 32]).hash()),
        };
        assert_eq!(InFlight::decode(&in_flight.encode()), Some(in_flight));
        let signing_in = InFlight {
            link: None,
            ..InFlight::decode(&format!("github:{}:{}:sign-in", "01".repeat(32), "02".repeat(32))).unwrap()
        };
        assert_eq!(InFlight::decode(&signing_in.encode()), Some(signing_in));
        let state = "01".repeat(32);
        for bad in [
            String::new(),
            format!("gitlab:{state}:{state}:link"),
            format!("github:{state}:{state}"),
            format!("github:{state}:{state}:link:extra"),
            format!("github:{state}:short:link"),
            format!("github:{state}:{state}:admin"),
            format!("github:{state}:{state}:link"),
            format!("github:{state}:{state}:link-{}", "0".repeat(63)),
        ] {
            assert_eq!(InFlight::decode(&bad), None, "{bad}");
        }
    }
}
