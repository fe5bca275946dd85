//! The `tapster` command line. Every flag is also read from a `TAPSTER_*` variable. The only code
//! that reads the environment or prints to the console; the work is in the `tapster_server` library.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "the console is this binary's interface")]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Parser, Subcommand};
use tapster_domain::Limits;
use tapster_server::{Admin, LogFormat, LogLevel, format_keys, log_subscriber, open_service};
use tapster_store::KeyAction;

/// The bundled dataset, found beside the sources when `--fixtures` is not given.
const BUNDLED_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");

#[derive(Debug, Parser)]
#[command(name = "tapster", version, about = "Serves a tavern game's data as a read-only HTTP/JSON API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API. On a data dir without game data, imports the bundled dataset first; on one
    /// without any key, creates a local account and key and prints the key once.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "TAPSTER_ADDR", default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        #[command(flatten)]
        data: DataDir,
        /// Dataset imported when the data dir holds no game data yet.
        #[arg(long, env = "TAPSTER_FIXTURES", default_value = BUNDLED_FIXTURES)]
        fixtures: PathBuf,
        /// Memory budget of the response cache in MiB; 0 renders every answer afresh.
        #[arg(long, env = "TAPSTER_CACHE_MIB", default_value_t = tapster_http::DEFAULT_CACHE_BUDGET / (1024 * 1024))]
        cache_mib: usize,
        #[command(flatten)]
        log: Log,
    },
    /// Import game versions (a version folder, or a folder of them) atomically: a refused import
    /// leaves the served data exactly as it was.
    Import {
        /// The dataset to import.
        dir: PathBuf,
        #[command(flatten)]
        data: DataDir,
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

#[derive(Debug, clap::Args)]
struct DataDir {
    /// Where Tapster keeps its databases.
    #[arg(long = "data-dir", env = "TAPSTER_DATA_DIR", default_value = "./data", global = true)]
    path: PathBuf,
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
        #[command(flatten)]
        data: DataDir,
    },
    /// List keys by their public prefix; never shows a whole key.
    List {
        #[arg(long, env = "TAPSTER_ACCOUNT")]
        account: Option<String>,
        #[command(flatten)]
        data: DataDir,
    },
    /// Revoke a key for good (named by id, public prefix or the whole key).
    Revoke {
        key_or_id: String,
        #[command(flatten)]
        data: DataDir,
    },
    /// Suspend a key: answered with 403 until unsuspended.
    Suspend {
        key_or_id: String,
        #[command(flatten)]
        data: DataDir,
    },
    Unsuspend {
        key_or_id: String,
        #[command(flatten)]
        data: DataDir,
    },
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    Suspend {
        email: String,
        #[command(flatten)]
        data: DataDir,
    },
    Unsuspend {
        email: String,
        #[command(flatten)]
        data: DataDir,
    },
}

#[derive(Debug, Subcommand)]
enum AddressesCommand {
    /// Block an IP address or CIDR range.
    Block {
        address: String,
        #[command(flatten)]
        data: DataDir,
    },
    Unblock {
        address: String,
        #[command(flatten)]
        data: DataDir,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Serve { addr, data, fixtures, cache_mib, log } => {
            tracing::subscriber::set_global_default(log_subscriber(log.format, log.level, std::io::stderr))
                .context("setting up the log")?;
            serve(addr, &data.path, &fixtures, cache_mib)
        }
        Command::Import { dir, data } => import(&dir, &data.path),
        Command::Keys(command) => keys(command),
        Command::Accounts(AccountsCommand::Suspend { email, data }) => {
            Admin::open(&data.path)?.suspend_account(&email, true)?;
            println!("account {email} is suspended");
            Ok(())
        }
        Command::Accounts(AccountsCommand::Unsuspend { email, data }) => {
            Admin::open(&data.path)?.suspend_account(&email, false)?;
            println!("account {email} is no longer suspended");
            Ok(())
        }
        Command::Addresses(AddressesCommand::Block { address, data }) => {
            let (block, changed) = Admin::open(&data.path)?.block(&address, true)?;
            println!("{block} {}", if changed { "is blocked" } else { "was already blocked" });
            Ok(())
        }
        Command::Addresses(AddressesCommand::Unblock { address, data }) => {
            let (block, changed) = Admin::open(&data.path)?.block(&address, false)?;
            println!("{block} {}", if changed { "is no longer blocked" } else { "was not blocked" });
            Ok(())
        }
    }
}

fn keys(command: KeysCommand) -> anyhow::Result<()> {
    let (key_or_id, data, action) = match command {
        KeysCommand::Create { account, name, per_minute, burst, per_day, data } => {
            let limits =
                Limits::new(per_minute, burst, per_day).map_err(|e| anyhow::anyhow!("limits {e}"))?;
            let created = Admin::open(&data.path)?.create_key(&account, &name, limits)?;
            println!(
                "created key {} ({}) for {}; it is shown only now:",
                created.record.id, created.record.prefix, created.record.account
            );
            println!("{}", created.key.expose());
            return Ok(());
        }
        KeysCommand::List { account, data } => {
            print!("{}", format_keys(&Admin::open(&data.path)?.list_keys(account.as_deref())?));
            return Ok(());
        }
        KeysCommand::Revoke { key_or_id, data } => (key_or_id, data, KeyAction::Revoke),
        KeysCommand::Suspend { key_or_id, data } => (key_or_id, data, KeyAction::Suspend),
        KeysCommand::Unsuspend { key_or_id, data } => (key_or_id, data, KeyAction::Unsuspend),
    };
    let key = Admin::open(&data.path)?.change_key(&key_or_id, action)?;
    print!("{}", format_keys(&[key]));
    Ok(())
}

fn import(dir: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let report = tapster_store::import(data_dir, dir)
        .with_context(|| format!("importing {} into {}", dir.display(), data_dir.display()))?;
    for version in &report.versions {
        println!(
            "{} (build {}): {:?}, {} records, {} texts",
            version.name, version.build_id, version.outcome, version.records, version.texts
        );
    }
    Ok(())
}

fn serve(addr: SocketAddr, data_dir: &Path, fixtures: &Path, cache_mib: usize) -> anyhow::Result<()> {
    if let Err(tapster_store::Error::NoData(_)) = tapster_store::Store::open(data_dir) {
        tracing::info!("{} holds no game data yet: importing {}", data_dir.display(), fixtures.display());
    }
    let mut service = open_service(data_dir, fixtures)?;
    service.cache_budget = cache_mib.saturating_mul(1024 * 1024);
    // The console, not the log: the one time a key is shown whole, it must not reach log storage.
    if let Some(created) = &service.first_key {
        eprintln!(
            "created the account {} with this API key; it is shown only now:\n\n    {}\n\ntry: curl -H 'Authorization: Bearer {}' http://{addr}/v1/versions\n",
            created.record.account,
            created.key.expose(),
            created.key.expose()
        );
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
        tracing::info!(
            "tapster serves {} game versions (latest {}) on http://{}",
            service.store.versions().len(),
            service.store.latest().info.name,
            listener.local_addr().context("reading the bound address")?
        );
        service.run(listener, shutdown_signal()).await
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
