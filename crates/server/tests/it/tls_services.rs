//! Replicas whose shared stores speak only TLS, as managed PostgreSQL and Redis do: servers of the
//! test's own with certificates from a CA of its own. The replicas and the admin commands reach
//! them with the same URLs, and a certificate they refuse stops them at start with a message that
//! names the host and why.

use std::process::Command;

use tapster_test_support::http::get;
use tapster_test_support::postgres::TestSchema;
use tapster_test_support::postgres_tls::TlsPostgres;
use tapster_test_support::redis::RedisServer;
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

#[test]
fn replicas_share_limits_in_a_redis_that_speaks_only_tls() {
    let ca = TestCa::new("Tapster test CA");
    let (Some(schema), Some(redis)) = (TestSchema::create(), RedisServer::start_tls(&ca, false)) else {
        return;
    };
    let dir = tempfile::TempDir::new().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.cert_pem()).unwrap();
    let ca_file = ca_file.display().to_string();
    let url = redis.url();
    // A busy test machine may take longer than the default 25 ms, and answer locally.
    let flags = [
        "--accounts-url",
        schema.url(),
        "--redis-url",
        &url,
        "--redis-ca",
        &ca_file,
        "--replicas",
        "2",
        "--redis-timeout-ms",
        "1000",
    ];
    let dirs: Vec<_> = (0..2).map(|_| tempfile::TempDir::new().unwrap()).collect();
    for dir in &dirs {
        assert!(tapster(&["import", crate::mini().to_str().unwrap()], dir.path()).status.success());
    }
    let replicas: Vec<Serving> = dirs.iter().map(|dir| serve_with(dir.path(), &flags)).collect();
    let created = tapster(
        &[
            "keys",
            "create",
            "--account",
            "tls@example.org",
            "--name",
            "tls",
            "--burst",
            "4",
            "--per-minute",
            "60",
            "--accounts-url",
            schema.url(),
        ],
        dirs[0].path(),
    );
    let key = String::from_utf8_lossy(&created.stdout).lines().last().unwrap().to_owned();
    until_everywhere(&replicas, &key, 200);
    std::thread::sleep(std::time::Duration::from_secs(2));
    // One burst of four, shared: a replica on its own would allow two.
    let passed =
        (0..8).filter(|_| get_with_key(replicas[0].addr, "/v1/versions", &key).status == 200).count();
    assert_eq!(passed, 4);
    for replica in &replicas {
        assert_eq!(get(replica.addr, "/healthz", &[]).json()["status"], "ok");
    }

    // A CA that did not sign its certificate: no replica starts, and says which server and why.
    let stranger = dir.path().join("stranger.pem");
    std::fs::write(&stranger, TestCa::new("Someone else").cert_pem()).unwrap();
    let stderr = refused_to_serve(&["--redis-url", &url, "--redis-ca", &stranger.display().to_string()]);
    assert!(stderr.contains(&url) && stderr.contains("not signed by --redis-ca"), "{stderr}");
    // A CA for a server that does not speak TLS is a mistake said at once.
    let plain = url.replace("rediss://", "redis://");
    let stderr = refused_to_serve(&["--redis-url", &plain, "--redis-ca", &ca_file]);
    assert!(stderr.contains("use a rediss:// URL"), "{stderr}");
    // `#insecure` checks nothing, and says so at start; the limits are shared all the same.
    let insecure = tempfile::TempDir::new().unwrap();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], insecure.path()).status.success());
    let flags = ["--redis-url", &format!("{url}/#insecure"), "--redis-timeout-ms", "1000"];
    let replica = serve_with(insecure.path(), &flags);
    assert!(
        replica.log().iter().any(|line| line.contains("WARN") && line.contains("#insecure")),
        "{:#?}",
        replica.log()
    );
    assert_eq!(get_with_key(replica.addr, "/v1/versions", replica.first_key()).status, 200);
    assert_eq!(get(replica.addr, "/healthz", &[]).json()["status"], "ok");
}
