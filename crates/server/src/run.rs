//! Wiring: open the accounts (and the shared limits), the game data (the current published
//! generation with several replicas, else the data dir's, importing the bundled dataset into an empty
//! one) and the gate, then serve the API and the dashboard beside it until shutdown (as the
//! [`Layout`] says: on one thread per core, or on the caller's runtime), while the caller's runtime
//! also reloads access changes, writes usage back and installs newly published generations, and a
//! thread publishes newly imported or installed game data to the app.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;
use tapster_accounts::{Accounts, Generation, Location};
use tapster_dashboard::Dashboard;
use tapster_store::Store;
use tokio::net::TcpListener;

use crate::access::{Access, Clock, FLUSH_EVERY, RELOAD_EVERY, timestamp};
use crate::admin::{Admin, NewKey};
use crate::dashboard::{ApiConsole, DashboardOptions, DashboardPages, System};
use crate::limiter::InProcess;
use crate::published::Follower;
use crate::reload::{Reload, Reloader};
use crate::shared::{RedisLimits, Shared};

/// How often a replica looks for a new generation of published game data.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);
/// How often expired sign-in links and idle sessions are forgotten.
const PURGE_EVERY: Duration = Duration::from_secs(3600);
/// How long a look at the accounts store (a poll, a reload, a purge) may take: past it, the store
/// counts as out of reach and the upkeep goes on (a hung connection must not hold up the next reload).
const UPKEEP_TIMEOUT: Duration = Duration::from_secs(5);

/// Everything a running server needs, opened and checked.
#[derive(Debug)]
pub struct Service {
    data_dir: PathBuf,
    /// With the accounts in PostgreSQL: what is served of the game data published for every replica.
    follower: Option<Arc<Follower>>,
    pub store: Store,
    access: Arc<Access>,
    accounts: Accounts,
    sharing: Sharing,
    /// The key created for a data dir that had none, to be shown once.
    pub first_key: Option<NewKey>,
    /// Memory budget of the response cache, in bytes; 0 renders every answer afresh.
    pub cache_budget: usize,
    /// How connections are spread over threads.
    pub layout: Layout,
    /// The dashboard served beside the API.
    pub dashboard: DashboardOptions,
    /// The address clients reach the API at, when the operator named it (`--public-url`): the
    /// OpenAPI document's server and the base of the changelog feed's links. The dashboard's
    /// default address (the listening one, loopback for a wildcard) would send a client on
    /// another machine to itself, so without it those stay relative.
    pub public_url: Option<String>,
    /// Where operators scrape `/metrics` (`--metrics-addr`), over plain HTTP, instead of beside the
    /// API, which then answers it `404`.
    pub metrics_listener: Option<TcpListener>,
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

/// Opens the data dir, and the accounts and limits as `sharing` says, for serving. On a data dir
/// without game data, imports `fixtures` first, or without it the bundled dataset the binary
/// carries; on an accounts store without any key, creates the local account's key.
pub async fn open_service(
    data_dir: &Path,
    sharing: &Sharing,
    fixtures: Option<&Path>,
) -> anyhow::Result<Service> {
    open_service_with_clock(data_dir, sharing, fixtures, Clock::system()).await
}

/// [`open_service`], with keys, limits and usage judged by the time `clock` tells.
pub async fn open_service_with_clock(
    data_dir: &Path,
    sharing: &Sharing,
    fixtures: Option<&Path>,
    clock: Clock,
) -> anyhow::Result<Service> {
    // The shared stores first: one that cannot be reached (or a certificate refused) is said at once,
    // not after a first import of the game data.
    let admin = Admin::connect(&sharing.accounts).await?;
    let shared = match &sharing.limits {
        None => None,
        Some(redis) => Some(Shared::connect(redis).await?),
    };
    // With the accounts in PostgreSQL, the replica serves the game data published for every replica
    // (when some is): taken before it answers.
    let follower = match &sharing.accounts {
        Location::Postgres(_) => Some(Arc::new(Follower::new(data_dir, admin.accounts().clone()))),
        Location::DataDir(_) => None,
    };
    if let Some(follower) = &follower {
        match follower.catch_up().await {
            Ok(Some(generation)) => installed(&generation),
            Ok(None) => {}
            Err(error) if tapster_store::served_sha256(data_dir).ok().flatten().is_some() => tracing::warn!(
                error = format!("{error:#}"),
                "the published game data could not be installed: serving the data already in the data dir"
            ),
            Err(error) => {
                return Err(error.context("installing the published game data into an empty data dir"));
            }
        }
    }
    let store = match Store::open(data_dir) {
        Err(tapster_store::Error::NoData(_)) => {
            crate::bundled::import_first(data_dir, fixtures)?;
            Store::open(data_dir)
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
        None => Access::load(accounts.clone(), InProcess::default(), clock).await,
        Some(limiter) => Access::load(accounts.clone(), limiter, clock).await,
    }
    .context("loading keys and usage")?;
    Ok(Service {
        data_dir: data_dir.to_owned(),
        follower,
        store,
        access: Arc::new(access),
        accounts,
        sharing: sharing.clone(),
        first_key,
        cache_budget: tapster_http::DEFAULT_CACHE_BUDGET,
        layout: Layout::for_sharing(sharing),
        dashboard: DashboardOptions::default(),
        public_url: None,
        metrics_listener: None,
    })
}

impl Service {
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
        let dashboard = self.dashboard.config(addr, config.tls.is_some(), &self.data_dir)?;
        let dashboard = Dashboard::new(dashboard, self.accounts.clone(), Arc::new(System))
            .context("starting the dashboard")?;
        let console = Arc::new(ApiConsole::new(Arc::clone(&self.access)));
        dashboard.set_console(Arc::clone(&console) as Arc<dyn tapster_dashboard::Console>);
        tracing::info!(url = dashboard.url(), "the dashboard is served beside the API");
        let mut app =
            tapster_http::App::new(self.store, Arc::clone(&self.access)).with_cache_budget(self.cache_budget);
        if let Some(origin) = &self.public_url {
            app = app.with_public_url(origin);
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
        let app = Arc::new(app.with_pages(DashboardPages { dashboard, access: Arc::clone(&self.access) }));
        console.serve_through(&app);
        let stop = Arc::new(AtomicBool::new(false));
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
        sha256 = crate::published::hex(&generation.sha256),
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
