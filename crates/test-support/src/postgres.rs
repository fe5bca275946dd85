//! A PostgreSQL schema of its own for each test, in the database `TAPSTER_TEST_POSTGRES_URL` names
//! (by default the `test` database of the server every development and CI machine of this project
//! runs on 127.0.0.1:5432). The URL handed to the code under test sets the schema as its
//! `search_path`, so tests running at once never see each other's tables. The schema is dropped when
//! the test is done, on a thread of its own: the code under test may still hold locks in it until
//! its runtime, which `Drop` must not wait on, rolls back what it left open. A schema a test run left
//! behind (a crash, a drop cut short by the process's exit) is dropped by a run an hour later.
//!
//! Where no PostgreSQL answers, [`TestSchema::create`] returns `None`, so that the test can be
//! skipped on a machine without one, as [`crate::services`] decides and reports: with
//! `TAPSTER_TEST_REQUIRE_SERVICES` set (as `.ci/run` sets it), it panics instead: CI never skips.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio_postgres::NoTls;

/// The database tests use unless `TAPSTER_TEST_POSTGRES_URL` names another.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// One test's schema; dropped with it.
#[derive(Debug)]
pub struct TestSchema {
    base: String,
    name: String,
    url: String,
}

impl TestSchema {
    /// Creates a fresh, empty schema; `None` (reported as a skip) when PostgreSQL cannot be reached
    /// and the services are not required.
    pub fn create() -> Option<Self> {
        let base = std::env::var("TAPSTER_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_URL.to_owned());
        static SWEPT: std::sync::Once = std::sync::Once::new();
        // Best effort: another test process sweeping at the same time may get there first.
        SWEPT.call_once(|| drop(run(&base, SWEEP)));
        let name = unique_name();
        if let Err(error) = run(&base, &format!("CREATE SCHEMA {name}")) {
            crate::services::missing("PostgreSQL", &base, &error);
            return None;
        }
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{name}");
        Some(Self { base, name, url })
    }

    /// The URL of the test database with this schema as the search path.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address of the server, as the URL names it (`host:port`, the port 5432 when it names none).
    pub fn server(&self) -> std::net::SocketAddr {
        let (_, host) = authority(&self.url);
        let host = if host.contains(':') { host.to_owned() } else { format!("{host}:5432") };
        std::net::ToSocketAddrs::to_socket_addrs(&host)
            .ok()
            .and_then(|mut addrs| addrs.next())
            .unwrap_or_else(|| panic!("the test database's address {host} does not resolve"))
    }

    /// [`TestSchema::url`] with the server reached at `addr` instead (a [`crate::proxy::Proxy`]).
    pub fn url_via(&self, addr: std::net::SocketAddr) -> String {
        let (user, host) = authority(&self.url);
        self.url.replacen(&format!("{user}{host}"), &format!("{user}{addr}"), 1)
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        let (base, statement) = (self.base.clone(), format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        let (done, dropped) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(run(&base, &statement)));
        // Mostly done at once; otherwise it finishes once the test's runtime releases its locks.
        let _ = dropped.recv_timeout(Duration::from_secs(2));
    }
}

/// Drops the test schemas made more than an hour ago (their names hold when).
const SWEEP: &str = r"
DO $$
DECLARE stale text;
BEGIN
    FOR stale IN SELECT nspname FROM pg_namespace
                 WHERE nspname ~ '^tapster_test_[0-9]+_'
                   AND split_part(nspname, '_', 3)::bigint < extract(epoch FROM now()) - 3600
    LOOP
        EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', stale);
    END LOOP;
END
$$;";

/// The user part (with its `@`, or nothing) and the host part of a URL's authority.
fn authority(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    }
}

/// `tapster_test_`, the time in seconds, the process and a counter.
fn unique_name() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format!("tapster_test_{seconds}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Runs one statement on its own connection, on a thread and runtime of its own, so that it can be
/// called from a test's async runtime and from `Drop` alike.
fn run(url: &str, statement: &str) -> Result<(), String> {
    let (url, statement) = (url.to_owned(), statement.to_owned());
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let mut config: tokio_postgres::Config =
                url.parse().map_err(|e: tokio_postgres::Error| e.to_string())?;
            config.connect_timeout(Duration::from_secs(3));
            let (client, connection) = config.connect(NoTls).await.map_err(|e| e.to_string())?;
            let connection = tokio::spawn(connection);
            let done = client.batch_execute(&statement).await.map_err(|e| e.to_string());
            drop(client);
            let _ = connection.await;
            done
        })
    })
    .join()
    .map_err(|_| "the thread running the statement panicked".to_owned())?
}
