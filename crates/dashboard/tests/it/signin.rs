//! Sign-in by e-mail over a real SMTP conversation: the link mailed, shown by a `GET`, spent by a
//! `POST` once, within 15 minutes; the same page for every address; the mail limits; sessions.

use std::time::Duration;

use tapster_dashboard::MailTransport;

use crate::{Page, link, site};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mailed_link_signs_up_once_and_the_get_does_not_spend_it() {
    let site = site().await;
    let mut browser = site.browser();
    let page = browser.get("/signin").await;
    assert_eq!(page.status, 200);
    assert!(page.contains("Sign in with GitHub") && page.contains("Sign in with Discord"));

    let sent = browser.post("/signin", &[("csrf", &page.csrf()), ("email", "Marta@Example.org")]).await;
    assert_eq!(sent.status, 200);
    assert!(sent.contains("Check your mail") && sent.contains("marta@example.org"), "{}", sent.body);
    let mail = &site.mails(1).await[0];
    assert_eq!(mail.to, ["marta@example.org"]);
    assert_eq!(mail.header("Subject").as_deref(), Some("Your Tapster sign-in link"));
    let link = link(mail);

    // Opening the link (twice, as a mail scanner and then a person would) spends nothing.
    for _ in 0..2 {
        let confirm = site.browser_at("203.0.113.9").get(&link).await;
        assert_eq!(confirm.status, 200);
        assert!(
            confirm.contains("Press the button to sign in as <strong>marta@example.org</strong>"),
            "{}",
            confirm.body
        );
    }
    let confirm = browser.get(&link).await;
    assert_eq!(confirm.header("referrer-policy"), "no-referrer", "the page's address holds the token");
    let token = confirm.field("token");
    let done = browser.post("/signin/confirm", &[("csrf", &confirm.csrf()), ("token", &token)]).await;
    assert_eq!((done.status, done.sent_to().as_str()), (303, "/account (welcome)"));
    assert!(browser.has_session());
    let account = browser.get(done.location()).await;
    assert_eq!(account.status, 200);
    assert!(account.contains("Signed in as <strong>marta@example.org</strong>"), "{}", account.body);
    assert!(account.contains("Welcome! Your account is ready."));

    // Once spent, the link is spent for everyone: its page says so, and the form is refused.
    let mut other = site.browser_at("203.0.113.9");
    let again = other.get(&link).await;
    assert_eq!(again.status, 400);
    assert!(again.contains("This link cannot be used"));
    let refused = other.post("/signin/confirm", &[("csrf", &other.csrf()), ("token", &token)]).await;
    assert_eq!(refused.status, 400);
    assert!(refused.contains("It has been used already"), "{}", refused.body);
    assert!(!other.has_session());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_the_same_for_every_address_and_links_expire_after_15_minutes() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("known@example.org", 1).await;

    let mut stranger = site.browser_at("203.0.113.20");
    let csrf = stranger.get("/signin").await.csrf();
    let known = stranger.post("/signin", &[("csrf", &csrf), ("email", "known@example.org")]).await;
    let (head, tail) = known.body.split_once("known@example.org").unwrap();
    let unknown = stranger.post("/signin", &[("csrf", &csrf), ("email", "nobody@example.org")]).await;
    assert_eq!((known.status, unknown.status), (200, 200));
    assert_eq!(
        unknown.body,
        format!("{head}nobody@example.org{tail}"),
        "the pages differ beyond the address"
    );

    let mails = site.mails(3).await;
    let late = link(&mails[2]);
    site.env.advance(15 * 60);
    assert_eq!(stranger.get(&late).await.status, 400, "an expired link's page says so");
    let token = late.split("token=").nth(1).unwrap();
    let expired = stranger.post("/signin/confirm", &[("csrf", &stranger.csrf()), ("token", token)]).await;
    assert_eq!(expired.status, 400);
    assert!(expired.contains("It has expired"), "{}", expired.body);
    assert!(!stranger.has_session());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_is_limited_per_address_and_per_calling_address_without_the_page_saying_so() {
    let site = site().await;
    let mut browser = site.browser_at("203.0.113.30");
    let csrf = browser.get("/signin").await.csrf();
    for _ in 0..5 {
        let page = browser.post("/signin", &[("csrf", &csrf), ("email", "busy@example.org")]).await;
        assert_eq!(page.status, 200);
    }
    // Three for the one address; the other two were never sent.
    assert_eq!(site.mails(3).await.len(), 3);

    // Ten per calling address at once: five more addresses go out, the sixth does not.
    for n in 0..6 {
        let page =
            browser.post("/signin", &[("csrf", &csrf), ("email", &format!("user{n}@example.org"))]).await;
        assert!(page.contains("Check your mail"));
    }
    // Waiting for a ninth that must never come.
    let mails = site.mails_within(9, Duration::from_secs(2)).await;
    assert_eq!(mails.len(), 8, "{:?}", mails.iter().map(|m| &m.to).collect::<Vec<_>>());
    assert!(mails.iter().all(|mail| mail.to != ["user5@example.org"]));
    // Another calling address is not held back.
    let mut elsewhere = site.browser_at("198.51.100.99");
    let csrf = elsewhere.get("/signin").await.csrf();
    elsewhere.post("/signin", &[("csrf", &csrf), ("email", "user5@example.org")]).await;
    assert_eq!(site.mails(9).await[8].to, ["user5@example.org"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sign_in_gets_a_new_session_and_sign_out_ends_it() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let first = browser.cookies["tapster_session"].clone();
    browser.sign_in("marta@example.org", 2).await;
    let second = browser.cookies["tapster_session"].clone();
    assert_ne!(first, second);

    // The first id opens nothing any more, and the browser holding it is told to forget it.
    let mut stale = site.browser();
    stale.cookies.insert("tapster_session".into(), first);
    let page = stale.get("/account").await;
    assert_eq!((page.status, page.location()), (303, "/signin"));
    assert!(!stale.has_session());

    let account = browser.get("/account").await;
    let out = browser.post("/signout", &[("csrf", &account.csrf())]).await;
    assert_eq!((out.status, out.sent_to().as_str()), (303, "/ (signed-out)"));
    assert!(!browser.has_session());
    let mut replay = site.browser();
    replay.cookies.insert("tapster_session".into(), second);
    assert_eq!(replay.get("/account").await.status, 303);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_token_is_renewed_at_sign_in_and_at_sign_out() {
    let site = site().await;
    let mut browser = site.browser();
    browser.get("/signin").await;
    let before = browser.csrf();
    browser.sign_in("marta@example.org", 1).await;
    let signed_in = browser.csrf();
    assert_ne!(signed_in, before);

    // The token the browser held before signing in opens no form now, and changes nothing.
    let forged = browser
        .post("/account/keys", &[("csrf", &before), ("name", "planted"), ("expires_in_days", "")])
        .await;
    assert_eq!(forged.status, 403, "{}", forged.body);
    assert!(forged.contains("The form is out of date"), "{}", forged.body);
    let account = browser.get("/account").await;
    assert_eq!(account.csrf(), signed_in, "the pages hold the new token");
    assert!(!account.contains("planted"), "{}", account.body);

    let out = browser.post("/signout", &[("csrf", &signed_in)]).await;
    assert_eq!((out.status, out.sent_to().as_str()), (303, "/ (signed-out)"));
    assert_ne!(browser.csrf(), signed_in);
    let refused = browser.post("/signin", &[("csrf", &signed_in), ("email", "marta@example.org")]).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let sent = browser.post("/signin", &[("csrf", &browser.csrf()), ("email", "marta@example.org")]).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_end_everywhere_else_and_after_30_idle_days() {
    let site = site().await;
    let mut laptop = site.browser();
    laptop.sign_in("marta@example.org", 1).await;
    let mut phone = site.browser_at("203.0.113.40");
    phone.sign_in("marta@example.org", 2).await;

    let account = laptop.get("/account").await;
    assert_eq!(account.body.matches("signed in 2026").count(), 2, "both sessions are listed");
    // Used, a session renews its cookie too (at most every five minutes), so that 30 idle days
    // count from the last use, in the browser as on the server.
    site.env.advance(6 * 60);
    assert!(laptop.get("/account").await.header("set-cookie").starts_with("tapster_session="));
    assert!(laptop.get("/account").await.header("set-cookie").is_empty());
    let ended = laptop.post("/account/sessions/others/end", &[("csrf", &account.csrf())]).await;
    assert_eq!(ended.sent_to().as_str(), "/account (signed-out-elsewhere)");
    assert_eq!(phone.get("/account").await.status, 303);
    assert_eq!(laptop.get("/account").await.status, 200);

    site.env.advance(30 * 86_400);
    assert_eq!(laptop.get("/account").await.location(), "/signin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_used_often_ends_90_days_after_the_sign_in_and_its_cookie_with_it() {
    let site = site().await;
    let mut browser = site.browser();
    let day = 86_400;
    let signed_in = browser.sign_in("marta@example.org", 1).await;
    assert!(session_cookie(&signed_in).ends_with("Max-Age=2592000"), "30 days at first");
    for _ in 0..3 {
        site.env.advance(20 * day);
        assert_eq!(browser.get("/account").await.status, 200);
    }
    // Used on day 80, the session renews its cookie for the 10 days it has left, not another 30.
    site.env.advance(20 * day);
    let page = browser.get("/account").await;
    assert_eq!(page.status, 200);
    let cookie = session_cookie(&page);
    assert!(cookie.ends_with(&format!("Max-Age={}", 10 * day)), "{cookie}");

    site.env.advance(10 * day);
    assert_eq!(browser.get("/account").await.location(), "/signin");
    assert!(!browser.has_session());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_smtp_to_another_machine_is_refused_at_start() {
    let smtp = |url: &str| Some(MailTransport::Smtp(url.to_owned()));
    let Err(refused) = crate::try_site_with(smtp("smtp://tapster:secret@smtp.example.org")).await else {
        panic!("the dashboard started with a plain SMTP URL to another machine");
    };
    assert_eq!(
        refused.to_string(),
        "the SMTP URL sends mail in clear to smtp.example.org, which is not this machine: use smtps:// (TLS), \
         or smtp://...?tls=required (STARTTLS)"
    );
    assert!(crate::try_site_with(smtp("smtp://smtp.example.org?tls=required")).await.is_ok());
}

/// Without a mail server, the mails go to the outbox: sign-in links, so its owner's alone. The
/// process's umask is left alone (tests run in parallel threads): the modes are checked to be exactly
/// `0700` and `0600`, which the usual umask (`022`) would have made `0755` and `0644`.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outbox_open_to_others_is_narrowed_at_start_and_its_mails_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let data_dir = tempfile::TempDir::new().unwrap();
    let outbox = data_dir.path().join("outbox");
    std::fs::create_dir(&outbox).unwrap();
    std::fs::set_permissions(&outbox, std::fs::Permissions::from_mode(0o755)).unwrap();

    let site = crate::try_site_with(Some(MailTransport::Outbox(outbox.clone()))).await.unwrap();
    assert_eq!(mode(&outbox), 0o700, "narrowed before any mail");
    let mut browser = site.browser();
    let csrf = browser.get("/signin").await.csrf();
    browser.post("/signin", &[("csrf", &csrf), ("email", "marta@example.org")]).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mail = loop {
        let written = std::fs::read_dir(&outbox).unwrap().map(|entry| entry.unwrap().path());
        if let Some(mail) = written.into_iter().find(|path| path.extension().is_some_and(|e| e == "eml")) {
            break mail;
        }
        assert!(std::time::Instant::now() < deadline, "no mail in the outbox");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!((mode(&outbox), mode(&mail)), (0o700, 0o600));
    assert!(std::fs::read_to_string(&mail).unwrap().contains("/signin/confirm?token="));
}

/// The session cookie a page sets, if it sets one.
fn session_cookie(page: &Page) -> String {
    let mut cookies = page.headers.get_all("set-cookie").iter().map(|cookie| cookie.to_str().unwrap());
    cookies.find(|cookie| cookie.starts_with("tapster_session=")).unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_server_that_never_answers_does_not_hold_the_page() {
    // A listener that accepts and says nothing: the SMTP client waits for its greeting.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("smtp://{}", silent.local_addr().unwrap());
    let site = crate::site_with_smtp(Some(&url)).await;
    let mut browser = site.browser();
    let csrf = browser.get("/signin").await.csrf();
    let page = tokio::time::timeout(
        Duration::from_secs(5),
        browser.post("/signin", &[("csrf", &csrf), ("email", "marta@example.org")]),
    )
    .await
    .expect("the page waited for the mail server");
    assert_eq!(page.status, 200);
    drop(silent);
}
