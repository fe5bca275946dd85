//! Who a browser is, for the header of a page the dashboard does not serve (the API's `/docs` and
//! `/changelog`): the same header its own pages show, and the cookies that header's form needs, but
//! nothing for a visitor who is not signed in.

use hyper::header::{COOKIE, HeaderMap, HeaderValue};

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

    let nobody = site.dashboard.visit(&HeaderMap::new(), "/docs", peer).await;
    assert!(!nobody.nav.signed_in);
    assert_eq!(nobody.nav.current, "/docs");
    assert!(nobody.set_cookie.is_empty(), "a signed-out visitor is set a cookie: {:?}", nobody.set_cookie);

    browser.sign_in("marta@example.org", 1).await;
    let signed_in = site.dashboard.visit(&headers(&browser, &[]), "/changelog", peer).await;
    assert!(signed_in.nav.signed_in);
    assert_eq!((signed_in.nav.current.as_str(), signed_in.nav.csrf.clone()), ("/changelog", browser.csrf()));
    assert!(signed_in.set_cookie.is_empty(), "{:?}", signed_in.set_cookie);
    // The dashboard's own page shows the same header.
    let account = browser.get("/account").await;
    assert_eq!(account.csrf(), signed_in.nav.csrf);

    // A browser that kept its session but not its form token (closed and opened again: the token's
    // cookie lasts as long as the browser's session) is given a new one for the sign-out button.
    let renewed = site.dashboard.visit(&headers(&browser, &["tapster_csrf"]), "/docs", peer).await;
    assert!(renewed.nav.signed_in);
    assert_ne!(renewed.nav.csrf, browser.csrf());
    let set = format!("tapster_csrf={};", renewed.nav.csrf);
    assert!(renewed.set_cookie.iter().any(|cookie| cookie.starts_with(&set)), "{:?}", renewed.set_cookie);

    // The cookie of a session that ended is a visitor who is not signed in.
    let ended = headers(&browser, &[]);
    browser.post("/signout", &[("csrf", &browser.csrf())]).await;
    assert!(!browser.has_session());
    let out = site.dashboard.visit(&ended, "/docs", peer).await;
    assert!(!out.nav.signed_in && out.set_cookie.is_empty(), "{out:?}");
}
