//! Redis for tests: the server every development and CI machine of this project runs
//! (`TAPSTER_TEST_REDIS_URL`, by default `redis://127.0.0.1:6379`) with a key prefix of its own per
//! test ([`TestRedis`]), and a `redis-server` of the test's own on a free port ([`RedisServer`]),
//! which a fault test can stop and start again.
//!
//! Like [`crate::postgres`], a test finds `None` where Redis is not running, said on stderr, and fails
//! instead where `TAPSTER_TEST_REQUIRE_SERVICES` is set.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::postgres::unreachable_service;

/// The Redis tests use unless `TAPSTER_TEST_REDIS_URL` names another.
pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// The shared test Redis, with a key prefix no other test uses.
#[derive(Debug)]
pub struct TestRedis {
    url: String,
    prefix: String,
}

impl TestRedis {
    /// The shared Redis and a fresh prefix; `None` (said on stderr) when it does not answer and the
    /// services are not required.
    pub fn create() -> Option<Self> {
        let url = std::env::var("TAPSTER_TEST_REDIS_URL").unwrap_or_else(|_| DEFAULT_URL.to_owned());
        if let Err(error) = ping(&url) {
            unreachable_service("Redis", &url, &error);
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let prefix =
            format!("tapster_test_{seconds}_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        Some(Self { url, prefix })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// What every key this test writes starts with (they expire by themselves within a day).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

/// A `redis-server` of the test's own on a free port of 127.0.0.1, keeping nothing on disk; stopped
/// when dropped.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts one; `None` (said on stderr) where `redis-server` is not installed and the services are
    /// not required.
    pub fn start() -> Option<Self> {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).ok()?;
        let mut server = Self { port, child: None };
        match server.spawn() {
            Ok(()) => Some(server),
            Err(error) => {
                unreachable_service("redis-server", "this machine", &error);
                None
            }
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server at once, as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port, empty (it kept nothing).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn().expect("redis-server did not start again");
    }

    fn spawn(&mut self) -> Result<(), String> {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &self.port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("redis-server: {e}"))?;
        self.child = Some(child);
        let started = Instant::now();
        while let Err(error) = ping(&self.url()) {
            if started.elapsed() > Duration::from_secs(5) {
                self.kill();
                return Err(format!("redis-server did not answer within 5 s: {error}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `PING` over RESP, without a client library: whether a Redis answers at `url` (`redis://host:port`).
fn ping(url: &str) -> Result<(), String> {
    let address = url.trim_start_matches("redis://").split('/').next().unwrap_or_default();
    let address = address.rsplit_once('@').map_or(address, |(_, host)| host);
    let address = std::net::ToSocketAddrs::to_socket_addrs(address)
        .map_err(|e| format!("{address}: {e}"))?
        .next()
        .ok_or_else(|| format!("{address} names no address"))?;
    let mut stream =
        TcpStream::connect_timeout(&address, Duration::from_secs(1)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(1))).map_err(|e| e.to_string())?;
    stream.write_all(b"PING\r\n").map_err(|e| e.to_string())?;
    let mut answer = [0; 7];
    stream.read_exact(&mut answer).map_err(|e| e.to_string())?;
    if &answer == b"+PONG\r\n" {
        Ok(())
    } else {
        Err(format!("answered {:?}", String::from_utf8_lossy(&answer)))
    }
}
