//! The reference page's "try it" forms as the dashboard answers them: the signed-in person's usable
//! keys, and a `/v1` request handed to the console as one of them, never as someone else's key, never
//! outside `/v1`, never without the page's form token.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tapster_dashboard::{Console, ConsoleAnswer};

use crate::site;

/// A console that answers every call alike and remembers what it was asked.
#[derive(Debug, Default)]
struct Recording {
    calls: Mutex<Vec<(i64, String)>>,
}

impl Console for Recording {
    fn call(
        &self,
        key: i64,
        target: String,
        _: IpAddr,
    ) -> std::pin::Pin<Box<dyn Future<Output = ConsoleAnswer> + Send>> {
        self.calls.lock().unwrap().push((key, target));
        Box::pin(async {
            ConsoleAnswer {
                status: 200,
                content_type: "application/json".into(),
                rate_limit: Some("\"burst\";r=59;t=1".into()),
                body: "{\"data\": []}".into(),
            }
        })
    }
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_person_tries_the_api_with_one_of_their_keys() {
    let site = site().await;
    let console = Arc::new(Recording::default());
    let mut browser = site.browser();

    let anonymous = browser.get("/account/keys.json").await;
    assert_eq!(anonymous.status, 200);
    assert_eq!(anonymous.header("cache-control"), "no-store");
    assert_eq!(json(&anonymous.body), serde_json::json!({ "signed_in": false }));

    browser.sign_in("marta@example.org", 1).await;
    let key = browser.create_key("wiki bot").await;
    let state = json(&browser.get("/account/keys.json").await.body);
    assert_eq!(state["signed_in"], true);
    assert_eq!(state["csrf"], browser.csrf());
    let listed = &state["keys"][0];
    assert_eq!((listed["name"].as_str(), listed["prefix"].as_str()), (Some("wiki bot"), Some(&key[..12])));
    let id = listed["id"].as_i64().unwrap().to_string();

    // Before the server gives a console, the forms say they cannot be answered here.
    let csrf = browser.csrf();
    let early =
        browser.post("/account/try", &[("csrf", &csrf), ("key", &id), ("target", "/v1/versions")]).await;
    assert_eq!(early.status, 503, "{}", early.body);

    site.dashboard.set_console(Arc::clone(&console) as Arc<dyn Console>);
    let asked = "/v1/items?kind=drink&lang=de";
    let tried = browser.post("/account/try", &[("csrf", &csrf), ("key", &id), ("target", asked)]).await;
    assert_eq!(tried.status, 200, "{}", tried.body);
    assert_eq!(tried.header("cache-control"), "no-store");
    let answer = json(&tried.body);
    assert_eq!(answer["status"], 200);
    assert_eq!(answer["rate_limit"], "\"burst\";r=59;t=1");
    assert_eq!(answer["body"], "{\"data\": []}");
    assert_eq!(*console.calls.lock().unwrap(), [(id.parse::<i64>().unwrap(), asked.to_owned())]);

    // Refused, and the console never asked: outside /v1, a key that is not theirs, no form token,
    // another site's page.
    for (target, key) in [("/healthz", id.as_str()), ("/v1/versions", "999"), ("/v1/versions", "x")] {
        let refused =
            browser.post("/account/try", &[("csrf", &csrf), ("key", key), ("target", target)]).await;
        assert_eq!(refused.status, 400, "{target} {key}: {}", refused.body);
        assert!(json(&refused.body)["error"].is_string());
    }
    let forged =
        browser.post("/account/try", &[("csrf", "0"), ("key", &id), ("target", "/v1/versions")]).await;
    assert_eq!(forged.status, 403);
    let fields = [("csrf", csrf.as_str()), ("key", id.as_str()), ("target", "/v1/versions")];
    let elsewhere = browser.post_with("/account/try", &fields, &[("origin", "https://evil.example")]).await;
    assert_eq!(elsewhere.status, 403);
    assert_eq!(console.calls.lock().unwrap().len(), 1);

    // Another person's key is not theirs.
    let mut other = site.browser_at("203.0.113.9");
    other.sign_in("odile@example.org", 2).await;
    other.create_key("theirs").await;
    let other_csrf = other.csrf();
    let theirs =
        other.post("/account/try", &[("csrf", &other_csrf), ("key", &id), ("target", "/v1/versions")]).await;
    assert_eq!(theirs.status, 400, "{}", theirs.body);
    assert_eq!(console.calls.lock().unwrap().len(), 1);
}
