//! The `tapster` binary: parses the command line (every flag also read from a `TAPSTER_*`
//! variable), and wires the store and the HTTP interface together. The only crate that reads the
//! environment or prints to the console.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "the console is this binary's interface")]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tapster_store::Store;

/// The bundled dataset, found beside the sources when `--fixtures` is not given.
const BUNDLED_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");

/// How long requests in flight may take to finish once a shutdown signal arrives.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, Parser)]
#[command(name = "tapster", version, about = "Serves a tavern game's data as a read-only HTTP/JSON API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API. On a data dir without game data, imports the bundled dataset first.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "TAPSTER_ADDR", default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        #[command(flatten)]
        data: DataDir,
        /// Dataset imported when the data dir holds no game data yet.
        #[arg(long, env = "TAPSTER_FIXTURES", default_value = BUNDLED_FIXTURES)]
        fixtures: PathBuf,
    },
    /// Import game versions (a version folder, or a folder of them) atomically: a refused import
    /// leaves the served data exactly as it was.
    Import {
        /// The dataset to import.
        dir: PathBuf,
        #[command(flatten)]
        data: DataDir,
    },
}

#[derive(Debug, clap::Args)]
struct DataDir {
    /// Where Tapster keeps its databases.
    #[arg(long = "data-dir", env = "TAPSTER_DATA_DIR", default_value = "./data")]
    path: PathBuf,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Serve { addr, data, fixtures } => serve(addr, &data.path, &fixtures),
        Command::Import { dir, data } => import(&dir, &data.path),
    }
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

fn serve(addr: SocketAddr, data_dir: &Path, fixtures: &Path) -> anyhow::Result<()> {
    let store = match Store::open(data_dir) {
        Err(tapster_store::Error::NoData(_)) => {
            eprintln!("{} holds no game data yet: importing {}", data_dir.display(), fixtures.display());
            import(fixtures, data_dir)?;
            Store::open(data_dir)
        }
        opened => opened,
    }
    .with_context(|| format!("opening the game data in {}", data_dir.display()))?;

    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
        let latest = store.latest().name.clone();
        eprintln!(
            "tapster serves {} game versions (latest {latest}) on http://{}",
            store.versions().len(),
            listener.local_addr().context("reading the bound address")?
        );
        tapster_http::serve(listener, tapster_http::App::new(store), shutdown_signal(), SHUTDOWN_GRACE)
            .await
            .context("serving")
    })
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
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
