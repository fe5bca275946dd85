//! Three `tapster serve` replicas sharing their limits through a Redis Cluster of three masters
//! (`--redis-cluster`, one flag per seed node): one burst and one day for each key across them; a
//! master killed under load costs no request, lets no revoked key in and takes only its own keys'
//! limits local, while the keys on the other masters stay shared; brought back, it shares again.

use std::time::{Duration, Instant};

use tapster_test_support::http::get;
use tapster_test_support::postgres::TestSchema;
use tapster_test_support::redis::RedisCluster;

use crate::cli::tapster;
use crate::replicas::until_everywhere;
use crate::{Serving, get_with_key, serve_with};

/// What this test's keys in Redis start with.
const PREFIX: &str = "cluster";

/// A key made by the admin command: its id and the key.
struct Key {
    id: i64,
    key: String,
}

fn create_key(schema: &TestSchema, dir: &std::path::Path, limits: [&str; 3]) -> Key {
    let [per_minute, burst, per_day] = limits;
    let created = tapster(
        &[
            "keys",
            "create",
            "--account",
            "cluster@example.org",
            "--name",
            "cluster",
            "--per-minute",
            per_minute,
            "--burst",
            burst,
            "--per-day",
            per_day,
            "--accounts-url",
            schema.url(),
        ],
        dir,
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let stdout = String::from_utf8_lossy(&created.stdout);
    // "created key 7 (tap_Ab12Cd34) for ...", then the key.
    let id = stdout.split_whitespace().nth(2).and_then(|id| id.parse().ok()).expect(&stdout);
    Key { id, key: stdout.lines().last().unwrap().to_owned() }
}

/// A new key whose limits live on master `node` (keys are made until one lands there).
fn key_on(
    cluster: &RedisCluster,
    schema: &TestSchema,
    dir: &std::path::Path,
    node: usize,
    limits: [&str; 3],
) -> Key {
    loop {
        let key = create_key(schema, dir, limits);
        if cluster.node_of(&format!("{PREFIX}:{{{}}}", key.id)) == node {
            return key;
        }
    }
}

/// `count` requests of `key`, spread over the replicas in turn: how many passed (every other answer
/// must be a `429`).
fn spread(replicas: &[Serving], key: &str, count: usize) -> usize {
    (0..count)
        .filter(|n| {
            let status = get_with_key(replicas[n % replicas.len()].addr, "/v1/versions", key).status;
            assert!(status == 200 || status == 429, "answered {status}");
            status == 200
        })
        .count()
}

fn healthy(replicas: &[Serving]) -> bool {
    replicas.iter().all(|replica| get(replica.addr, "/healthz", &[]).json()["status"] == "ok")
}

#[test]
fn replicas_share_limits_through_a_redis_cluster_and_ride_out_a_dead_master() {
    let (Some(schema), Some(mut cluster)) = (TestSchema::create(), RedisCluster::start()) else { return };
    // The small dataset: each replica starts at once.
    let dirs: Vec<_> = (0..3).map(|_| tempfile::TempDir::new().unwrap()).collect();
    for dir in &dirs {
        assert!(tapster(&["import", crate::mini().to_str().unwrap()], dir.path()).status.success());
    }
    let mut flags = vec!["--accounts-url", schema.url(), "--redis-prefix", PREFIX, "--replicas", "3"];
    let seeds = cluster.urls();
    for seed in &seeds {
        flags.extend(["--redis-cluster", seed.as_str()]);
    }
    // A busy test machine may take longer than the default 25 ms, and answer locally.
    flags.extend(["--redis-timeout-ms", "1000"]);
    let replicas: Vec<Serving> = dirs.iter().map(|dir| serve_with(dir.path(), &flags)).collect();
    let first = replicas[0].first_key().to_owned();
    let dir = dirs[0].path();

    // Keys on the master that will die (node 0) and on another one: a burst of four (locally a
    // replica would allow two, so six across three), and a day of ten (locally four each).
    let burst = ["60", "4", "1000"];
    let day = ["6000", "100", "10"];
    let (doomed, steady) =
        (key_on(&cluster, &schema, dir, 0, burst), key_on(&cluster, &schema, dir, 1, burst));
    let (doomed_day, steady_day) =
        (key_on(&cluster, &schema, dir, 0, day), key_on(&cluster, &schema, dir, 2, day));
    let revoked = key_on(&cluster, &schema, dir, 0, burst);
    for key in [&doomed, &steady, &doomed_day, &steady_day, &revoked] {
        until_everywhere(&replicas, &key.key, 200);
    }
    // until_everywhere made one request on each replica.
    std::thread::sleep(Duration::from_secs(4));
    for key in [&doomed, &steady] {
        assert_eq!(spread(&replicas, &key.key, 9), 4, "one burst of four across three replicas");
    }
    assert_eq!(spread(&replicas, &steady_day.key, 20), 10 - 3, "one day of ten across three replicas");

    // Clients keep calling every replica while the master goes.
    let addrs: Vec<_> = replicas.iter().map(|replica| replica.addr).collect();
    let load: Vec<_> = addrs
        .iter()
        .map(|&addr| {
            let keys = [first.clone(), doomed_day.key.clone(), steady.key.clone()];
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut statuses = Vec::new();
                for n in 0.. {
                    if started.elapsed() > Duration::from_secs(6) {
                        break;
                    }
                    statuses.push(get_with_key(addr, "/v1/versions", &keys[n % 3]).status);
                }
                statuses
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    cluster.kill(0);
    // A key revoked while its master is down is refused everywhere within a second (revocations
    // come from the accounts database, not Redis).
    assert!(
        tapster(&["keys", "revoke", &revoked.key[..12], "--accounts-url", schema.url()], dir)
            .status
            .success()
    );
    until_everywhere(&replicas, &revoked.key, 401);
    for client in load {
        let statuses = client.join().unwrap();
        assert!(statuses.len() > 30, "only {} requests in 6 s", statuses.len());
        assert!(statuses.iter().all(|status| *status == 200 || *status == 429), "{statuses:?}");
    }
    for replica in &replicas {
        assert_eq!(get_with_key(replica.addr, "/v1/versions", &revoked.key).status, 401);
        let health = get(replica.addr, "/healthz", &[]).json();
        assert_eq!(health["status"], "degraded", "{health}");
    }
    // The keys on the living masters are still shared: one burst across the replicas.
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(spread(&replicas, &steady.key, 9), 4, "the other masters' keys stay shared");
    // The doomed master's keys are limited by each replica at its share: two of a burst of four.
    assert_eq!(spread(&replicas, &doomed.key, 9), 6, "a third of the burst on each replica");

    // Back, empty: every replica gives it back what it admitted, and its keys are shared again. No
    // request calls: the replicas ask again by themselves, within a write of usage (5 s).
    cluster.restart(0);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !healthy(&replicas) {
        assert!(Instant::now() < deadline, "the replicas never found the master again");
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(spread(&replicas, &doomed.key, 9), 4, "shared again");
    // The day of ten was spent before the master came back empty: it stays spent.
    assert_eq!(spread(&replicas, &doomed_day.key, 6), 0, "the day's count came back");
}
