//! Wiring: open the accounts (and the shared limits), the game data (the current published
//! generation with several replicas, else the data dir's, importing the bundled dataset into an empty
//! one) and the gate, then serve the API and the dashboard beside it until shutdown (as the
//! [`Layout`] says: on one thread per core, or on the caller's runtime), while the caller's runtime
//! also reloads access changes, writes usage back and installs newly published generations, and a
//! thread publishes newly imported or installed game data to the app.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use tapster_accounts::{Accounts, Generation, Location};
use tapster_dashboard::{Dashboard, PublicUrl};
use tapster_store::Store;
use tokio::net::TcpListener;

use crate::access::{Access, Clock, FLUSH_EVERY, RELOAD_EVERY, timestamp};
use crate::admin::{Admin, NewKey};
use crate::dashboard::{ApiConsole, DashboardOptions, DashboardPages, System};
use crate::limiter::InProcess;
use crate::published::Follower;
use crate::reload::{Reload, Reloader};
use crate::shared::{RedisLimits, Shared};
use crate::webhooks::{WebhookSettings, Webhooks};

/// How often a replica looks for a new generation of published game data.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);
/// How often expired sign-in links and idle sessions are forgotten.
const PURGE_EVERY: Duration = Duration::from_secs(3600);
/// How long a look at the accounts store (a poll, a reload, a purge) may take: past it, the store
/// counts as out of reach and the upkeep goes on (a hung connection must not hold up the next reload).
const UPKEEP_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything a running server needs, opened and checked, and how it is to serve: built whole by
/// [`ServiceBuilder::open`], and served by [`Service::run`].
#[derive(Debug)]
pub struct Service {
    data_dir: PathBuf,
    /// With the accounts in PostgreSQL: what is served of the game data published for every replica.
    follower: Option<Arc<Follower>>,
    store: Store,
    access: Arc<Access>,
    accounts: Accounts,
    sharing: Sharing,
    /// The key created for a data dir that had none, to be shown once.
    first_key: Option<NewKey>,
    /// Memory budget of the response cache, in bytes; 0 renders every answer afresh.
    cache_budget: usize,
    /// How connections are spread over threads.
    layout: Layout,
    /// The address clients reach the server at, when the operator named it (`--public-url`); see
    /// [`Service::public_url`] for what is used without it.
    public_url: Option<PublicUrl>,
    /// The dashboard served beside the API.
    dashboard: DashboardOptions,
    /// Where operators scrape `/metrics` (`--metrics-addr`), over plain HTTP, instead of beside the
    /// API, which then answers it `404`.
    metrics_listener: Option<TcpListener>,
    /// How webhooks are delivered.
    webhooks: WebhookSettings,
    /// The time the gate and the webhooks' worker read.
    clock: Clock,
}

/// How a [`Service`] is opened and serves. Only the data dir and where the shared stores are must
/// be given; everything else has a default that works on one machine.
#[derive(Debug)]
#[must_use]
pub struct ServiceBuilder {
    data_dir: PathBuf,
    sharing: Sharing,
    fixtures: Option<PathBuf>,
    clock: Clock,
    cache_budget: usize,
    public_url: Option<PublicUrl>,
    dashboard: DashboardOptions,
    metrics_addr: Option<SocketAddr>,
    webhooks: WebhookSettings,
}

/// Where a server keeps what it shares with other replicas: the accounts, and the rate limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sharing {
    pub accounts: Location,
    /// Limits in Redis, shared by every replica; without, in this process's memory.
    pub limits: Option<RedisLimits>,
}

impl Sharing {
    /// Nothing shared: the accounts in `data_dir`, the limits in memory.
    pub fn none(data_dir: &Path) -> Self {
        Self { accounts: Location::DataDir(data_dir.to_owned()), limits: None }
    }
}

/// How connections are spread over threads; which suits a deployment was measured
/// (`docs/performance.md`, "The runtime").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One thread per core, each with a one-thread runtime (`tapster_edge::serve_on_threads`), the
    /// first of them the one [`Service::run`] is called on, which should be one-threaded too: a
    /// fifth less CPU per HTTP/2 answer than a work-stealing runtime, the same for HTTP/1.1.
    PerCore(NonZeroUsize),
    /// The runtime [`Service::run`] is called on, as it is: for limits in Redis, whose round trips a
    /// work-stealing runtime overlaps better with writing the answers (a fifth more requests of
    /// many keys).
    Runtime,
}

impl Layout {
    /// One thread per core this process may use, unless the limits are in Redis.
    pub fn for_sharing(sharing: &Sharing) -> Self {
        match sharing.limits {
            None => Self::PerCore(std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)),
            Some(_) => Self::Runtime,
        }
    }
}

impl ServiceBuilder {
    /// On a data dir without game data, import this dataset (a version folder, or a folder of them)
    /// instead of the bundled one the binary carries.
    pub fn fixtures(mut self, dir: Option<&Path>) -> Self {
        self.fixtures = dir.map(Path::to_owned);
        self
    }

    /// Judge keys, limits and usage by the time `clock` tells, instead of the wall clock.
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The memory budget of the response cache, in bytes; 0 renders every answer afresh.
    pub fn cache_budget(mut self, bytes: usize) -> Self {
        self.cache_budget = bytes;
        self
    }

    /// The address clients reach the server at (`--public-url`), when it is not the one it listens on.
    pub fn public_url(mut self, url: Option<PublicUrl>) -> Self {
        self.public_url = url;
        self
    }

    /// The dashboard's settings.
    pub fn dashboard(mut self, options: DashboardOptions) -> Self {
        self.dashboard = options;
        self
    }

    /// Serve `/metrics` (and `/healthz`) on this address, over plain HTTP, instead of beside the API.
    pub fn metrics_apart(mut self, addr: Option<SocketAddr>) -> Self {
        self.metrics_addr = addr;
        self
    }

    /// How webhooks are delivered (`--webhooks-allow-private`, `--webhooks-ca`).
    pub fn webhooks(mut self, settings: WebhookSettings) -> Self {
        self.webhooks = settings;
        self
    }

    /// How the service will spread connections over threads: the runtime it is opened and run on
    /// should suit it (one thread for [`Layout::PerCore`]).
    pub fn layout(&self) -> Layout {
        Layout::for_sharing(&self.sharing)
    }

    /// Opens the accounts and limits as the sharing says, then the data dir, for serving. On a data
    /// dir without game data, imports the fixtures first, or without them the bundled dataset the
    /// binary carries; on an accounts store without any key, creates the local account's key. Last,
    /// binds the metrics address, so that one that is taken is said before anything is served (the
    /// API's listener is the caller's, who needs its address first).
    pub async fn open(self) -> anyhow::Result<Service> {
        let Self {
            data_dir,
            sharing,
            fixtures,
            clock,
            cache_budget,
            public_url,
            dashboard,
            metrics_addr,
            webhooks,
        } = self;
        // The shared stores first: one that cannot be reached (or a certificate refused) is said at
        // once, not after a first import of the game data.
        let admin = Admin::connect(&sharing.accounts).await?;
        let shared = match &sharing.limits {
            None => None,
            Some(redis) => Some(Shared::connect(redis).await?),
        };
        // With the accounts in PostgreSQL, the replica serves the game data published for every
        // replica (when some is): taken before it answers.
        let follower = match &sharing.accounts {
            Location::Postgres(_) => Some(Arc::new(Follower::new(&data_dir, admin.accounts().clone()))),
            Location::DataDir(_) => None,
        };
        if let Some(follower) = &follower {
            match follower.catch_up().await {
                Ok(Some(generation)) => installed(&generation),
                Ok(None) => {}
                Err(error) if tapster_store::served_sha256(&data_dir).ok().flatten().is_some() => {
                    tracing::warn!(
                        error = format!("{error:#}"),
                        "the published game data could not be installed: serving the data already in the data dir"
                    )
                }
                Err(error) => {
                    return Err(error.context("installing the published game data into an empty data dir"));
                }
            }
        }
        let store = match Store::open(&data_dir) {
            Err(tapster_store::Error::NoData(_)) => {
                crate::bundled::import_first(&data_dir, fixtures.as_deref())?;
                Store::open(&data_dir)
            }
            opened => opened,
        }
        .with_context(|| format!("opening the game data in {}", data_dir.display()))?;
        if let Some(follower) = &follower {
            follower.serving(store.stamp());
        }
        let first_key = admin.first_key().await?;
        let accounts = admin.into_accounts();
        let access = match shared {
            None => Access::load(accounts.clone(), InProcess::default(), clock.clone()).await,
            Some(limiter) => Access::load(accounts.clone(), limiter, clock.clone()).await,
        }
        .context("loading keys and usage")?;
        let metrics_listener = match metrics_addr {
            None => None,
            Some(addr) => {
                let listener = TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("listening for metrics on {addr}"))?;
                let bound = listener.local_addr().context("reading the bound metrics address")?;
                tracing::info!("metrics are served apart, at http://{bound}/metrics");
                Some(listener)
            }
        };
        Ok(Service {
            data_dir,
            follower,
            store,
            access: Arc::new(access),
            accounts,
            layout: Layout::for_sharing(&sharing),
            sharing,
            first_key,
            cache_budget,
            public_url,
            dashboard,
            metrics_listener,
            webhooks,
            clock,
        })
    }
}

impl Service {
    /// A service on `data_dir`, with the accounts and limits where `sharing` says, to be set up and
    /// then opened by [`ServiceBuilder::open`].
    pub fn builder(data_dir: &Path, sharing: &Sharing) -> ServiceBuilder {
        ServiceBuilder {
            data_dir: data_dir.to_owned(),
            sharing: sharing.clone(),
            fixtures: None,
            clock: Clock::system(),
            cache_budget: tapster_http::DEFAULT_CACHE_BUDGET,
            public_url: None,
            dashboard: DashboardOptions::default(),
            metrics_addr: None,
            webhooks: WebhookSettings::default(),
        }
    }

    /// The key created for a data dir that had none, to be shown once.
    pub fn first_key(&self) -> Option<&NewKey> {
        self.first_key.as_ref()
    }

    /// Where clients reach this server once it listens on `addr` (with TLS when `tls`): the URL the
    /// operator named, or else `http://` (`https://`) and that address, the loopback one for a
    /// wildcard (`0.0.0.0`, `::`), which a browser on the same machine can open. The dashboard's
    /// links and the origin its forms must come from derive from it.
    pub fn public_url(&self, addr: SocketAddr, tls: bool) -> anyhow::Result<PublicUrl> {
        match &self.public_url {
            Some(url) => Ok(url.clone()),
            None => default_public_url(addr, tls),
        }
    }

    /// Serves on `listener` as `config` says until `shutdown` completes, then writes the last usage
    /// counts.
    pub async fn run(
        self,
        listener: TcpListener,
        config: tapster_edge::ServeConfig,
        shutdown: impl Future<Output = ()>,
    ) -> anyhow::Result<()> {
        let mut reloader = Reloader::new(&self.data_dir, &self.store);
        let addr = listener.local_addr().context("reading the bound address")?;
        let tls = config.tls.is_some();
        tracing::info!(
            "tapster serves {} game versions (latest {}) on {}://{addr}",
            self.store.versions().len(),
            self.store.latest().info.name,
            if tls { "https" } else { "http" },
        );
        let public_url = self.public_url(addr, tls)?;
        let dashboard =
            self.dashboard.config(public_url.clone(), &self.data_dir, self.webhooks.allow_private);
        let dashboard = Dashboard::new(dashboard, self.accounts.clone(), Arc::new(System))
            .context("starting the dashboard")?;
        let webhooks =
            Webhooks::new(self.accounts.clone(), &self.webhooks, self.clock.clone(), public_url.origin())?;
        dashboard.set_outbox(Arc::clone(&webhooks) as Arc<dyn tapster_dashboard::Outbox>);
        let console = Arc::new(ApiConsole::new(Arc::clone(&self.access)));
        dashboard.set_console(Arc::clone(&console) as Arc<dyn tapster_dashboard::Console>);
        tracing::info!(url = dashboard.url(), "the dashboard is served beside the API");
        let mut app =
            tapster_http::App::new(self.store, Arc::clone(&self.access)).with_cache_budget(self.cache_budget);
        // Only a public URL the operator named goes into the API's own documents (the OpenAPI
        // document's server, the base of the changelog feed's links): the one the dashboard falls
        // back on (the listening address, loopback for a wildcard) would send a client on another
        // machine to itself, so without a named one they stay relative.
        if let Some(url) = &self.public_url {
            app = app.with_public_url(url.origin());
        }
        if self.metrics_listener.is_some() {
            app = app.with_metrics_apart();
        }
        // The stores shared with other replicas are reported on in /healthz and /metrics.
        if let Location::Postgres(_) = self.sharing.accounts {
            let access = Arc::clone(&self.access);
            app = app.with_dependency("accounts", move || access.accounts_trouble());
        }
        if self.sharing.limits.is_some() {
            let access = Arc::clone(&self.access);
            app = app.with_dependency("redis", move || access.limits_trouble());
        }
        if let Some(follower) = &self.follower {
            let (troubled, served) = (Arc::clone(follower), Arc::clone(follower));
            app = app
                .with_dependency("game data", move || troubled.trouble())
                .with_generation(move || served.served());
        }
        let app =
            Arc::new(app.with_pages(DashboardPages {
                dashboard: dashboard.clone(),
                access: Arc::clone(&self.access),
            }));
        console.serve_through(&app);
        let stop = Arc::new(AtomicBool::new(false));
        // A task of its own: a delivery may take seconds, which nothing else waits for.
        let delivering = tokio::spawn(webhooks.run(Arc::clone(&app), dashboard, Arc::clone(&stop)));
        let mut watcher = self.accounts.watcher().context("watching the accounts database")?;
        let (access, accounts) = (Arc::clone(&self.access), self.accounts.clone());
        let (mut flushed, mut purged) = (Instant::now(), Instant::now());
        // A task: it waits on the accounts store, which wakes it at once for the dashboard's changes
        // (a key made or revoked works, or stops, before the page that says so has loaded), and
        // polls for the admin commands'.
        let upkeep = Arc::clone(&stop);
        let keys = tokio::spawn(async move {
            while !upkeep.load(Ordering::Relaxed) {
                let changed = within(UPKEEP_TIMEOUT, watcher.next_change(RELOAD_EVERY)).await;
                // Said once when the store goes out of reach and once when it is back, not on every
                // poll; keys are judged by the last snapshot meanwhile, and reloaded whole after.
                let turned = access.accounts_answered(changed.as_ref().map(|_| ()).map_err(Clone::clone));
                if turned {
                    match &changed {
                        Err(e) => tracing::warn!(
                            error = %e,
                            "the accounts database is out of reach: serving keys from the last snapshot"
                        ),
                        Ok(_) => tracing::info!("the accounts database answers again"),
                    }
                }
                match changed {
                    Ok(true) => report(within(UPKEEP_TIMEOUT, access.reload()).await, "reloading keys"),
                    // Back after an outage: whatever changed meanwhile, the snapshot is reloaded.
                    Ok(false) if turned => {
                        report(within(UPKEEP_TIMEOUT, access.reload()).await, "reloading keys")
                    }
                    Ok(false) | Err(_) => {}
                }
                if flushed.elapsed() >= FLUSH_EVERY {
                    // Not cut short: a flush that fails keeps its counts for the next one, and one
                    // dropped halfway would lose them. A dead connection fails it within seconds.
                    report(access.flush().await, "recording usage");
                    flushed = Instant::now();
                }
                if purged.elapsed() >= PURGE_EVERY {
                    let purge = accounts.purge(timestamp());
                    report(within(UPKEEP_TIMEOUT, purge).await, "forgetting old sessions and links");
                    purged = Instant::now();
                }
            }
        });
        // A task of its own: a new generation takes a download, which key changes must not wait for.
        // It installs the file; the reload thread below serves it.
        let following = self.follower.clone().map(|follower| {
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(FOLLOW_EVERY).await;
                    match follower.catch_up().await {
                        Ok(Some(generation)) => installed(&generation),
                        Ok(None) => {}
                        Err(error) => tracing::warn!(
                            error = format!("{error:#}"),
                            "the published game data could not be installed (still serving the data before; tried again in 30 s)"
                        ),
                    }
                }
            })
        });
        // Its own thread: reading new game data takes about a second, which key changes must not wait for.
        let (publisher, follower) = (Arc::clone(&app), self.follower.clone());
        let data = every(RELOAD_EVERY, &stop, move || match reloader.poll(&publisher) {
            Some(Reload::Published(store)) => {
                if let Some(follower) = &follower {
                    follower.serving(store.stamp());
                }
                announce(&store);
            }
            Some(Reload::Refused(e)) => {
                report(Err(e), "reading new game data (still serving the data read before)")
            }
            None => {}
        });
        // One shutdown for both addresses: the API's passes it on to the operators' port, as does
        // the API's serving ending any other way.
        let (stopping, stopped) = tokio::sync::watch::channel(false);
        let shutdown = async {
            shutdown.await;
            let _ = stopping.send(true);
        };
        let operators = self.metrics_listener.map(|listener| {
            let operators = Arc::new(app.operators());
            let mut stopped = stopped.clone();
            let stopped = async move {
                let _ = stopped.wait_for(|stopped| *stopped).await;
            };
            // Scrapers and health checks reach it directly, over plain HTTP.
            let config = tapster_edge::ServeConfig {
                tls: None,
                trusted_proxies: None,
                strict_transport: None,
                ..config.clone()
            };
            tokio::spawn(tapster_edge::serve(listener, operators, config, stopped))
        });
        let served = match self.layout {
            Layout::PerCore(threads) => {
                tracing::info!(threads, "connections are served on one thread per core");
                tapster_edge::serve_on_threads(listener, threads, app, config, shutdown).await
            }
            Layout::Runtime => tapster_edge::serve(listener, app, config, shutdown).await,
        };
        let _ = stopping.send(true);
        let operators = match operators {
            Some(serving) => serving.await.map_err(anyhow::Error::from).and_then(|served| Ok(served?)),
            None => Ok(()),
        };
        stop.store(true, Ordering::Relaxed);
        let _ = keys.await;
        if let Some(following) = following {
            following.abort();
        }
        // A delivery cut short is tried again once its claim runs out: the outbox is at least once.
        delivering.abort();
        let _ = data.join();
        self.access.flush().await.context("recording the last usage counts")?;
        served.context("serving")?;
        operators.context("serving the metrics")
    }
}

/// Runs `work` on a thread of its own every `period` until `stop` is set.
fn every(
    period: Duration,
    stop: &Arc<AtomicBool>,
    mut work: impl FnMut() + Send + 'static,
) -> JoinHandle<()> {
    let stop = Arc::clone(stop);
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(period);
            work();
        }
    })
}

/// `work`'s result, or an error once `limit` has passed.
async fn within<T>(
    limit: Duration,
    work: impl Future<Output = tapster_accounts::Result<T>>,
) -> Result<T, String> {
    match tokio::time::timeout(limit, work).await {
        Ok(done) => done.map_err(|e| e.to_string()),
        Err(_) => Err(format!("no answer within {} s", limit.as_secs())),
    }
}

fn report<E: std::fmt::Display>(result: Result<(), E>, doing: &str) {
    if let Err(e) = result {
        tracing::error!(doing, error = %e, "upkeep failed");
    }
}

fn installed(generation: &Generation) {
    tracing::info!(
        generation = generation.number,
        versions = generation.versions.join(", "),
        sha256 = tapster_domain::hex(&generation.sha256),
        "installed the published game data"
    );
}

fn announce(store: &Store) {
    tracing::info!(
        versions = store.versions().len(),
        latest = %store.latest().info.name,
        "serving new game data"
    );
}

/// `http://` or `https://` and the address the server listens on; an unspecified address (`0.0.0.0`,
/// `::`) becomes the loopback one, which a browser on the same machine can open.
fn default_public_url(addr: SocketAddr, tls: bool) -> anyhow::Result<PublicUrl> {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let scheme = if tls { "https" } else { "http" };
    Ok(PublicUrl::parse(&format!("{scheme}://{}", SocketAddr::new(ip, addr.port())))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_public_url_is_one_a_browser_here_can_open() {
        let cases = [
            ("127.0.0.1:8080", false, "http://127.0.0.1:8080"),
            ("0.0.0.0:8080", false, "http://127.0.0.1:8080"),
            ("[::]:443", true, "https://[::1]"),
            ("192.0.2.7:9000", true, "https://192.0.2.7:9000"),
        ];
        for (addr, tls, url) in cases {
            assert_eq!(default_public_url(addr.parse().unwrap(), tls).unwrap().origin(), url, "{addr}");
        }
    }
}
