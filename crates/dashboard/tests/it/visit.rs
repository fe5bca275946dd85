//! Who a browser is, for the header of a page the dashboard does not serve (the API's `/docs` and
//! `/changelog`): the same header its own pages show, and the cookies that header's form needs and
//! that keep the session as its own pages do, but nothing for a visitor without a session cookie.

use std::sync::atomic::Ordering;

use hyper::header::{COOKIE, HeaderMap, HeaderValue};
use tapster_test_support::LogBuffer;

use crate::{Browser, site};

/// The request headers `browser` would send with its cookies.
fn headers(browser: &Browser<'_>, leave_out: &[&str]) -> HeaderMap {
    let cookies: Vec<String> = browser
        .cookies
        .iter()
        .filter(|(name, _)| !leave_out.contains(&name.as_str()))
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let mut headers = HeaderMap::new();
    if !cookies.is_empty() {
        headers.insert(COOKIE, HeaderValue::from_str(&cookies.join("; ")).unwrap());
    }
    headers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visit_is_told_the_header_the_dashboard_would_show() {
    let site = site().await;
    let peer = "198.51.100.7".parse().unwrap();
    let mut browser = site.browser();

    assert!(!site.dashboard.sends_session(&HeaderMap::new()));
    let nobody = site.dashboard.visit(HeaderMap::new(), "/docs", peer).await;
    assert!(!nobody.nav.signed_in);
    assert_eq!(nobody.nav.current, "/docs");
    assert!(nobody.set_cookie.is_empty(), "a signed-out visitor is set a cookie: {:?}", nobody.set_cookie);

    browser.sign_in("marta@example.org", 1).await;
    assert!(site.dashboard.sends_session(&headers(&browser, &["tapster_csrf"])));
    let signed_in = site.dashboard.visit(headers(&browser, &[]), "/changelog", peer).await;
    assert!(signed_in.nav.signed_in);
    assert_eq!((signed_in.nav.current.as_str(), signed_in.nav.csrf.clone()), ("/changelog", browser.csrf()));
    assert!(signed_in.set_cookie.is_empty(), "{:?}", signed_in.set_cookie);
    // The dashboard's own page shows the same header.
    let account = browser.get("/account").await;
    assert_eq!(account.csrf(), signed_in.nav.csrf);

    // A browser that kept its session but not its form token (closed and opened again: the token's
    // cookie lasts as long as the browser's session) is given a new one for the sign-out button.
    let renewed = site.dashboard.visit(headers(&browser, &["tapster_csrf"]), "/docs", peer).await;
    assert!(renewed.nav.signed_in);
    assert_ne!(renewed.nav.csrf, browser.csrf());
    let set = format!("tapster_csrf={};", renewed.nav.csrf);
    assert!(renewed.set_cookie.iter().any(|cookie| cookie.starts_with(&set)), "{:?}", renewed.set_cookie);

    // The cookie of a session that ended is a visitor who is not signed in, and is cleared, as the
    // dashboard's own pages clear it: otherwise every page would look it up again. Such a visitor
    // is given no form token: the header shows them no form.
    let ended = headers(&browser, &[]);
    browser.post("/signout", &[("csrf", &browser.csrf())]).await;
    assert!(!browser.has_session());
    assert!(site.dashboard.sends_session(&ended), "the browser still sends the dead cookie");
    let out = site.dashboard.visit(ended, "/docs", peer).await;
    assert!(!out.nav.signed_in, "{out:?}");
    assert_eq!(out.set_cookie.len(), 1, "{out:?}");
    assert!(out.set_cookie[0].starts_with("tapster_session=;") && out.set_cookie[0].contains("Max-Age=0"));
    let no_token = site.dashboard.visit(headers(&browser, &["tapster_csrf"]), "/docs", peer).await;
    assert!(no_token.set_cookie.iter().all(|cookie| !cookie.starts_with("tapster_csrf=")), "{no_token:?}");
}

/// A browser whose session cannot be looked up now is shown signed out, so that the page answers,
/// and the operator is told why: the failure is not dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visit_that_cannot_be_looked_up_is_signed_out_and_logged() {
    let site = site().await;
    let peer = "198.51.100.7".parse().unwrap();
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    // Without its form token the browser is given a new one, which needs randomness: none now.
    let asked = headers(&browser, &["tapster_csrf"]);
    site.env.random_fails.store(true, Ordering::SeqCst);

    let buffer = LogBuffer::default();
    let subscriber = tracing_subscriber::fmt().with_writer(buffer.clone()).finish();
    let visit = {
        let _guard = tracing::subscriber::set_default(subscriber);
        // tracing caches per callsite, process-wide, whether any subscriber wants it.
        tracing::callsite::rebuild_interest_cache();
        site.dashboard.visit(asked, "/docs", peer).await
    };
    site.env.random_fails.store(false, Ordering::SeqCst);
    assert!(!visit.nav.signed_in && visit.set_cookie.is_empty(), "{visit:?}");
    assert_eq!(visit.nav.current, "/docs");
    let log = buffer.text();
    assert!(log.contains("WARN") && log.contains("tapster::dashboard"), "{log}");
    assert!(log.contains("the session could not be looked up") && log.contains("status=500"), "{log}");
}
