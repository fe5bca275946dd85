//! The shared limits (`Shared`) on a Redis Cluster of three masters of the test's own (in plain text
//! and speaking only TLS), and on a Redis of its own that speaks only TLS: the same sharing as on one
//! plain node; a master that dies takes only its own keys to the local fallback, and when it comes
//! back empty it is given their day back; a certificate that is refused stops the limiter before it
//! starts.

use std::time::{Duration, Instant};

use tapster_domain::Limits;
use tapster_server::{Checked, Decision, Limiter, RedisLimits, RedisServers, RedisTls, Shared, Subject};
use tapster_test_support::redis::{RedisCluster, RedisServer};
use tapster_test_support::tls::TestCa;

/// Three at once, one a second, a hundred a day.
const SMALL: Limits = Limits { per_minute: 60, burst: 3, per_day: 100 };
/// Long enough for a first connection on a busy machine.
const PATIENT: Duration = Duration::from_millis(500);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn now() -> Duration {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap()
}

async fn decide(limiter: &Shared, key: i64) -> Decision {
    match limiter.limit(Subject::key(key), SMALL, now()) {
        Checked::Now(decision) => decision,
        Checked::Later(decision) => decision.await,
    }
}

/// Four requests of `key`, alternating between two replicas: which passed.
async fn alternating(one: &Shared, two: &Shared, key: i64) -> Vec<bool> {
    let mut passed = Vec::new();
    for limiter in [one, two, one, two] {
        passed.push(matches!(decide(limiter, key).await, Decision::Allowed(_)));
    }
    passed
}

/// Keys whose state lands on the masters `on` (by index), one each, found by asking the cluster.
fn keys_on(cluster: &RedisCluster, prefix: &str, on: &[usize]) -> Vec<i64> {
    on.iter()
        .map(|node| (1..).find(|id| cluster.node_of(&format!("{prefix}:{{{id}}}")) == *node).unwrap())
        .collect()
}

/// How many times a node ran a script by its digest, from its `INFO commandstats`.
fn evalsha_calls(stats: &str) -> u64 {
    let line = stats.lines().find(|line| line.starts_with("cmdstat_evalsha:")).unwrap_or_default();
    line.split([':', ',']).find_map(|field| field.strip_prefix("calls=")).map_or(0, |n| n.parse().unwrap())
}

fn cluster_limits(cluster: &RedisCluster, prefix: &str) -> RedisLimits {
    RedisLimits {
        servers: RedisServers::Cluster(cluster.urls()),
        tls: RedisTls::default(),
        prefix: prefix.to_owned(),
        replicas: 2,
        timeout: PATIENT,
    }
}

#[test]
fn a_cluster_shares_every_key_and_a_dead_master_takes_only_its_own_keys_local() {
    let Some(mut cluster) = RedisCluster::start() else { return };
    runtime().block_on(async {
        let limits = cluster_limits(&cluster, "shared");
        let (one, two) = (Shared::new(&limits).unwrap(), Shared::new(&limits).unwrap());
        let keys = keys_on(&cluster, "shared", &[0, 1, 2]);
        // Two replicas share each key's burst of three, whichever master holds it.
        for key in &keys {
            assert_eq!(alternating(&one, &two, *key).await, [true, true, true, false], "key {key}");
        }
        // A master that lost its scripts (restarted, or promoted) is sent the script itself.
        for node in 0..3 {
            assert!(cluster.cli(node, &["SCRIPT", "FLUSH"]).contains("OK"));
        }
        let [on_0, on_1, on_2] = keys_on(&cluster, "again", &[0, 1, 2])[..] else { unreachable!() };
        let limits = cluster_limits(&cluster, "again");
        let (one, two) = (Shared::new(&limits).unwrap(), Shared::new(&limits).unwrap());
        assert_eq!(alternating(&one, &two, on_1).await, [true, true, true, false]);

        // Requests of one key that arrive together are judged as on one node: the first runs the
        // script alone, the others queued behind it share the next run; of twenty, the burst's
        // three pass. (The script is on node 1 again since the request just before.)
        let coalesced = (on_1 + 1..).find(|id| cluster.node_of(&format!("again:{{{id}}}")) == 1).unwrap();
        let runs = || evalsha_calls(&cluster.cli(1, &["INFO", "commandstats"]));
        let before = runs();
        let requests: Vec<_> = (0..20)
            .map(|_| {
                let one = one.clone();
                tokio::spawn(async move { decide(&one, coalesced).await })
            })
            .collect();
        let mut passed = 0;
        for request in requests {
            passed += usize::from(matches!(request.await.unwrap(), Decision::Allowed(_)));
        }
        assert_eq!(passed, 3, "the burst of three");
        assert_eq!(runs() - before, 2, "one run, then one for the rest");

        cluster.kill(0);
        // The keys of the dead master are limited by each replica at its share (two of three),
        // at once after the first wait; the others' answers stay shared and prompt.
        let started = Instant::now();
        assert_eq!(alternating(&one, &two, on_0).await, [true, true, true, true], "two each, locally");
        assert!(started.elapsed() < 4 * PATIENT, "{:?}", started.elapsed());
        assert!(one.degraded() && two.degraded());
        let started = Instant::now();
        assert_eq!(alternating(&one, &two, on_2).await, [true, true, true, false], "still shared");
        assert!(started.elapsed() < PATIENT, "{:?}", started.elapsed());
        assert!(one.trouble().unwrap().contains("1 of 16384 slots"), "{:?}", one.trouble());

        // Back, empty: once its keys' slot is asked again, each replica gives it back what it admitted.
        cluster.restart(0);
        let deadline = Instant::now() + Duration::from_secs(15);
        let mut admitted = 4;
        while one.degraded() || two.degraded() {
            assert!(Instant::now() < deadline, "the master was never asked again");
            tokio::time::sleep(Duration::from_millis(300)).await;
            for limiter in [&one, &two] {
                admitted += usize::from(matches!(decide(limiter, on_0).await, Decision::Allowed(_)));
            }
        }
        match decide(&one, on_0).await {
            Decision::Allowed(status) => assert_eq!(
                u64::from(status.day.left),
                100 - admitted as u64 - 1,
                "the restarted master counts the {admitted} admitted meanwhile and this one"
            ),
            limited => {
                // The burst may still be spent; the day is what matters.
                let Decision::Limited { status, .. } = limited else { unreachable!() };
                assert_eq!(u64::from(status.day.left), 100 - admitted as u64, "{status:?}");
            }
        }
    });
}

fn tls_limits(server: &RedisServer, ca: &TestCa, client: Option<&TestCa>) -> RedisLimits {
    let client = client.map(|ca| {
        let issued = ca.issue(&["tapster"]);
        (issued.cert_pem.into_bytes(), issued.key_pem.into_bytes())
    });
    RedisLimits {
        tls: RedisTls { ca: Some(ca.cert_pem().into_bytes()), client },
        ..RedisLimits::node(&server.url(), "tls", 2, PATIENT)
    }
}

#[test]
fn limits_are_shared_over_tls_and_a_refused_certificate_stops_the_start() {
    let ca = TestCa::new("Tapster test CA");
    let Some(server) = RedisServer::start_tls(&ca, false) else { return };
    let Some(asking) = RedisServer::start_tls(&ca, true) else { return };
    runtime().block_on(async {
        let limits = tls_limits(&server, &ca, None);
        let one = Shared::connect(&limits).await.unwrap();
        let two = Shared::connect(&limits).await.unwrap();
        assert_eq!(alternating(&one, &two, 7).await, [true, true, true, false]);
        assert!(!one.degraded());

        // A server whose certificate another CA signed, one that wants a client certificate and
        // gets none, one named by an address its certificate does not name: refused at start.
        let stranger = TestCa::new("Someone else");
        let by_address = RedisLimits {
            servers: RedisServers::Node(server.url().replace("localhost", "127.0.0.1")),
            ..tls_limits(&server, &ca, None)
        };
        let cases = [
            (tls_limits(&server, &stranger, None), "not signed by --redis-ca"),
            (tls_limits(&asking, &ca, None), "asks for a client certificate"),
            (by_address, "not made out to the host"),
        ];
        for (limits, why) in cases {
            let error = match Shared::connect(&limits).await {
                Ok(_) => panic!("{why}: connected"),
                Err(e) => e.to_string(),
            };
            assert!(error.contains(why) && error.contains("TLS handshake with Redis at"), "{error}");
        }
        // With the certificate it asks for, it shares as well.
        let limits = tls_limits(&asking, &ca, Some(&ca));
        let (one, two) = (Shared::connect(&limits).await.unwrap(), Shared::connect(&limits).await.unwrap());
        assert_eq!(alternating(&one, &two, 8).await, [true, true, true, false]);
    });
}

#[test]
fn a_cluster_that_speaks_only_tls_shares_every_key_and_refuses_a_stranger() {
    let ca = TestCa::new("Tapster test CA");
    let Some(cluster) = RedisCluster::start_tls(&ca) else { return };
    runtime().block_on(async {
        let limits = RedisLimits {
            tls: RedisTls { ca: Some(ca.cert_pem().into_bytes()), client: None },
            ..cluster_limits(&cluster, "secure")
        };
        let one = Shared::connect(&limits).await.unwrap();
        let two = Shared::connect(&limits).await.unwrap();
        // Through whichever node holds each key: the client learns the others from the seeds.
        for key in keys_on(&cluster, "secure", &[0, 1, 2]) {
            assert_eq!(alternating(&one, &two, key).await, [true, true, true, false], "key {key}");
        }
        assert!(!one.degraded());
        let stranger = RedisLimits {
            tls: RedisTls { ca: Some(TestCa::new("Someone else").cert_pem().into_bytes()), client: None },
            ..cluster_limits(&cluster, "secure")
        };
        let error = Shared::connect(&stranger).await.unwrap_err().to_string();
        assert!(error.contains("not signed by --redis-ca"), "{error}");
    });
}

#[test]
fn the_replica_that_takes_over_a_dead_master_is_followed() {
    let Some(mut cluster) = RedisCluster::start_with_replicas() else { return };
    runtime().block_on(async {
        let limits = cluster_limits(&cluster, "failover");
        let (one, two) = (Shared::new(&limits).unwrap(), Shared::new(&limits).unwrap());
        let [kept, fresh] = [0, 1]
            .map(|n| (1..).filter(|id| cluster.node_of(&format!("failover:{{{id}}}")) == 0).nth(n).unwrap());
        for limiter in [&one, &two] {
            assert!(matches!(decide(limiter, kept).await, Decision::Allowed(_)));
        }
        // Replicated to the master's replica, which takes over once the master is found dead.
        cluster.wait_replicated(0);
        cluster.kill(0);
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut admitted = 2;
        loop {
            for limiter in [&one, &two] {
                admitted += usize::from(matches!(decide(limiter, kept).await, Decision::Allowed(_)));
            }
            if !one.degraded() && !two.degraded() && cluster.node_of(&format!("failover:{{{kept}}}")) != 0 {
                break;
            }
            assert!(Instant::now() < deadline, "the new master was never followed");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        // The new master shares the key's day, with every request admitted meanwhile counted. (One
        // that the client sent on to the new master after the limiter had stopped waiting for it is
        // counted twice: never fewer than admitted.)
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        let Decision::Allowed(status) = decide(&one, kept).await else { panic!("a second later") };
        let counted = 100 - u64::from(status.day.left);
        let admitted = admitted as u64 + 1;
        assert!((admitted..=admitted + 4).contains(&counted), "{counted} counted of {admitted} admitted");
        // ...and every key of its slots, as the dead master did.
        assert_eq!(alternating(&one, &two, fresh).await, [true, true, true, false]);
    });
}
