//! Integration tests of the server: the real service on `127.0.0.1:0` over TCP with a plain HTTP/1.1
//! client, in-process (`access`) and as the `tapster` binary a user runs (`cli`), and the dashboard
//! in a real browser (`browser`), and as several replicas sharing one PostgreSQL (`replicas`).

mod access;
mod browser;
mod cli;
mod dashboard;
mod edge;
mod live;
mod proxies;
mod publish;
mod replicas;
mod replicas_cluster;
mod shared_cluster;
mod shared_limits;
mod tidy;
mod tls_services;
mod webhooks;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use tapster_test_support::http::{Answer, get};
use tapster_test_support::mini;

/// A service running in this process on `127.0.0.1:0`, on a runtime of its own; stops (flushing
/// usage) when dropped.
struct Running {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    runtime: tokio::runtime::Runtime,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl Running {
    /// Opens the service `builder` sets up, and serves it.
    fn open(builder: tapster_server::ServiceBuilder) -> Self {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let service = runtime.block_on(builder.open()).unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let task = runtime.spawn(service.run(listener, tapster_edge::ServeConfig::default(), async {
            let _ = stopped.await;
        }));
        Self { addr, stop: Some(stop), runtime, task: Some(task) }
    }

    fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let (Some(stop), Some(task)) = (self.stop.take(), self.task.take()) {
            let _ = stop.send(());
            self.runtime.block_on(task).unwrap().unwrap();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs `future` to its end outside any runtime (the admin commands are async).
fn block<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
}

/// The accounts store of `data_dir`, with an account signed up in it by a mailed link as the
/// dashboard signs one up, now; returns the store, the account and that moment.
async fn signed_up_now(
    data_dir: &Path,
    email: &str,
) -> (tapster_accounts::Accounts, tapster_accounts::AccountId, tapster_domain::Timestamp) {
    signed_up_now_in(&tapster_accounts::Location::DataDir(data_dir.to_owned()), email).await
}

/// [`signed_up_now`] in the accounts store at `location`.
async fn signed_up_now_in(
    location: &tapster_accounts::Location,
    email: &str,
) -> (tapster_accounts::Accounts, tapster_accounts::AccountId, tapster_domain::Timestamp) {
    let accounts = tapster_accounts::Accounts::open(location).await.unwrap();
    let now = tapster_domain::Timestamp(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64,
    );
    let account = tapster_test_support::accounts::signed_up(&accounts, email, 7, now).await;
    (accounts, account, now)
}

/// `get` with `Authorization: Bearer <key>`.
fn get_with_key(addr: SocketAddr, path: &str, key: &str) -> Answer {
    get(addr, path, &[("Authorization", &format!("Bearer {key}"))])
}

pub(crate) const TAPSTER: &str = env!("CARGO_BIN_EXE_tapster");

/// A `tapster serve` process on a port of its own, killed when dropped.
struct Serving {
    child: Child,
    addr: SocketAddr,
    /// The key `serve` created and printed for a data dir without keys.
    key: Option<String>,
    /// The dashboard's address, printed beside that key.
    dashboard: Option<String>,
    /// What the server wrote to stderr: its log (and the first key, when it printed one).
    log: Arc<Mutex<Vec<String>>>,
}

impl Serving {
    fn first_key(&self) -> &str {
        self.key.as_deref().expect("serve printed no key for a data dir without keys")
    }

    /// The lines of its log so far.
    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(data_dir: &Path) -> Serving {
    serve_with(data_dir, &[])
}

/// `tapster serve` on `data_dir` with further flags.
fn serve_with(data_dir: &Path, flags: &[&str]) -> Serving {
    let mut command = Command::new(TAPSTER);
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .args(flags)
        .env_remove("TAPSTER_FIXTURES")
        // From a directory that has nothing to do with the sources: the binary runs from anywhere.
        .current_dir(std::env::temp_dir());
    serve_command(command)
}

/// Starts `command`, a `tapster serve` on `127.0.0.1:0`, and waits until it listens.
fn serve_command(mut command: Command) -> Serving {
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = stderr.lines();
    let (mut key, mut dashboard, mut started) = (None, None, Vec::new());
    let addr = loop {
        let line = lines.next().expect("tapster serve exited before listening").unwrap();
        started.push(line.clone());
        if line.trim().starts_with("tap_") {
            key = Some(line.trim().to_owned());
        }
        if let Some(rest) = line.strip_prefix("To make keys of your own, open ") {
            dashboard = rest.split_whitespace().next().map(str::to_owned);
        }
        if let Some((_, addr)) = line.split_once(" on http://") {
            break addr.trim().parse().unwrap();
        }
    };
    // Keep draining stderr so that the server never blocks on a full pipe.
    let log = Arc::new(Mutex::new(started));
    let kept = Arc::clone(&log);
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(|line| kept.lock().unwrap().push(line)));
    Serving { child, addr, key, dashboard, log }
}
