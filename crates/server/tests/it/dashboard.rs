//! The dashboard beside the API in the `tapster` binary: its address printed beside the first key,
//! its pages on the API's port, and the two kinds of credentials kept apart (an API key never opens
//! a page, a session cookie never opens `/v1`).

use tapster_accounts::Token;

use crate::{block, get, get_with_key, mini, serve_with, signed_up_now};

#[test]
fn the_dashboard_is_served_beside_the_api_and_credentials_stay_apart() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve_with(data_dir.path(), &["--fixtures", mini().to_str().unwrap()]);
    let key = server.first_key().to_owned();
    assert_eq!(server.dashboard.as_deref(), Some(format!("http://{}/", server.addr).as_str()));

    let landing = get(server.addr, "/", &[]);
    assert_eq!(landing.status, 200);
    assert_eq!(landing.header("content-type"), "text/html; charset=utf-8");
    assert!(landing.text().contains("Get an API key"));
    assert!(landing.header("access-control-allow-origin").is_empty(), "pages get no CORS headers");

    // A session made the way the dashboard makes one, in the store the server uses.
    let session = Token::from_random([42; 32]);
    block(async {
        let (accounts, account, now) = signed_up_now(data_dir.path(), "marta@example.org").await;
        accounts.create_session(account, session.hash(), "test", now).await.unwrap();
    });
    let cookie = format!("tapster_session={}", session.expose());
    let account = get(server.addr, "/account", &[("Cookie", &cookie)]);
    assert_eq!(account.status, 200);
    assert!(account.text().contains("Signed in as <strong>marta@example.org</strong>"));

    let api_with_cookie = get(server.addr, "/v1/versions", &[("Cookie", &cookie)]);
    assert_eq!(api_with_cookie.status, 401, "a session cookie opened /v1");
    let page_with_key = get(server.addr, "/account", &[("Authorization", &format!("Bearer {key}"))]);
    assert_eq!(
        (page_with_key.status, page_with_key.header("location")),
        (303, "/signin"),
        "an API key opened a page"
    );
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);

    // A form over the dashboard's limit is refused with a page of its own, not the API's problem+json.
    let large = "a".repeat(17 * 1024);
    let raw = format!(
        "POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{large}",
        large.len()
    );
    let refused = tapster_test_support::http::exchange(server.addr, &raw, 1).remove(0);
    assert_eq!((refused.status, refused.header("content-type")), (413, "text/html; charset=utf-8"));
    assert!(refused.text().contains("That was too much to send"), "{}", refused.text());
    assert!(!refused.header("content-security-policy").is_empty(), "a refusal page lacks the page headers");

    // An address the operator blocks is refused the pages as it is refused the API.
    let tapster = |args: &[&str]| crate::cli::tapster(args, data_dir.path());
    assert!(tapster(&["addresses", "block", "127.0.0.0/8"]).status.success());
    let start = std::time::Instant::now();
    loop {
        let page = get(server.addr, "/signin", &[]);
        if page.status == 403 {
            assert!(page.text().contains("Requests from your address are blocked"), "{}", page.text());
            break;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(3), "still {} after the block", page.status);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(tapster(&["addresses", "unblock", "127.0.0.0/8"]).status.success());
}

/// The reference page's "try it" form through the running server: a signed-in person's request is
/// answered by the API as their key (checked and counted as the key's own request), and the page
/// carries the forms and the script that sends them.
#[test]
fn the_reference_page_tries_the_api_as_a_signed_in_persons_key() {
    use tapster_accounts::KeyName;
    use tapster_domain::ApiKey;

    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve_with(data_dir.path(), &["--fixtures", mini().to_str().unwrap()]);
    let docs = get(server.addr, "/docs", &[]);
    assert!(docs.text().contains(r#"<form class="try" data-path="/v1/items/{key}" hidden>"#));
    assert!(docs.text().contains(r#"<script src="/static/try.js" defer></script>"#));
    assert!(docs.header("content-security-policy").contains("script-src 'self'; connect-src 'self'"));
    assert_eq!(get(server.addr, "/static/try.js", &[]).status, 200);

    let (session, csrf, key) =
        (Token::from_random([42; 32]), Token::from_random([43; 32]), ApiKey::generate(|| 7));
    let id = block(async {
        let (accounts, account, now) = signed_up_now(data_dir.path(), "marta@example.org").await;
        accounts.create_session(account, session.hash(), "test", now).await.unwrap();
        let name = KeyName::parse("wiki bot").unwrap();
        accounts.create_key(account, &name, None, None, &key, now).await.unwrap().id
    });
    let body = format!("csrf={}&key={id}&target=%2Fv1%2Fkey", csrf.expose());
    let raw = format!(
        "POST /account/try HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Cookie: tapster_session={}; tapster_csrf={}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        session.expose(),
        csrf.expose(),
        body.len(),
        addr = server.addr,
    );
    // The new key reaches the server's gate within its reload of the accounts.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let answer = loop {
        let tried = tapster_test_support::http::exchange(server.addr, &raw, 1).remove(0);
        assert_eq!(tried.status, 200, "{}", tried.text());
        let answer = tried.json();
        if answer["status"] == 200 || std::time::Instant::now() > deadline {
            break answer;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(answer["status"], 200, "{answer}");
    assert!(answer["rate_limit"].as_str().is_some_and(|r| r.contains(";r=")), "{answer}");
    let described: serde_json::Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(described["data"]["name"], "wiki bot");
    assert_eq!(described["data"]["prefix"], key.display_prefix());
    // Counted as the key's own: the key itself now sees that request and its own.
    let own = get_with_key(server.addr, "/v1/key", key.expose()).json();
    assert_eq!(own["data"]["requests_today"], described["data"]["requests_today"].as_u64().unwrap() + 1);
}

/// The API's own pages (`/docs`, `/changelog`) wear the site's layout and the dashboard's header as
/// the dashboard's pages do: the way to sign in for a visitor who is not signed in, their keys and
/// the sign-out button (with the form token of their browser) for one who is. The two answers are
/// cached apart: each says it varies by the cookie, the signed-in one is private, and their entity
/// tags differ.
#[test]
fn the_apis_pages_show_who_is_signed_in_as_the_dashboard_does() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve_with(data_dir.path(), &["--fixtures", mini().to_str().unwrap()]);
    let (session, csrf) = (Token::from_random([42; 32]), Token::from_random([43; 32]));
    block(async {
        let (accounts, account, now) = signed_up_now(data_dir.path(), "marta@example.org").await;
        accounts.create_session(account, session.hash(), "test", now).await.unwrap();
    });
    let cookie = format!("tapster_session={}; tapster_csrf={}", session.expose(), csrf.expose());
    let (start, landing) = (get(server.addr, "/", &[]), get(server.addr, "/", &[("Cookie", &cookie)]));
    let header = |page: &str| {
        let start = page.find("<header class=\"top\">").expect("a header");
        page[start..start + page[start..].find("</header>").unwrap()].to_owned()
    };
    for path in ["/docs", "/changelog"] {
        let out = get(server.addr, path, &[]);
        assert_eq!(out.status, 200, "{path}");
        assert!(out.text().contains(r#"<link rel="stylesheet" href="/static/style.css">"#), "{path}");
        assert!(out.text().starts_with("<!doctype html>\n<html lang=\"en\">"), "{path}");
        assert!(!out.text().contains("<style"), "{path}: the site's one style sheet");
        let shown = header(out.text());
        assert!(shown.contains(r#"<a href="/signin">Sign in</a>"#), "{path}: {shown}");
        assert!(!shown.contains("Your keys") && !shown.contains("Sign out"), "{path}: {shown}");
        let unmarked = |shown: &str| shown.replace(r#" aria-current="page""#, "");
        assert_eq!(unmarked(&shown), header(start.text()), "{path}: the start page's header, signed out");
        assert_eq!((out.header("cache-control"), out.header("vary")), ("no-cache", "Cookie"), "{path}");
        assert!(out.header("access-control-allow-origin").is_empty(), "{path}: CORS is for the API's data");
        assert!(out.header("set-cookie").is_empty(), "{path}: the page of everyone sets nothing");

        // A browser whose session ended sees the page of everyone, and its dead cookie is cleared,
        // as the dashboard's pages clear it, so that its next page looks nothing up.
        let dead = format!("tapster_session={}", Token::from_random([44; 32]).expose());
        let ended = get(server.addr, path, &[("Cookie", &dead)]);
        assert_eq!((ended.status, ended.text()), (200, out.text()), "{path}");
        assert_eq!(ended.header("etag"), out.header("etag"), "{path}");
        let cleared = ended.header("set-cookie");
        assert!(
            cleared.starts_with("tapster_session=;") && cleared.contains("Max-Age=0"),
            "{path}: {cleared}"
        );
        assert_eq!(
            ended.header("cache-control"),
            "private, no-cache",
            "{path}: a cookie set for one browser"
        );

        let within = get(server.addr, path, &[("Cookie", &cookie)]);
        assert_eq!(within.status, 200, "{path}");
        let shown = header(within.text());
        assert!(shown.contains(r#"<a href="/account">Your keys</a>"#), "{path}: {shown}");
        assert!(shown.contains(r#"<a href="/account/webhooks">Webhooks</a>"#), "{path}: {shown}");
        let token = format!(r#"<input type="hidden" name="csrf" value="{}">"#, csrf.expose());
        assert!(shown.contains(&token) && shown.contains(">Sign out</button>"), "{path}: {shown}");
        assert!(!shown.contains("Sign in"), "{path}: {shown}");
        assert_eq!(unmarked(&shown), header(landing.text()), "{path}: the start page's header, signed in");
        assert_eq!(within.header("cache-control"), "private, no-cache", "{path}");
        assert!(within.header("access-control-allow-origin").is_empty(), "{path}");
        assert_eq!(within.header("vary"), "Cookie", "{path}");
        assert_ne!(within.header("etag"), out.header("etag"), "{path}: one tag for both");
        let held = get(server.addr, path, &[("Cookie", &cookie), ("If-None-Match", within.header("etag"))]);
        assert_eq!(held.status, 304, "{path}");
        let other = get(server.addr, path, &[("If-None-Match", within.header("etag"))]);
        assert_eq!(other.status, 200, "{path}: a signed-out visitor revalidated the signed-in answer");
    }
    // The feed stays a feed.
    let feed = get(server.addr, "/changelog.rss", &[("Cookie", &cookie)]);
    assert_eq!(feed.header("content-type"), "application/rss+xml; charset=utf-8");
    assert!(!feed.text().contains("<header"));
}
