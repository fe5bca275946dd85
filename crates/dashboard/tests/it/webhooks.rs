//! Webhook endpoints in the dashboard: added with a URL and the events they are told of, the secret
//! shown once (and once more after each rotation), test events queued through the server's outbox,
//! deliveries listed, disabled, enabled and deleted, and every refusal a page that says why.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tapster_accounts::{AccountId, AttemptReport, EventBodies, WebhookEndpoint, WebhookEvent};
use tapster_dashboard::Outbox;
use tapster_domain::Timestamp;

use crate::{Page, T0, site};

/// The server's outbox as the dashboard sees it: bodies that name the endpoint, and a count of
/// the nudges.
#[derive(Debug, Default)]
struct Recording {
    queued: AtomicUsize,
}

impl Outbox for Recording {
    fn test_bodies(&self, endpoint: &WebhookEndpoint, now: Timestamp) -> EventBodies {
        EventBodies {
            standard: format!(r#"{{"type":"webhook.test","endpoint":{},"at":{}}}"#, endpoint.id, now.0),
            discord: r#"{"content":"test"}"#.into(),
        }
    }

    fn queued(&self) {
        self.queued.fetch_add(1, Ordering::Relaxed);
    }
}

/// The secret a page shows once.
fn new_secret(page: &Page) -> Option<String> {
    let start = page.body.find("<code id=\"new-secret\">")? + 22;
    Some(page.body[start..].split('<').next().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_is_added_its_secret_shown_once_and_tested() {
    let site = site().await;
    let outbox = Arc::new(Recording::default());
    site.dashboard.set_outbox(Arc::clone(&outbox) as Arc<dyn Outbox>);
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let empty = browser.get("/account/webhooks").await;
    assert_eq!(empty.status, 200, "{}", empty.body);
    assert!(empty.contains("No endpoints yet"), "{}", empty.body);

    let form = [
        ("csrf", empty.csrf()),
        ("url", "http://127.0.0.1:9/hooks".into()),
        ("description", "<b>wiki</b> import".into()),
        ("events", "version.published".into()),
        ("events", "key.expiring".into()),
    ];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let created = browser.post("/account/webhooks", &form).await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.header("cache-control"), "no-store");
    let secret = new_secret(&created).expect("the secret on the page that answers the form");
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert!(created.contains("&#60;b&#62;wiki&#60;/b&#62; import"), "escaped: {}", created.body);

    let listed = browser.get("/account/webhooks").await;
    assert!(listed.contains("<code>http://127.0.0.1:9/hooks</code>"), "{}", listed.body);
    assert!(
        listed.contains("A game version is published; One of your keys expires in 7 days"),
        "{}",
        listed.body
    );
    assert!(!listed.contains(&secret), "the secret is shown only once");
    let endpoint = site.accounts.webhooks(AccountId(1)).await.unwrap().remove(0);
    assert_eq!(endpoint.secret, secret);
    assert_eq!(endpoint.events, [WebhookEvent::VersionPublished, WebhookEvent::KeyExpiring]);

    // A test event: queued through the outbox, which hears of it.
    let id = endpoint.id;
    let tested = browser.post(&format!("/account/webhooks/{id}/test"), &[("csrf", &listed.csrf())]).await;
    assert_eq!(tested.sent_to(), "/account/webhooks (webhook-test-queued)");
    assert_eq!(outbox.queued.load(Ordering::Relaxed), 1);
    let claimed = site.accounts.claim_webhook_messages(T0, 60, 10, "worker").await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].event, WebhookEvent::Test);
    assert_eq!(claimed[0].body, format!(r#"{{"type":"webhook.test","endpoint":{id},"at":{}}}"#, T0.0));

    // Its delivery is listed, the receiver's answer as text.
    let report = AttemptReport {
        at: T0,
        status: Some(500),
        duration_ms: 37,
        answer: "<h1>Oops</h1>".into(),
        error: Some("answered 500 Internal Server Error".into()),
        delivered: false,
    };
    site.accounts.record_webhook_attempt(&claimed[0], &report, 500).await.unwrap();
    let page = browser.get("/account/webhooks").await;
    assert!(page.contains("answered 500 Internal Server Error"), "{}", page.body);
    assert!(page.contains("&#60;h1&#62;Oops&#60;/h1&#62;") && !page.contains("<h1>Oops"), "{}", page.body);
    assert!(page.contains("37 ms") && page.contains(&claimed[0].message_id));
    assert!(page.contains("failing since"), "{}", page.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_secret_is_shown_once_on_the_page_it_leads_to() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let page = browser.get("/account/webhooks").await;
    let added = browser
        .post(
            "/account/webhooks",
            &[
                ("csrf", &page.csrf()),
                ("url", "https://hooks.example/t"),
                ("description", ""),
                ("events", "version.published"),
            ],
        )
        .await;
    let first = new_secret(&added).unwrap();
    let id = site.accounts.webhooks(AccountId(1)).await.unwrap()[0].id;

    let rotated = browser.post(&format!("/account/webhooks/{id}/rotate"), &[("csrf", &page.csrf())]).await;
    assert_eq!(rotated.sent_to(), "/account/webhooks (webhook-secret-rotated)");
    let shown = browser.get("/account/webhooks").await;
    let second = new_secret(&shown).expect("the new secret, once");
    assert_ne!(first, second);
    assert_eq!(site.accounts.webhooks(AccountId(1)).await.unwrap()[0].secret, second);
    assert!(shown.contains("still signs beside the new one until"), "{}", shown.body);
    let again = browser.get("/account/webhooks").await;
    assert_eq!(new_secret(&again), None, "shown once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoints_are_disabled_enabled_deleted_and_never_anyone_elses() {
    let site = site().await;
    site.dashboard.set_outbox(Arc::new(Recording::default()));
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let page = browser.get("/account/webhooks").await;
    let csrf = page.csrf();
    browser
        .post(
            "/account/webhooks",
            &[("csrf", &csrf), ("url", "https://hooks.example/a"), ("events", "key.expiring")],
        )
        .await;
    let id = site.accounts.webhooks(AccountId(1)).await.unwrap()[0].id;

    let disabled = browser.post(&format!("/account/webhooks/{id}/disable"), &[("csrf", &csrf)]).await;
    assert_eq!(disabled.sent_to(), "/account/webhooks (webhook-disabled)");
    let page = browser.get("/account/webhooks").await;
    assert!(page.contains("disabled by its owner"), "{}", page.body);
    assert!(!page.contains(&format!("/account/webhooks/{id}/test")), "no test for a disabled endpoint");
    let refused = browser.post(&format!("/account/webhooks/{id}/test"), &[("csrf", &csrf)]).await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(refused.contains("This endpoint is disabled; enable it first"), "{}", refused.body);
    let enabled = browser.post(&format!("/account/webhooks/{id}/enable"), &[("csrf", &csrf)]).await;
    assert_eq!(enabled.sent_to(), "/account/webhooks (webhook-enabled)");

    // Someone else's endpoint is no endpoint at all.
    let mut other = site.browser_at("198.51.100.8");
    other.sign_in("other@example.org", 2).await;
    let theirs = other.get("/account/webhooks").await;
    for action in ["test", "rotate", "disable", "enable", "delete"] {
        let answer =
            other.post(&format!("/account/webhooks/{id}/{action}"), &[("csrf", &theirs.csrf())]).await;
        assert_eq!(answer.status, 404, "{action}: {}", answer.body);
    }

    let deleted = browser.post(&format!("/account/webhooks/{id}/delete"), &[("csrf", &csrf)]).await;
    assert_eq!(deleted.sent_to(), "/account/webhooks (webhook-deleted)");
    assert!(site.accounts.webhooks(AccountId(1)).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_form_is_shown_again_with_what_is_wrong_and_five_endpoints_are_the_most() {
    let site = site().await;
    let mut browser = site.browser();
    browser.sign_in("marta@example.org", 1).await;
    let csrf = browser.get("/account/webhooks").await.csrf();
    for (url, events, message) in [
        ("", "version.published", "Enter the URL the events are sent to."),
        ("ftp://hooks.example/", "version.published", "https://"),
        ("https://hooks.example/#top", "version.published", "fragment"),
        ("https://hooks.example/", "", "Choose what the endpoint is told of"),
        ("https://hooks.example/", "webhook.test", "Choose what the endpoint is told of"),
    ] {
        let mut form = vec![("csrf", csrf.as_str()), ("url", url), ("description", "x")];
        if !events.is_empty() {
            form.push(("events", events));
        }
        let page = browser.post("/account/webhooks", &form).await;
        assert_eq!(page.status, 422, "{url:?} {events:?}: {}", page.body);
        assert!(page.contains(message), "{message}: {}", page.body);
        assert!(page.contains(r#"aria-invalid="true""#) || page.contains("webhook-events-error"));
    }
    assert!(site.accounts.webhooks(AccountId(1)).await.unwrap().is_empty(), "nothing was written");

    for n in 0..5 {
        let url = format!("https://hooks.example/{n}");
        let added = browser
            .post("/account/webhooks", &[("csrf", &csrf), ("url", &url), ("events", "version.published")])
            .await;
        assert_eq!(added.status, 200, "{}", added.body);
    }
    let page = browser.get("/account/webhooks").await;
    assert!(page.contains("This account has 5 webhook endpoints, the most it may hold."), "{}", page.body);
    let sixth = browser
        .post(
            "/account/webhooks",
            &[("csrf", &csrf), ("url", "https://six.example/"), ("events", "version.published")],
        )
        .await;
    assert_eq!(sixth.status, 409, "{}", sixth.body);
}
