//! The `tapster serve` flags of the edge as a user meets them: HTTPS from a certificate and key file
//! answered by a real TLS client, the limits taken from flags and `TAPSTER_*` variables, and clear
//! errors for flags that do not go together or files that cannot be served.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use tapster_test_support::tls::SelfSigned;

const TAPSTER: &str = env!("CARGO_BIN_EXE_tapster");

/// A `tapster serve` process, killed when dropped.
struct Serving {
    child: Child,
    addr: SocketAddr,
    key: String,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `tapster serve` with `args` and `env` on an empty data dir and waits until it listens on
/// `scheme`.
fn serve(data_dir: &Path, args: &[&str], env: &[(&str, &str)], scheme: &str) -> Serving {
    let mut child = Command::new(TAPSTER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .args(args)
        .envs(env.iter().copied())
        .env_remove("TAPSTER_FIXTURES")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut key = None;
    let marker = format!(" on {scheme}://");
    let addr = loop {
        let line = lines.next().expect("tapster serve exited before listening").unwrap();
        if line.trim().starts_with("tap_") {
            key = Some(line.trim().to_owned());
        }
        if let Some((_, addr)) = line.split_once(&marker) {
            break addr.trim().parse().unwrap();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    Serving { child, addr, key: key.expect("serve printed no key for a data dir without keys") }
}

fn refused(args: &[&str], data_dir: &Path) -> String {
    let Output { status, stderr, .. } =
        Command::new(TAPSTER).arg("serve").args(args).arg("--data-dir").arg(data_dir).output().unwrap();
    assert!(!status.success(), "{args:?} was accepted");
    String::from_utf8(stderr).unwrap()
}

/// A self-signed certificate for `localhost` written into `dir`: the certificate, and the paths of
/// its file and its key's.
fn certificate(dir: &Path) -> (SelfSigned, String, String) {
    let certificate = SelfSigned::localhost();
    let (cert, key) = certificate.write_to(dir);
    (certificate, cert.display().to_string(), key.display().to_string())
}

/// `GET target` over HTTPS (HTTP/1.1) with `key` as the bearer token: status and body.
fn https_get(addr: SocketAddr, certificate: &SelfSigned, target: &str, key: &str) -> (u16, String) {
    let answer = certificate.get(addr, target, &[("Authorization", &format!("Bearer {key}"))]);
    (answer.status, answer.text().to_owned())
}

#[test]
fn serve_over_https_with_limits_from_flags_and_environment() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let (certificate, cert, key) = certificate(data_dir.path());
    let server = serve(
        data_dir.path(),
        &["--tls-cert", &cert, "--tls-key", &key],
        &[("TAPSTER_MAX_URI_BYTES", "64")],
        "https",
    );
    let (status, body) = https_get(server.addr, &certificate, "/v1/versions", &server.key);
    assert_eq!(status, 200, "{body}");
    let versions: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(versions["data"].as_array().is_some_and(|data| !data.is_empty()));
    let (status, body) =
        https_get(server.addr, &certificate, &format!("/v1/items?search={}", "x".repeat(80)), "");
    assert_eq!(status, 414, "{body}");
    assert!(body.contains("/errors/uri-too-long"), "{body}");
}

#[test]
fn flags_that_do_not_go_together_or_do_not_parse_are_refused() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--tls-cert", "cert.pem"], "--tls-key"),
        (&["--tls-key", "key.pem"], "--tls-cert"),
        (&["--trust-proxy", "10.0.0.0/8,10.0.0.0/33"], "--trust-proxy"),
        (&["--trust-proxy", "proxy.example"], "--trust-proxy"),
        (&["--trust-proxy", "10.0.0.0/8"], "--client-ip-header"),
        (&["--client-ip-header", "x-forwarded-for"], "--trust-proxy"),
        (&["--client-ip-header", "x-client-ip", "--trust-proxy", "10.0.0.1"], "--client-ip-header"),
        (&["--redis-url", "redis://a", "--redis-cluster", "redis://b"], "--redis-cluster"),
        (&["--redis-url", "redis://a", "--redis-prefix", "t{x}"], "--redis-prefix"),
        (&["--redis-url", "rediss://a", "--redis-cert", "c.pem"], "--redis-key"),
        (&["--redis-ca", "ca.pem"], "--redis-url"),
        (&["--request-budget", "0"], "--request-budget"),
        (&["--header-timeout", "soon"], "--header-timeout"),
        (&["--max-connections", "0"], "--max-connections"),
    ];
    for &(args, named) in cases {
        let stderr = refused(args, data_dir.path());
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    // Refused before anything was written.
    assert_eq!(std::fs::read_dir(data_dir.path()).unwrap().count(), 0);
}

#[test]
fn certificates_that_cannot_be_served_name_their_file() {
    let dir = tempfile::TempDir::new().unwrap();
    let (_, cert, key) = certificate(dir.path());
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a PEM file").unwrap();
    let garbage = garbage.display().to_string();
    let missing = dir.path().join("missing.pem").display().to_string();
    let data_dir = dir.path().join("data");
    let cases: [(&str, &str, &str); 4] = [
        (&missing, &key, &missing),
        (&cert, &missing, &missing),
        (&garbage, &key, &garbage),
        (&cert, &garbage, &garbage),
    ];
    for (cert, key, named) in cases {
        let stderr = refused(&["--tls-cert", cert, "--tls-key", key], &data_dir);
        assert!(stderr.contains(named), "{cert} {key}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
