//! Sign-in through GitHub and Discord against the mock provider: PKCE and `state` on the way out,
//! the code exchanged and the user read on the way back; an unverified address never links and
//! must be confirmed by mail before keys; a denied consent, a forged or missing `state`, a tampered
//! verifier, garbage and a provider that is down all end on a clear page with no session.

use tapster_test_support::{Behaviour, User, http};

use crate::{Browser, ORIGIN, Page, link, site};

fn marta() -> User {
    User { id: 583_231, login: "marta-gh".into(), email: Some("marta@example.org".into()), verified: true }
}

fn dana_unverified() -> User {
    User {
        id: 80_351_110_224_678_912,
        login: "dana".into(),
        email: Some("dana@example.org".into()),
        verified: false,
    }
}

/// The `Location` a plain `GET` of `url` (the mock provider's consent step) answers with.
async fn follow(url: &str) -> String {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let answer = http::get(host.parse().unwrap(), &format!("/{path}"), &[]);
        let location = answer.header("location");
        assert!(!location.is_empty(), "the provider did not send the browser back: {answer:?}");
        location.to_owned()
    })
    .await
    .unwrap()
}

impl Browser<'_> {
    /// Leaves for `provider`, and comes back to the dashboard's callback the way the provider sends
    /// the browser; returns the callback's page and the path it was called with.
    async fn through(&mut self, provider: &str) -> (Page, String) {
        let start = self.get(&format!("/auth/{provider}")).await;
        assert_eq!(start.status, 303, "{}", start.body);
        let back = follow(start.location()).await;
        let callback = back.strip_prefix(ORIGIN).unwrap_or_else(|| panic!("sent back to {back}")).to_owned();
        (self.get(&callback).await, callback)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_with_a_verified_address_signs_up_confirmed_with_pkce() {
    let site = site().await;
    site.github.set(Behaviour::Consent(marta()));
    let mut browser = site.browser();
    let start = browser.get("/auth/github").await;
    let authorize = start.location();
    assert!(authorize.starts_with(&site.github.authorize_url()), "{authorize}");
    for part in [
        "response_type=code",
        "client_id=gh-client",
        "code_challenge_method=S256",
        "scope=read%3Auser+user%3Aemail",
    ] {
        assert!(authorize.contains(part), "{part} in {authorize}");
    }
    assert!(
        authorize.contains("redirect_uri=http%3A%2F%2Fdashboard.test%2Fauth%2Fgithub%2Fcallback"),
        "{authorize}"
    );
    assert!(start.header("set-cookie").contains("tapster_oauth=github:"));

    let (page, _) = browser.through("github").await;
    assert_eq!((page.status, page.sent_to().as_str()), (303, "/account (welcome)"), "{}", page.body);
    assert!(browser.has_session());
    assert!(!browser.cookies.contains_key("tapster_oauth"), "the sign-in in flight is over");
    assert_eq!(site.github.exchanges(), 1);
    let account = browser.get("/account").await;
    assert!(account.contains("E-mail: <strong>marta@example.org</strong> (confirmed)"), "{}", account.body);
    assert!(account.contains("GitHub: <strong>marta-gh</strong>"));
    assert!(account.contains("Link Discord") && !account.contains("Link GitHub"));
    browser.create_key("from github").await;

    // Mail to the same address opens the same account.
    let mut other = site.browser_at("203.0.113.60");
    other.sign_in("marta@example.org", 1).await;
    assert!(other.get("/account").await.contains("GitHub: <strong>marta-gh</strong>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_token_planted_before_a_provider_sign_in_is_useless_after_it() {
    let site = site().await;
    site.github.set(Behaviour::Consent(marta()));
    site.discord.set(Behaviour::Consent(marta()));
    for provider in ["github", "discord"] {
        // Someone who can set cookies for the dashboard's host gives the browser a token they know.
        let mut attacker = site.browser_at("203.0.113.66");
        attacker.get("/").await;
        let planted = attacker.csrf();
        let mut browser = site.browser();
        browser.cookies.insert("tapster_csrf".into(), planted.clone());
        assert_eq!(browser.get("/signin").await.csrf(), planted, "the browser took the planted token");

        let (page, _) = browser.through(provider).await;
        assert_eq!(page.status, 303, "{}", page.body);
        assert!(browser.has_session());
        assert_ne!(browser.csrf(), planted, "{provider}");
        let forged = browser
            .post("/account/keys", &[("csrf", &planted), ("name", "planted"), ("expires_in_days", "")])
            .await;
        assert_eq!(forged.status, 403, "{provider}: {}", forged.body);
        assert!(!browser.get("/account").await.contains("planted"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_with_an_unverified_address_gets_no_key_until_it_is_confirmed_by_mail() {
    let site = site().await;
    site.discord.set(Behaviour::Consent(dana_unverified()));
    let mut browser = site.browser();
    let (page, _) = browser.through("discord").await;
    assert_eq!(page.sent_to().as_str(), "/account (welcome)");
    let account = browser.get("/account").await;
    assert!(account.contains("Signed in as <strong>Discord user dana</strong>"), "{}", account.body);
    assert!(account.contains("Confirm an e-mail address (above) before you create keys."));
    assert!(account.contains(r#"value="dana@example.org""#), "the provider's address is offered");
    let refused = browser
        .post("/account/keys", &[("csrf", &account.csrf()), ("name", "bot"), ("expires_in_days", "")])
        .await;
    assert_eq!(refused.status, 403);
    assert!(
        refused.contains("Confirm an e-mail address (above) before you create keys."),
        "{}",
        refused.body
    );

    let asked =
        browser.post("/account/email", &[("csrf", &account.csrf()), ("email", "dana@example.org")]).await;
    assert_eq!(asked.sent_to().as_str(), "/account (confirmation-sent)");
    let mail = &site.mails(1).await[0];
    assert_eq!(mail.header("Subject").as_deref(), Some("Confirm your address for Tapster"));
    let link = link(mail);

    // Only where Dana is signed in.
    let mut elsewhere = site.browser_at("203.0.113.61");
    let page = elsewhere.get(&link).await;
    let refused =
        elsewhere.post("/signin/confirm", &[("csrf", &page.csrf()), ("token", &page.field("token"))]).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(!elsewhere.has_session());

    let page = browser.get(&link).await;
    let done =
        browser.post("/signin/confirm", &[("csrf", &page.csrf()), ("token", &page.field("token"))]).await;
    assert_eq!(done.sent_to().as_str(), "/account (confirmed)");
    let account = browser.get(done.location()).await;
    assert!(account.contains("Your address is confirmed"));
    assert!(account.contains("E-mail: <strong>dana@example.org</strong> (confirmed)"));
    browser.create_key("bot").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_address_never_opens_the_account_that_holds_it() {
    let site = site().await;
    let mut marta_by_mail = site.browser();
    marta_by_mail.sign_in("marta@example.org", 1).await;
    marta_by_mail.create_key("hers").await;
    site.discord
        .set(Behaviour::Consent(User { email: Some("marta@example.org".into()), ..dana_unverified() }));
    let mut stranger = site.browser_at("203.0.113.62");
    let (page, _) = stranger.through("discord").await;
    assert_eq!(page.sent_to().as_str(), "/account (welcome)", "a new account, not Marta's");
    let account = stranger.get("/account").await;
    assert!(account.contains("No keys yet"));
    assert!(!marta_by_mail.get("/account").await.contains("Discord: <strong>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_consent_signs_nothing_in_and_makes_nothing() {
    let site = site().await;
    site.github.set(Behaviour::Deny);
    let mut browser = site.browser();
    let (page, _) = browser.through("github").await;
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(page.contains("You did not allow Tapster to read your GitHub account"));
    assert!(!browser.has_session() && !browser.cookies.contains_key("tapster_oauth"));
    assert_eq!(site.github.exchanges(), 0);

    // No account was made: the next sign-in is the first.
    site.github.set(Behaviour::Consent(marta()));
    let (page, _) = browser.through("github").await;
    assert_eq!(page.sent_to().as_str(), "/account (welcome)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_missing_or_replayed_state_is_refused() {
    let site = site().await;
    site.github.set(Behaviour::Consent(marta()));
    let mut browser = site.browser();
    let start = browser.get("/auth/github").await;
    let back = follow(start.location()).await;
    let callback = back.strip_prefix(ORIGIN).unwrap().to_owned();
    let state = callback.split("state=").nth(1).unwrap().to_owned();
    let forged = callback.replace(&state, &"ab".repeat(32));

    for (case, mut browser, path) in [
        ("a forged state", site.browser(), forged.clone()),
        ("no sign-in cookie", site.browser_at("203.0.113.63"), callback.clone()),
        ("no state", site.browser(), callback.replace(&format!("&state={state}"), "")),
    ] {
        if case != "no sign-in cookie" {
            browser.cookies = std::mem::take(&mut browser.cookies);
            browser.cookies.extend(start_cookies(&start));
        }
        let page = browser.get(&path).await;
        assert_eq!(page.status, 400, "{case}: {}", page.body);
        assert!(page.contains("This sign-in was not started here"), "{case}");
        assert!(!browser.has_session(), "{case}");
    }
    // GitHub's answer brought to the Discord callback.
    let mut crossed = site.browser();
    crossed.cookies.extend(start_cookies(&start));
    let page = crossed.get(&callback.replace("/auth/github/", "/auth/discord/")).await;
    assert_eq!(page.status, 400);
    assert_eq!(site.github.exchanges(), 0, "no refused callback exchanged the code");

    // The right state, but a code no provider gives (too long), or none.
    for code in ["x".repeat(600), String::new()] {
        let mut browser = site.browser();
        browser.cookies.extend(start_cookies(&start));
        let page = browser.get(&format!("/auth/github/callback?code={code}&state={state}")).await;
        assert_eq!(page.status, 400, "{}", page.body);
        assert!(page.contains("without a usable code"));
    }

    // The genuine one works once; replayed, it is refused.
    browser.cookies.extend(start_cookies(&start));
    assert_eq!(browser.get(&callback).await.status, 303);
    let replayed = browser.get(&callback).await;
    assert_eq!(replayed.status, 400);
    assert_eq!(site.github.exchanges(), 1);
}

/// The cookies `start` set.
fn start_cookies(start: &Page) -> Vec<(String, String)> {
    start
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| {
            value.to_str().ok()?.split(';').next()?.split_once('=').map(|(k, v)| (k.into(), v.into()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_verifier_garbage_and_a_provider_that_is_down_end_cleanly() {
    let site = site().await;
    let cases = [
        (
            "a tampered PKCE verifier",
            Behaviour::Consent(marta()),
            true,
            400,
            "GitHub did not accept the sign-in: bad_verification_code",
        ),
        (
            "a token answer that is HTML",
            Behaviour::GarbageToken,
            false,
            502,
            "GitHub answered something unexpected",
        ),
        (
            "a user answer that is HTML",
            Behaviour::GarbageProfile(marta()),
            false,
            502,
            "GitHub answered something unexpected",
        ),
        ("a provider that is down", Behaviour::Down, false, 502, "GitHub could not be reached"),
    ];
    for (case, behaviour, tamper, status, message) in cases {
        site.github.set(behaviour);
        let mut browser = site.browser();
        let start = browser.get("/auth/github").await;
        if tamper {
            let cookie = browser.cookies.get_mut("tapster_oauth").unwrap();
            let verifier = cookie.split(':').nth(2).unwrap().to_owned();
            *cookie = cookie.replace(&verifier, &"cd".repeat(32));
        }
        let back = follow(start.location()).await;
        let page = browser.get(back.strip_prefix(ORIGIN).unwrap()).await;
        assert_eq!(page.status, status, "{case}: {}", page.body);
        assert!(page.contains(message), "{case}: {}", page.body);
        assert!(!browser.has_session(), "{case}");
    }
    // Nothing was made by any of them: the first real sign-in is a new account.
    site.github.set(Behaviour::Consent(marta()));
    assert_eq!(site.browser().through("github").await.0.sent_to().as_str(), "/account (welcome)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_owner_links_and_unlinks_a_provider() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    site.github.set(Behaviour::Consent(User { email: Some("marta@work.example".into()), ..marta() }));
    let (page, _) = browser.through("github").await;
    assert_eq!(page.sent_to().as_str(), "/account (linked)");
    let account = browser.get("/account").await;
    assert!(account.contains("GitHub: <strong>marta-gh</strong>"), "{}", account.body);
    assert!(account.contains("E-mail: <strong>marta@example.org</strong>"), "the account keeps its address");

    // The same GitHub user cannot be linked to a second account.
    let mut dana = site.browser_at("203.0.113.64");
    dana.sign_in("dana@example.org", 2).await;
    let (page, _) = dana.through("github").await;
    assert_eq!(page.status, 409, "{}", page.body);

    // A link started in one session is not finished in another: signed out and in again meanwhile,
    // the same browser is refused.
    site.github.set(Behaviour::Consent(User { id: 77, login: "second".into(), ..marta() }));
    let start = browser.get("/auth/github").await;
    let back = follow(start.location()).await;
    let csrf = browser.get("/account").await.csrf();
    browser.post("/signout", &[("csrf", &csrf)]).await;
    browser.sign_in("marta@example.org", 3).await;
    let refused = browser.get(back.strip_prefix(ORIGIN).unwrap()).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(!browser.get("/account").await.contains("GitHub: <strong>second</strong>"));
    let account = browser.get("/account").await;

    let id = account.body.split("/account/sign-ins/").nth(1).unwrap().split('/').next().unwrap().to_owned();
    let unlinked =
        browser.post(&format!("/account/sign-ins/{id}/unlink"), &[("csrf", &account.csrf())]).await;
    assert_eq!(unlinked.sent_to().as_str(), "/account (unlinked)");
    assert!(!browser.get("/account").await.contains("GitHub: <strong>"));
}
