//! The crate's one integration-test binary: deliveries to real receivers on this machine, over TCP
//! and TLS, as a person's endpoint would answer them (well, with an error, a redirect, never, or
//! without end), and the refusals of addresses that are not public.

mod receiver;

use std::time::Duration;

use tapster_webhooks::{
    Client, Config, Endpoint, Error, ID_HEADER, MAX_ANSWER_BYTES, Outcome, SIGNATURE_HEADER, Secret,
    SignedHeaders, TIMESTAMP_HEADER, USER_AGENT, sign, verify,
};

use crate::receiver::{Receiver, Reply};

/// A config for receivers on this machine, with a timeout short enough for the tests that wait
/// it out.
fn local(timeout: Duration) -> Config {
    Config { allow_private: true, timeout, ..Config::default() }
}

fn endpoint(url: &str) -> Endpoint {
    Endpoint::parse(url, &local(Duration::ZERO)).unwrap()
}

async fn deliver(config: Config, url: &str, body: &str) -> Outcome {
    Client::new(config).unwrap().deliver(&endpoint(url), &[], body.as_bytes()).await
}

#[tokio::test]
async fn a_signed_delivery_arrives_whole_and_verifies() {
    let receiver = Receiver::start(Reply::status("200 OK", &[], "thanks")).await;
    let secret = Secret::generate([42; 32]);
    let (id, timestamp, body) = ("msg_2Yx", 1_700_000_000, r#"{"type":"key.created","data":{"n":1}}"#);
    let signature = sign(&[&secret], id, timestamp, body.as_bytes());
    let sent = timestamp.to_string();
    let headers =
        [(ID_HEADER, id), (TIMESTAMP_HEADER, sent.as_str()), (SIGNATURE_HEADER, signature.as_str())];
    let client = Client::new(local(Duration::from_secs(10))).unwrap();

    let url = receiver.url("http", "/hooks/in?team=7");
    let outcome = client.deliver(&endpoint(&url), &headers, body.as_bytes()).await;

    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!((outcome.status(), outcome.answer(), outcome.failure()), (Some(200), "thanks", None));
    assert!(outcome.duration() < Duration::from_secs(5), "{outcome:?}");
    let received = receiver.requests();
    let [request] = received.as_slice() else { panic!("one request: {received:?}") };
    assert_eq!((request.method.as_str(), request.target.as_str()), ("POST", "/hooks/in?team=7"));
    assert_eq!(request.body, body.as_bytes());
    let expected_host = receiver.addr.to_string();
    for (name, value) in [
        ("host", expected_host.as_str()),
        ("user-agent", USER_AGENT),
        ("content-type", "application/json"),
        ("content-length", &body.len().to_string()),
        (ID_HEADER, id),
        (TIMESTAMP_HEADER, &sent),
        (SIGNATURE_HEADER, &signature),
    ] {
        assert_eq!(request.header(name), Some(value), "{name}");
    }
    let signed = SignedHeaders {
        id: request.header(ID_HEADER).unwrap(),
        timestamp: request.header(TIMESTAMP_HEADER).unwrap(),
        signature: request.header(SIGNATURE_HEADER).unwrap(),
    };
    verify(&secret, &signed, &request.body, timestamp + 30, Duration::from_secs(300)).unwrap();
    assert_eq!(
        verify(&Secret::generate([43; 32]), &signed, &request.body, timestamp, Duration::from_secs(300)),
        Err(Error::SignatureMismatch)
    );
}

#[tokio::test]
async fn an_error_answer_is_recorded() {
    let receiver = Receiver::start(Reply::status("500 Internal Server Error", &[], "database down")).await;

    let outcome = deliver(local(Duration::from_secs(10)), &receiver.url("http", "/"), "{}").await;

    assert!(!outcome.succeeded());
    assert_eq!((outcome.status(), outcome.answer()), (Some(500), "database down"));
    assert_eq!(outcome.failure(), Some(&Error::Status { status: 500, location: None }));
    assert_eq!(outcome.failure().unwrap().to_string(), "answered 500 Internal Server Error");
    assert_eq!(receiver.requests().len(), 1);
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let elsewhere = Receiver::start(Reply::status("200 OK", &[], "")).await;
    let location = elsewhere.url("http", "/stolen");
    let receiver = Receiver::start(Reply::status("302 Found", &[("location", &location)], "")).await;

    let outcome = deliver(local(Duration::from_secs(10)), &receiver.url("http", "/"), "{}").await;

    assert!(!outcome.succeeded());
    assert_eq!((outcome.status(), outcome.location()), (Some(302), Some(location.as_str())));
    assert_eq!(
        outcome.failure().unwrap().to_string(),
        format!("answered 302 Found, a redirect to {location} that is not followed")
    );
    assert_eq!(receiver.requests().len(), 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(elsewhere.connections(), 0, "the redirect's target was reached");
}

#[tokio::test]
async fn a_receiver_that_never_answers_times_out() {
    let receiver = Receiver::start(Reply::Silent).await;
    let timeout = Duration::from_millis(300);

    let outcome = deliver(local(timeout), &receiver.url("http", "/"), "{}").await;

    assert_eq!((outcome.status(), outcome.failure()), (None, Some(&Error::TimedOut(timeout))));
    assert_eq!(outcome.failure().unwrap().to_string(), "timed out after 0.3 s");
    assert!(outcome.duration() >= timeout && outcome.duration() < Duration::from_secs(5), "{outcome:?}");
    assert_eq!(receiver.requests().len(), 1, "the request was sent whole before the wait");
}

#[tokio::test]
async fn a_big_answer_is_cut_without_waiting_for_the_rest() {
    let receiver = Receiver::start(Reply::Flood).await;

    let outcome = deliver(local(Duration::from_secs(10)), &receiver.url("http", "/"), "{}").await;

    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!(outcome.answer(), "x".repeat(MAX_ANSWER_BYTES));
    assert!(outcome.duration() < Duration::from_secs(2), "{outcome:?}");
}

/// A `2xx` is the receiver's word that it has the webhook: a body that stops coming after it is
/// kept as far as it came and does not undo that.
#[tokio::test]
async fn a_success_whose_body_stalls_is_still_a_success() {
    let head = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial".to_vec();
    let receiver = Receiver::start(Reply::Stall(head)).await;
    let timeout = Duration::from_millis(300);

    let outcome = deliver(local(timeout), &receiver.url("http", "/"), "{}").await;

    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!((outcome.status(), outcome.answer()), (Some(200), "partial"));
    assert!(outcome.duration() >= timeout, "{outcome:?}");
}

#[tokio::test]
async fn addresses_that_are_not_public_are_refused_before_connecting() {
    let receiver = Receiver::start(Reply::status("200 OK", &[], "")).await;
    let port = receiver.addr.port();
    let client = Client::new(Config::default()).unwrap();
    let cases = [
        (format!("https://127.0.0.1:{port}/"), "refused: 127.0.0.1 is a loopback address"),
        ("https://10.0.0.1/".to_owned(), "refused: 10.0.0.1 is a private address"),
        (format!("https://[::1]:{port}/"), "refused: ::1 is a loopback address"),
        (format!("https://[::ffff:127.0.0.1]:{port}/"), "refused: ::ffff:127.0.0.1 is a loopback address"),
    ];
    for (url, words) in cases {
        let outcome = client.deliver(&endpoint(&url), &[], b"{}").await;
        assert!(matches!(outcome.failure(), Some(Error::NotPublic { .. })), "{url}: {outcome:?}");
        assert_eq!(outcome.failure().unwrap().to_string(), words, "{url}");
        assert_eq!(outcome.status(), None);
    }
    // A name is judged by what it resolves to, at delivery.
    let outcome = client.deliver(&endpoint(&format!("https://localhost:{port}/")), &[], b"{}").await;
    match outcome.failure() {
        Some(Error::NotPublic { address, block }) => {
            assert!(address.is_loopback(), "{address}");
            assert_eq!(*block, "a loopback address");
        }
        other => panic!("localhost was not refused: {other:?}"),
    }
    // Plain http is for private networks only, whatever config the endpoint was read under.
    let outcome = client.deliver(&endpoint(&receiver.url("http", "/")), &[], b"{}").await;
    assert_eq!(
        outcome.failure().unwrap().to_string(),
        "the endpoint must start with https:// (plain http is only for private networks)"
    );
    assert_eq!(receiver.connections(), 0);
}

#[tokio::test]
async fn a_closed_port_is_a_refused_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);

    let outcome = deliver(local(Duration::from_secs(10)), &format!("http://{addr}/"), "{}").await;

    assert_eq!(
        outcome.failure().unwrap().to_string(),
        format!("could not connect to {addr}: connection refused")
    );
}

#[tokio::test]
async fn an_answer_that_is_not_http_is_a_failure() {
    let receiver = Receiver::start(Reply::Bytes(b"SSH-2.0-OpenSSH_9.6\r\n".to_vec())).await;

    let outcome = deliver(local(Duration::from_secs(10)), &receiver.url("http", "/"), "{}").await;

    assert_eq!(outcome.failure(), Some(&Error::Http("the answer is not HTTP/1.1".to_owned())));
}

/// `.invalid` never resolves; a machine whose resolver cannot be reached at all may spend the
/// timeout finding that out, which is a failure too.
#[tokio::test]
async fn a_name_that_does_not_resolve_is_a_failure() {
    let outcome = deliver(local(Duration::from_secs(3)), "https://nothing.invalid/", "{}").await;

    match outcome.failure() {
        Some(Error::Unresolved { host, .. }) => assert_eq!(host, "nothing.invalid"),
        Some(Error::TimedOut(_)) => {}
        other => panic!("{other:?}"),
    }
}

mod tls {
    //! HTTPS to a receiver with a certificate made for the test: trusted through the config's
    //! extra roots, refused when it is not trusted or not for the host.

    use super::*;

    fn certificate() -> rcgen::CertifiedKey<rcgen::KeyPair> {
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap()
    }

    fn trusting(certificate: &rcgen::CertifiedKey<rcgen::KeyPair>) -> Config {
        Config { extra_roots: vec![certificate.cert.der().clone()], ..local(Duration::from_secs(10)) }
    }

    #[tokio::test]
    async fn a_certificate_trusted_through_the_config_carries_the_delivery() {
        let certificate = certificate();
        let receiver = Receiver::start_tls(Reply::status("204 No Content", &[], ""), &certificate).await;
        let url = format!("https://localhost:{}/tls", receiver.addr.port());

        let outcome = deliver(trusting(&certificate), &url, r#"{"over":"tls"}"#).await;

        assert!(outcome.succeeded(), "{outcome:?}");
        assert_eq!(outcome.status(), Some(204));
        let received = receiver.requests();
        let [request] = received.as_slice() else { panic!("one request: {received:?}") };
        assert_eq!(request.body, br#"{"over":"tls"}"#);
        assert_eq!(request.sni.as_deref(), Some("localhost"));
        assert_eq!(request.header("host"), Some(format!("localhost:{}", receiver.addr.port()).as_str()));
    }

    #[tokio::test]
    async fn a_certificate_not_trusted_is_refused() {
        let certificate = certificate();
        let receiver = Receiver::start_tls(Reply::status("200 OK", &[], ""), &certificate).await;
        let url = format!("https://localhost:{}/", receiver.addr.port());

        let outcome = deliver(local(Duration::from_secs(10)), &url, "{}").await;

        assert_eq!(outcome.failure().unwrap().to_string(), "TLS: certificate not trusted (unknown issuer)");
        assert!(receiver.requests().is_empty());
    }

    #[tokio::test]
    async fn a_certificate_for_another_host_is_refused() {
        let certificate = certificate();
        let receiver = Receiver::start_tls(Reply::status("200 OK", &[], ""), &certificate).await;

        let outcome = deliver(trusting(&certificate), &receiver.url("https", "/"), "{}").await;

        assert_eq!(outcome.failure().unwrap().to_string(), "TLS: certificate not valid for host");
        assert!(receiver.requests().is_empty());
    }

    #[test]
    fn a_root_that_is_not_a_certificate_is_refused() {
        let config = Config { extra_roots: vec![b"not DER".to_vec().into()], ..Config::default() };
        assert!(matches!(Client::new(config), Err(Error::Root(_))));
    }
}
