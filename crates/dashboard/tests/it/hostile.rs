//! Hostile and broken requests on every form: from another origin, without or with a wrong form
//! token, over-long or malformed fields, forged and replayed tokens, unknown paths and methods. Each
//! gets a clear `4xx` page, never a `5xx`, and writes nothing.

use tapster_accounts::{AccountId, Token};

use crate::{ORIGIN, T0, site};

/// Form fields, as name and value.
type Fields<'a> = Vec<(&'a str, &'a str)>;

/// Every form of the dashboard, with fields that would pass if the request were genuine.
const FORMS: &[(&str, &[(&str, &str)])] = &[
    ("/signin", &[("email", "marta@example.org")]),
    ("/signin/confirm", &[("token", "0000000000000000000000000000000000000000000000000000000000000000")]),
    ("/account/keys", &[("name", "bot"), ("expires_in_days", "")]),
    ("/account/keys/1/revoke", &[]),
    ("/account/email", &[("email", "marta@example.org")]),
    ("/account/sessions/others/end", &[]),
    ("/account/sessions/1/end", &[]),
    ("/account/sign-ins/1/unlink", &[]),
    ("/account/delete", &[]),
    ("/signout", &[]),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_from_elsewhere_or_without_the_token_are_refused_and_change_nothing() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let key = browser.create_key("kept").await;
    let csrf = browser.csrf();
    let forged = Token::from_random([9; 32]);
    let cases: Vec<(&str, Fields, Option<String>)> = vec![
        ("another site", vec![("origin", "https://evil.example")], Some(csrf.clone())),
        ("another port", vec![("origin", "http://dashboard.test:8081")], Some(csrf.clone())),
        ("no origin at all", vec![], Some(csrf.clone())),
        (
            "a hidden origin, cross-site",
            vec![("origin", "null"), ("sec-fetch-site", "cross-site")],
            Some(csrf.clone()),
        ),
        ("no form token", vec![("origin", ORIGIN)], None),
        ("another browser's token", vec![("origin", ORIGIN)], Some(forged.expose().to_owned())),
    ];
    for (path, fields) in FORMS {
        for (case, headers, token) in &cases {
            let mut sent: Vec<(&str, &str)> = fields.to_vec();
            if let Some(token) = token {
                sent.push(("csrf", token));
            }
            let page = browser.post_with(path, &sent, headers).await;
            assert_eq!(page.status, 403, "{path}, {case}: {}", page.body);
            assert!(page.contains("This form was not sent from here"), "{path}, {case}");
            assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
        }
    }
    // A browser that hides the origin but says the request is its own page's is believed.
    let account = browser
        .post_with(
            "/account/keys",
            &[("csrf", &csrf), ("name", "hidden origin"), ("expires_in_days", "")],
            &[("origin", "null"), ("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(account.status, 200, "{}", account.body);

    // Nothing was done: no mail beyond the sign-in's, one key besides the last, still signed in.
    assert_eq!(site.mails_within(2, std::time::Duration::from_millis(500)).await.len(), 1);
    let keys = site.accounts.keys(AccountId(1), T0).await.unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k.revoked_at.is_none()), "{key}");
    assert_eq!(browser.get("/account").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_fields_are_told_apart_from_forgeries() {
    let site = site().await;
    let mut browser = site.browser();
    let csrf = browser.get("/signin").await.csrf();
    let huge = "a".repeat(10_000);
    let cases: &[(&str, Fields, u16, &str)] = &[
        ("/signin", vec![("email", "not an address")], 422, "That is not an e-mail address"),
        ("/signin", vec![("email", &huge)], 422, "at most 254 characters"),
        ("/signin", vec![], 422, "Enter your e-mail address."),
        (
            "/signin",
            vec![("email", "a@b.c"), ("email", "d@e.f")],
            400,
            "sent the field &#34;email&#34; twice",
        ),
        ("/signin/confirm", vec![("token", "1234")], 400, "This link is not valid"),
        ("/signin/confirm", vec![("token", &huge)], 400, "This link is not valid"),
        ("/signin/confirm", vec![], 400, "This link is not valid"),
        (
            "/signin/confirm",
            vec![("token", "00000000000000000000000000000000000000000000000000000000000000aa")],
            400,
            "It was never sent",
        ),
    ];
    for (path, fields, status, message) in cases {
        let mut sent = fields.clone();
        sent.push(("csrf", &csrf));
        let page = browser.post(path, &sent).await;
        assert_eq!(page.status, *status, "{path} {fields:?}: {}", page.body);
        assert!(page.contains(message), "{message}: {}", page.body);
    }
    // A body that is not UTF-8.
    let body = format!("csrf={csrf}&email=%ff%fe%00").into_bytes();
    let page = browser.send(hyper::Method::POST, "/signin", &[("origin", ORIGIN)], body).await;
    assert_eq!(page.status, 422);
    assert!(!browser.has_session());
    assert!(site.mails_within(1, std::time::Duration::from_millis(300)).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_and_paths_that_name_nothing() {
    let site = site().await;
    let mut browser = site.browser();
    for (path, status) in [
        ("/signin/confirm", 400),
        ("/signin/confirm?token=xyz", 400),
        ("/signin/confirm?token=%00", 400),
        ("/account/keys/abc/revoke", 404),
        ("/account/keys/99999999999999999999/revoke", 404),
        ("/account/keys/0/revoke", 404),
        ("/auth/gitlab", 404),
        ("/auth/github/extra/segments", 404),
        ("/static/../Cargo.toml", 404),
        ("/static/nothing.css", 404),
        ("/account/nothing", 404),
    ] {
        let page = browser.get(path).await;
        assert_eq!(page.status, status, "{path}: {}", page.body);
    }
    // A known page asked the wrong way says which ways it takes.
    for (method, path, allow) in [
        ("POST", "/account", "GET, HEAD"),
        ("GET", "/signout", "POST"),
        ("PUT", "/signin", "GET, HEAD, POST"),
        ("PUT", "/signin/confirm", "GET, HEAD, POST"),
        ("DELETE", "/account/delete", "GET, HEAD, POST"),
        ("PATCH", "/account/keys/1/revoke", "GET, HEAD, POST"),
        ("PUT", "/auth/github/callback", "GET, HEAD"),
        ("POST", "/static/style.css", "GET, HEAD"),
        ("GET", "/account/sessions/others/end", "POST"),
    ] {
        let method = hyper::Method::from_bytes(method.as_bytes()).unwrap();
        let page = browser.send(method.clone(), path, &[("origin", ORIGIN)], Vec::new()).await;
        assert_eq!((page.status, page.header("allow")), (405, allow), "{method} {path}");
        assert!(page.contains(&format!("This page answers only {allow}.")), "{method} {path}");
    }
    // Forms need a session; without one they say so.
    let csrf = browser.get("/signin").await.csrf();
    let page =
        browser.post("/account/keys", &[("csrf", &csrf), ("name", "x"), ("expires_in_days", "")]).await;
    assert_eq!(page.status, 403);
    assert!(page.contains("Sign in first"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_carries_the_security_headers() {
    let site = site().await;
    let mut browser = site.browser();
    for path in ["/", "/signin", "/account", "/nothing", "/static/style.css"] {
        let page = browser.get(path).await;
        let csp = page.header("content-security-policy");
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}");
        assert_eq!(page.header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(page.header("referrer-policy"), "no-referrer", "{path}");
        assert!(
            !page.contains("<script>") && !page.contains("style="),
            "no inline script or style on {path}"
        );
    }
    let csrf = browser.get("/").await;
    let cookie = csrf.header("set-cookie");
    assert!(cookie.is_empty(), "the form token is set once per browser: {cookie}");
    // Static files are cacheable by anyone, so they never set or clear a cookie.
    let mut stale = site.browser();
    stale.cookies.insert("tapster_session".into(), "ab".repeat(32));
    let css = stale.get("/static/style.css").await;
    assert_eq!(css.header("cache-control"), "public, max-age=3600");
    assert!(css.header("set-cookie").is_empty());
}
