//! The connection of the shared limits to Redis: one node (`--redis-url`, through the `redis` crate's
//! reconnecting `ConnectionManager`) or a Redis Cluster (`--redis-cluster`, its seed nodes, through
//! the crate's async cluster client, which follows `MOVED` and `ASK` and finds a new master after a
//! failover), in plain text (`redis://`) or TLS (`rediss://`, checked against `--redis-ca` or the
//! system's roots, with a client certificate when given; `#insecure` checks nothing and is warned
//! about). Both connect in the background and reconnect by themselves, so a replica starts, and
//! serves, while Redis is away; only a certificate that is refused stops it at start ([`probe`]).
//!
//! Scripts are run by [`Connection::run`]: `EVALSHA`, and on `NOSCRIPT` (a node that restarted, or
//! a new master) `EVAL` with the script itself, routed by the key like `EVALSHA`, which loads it into
//! the one node that lacked it. (The crate's own reload sends `SCRIPT LOAD` to every node of a
//! cluster, and fails while any one of them is down.)

use std::time::Duration;

use anyhow::Context;
use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, ErrorKind, FromRedisValue, RedisFuture, ServerErrorKind, TlsCertificates, Value};

/// How long connecting to a node may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(250);
/// How long [`probe`] waits for each seed node at start.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The Redis servers of the shared limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisServers {
    /// One node (or a proxy in front of several): `redis://host:port` or `rediss://host:port`.
    Node(String),
    /// The seed nodes of a Redis Cluster, from which the client learns the rest.
    Cluster(Vec<String>),
}

impl RedisServers {
    fn urls(&self) -> &[String] {
        match self {
            Self::Node(url) => std::slice::from_ref(url),
            Self::Cluster(urls) => urls,
        }
    }

    /// The servers as messages and logs name them: without passwords.
    pub fn shown(&self) -> String {
        let shown: Vec<String> =
            self.urls().iter().map(|url| tapster_domain::url_without_password(url)).collect();
        shown.join(", ")
    }
}

/// What TLS to Redis trusts and shows, as PEM (`--redis-ca`, `--redis-cert`, `--redis-key`); the
/// system's roots and no client certificate by default. Only for `rediss://` URLs.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RedisTls {
    /// The CA that signs the servers' certificates.
    pub ca: Option<Vec<u8>>,
    /// A client certificate chain and its private key, for a Redis that asks for one.
    pub client: Option<(Vec<u8>, Vec<u8>)>,
}

/// Never prints a key.
impl std::fmt::Debug for RedisTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTls")
            .field("ca", &self.ca.is_some())
            .field("client", &self.client.is_some())
            .finish()
    }
}

impl RedisTls {
    fn is_default(&self) -> bool {
        self.ca.is_none() && self.client.is_none()
    }

    fn certificates(&self) -> TlsCertificates {
        TlsCertificates {
            client_tls: self.client.as_ref().map(|(cert, key)| redis::ClientTlsConfig {
                client_cert: cert.clone(),
                client_key: key.clone(),
            }),
            root_cert: self.ca.clone(),
        }
    }
}

/// A client of one node at `url`, with `tls` for a `rediss://` one.
fn client(url: &str, tls: &RedisTls) -> anyhow::Result<redis::Client> {
    let shown = tapster_domain::url_without_password(url);
    let secure = url.starts_with("rediss://");
    anyhow::ensure!(
        secure || tls.is_default(),
        "{shown}: --redis-ca, --redis-cert and --redis-key are for TLS; use a rediss:// URL"
    );
    let client = if secure && !tls.is_default() {
        redis::Client::build_with_tls(url, tls.certificates())
    } else {
        redis::Client::open(url)
    };
    client.with_context(|| format!("the Redis URL {shown}"))
}

/// A Lua script as [`Connection::run`] sends it: its text, and its SHA-1 for `EVALSHA`.
#[derive(Debug)]
pub(crate) struct Lua {
    code: &'static str,
    hash: String,
}

impl Lua {
    pub(crate) fn new(code: &'static str) -> Self {
        Self { code, hash: redis::Script::new(code).get_hash().to_owned() }
    }
}

/// A connection to the shared limits' Redis, cheap to clone (each clone shares the connections).
#[derive(Clone)]
pub(crate) enum Connection {
    Node(ConnectionManager),
    Cluster(ClusterConnection),
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Node(_) => "Connection::Node",
            Self::Cluster(_) => "Connection::Cluster",
        })
    }
}

impl Connection {
    /// Connects, in the background, to `servers`, waiting at most `timeout` for each answer. Must
    /// be called on a tokio runtime.
    pub(crate) fn open(servers: &RedisServers, tls: &RedisTls, timeout: Duration) -> anyhow::Result<Self> {
        for url in servers.urls() {
            if url.contains("#insecure") {
                tracing::warn!(
                    url = tapster_domain::url_without_password(url),
                    "TLS to Redis does not check the server's certificate (#insecure): anyone on the way \
                     can read and change the limits"
                );
            }
        }
        match servers {
            RedisServers::Node(url) => {
                let config = ConnectionManagerConfig::new()
                    .set_response_timeout(Some(timeout))
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_number_of_retries(1)
                    .set_max_delay(Duration::from_secs(1));
                let manager = ConnectionManager::new_lazy_with_config(client(url, tls)?, config)
                    .with_context(|| format!("the Redis URL {}", servers.shown()))?;
                Ok(Self::Node(manager))
            }
            RedisServers::Cluster(urls) => {
                anyhow::ensure!(!urls.is_empty(), "--redis-cluster names no seed node");
                let secure = urls.iter().filter(|url| url.starts_with("rediss://")).count();
                anyhow::ensure!(
                    secure == 0 || secure == urls.len(),
                    "the seed nodes {} mix redis:// and rediss://: a cluster speaks TLS on every node or none",
                    servers.shown()
                );
                for url in urls {
                    // Each URL checked as a node's would be, for a message that names it.
                    client(url, tls)?;
                }
                let mut builder = ClusterClientBuilder::new(urls.iter().map(String::as_str))
                    .connection_timeout(CONNECT_TIMEOUT)
                    .response_timeout(timeout)
                    // A request the breaker has given up on is not retried behind newer ones for long.
                    .retries(1)
                    .min_retry_wait(10)
                    .max_retry_wait(100);
                if secure > 0 && !tls.is_default() {
                    builder = builder.certs(tls.certificates());
                }
                let cluster =
                    builder.build().with_context(|| format!("the Redis Cluster {}", servers.shown()))?;
                Ok(Self::Cluster(cluster.get_pending_async_connection_with_config(Default::default())))
            }
        }
    }

    /// Runs `script` on the node that holds `keys` (one slot: they share a hash tag), with `args`.
    pub(crate) async fn run<T: FromRedisValue>(
        &mut self,
        script: &Lua,
        keys: &[String],
        args: &[u64],
    ) -> redis::RedisResult<T> {
        let command = |name: &str, script: &str| {
            let mut command = redis::cmd(name);
            command.arg(script).arg(keys.len()).arg(keys);
            for arg in args {
                command.arg(*arg);
            }
            command
        };
        match command("EVALSHA", &script.hash).query_async(self).await {
            Err(error) if error.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                command("EVAL", script.code).query_async(self).await
            }
            done => done,
        }
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Node(node) => node.req_packed_command(cmd),
            Self::Cluster(cluster) => cluster.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Node(node) => node.req_packed_commands(pipeline, offset, count),
            Self::Cluster(cluster) => cluster.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Node(node) => node.get_db(),
            Self::Cluster(cluster) => cluster.get_db(),
        }
    }
}

/// Connects once to each of `servers` at start, all at once, to find what would never get better by
/// waiting: a certificate refused (by either side) is an error naming the node and why. A node that
/// does not answer only gets a warning: the limits are kept locally until it does.
pub(crate) async fn probe(servers: &RedisServers, tls: &RedisTls) -> anyhow::Result<()> {
    let mut probes = tokio::task::JoinSet::new();
    for url in servers.urls() {
        let (shown, client) = (tapster_domain::url_without_password(url), client(url, tls)?);
        probes.spawn(async move {
            let connected = tokio::time::timeout(PROBE_TIMEOUT, async {
                let mut connection = client.get_multiplexed_async_connection().await?;
                redis::cmd("PING").query_async::<()>(&mut connection).await
            });
            (shown, connected.await)
        });
    }
    while let Some(probed) = probes.join_next().await {
        let (shown, connected) = probed.context("probing Redis")?;
        match connected {
            Ok(Ok(())) => {}
            Ok(Err(error)) => match tls_failure(&error) {
                Some(why) => anyhow::bail!("the TLS handshake with Redis at {shown} failed: {why}"),
                None => {
                    tracing::warn!(url = shown, %error, "Redis does not answer yet: limiting locally until it does")
                }
            },
            Err(_) => {
                tracing::warn!(url = shown, "Redis does not answer yet: limiting locally until it does")
            }
        }
    }
    Ok(())
}

/// Why a TLS handshake failed, when that is why `error` happened. The client keeps the cause of
/// an I/O error shared (an `Arc`), and the TLS library's inside the I/O error.
fn tls_failure(error: &redis::RedisError) -> Option<String> {
    let cause = std::error::Error::source(error)?;
    let cause: &(dyn std::error::Error + 'static) =
        match cause.downcast_ref::<std::sync::Arc<dyn std::error::Error + Send + Sync>>() {
            Some(shared) => shared.as_ref(),
            None => cause,
        };
    let rustls = cause.downcast_ref::<rustls::Error>().or_else(|| {
        cause.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()?.downcast_ref::<rustls::Error>())
    })?;
    let hint = match rustls {
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer) => {
            ": its certificate is not signed by --redis-ca (or the system's roots without it)"
        }
        rustls::Error::InvalidCertificate(
            rustls::CertificateError::NotValidForName
            | rustls::CertificateError::NotValidForNameContext { .. },
        ) => ": its certificate is not made out to the host in the URL",
        rustls::Error::AlertReceived(rustls::AlertDescription::CertificateRequired) => {
            ": it asks for a client certificate: give --redis-cert and --redis-key"
        }
        _ => "",
    };
    Some(format!("{rustls}{hint}"))
}
