//! Redis for tests: the server every development and CI machine of this project runs
//! (`TAPSTER_TEST_REDIS_URL`, by default `redis://127.0.0.1:6379`) with a key prefix of its own per
//! test ([`TestRedis`]); a `redis-server` of the test's own on a free port ([`RedisServer`]), in plain
//! text or speaking only TLS with a certificate from a [`TestCa`], which a fault test can stop and
//! start again; and a Redis Cluster of three masters of the test's own ([`RedisCluster`]), one of
//! which a fault test kills and brings back.
//!
//! Like [`crate::postgres`], a test finds `None` where Redis is not running, reported as a skip, and
//! fails instead where `TAPSTER_TEST_REQUIRE_SERVICES` is set ([`crate::services`]).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::services::missing;
use crate::tls::TestCa;

/// The Redis tests use unless `TAPSTER_TEST_REDIS_URL` names another.
pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// The shared test Redis, with a key prefix no other test uses.
#[derive(Debug)]
pub struct TestRedis {
    url: String,
    prefix: String,
}

impl TestRedis {
    /// The shared Redis and a fresh prefix; `None` (reported as a skip) when it does not answer and the
    /// services are not required.
    pub fn create() -> Option<Self> {
        let url = std::env::var("TAPSTER_TEST_REDIS_URL").unwrap_or_else(|_| DEFAULT_URL.to_owned());
        if let Err(error) = ping(&url) {
            missing("Redis", &url, &error);
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
    /// The arguments that make it speak TLS only, and the directory of its certificate.
    tls: Option<(Vec<String>, tempfile::TempDir)>,
}

impl RedisServer {
    /// Starts one; `None` (reported as a skip) where `redis-server` is not installed and the services are
    /// not required.
    pub fn start() -> Option<Self> {
        Self::started(Self { port: free_port()?, child: None, tls: None })
    }

    /// Starts one that speaks only TLS, with a certificate for `localhost` signed by `ca`, and
    /// asks clients for a certificate of `ca`'s when `client_certificates` is set.
    pub fn start_tls(ca: &TestCa, client_certificates: bool) -> Option<Self> {
        let dir = tempfile::TempDir::new().expect("a directory for the certificate");
        let issued = ca.issue(&["localhost"]);
        let file = |name: &str, pem: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).expect("writing a PEM file");
            path.display().to_string()
        };
        let port = free_port()?;
        let auth = if client_certificates { "yes" } else { "no" };
        let args = vec![
            "--port".into(),
            "0".into(),
            "--tls-port".into(),
            port.to_string(),
            "--tls-cert-file".into(),
            file("server.crt", &issued.cert_pem),
            "--tls-key-file".into(),
            file("server.key", &issued.key_pem),
            "--tls-ca-cert-file".into(),
            file("ca.crt", &ca.cert_pem()),
            "--tls-auth-clients".into(),
            auth.into(),
        ];
        Self::started(Self { port, child: None, tls: Some((args, dir)) })
    }

    fn started(mut server: Self) -> Option<Self> {
        match server.spawn() {
            Ok(()) => Some(server),
            Err(error) => {
                missing("redis-server", "this machine", &error);
                None
            }
        }
    }

    /// `redis://127.0.0.1:<port>`, or for TLS `rediss://localhost:<port>` (the name its certificate
    /// is made out to).
    pub fn url(&self) -> String {
        match self.tls {
            None => format!("redis://127.0.0.1:{}", self.port),
            Some(_) => format!("rediss://localhost:{}", self.port),
        }
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
        let mut command = Command::new("redis-server");
        command.args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]);
        match &self.tls {
            None => command.args(["--port", &self.port.to_string()]),
            Some((args, _)) => command.args(args),
        };
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("redis-server: {e}"))?;
        self.child = Some(child);
        // Over TLS, listening is as much as a test without a client of its own can tell.
        let answered = until_answering(|| match self.tls {
            None => ping(&self.url()),
            Some(_) => TcpStream::connect(("127.0.0.1", self.port)).map(drop).map_err(|e| e.to_string()),
        });
        if answered.is_err() {
            self.kill();
        }
        answered
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis Cluster of three masters (and a replica each, when asked), each a `redis-server` of the
/// test's own on a free
/// port of 127.0.0.1 keeping nothing but its cluster configuration, joined with `redis-cli --cluster
/// create`; with `cluster-require-full-coverage no`, so that the others serve while one is down.
/// Stopped when dropped.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<ClusterNode>,
    /// With TLS, the arguments every node and `redis-cli` take (and the directory of the files).
    tls: Option<ClusterTls>,
}

#[derive(Debug)]
struct ClusterTls {
    server: Vec<String>,
    client: Vec<String>,
    _files: tempfile::TempDir,
}

#[derive(Debug)]
struct ClusterNode {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisCluster {
    /// Starts one and waits until it serves every slot; `None` (reported as a skip) where `redis-server`
    /// is not installed and the services are not required.
    pub fn start() -> Option<Self> {
        Self::started(None, 0)
    }

    /// Starts one whose three masters each have a replica (nodes 3 to 5), which takes over when its
    /// master dies (a failover, after the node timeout of 2 s).
    pub fn start_with_replicas() -> Option<Self> {
        Self::started(None, 1)
    }

    /// Starts one whose nodes speak only TLS, to clients and to each other, with certificates for
    /// `127.0.0.1` (the address each announces) signed by `ca`.
    pub fn start_tls(ca: &TestCa) -> Option<Self> {
        let files = tempfile::TempDir::new().expect("a directory for the certificates");
        let issued = ca.issue(&["127.0.0.1", "localhost"]);
        let file = |name: &str, pem: &str| {
            let path = files.path().join(name);
            std::fs::write(&path, pem).expect("writing a PEM file");
            path.display().to_string()
        };
        let (cert, key, ca) = (
            file("node.crt", &issued.cert_pem),
            file("node.key", &issued.key_pem),
            file("ca.crt", &ca.cert_pem()),
        );
        let server = ["--tls-cert-file", &cert, "--tls-key-file", &key, "--tls-ca-cert-file", &ca]
            .into_iter()
            .chain(["--tls-cluster", "yes", "--tls-auth-clients", "no"])
            .map(str::to_owned)
            .collect();
        let client = ["--tls", "--cacert", &ca].into_iter().map(str::to_owned).collect();
        Self::started(Some(ClusterTls { server, client, _files: files }), 0)
    }

    fn started(tls: Option<ClusterTls>, replicas: usize) -> Option<Self> {
        let mut nodes = Vec::new();
        for _ in 0..3 * (1 + replicas) {
            let dir = tempfile::TempDir::new().expect("a directory for a cluster node");
            nodes.push(ClusterNode { port: free_port()?, dir, child: None });
        }
        let mut cluster = Self { nodes, tls };
        for index in 0..cluster.nodes.len() {
            // A port found free may be bound by another test's server before this node binds it, and
            // the node then exits: it is tried once more on another port before the test gives up.
            let mut spawned = cluster.spawn(index);
            if spawned.is_err() {
                cluster.nodes[index].port = free_port()?;
                spawned = cluster.spawn(index);
            }
            if let Err(error) = spawned {
                missing("redis-server --cluster-enabled", "this machine", &error);
                return None;
            }
        }
        let addresses: Vec<String> =
            cluster.nodes.iter().map(|node| format!("127.0.0.1:{}", node.port)).collect();
        let created = Command::new("redis-cli")
            .args(cluster.tls.iter().flat_map(|tls| &tls.client))
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .output()
            .expect("redis-cli --cluster create");
        assert!(
            created.status.success(),
            "redis-cli --cluster create: {}",
            String::from_utf8_lossy(&created.stdout)
        );
        cluster.wait_until_whole();
        Some(cluster)
    }

    /// The seed nodes' URLs, as `--redis-cluster` takes them.
    pub fn urls(&self) -> Vec<String> {
        let scheme = if self.tls.is_some() { "rediss" } else { "redis" };
        self.nodes.iter().map(|node| format!("{scheme}://127.0.0.1:{}", node.port)).collect()
    }

    /// The master that holds the slot of `key`, as a node that is up sees it.
    pub fn node_of(&self, key: &str) -> usize {
        let up = self.nodes.iter().position(|node| node.child.is_some()).expect("a node that is up");
        let slot: u16 = self.cli(up, &["CLUSTER", "KEYSLOT", key]).trim().parse().expect("a slot");
        // Each master's line in `CLUSTER NODES`: id, address, flags and five more fields, then the
        // ranges of slots it holds.
        let nodes = self.cli(up, &["CLUSTER", "NODES"]);
        for line in nodes.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(port) =
                fields.get(1).and_then(|a| a.split(['@', ':']).nth(1)).and_then(|p| p.parse::<u16>().ok())
            else {
                continue;
            };
            let holds = fields.iter().skip(8).any(|range| {
                let (from, to) = range.split_once('-').unwrap_or((range, range));
                matches!((from.parse::<u16>(), to.parse::<u16>()), (Ok(from), Ok(to)) if (from..=to).contains(&slot))
            });
            if holds {
                return self.nodes.iter().position(|node| node.port == port).expect("a node of this cluster");
            }
        }
        panic!("no node holds slot {slot}: {nodes}");
    }

    /// Waits until every replica of master `index` has copied all it has written: replication is
    /// asynchronous, so a master killed before would take its last writes with it, as it would in
    /// production (which the limits' own repair after a failover does not claim to undo).
    pub fn wait_replicated(&self, index: usize) {
        let started = Instant::now();
        loop {
            // `master_repl_offset:N`, and a line `slaveK:...,offset=N,...` per replica.
            let info = self.cli(index, &["INFO", "replication"]);
            let written = info
                .lines()
                .find_map(|line| line.trim().strip_prefix("master_repl_offset:")?.parse::<u64>().ok());
            let copied: Vec<u64> = info
                .lines()
                .filter(|line| line.starts_with("slave"))
                .filter_map(|line| {
                    line.trim().split(',').find_map(|part| part.strip_prefix("offset=")?.parse().ok())
                })
                .collect();
            if let Some(written) = written
                && !copied.is_empty()
                && copied.iter().all(|&offset| offset >= written)
            {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "replicas of node {index} lag: {info}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills node `index` at once, as a crash would.
    pub fn kill(&mut self, index: usize) {
        self.nodes[index].kill();
    }

    /// Starts node `index` again on its port, with its cluster configuration and no data, and waits
    /// until the cluster serves every slot again.
    pub fn restart(&mut self, index: usize) {
        self.nodes[index].kill();
        self.spawn(index).expect("a cluster node did not start again");
        self.wait_until_whole();
    }

    /// `redis-cli` against node `index`: its output.
    pub fn cli(&self, index: usize, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(self.tls.iter().flat_map(|tls| &tls.client))
            .args(["-p", &self.nodes[index].port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Starts node `index` and waits until it answers.
    fn spawn(&mut self, index: usize) -> Result<(), String> {
        let port = self.nodes[index].port.to_string();
        let listen: Vec<&str> = match &self.tls {
            None => vec!["--port", &port],
            Some(_) => vec!["--port", "0", "--tls-port", &port],
        };
        let node = &mut self.nodes[index];
        let child = Command::new("redis-server")
            .args(&listen)
            .args(self.tls.iter().flat_map(|tls| &tls.server))
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            // The other masters keep serving their slots while one is down, as the replicas' limits need.
            .args(["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"])
            .args(["--cluster-require-full-coverage", "no", "--repl-diskless-sync-delay", "0", "--dir"])
            .arg(node.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("redis-server: {e}"))?;
        node.child = Some(child);
        let answered = until_answering(|| match self.cli(index, &["PING"]) {
            pong if pong.contains("PONG") => Ok(()),
            other => Err(format!("PING answered {other:?}")),
        })
        .and_then(|()| {
            // Another test's server on the port answers too: this node must be the one still running.
            match self.nodes[index].child.as_mut().map(std::process::Child::try_wait) {
                Some(Ok(None)) => Ok(()),
                _ => Err(format!("redis-server exited: port {port} is another server's")),
            }
        });
        if answered.is_err() {
            self.nodes[index].kill();
        }
        answered
    }

    /// Waits until every node that is up sees the cluster serve every slot, and every replica has
    /// copied its master (a replica that never did cannot take over).
    fn wait_until_whole(&self) {
        let started = Instant::now();
        for (index, node) in self.nodes.iter().enumerate().filter(|(_, node)| node.child.is_some()) {
            let whole = || {
                let replication = self.cli(index, &["INFO", "replication"]);
                self.cli(index, &["CLUSTER", "INFO"]).contains("cluster_state:ok")
                    && (replication.contains("role:master") || replication.contains("master_link_status:up"))
            };
            while !whole() {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "node {} was not whole within 30 s",
                    node.port
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

impl ClusterNode {
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ClusterNode {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits up to 5 s for a server just started to pass `check`; otherwise says why it did not.
fn until_answering(mut check: impl FnMut() -> Result<(), String>) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match check() {
            Ok(()) => return Ok(()),
            Err(error) if started.elapsed() > Duration::from_secs(5) => {
                return Err(format!("redis-server did not answer within 5 s: {error}"));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

fn free_port() -> Option<u16> {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).ok()
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
