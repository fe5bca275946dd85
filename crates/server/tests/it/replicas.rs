//! Several `tapster serve` processes sharing one accounts store in PostgreSQL (`--accounts-url`), each
//! with a data dir of its own: a key made anywhere works everywhere, and one revoked or suspended by
//! an admin command on any data dir is refused by every replica within a second. With Redis
//! (`--redis-url`) they share each key's rate limits too.

use std::time::{Duration, Instant};

use tapster_accounts::{Location, Token};
use tapster_test_support::http::get;
use tapster_test_support::postgres::TestSchema;
use tapster_test_support::proxy::Proxy;
use tapster_test_support::redis::{RedisServer, TestRedis};

use crate::cli::tapster;
use crate::{Serving, block, get_with_key, serve_with, signed_up_now_in};

/// How soon every replica must enforce a change made anywhere.
const EVERYWHERE_WITHIN: Duration = Duration::from_secs(1);

fn replicas(schema: &TestSchema, dirs: &[tempfile::TempDir]) -> Vec<Serving> {
    dirs.iter().map(|dir| serve_with(dir.path(), &["--accounts-url", schema.url()])).collect()
}

/// The `Cookie` header of a browser signed in to a new account of `email` in the shared store, with a
/// session made as the dashboard makes one; `seed` tells the session apart.
fn signed_in(schema: &TestSchema, email: &str, seed: u8) -> String {
    signed_in_with_key(schema, email, seed).0
}

/// [`signed_in`], and a key the account made (its id and the key).
fn signed_in_with_key(schema: &TestSchema, email: &str, seed: u8) -> (String, i64, String) {
    let session = Token::from_random([seed; 32]);
    let key = tapster_domain::ApiKey::generate(|| seed.wrapping_mul(7).wrapping_add(3));
    let id = block(async {
        let location = Location::Postgres(schema.url().to_owned());
        let (accounts, account, now) = signed_up_now_in(&location, email).await;
        accounts.create_session(account, session.hash(), "test", now).await.unwrap();
        let name = tapster_accounts::KeyName::parse("made in the dashboard").unwrap();
        accounts.create_key(account, &name, None, None, &key, now).await.unwrap().id
    });
    (format!("tapster_session={}", session.expose()), id, key.expose().to_owned())
}

/// Waits until every replica answers `key` on `/v1/versions` with `status`; how long that took.
pub(crate) fn until_everywhere(replicas: &[Serving], key: &str, status: u16) -> Duration {
    let started = Instant::now();
    for replica in replicas {
        loop {
            let answered = get_with_key(replica.addr, "/v1/versions", key).status;
            if answered == status {
                break;
            }
            assert!(
                started.elapsed() < 4 * EVERYWHERE_WITHIN,
                "replica {} still answers {answered}, not {status}",
                replica.addr
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    started.elapsed()
}

#[test]
fn replicas_share_keys_and_enforce_a_revocation_within_a_second() {
    let Some(schema) = TestSchema::create() else { return };
    let dirs: Vec<_> = (0..3).map(|_| tempfile::TempDir::new().unwrap()).collect();
    let replicas = replicas(&schema, &dirs);
    // The first replica found the shared store without keys and made the local one; the others
    // found it.
    let first = replicas[0].first_key().to_owned();
    assert!(replicas[1..].iter().all(|r| r.key.is_none()), "only one replica makes the first key");
    for replica in &replicas {
        assert_eq!(get_with_key(replica.addr, "/v1/versions", &first).status, 200);
    }

    // A key made by an admin command, through the second replica's data dir.
    let accounts_url = ["--accounts-url", schema.url()];
    let created = tapster(
        &[&["keys", "create", "--account", "bot@example.org", "--name", "bot"][..], &accounts_url].concat(),
        dirs[1].path(),
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let stdout = String::from_utf8_lossy(&created.stdout);
    let key = stdout.lines().last().unwrap().to_owned();
    until_everywhere(&replicas, &key, 200);

    // Suspended, then revoked, through the third replica's data dir.
    for (action, status) in [("suspend", 403), ("unsuspend", 200), ("revoke", 401)] {
        let changed = tapster(&[&["keys", action, &key[..12]][..], &accounts_url].concat(), dirs[2].path());
        assert!(changed.status.success(), "{}", String::from_utf8_lossy(&changed.stderr));
        let took = until_everywhere(&replicas, &key, status);
        assert!(took < EVERYWHERE_WITHIN, "{action} took {took:?} to reach every replica");
    }
    // The first key was never touched.
    assert_eq!(get_with_key(replicas[2].addr, "/v1/versions", &first).status, 200);

    // A browser session, made as the dashboard makes one (through whichever replica signed it in),
    // opens the dashboard on every replica.
    let cookie = signed_in(&schema, "marta@example.org", 9);
    for replica in &replicas {
        let page = get(replica.addr, "/account", &[("Cookie", &cookie)]);
        assert_eq!(page.status, 200, "the session does not open {}", replica.addr);
        assert!(page.text().contains("marta@example.org"));
    }
}

/// PostgreSQL cut off from a replica: the API keeps answering from the last snapshot, `/healthz`
/// says so, the dashboard and admin commands say the database is out of reach; back, and what
/// changed meanwhile applies.
#[test]
fn a_replica_keeps_serving_without_postgres_and_catches_up_after() {
    let Some(schema) = TestSchema::create() else { return };
    let proxy = Proxy::start(schema.server());
    let via_proxy = schema.url_via(proxy.addr());
    let dir = tempfile::TempDir::new().unwrap();
    let replica = serve_with(dir.path(), &["--accounts-url", &via_proxy]);
    let key = replica.first_key().to_owned();
    let cookie = signed_in(&schema, "pia@example.org", 11);
    assert_eq!(get(replica.addr, "/account", &[("Cookie", &cookie)]).status, 200);

    proxy.cut();
    let deadline = Instant::now() + Duration::from_secs(15);
    while get(replica.addr, "/healthz", &[]).json()["status"] != "degraded" {
        assert!(Instant::now() < deadline, "the replica never noticed PostgreSQL was gone");
        std::thread::sleep(Duration::from_millis(100));
    }
    let health = get(replica.addr, "/healthz", &[]).json();
    assert_eq!(health["degraded"][0]["dependency"], "accounts", "{health}");
    for _ in 0..10 {
        assert_eq!(get_with_key(replica.addr, "/v1/versions", &key).status, 200, "the snapshot serves");
    }
    let page = get(replica.addr, "/account", &[("Cookie", &cookie)]);
    assert_eq!(page.status, 503, "{}", page.text());
    assert!(page.text().contains("Accounts are out of reach"));
    assert!(!page.header("retry-after").is_empty());
    let admin = tapster(&["keys", "list", "--accounts-url", &via_proxy], dir.path());
    assert!(!admin.status.success(), "an admin command without its database succeeded");

    // Meanwhile the key is revoked, by an admin who reaches the database.
    let revoked = tapster(&["keys", "revoke", &key[..12], "--accounts-url", schema.url()], dir.path());
    assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
    assert_eq!(get_with_key(replica.addr, "/v1/versions", &key).status, 200, "not seen while cut off");

    proxy.restore();
    until_everywhere(std::slice::from_ref(&replica), &key, 401);
    assert_eq!(get(replica.addr, "/healthz", &[]).json()["status"], "ok");
    assert_eq!(get(replica.addr, "/account", &[("Cookie", &cookie)]).status, 200);
}

#[test]
fn an_admin_command_without_its_database_fails_and_says_why() {
    let dir = tempfile::TempDir::new().unwrap();
    // Nothing listens on port 1.
    let url = "postgres://tapster:hunter2@127.0.0.1:1/tapster";
    let output = tapster(&["keys", "list", "--accounts-url", url], dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("postgres://tapster@127.0.0.1:1/tapster"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "the password is never shown: {stderr}");

    let output = tapster(&["keys", "list", "--accounts-url", "redis://127.0.0.1"], dir.path());
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("postgres://"));
}

#[test]
fn replicas_with_redis_share_one_burst() {
    let (Some(schema), Some(redis)) = (TestSchema::create(), TestRedis::create()) else { return };
    let dirs: Vec<_> = (0..3).map(|_| tempfile::TempDir::new().unwrap()).collect();
    let flags = [
        "--accounts-url",
        schema.url(),
        "--redis-url",
        redis.url(),
        "--redis-prefix",
        redis.prefix(),
        "--replicas",
        "3",
        // A busy test machine may take longer than the default 25 ms, and answer locally.
        "--redis-timeout-ms",
        "1000",
    ];
    let replicas: Vec<Serving> = dirs.iter().map(|dir| serve_with(dir.path(), &flags)).collect();
    // A burst of 60 and 60 a day: the 61st request is refused, however long the 60 took.
    let created = tapster(
        &[
            "keys",
            "create",
            "--account",
            "burst@example.org",
            "--name",
            "burst",
            "--per-minute",
            "60",
            "--burst",
            "60",
            "--per-day",
            "60",
            "--accounts-url",
            schema.url(),
        ],
        dirs[0].path(),
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    until_everywhere(&replicas, &key, 200);

    // until_everywhere spent some of the burst; spend the rest, spread over the three.
    let mut statuses = Vec::new();
    for n in 0..120 {
        let answer = get_with_key(replicas[n % 3].addr, "/v1/versions", &key);
        if answer.status == 429 {
            assert!(!answer.header("retry-after").is_empty(), "a 429 says when to retry");
            break;
        }
        statuses.push(answer.status);
    }
    let earlier = 3; // the first 200 of each replica in until_everywhere
    assert_eq!(statuses.len() + earlier, 60, "exactly the burst passed across the replicas");
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
}

/// Redis killed under a replica: no `5xx`, keys limited locally, `/healthz` and `/metrics` say so;
/// back, and the limits are shared again.
#[test]
fn a_replica_keeps_serving_without_redis_and_says_so() {
    let Some(mut redis) = RedisServer::start() else { return };
    let dir = tempfile::TempDir::new().unwrap();
    let url = redis.url();
    let replica =
        serve_with(dir.path(), &["--redis-url", &url, "--replicas", "3", "--redis-timeout-ms", "1000"]);
    let key = replica.first_key().to_owned();
    assert_eq!(get_with_key(replica.addr, "/v1/versions", &key).status, 200);
    assert_eq!(get(replica.addr, "/healthz", &[]).json()["status"], "ok");
    let created = tapster(&["keys", "create", "--account", "gone@example.org", "--name", "gone"], dir.path());
    let revoked_key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    let revoked = tapster(&["keys", "revoke", &revoked_key[..12]], dir.path());
    assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
    until_everywhere(std::slice::from_ref(&replica), &revoked_key, 401);

    redis.kill();
    // The key's burst of 60 is 20 on each of three replicas.
    let mut admitted = 0;
    for n in 0..30 {
        let status = get_with_key(replica.addr, "/v1/versions", &key).status;
        assert!(status == 200 || status == 429, "answered {status} without Redis");
        admitted += usize::from(status == 200);
        // Now and then only: past 20 failed authentications the address itself would be refused.
        if n % 6 == 0 {
            assert_eq!(get_with_key(replica.addr, "/v1/versions", &revoked_key).status, 401);
        }
    }
    assert!((18..=22).contains(&admitted), "{admitted} of 30 admitted at a third of a burst of 60");
    let health = get(replica.addr, "/healthz", &[]);
    assert_eq!(health.status, 200);
    let health = health.json();
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["degraded"][0]["dependency"], "redis", "{health}");
    let metrics = get(replica.addr, "/metrics", &[]);
    assert!(metrics.text().contains("tapster_dependency_up{dependency=\"redis\"} 0"), "{}", metrics.text());

    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let _ = get_with_key(replica.addr, "/v1/versions", &key);
        if get(replica.addr, "/healthz", &[]).json()["status"] == "ok" {
            break;
        }
        assert!(Instant::now() < deadline, "the replica never found Redis again");
        std::thread::sleep(Duration::from_millis(200));
    }
    let metrics = get(replica.addr, "/metrics", &[]);
    assert!(metrics.text().contains("tapster_dependency_up{dependency=\"redis\"} 1"), "{}", metrics.text());
}

/// Redis restarted empty: the day's counts come back from the accounts database once Redis answers
/// again, so a day cap is not a fresh one.
#[test]
fn a_restarted_redis_gets_the_days_counts_back() {
    let Some(mut redis) = RedisServer::start() else { return };
    let dir = tempfile::TempDir::new().unwrap();
    let url = redis.url();
    let replica = serve_with(dir.path(), &["--redis-url", &url, "--redis-timeout-ms", "1000"]);
    let created = tapster(
        &["keys", "create", "--account", "day@example.org", "--name", "day", "--per-day", "10"],
        dir.path(),
    );
    let key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    // It waits for the key's first 200, and makes no other.
    until_everywhere(std::slice::from_ref(&replica), &key, 200);
    let mut admitted = 1;
    while admitted < 8 {
        assert_eq!(get_with_key(replica.addr, "/v1/versions", &key).status, 200);
        admitted += 1;
    }
    // Written to the accounts database within a flush (5 s); then Redis loses everything.
    std::thread::sleep(Duration::from_secs(6));
    redis.restart();
    // Redis answers again; within the next flush its day is raised to the database's.
    let deadline = Instant::now() + Duration::from_secs(20);
    while get(replica.addr, "/healthz", &[]).json()["status"] != "ok" || admitted < 9 {
        assert!(Instant::now() < deadline, "Redis was never found again");
        admitted += usize::from(get_with_key(replica.addr, "/v1/versions", &key).status == 200);
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(6));
    for _ in 0..10 {
        admitted += usize::from(get_with_key(replica.addr, "/v1/versions", &key).status == 200);
    }
    assert!(admitted <= 10, "{admitted} requests passed a day cap of 10 across a Redis restart");
}

/// Redis killed and restarted while four clients keep calling: every answer is a 200 or a 429,
/// never a `5xx`, and the replica finds Redis again.
#[test]
fn redis_going_and_coming_under_load_costs_no_request() {
    let Some(mut redis) = RedisServer::start() else { return };
    let dir = tempfile::TempDir::new().unwrap();
    let url = redis.url();
    let replica = serve_with(dir.path(), &["--redis-url", &url, "--redis-timeout-ms", "1000"]);
    let created = tapster(
        &["keys", "create", "--account", "load@example.org", "--name", "load", "--per-minute", "100000"],
        dir.path(),
    );
    let key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    until_everywhere(std::slice::from_ref(&replica), &key, 200);

    let addr = replica.addr;
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let key = key.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut statuses = Vec::new();
                while started.elapsed() < Duration::from_secs(3) {
                    statuses.push(get_with_key(addr, "/v1/versions", &key).status);
                }
                statuses
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    redis.kill();
    std::thread::sleep(Duration::from_millis(800));
    redis.restart();
    let statuses: Vec<u16> = clients.into_iter().flat_map(|client| client.join().unwrap()).collect();
    assert!(statuses.len() > 100, "only {} requests in 3 s", statuses.len());
    let unexpected: Vec<&u16> = statuses.iter().filter(|s| **s != 200 && **s != 429).collect();
    assert!(unexpected.is_empty(), "{} answers were neither 200 nor 429: {unexpected:?}", unexpected.len());

    let deadline = Instant::now() + Duration::from_secs(10);
    while get(addr, "/healthz", &[]).json()["status"] != "ok" {
        let _ = get_with_key(addr, "/v1/versions", &key);
        assert!(Instant::now() < deadline, "the replica never found Redis again");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A key its owner revokes in the dashboard of one replica is refused by every replica within a
/// second.
#[test]
fn a_key_revoked_in_one_replicas_dashboard_is_refused_by_all() {
    let Some(schema) = TestSchema::create() else { return };
    let dirs: Vec<_> = (0..2).map(|_| tempfile::TempDir::new().unwrap()).collect();
    let replicas = replicas(&schema, &dirs);
    let (cookie, id, key) = signed_in_with_key(&schema, "owner@example.org", 21);
    until_everywhere(&replicas, &key, 200);

    // The form as the page's browser sends it: the form token in its cookie and its field.
    let csrf = Token::from_random([22; 32]);
    let addr = replicas[0].addr;
    let body = format!("csrf={}", csrf.expose());
    let raw = format!(
        "POST /account/keys/{id}/revoke HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Cookie: {cookie}; tapster_csrf={}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        csrf.expose(),
        body.len()
    );
    let revoked = tapster_test_support::http::exchange(addr, &raw, 1).remove(0);
    assert_eq!((revoked.status, revoked.header("location")), (303, "/account"), "{}", revoked.text());
    let took = until_everywhere(&replicas, &key, 401);
    assert!(took < EVERYWHERE_WITHIN, "the revocation took {took:?} to reach every replica");
}
