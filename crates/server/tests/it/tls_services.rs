//! Replicas whose shared stores speak only TLS, as managed PostgreSQL and Redis do: servers of the
//! test's own with certificates from a CA of its own. The replicas and the admin commands reach
//! them with the same URLs, and a certificate they refuse stops them at start with a message that
//! names the host and why.

use std::process::Command;

use tapster_test_support::postgres_tls::TlsPostgres;
use tapster_test_support::tls::TestCa;

use crate::cli::tapster;
use crate::replicas::until_everywhere;
use crate::{Serving, TAPSTER, get_with_key, serve_with};

/// `tapster serve` with `args` on an empty data dir, which must refuse to start: its stderr.
fn refused_to_serve(args: &[&str]) -> String {
    let data_dir = tempfile::TempDir::new().unwrap();
    let output = Command::new(TAPSTER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir.path())
        .args(args)
        .output()
        .unwrap();
    assert!(!output.status.success(), "{args:?} started");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn replicas_share_accounts_in_a_postgresql_that_speaks_only_tls() {
    let Some(server) = TlsPostgres::start() else { return };
    let root = server.root_cert().display().to_string();
    let url = server.url("postgres", "localhost", &format!("sslmode=verify-full&sslrootcert={root}"));
    let dirs: Vec<_> = (0..3).map(|_| tempfile::TempDir::new().unwrap()).collect();
    let replicas: Vec<Serving> =
        dirs.iter().map(|dir| serve_with(dir.path(), &["--accounts-url", &url])).collect();
    let first = replicas[0].first_key().to_owned();
    for replica in &replicas {
        assert_eq!(get_with_key(replica.addr, "/v1/versions", &first).status, 200);
    }
    // The admin commands take the same URL: a key made and revoked from another machine's data dir.
    let elsewhere = tempfile::TempDir::new().unwrap();
    let admin = |args: &[&str]| tapster(&[args, &["--accounts-url", &url]].concat(), elsewhere.path());
    let created = admin(&["keys", "create", "--account", "bot@example.org", "--name", "bot"]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    until_everywhere(&replicas, &key, 200);
    assert!(admin(&["keys", "revoke", &key[..12]]).status.success());
    until_everywhere(&replicas, &key, 401);

    // A certificate the URL does not trust, or a host it is not made out to: no replica starts, and
    // no admin command runs; each says which host and why.
    let stranger = server.file("stranger.pem", &TestCa::new("Someone else").cert_pem()).display().to_string();
    let port = server.addr().port();
    let cases = [
        (
            server.url("postgres", "localhost", &format!("sslmode=verify-full&sslrootcert={stranger}")),
            format!("localhost:{port}"),
            "not signed by a CA of sslrootcert",
        ),
        (
            server.url("postgres", "127.0.0.1", &format!("sslmode=verify-full&sslrootcert={root}")),
            format!("127.0.0.1:{port}"),
            "not made out to the host",
        ),
        (
            server.url("postgres", "127.0.0.1", "sslmode=disable"),
            format!("127.0.0.1:{port}"),
            "no encryption",
        ),
    ];
    for (url, host, why) in cases {
        let stderr = refused_to_serve(&["--accounts-url", &url]);
        assert!(stderr.contains(&host) && stderr.contains(why), "{url}: {stderr}");
        let listed = tapster(&["keys", "list", "--accounts-url", &url], elsewhere.path());
        let stderr = String::from_utf8_lossy(&listed.stderr);
        assert!(
            !listed.status.success() && stderr.contains(&host) && stderr.contains(why),
            "{url}: {stderr}"
        );
    }
}
