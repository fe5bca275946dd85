//! Webhooks delivered by the server to receivers the tests run on this machine: a new version
//! announced once per endpoint, signed so that the `standardwebhooks` library from PyPI accepts it
//! (the real binary, after `tapster import`); failures tried again and the log of tries; a receiver
//! that never answers retried, then disabled and its owner mailed; three replicas on one PostgreSQL
//! delivering each event once; and endpoints on addresses that are not public refused.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tapster_accounts::{
    AccountId, Accounts, Location, NewWebhook, WebhookAttempt, WebhookDescription, WebhookEvent, WebhookKind,
};
use tapster_domain::Timestamp;
use tapster_server::{Clock, Service, Sharing, WebhookSettings};
use tapster_test_support::postgres::TestSchema;
use tempfile::TempDir;

use crate::cli::tapster;
use crate::{Running, block, mini, serve_with};

/// What a receiver does with a request.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Act {
    Answer(u16),
    /// Answers `302` to this address, which must never be asked.
    Redirect(SocketAddr),
    /// Holds the connection and never answers.
    Silent,
}

/// One request a receiver got.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Received {
    pub(crate) fn header(&self, name: &str) -> &str {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or("", |(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// A webhook receiver on `127.0.0.1`: keeps every request, and acts on each as scripted (then
/// answers `200`).
pub(crate) struct Receiver {
    addr: SocketAddr,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    pub(crate) fn start(script: &[Act]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script.iter().copied().collect::<VecDeque<_>>()));
        let kept = Arc::clone(&got);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (got, script) = (Arc::clone(&kept), Arc::clone(&script));
                std::thread::spawn(move || answer(stream, &got, &script));
            }
        });
        Self { addr, got }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// The requests once `count` have come, waiting up to `within`.
    fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        let start = Instant::now();
        while self.received().len() < count {
            assert!(
                start.elapsed() < within,
                "{} of {count} requests after {within:?}",
                self.received().len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.received()
    }
}

fn answer(stream: TcpStream, got: &Mutex<Vec<Received>>, script: &Mutex<VecDeque<Act>>) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).is_err() {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    got.lock().unwrap().push(Received { headers, body });
    let act = script.lock().unwrap().pop_front().unwrap_or(Act::Answer(200));
    let mut stream = reader.into_inner();
    let reply = match act {
        Act::Answer(status) => {
            format!("HTTP/1.1 {status} Scripted\r\nContent-Length: 8\r\nConnection: close\r\n\r\nanswered")
        }
        Act::Redirect(to) => format!(
            "HTTP/1.1 302 Found\r\nLocation: http://{to}/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        Act::Silent => {
            std::thread::sleep(Duration::from_secs(30));
            return;
        }
    };
    let _ = stream.write_all(reply.as_bytes());
}

fn endpoint(url: &str, events: &[WebhookEvent], secret: &str) -> NewWebhook {
    NewWebhook {
        url: url.to_owned(),
        description: WebhookDescription::parse("test receiver").unwrap(),
        kind: WebhookKind::Standard,
        events: events.to_vec(),
        secret: secret.to_owned(),
    }
}

/// A secret as the dashboard makes them.
fn secret(seed: u8) -> String {
    tapster_webhooks::Secret::generate([seed; 32]).expose()
}

/// Tries of the endpoint `id` of account 1, newest first.
fn attempts(accounts: &Accounts, id: i64) -> Vec<WebhookAttempt> {
    block(accounts.webhook_attempts(AccountId(1), id)).unwrap()
}

/// Waits until the endpoint `id` has `count` tries recorded.
fn until_tried(accounts: &Accounts, id: i64, count: usize) -> Vec<WebhookAttempt> {
    let start = Instant::now();
    loop {
        let tried = attempts(accounts, id);
        if tried.len() >= count {
            return tried;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{} of {count} tries: {tried:?}", tried.len());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The Python of a venv with the `standardwebhooks` library of `scripts/webhooks.requirements.txt`,
/// made under `target/` when it is not there yet; `None` (said) where PyPI cannot be reached.
fn standardwebhooks() -> Option<PathBuf> {
    static MADE: Mutex<()> = Mutex::new(());
    let _one_at_a_time = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let requirements = root.join("scripts/webhooks.requirements.txt");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let venv = target.join("webhooks-venv");
    let python = venv.join("bin/python");
    let pinned = std::fs::read_to_string(&requirements).unwrap();
    let installed = venv.join("requirements.txt");
    if std::fs::read_to_string(&installed).ok().as_deref() == Some(pinned.as_str()) && python.exists() {
        return Some(python);
    }
    let made = Command::new("python3").arg("-m").arg("venv").arg("--clear").arg(&venv).status();
    let pip = made.ok().filter(|status| status.success()).and_then(|_| {
        Command::new(&python).args(["-m", "pip", "install", "--quiet", "-r"]).arg(&requirements).status().ok()
    });
    if !pip.is_some_and(|status| status.success()) {
        tapster_test_support::services::missing(
            "the standardwebhooks package",
            "PyPI",
            "python3 -m venv and pip install -r scripts/webhooks.requirements.txt failed",
        );
        return None;
    }
    std::fs::write(&installed, pinned).unwrap();
    Some(python)
}

/// What `standardwebhooks` makes of `received`, signed with `secret`: the payload it verified, or
/// why it refused.
fn verified(python: &Path, secret: &str, received: &Received) -> Result<serde_json::Value, String> {
    let dir = TempDir::new().unwrap();
    let headers: serde_json::Map<String, serde_json::Value> = received
        .headers
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), serde_json::Value::from(v.as_str())))
        .collect();
    std::fs::write(dir.path().join("headers.json"), serde_json::to_vec(&headers).unwrap()).unwrap();
    std::fs::write(dir.path().join("body"), &received.body).unwrap();
    let script = "import json, sys\n\
                  from standardwebhooks.webhooks import Webhook\n\
                  secret, folder = sys.argv[1], sys.argv[2]\n\
                  headers = json.load(open(folder + '/headers.json'))\n\
                  body = open(folder + '/body', 'rb').read()\n\
                  print(json.dumps(Webhook(secret).verify(body, headers)))\n";
    let output = Command::new(python).arg("-c").arg(script).arg(secret).arg(dir.path()).output().unwrap();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&output.stdout).unwrap())
}

#[test]
fn an_import_delivers_each_new_version_once_signed_so_that_the_library_accepts_it() {
    let Some(python) = standardwebhooks() else { return };
    let receiver = Receiver::start(&[]);
    let keys_only = Receiver::start(&[]);
    let dir = TempDir::new().unwrap();
    let data_dir = dir.path();
    let mini = mini();
    let imported = tapster(&["import", mini.join("v1.0.0.0.1").to_str().unwrap()], data_dir);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let (accounts, owner, now) = block(crate::signed_up_now(data_dir, "bot@example.org"));
    let (published, expiring) = (secret(1), secret(2));
    let url = receiver.url("/tapster");
    block(accounts.create_webhook(
        owner,
        &endpoint(&url, &[WebhookEvent::VersionPublished], &published),
        now,
    ))
    .unwrap();
    let other = endpoint(&keys_only.url("/"), &[WebhookEvent::KeyExpiring], &expiring);
    block(accounts.create_webhook(owner, &other, now)).unwrap();

    // The version served at start is announced once; so is the one an import adds while it serves.
    let server = serve_with(data_dir, &["--webhooks-allow-private"]);
    let first = receiver.wait_for(1, Duration::from_secs(20));
    let imported = tapster(&["import", mini.to_str().unwrap()], data_dir);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    receiver.wait_for(2, Duration::from_secs(20));
    // Nothing more comes: once per version, whatever polls and restarts follow.
    std::thread::sleep(Duration::from_secs(3));
    drop(server);
    let server = serve_with(data_dir, &["--webhooks-allow-private"]);
    std::thread::sleep(Duration::from_secs(3));
    drop(server);
    let got = receiver.received();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        keys_only.received().is_empty(),
        "an endpoint not told of versions got {:?}",
        keys_only.received()
    );

    let versions: Vec<String> =
        got.iter().map(|r| r.json()["data"]["version"].as_str().unwrap().to_owned()).collect();
    assert_eq!(versions, ["v1.0.0.0.1", "v1.0.1.0.0"]);
    for received in &got {
        assert_eq!(received.header("content-type"), "application/json");
        assert!(received.header("webhook-id").starts_with("msg_"), "{received:?}");
        assert!(received.header("webhook-signature").starts_with("v1,"), "{received:?}");
        let payload = verified(&python, &published, received).unwrap_or_else(|why| panic!("refused: {why}"));
        assert_eq!(payload["type"], "version.published");
        assert_eq!(payload["schema_version"], 1);
        // Read by the wire crate's type: the shape the OpenAPI document describes.
        let event: tapster_wire::VersionPublishedEvent = serde_json::from_value(payload).unwrap();
        assert!(event.data.links.changes.ends_with(&format!("/v1/versions/{}/changes", event.data.version)));
        // Any other secret, or a changed body, is refused.
        assert!(verified(&python, &secret(9), received).is_err());
        let mut changed = received.clone();
        changed.body.push(b' ');
        assert!(verified(&python, &published, &changed).is_err());
    }
    let second: tapster_wire::VersionPublishedEvent = serde_json::from_slice(&got[1].body).unwrap();
    assert_eq!(second.data.previous.as_deref(), Some("v1.0.0.0.1"));
    assert!(second.data.changes.is_some() && !second.data.highlights.is_empty(), "{second:?}");
    assert_eq!(first[0].header("webhook-id"), got[0].header("webhook-id"));
}

/// A service in this process on the small dataset's first version, with webhooks to this
/// machine allowed, whose clock the test moves; and the accounts it keeps.
fn serving_with_clock(data_dir: &Path, seconds: &Arc<AtomicU64>, timeout: Duration) -> Running {
    let seconds = Arc::clone(seconds);
    let clock = Clock::from_fn(move || Duration::from_secs(seconds.load(Ordering::Relaxed)));
    let settings = WebhookSettings { allow_private: true, timeout, ..WebhookSettings::default() };
    Running::open(
        Service::builder(data_dir, &Sharing::none(data_dir))
            .fixtures(Some(&mini().join("v1.0.0.0.1")))
            .clock(clock)
            .webhooks(settings),
    )
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

#[test]
fn a_failing_receiver_is_tried_again_until_it_takes_the_event_and_a_redirect_is_not_followed() {
    let receiver = Receiver::start(&[Act::Answer(500), Act::Answer(503), Act::Answer(200)]);
    let elsewhere = Receiver::start(&[]);
    let redirecting = Receiver::start(&[Act::Redirect(elsewhere.addr)]);
    let dir = TempDir::new().unwrap();
    let seconds = Arc::new(AtomicU64::new(now_secs()));
    let accounts = block(Accounts::open(&Location::DataDir(dir.path().to_owned()))).unwrap();
    let now = Timestamp(i64::try_from(seconds.load(Ordering::Relaxed)).unwrap());
    let owner = block(tapster_test_support::accounts::signed_up(&accounts, "bot@example.org", 3, now));
    let events = [WebhookEvent::VersionPublished];
    let id = block(accounts.create_webhook(owner, &endpoint(&receiver.url("/"), &events, &secret(1)), now))
        .unwrap()
        .id;
    let moved =
        block(accounts.create_webhook(owner, &endpoint(&redirecting.url("/"), &events, &secret(2)), now))
            .unwrap()
            .id;
    let server = serving_with_clock(dir.path(), &seconds, Duration::from_secs(5));

    let first = until_tried(&accounts, id, 1);
    assert_eq!((first[0].report.status, first[0].report.delivered), (Some(500), false));
    assert_eq!(first[0].report.answer, "answered");
    // The wait before the next try is about 10 s (spread by a fifth either way): not before.
    seconds.fetch_add(7, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(attempts(&accounts, id).len(), 1, "tried again too soon");
    seconds.fetch_add(60, Ordering::Relaxed);
    until_tried(&accounts, id, 2);
    seconds.fetch_add(120, Ordering::Relaxed);
    let log = until_tried(&accounts, id, 3);
    let tries: Vec<(u32, Option<u16>, bool)> =
        log.iter().map(|a| (a.attempt, a.report.status, a.report.delivered)).collect();
    assert_eq!(tries, [(3, Some(200), true), (2, Some(503), false), (1, Some(500), false)]);
    // Every try is the same message: one webhook-id, one body.
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert!(
        got.iter().all(|r| r.header("webhook-id") == got[0].header("webhook-id") && r.body == got[0].body)
    );
    assert_ne!(
        got[0].header("webhook-timestamp"),
        got[2].header("webhook-timestamp"),
        "each try signed when sent"
    );
    seconds.fetch_add(3_600, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(receiver.received().len(), 3, "a delivered message is not sent again");

    // A redirect is a failed try, and where it points is never asked.
    let redirected = attempts(&accounts, moved);
    assert!(!redirected.is_empty());
    assert_eq!(redirected.last().unwrap().report.status, Some(302));
    assert!(
        redirected.last().unwrap().report.error.as_deref().unwrap_or_default().contains("not followed"),
        "{redirected:?}"
    );
    assert!(elsewhere.received().is_empty());
    server.stop();
}

#[test]
fn a_receiver_that_never_answers_is_retried_then_disabled_and_its_owner_mailed() {
    let receiver = Receiver::start(&[Act::Silent; 64]);
    let dir = TempDir::new().unwrap();
    let seconds = Arc::new(AtomicU64::new(now_secs()));
    let accounts = block(Accounts::open(&Location::DataDir(dir.path().to_owned()))).unwrap();
    let now = Timestamp(i64::try_from(seconds.load(Ordering::Relaxed)).unwrap());
    let owner = block(tapster_test_support::accounts::signed_up(&accounts, "silent@example.org", 4, now));
    let events = [WebhookEvent::VersionPublished];
    let id = block(accounts.create_webhook(owner, &endpoint(&receiver.url("/"), &events, &secret(1)), now))
        .unwrap()
        .id;
    let server = serving_with_clock(dir.path(), &seconds, Duration::from_millis(300));

    until_tried(&accounts, id, 1);
    seconds.fetch_add(600, Ordering::Relaxed);
    until_tried(&accounts, id, 2);
    seconds.fetch_add(600, Ordering::Relaxed);
    let log = until_tried(&accounts, id, 3);
    assert!(log.iter().all(|a| !a.report.delivered && a.report.status.is_none()), "{log:?}");
    assert!(log[0].report.error.as_deref().unwrap_or_default().contains("timed out"), "{log:?}");
    let endpoint = block(accounts.webhook(owner, id)).unwrap();
    assert!(endpoint.failing_since.is_some() && endpoint.disabled.is_none());

    // Three days after its first failure it is disabled, and its owner is told by mail.
    seconds.fetch_add(3 * 86_400, Ordering::Relaxed);
    let start = Instant::now();
    let disabled = loop {
        let endpoint = block(accounts.webhook(owner, id)).unwrap();
        if let Some(disabled) = endpoint.disabled {
            break disabled;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "still enabled: {endpoint:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(disabled.1, "every delivery failed for 3 days");
    let outbox = dir.path().join("outbox");
    let mail = loop {
        let mails: Vec<String> = std::fs::read_dir(&outbox)
            .into_iter()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
            .filter(|mail| mail.contains("webhook"))
            .collect();
        if let Some(mail) = mails.into_iter().next() {
            break mail;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no mail in {}", outbox.display());
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(mail.contains("To: silent@example.org"), "{mail}");
    assert!(mail.contains(&receiver.url("/")) && mail.contains("/account/webhooks"), "{mail}");
    // Nothing is sent to a disabled endpoint.
    let tried = attempts(&accounts, id).len();
    seconds.fetch_add(600, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(attempts(&accounts, id).len(), tried);
    server.stop();
}

#[test]
fn endpoints_on_addresses_that_are_not_public_are_refused_at_delivery() {
    let receiver = Receiver::start(&[]);
    let dir = TempDir::new().unwrap();
    let data_dir = dir.path();
    let accounts = block(Accounts::open(&Location::DataDir(data_dir.to_owned()))).unwrap();
    let now = Timestamp(i64::try_from(now_secs()).unwrap());
    let owner = block(tapster_test_support::accounts::signed_up(&accounts, "ssrf@example.org", 5, now));
    // A name of this machine resolves to one of its own addresses, which is no public one.
    let host =
        String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap().trim().to_owned();
    let resolved: Vec<SocketAddr> =
        std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), receiver.addr.port())).unwrap().collect();
    assert!(
        resolved.iter().all(|addr| !tapster_webhooks::is_public(addr.ip())),
        "this machine's name {host} resolves to a public address ({resolved:?}): the test needs a private one"
    );
    let port = receiver.addr.port();
    // Each with what its owner reads in the log of tries.
    let cases = [
        (format!("http://127.0.0.1:{port}/"), "must start with https://"),
        (format!("https://127.0.0.1:{port}/"), "is a loopback address (127.0.0.1)"),
        ("https://10.0.0.1/".to_owned(), "is a private address (10.0.0.1)"),
        (format!("https://[::1]:{port}/"), "is a loopback address ([::1])"),
        // Refused once resolved, before any connection.
        (format!("https://{host}:{port}/"), "refused: "),
    ];
    let events = [WebhookEvent::VersionPublished];
    let ids: Vec<i64> = cases
        .iter()
        .map(|(url, _)| {
            block(accounts.create_webhook(owner, &endpoint(url, &events, &secret(1)), now)).unwrap().id
        })
        .collect();
    let server = Running::open(
        Service::builder(data_dir, &Sharing::none(data_dir)).fixtures(Some(&mini().join("v1.0.0.0.1"))),
    );
    for ((url, said), id) in cases.iter().zip(ids) {
        let tried = until_tried(&accounts, id, 1);
        let error = tried[0].report.error.clone().unwrap_or_default();
        assert!(!tried[0].report.delivered && tried[0].report.status.is_none(), "{url}: {tried:?}");
        assert!(error.contains(said), "{url}: {error}");
    }
    assert!(receiver.received().is_empty(), "a refused endpoint was reached: {:?}", receiver.received());
    server.stop();
}

#[test]
fn three_replicas_on_one_postgresql_deliver_each_event_once() {
    let Some(schema) = TestSchema::create() else { return };
    let url = schema.url();
    let receiver = Receiver::start(&[]);
    let (accounts, owner, now) =
        block(crate::signed_up_now_in(&Location::Postgres(url.to_owned()), "bot@example.org"));
    let events = [WebhookEvent::VersionPublished];
    block(accounts.create_webhook(owner, &endpoint(&receiver.url("/"), &events, &secret(1)), now)).unwrap();
    let mini = mini();
    let first = mini.join("v1.0.0.0.1");
    let dirs: Vec<TempDir> = (0..3).map(|_| TempDir::new().unwrap()).collect();
    let flags = ["--accounts-url", url, "--fixtures", first.to_str().unwrap(), "--webhooks-allow-private"];
    let replicas: Vec<_> = dirs.iter().map(|dir| serve_with(dir.path(), &flags)).collect();
    receiver.wait_for(1, Duration::from_secs(20));

    let elsewhere = TempDir::new().unwrap();
    let published = tapster(&["publish", mini.to_str().unwrap(), "--accounts-url", url], elsewhere.path());
    assert!(published.status.success(), "{}", String::from_utf8_lossy(&published.stderr));
    receiver.wait_for(2, Duration::from_secs(30));
    // Every replica serves the new version by now and announced it; none sends it twice.
    std::thread::sleep(Duration::from_secs(4));
    let got = receiver.received();
    let versions: Vec<String> =
        got.iter().map(|r| r.json()["data"]["version"].as_str().unwrap().to_owned()).collect();
    assert_eq!(versions, ["v1.0.0.0.1", "v1.0.1.0.0"]);
    drop(replicas);
}

#[test]
fn a_key_expiring_within_a_week_is_announced_once_to_its_account_and_discord_gets_a_message() {
    use tapster_accounts::KeyName;
    use tapster_domain::ApiKey;

    let mine = Receiver::start(&[]);
    let discord = Receiver::start(&[]);
    let theirs = Receiver::start(&[]);
    let dir = TempDir::new().unwrap();
    let seconds = Arc::new(AtomicU64::new(now_secs()));
    let accounts = block(Accounts::open(&Location::DataDir(dir.path().to_owned()))).unwrap();
    let now = Timestamp(i64::try_from(seconds.load(Ordering::Relaxed)).unwrap());
    let owner = block(tapster_test_support::accounts::signed_up(&accounts, "keys@example.org", 6, now));
    let other = block(tapster_test_support::accounts::signed_up(&accounts, "other@example.org", 7, now));
    let expiring = [WebhookEvent::KeyExpiring];
    block(accounts.create_webhook(owner, &endpoint(&mine.url("/"), &expiring, &secret(1)), now)).unwrap();
    // Discord is told by the kind an endpoint was stored with: here a receiver of this machine.
    let as_discord =
        NewWebhook { kind: WebhookKind::Discord, ..endpoint(&discord.url("/"), &expiring, &secret(2)) };
    block(accounts.create_webhook(owner, &as_discord, now)).unwrap();
    block(accounts.create_webhook(other, &endpoint(&theirs.url("/"), &expiring, &secret(3)), now)).unwrap();
    let versions = Receiver::start(&[]);
    let published = [WebhookEvent::VersionPublished];
    let channel =
        NewWebhook { kind: WebhookKind::Discord, ..endpoint(&versions.url("/"), &published, &secret(4)) };
    block(accounts.create_webhook(other, &channel, now)).unwrap();
    let name = KeyName::parse("wiki bot").unwrap();
    let key = ApiKey::generate(|| 41);
    let expires = Timestamp(now.0 + 30 * 86_400);
    block(accounts.create_key(owner, &name, Some(expires), None, &key, now)).unwrap();
    let server = serving_with_clock(dir.path(), &seconds, Duration::from_secs(5));

    // The version served is told a Discord channel as a message that links to the changelog.
    let told = versions.wait_for(1, Duration::from_secs(10)).remove(0).json();
    let embed = &told["embeds"][0];
    assert!(embed["title"].as_str().unwrap().starts_with("v1.0.0.0.1 (build "), "{told}");
    assert!(embed["url"].as_str().unwrap().ends_with("/changelog"), "{told}");
    assert_eq!(embed["description"], "The first version Tapster serves.");
    // Not while the key has more than a week left.
    std::thread::sleep(Duration::from_millis(1_500));
    assert!(mine.received().is_empty());
    seconds.fetch_add(23 * 86_400 + 60, Ordering::Relaxed);
    let got = mine.wait_for(1, Duration::from_secs(10));
    let event: tapster_wire::KeyExpiringEvent = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(event.data.key.name, "wiki bot");
    assert_eq!(event.data.key.prefix, key.display_prefix());
    assert_eq!(event.data.key.expires_at, expires.to_string());
    assert_eq!(event.data.days_left, 7, "a week ahead, rounded up");
    assert!(event.data.links.dashboard.ends_with("/account"));

    let message = discord.wait_for(1, Duration::from_secs(10)).remove(0);
    assert_eq!(message.header("webhook-signature"), "", "Discord checks no signature");
    let message = message.json();
    assert!(message["content"].as_str().unwrap().contains("wiki bot"), "{message}");
    assert_eq!(message["allowed_mentions"]["parse"], serde_json::json!([]));
    assert!(message["embeds"][0]["title"].as_str().unwrap().starts_with(key.display_prefix()), "{message}");

    // Once: later sweeps find it announced; the other account is told nothing of it.
    seconds.fetch_add(86_400, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!((mine.received().len(), discord.received().len()), (1, 1));
    assert!(theirs.received().is_empty());
    server.stop();
}

#[test]
fn an_event_not_yet_delivered_survives_a_restart() {
    let receiver = Receiver::start(&[Act::Answer(503)]);
    let dir = TempDir::new().unwrap();
    let seconds = Arc::new(AtomicU64::new(now_secs()));
    let accounts = block(Accounts::open(&Location::DataDir(dir.path().to_owned()))).unwrap();
    let now = Timestamp(i64::try_from(seconds.load(Ordering::Relaxed)).unwrap());
    let owner = block(tapster_test_support::accounts::signed_up(&accounts, "restart@example.org", 8, now));
    let events = [WebhookEvent::VersionPublished];
    let id = block(accounts.create_webhook(owner, &endpoint(&receiver.url("/"), &events, &secret(1)), now))
        .unwrap()
        .id;
    let server = serving_with_clock(dir.path(), &seconds, Duration::from_secs(5));
    until_tried(&accounts, id, 1);
    server.stop();

    // Another process, later: the message waited in the accounts database, and goes out as it was.
    seconds.fetch_add(120, Ordering::Relaxed);
    let server = serving_with_clock(dir.path(), &seconds, Duration::from_secs(5));
    let log = until_tried(&accounts, id, 2);
    assert!(log[0].report.delivered, "{log:?}");
    let got = receiver.received();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
    assert_eq!(got[0].body, got[1].body);
    server.stop();
}
