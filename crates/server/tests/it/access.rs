//! Keys, suspensions, blocks and rate limits on a running server, in-process on `127.0.0.1:0`, with
//! admin changes made the way the commands make them, while it runs.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tapster_accounts::KeyAction;
use tapster_domain::Limits;
use tapster_server::{Admin, Clock, Service, Sharing};
use tempfile::TempDir;

use crate::{Running, block, get, get_with_key, mini};

/// A running service on a data dir with the small dataset, whose gate reads the wall clock.
fn start(data_dir: &Path) -> Running {
    start_with_clock(data_dir, Clock::system())
}

/// A running service on a data dir with the small dataset, whose gate reads the time from `clock`.
fn start_with_clock(data_dir: &Path, clock: Clock) -> Running {
    Running::open(Service::builder(data_dir, &Sharing::none(data_dir)).fixtures(Some(&mini())).clock(clock))
}

fn key(data_dir: &Path, email: &str, limits: Limits) -> String {
    block(async { Admin::open(data_dir).await?.create_key(email, "test", limits).await })
        .unwrap()
        .key
        .expose()
        .to_owned()
}

/// Polls until `path` answers `status` with `key`, for at most the one second docs/operations.md promises (plus slack
/// for a loaded machine); returns how long it took.
fn eventually(addr: SocketAddr, key: &str, status: u16) -> Duration {
    let start = Instant::now();
    loop {
        if get_with_key(addr, "/v1/versions", key).status == status {
            return start.elapsed();
        }
        assert!(start.elapsed() < Duration::from_secs(3), "no {status} after {:?}", start.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn every_refusal_has_its_status_type_and_detail() {
    let dir = TempDir::new().unwrap();
    let admin = block(Admin::open(dir.path())).unwrap();
    let good = key(dir.path(), "good@example.org", Limits::DEFAULT);
    let revoked = key(dir.path(), "good@example.org", Limits::DEFAULT);
    block(admin.change_key(&revoked, KeyAction::Revoke)).unwrap();
    let suspended = key(dir.path(), "good@example.org", Limits::DEFAULT);
    block(admin.change_key(&suspended, KeyAction::Suspend)).unwrap();
    let banned = key(dir.path(), "banned@example.org", Limits::DEFAULT);
    block(admin.suspend_account("banned@example.org", true, None)).unwrap();
    let unknown = tapster_domain::ApiKey::generate(|| 42).expose().to_owned();
    // One character changed (to another one: the key is random, and may hold an `x` there).
    let typo = if &good[10..11] == "x" { "y" } else { "x" };
    let mistyped = format!("{}{typo}{}", &good[..10], &good[11..]);
    let (expired, unconfirmed) = block(owner_keys(dir.path()));

    let server = start(dir.path());
    let cases: &[(Option<&str>, u16, &str, &str)] = &[
        (None, 401, "/errors/unauthorized", "needs an API key"),
        (Some(&mistyped), 401, "/errors/unauthorized", "checksum"),
        (Some("tap_short"), 401, "/errors/unauthorized", "not an API key"),
        (Some(&unknown), 401, "/errors/unauthorized", "not valid"),
        (Some(&revoked), 401, "/errors/unauthorized", "revoked"),
        (Some(&expired), 401, "/errors/unauthorized", "this API key has expired"),
        (Some(&unconfirmed), 403, "/errors/forbidden", "has not confirmed its e-mail address"),
        (Some(&suspended), 403, "/errors/forbidden", "this API key is suspended"),
        (Some(&banned), 403, "/errors/forbidden", "account that owns this API key is suspended"),
        (Some(&good), 200, "", ""),
    ];
    for &(key, status, kind, detail) in cases {
        let answer = match key {
            Some(key) => get_with_key(server.addr, "/v1/versions", key),
            None => get(server.addr, "/v1/versions", &[]),
        };
        assert_eq!(answer.status, status, "{key:?}: {}", answer.text());
        if status != 200 {
            assert_eq!(answer.header("content-type"), "application/problem+json");
            let problem = answer.json();
            assert_eq!(problem["type"], kind);
            assert!(problem["detail"].as_str().unwrap().contains(detail), "{problem}");
        }
    }
    // The same wording for a key that never existed and one of the wrong shape of secret: nothing
    // tells a caller whether some other key exists.
    let bearer = format!("bearer {good}");
    assert_eq!(get(server.addr, "/v1/versions", &[("Authorization", &bearer)]).status, 200);
    server.stop();
}

/// Keys made as the dashboard makes them: one that expired a second ago, and one whose account
/// confirmed its address and then lost it again (as no account can, short of editing the database,
/// but the gate must still refuse it).
async fn owner_keys(data_dir: &Path) -> (String, String) {
    use tapster_accounts::KeyName;
    use tapster_domain::{ApiKey, Timestamp};

    let (accounts, owner, now) = crate::signed_up_now(data_dir, "owner@example.org").await;
    let name = KeyName::parse("expiring").unwrap();
    let expired = ApiKey::generate(|| 11);
    accounts.create_key(owner, &name, Some(Timestamp(now.0 - 1)), None, &expired, now).await.unwrap();
    let unconfirmed = ApiKey::generate(|| 13);
    accounts.create_key(owner, &name, None, None, &unconfirmed, now).await.unwrap();
    let conn = rusqlite::Connection::open(data_dir.join(tapster_accounts::ACCOUNTS_DB)).unwrap();
    conn.execute("UPDATE accounts SET email = NULL WHERE email = 'owner@example.org'", []).unwrap();
    (expired.expose().to_owned(), unconfirmed.expose().to_owned())
}

#[test]
fn admin_commands_take_effect_on_the_running_server_within_a_second() {
    let dir = TempDir::new().unwrap();
    let key = key(dir.path(), "marta@example.org", Limits::DEFAULT);
    let server = start(dir.path());
    let admin = block(Admin::open(dir.path())).unwrap();
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);

    block(admin.change_key(&key, KeyAction::Suspend)).unwrap();
    assert!(eventually(server.addr, &key, 403) < Duration::from_secs(1));
    block(admin.change_key(&key, KeyAction::Unsuspend)).unwrap();
    assert!(eventually(server.addr, &key, 200) < Duration::from_secs(1));

    block(admin.suspend_account("marta@example.org", true, None)).unwrap();
    assert!(eventually(server.addr, &key, 403) < Duration::from_secs(1));
    block(admin.suspend_account("marta@example.org", false, None)).unwrap();
    assert!(eventually(server.addr, &key, 200) < Duration::from_secs(1));

    block(admin.block("127.0.0.0/8", true)).unwrap();
    assert!(eventually(server.addr, &key, 403) < Duration::from_secs(1));
    let answer = get(server.addr, "/v1/versions", &[]);
    assert_eq!(
        (answer.status, answer.json()["detail"].as_str()),
        (403, Some("requests from this address are blocked"))
    );
    block(admin.block("127.0.0.1", false)).unwrap();
    block(admin.block("127.0.0.0/8", false)).unwrap();
    assert!(eventually(server.addr, &key, 200) < Duration::from_secs(1));

    let fresh = self::key(dir.path(), "new@example.org", Limits::DEFAULT);
    assert!(eventually(server.addr, &fresh, 200) < Duration::from_secs(1));
    block(admin.change_key(&key, KeyAction::Revoke)).unwrap();
    assert!(eventually(server.addr, &key, 401) < Duration::from_secs(1));
    server.stop();
}

#[test]
fn a_burst_of_sixty_passes_then_429_with_the_true_retry_after() {
    let dir = TempDir::new().unwrap();
    let key = key(dir.path(), "burst@example.org", Limits::DEFAULT);
    let other = self::key(dir.path(), "other@example.org", Limits::DEFAULT);
    // The gate's time stands still until the test moves it: no refill while the requests run.
    let millis = Arc::new(AtomicU64::new(now_millis()));
    let clock = Clock::from_fn({
        let millis = Arc::clone(&millis);
        move || Duration::from_millis(millis.load(Ordering::Relaxed))
    });
    let server = start_with_clock(dir.path(), clock);

    let first = get_with_key(server.addr, "/v1/versions", &key);
    assert_eq!(
        first.header("ratelimit-policy"),
        r#""burst";q=60;w=12, "minute";q=300;w=60, "day";q=20000;w=86400"#
    );
    assert_eq!(first.header("ratelimit"), r#""burst";r=59;t=1"#);
    let mut passed = 1;
    let refused = loop {
        let answer = get_with_key(server.addr, "/v1/versions", &key);
        if answer.status != 200 {
            break answer;
        }
        passed += 1;
        assert!(passed <= 200, "no refusal after {passed} requests");
    };
    assert_eq!(passed, 60);
    assert_eq!(refused.status, 429);
    let problem = refused.json();
    assert_eq!(problem["type"], "/errors/rate-limited");
    // The body names the policy used up, as the header does.
    assert_eq!(problem["violated-policies"], serde_json::json!(["burst"]), "{problem}");
    assert!(problem["detail"].as_str().unwrap().starts_with("the burst rate limit"), "{problem}");
    assert_eq!(refused.header("retry-after"), "1");
    assert!(refused.header("ratelimit").starts_with(r#""burst";r=0;t=1"#), "{}", refused.header("ratelimit"));
    // Another key is untouched.
    assert_eq!(get_with_key(server.addr, "/v1/versions", &other).status, 200);
    // The burst refills one request every 200 ms: before that, still refused; waiting the whole
    // second the answer named is enough.
    millis.fetch_add(150, Ordering::Relaxed);
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 429);
    millis.fetch_add(850, Ordering::Relaxed);
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);
    server.stop();
}

#[test]
fn not_modified_answers_count_and_refusals_do_not() {
    let dir = TempDir::new().unwrap();
    // Three a minute, and a burst of three that refills only every 20 s: no refill during the test.
    let key = key(dir.path(), "etag@example.org", Limits::new(3, 3, 20_000).unwrap());
    let server = start(dir.path());
    let full = get_with_key(server.addr, "/v1/versions", &key);
    let auth = format!("Bearer {key}");
    let conditional = [("Authorization", auth.as_str()), ("If-None-Match", full.header("etag"))];
    assert_eq!(get(server.addr, "/v1/versions", &conditional).status, 304);
    assert_eq!(get(server.addr, "/v1/versions", &conditional).status, 304);
    assert_eq!(get(server.addr, "/v1/versions", &conditional).status, 429);
    server.stop();
}

#[test]
fn the_daily_cap_survives_a_restart() {
    let dir = TempDir::new().unwrap();
    let key = key(dir.path(), "daily@example.org", Limits::new(300, 60, 4).unwrap());
    let server = start(dir.path());
    for _ in 0..3 {
        assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);
    }
    server.stop();

    let server = start(dir.path());
    let last = get_with_key(server.addr, "/v1/versions", &key);
    assert_eq!(last.status, 200);
    assert!(last.header("ratelimit").starts_with(r#""day";r=0;"#), "{}", last.header("ratelimit"));
    let refused = get_with_key(server.addr, "/v1/versions", &key);
    assert_eq!(refused.status, 429);
    let retry: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=86_400).contains(&retry), "{retry}");
    server.stop();

    let listed =
        block(async { Admin::open(dir.path()).await?.list_keys(Some("daily@example.org")).await }).unwrap();
    assert!(listed[0].last_used_at.is_some());
}

/// `GET /v1/key` describes the key from the accounts database (its name and expiry as the dashboard
/// made it), its limits as the gate applies them, and today's requests as counted, across a restart.
#[test]
fn the_key_endpoint_tells_a_key_its_name_expiry_limits_and_requests_today() {
    use tapster_accounts::KeyName;
    use tapster_domain::{ApiKey, Timestamp};

    let dir = TempDir::new().unwrap();
    let (accounts, owner, now) = block(crate::signed_up_now(dir.path(), "whoami@example.org"));
    let key = ApiKey::generate(|| 17);
    let expires = Timestamp(now.0 + 90 * 86_400);
    let name = KeyName::parse("price bot").unwrap();
    block(accounts.create_key(owner, &name, Some(expires), None, &key, now)).unwrap();
    let key = key.expose();

    let server = start(dir.path());
    assert_eq!(get_with_key(server.addr, "/v1/versions", key).status, 200);
    let answer = get_with_key(server.addr, "/v1/key", key);
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));
    assert_eq!(answer.header("cache-control"), "no-store");
    let data = &answer.json()["data"];
    assert_eq!(data["name"], "price bot");
    assert_eq!(data["prefix"], &key[..12]);
    assert_eq!(data["expires_at"], expires.to_string());
    assert_eq!(data["requests_today"], 2);
    let limits: Vec<(&str, u64, u64)> = data["limits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (l["policy"].as_str().unwrap(), l["quota"].as_u64().unwrap(), l["remaining"].as_u64().unwrap())
        })
        .collect();
    // The default limits, less the two requests: the burst refills between them only on a slow machine.
    assert_eq!(limits[1..], [("minute", 300, 298), ("day", 20_000, 19_998)]);
    assert_eq!(limits[0].0, "burst");
    assert!((58..=60).contains(&limits[0].2), "{limits:?}");
    server.stop();

    // Today's count is the accounts database's after a restart, as the daily cap is.
    let server = start(dir.path());
    let data = &get_with_key(server.addr, "/v1/key", key).json()["data"];
    assert_eq!(data["requests_today"], 3, "{data}");
    server.stop();
}

#[test]
fn too_many_failed_authentications_get_429_while_a_valid_key_from_the_address_passes() {
    let dir = TempDir::new().unwrap();
    let admin = block(Admin::open(dir.path())).unwrap();
    let good = key(dir.path(), "good@example.org", Limits::DEFAULT);
    let revoked = key(dir.path(), "good@example.org", Limits::DEFAULT);
    block(admin.change_key(&revoked, KeyAction::Revoke)).unwrap();
    let unknown = tapster_domain::ApiKey::generate(|| 42).expose().to_owned();
    let server = start(dir.path());
    // Well-formed keys that open nothing count: an unknown and a revoked one.
    let failing = |n: usize| match n % 2 {
        0 => get_with_key(server.addr, "/v1/versions", &unknown),
        _ => get_with_key(server.addr, "/v1/versions", &revoked),
    };

    // Twenty fail as unauthorized; the allowance comes back one failure every 3 seconds, so a slow
    // machine may see a few more before the first 429.
    let started = Instant::now();
    let mut unauthorized = 0;
    let refused = loop {
        let answer = failing(unauthorized);
        if answer.status != 401 {
            break answer;
        }
        unauthorized += 1;
        assert!(unauthorized <= 100, "no refusal after {unauthorized} failures");
    };
    let refilled = started.elapsed().as_secs() as usize / 3 + 1;
    assert!((20..=20 + refilled).contains(&unauthorized), "{unauthorized} failures, {refilled} refilled");
    assert_eq!(refused.status, 429, "{}", refused.text());
    assert_eq!(refused.header("content-type"), "application/problem+json");
    let problem = refused.json();
    assert_eq!(problem["type"], "/errors/rate-limited");
    assert!(
        problem["detail"].as_str().unwrap().starts_with("too many failed authentications from this address"),
        "{problem}"
    );
    // No key's policy is used up here: the address is refused.
    assert!(problem.get("violated-policies").is_none(), "{problem}");
    let retry: u64 = refused.header("retry-after").parse().unwrap();
    assert!((1..=3).contains(&retry), "{retry}");

    // Mistakes are not guesses: a missing or malformed key is still told what is wrong with it.
    assert_eq!(get(server.addr, "/v1/versions", &[]).status, 401);
    assert_eq!(get_with_key(server.addr, "/v1/versions", "tap_short").status, 401);

    // Every kind of failure is refused alike, and a valid key from the same address still passes.
    let blocked_at = Instant::now();
    let statuses: Vec<u16> = (0..4).map(|n| failing(n).status).collect();
    let refilled = blocked_at.elapsed().as_secs() as usize / 3 + 1;
    let unauthorized = statuses.iter().filter(|s| **s == 401).count();
    assert!(statuses.iter().all(|s| [401, 429].contains(s)) && unauthorized <= refilled, "{statuses:?}");
    assert_eq!(get_with_key(server.addr, "/v1/versions", &good).status, 200);

    let metrics = get(server.addr, "/metrics", &[]);
    assert_eq!(metrics.status, 200);
    let refusals = metrics
        .text()
        .lines()
        .find_map(|line| {
            line.strip_prefix("tapster_http_rate_limited_total{limit=\"failed_authentications\"} ")
        })
        .unwrap();
    assert_eq!(refusals.parse::<usize>().unwrap(), 1 + 4 - unauthorized);
    server.stop();
}

/// The wall clock in milliseconds since the Unix epoch, where a test's own clock starts.
fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A browser key answers only requests from the pages its owner listed, naming that page in CORS;
/// each calling address gets the key's burst of its own, while the day cap holds for all of them.
#[test]
fn a_browser_key_answers_its_pages_each_caller_with_its_own_burst_and_one_day() {
    use tapster_accounts::KeyName;
    use tapster_domain::{ApiKey, Origins};
    use tapster_test_support::http::get_from;

    let dir = TempDir::new().unwrap();
    let (accounts, owner, now) = block(crate::signed_up_now(dir.path(), "calc@example.org"));
    let origins = Origins::parse_lines("https://calc.example\nhttp://localhost:3000").unwrap().unwrap();
    let name = KeyName::parse("calculator").unwrap();
    let key = ApiKey::generate(|| 23);
    let made = block(accounts.create_key(owner, &name, None, Some(&origins), &key, now)).unwrap();
    let server_key = ApiKey::generate(|| 29);
    block(accounts.create_key(owner, &name, None, None, &server_key, now)).unwrap();
    // Three at once for each caller, seven a day for the key: small enough to spend in a test.
    let conn = rusqlite::Connection::open(dir.path().join(tapster_accounts::ACCOUNTS_DB)).unwrap();
    conn.execute("UPDATE keys SET burst = 3, per_day = 7 WHERE id = ?1", [made.id]).unwrap();
    // The gate's time stands still: no refill while the requests run.
    let clock = Clock::from_fn({
        let millis = now_millis();
        move || Duration::from_millis(millis)
    });
    let server = start_with_clock(dir.path(), clock);
    let auth = format!("Bearer {}", key.expose());
    let call = |from: &str, origin: Option<&str>| {
        let mut headers = vec![("Authorization", auth.as_str())];
        headers.extend(origin.map(|origin| ("Origin", origin)));
        get_from(from.parse().unwrap(), server.addr, "/v1/versions", &headers)
    };

    // From a script (no Origin) or another site: refused, saying why, and counted nowhere.
    let missing = call("127.0.0.2", None);
    assert_eq!(missing.status, 403, "{}", missing.text());
    assert!(missing.json()["detail"].as_str().unwrap().contains("names no Origin"), "{}", missing.text());
    let other = call("127.0.0.2", Some("https://evil.example"));
    assert_eq!(other.status, 403);
    assert!(other.json()["detail"].as_str().unwrap().contains("https://evil.example"), "{}", other.text());
    // A browser sends the origin in lower case; another spelling is another origin.
    assert_eq!(call("127.0.0.2", Some("https://CALC.example")).status, 403);

    // From the page: answered, with CORS naming that page (not `*`), and the limits per address.
    let first = call("127.0.0.2", Some("https://calc.example"));
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.header("access-control-allow-origin"), "https://calc.example");
    assert_eq!(first.header("vary"), "Authorization, Accept-Encoding, Origin");
    assert_eq!(
        first.header("ratelimit-policy"),
        r#""burst-per-address";q=3;w=1, "minute-per-address";q=300;w=60, "day";q=7;w=86400"#
    );
    assert_eq!(call("127.0.0.2", Some("http://localhost:3000")).status, 200);
    assert_eq!(call("127.0.0.2", Some("https://calc.example")).status, 200);
    let spent = call("127.0.0.2", Some("https://calc.example"));
    assert_eq!(spent.status, 429);
    assert_eq!(
        spent.json()["violated-policies"],
        serde_json::json!(["burst-per-address"]),
        "{}",
        spent.text()
    );

    // Another visitor has a burst of its own; the day's seven are the key's, over all visitors.
    for n in 0..3 {
        assert_eq!(
            call("127.0.0.3", Some("https://calc.example")).status,
            200,
            "second visitor, request {n}"
        );
    }
    let last = call("127.0.0.4", Some("https://calc.example"));
    assert_eq!(last.status, 200);
    assert!(last.header("ratelimit").starts_with(r#""day";r=0;"#), "{}", last.header("ratelimit"));
    let capped = call("127.0.0.5", Some("https://calc.example"));
    assert_eq!(capped.status, 429);
    assert_eq!(capped.json()["violated-policies"], serde_json::json!(["day"]), "{}", capped.text());

    // A key for servers is untouched by any of it, and its answers stay open to every page.
    let answer = get_with_key(server.addr, "/v1/versions", server_key.expose());
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("access-control-allow-origin"), "*");
    server.stop();
}
