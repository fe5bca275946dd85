//! Answers as they leave: HTML pages, redirects after a form, the two static files, and the cookies
//! each may set, all with the security headers every answer of the dashboard carries. A page that
//! went wrong is a [`Failure`]: a status, and words for the person who will read them.

use std::fmt::Display;

use askama::Template;
use bytes::Bytes;
use cookie::Cookie;
use http_body_util::Full;
use hyper::header::{
    ALLOW, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue,
    LOCATION, REFERRER_POLICY, SET_COOKIE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use hyper::{Response, StatusCode};

use crate::cookies::Jar;

/// Styles and scripts only from this origin (one stylesheet, one small script for the copy button),
/// nothing else loaded, forms sent only here, and no framing.
const CSP: HeaderValue = HeaderValue::from_static(
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'",
);
const CROSS_ORIGIN_OPENER_POLICY: HeaderName = HeaderName::from_static("cross-origin-opener-policy");
const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");
/// Pages hold form tokens, keys and account details: never kept by a browser or a proxy.
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");

#[derive(Debug)]
pub(crate) struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Reply {
    /// A page rendered from its template.
    pub(crate) fn page(status: StatusCode, page: &impl Template) -> Result<Self, Failure> {
        let html = page.render().map_err(Failure::internal)?;
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HTML);
        headers.insert(CACHE_CONTROL, NO_STORE);
        Ok(Self { status, headers, body: Bytes::from(html) })
    }

    /// A JSON answer, for the scripts of the site's pages (the reference's "try it" forms).
    pub(crate) fn json(status: StatusCode, value: &serde_json::Value) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CACHE_CONTROL, NO_STORE);
        // A tree of strings and numbers always encodes.
        Self { status, headers, body: Bytes::from(serde_json::to_vec(value).unwrap_or_default()) }
    }

    /// A short plain-text answer, for when no page can be made.
    pub(crate) fn text(status: StatusCode, text: &'static str) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
        headers.insert(CACHE_CONTROL, NO_STORE);
        Self { status, headers, body: Bytes::from_static(text.as_bytes()) }
    }

    /// `303 See Other` to `location`, a path of the dashboard: what every form answers.
    pub(crate) fn see_other(location: &str) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(LOCATION, HeaderValue::from_str(location).unwrap_or(HeaderValue::from_static("/")));
        headers.insert(CACHE_CONTROL, NO_STORE);
        Self { status: StatusCode::SEE_OTHER, headers, body: Bytes::new() }
    }

    /// `303 See Other` to a provider's page (an absolute URL).
    pub(crate) fn see_other_absolute(url: &str) -> Result<Self, Failure> {
        let location = HeaderValue::from_str(url).map_err(Failure::internal)?;
        let mut reply = Self::see_other("/");
        reply.headers.insert(LOCATION, location);
        Ok(reply)
    }

    /// A static file, which browsers may keep for an hour.
    pub(crate) fn asset(content_type: &'static str, body: &'static str) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
        Self { status: StatusCode::OK, headers, body: Bytes::from_static(body.as_bytes()) }
    }

    pub(crate) fn set_cookie(&mut self, cookie: &Cookie<'_>) {
        if let Ok(value) = HeaderValue::from_str(&cookie.to_string()) {
            self.headers.append(SET_COOKIE, value);
        }
    }

    pub(crate) fn set_header(&mut self, name: HeaderName, value: HeaderValue) {
        self.headers.insert(name, value);
    }

    /// The response, with the headers every answer of the dashboard carries.
    pub(crate) fn into_response(mut self) -> Response<Full<Bytes>> {
        let headers = &mut self.headers;
        headers.insert(CONTENT_SECURITY_POLICY, CSP);
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        // The sign-in confirmation page carries a token in its address: it must never leave as a referrer.
        headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(CROSS_ORIGIN_OPENER_POLICY, HeaderValue::from_static("same-origin"));
        let mut response = Response::new(Full::new(self.body));
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers;
        response
    }
}

/// A request the dashboard could not do as asked, said plainly.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: StatusCode,
    pub(crate) title: &'static str,
    pub(crate) message: String,
    /// Where to go from here: a path and its label.
    pub(crate) next: Option<(&'static str, &'static str)>,
    /// The methods a path takes, for a `405`.
    pub(crate) allow: Option<&'static str>,
    /// A cookie the failure ends (a provider sign-in in flight).
    pub(crate) clears: Option<Jar>,
    /// Seconds after which trying again may work, for a `503` (`Retry-After`).
    pub(crate) retry_after: Option<u64>,
}

impl Failure {
    pub(crate) fn new(status: StatusCode, title: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            title,
            message: message.into(),
            next: None,
            allow: None,
            clears: None,
            retry_after: None,
        }
    }

    pub(crate) fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub(crate) fn clearing(mut self, jar: Jar) -> Self {
        self.clears = Some(jar);
        self
    }

    pub(crate) fn next(mut self, path: &'static str, label: &'static str) -> Self {
        self.next = Some((path, label));
        self
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "That did not work", message)
    }

    pub(crate) fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "Not found", "There is no such page.")
            .next("/", "Go to the start page")
    }

    pub(crate) fn method_not_allowed(allow: &'static str) -> Self {
        let mut failure = Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "Not like that",
            format!("This page answers only {allow}."),
        );
        failure.allow = Some(allow);
        failure
    }

    /// Something broke inside: logged whole, shown as no more than that.
    pub(crate) fn internal(error: impl Display) -> Self {
        tracing::error!(target: "tapster::dashboard", error = %error, "a dashboard page failed");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong on our side",
            "The page could not be made. Nothing you did caused this; please try again in a moment.",
        )
    }
}

/// The accounts store's refusals, each with the status and words it deserves when no page handles
/// it more closely; a storage failure is internal. Every variant is named, so that a new one does not
/// compile until its status is chosen.
impl From<tapster_accounts::Error> for Failure {
    fn from(error: tapster_accounts::Error) -> Self {
        use tapster_accounts::Error as E;
        let status = match &error {
            E::NoSuchKey | E::NoSuchIdentity | E::NoSuchSession | E::NoSuchAccount(_) | E::NoSuchWebhook => {
                StatusCode::NOT_FOUND
            }
            E::AccountGone => {
                return Self::new(StatusCode::GONE, "This account is gone", "The account was deleted.")
                    .next("/signin", "Sign in");
            }
            E::Unconfirmed | E::AccountSuspended { .. } | E::TokenForAnotherAccount => StatusCode::FORBIDDEN,
            E::TooManyKeys { .. }
            | E::TooManyWebhooks { .. }
            | E::WebhookDisabled
            | E::AddressTaken(_)
            | E::LastSignIn
            | E::IdentityTaken => StatusCode::CONFLICT,
            E::TokenUnknown | E::TokenSpent | E::TokenExpired => StatusCode::BAD_REQUEST,
            E::BadKeySelector(_) | E::AmbiguousKeyPrefix | E::KeyRevoked { .. } | E::InvalidKeyName(_) => {
                StatusCode::BAD_REQUEST
            }
            E::InvalidWebhook(_) => StatusCode::UNPROCESSABLE_ENTITY,
            E::Postgres(_) | E::PostgresPool(_) if error.is_unreachable() => {
                return Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Accounts are out of reach",
                    "The accounts database cannot be reached just now. The API keeps answering; \
                     please try this page again in a minute.",
                )
                .retry_after(30);
            }
            E::Schema { .. }
            | E::BackupExists(_)
            | E::BackupElsewhere
            | E::BadUrl { .. }
            | E::Tls { .. }
            | E::NotShared
            | E::NoSuchGeneration(_)
            | E::BrokenGeneration { .. }
            | E::Corrupt(_)
            | E::Io { .. }
            | E::Sqlite(_)
            | E::Pool(_)
            | E::Postgres(_)
            | E::PostgresPool(_)
            | E::Task(_) => {
                return Self::internal(error);
            }
        };
        Self::new(status, "That did not work", capitalized(&error.to_string()))
    }
}

/// `text` as a sentence: a capital first letter and a full stop.
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    let mut sentence: String =
        chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    if !sentence.ends_with('.') {
        sentence.push('.');
    }
    sentence
}

/// `Allow` for a `405`.
pub(crate) fn allow_header(allow: &'static str) -> (HeaderName, HeaderValue) {
    (ALLOW, HeaderValue::from_static(allow))
}
