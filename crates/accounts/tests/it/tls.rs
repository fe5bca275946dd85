//! The accounts store over TLS, against a PostgreSQL of the test's own that speaks only TLS: each
//! `sslmode` as libpq means it, and every refusal a start-up error that names the host and why.

use tapster_accounts::{Accounts, Error, Location};
use tapster_test_support::postgres_tls::{CERT_USER, TlsPostgres};
use tapster_test_support::tls::TestCa;

async fn open(url: &str) -> Result<Accounts, Error> {
    Accounts::open(&Location::new(Some(url), std::path::Path::new("unused"))?).await
}

/// The message of a refusal to open, which must name the host and say why.
async fn refused(url: &str) -> String {
    match open(url).await {
        Ok(_) => panic!("{url} opened"),
        Err(error) => error.to_string(),
    }
}

#[tokio::test]
async fn each_sslmode_connects_or_refuses_as_libpq_does() {
    let Some(server) = TlsPostgres::start() else { return };
    let root = server.root_cert().display().to_string();
    let stranger = server.file("stranger.pem", &TestCa::new("Someone else").cert_pem()).display().to_string();

    // Encrypted, and the certificate checked as far as each mode goes.
    for (host, query) in [
        ("localhost", format!("sslmode=verify-full&sslrootcert={root}")),
        ("127.0.0.1", format!("sslmode=verify-ca&sslrootcert={root}")),
        ("127.0.0.1", format!("sslmode=require&sslrootcert={root}")),
        ("127.0.0.1", "sslmode=require".to_owned()),
        ("127.0.0.1", "sslmode=prefer".to_owned()),
        // libpq's default is `prefer`.
        ("127.0.0.1", String::new()),
    ] {
        let url = server.url("postgres", host, &query);
        let accounts = open(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(accounts.list_keys(None).await.unwrap().is_empty(), "{url}");
    }

    // A certificate from another authority, or made out to another host: refused, with why.
    let cases = [
        (
            "localhost",
            format!("sslmode=verify-full&sslrootcert={stranger}"),
            "not signed by a CA of sslrootcert",
        ),
        (
            "127.0.0.1",
            format!("sslmode=verify-ca&sslrootcert={stranger}"),
            "not signed by a CA of sslrootcert",
        ),
        ("127.0.0.1", format!("sslmode=require&sslrootcert={stranger}"), "not signed by a CA of sslrootcert"),
        ("127.0.0.1", format!("sslmode=verify-full&sslrootcert={root}"), "not made out to the host"),
    ];
    for (host, query, why) in cases {
        let url = server.url("postgres", host, &query);
        let message = refused(&url).await;
        assert!(message.contains("TLS handshake") && message.contains(why), "{url}: {message}");
        assert!(message.contains(&format!("{host}:{}", server.addr().port())), "the host: {message}");
    }
    // In plain text the server refuses (it has only `hostssl` lines); `prefer` is the one mode that
    // falls back to plain text after a failed handshake, as libpq does, and so it is refused too.
    for query in ["sslmode=disable".to_owned(), format!("sslmode=prefer&sslrootcert={stranger}")] {
        let message = refused(&server.url("postgres", "127.0.0.1", &query)).await;
        assert!(message.contains("no encryption"), "{query}: {message}");
    }
}

#[tokio::test]
async fn a_client_certificate_is_shown_when_the_server_asks_for_one() {
    let Some(server) = TlsPostgres::start() else { return };
    let root = server.root_cert().display().to_string();
    let (cert, key) = server.client_cert();
    let full = format!("sslmode=verify-full&sslrootcert={root}");
    let with_cert = format!("{full}&sslcert={}&sslkey={}", cert.display(), key.display());
    open(&server.url(CERT_USER, "localhost", &with_cert)).await.unwrap();
    let message = refused(&server.url(CERT_USER, "localhost", &full)).await;
    assert!(message.contains("certificate"), "{message}");
}
