//! Integration tests of the server: the real service on `127.0.0.1:0` over TCP with a plain HTTP/1.1
//! client, in-process (`access`) and as the `tapster` binary a user runs (`cli`), and the dashboard
//! in a real browser (`browser`).

mod access;
mod browser;
mod cli;
mod dashboard;
mod edge;
mod live;
mod tidy;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use tapster_test_support::mini;

/// Runs `future` to its end outside any runtime (the admin commands are async).
fn block<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
}

/// The accounts store of `data_dir`, with an account signed up in it by a mailed link as the
/// dashboard signs one up, now; returns the store, the account and that moment.
async fn signed_up(
    data_dir: &Path,
    email: &str,
) -> (tapster_accounts::Accounts, tapster_accounts::AccountId, tapster_domain::Timestamp) {
    use tapster_accounts::{Accounts, Location, Token};

    let accounts = Accounts::open(&Location::DataDir(data_dir.to_owned())).await.unwrap();
    let now = tapster_domain::Timestamp(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64,
    );
    let link = Token::from_random([7; 32]);
    let email = tapster_domain::Email::parse(email).unwrap();
    accounts.issue_email_token(&email, None, link.hash(), now).await.unwrap();
    let account = accounts.spend_email_token(link.hash(), None, now).await.unwrap().account;
    (accounts, account, now)
}

/// One answer over the wire.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or_default()
    }
}

/// A plain HTTP/1.1 GET over a new TCP connection, with the given headers.
fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Answer { status, headers, body: body.to_owned() }
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
}

impl Serving {
    fn first_key(&self) -> &str {
        self.key.as_deref().expect("serve printed no key for a data dir without keys")
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
    let mut child = Command::new(TAPSTER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .args(flags)
        .env_remove("TAPSTER_FIXTURES")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = stderr.lines();
    let (mut key, mut dashboard) = (None, None);
    let addr = loop {
        let line = lines.next().expect("tapster serve exited before listening").unwrap();
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
    std::thread::spawn(move || lines.for_each(drop));
    Serving { child, addr, key, dashboard }
}
