//! Game data published once for every replica (`tapster publish`, with `--accounts-url`): three
//! `serve` processes on one PostgreSQL follow each generation within seconds and answer alike;
//! broken data publishes nothing; `--activate` rolls every replica back; a generation damaged in
//! the database is refused while the data before keeps serving; a replica started later serves the
//! current generation from its first answer.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tapster_test_support::http::get;
use tapster_test_support::postgres::TestSchema;

use crate::cli::tapster;
use crate::{Serving, get_with_key, serve_with};

/// How soon every replica must serve what was published.
const EVERYWHERE_WITHIN: Duration = Duration::from_secs(5);

/// `tapster <args> --accounts-url <url>` from the data dir `dir`.
fn admin(args: &[&str], url: &str, dir: &Path) -> Output {
    tapster(&[args, &["--accounts-url", url]].concat(), dir)
}

fn succeeded(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The number of the generation a `publish` made current, from what it printed.
fn generation_of(printed: &str) -> i64 {
    printed.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{printed}"))
}

fn latest(replica: &Serving, key: &str) -> String {
    let versions = get_with_key(replica.addr, "/v1/versions", key).json();
    versions["meta"]["game_version"].as_str().unwrap().to_owned()
}

/// Waits until every replica's latest version is `version`; how long that took after `since`.
fn until_all_serve(replicas: &[&Serving], key: &str, version: &str, since: Instant) -> Duration {
    for replica in replicas {
        while latest(replica, key) != version {
            assert!(
                since.elapsed() < 3 * EVERYWHERE_WITHIN,
                "{} still serves {}",
                replica.addr,
                latest(replica, key)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    since.elapsed()
}

/// The `ETag` of the same request on each replica.
fn etags(replicas: &[&Serving], key: &str) -> Vec<String> {
    replicas
        .iter()
        .map(|r| get_with_key(r.addr, "/v1/items?limit=3", key).header("etag").to_owned())
        .collect()
}

fn health(replica: &Serving) -> serde_json::Value {
    get(replica.addr, "/healthz", &[]).json()
}

#[test]
fn one_publish_reaches_every_replica_and_a_rollback_brings_them_back() {
    let Some(schema) = TestSchema::create() else { return };
    let url = schema.url();
    let mini = crate::mini();
    // Empty data dirs, and nothing published yet: each imports its own dataset (the small one's first
    // version, for speed, instead of the bundled one).
    let dirs: Vec<_> = (0..3).map(|_| tempfile::TempDir::new().unwrap()).collect();
    let first_version = mini.join("v1.0.0.0.1");
    let flags = ["--accounts-url", url, "--fixtures", first_version.to_str().unwrap()];
    let replicas: Vec<Serving> = dirs.iter().map(|dir| serve_with(dir.path(), &flags)).collect();
    let all: Vec<&Serving> = replicas.iter().collect();
    let elsewhere = tempfile::TempDir::new().unwrap();
    // A key that the checks and the load below never exhaust.
    let limits = ["--per-minute", "100000", "--burst", "10000", "--per-day", "1000000"];
    let created = admin(
        &[&["keys", "create", "--account", "checks@example.org", "--name", "checks"][..], &limits].concat(),
        url,
        elsewhere.path(),
    );
    let key = succeeded(&created).lines().last().unwrap().to_owned();
    crate::replicas::until_everywhere(&replicas, &key, 200);
    // Nothing published yet: each serves its own data dir, and names no generation.
    assert_eq!(latest(&replicas[0], &key), "v1.0.0.0.1");
    assert!(health(&replicas[0])["generation"].is_null());

    // Clients keep calling while the data changes under them, until every replica serves the new
    // data: every answer is whole, and each client sees the old data, then the new.
    let calling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let load: Vec<_> = replicas
        .iter()
        .map(|replica| {
            let (addr, key, calling) = (replica.addr, key.clone(), std::sync::Arc::clone(&calling));
            std::thread::spawn(move || {
                let mut seen: Vec<String> = Vec::new();
                // Told to stop once every replica serves the new data, a client still makes the
                // request that sees it (it may have been asleep when the switch came), within a bound.
                let deadline = Instant::now() + Duration::from_secs(60);
                let wanted = |seen: &[String]| seen.last().is_some_and(|last| last == "v1.0.1.0.0");
                while (calling.load(std::sync::atomic::Ordering::Relaxed) || !wanted(&seen))
                    && Instant::now() < deadline
                {
                    let answer = get_with_key(addr, "/v1/versions", &key);
                    assert_eq!(answer.status, 200, "{}", answer.text());
                    let version = answer.json()["meta"]["game_version"].as_str().unwrap().to_owned();
                    if seen.last() != Some(&version) {
                        seen.push(version);
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                seen
            })
        })
        .collect();
    let printed = succeeded(&admin(&["publish", mini.to_str().unwrap()], url, elsewhere.path()));
    let first = generation_of(&printed);
    assert!(printed.contains("v1.0.1.0.0, v1.0.0.0.1"), "{printed}");
    until_all_serve(&all, &key, "v1.0.1.0.0", Instant::now());
    calling.store(false, std::sync::atomic::Ordering::Relaxed);
    for client in load {
        assert_eq!(
            client.join().unwrap(),
            ["v1.0.0.0.1", "v1.0.1.0.0"],
            "the old data, then the new, and no mix"
        );
    }
    let same = etags(&all, &key);
    assert!(same.iter().all(|etag| !etag.is_empty() && *etag == same[0]), "{same:?}");
    let sha256 = health(&replicas[0])["generation"]["sha256"].as_str().unwrap().to_owned();
    for replica in &replicas {
        let health = health(replica);
        assert_eq!(
            (health["status"].as_str(), health["generation"]["number"].as_i64()),
            (Some("ok"), Some(first))
        );
        assert_eq!(health["generation"]["sha256"], sha256.as_str());
        let metrics = get(replica.addr, "/metrics", &[]).text().to_owned();
        let gauge = format!("tapster_game_data_generation{{sha256=\"{sha256}\"}} {first}");
        assert!(metrics.contains(&gauge), "{metrics}");
    }

    // Broken data publishes nothing and changes nothing anywhere.
    let broken = tempfile::TempDir::new().unwrap();
    let version = broken.path().join("v1.0.2.0.0");
    tapster_test_support::copy_tree(&mini.join("v1.0.1.0.0"), &version);
    std::fs::write(version.join("items.json"), "[{\"id\": ").unwrap();
    let refused = admin(&["publish", broken.path().to_str().unwrap()], url, elsewhere.path());
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("items.json"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let listed = succeeded(&admin(&["published"], url, elsewhere.path()));
    assert_eq!(listed.lines().count(), 2, "{listed}");

    // A second generation (the older version alone), served everywhere within 5 s of the command,
    // then a rollback to the first.
    let second = generation_of(&succeeded(&admin(
        &["publish", mini.join("v1.0.0.0.1").to_str().unwrap()],
        url,
        elsewhere.path(),
    )));
    let took = until_all_serve(&all, &key, "v1.0.0.0.1", Instant::now());
    assert!(took < EVERYWHERE_WITHIN, "every replica took {took:?}");
    let listed = succeeded(&admin(&["published"], url, elsewhere.path()));
    assert!(listed.lines().nth(1).unwrap().contains(&format!("{second}  yes")), "{listed}");
    let back = succeeded(&admin(&["publish", "--activate", &first.to_string()], url, elsewhere.path()));
    assert_eq!(generation_of(&back), first);
    let took = until_all_serve(&all, &key, "v1.0.1.0.0", Instant::now());
    assert!(took < EVERYWHERE_WITHIN, "the rollback took {took:?}");
    assert_eq!(etags(&all, &key), same, "the same generation answers the same bytes");

    // A replica started now, on an empty data dir, serves the current generation from its first
    // answer.
    let late_dir = tempfile::TempDir::new().unwrap();
    let late = serve_with(late_dir.path(), &["--accounts-url", url]);
    assert_eq!(latest(&late, &key), "v1.0.1.0.0");
    assert_eq!(health(&late)["generation"]["number"].as_i64(), Some(first));

    // A generation altered in the database (a copy of the second, its own SHA-256 and size, one
    // byte changed in each chunk) is refused by every replica, which keeps serving the first and
    // says why.
    let damaged = format!(
        "WITH g AS (INSERT INTO generations (sha256, size, stored, chunks, versions, published_at, published_by)
                    SELECT sha256, size, stored, chunks, versions, published_at, 'mallory@test'
                    FROM generations WHERE number = {second} RETURNING number)
         INSERT INTO generation_chunks (generation, index, bytes)
         SELECT g.number, c.index, set_byte(c.bytes, length(c.bytes) / 2, 255 - get_byte(c.bytes, length(c.bytes) / 2))
         FROM g, generation_chunks c WHERE c.generation = {second};
         UPDATE current_generation SET number = (SELECT max(number) FROM generations);"
    );
    let psql =
        Command::new("psql").args(["-v", "ON_ERROR_STOP=1", "-q", url, "-c", &damaged]).output().unwrap();
    succeeded(&psql);
    let deadline = Instant::now() + 3 * EVERYWHERE_WITHIN;
    for replica in [&replicas[0], &replicas[1], &replicas[2], &late] {
        while health(replica)["status"] != "degraded" {
            assert!(Instant::now() < deadline, "{} never said the generation is damaged", replica.addr);
            std::thread::sleep(Duration::from_millis(100));
        }
        let health = health(replica);
        assert_eq!(health["degraded"][0]["dependency"], "game data", "{health}");
        let detail = health["degraded"][0]["detail"].as_str().unwrap();
        assert!(detail.contains(&format!("serving generation {first}")), "{detail}");
        assert!(detail.contains("uncompress") || detail.contains("SHA-256"), "{detail}");
        assert_eq!(health["generation"]["number"].as_i64(), Some(first), "{health}");
        assert_eq!(latest(replica, &key), "v1.0.1.0.0");
    }
    assert_eq!(etags(&all, &key), same);
}

#[test]
fn without_the_accounts_in_postgresql_there_is_nothing_to_publish_to() {
    let dir = tempfile::TempDir::new().unwrap();
    let refused = tapster(&["publish", crate::mini().to_str().unwrap()], dir.path());
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--accounts-url") && stderr.contains("tapster import"), "{stderr}");
    let refused = tapster(&["published"], dir.path());
    assert!(!refused.status.success());
    // Refused before anything was written.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
