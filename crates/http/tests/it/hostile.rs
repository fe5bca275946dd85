//! Hostile requests over a real socket: a few hundred random request lines and headers, written by
//! hand onto TCP so that nothing tidies them first. Every request in HTTP/1.1 syntax gets an answer
//! (the connection is never dropped without one) and no answer is a 5xx; bytes that are not HTTP at
//! all may be refused by closing, but never with a 5xx either.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use proptest::prelude::*;

use crate::{key, server};

/// Sends `request` as it is and reads the answer until the server closes (every request asks it
/// to); the answer's bytes, empty when the server closed without one. With `then_eof`, the sending
/// side is shut after the request, so that a server waiting for more bytes sees there are none.
fn exchange(request: &[u8], then_eof: bool) -> Vec<u8> {
    let mut stream = TcpStream::connect(server().addr).unwrap();
    // Generous: a loaded 2-core machine may be slow, but a healthy server always ends the exchange.
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The server may close as soon as it has seen enough of a request that is not HTTP; what it
    // wrote before closing is still read below.
    let closed_early = |e: &std::io::Error| {
        use std::io::ErrorKind::{BrokenPipe, ConnectionReset, NotConnected};
        matches!(e.kind(), BrokenPipe | ConnectionReset | NotConnected)
    };
    if let Err(e) = stream.write_all(request) {
        assert!(closed_early(&e), "sending {:?}: {e}", String::from_utf8_lossy(request));
    }
    if then_eof && let Err(e) = stream.shutdown(std::net::Shutdown::Write) {
        assert!(closed_early(&e), "closing the sending side: {e}");
    }
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) => {}
        // A reset after a refusal (the server closed with our bytes unread) still leaves what it wrote.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("reading the answer to {:?}: {e}", String::from_utf8_lossy(request)),
    }
    answer
}

/// The status code of an HTTP/1.1 answer.
fn status(answer: &[u8]) -> Option<u16> {
    let line = answer.split(|&b| b == b'\r').next()?;
    let line = std::str::from_utf8(line).ok()?;
    line.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("GET".to_owned()),
        2 => proptest::sample::select(vec!["HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"])
            .prop_map(str::to_owned),
        1 => "[A-Z]{1,10}",
    ]
}

/// A request target: a real route with odd parameters and segments, or any visible characters.
fn target() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        "[a-z0-9-]{1,12}",
        "-?[0-9]{1,25}",
        "(%[0-9A-Fa-f+]{0,2}|[A-Za-z'._~])+",
        Just("latest".to_owned()),
        Just("v0.6.5.0.3".to_owned()),
        Just("pale-ale".to_owned()),
    ];
    let route = proptest::sample::select(vec![
        "/v1/items",
        "/v1/items/{}",
        "/v1/items/{}/price",
        "/v1/items/{}/used-in",
        "/v1/recipes/{}/tree",
        "/v1/quests/{}",
        "/v1/versions/{}/changes",
        "/v1/search",
        "/v1/rankings/products",
        "/v1/{}",
        "/{}",
        "/healthz",
        "/openapi.json",
        "/changelog.rss",
    ]);
    let query = proptest::option::of(prop_oneof![
        "(limit|offset|lang|version|sort|fields|q|kind|ids|expand|x)=[!$-~]{0,20}(&[a-z]{1,6}=[!$-~]{0,10}){0,3}",
        "[!$-~]{0,40}",
    ]);
    prop_oneof![
        4 => (route, segment, query).prop_map(|(route, segment, query)| {
            let path = route.replace("{}", &segment);
            match query {
                Some(query) => format!("{path}?{query}"),
                None => path,
            }
        }),
        1 => "/[!-~]{0,60}",
    ]
}

/// Extra header lines: the ones the API reads, with hostile values, and any others.
fn headers() -> impl Strategy<Value = Vec<String>> {
    let valid = key().expose().to_owned();
    let authorization = prop_oneof![
        Just(format!("Authorization: Bearer {valid}")),
        Just(format!("authorization: bEaReR   {valid}  ")),
        "Authorization: [ -~]{0,50}",
        "Authorization: (?i:bearer) tap_[0-9A-Za-z]{0,40}",
    ];
    let other = prop_oneof![
        "If-None-Match: [ -~]{0,40}",
        "If-None-Match: (W/)?\"[0-9a-f]{0,32}\"(, \\*)?",
        "Accept-Encoding: [ -~]{0,30}",
        "Accept: [ -~]{0,30}",
        "X-[A-Za-z0-9-]{1,12}: [ -~]{0,40}",
        "Content-Length: 0",
        "Range: bytes=[0-9-]{1,10}",
    ];
    (proptest::option::of(authorization), proptest::collection::vec(other, 0..4)).prop_map(
        |(auth, mut rest)| {
            rest.extend(auth);
            rest
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn http_requests_always_get_an_answer_and_never_a_5xx(
        method in method(),
        target in target(),
        headers in headers(),
    ) {
        let mut request = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        for header in &headers {
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        let answer = exchange(request.as_bytes(), false);
        let code = status(&answer);
        prop_assert!(code.is_some(), "no answer to {:?}: {:?}", request, String::from_utf8_lossy(&answer));
        prop_assert!(code < Some(500), "{:?} answered {:?}", request, String::from_utf8_lossy(&answer));
    }

    #[test]
    fn bytes_that_are_not_http_never_get_a_5xx(
        line in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut request = line;
        request.extend_from_slice(b"\r\n\r\n");
        let answer = exchange(&request, true);
        if let Some(code) = status(&answer) {
            prop_assert!(code < 500, "{:?} answered {}", String::from_utf8_lossy(&request), code);
        }
    }
}
