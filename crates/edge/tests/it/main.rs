//! The edge with a service of its own, over real sockets: what passes the limits reaches the
//! service with its calling address, and every refusal is handed to the service to render, so the
//! edge itself writes no answer. The API's answers at the edge are tested in `tapster-http`.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use tapster_domain::AddressBlock;
use tapster_edge::{
    Answer, Body, ClientIpHeader, Refusal, ServeConfig, Service, StrictTransport, TrustedProxies,
};
use tapster_test_support::http::{exchange, get};

mod threads;
mod timeouts;

/// A service that answers with the calling address and renders each refusal as its debug text,
/// with a status of its own choosing (`299`), keeping the refusals it was handed. Two paths are
/// for the tests of threads, which count the requests that reached them: `/thread` answers with
/// the name of the thread that served it, after blocking that thread for the milliseconds its query
/// says; `/slow` answers after the milliseconds its query says (300 without one), without blocking;
/// `/big` answers with as many MiB of zeros as its query says.
#[derive(Debug, Default)]
struct Echo {
    refusals: Mutex<Vec<Refusal>>,
    reached: AtomicUsize,
}

impl Service for Echo {
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer {
        let path = request.uri().path();
        if matches!(path, "/thread" | "/slow") {
            self.reached.fetch_add(1, Ordering::SeqCst);
        }
        if path == "/thread" {
            let millis = request.uri().query().and_then(|q| q.parse().ok()).unwrap_or(0);
            std::thread::sleep(Duration::from_millis(millis));
            let name = std::thread::current().name().unwrap_or_default().to_owned();
            return Answer::Ready(Response::new(Body::from(name)));
        }
        if path == "/big" {
            let mib: usize = request.uri().query().and_then(|q| q.parse().ok()).unwrap_or(1);
            return Answer::Ready(Response::new(Body::from(vec![0u8; mib << 20])));
        }
        let response = Response::new(Body::from(format!("{path} from {caller}")));
        match path {
            "/later" => Answer::Later(Box::pin(async move { response })),
            "/slow" => {
                let millis = request.uri().query().and_then(|q| q.parse().ok()).unwrap_or(300);
                Answer::Later(Box::pin(async move {
                    tokio::time::sleep(Duration::from_millis(millis)).await;
                    response
                }))
            }
            _ => Answer::Ready(response),
        }
    }

    fn refused(&self, _: &Request<Incoming>, _: IpAddr, refusal: Refusal) -> Response<Body> {
        let mut response = Response::new(Body::from(format!("{refusal:?}")));
        *response.status_mut() = StatusCode::from_u16(299).unwrap();
        self.refusals.lock().unwrap().push(refusal);
        response
    }
}

/// Serves a fresh [`Echo`] under `config` on a port of its own, for the rest of the test process.
fn serve(config: ServeConfig) -> (SocketAddr, Arc<Echo>) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let echo = Arc::new(Echo::default());
    runtime.spawn(tapster_edge::serve(listener, Arc::clone(&echo), config, std::future::pending()));
    // The runtime serves until the test process ends.
    std::mem::forget(runtime);
    (addr, echo)
}

#[test]
fn a_request_within_the_limits_reaches_the_service_with_its_calling_address() {
    let (addr, echo) = serve(ServeConfig::default());
    let answer = get(addr, "/hello?x=1", &[("x-forwarded-for", "198.51.100.7")]);
    assert_eq!((answer.status, answer.text()), (200, "/hello from 127.0.0.1"));
    let later = get(addr, "/later", &[]);
    assert_eq!((later.status, later.text()), (200, "/later from 127.0.0.1"));
    assert!(echo.refusals.lock().unwrap().is_empty());
}

#[test]
fn behind_a_trusted_proxy_the_caller_is_the_address_in_its_header() {
    let proxies = vec![AddressBlock::parse("127.0.0.0/8").unwrap()];
    let trusted = TrustedProxies { header: ClientIpHeader::XRealIp, proxies };
    let (addr, echo) = serve(ServeConfig { trusted_proxies: Some(trusted), ..Default::default() });
    let answer = get(addr, "/hello", &[("x-forwarded-for", "192.0.2.1"), ("x-real-ip", "198.51.100.7")]);
    assert_eq!(answer.text(), "/hello from 198.51.100.7");
    let later = get(addr, "/later", &[("x-real-ip", "198.51.100.8")]);
    assert_eq!(later.text(), "/later from 198.51.100.8");
    assert!(echo.refusals.lock().unwrap().is_empty());
    // Without the header the proxy writes, the caller is unknown: refused, not taken for the proxy.
    let answer = get(addr, "/hello", &[("x-forwarded-for", "198.51.100.7")]);
    assert_eq!(answer.status, 299);
    let refusal = Refusal::UnknownCaller {
        header: "x-real-ip",
        proxy: "127.0.0.1".parse().unwrap(),
        reason: "the proxy sent no x-real-ip header".into(),
    };
    assert_eq!(*echo.refusals.lock().unwrap(), [refusal]);
}

#[test]
fn strict_transport_security_goes_with_every_answer_when_asked_for() {
    let strict_transport = Some(StrictTransport { include_subdomains: false });
    let (addr, _) = serve(ServeConfig { strict_transport, max_uri_bytes: 64, ..Default::default() });
    for target in ["/hello", "/later", &format!("/{}", "a".repeat(64))] {
        let answer = get(addr, target, &[]);
        assert_eq!(answer.header("strict-transport-security"), "max-age=31536000", "{target}");
    }
    let strict_transport = Some(StrictTransport { include_subdomains: true });
    let (addr, _) = serve(ServeConfig { strict_transport, ..Default::default() });
    let answer = get(addr, "/hello", &[]);
    assert_eq!(answer.header("strict-transport-security"), "max-age=31536000; includeSubDomains");
    let (addr, _) = serve(ServeConfig::default());
    assert_eq!(get(addr, "/hello", &[]).header("strict-transport-security"), "");
}

#[test]
fn each_limit_hands_its_refusal_to_the_service() {
    let config = ServeConfig { max_uri_bytes: 64, max_header_bytes: 256, ..Default::default() };
    let (addr, echo) = serve(config);
    let long_target = format!("/{}", "a".repeat(64));
    let answer = get(addr, &long_target, &[]);
    assert_eq!((answer.status, answer.text()), (299, "UriTooLong { length: 65, limit: 64 }"));
    let big = "b".repeat(300);
    let answer = get(addr, "/hello", &[("x-big", &big)]);
    assert_eq!(answer.status, 299);
    assert!(answer.text().starts_with("HeadersTooLarge { size: "), "{}", answer.text());
    assert_eq!(echo.refusals.lock().unwrap().len(), 2);
}

#[test]
fn a_request_past_its_time_budget_is_refused_without_reaching_the_service() {
    let (addr, echo) = serve(ServeConfig { request_budget: Duration::ZERO, ..Default::default() });
    // The budget runs from the moment the bytes arrived, so no request can be handled within zero.
    let answer = get(addr, "/hello", &[]);
    assert_eq!((answer.status, answer.text()), (299, "OverBudget { retry_after: 1 }"));
    assert_eq!(*echo.refusals.lock().unwrap(), [Refusal::OverBudget { retry_after: 1 }]);
}

#[test]
fn a_connection_over_the_limit_is_refused_and_closed() {
    let (addr, echo) = serve(ServeConfig { max_connections: 0, ..Default::default() });
    let raw = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
    let answers = exchange(addr, raw, 1);
    assert_eq!(answers[0].status, 299);
    assert_eq!(answers[0].text(), "TooManyConnections { retry_after: 1 }");
    assert_eq!(answers[0].header("connection"), "close");
    assert_eq!(*echo.refusals.lock().unwrap(), [Refusal::TooManyConnections { retry_after: 1 }]);
}
