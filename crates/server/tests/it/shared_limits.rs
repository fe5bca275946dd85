//! The rate limits several replicas share through Redis (`Shared`), against a real Redis: the same
//! burst, minute and day as the in-process limiter, shared by two limiters as by two replicas; and
//! what happens when Redis goes away and comes back.

use std::time::Duration;

use tapster_domain::Limits;
use tapster_server::{Checked, Decision, Limiter, RedisLimits, Shared, Subject};
use tapster_test_support::redis::{RedisServer, TestRedis};

const KEY: i64 = 7;

/// One a second, three at once, five a day.
const SMALL: Limits = Limits { per_minute: 60, burst: 3, per_day: 5 };

/// Long enough for a first connection and a script load on a busy machine.
const PATIENT: Duration = Duration::from_millis(500);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The limiter's decision on a request of `key`, waiting for Redis when it asks.
async fn decide(limiter: &Shared, key: i64, limits: Limits) -> Decision {
    decide_for(limiter, Subject::key(key), limits).await
}

/// The limiter's decision on a request of `subject`, waiting for Redis when it asks.
async fn decide_for(limiter: &Shared, subject: Subject, limits: Limits) -> Decision {
    match limiter.limit(subject, limits, tapster_now()) {
        Checked::Now(decision) => decision,
        Checked::Later(decision) => decision.await,
    }
}

fn tapster_now() -> Duration {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap()
}

fn passed(decision: &Decision) -> bool {
    matches!(decision, Decision::Allowed(_))
}

#[test]
fn two_replicas_share_one_burst_and_one_day() {
    let Some(redis) = TestRedis::create() else { return };
    runtime().block_on(async {
        let one = Shared::new(&RedisLimits::node(redis.url(), redis.prefix(), 2, PATIENT)).unwrap();
        let two = Shared::new(&RedisLimits::node(redis.url(), redis.prefix(), 2, PATIENT)).unwrap();
        // The burst of three, spent across both replicas.
        for (n, limiter) in [&one, &two, &one].into_iter().enumerate() {
            let decision = decide(limiter, KEY, SMALL).await;
            assert!(passed(&decision), "request {n}: {decision:?}");
        }
        match decide(&two, KEY, SMALL).await {
            Decision::Limited { status, retry_after } => {
                assert_eq!((status.burst.left, status.day.left), (0, 2));
                assert!(retry_after <= Duration::from_secs(1), "{retry_after:?}");
            }
            allowed => panic!("the fourth request of a burst of three passed: {allowed:?}"),
        }
        // Refused requests used nothing: one more a second, until the day's five are spent.
        tokio::time::sleep(Duration::from_millis(1_050)).await;
        assert!(passed(&decide(&two, KEY, SMALL).await));
        assert!(!passed(&decide(&one, KEY, SMALL).await), "two in the same second");
        tokio::time::sleep(Duration::from_millis(1_050)).await;
        let Decision::Allowed(status) = decide(&one, KEY, SMALL).await else { panic!("the fifth request") };
        assert_eq!(status.day.left, 0);
        // Counted across both replicas, as `/v1/key` tells it.
        assert_eq!(status.requests_today, 5);
        tokio::time::sleep(Duration::from_millis(1_050)).await;
        match decide(&two, KEY, SMALL).await {
            Decision::Limited { retry_after, .. } => {
                assert!(retry_after > Duration::from_secs(1), "the day cap waits for the next day");
            }
            allowed => panic!("a sixth request in a day of five passed: {allowed:?}"),
        }
        // Another key is untouched.
        assert!(passed(&decide(&one, KEY + 1, SMALL).await));
    });
}

#[test]
fn a_browser_keys_callers_each_have_a_burst_across_replicas_and_share_the_day() {
    let Some(redis) = TestRedis::create() else { return };
    runtime().block_on(async {
        let one = Shared::new(&RedisLimits::node(redis.url(), redis.prefix(), 2, PATIENT)).unwrap();
        let two = Shared::new(&RedisLimits::node(redis.url(), redis.prefix(), 2, PATIENT)).unwrap();
        // Three at once per caller, seven a day for the key.
        let limits = Limits { per_minute: 60, burst: 3, per_day: 7 };
        let caller = |address: &str| Subject::visitor(KEY, address.parse().unwrap());
        let (first, second) = (caller("203.0.113.7"), caller("2001:db8::1"));
        // The first caller's burst, spent across both replicas.
        for limiter in [&one, &two, &one] {
            assert!(passed(&decide_for(limiter, first, limits).await));
        }
        match decide_for(&two, first, limits).await {
            Decision::Limited { status, .. } => assert_eq!((status.burst.left, status.day.left), (0, 4)),
            allowed => panic!("the first caller's fourth request passed: {allowed:?}"),
        }
        // The second caller has a burst of its own, and the day is the key's: seven in all.
        for limiter in [&two, &one, &two] {
            assert!(passed(&decide_for(limiter, second, limits).await));
        }
        let Decision::Allowed(status) = decide_for(&one, caller("198.51.100.1"), limits).await else {
            panic!("a third caller's first request")
        };
        assert_eq!((status.burst.left, status.day.left, status.requests_today), (2, 0, 7));
        match decide_for(&two, caller("198.51.100.2"), limits).await {
            Decision::Limited { retry_after, .. } => assert!(retry_after > Duration::from_secs(1)),
            allowed => panic!("an eighth request in a day of seven passed: {allowed:?}"),
        }
        // The key's own hash holds the day; each caller's hash only its burst and minute, and is
        // not kept past them.
        let mut redis_conn =
            redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
        let ttl: i64 = redis::cmd("PTTL")
            .arg(format!("{}:{{{KEY}}}:203.0.113.7", redis.prefix()))
            .query_async(&mut redis_conn)
            .await
            .unwrap();
        assert!((1..=62_000).contains(&ttl), "a caller's state is kept {ttl} ms");
    });
}

#[test]
fn requests_of_a_key_that_arrive_together_are_judged_in_one_run_as_one_at_a_time() {
    let Some(server) = RedisServer::start() else { return };
    runtime().block_on(async {
        let limiter = Shared::new(&RedisLimits::node(&server.url(), "together", 1, PATIENT)).unwrap();
        let mut redis =
            redis::Client::open(server.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
        // The script is loaded, and another key shows a run of its own.
        assert!(passed(&decide(&limiter, KEY + 1, SMALL).await));
        let runs_before = script_runs(&mut redis).await;

        // Eight at once: the first runs alone, and the seven queued behind it share the next run.
        let requests: Vec<_> = (0..8)
            .map(|_| {
                let limiter = limiter.clone();
                tokio::spawn(async move { decide(&limiter, KEY, SMALL).await })
            })
            .collect();
        let mut decisions = Vec::new();
        for request in requests {
            decisions.push(request.await.unwrap());
        }
        assert_eq!(script_runs(&mut redis).await - runs_before, 2, "one run, then one for the rest");

        // Exactly what eight requests in a row get: the burst of three, in order, then refusals that
        // used nothing.
        for (n, decision) in decisions.iter().enumerate() {
            match (n, decision) {
                (0..=2, Decision::Allowed(status)) => {
                    assert_eq!(status.burst.left, 2 - n as u32, "request {n}");
                    assert_eq!(status.day.left, 4 - n as u32, "request {n}");
                }
                (3.., Decision::Limited { status, retry_after }) => {
                    assert_eq!((status.burst.left, status.day.left), (0, 2), "request {n}");
                    assert!(*retry_after <= Duration::from_secs(1), "request {n}: {retry_after:?}");
                }
                _ => panic!("request {n}: {decision:?}"),
            }
        }
        // Refusals used nothing: the next second lets one more through.
        tokio::time::sleep(Duration::from_millis(1_050)).await;
        let Decision::Allowed(status) = decide(&limiter, KEY, SMALL).await else { panic!("a second later") };
        assert_eq!(status.day.left, 1);
    });
}

#[test]
fn requests_queued_behind_one_whose_client_went_away_are_still_judged() {
    let Some(redis) = TestRedis::create() else { return };
    runtime().block_on(async {
        let limiter = Shared::new(&RedisLimits::node(redis.url(), redis.prefix(), 1, PATIENT)).unwrap();
        // Connected first, so that the request below waits on nothing but its round trip.
        assert!(passed(&decide(&limiter, KEY + 1, SMALL).await));
        let Checked::Later(mut first) = limiter.limit(Subject::key(KEY), SMALL, tapster_now()) else {
            panic!("no Redis asked")
        };
        // Polled once: its script is on its way to Redis.
        let polled = std::future::poll_fn(|cx| std::task::Poll::Ready(first.as_mut().poll(cx))).await;
        assert!(polled.is_pending(), "in flight");
        let queued = tokio::spawn({
            let limiter = limiter.clone();
            async move { decide(&limiter, KEY, SMALL).await }
        });
        tokio::task::yield_now().await;
        // The first request's client goes away while its run is in flight.
        drop(first);
        let decision =
            tokio::time::timeout(PATIENT * 4, queued).await.expect("the queued request was forgotten");
        assert!(passed(&decision.unwrap()));
    });
}

/// How many times Redis ran a script by its digest.
async fn script_runs(redis: &mut redis::aio::MultiplexedConnection) -> u64 {
    let stats: String = redis::cmd("INFO").arg("commandstats").query_async(redis).await.unwrap();
    let evalsha = stats.lines().find(|line| line.starts_with("cmdstat_evalsha:")).expect(&stats);
    let calls = evalsha.split([':', ',']).find_map(|field| field.strip_prefix("calls="));
    calls.and_then(|calls| calls.parse().ok()).expect(evalsha)
}

#[test]
fn without_redis_each_replica_limits_alone_at_its_share_then_hands_back_what_it_admitted() {
    let Some(mut server) = RedisServer::start() else { return };
    runtime().block_on(async {
        // Locally, at half: a burst of two, one every two seconds.
        let limits = Limits { per_minute: 60, burst: 4, per_day: 100 };
        let limiter = Shared::new(&RedisLimits::node(&server.url(), "fault", 2, PATIENT)).unwrap();
        assert!(passed(&decide(&limiter, KEY, limits).await));
        assert!(!limiter.degraded());

        server.kill();
        // No error and no wait past the timeout: the key gets its share of the burst (2 of 4) here.
        let started = std::time::Instant::now();
        let decisions: Vec<bool> = futures_in_turn(&limiter, limits, 3).await;
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        assert_eq!(decisions, [true, true, false], "the local share of a burst of four");
        assert!(limiter.degraded());

        server.restart();
        // Past the breaker's pause Redis is asked again (its script loaded anew: it lost it) until it
        // answers; it is given back the day it lost, and every request admitted meanwhile.
        let mut admitted = decisions.iter().filter(|passed| **passed).count();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while limiter.degraded() {
            assert!(std::time::Instant::now() < deadline, "Redis was never asked again");
            tokio::time::sleep(Duration::from_millis(300)).await;
            admitted += usize::from(passed(&decide(&limiter, KEY, limits).await));
        }
        let Decision::Allowed(status) = decide(&limiter, KEY, limits).await else {
            panic!("after the restart")
        };
        assert_eq!(
            u64::from(status.day.left),
            100 - 1 - admitted as u64 - 1,
            "Redis, restarted empty, counts the request before it went away, the {admitted} admitted since, \
             and this one"
        );
    });
}

/// `count` decisions one after the other; whether each passed.
async fn futures_in_turn(limiter: &Shared, limits: Limits, count: usize) -> Vec<bool> {
    let mut passed_ = Vec::new();
    for _ in 0..count {
        passed_.push(passed(&decide(limiter, KEY, limits).await));
    }
    passed_
}
