//! Keys in the dashboard: made with a name and an expiry, shown once and never again, listed with
//! their state and usage, revoked after a confirmation, at most ten active, none for a suspended or
//! unconfirmed account.

use tapster_accounts::{AccountId, Usage, hash_key};
use tapster_domain::{ApiKey, Email, Timestamp};

use crate::{T0, site};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_shown_once_escaped_and_listed_by_its_prefix() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let account = browser.get("/account").await;
    assert!(account.contains("No keys yet"));
    let name = "<script>alert(1)</script>";
    let created = browser
        .post("/account/keys", &[("csrf", &account.csrf()), ("name", name), ("expires_in_days", "90")])
        .await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.header("cache-control"), "no-store");
    assert!(created.contains("&#60;script&#62;alert(1)&#60;/script&#62;"), "{}", created.body);
    assert!(!created.contains(name), "{}", created.body);
    assert!(created.contains("It expires on 2027-02-16."), "{}", created.body);
    assert!(created.contains("shown only this once"));
    let key = created.new_key();
    let parsed = ApiKey::parse(&key).unwrap();
    let access = &site.accounts.snapshot().await.unwrap().keys[&hash_key(&parsed)];
    assert_eq!(access.expires_at, Some(Timestamp(T0.0 + 90 * 86_400)));

    let listed = browser.get("/account").await;
    assert!(listed.contains(parsed.display_prefix()), "{}", listed.body);
    assert!(!listed.contains(&key), "the whole key is shown only once");
    assert!(listed.contains("&#60;script&#62;alert(1)&#60;/script&#62;") && !listed.contains(name));
    assert!(listed.contains(r#"<span class="status active">active</span>"#));
    assert!(listed.contains("0 requests in the last 30 days"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_key_is_made_with_its_origins_and_listed_with_them() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let csrf = browser.get("/account").await.csrf();
    let typed = "https://Calc.example/\r\n\r\nhttp://localhost:3000";
    let form = [("csrf", csrf.as_str()), ("name", "calculator"), ("expires_in_days", ""), ("origins", typed)];
    let created = browser.post("/account/keys", &form).await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert!(created.contains("It is a browser key"), "{}", created.body);
    assert!(
        created.contains("<code>https://calc.example</code>, <code>http://localhost:3000</code>"),
        "{}",
        created.body
    );
    let key = ApiKey::parse(&created.new_key()).unwrap();
    let access = &site.accounts.snapshot().await.unwrap().keys[&hash_key(&key)];
    assert_eq!(access.origins.as_ref().unwrap().to_lines(), "https://calc.example\nhttp://localhost:3000");

    let listed = browser.get("/account").await;
    assert!(listed.contains(r#"<span class="kind">browser key</span>"#), "{}", listed.body);
    assert!(listed.contains("<li><code>http://localhost:3000</code></li>"), "{}", listed.body);

    // What is not an origin, or too many of them, is shown again with what is wrong; nothing is made.
    let many: String = (0..11).map(|n| format!("https://{n}.example\n")).collect();
    for (origins, message) in [
        ("calc.example", "Line 1 (&#34;calc.example&#34;) must match the pattern"),
        ("https://calc.example\nhttps://calc.example/app", "Line 2 (&#34;https://calc.example/app&#34;)"),
        ("ftp://calc.example", "an origin starting with https:// or http://"),
        (many.as_str(), "Name at most 10 origins (11 given)."),
    ] {
        let form = [("csrf", csrf.as_str()), ("name", "calc"), ("expires_in_days", ""), ("origins", origins)];
        let page = browser.post("/account/keys", &form).await;
        assert_eq!(page.status, 422, "{origins:?}");
        assert!(page.contains(message), "{message}: {}", page.body);
        assert!(page.contains(r#"<textarea id="key-origins" name="origins" rows="3" aria-invalid="true""#));
    }
    assert_eq!(site.accounts.keys(AccountId(1), T0).await.unwrap().len(), 1, "nothing more was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_shows_as_a_30_day_chart_and_todays_count() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let key = browser.create_key("wiki bot").await;
    let id = site.accounts.snapshot().await.unwrap().keys[&hash_key(&ApiKey::parse(&key).unwrap())].id;
    let today = T0.0 / 86_400;
    let usage =
        |day: i64, requests| Usage { key_id: id, day, requests, last_used: Timestamp(day * 86_400 + 60) };
    site.accounts.record_usage(vec![usage(today - 3, 1_500), usage(today, 250)]).await.unwrap();

    let page = browser.get("/account").await;
    assert!(page.contains(r#"<td class="number" data-label="Today">250</td>"#), "{}", page.body);
    assert!(page.contains("1,750 requests in the last 30 days"));
    assert!(page.contains("<title>2026-11-15: 1,500 requests</title>"), "{}", page.body);
    assert!(
        page.contains(r#"<rect x="104" y="0" width="3" height="28">"#),
        "the busiest day fills the chart"
    );
    assert!(
        page.contains("<td data-label=\"Last used (UTC)\">2026-11-18 00:01</td>"),
        "last used: {}",
        page.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoking_asks_first_then_takes_effect() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let key = ApiKey::parse(&browser.create_key("ci").await).unwrap();
    let id = site.accounts.snapshot().await.unwrap().keys[&hash_key(&key)].id;

    let confirm = browser.get(&format!("/account/keys/{id}/revoke")).await;
    assert_eq!(confirm.status, 200);
    assert!(confirm.contains("gets <code>401</code> within a second"), "{}", confirm.body);
    assert!(
        !site.accounts.snapshot().await.unwrap().keys[&hash_key(&key)].revoked,
        "the GET revokes nothing"
    );

    let done = browser.post(&format!("/account/keys/{id}/revoke"), &[("csrf", &confirm.csrf())]).await;
    assert_eq!((done.status, done.sent_to().as_str()), (303, "/account (revoked)"));
    assert!(site.accounts.snapshot().await.unwrap().keys[&hash_key(&key)].revoked);
    let page = browser.get("/account").await;
    assert!(page.contains(r#"<span class="status revoked">revoked</span>"#));
    assert!(!page.contains(&format!("/account/keys/{id}/revoke")), "no second revoke link");

    // Someone else's key is no key at all.
    let mut other = site.browser_at("203.0.113.50");
    other.sign_in("dana@example.org", 2).await;
    let page = other.get("/account").await;
    assert_eq!(other.get(&format!("/account/keys/{id}/revoke")).await.status, 404);
    let refused = other.post(&format!("/account/keys/{id}/revoke"), &[("csrf", &page.csrf())]).await;
    assert_eq!(refused.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_active_keys_at_most_said_plainly() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    for n in 0..10 {
        browser.create_key(&format!("key {n}")).await;
    }
    let page = browser.get("/account").await;
    assert!(
        page.contains("This account has 10 keys that are neither revoked nor expired, the most it may hold."),
        "{}",
        page.body
    );
    assert!(!page.contains(r#"action="/account/keys""#), "no form to make an eleventh");
    let refused = browser
        .post("/account/keys", &[("csrf", &page.csrf()), ("name", "eleventh"), ("expires_in_days", "")])
        .await;
    assert_eq!(refused.status, 409);
    assert!(refused.contains("the most it may hold. Revoke one to create another."), "{}", refused.body);
    assert_eq!(site.accounts.keys(AccountId(1), T0).await.unwrap().len(), 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_names_and_expiries_are_shown_beside_their_fields() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let csrf = browser.get("/account").await.csrf();
    let long = "x".repeat(65);
    for (name, expiry, message) in [
        ("", "", "A key&#39;s name is required."),
        (long.as_str(), "", "A key&#39;s name is at most 64 characters."),
        ("fine", "7", "Choose when the key expires"),
        ("fine", "-30", "Choose when the key expires"),
    ] {
        let page = browser
            .post("/account/keys", &[("csrf", &csrf), ("name", name), ("expires_in_days", expiry)])
            .await;
        assert_eq!(page.status, 422, "{name:?} {expiry:?}");
        assert!(page.contains(message), "{message}: {}", page.body);
        assert!(page.contains(r#"aria-invalid="true""#));
    }
    assert!(site.accounts.keys(AccountId(1), T0).await.unwrap().is_empty(), "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_and_suspended_are_said_and_a_suspended_account_makes_no_keys() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let account = browser.get("/account").await;
    browser
        .post("/account/keys", &[("csrf", &account.csrf()), ("name", "short"), ("expires_in_days", "30")])
        .await;
    // Used halfway, so that the session outlives the key.
    site.env.advance(15 * 86_400);
    assert!(browser.get("/account").await.contains(r#"<span class="status active">active</span>"#));
    site.env.advance(15 * 86_400);
    let page = browser.get("/account").await;
    assert!(page.contains(r#"<span class="status expired">expired</span>"#), "{}", page.body);

    let email = Email::parse("marta@example.org").unwrap();
    site.accounts
        .set_account_suspended(&email, true, Some("scraping at 50 requests a second"))
        .await
        .unwrap();
    let page = browser.get("/account").await;
    assert!(page.contains("This account is suspended"));
    assert!(page.contains("<strong>scraping at 50 requests a second</strong>"));
    assert!(page.contains("A suspended account cannot create keys."));
    let refused = browser
        .post("/account/keys", &[("csrf", &page.csrf()), ("name", "more"), ("expires_in_days", "")])
        .await;
    assert_eq!(refused.status, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_the_account_revokes_its_keys_and_signs_out() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let key = ApiKey::parse(&browser.create_key("bot").await).unwrap();
    let confirm = browser.get("/account/delete").await;
    assert!(confirm.contains("Its one active key is revoked at once."), "{}", confirm.body);
    let done = browser.post("/account/delete", &[("csrf", &confirm.csrf())]).await;
    assert_eq!((done.status, done.sent_to().as_str()), (303, "/ (deleted)"));
    assert!(!browser.has_session());
    assert!(site.accounts.snapshot().await.unwrap().keys[&hash_key(&key)].revoked);
    let landing = browser.get("/").await;
    assert!(landing.contains("Your account is deleted"));
    assert!(!browser.get("/").await.contains("Your account is deleted"), "a notice is said once");
    // The address is free again: signing in makes a new, empty account.
    browser.sign_in("marta@example.org", 2).await;
    assert!(browser.get("/account").await.contains("No keys yet"));
}
