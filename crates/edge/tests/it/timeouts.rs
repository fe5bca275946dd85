//! The connection's own timeouts, judged on a tick rather than by a timer per request: the header
//! read timeout cuts off a client that trickles a request head in or keeps a connection waiting for
//! its next one, and never an answer that is slow to come; and a plain connection tells HTTP/2 by
//! its preface.

use std::io::{BufReader, Write};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tapster_edge::ServeConfig;
use tapster_test_support::http::{Answer, closed_after, connect};

use super::serve;

/// A header read timeout of a second, and an idle timeout long enough never to be the one that acts.
fn header_timeout_of_a_second() -> ServeConfig {
    ServeConfig {
        header_read_timeout: Duration::from_secs(1),
        keep_alive_idle: Duration::from_secs(120),
        ..Default::default()
    }
}

#[test]
fn a_head_trickled_in_byte_by_byte_is_cut_off_at_the_header_timeout() {
    let (addr, echo) = serve(header_timeout_of_a_second());
    let mut stream = connect(addr);
    let start = Instant::now();
    // Each byte moves the connection, so the idle timeout never acts: the header timeout must.
    let head = b"GET /hello HTTP/1.1\r\nHost: tapster\r\nX-Slow: ";
    let mut sent = 0;
    for byte in head.iter().cycle().take(60) {
        if stream.write_all(&[*byte]).is_err() {
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    let waited = start.elapsed();
    assert!(sent < 40, "{sent} bytes sent over {waited:?}: the trickle was not cut off");
    assert!(waited >= Duration::from_millis(900), "cut off before the header timeout: {waited:?}");
    assert_eq!(echo.reached.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_kept_alive_connection_waiting_for_its_next_request_closes_at_the_header_timeout() {
    let (addr, _) = serve(header_timeout_of_a_second());
    let mut stream = connect(addr);
    stream.write_all(b"GET /hello HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    assert_eq!(Answer::read(&mut reader).unwrap().status, 200);
    let waited = closed_after(&mut stream);
    assert!(waited >= Duration::from_millis(900), "closed before the header timeout: {waited:?}");
    assert!(waited < Duration::from_secs(5), "closed long after the header timeout: {waited:?}");
}

#[test]
fn an_answer_slower_than_the_header_timeout_is_still_sent_and_the_connection_kept() {
    let (addr, _) = serve(header_timeout_of_a_second());
    let mut stream = connect(addr);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    // Nothing is written while the answer takes 2.5 s: it is in flight, so no head is awaited.
    stream.write_all(b"GET /slow?2500 HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    let answer = Answer::read(&mut reader).expect("the slow answer");
    assert_eq!((answer.status, answer.text()), (200, "/slow from 127.0.0.1"));
    // The next request, sent at once, is answered on the same connection.
    stream.write_all(b"GET /hello HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    assert_eq!(Answer::read(&mut reader).unwrap().status, 200);
}

#[test]
fn a_client_slow_to_read_a_long_answer_is_not_taken_for_one_that_sends_no_request() {
    let (addr, _) = serve(header_timeout_of_a_second());
    let mut stream = connect(addr);
    stream.write_all(b"GET /big?32 HTTP/1.1\r\nHost: tapster\r\n\r\n").unwrap();
    // 32 MiB fill the sockets' buffers: the answer is still being written while nothing is read,
    // for longer than the header timeout.
    std::thread::sleep(Duration::from_millis(2500));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let answer = Answer::read(&mut reader).expect("the whole answer");
    assert_eq!((answer.status, answer.body.len()), (200, 32 << 20));
}

#[test]
fn shutdown_does_not_wait_for_a_connection_that_sent_nothing() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = ServeConfig { shutdown_grace: Duration::from_secs(60), ..Default::default() };
    let echo = std::sync::Arc::new(super::Echo::default());
    let served = runtime.spawn(tapster_edge::serve(listener, echo, config, async {
        let _ = stopped.await;
    }));
    let _silent = connect(addr);
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    stop.send(()).unwrap();
    runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(30), served).await })
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "shutdown waited {:?} for a silent connection",
        start.elapsed()
    );
}

#[test]
fn a_plain_connection_that_opens_with_the_http2_preface_speaks_http2() {
    let (addr, _) = serve(ServeConfig::default());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut send, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.unwrap();
        tokio::spawn(connection);
        for path in ["/hello", "/later"] {
            let request =
                hyper::Request::get(format!("http://{addr}{path}")).body(Empty::<Bytes>::new()).unwrap();
            let response = send.send_request(request).await.unwrap();
            assert_eq!(response.version(), hyper::Version::HTTP_2);
            let body = response.into_body().collect().await.unwrap().to_bytes();
            assert_eq!(body, format!("{path} from 127.0.0.1"));
        }
    });
}

#[test]
fn a_preface_sent_in_pieces_is_still_told_apart() {
    let (addr, _) = serve(ServeConfig::default());
    // An HTTP/1.1 request whose first bytes look like the preface's.
    let mut stream = connect(addr);
    stream.write_all(b"PRI").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    stream.write_all(b" /hello HTTP/1.1\r\nHost: tapster\r\nConnection: close\r\n\r\n").unwrap();
    let mut reader = BufReader::new(stream);
    let answer = Answer::read(&mut reader).expect("an HTTP/1.1 answer");
    assert_eq!((answer.status, answer.text()), (200, "/hello from 127.0.0.1"));

    // The preface itself in two writes, then an HTTP/2 client's frames: served as HTTP/2.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let stream = Split::new(stream, 10);
        let (mut send, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.unwrap();
        tokio::spawn(connection);
        let request =
            hyper::Request::get(format!("http://{addr}/hello")).body(Empty::<Bytes>::new()).unwrap();
        let response = send.send_request(request).await.unwrap();
        assert_eq!(response.version(), hyper::Version::HTTP_2);
    });
}

/// A stream whose first write sends only its first `cut` bytes, and the rest a moment later.
struct Split {
    inner: tokio::net::TcpStream,
    cut: Option<usize>,
    pause: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl Split {
    fn new(inner: tokio::net::TcpStream, cut: usize) -> Self {
        Self { inner, cut: Some(cut), pause: None }
    }
}

impl tokio::io::AsyncRead for Split {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Split {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if let Some(pause) = &mut self.pause {
            std::task::ready!(pause.as_mut().poll(cx));
            self.pause = None;
        }
        if let Some(cut) = self.cut {
            let written = std::task::ready!(
                std::pin::Pin::new(&mut self.inner).poll_write(cx, &buf[..cut.min(buf.len())])
            )?;
            self.cut = None;
            self.pause = Some(Box::pin(tokio::time::sleep(Duration::from_millis(50))));
            return std::task::Poll::Ready(Ok(written));
        }
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
