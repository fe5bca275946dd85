//! The dashboard's cookies, all `HttpOnly`, `SameSite=Lax` and `Path=/`, and on an `https`
//! public URL `Secure` with the `__Host-` prefix (so that no other host can set them):
//! - the session: a random id whose hash the accounts store keeps, for 30 days, or less when the
//!   session ends sooner (90 days after it began);
//! - the form token: a random value every form repeats in its `csrf` field, for the browser session,
//!   and a new one at every sign-in and sign-out;
//! - the sign-in in flight: the OAuth `state` and PKCE verifier of a provider sign-in, for 10 minutes;
//! - the notice: what the form that redirected here did, read once, for a minute;
//! - the secret to reveal: which webhook endpoint's new secret the page a rotation redirected to
//!   shows, once, for a minute (its number: the secret itself never travels in a cookie).

use cookie::time::Duration;
use cookie::{Cookie, SameSite};
use hyper::HeaderMap;
use hyper::header::COOKIE;

use tapster_accounts::SESSION_IDLE_SECS;

/// How long a provider sign-in may take, from leaving for the provider to coming back.
pub(crate) const OAUTH_SECS: i64 = 10 * 60;
/// How long a notice waits for the page it is for.
const NOTICE_SECS: i64 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Jar {
    Session,
    Csrf,
    OAuth,
    Notice,
    Reveal,
}

impl Jar {
    fn base_name(self) -> &'static str {
        match self {
            Self::Session => "tapster_session",
            Self::Csrf => "tapster_csrf",
            Self::OAuth => "tapster_oauth",
            Self::Notice => "tapster_notice",
            Self::Reveal => "tapster_reveal",
        }
    }
}

/// The names and flags of the cookies, which depend on whether the dashboard is served over `https`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cookies {
    secure: bool,
}

impl Cookies {
    pub(crate) fn new(secure: bool) -> Self {
        Self { secure }
    }

    pub(crate) fn name(self, jar: Jar) -> String {
        if self.secure { format!("__Host-{}", jar.base_name()) } else { jar.base_name().to_owned() }
    }

    /// The value of `jar`'s cookie in a request, if it sent exactly one.
    pub(crate) fn read(self, headers: &HeaderMap, jar: Jar) -> Option<String> {
        let name = self.name(jar);
        let mut found = headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(Cookie::split_parse)
            .filter_map(Result::ok)
            .filter(|cookie| cookie.name() == name)
            .map(|cookie| cookie.value().to_owned());
        let first = found.next();
        // Two cookies of one name: one was planted (by another host or path); trust neither.
        if found.next().is_some() { None } else { first }
    }

    /// A cookie setting `jar` to `value`.
    pub(crate) fn set(self, jar: Jar, value: &str) -> Cookie<'static> {
        let mut cookie = Cookie::build((self.name(jar), value.to_owned()))
            .http_only(true)
            .same_site(SameSite::Lax)
            .path("/")
            .secure(self.secure);
        match jar {
            Jar::Session => cookie = cookie.max_age(Duration::seconds(SESSION_IDLE_SECS)),
            Jar::OAuth => cookie = cookie.max_age(Duration::seconds(OAUTH_SECS)),
            Jar::Notice | Jar::Reveal => cookie = cookie.max_age(Duration::seconds(NOTICE_SECS)),
            // Lives as long as the browser session: a new one comes with the next page.
            Jar::Csrf => {}
        }
        cookie.build()
    }

    /// A cookie holding the session `value` for `secs` (what is left of it, at most its idle time).
    pub(crate) fn session(self, value: &str, secs: i64) -> Cookie<'static> {
        let mut cookie = self.set(Jar::Session, value);
        cookie.set_max_age(Duration::seconds(secs));
        cookie
    }

    /// A cookie removing `jar`'s.
    pub(crate) fn clear(self, jar: Jar) -> Cookie<'static> {
        let mut cookie = self.set(jar, "");
        cookie.set_max_age(Duration::ZERO);
        cookie
    }
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    #[test]
    fn names_and_flags_follow_the_scheme() {
        let plain = Cookies::new(false).set(Jar::Session, "abc").to_string();
        assert_eq!(plain, "tapster_session=abc; HttpOnly; SameSite=Lax; Path=/; Max-Age=2592000");
        let secure = Cookies::new(true).set(Jar::Csrf, "abc").to_string();
        assert_eq!(secure, "__Host-tapster_csrf=abc; HttpOnly; SameSite=Lax; Secure; Path=/");
        assert!(Cookies::new(false).clear(Jar::OAuth).to_string().contains("Max-Age=0"));
        let ending = Cookies::new(false).session("abc", 600).to_string();
        assert_eq!(ending, "tapster_session=abc; HttpOnly; SameSite=Lax; Path=/; Max-Age=600");
    }

    #[test]
    fn a_cookie_is_read_only_when_sent_once() {
        let cookies = Cookies::new(false);
        let mut headers = HeaderMap::new();
        headers.append(COOKIE, HeaderValue::from_static("theme=dark; tapster_session=one"));
        assert_eq!(cookies.read(&headers, Jar::Session).as_deref(), Some("one"));
        assert_eq!(cookies.read(&headers, Jar::Csrf), None);
        headers.append(COOKIE, HeaderValue::from_static("tapster_session=two"));
        assert_eq!(cookies.read(&headers, Jar::Session), None);
        // The plain name does not count on an https dashboard.
        assert_eq!(Cookies::new(true).read(&headers, Jar::Session), None);
    }
}
