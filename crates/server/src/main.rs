//! The `tapster` command line. Every flag is also read from a `TAPSTER_*` variable. The only code
//! that reads the environment or prints to the console; the work is in the `tapster_server` library.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "the console is this binary's interface")]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tapster_accounts::{KEPT_GENERATIONS, KeyAction, Location};
use tapster_dashboard::{ProviderConfig, PublicUrl};
use tapster_domain::{AddressBlock, Limits};
use tapster_edge::{ClientIpHeader, ServeConfig, StrictTransport, TlsConfig, TlsError, TrustedProxies};
use tapster_server::{
    Admin, CertificateDer, DEFAULT_MAIL_FROM, DashboardOptions, LOCAL_ACCOUNT, Layout, LogFormat, LogLevel,
    RedisLimits, RedisServers, RedisTls, Service, ServiceBuilder, Sharing, WebhookSettings, format_keys,
    log_subscriber,
};

/// jemalloc rather than the system allocator: when new game data replaces the old, glibc keeps the
/// freed megabytes of the old data set resident (they sit below newer allocations, which only
/// `malloc_trim` would release), while jemalloc's background threads give them back within seconds.
/// Measured in `docs/operations.md`: 37 MiB, 72 MiB during a live import, 50 MiB 15 s later (glibc
/// stays at 74 MiB).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Debug, Parser)]
#[command(name = "tapster", version, about = "Serves a tavern game's data as a read-only HTTP/JSON API")]
struct Cli {
    #[command(flatten)]
    data: DataDir,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per process; boxing would only obscure clap's derive"
)]
enum Command {
    /// Serve the API. On a data dir without game data, imports the bundled dataset (carried inside
    /// the binary) or --fixtures first; on one without any key, creates a local account and key and
    /// prints the key once.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "TAPSTER_ADDR", default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The address clients and browsers reach this server at (links in mails, OAuth redirect
        /// URIs, the origin forms must come from, the OpenAPI document's server, the changelog
        /// feed's links); by default http:// (https:// with --tls-cert) and --addr.
        #[arg(long, env = "TAPSTER_PUBLIC_URL", value_name = "URL", value_parser = public_url)]
        public_url: Option<PublicUrl>,
        /// Serve `/metrics` on this address (plain HTTP, for the operators' scraper, with `/healthz` for
        /// a load balancer's health checks) instead of beside the API, which then answers it 404.
        #[arg(long, env = "TAPSTER_METRICS_ADDR", value_name = "ADDR")]
        metrics_addr: Option<SocketAddr>,
        /// Dataset imported when the data dir holds no game data yet (a version folder, or a folder
        /// of them) instead of the bundled one, which the binary carries.
        #[arg(long, env = "TAPSTER_FIXTURES", value_name = "DIR")]
        fixtures: Option<PathBuf>,
        /// Memory budget of the response cache in MiB; 0 renders every answer afresh.
        #[arg(long, env = "TAPSTER_CACHE_MIB", default_value_t = tapster_http::DEFAULT_CACHE_BUDGET / (1024 * 1024))]
        cache_mib: usize,
        #[command(flatten)]
        replicas: ReplicaArgs,
        #[command(flatten)]
        edge: EdgeArgs,
        #[command(flatten)]
        dashboard: DashboardArgs,
        #[command(flatten)]
        webhooks: WebhookArgs,
        #[command(flatten)]
        log: Log,
    },
    /// Import game versions (a version folder, or a folder of them) atomically: a refused import
    /// leaves the served data exactly as it was.
    Import {
        /// The dataset to import.
        dir: PathBuf,
    },
    /// Publish game versions (a version folder, or a folder of them) once for every replica on
    /// --accounts-url: imported and checked as `import` does, stored as the next generation, and
    /// served by every `serve` on the same accounts within seconds. A refused dataset publishes
    /// nothing.
    Publish {
        /// The dataset to publish.
        #[arg(required_unless_present = "activate", conflicts_with = "activate")]
        dir: Option<PathBuf>,
        /// Instead, make the kept generation N current again (a rollback, or forward again).
        #[arg(long, value_name = "N")]
        activate: Option<i64>,
        /// How many generations are kept when a dataset is published, the newest; older ones are
        /// deleted (never the current one).
        #[arg(long, env = "TAPSTER_KEEP", value_name = "COUNT", default_value_t = KEPT_GENERATIONS, value_parser = at_least_one)]
        keep: usize,
    },
    /// List the generations of game data published for every replica on --accounts-url: number,
    /// whether current, when, by whom, size, SHA-256 and versions.
    Published,
    /// Write the bulk exports (one gzip-compressed NDJSON file per game version and language, as
    /// `/v1/exports` serves them) and their SHA256SUMS into a directory, for mirroring.
    Export {
        /// The directory to write them into; files of the same names are replaced, others left alone.
        dest: PathBuf,
    },
    /// Copy the accounts and game databases into a new directory, consistently, even while `serve`
    /// runs; restore by copying them into an empty data dir.
    Backup {
        /// The directory to write `accounts.sqlite` and `game.sqlite` into; existing files are never overwritten.
        dest: PathBuf,
    },
    /// Create, list, revoke and suspend API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Suspend or reinstate accounts (and so all their keys).
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// Block or unblock calling addresses (answered with 403).
    #[command(subcommand)]
    Addresses(AddressesCommand),
}

/// HTTPS, the limits every client is held to, and the proxies in front of the server.
#[derive(Debug, clap::Args)]
struct EdgeArgs {
    /// Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-key.
    #[arg(long, env = "TAPSTER_TLS_CERT", value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, env = "TAPSTER_TLS_KEY", value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Seconds a TLS handshake may take.
    #[arg(
        long,
        env = "TAPSTER_TLS_HANDSHAKE_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = Seconds(defaults().tls_handshake_timeout)
    )]
    tls_handshake_timeout: Seconds,
    /// Seconds a client has to send a whole request head (on HTTP/1.1 also the longest wait for the
    /// next one).
    #[arg(
        long,
        env = "TAPSTER_HEADER_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = Seconds(defaults().header_read_timeout)
    )]
    header_timeout: Seconds,
    /// Seconds a connection may stay open with nothing moving.
    #[arg(
        long,
        env = "TAPSTER_IDLE_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = Seconds(defaults().keep_alive_idle)
    )]
    idle_timeout: Seconds,
    /// Seconds a request may wait before it is handled; later it is answered 503.
    #[arg(
        long,
        env = "TAPSTER_REQUEST_BUDGET",
        value_name = "SECONDS",
        default_value_t = Seconds(defaults().request_budget)
    )]
    request_budget: Seconds,
    /// Largest request header block in bytes; larger ones are answered 431.
    #[arg(
        long,
        env = "TAPSTER_MAX_HEADER_BYTES",
        value_name = "BYTES",
        default_value_t = defaults().max_header_bytes,
        value_parser = at_least_one
    )]
    max_header_bytes: usize,
    /// Longest request target (path and query) in bytes; longer ones are answered 414.
    #[arg(
        long,
        env = "TAPSTER_MAX_URI_BYTES",
        value_name = "BYTES",
        default_value_t = defaults().max_uri_bytes,
        value_parser = at_least_one
    )]
    max_uri_bytes: usize,
    /// Connections open at once; more are answered 503 and closed. Keep it under the open-file limit.
    #[arg(
        long,
        env = "TAPSTER_MAX_CONNECTIONS",
        value_name = "COUNT",
        default_value_t = defaults().max_connections,
        value_parser = at_least_one
    )]
    max_connections: usize,
    /// The proxies in front of the server (addresses or CIDR blocks; repeatable, or comma-separated):
    /// from them, the calling address is read from --client-ip-header.
    #[arg(
        long,
        env = "TAPSTER_TRUST_PROXY",
        value_name = "CIDR",
        value_delimiter = ',',
        value_parser = address_block
    )]
    trust_proxy: Vec<AddressBlock>,
    /// The one header the trusted proxies write the calling address into: `x-forwarded-for`,
    /// `forwarded` or `x-real-ip`. It is read from the right; every other such header is ignored.
    #[arg(long, env = "TAPSTER_CLIENT_IP_HEADER", value_name = "NAME", value_parser = client_ip_header)]
    client_ip_header: Option<ClientIpHeader>,
    /// With HTTPS (--tls-cert, or an https --public-url), let Strict-Transport-Security cover every
    /// subdomain of the host too.
    #[arg(long, env = "TAPSTER_HSTS_INCLUDE_SUBDOMAINS")]
    hsts_include_subdomains: bool,
    /// Seconds requests in flight may take to finish once shutdown begins.
    #[arg(
        long,
        env = "TAPSTER_SHUTDOWN_GRACE",
        value_name = "SECONDS",
        default_value_t = Seconds(defaults().shutdown_grace)
    )]
    shutdown_grace: Seconds,
}

impl EdgeArgs {
    /// The serving configuration, with the certificate and key read and checked; `https` says
    /// whether clients reach the server over HTTPS without it speaking TLS itself (a proxy ends TLS
    /// for an https --public-url).
    fn config(self, https: bool) -> anyhow::Result<ServeConfig> {
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(tls(cert, key)?),
            _ => None,
        };
        let trusted_proxies = match (self.trust_proxy.is_empty(), self.client_ip_header) {
            (true, None) => None,
            (false, Some(header)) => Some(TrustedProxies { header, proxies: self.trust_proxy }),
            (false, None) => anyhow::bail!(
                "--trust-proxy needs --client-ip-header: name the one header your proxies write the \
                 calling address into (x-forwarded-for, forwarded or x-real-ip; see docs/operations.md)"
            ),
            (true, Some(header)) => anyhow::bail!(
                "--client-ip-header {header} is read only from trusted proxies: name them with --trust-proxy"
            ),
        };
        let https = https || tls.is_some();
        let strict_transport =
            https.then_some(StrictTransport { include_subdomains: self.hsts_include_subdomains });
        Ok(ServeConfig {
            tls,
            tls_handshake_timeout: self.tls_handshake_timeout.0,
            header_read_timeout: self.header_timeout.0,
            keep_alive_idle: self.idle_timeout.0,
            max_header_bytes: self.max_header_bytes,
            max_uri_bytes: self.max_uri_bytes,
            max_connections: self.max_connections,
            request_budget: self.request_budget.0,
            trusted_proxies,
            strict_transport,
            shutdown_grace: self.shutdown_grace.0,
        })
    }
}

/// Several replicas: the rate limits they share (the accounts they share are `--accounts-url`).
#[derive(Debug, clap::Args)]
struct ReplicaArgs {
    /// Share rate limits, daily counts and their state with every replica through this Redis
    /// (redis://..., or rediss://... for TLS). Without it (or --redis-cluster), each process limits
    /// on its own, in memory.
    #[arg(long, env = "TAPSTER_REDIS_URL", value_name = "URL", hide_env_values = true, group = "redis")]
    redis_url: Option<String>,
    /// A seed node of the Redis Cluster that shares the limits (repeatable; redis:// or rediss://),
    /// instead of --redis-url.
    #[arg(
        long,
        env = "TAPSTER_REDIS_CLUSTER",
        value_name = "URL",
        value_delimiter = ',',
        hide_env_values = true,
        group = "redis"
    )]
    redis_cluster: Vec<String>,
    /// The CA (PEM) that signs the certificates of a rediss:// Redis; the system's roots without it.
    #[arg(long, env = "TAPSTER_REDIS_CA", value_name = "PEM", requires = "redis")]
    redis_ca: Option<PathBuf>,
    /// A client certificate chain (PEM) to show a rediss:// Redis that asks for one; needs --redis-key.
    #[arg(long, env = "TAPSTER_REDIS_CERT", value_name = "PEM", requires = "redis_key")]
    redis_cert: Option<PathBuf>,
    /// The private key (PEM) of --redis-cert.
    #[arg(long, env = "TAPSTER_REDIS_KEY", value_name = "PEM", requires = "redis_cert")]
    redis_key: Option<PathBuf>,
    /// What this deployment's keys in Redis start with, so that several can share one Redis.
    #[arg(
        long,
        env = "TAPSTER_REDIS_PREFIX",
        value_name = "PREFIX",
        default_value = "tapster",
        requires = "redis",
        value_parser = redis_prefix
    )]
    redis_prefix: String,
    /// How many replicas share the limits: while Redis is out of reach, each limits every key at
    /// this share of its limits.
    #[arg(long, env = "TAPSTER_REPLICAS", value_name = "COUNT", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    replicas: u32,
    /// Milliseconds a request waits for Redis; past that, Redis is left alone for a second (on a
    /// cluster, the key's slot) and each key is limited here at its share.
    #[arg(
        long,
        env = "TAPSTER_REDIS_TIMEOUT_MS",
        value_name = "MS",
        default_value_t = tapster_server::DEFAULT_REDIS_TIMEOUT.as_millis() as u64,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "redis"
    )]
    redis_timeout_ms: u64,
}

impl ReplicaArgs {
    /// The shared limits the flags name, with the certificate files read.
    fn limits(self) -> anyhow::Result<Option<RedisLimits>> {
        let servers = match (self.redis_url, self.redis_cluster) {
            (Some(url), _) => RedisServers::Node(url),
            (None, urls) if !urls.is_empty() => RedisServers::Cluster(urls),
            (None, _) => return Ok(None),
        };
        let read = |path: &Path, what: &str| {
            std::fs::read(path).with_context(|| format!("reading the Redis {what} {}", path.display()))
        };
        let ca = self.redis_ca.as_deref().map(|path| read(path, "CA certificate")).transpose()?;
        let client = match (&self.redis_cert, &self.redis_key) {
            (Some(cert), Some(key)) => Some((read(cert, "client certificate")?, read(key, "client key")?)),
            _ => None,
        };
        Ok(Some(RedisLimits {
            servers,
            tls: RedisTls { ca, client },
            prefix: self.redis_prefix,
            replicas: self.replicas,
            timeout: Duration::from_millis(self.redis_timeout_ms),
        }))
    }
}

/// Webhooks: which endpoints may be reached.
#[derive(Debug, clap::Args)]
struct WebhookArgs {
    /// Let webhook endpoints be on loopback and private addresses, and over plain http: for tests
    /// and closed networks, never on a server the public reaches (anyone could make it call into
    /// its own network).
    #[arg(long, env = "TAPSTER_WEBHOOKS_ALLOW_PRIVATE")]
    webhooks_allow_private: bool,
    /// Trust the certificate authority in this PEM file for webhook endpoints, besides the web's
    /// roots (a closed network's own CA).
    #[arg(long, env = "TAPSTER_WEBHOOKS_CA", value_name = "PEM")]
    webhooks_ca: Option<PathBuf>,
}

impl WebhookArgs {
    fn settings(self) -> anyhow::Result<WebhookSettings> {
        use rustls::pki_types::pem::PemObject;
        let mut settings =
            WebhookSettings { allow_private: self.webhooks_allow_private, ..WebhookSettings::default() };
        if let Some(path) = &self.webhooks_ca {
            let certificates = CertificateDer::pem_file_iter(path)
                .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
                .map_err(|error| {
                    anyhow::anyhow!("reading the webhooks' CA certificate {}: {error}", path.display())
                })?;
            anyhow::ensure!(!certificates.is_empty(), "{} holds no PEM certificate", path.display());
            settings.extra_roots = certificates;
        }
        Ok(settings)
    }
}

/// The dashboard: how its mail leaves, and the sign-in providers (each enabled when both its client
/// id and secret are set).
#[derive(Debug, clap::Args)]
struct DashboardArgs {
    /// Send mail through this SMTP server: smtps://user:pass@host (TLS), smtp://user:pass@host?tls=required
    /// (STARTTLS) or, to this machine only, smtp://localhost:port (plain). Without it, each mail is
    /// written to the data dir's `outbox/` and its link is logged.
    #[arg(long, env = "TAPSTER_SMTP_URL", value_name = "URL", hide_env_values = true)]
    smtp_url: Option<String>,
    /// The sender of the mails.
    #[arg(
        long,
        env = "TAPSTER_MAIL_FROM",
        value_name = "ADDR",
        default_value = DEFAULT_MAIL_FROM
    )]
    mail_from: String,
    /// The client id of the GitHub OAuth app (its callback URL is the public URL and `/auth/github/callback`).
    #[arg(long, env = "TAPSTER_GITHUB_CLIENT_ID", requires = "github_client_secret")]
    github_client_id: Option<String>,
    /// The GitHub OAuth app's client secret (better given in the environment than on the command line).
    #[arg(long, env = "TAPSTER_GITHUB_CLIENT_SECRET", requires = "github_client_id", hide_env_values = true)]
    github_client_secret: Option<String>,
    #[arg(
        long,
        env = "TAPSTER_GITHUB_AUTHORIZE_URL",
        default_value = "https://github.com/login/oauth/authorize"
    )]
    github_authorize_url: String,
    #[arg(
        long,
        env = "TAPSTER_GITHUB_TOKEN_URL",
        default_value = "https://github.com/login/oauth/access_token"
    )]
    github_token_url: String,
    /// GitHub's REST API, for /user and /user/emails.
    #[arg(long, env = "TAPSTER_GITHUB_API_URL", default_value = "https://api.github.com")]
    github_api_url: String,
    /// The client id of the Discord application (its redirect is the public URL and `/auth/discord/callback`).
    #[arg(long, env = "TAPSTER_DISCORD_CLIENT_ID", requires = "discord_client_secret")]
    discord_client_id: Option<String>,
    /// The Discord application's client secret (better given in the environment).
    #[arg(
        long,
        env = "TAPSTER_DISCORD_CLIENT_SECRET",
        requires = "discord_client_id",
        hide_env_values = true
    )]
    discord_client_secret: Option<String>,
    #[arg(
        long,
        env = "TAPSTER_DISCORD_AUTHORIZE_URL",
        default_value = "https://discord.com/oauth2/authorize"
    )]
    discord_authorize_url: String,
    #[arg(long, env = "TAPSTER_DISCORD_TOKEN_URL", default_value = "https://discord.com/api/oauth2/token")]
    discord_token_url: String,
    /// Discord's API, for /users/@me.
    #[arg(long, env = "TAPSTER_DISCORD_API_URL", default_value = "https://discord.com/api")]
    discord_api_url: String,
}

impl DashboardArgs {
    fn options(self) -> DashboardOptions {
        let provider = |id: Option<String>, secret: Option<String>, authorize_url, token_url, api_url| {
            Some(ProviderConfig { client_id: id?, client_secret: secret?, authorize_url, token_url, api_url })
        };
        DashboardOptions {
            smtp_url: self.smtp_url,
            mail_from: Some(self.mail_from),
            github: provider(
                self.github_client_id,
                self.github_client_secret,
                self.github_authorize_url,
                self.github_token_url,
                self.github_api_url,
            ),
            discord: provider(
                self.discord_client_id,
                self.discord_client_secret,
                self.discord_authorize_url,
                self.discord_token_url,
                self.discord_api_url,
            ),
        }
    }
}

fn public_url(value: &str) -> Result<PublicUrl, String> {
    PublicUrl::parse(value).map_err(|e| e.to_string())
}

fn defaults() -> ServeConfig {
    ServeConfig::default()
}

fn tls(cert: &Path, key: &Path) -> anyhow::Result<TlsConfig> {
    let read = |path: &Path, what: &str| {
        std::fs::read(path).with_context(|| format!("reading the TLS {what} {}", path.display()))
    };
    let (cert_pem, key_pem) = (read(cert, "certificate")?, read(key, "key")?);
    TlsConfig::from_pem(&cert_pem, &key_pem).map_err(|error| {
        let (cert, key) = (cert.display(), key.display());
        match error {
            TlsError::Certificate(_) | TlsError::NoCertificate => {
                anyhow::anyhow!("the TLS certificate {cert}: {error}")
            }
            TlsError::Key(_) => anyhow::anyhow!("the TLS key {key}: {error}"),
            TlsError::Rejected(_) => anyhow::anyhow!("the TLS certificate {cert} and key {key}: {error}"),
        }
    })
}

/// A positive number of seconds, whole or decimal (`10`, `0.25`).
#[derive(Debug, Clone, Copy)]
struct Seconds(Duration);

impl std::str::FromStr for Seconds {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|seconds| *seconds > 0.0)
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .map(Self)
            .ok_or_else(|| format!("`{value}` is not a positive number of seconds"))
    }
}

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

fn at_least_one(value: &str) -> Result<usize, String> {
    value
        .trim()
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("`{value}` is not a whole number above 0"))
}

fn redis_prefix(value: &str) -> Result<String, String> {
    RedisLimits::check_prefix(value).map(|()| value.to_owned())
}

fn client_ip_header(value: &str) -> Result<ClientIpHeader, String> {
    ClientIpHeader::parse(value)
        .ok_or_else(|| format!("`{value}` is not one of x-forwarded-for, forwarded or x-real-ip"))
}

fn address_block(value: &str) -> Result<AddressBlock, String> {
    AddressBlock::parse(value).map_err(|e| format!("`{value}` is not an address or CIDR block: {e}"))
}

/// Where the databases are: defined once, on the whole command line, and global, so that every
/// subcommand takes (and documents) them after its name as well as before it.
#[derive(Debug, clap::Args)]
struct DataDir {
    /// Where Tapster keeps its databases.
    #[arg(long = "data-dir", env = "TAPSTER_DATA_DIR", default_value = "./data", global = true)]
    path: PathBuf,
    /// Where accounts, keys, sessions and usage live: a postgres:// URL, shared by every replica.
    /// Without it, `accounts.sqlite` in the data dir.
    #[arg(
        long = "accounts-url",
        env = "TAPSTER_ACCOUNTS_URL",
        value_name = "URL",
        global = true,
        hide_env_values = true
    )]
    accounts_url: Option<String>,
}

impl DataDir {
    /// The accounts store the flags name.
    fn accounts(&self) -> anyhow::Result<Location> {
        Ok(Location::new(self.accounts_url.as_deref(), &self.path)?)
    }

    /// The administrative commands' handle on the accounts store.
    async fn admin(&self) -> anyhow::Result<Admin> {
        Admin::connect(&self.accounts()?).await
    }
}

/// The server's log on stderr: one line per event, one `info` event per request.
#[derive(Debug, clap::Args)]
struct Log {
    /// `text` or `json` (one object per line).
    #[arg(long = "log-format", env = "TAPSTER_LOG_FORMAT", default_value = "text")]
    format: LogFormat,
    /// The events written: a level (`off`, `error`, `warn`, `info`, `debug`, `trace`), optionally with
    /// levels per target, e.g. `warn,tapster::request=info`. `warn` leaves out the request lines.
    #[arg(long = "log-level", env = "TAPSTER_LOG", default_value = "info")]
    level: LogLevel,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a key (and its account, if new); prints the key, alone, as the last line.
    Create {
        #[arg(long, env = "TAPSTER_ACCOUNT")]
        account: String,
        #[arg(long, env = "TAPSTER_KEY_NAME")]
        name: String,
        #[arg(long, env = "TAPSTER_PER_MINUTE", default_value_t = Limits::DEFAULT.per_minute)]
        per_minute: u32,
        #[arg(long, env = "TAPSTER_BURST", default_value_t = Limits::DEFAULT.burst)]
        burst: u32,
        #[arg(long, env = "TAPSTER_PER_DAY", default_value_t = Limits::DEFAULT.per_day)]
        per_day: u32,
    },
    /// List keys by their public prefix; never shows a whole key.
    List {
        #[arg(long, env = "TAPSTER_ACCOUNT")]
        account: Option<String>,
    },
    /// Revoke a key for good (named by id, public prefix or the whole key).
    Revoke {
        key_or_id: String,
    },
    /// Suspend a key: answered with 403 until unsuspended.
    Suspend {
        key_or_id: String,
    },
    Unsuspend {
        key_or_id: String,
    },
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Suspend an account: its keys answer 403 and it cannot make new ones.
    Suspend {
        email: String,
        /// Why, in words the account holder reads on their dashboard.
        #[arg(long)]
        reason: Option<String>,
    },
    Unsuspend {
        email: String,
    },
}

#[derive(Debug, Subcommand)]
enum AddressesCommand {
    /// Block an IP address or CIDR range.
    Block {
        address: String,
    },
    Unblock {
        address: String,
    },
}

fn main() -> anyhow::Result<()> {
    let Cli { data, command } = Cli::parse();
    match command {
        Command::Serve {
            addr,
            public_url,
            metrics_addr,
            fixtures,
            cache_mib,
            replicas,
            edge,
            dashboard,
            webhooks,
            log,
        } => {
            tracing::subscriber::set_global_default(log_subscriber(log.format, log.level, std::io::stderr))
                .context("setting up the log")?;
            let sharing = Sharing { accounts: data.accounts()?, limits: replicas.limits()? };
            let config = edge.config(public_url.as_ref().is_some_and(PublicUrl::https))?;
            let service = Service::builder(&data.path, &sharing)
                .fixtures(fixtures.as_deref())
                .cache_budget(cache_mib.saturating_mul(1024 * 1024))
                .public_url(public_url)
                .dashboard(dashboard.options())
                .webhooks(webhooks.settings()?)
                .metrics_apart(metrics_addr);
            serve(addr, service, config)
        }
        Command::Import { dir } => import(&dir, &data.path),
        Command::Publish { dir, activate, keep } => admin(async {
            shared(&data)?;
            let admin = data.admin().await?;
            let generation = match (dir, activate) {
                (_, Some(number)) => admin.activate(number).await?,
                (Some(dir), None) => admin
                    .publish(&dir, keep, &publisher())
                    .await
                    .with_context(|| format!("publishing {}", dir.display()))?,
                (None, None) => anyhow::bail!("give a dataset to publish, or --activate N"),
            };
            println!(
                "generation {} is current: {} ({}, sha256 {}); every replica serves it within seconds",
                generation.number,
                generation.versions.join(", "),
                tapster_server::megabytes(generation.size),
                tapster_domain::hex(&generation.sha256)
            );
            Ok(())
        }),
        Command::Published => admin(async {
            shared(&data)?;
            print!("{}", tapster_server::format_generations(&data.admin().await?.generations().await?));
            Ok(())
        }),
        Command::Export { dest } => {
            for file in tapster_server::export(&data.path, &dest)? {
                println!("wrote {}", file.display());
            }
            Ok(())
        }
        Command::Backup { dest } => {
            admin(async {
                let written =
                    data.admin().await?.backup(&data.path, &dest).await.with_context(|| {
                        format!("backing up {} into {}", data.path.display(), dest.display())
                    })?;
                for file in written {
                    println!("wrote {}", file.display());
                }
                if let location @ Location::Postgres(_) = data.accounts()? {
                    println!(
                        "the accounts are in PostgreSQL ({location}): back them up with pg_dump or the \
                     database server's own backups"
                    );
                }
                Ok(())
            })
        }
        Command::Keys(command) => admin(keys(command, &data)),
        Command::Accounts(AccountsCommand::Suspend { email, reason }) => admin(async {
            data.admin().await?.suspend_account(&email, true, reason.as_deref()).await?;
            println!("account {email} is suspended");
            Ok(())
        }),
        Command::Accounts(AccountsCommand::Unsuspend { email }) => admin(async {
            data.admin().await?.suspend_account(&email, false, None).await?;
            println!("account {email} is no longer suspended");
            Ok(())
        }),
        Command::Addresses(AddressesCommand::Block { address }) => admin(async {
            let (block, changed) = data.admin().await?.block(&address, true).await?;
            println!("{block} {}", if changed { "is blocked" } else { "was already blocked" });
            Ok(())
        }),
        Command::Addresses(AddressesCommand::Unblock { address }) => admin(async {
            let (block, changed) = data.admin().await?.block(&address, false).await?;
            println!("{block} {}", if changed { "is no longer blocked" } else { "was not blocked" });
            Ok(())
        }),
    }
}

/// Refuses a publishing command without the accounts in PostgreSQL, before it opens (and makes)
/// the data dir's own accounts file.
fn shared(data: &DataDir) -> anyhow::Result<()> {
    match data.accounts()? {
        Location::Postgres(_) => Ok(()),
        Location::DataDir(_) => Err(tapster_accounts::Error::NotShared.into()),
    }
}

/// Who publishes: the user and the machine, as `user@host` (the user by its id where the
/// environment does not name it, as in a container).
fn publisher() -> String {
    let uid = || {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|line| line.starts_with("Uid:"))?;
        Some(format!("uid {}", line.split_whitespace().nth(1)?))
    };
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .or_else(uid)
        .unwrap_or_else(|| "someone".into());
    let host = std::fs::read_to_string("/etc/hostname").map(|host| host.trim().to_owned());
    format!("{user}@{}", host.ok().filter(|host| !host.is_empty()).unwrap_or_else(|| "this machine".into()))
}

/// Runs an administrative command to its end on a runtime of one thread.
fn admin(command: impl Future<Output = anyhow::Result<()>>) -> anyhow::Result<()> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?
        .block_on(command)
}

async fn keys(command: KeysCommand, data: &DataDir) -> anyhow::Result<()> {
    let (key_or_id, action) = match command {
        KeysCommand::Create { account, name, per_minute, burst, per_day } => {
            let limits =
                Limits::new(per_minute, burst, per_day).map_err(|e| anyhow::anyhow!("limits {e}"))?;
            let created = data.admin().await?.create_key(&account, &name, limits).await?;
            let owner =
                created.record.account_email.as_ref().map_or(String::new(), |email| format!(" for {email}"));
            println!(
                "created key {} ({}){owner}; it is shown only now:",
                created.record.id, created.record.prefix
            );
            println!("{}", created.key.expose());
            return Ok(());
        }
        KeysCommand::List { account } => {
            print!("{}", format_keys(&data.admin().await?.list_keys(account.as_deref()).await?));
            return Ok(());
        }
        KeysCommand::Revoke { key_or_id } => (key_or_id, KeyAction::Revoke),
        KeysCommand::Suspend { key_or_id } => (key_or_id, KeyAction::Suspend),
        KeysCommand::Unsuspend { key_or_id } => (key_or_id, KeyAction::Unsuspend),
    };
    let key = data.admin().await?.change_key(&key_or_id, action).await?;
    print!("{}", format_keys(&[key]));
    Ok(())
}

fn import(dir: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let report = tapster_server::import_with_exports(data_dir, dir)
        .with_context(|| format!("importing {} into {}", dir.display(), data_dir.display()))?;
    for version in &report.versions {
        println!(
            "{} (build {}): {:?}, {} records, {} texts, {} pictures",
            version.name, version.build_id, version.outcome, version.records, version.texts, version.pictures
        );
    }
    Ok(())
}

/// Serves on `addr` what `service` opens until SIGINT or SIGTERM, on a runtime that suits its layout.
fn serve(addr: SocketAddr, service: ServiceBuilder, config: ServeConfig) -> anyhow::Result<()> {
    // Background threads give freed memory back to the system a few seconds after it is freed, even
    // when the server is idle; without them jemalloc only purges while allocating.
    tikv_jemalloc_ctl::background_thread::write(true)
        .map_err(|e| anyhow::anyhow!("starting the allocator's background threads: {e}"))?;
    // With one thread per core, each has a one-thread runtime: this one opens the service, then
    // serves as the first of them beside the upkeep.
    let runtime = match service.layout() {
        Layout::PerCore(_) => tokio::runtime::Builder::new_current_thread(),
        Layout::Runtime => tokio::runtime::Builder::new_multi_thread(),
    }
    .enable_all()
    .build()
    .context("starting the runtime")?;
    runtime.block_on(async {
        let service = service.open().await?;
        let listener =
            tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
        let bound = listener.local_addr().context("reading the bound address")?;
        // The console, not the log: the one time a key is shown whole, it must not reach log storage.
        if let Some(created) = service.first_key() {
            let public_url = service.public_url(bound, config.tls.is_some())?;
            let (key, origin) = (created.key.expose(), public_url.origin());
            eprintln!(
                "created the account {LOCAL_ACCOUNT} with this API key; it is shown only now:\n\n    {key}\n\n\
                 try: curl -H 'Authorization: Bearer {key}' {origin}/v1/versions\n\n\
                 To make keys of your own, open {origin}/ in a browser and sign in.\n"
            );
        }
        service.run(listener, config, shutdown_signal()).await
    })?;
    tracing::info!("tapster stopped");
    Ok(())
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return interrupt.await.unwrap_or(()),
        };
        tokio::select! {
            _ = interrupt => tracing::info!("interrupted: stopping"),
            _ = terminate.recv() => tracing::info!("terminated: stopping"),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
        tracing::info!("interrupted: stopping");
    }
}
