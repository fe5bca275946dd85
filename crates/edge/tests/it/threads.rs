//! Serving on threads of their own (`serve_on_threads`): a thread that is busy leaves new
//! connections to the others, the connection limit counts every thread's connections, and shutdown
//! waits for the requests in flight on each.

use std::io::{BufReader, Write};
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tapster_edge::ServeConfig;
use tapster_test_support::http::{Answer, PATIENCE, connect, exchange, get};
use tokio::sync::oneshot;

use super::Echo;

/// A server on two threads under `config`, until the returned sender is used or dropped: a thread
/// of this test's (`serve-0`) and one the server starts (`serve-1`). The handle ends with what
/// `serve_on_threads` returned.
fn serve_on_two(config: ServeConfig) -> (SocketAddr, Arc<Echo>, oneshot::Sender<()>, Served) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let echo = Arc::new(Echo::default());
    let service = Arc::clone(&echo);
    let served = std::thread::Builder::new().name("serve-0".to_owned()).spawn(move || {
        let two = NonZeroUsize::new(2).unwrap();
        let shutdown = async move {
            let _ = stopped.await;
        };
        runtime.block_on(tapster_edge::serve_on_threads(listener, two, service, config, shutdown))
    });
    (addr, echo, stop, served.unwrap())
}

type Served = std::thread::JoinHandle<std::io::Result<()>>;

/// Waits until `count` requests to `/thread` or `/slow` have reached the service.
fn until_reached(echo: &Echo, count: usize) {
    let deadline = Instant::now() + PATIENCE;
    while echo.reached.load(Ordering::SeqCst) < count {
        assert!(
            Instant::now() < deadline,
            "only {} requests reached the service",
            echo.reached.load(Ordering::SeqCst)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends `GET target` on a connection it keeps open, without reading the answer yet.
fn send(addr: SocketAddr, target: &str) -> BufReader<std::net::TcpStream> {
    let mut stream = connect(addr);
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    BufReader::new(stream)
}

fn answer(connection: &mut BufReader<std::net::TcpStream>) -> Answer {
    Answer::read(connection).expect("an answer")
}

#[test]
fn while_one_thread_is_busy_another_accepts_and_serves() {
    let (addr, echo, _stop, _served) = serve_on_two(ServeConfig::default());
    // Blocks the thread that accepted it for three seconds, from the moment it reached the service.
    let mut busy = send(addr, "/thread?3000");
    until_reached(&echo, 1);
    let other = get(addr, "/thread", &[]);
    // Had it waited for the busy thread, the blocked request would have been answered first.
    busy.get_ref().set_nonblocking(true).unwrap();
    let unanswered = busy.get_ref().peek(&mut [0]).is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock);
    busy.get_ref().set_nonblocking(false).unwrap();
    assert!(unanswered, "the busy thread answered before the other one did");
    let blocked = answer(&mut busy);
    assert!(other.text().starts_with("serve-") && blocked.text().starts_with("serve-"));
    assert_ne!(other.text(), blocked.text(), "both connections were served by one thread");
}

#[test]
fn the_connection_limit_counts_the_connections_of_every_thread() {
    let (addr, echo, _stop, _served) = serve_on_two(ServeConfig { max_connections: 1, ..Default::default() });
    // The one connection allowed blocks its thread, so the next is accepted by the other thread,
    // which must count it as over the limit all the same.
    let mut first = send(addr, "/thread?1000");
    until_reached(&echo, 1);
    let refused = exchange(addr, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", 1).remove(0);
    assert_eq!(refused.text(), "TooManyConnections { retry_after: 1 }");
    assert_eq!(answer(&mut first).status, 200);
}

#[test]
fn shutdown_lets_every_thread_finish_its_requests_in_flight_and_stops_accepting() {
    let (addr, echo, stop, served) = serve_on_two(ServeConfig::default());
    let mut in_flight: Vec<_> = (0..4).map(|_| send(addr, "/slow")).collect();
    until_reached(&echo, 4);
    stop.send(()).unwrap();
    for connection in &mut in_flight {
        let answer = answer(connection);
        assert_eq!((answer.status, answer.text()), (200, "/slow from 127.0.0.1"));
    }
    served.join().unwrap().unwrap();
    assert!(std::net::TcpStream::connect(addr).is_err(), "still accepting after shutdown");
}
