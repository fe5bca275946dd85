//! Accepting connections and serving each with a [`Service`] until shutdown: plain HTTP or HTTPS
//! (rustls, HTTP/2 and HTTP/1.1 by ALPN; plain connections may speak either, told apart by the HTTP/2
//! preface, read without taking it), under the limits of a [`ServeConfig`].
//!
//! Each connection runs in its own task, which also watches what hyper is not asked to: the idle
//! timeout (nothing moved for that long: the connection is shut down gracefully, and dropped if it
//! still does not move, which also ends clients that stop reading their answers), on HTTP/1.1 the
//! header read timeout (no request in flight, none answered and no answer waiting to be written for
//! that long: the connection waits for a request head or trickles one in, and is dropped), and
//! shutdown (stop accepting, let every connection finish the requests it has, for at most the grace
//! period; a connection that has sent nothing yet is closed at once). The timeouts are judged on a
//! tick from counters the connection keeps (`conn`), and the tick and the shutdown signal are polled
//! only when they woke the task: a request arms no timer and polls nothing of theirs (hyper's own
//! header timeout armed a timer per request, which with the polling cost more than the rest of the
//! edge: docs/performance.md, "The floor").
//!
//! Connections over the maximum are still accepted, up to a small reserve, and every request on them
//! is answered `503` with `Retry-After` before they are closed, so that clients learn why rather than
//! hang in the listen queue; past the reserve they are closed at once.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{CONNECTION, HeaderValue, STRICT_TRANSPORT_SECURITY};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_rustls::TlsAcceptor;

use crate::conn::{ConnState, InFlight, Metered, Watchers};
use crate::screen::{RETRY_SECONDS, Screen, TrustedProxies};
use crate::service::{Answer, Body, Refusal, Service};
use crate::tls::TlsConfig;

/// Connections accepted past `max_connections` only to be told `503`, at most.
const OVERFLOW_RESERVE: usize = 256;
const CLOSE: HeaderValue = HeaderValue::from_static("close");

/// How the server meets the network: TLS, the limits every client is held to, whose forwarding
/// headers are believed, and how long shutdown waits. [`Default`] suits a server on the internet.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Serve HTTPS with this certificate; plain HTTP when `None`.
    pub tls: Option<TlsConfig>,
    /// A TLS handshake not done by then is dropped.
    pub tls_handshake_timeout: Duration,
    /// An HTTP/1.1 connection that waits this long for a request head closes (this includes the wait
    /// for the next request on a kept-alive connection, and a head trickled in); judged to within a
    /// quarter of itself.
    pub header_read_timeout: Duration,
    /// A connection on which nothing moved for this long is closed.
    pub keep_alive_idle: Duration,
    /// Request header fields larger than this in all (names, values, `: ` and line ends) get `431`.
    pub max_header_bytes: usize,
    /// A request target (path and query) longer than this gets `414`.
    pub max_uri_bytes: usize,
    /// Connections open at once; more are answered `503` and closed.
    pub max_connections: usize,
    /// A request that waited longer than this before it could be handled gets `503`.
    pub request_budget: Duration,
    /// The proxies in front of the server and the header they write the calling address into;
    /// without them, the calling address is the TCP peer's.
    pub trusted_proxies: Option<TrustedProxies>,
    /// Send `Strict-Transport-Security` with every answer: the server is reached over HTTPS, on
    /// its own or behind a proxy that ends TLS.
    pub strict_transport: Option<StrictTransport>,
    /// How long requests in flight may take to finish once shutdown begins.
    pub shutdown_grace: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            tls: None,
            tls_handshake_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(10),
            keep_alive_idle: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 8 * 1024,
            max_connections: 4096,
            request_budget: Duration::from_secs(5),
            trusted_proxies: None,
            strict_transport: None,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// `Strict-Transport-Security` (RFC 6797): a browser that saw it reaches this host only over HTTPS
/// for a year, and with `include_subdomains` every host under it too (which only the operator can
/// know is safe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrictTransport {
    pub include_subdomains: bool,
}

impl StrictTransport {
    fn header(self) -> HeaderValue {
        if self.include_subdomains {
            HeaderValue::from_static("max-age=31536000; includeSubDomains")
        } else {
            HeaderValue::from_static("max-age=31536000")
        }
    }
}

/// Serves `service` on `listener`, on the runtime this is called on, until `shutdown` completes,
/// then lets requests in flight finish (for at most `config.shutdown_grace`) and returns.
pub async fn serve<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    accept(listener, service, &config, &Counts::default(), shutdown).await
}

/// Serves like [`serve`], on `threads` threads, each running a single-threaded runtime that
/// accepts from `listener` and serves every connection it accepted to its end: one thread per core,
/// as nginx runs one worker per core. The first is the thread this is called on, whose runtime must
/// be single-threaded too for that to hold, and which keeps running the caller's other tasks (the
/// server's upkeep). A connection's tasks never move between threads, and a task woken by another
/// (an HTTP/2 stream waking its connection) waits its turn behind the tasks already queued, so the
/// answers of a connection's streams leave in one write rather than one write each. A connection
/// to another service (a database, Redis) runs on the thread whose task opened it: requests of that
/// thread reach it without waking another one. All threads share the one listening socket, so a
/// second server cannot bind the address unnoticed (as it could join a group of `SO_REUSEPORT`
/// sockets); every thread waiting on it is woken for a new connection and the first to take it
/// serves it, which favours idle threads but does not balance the threads' connections (they
/// never move once taken). `max_connections` counts the connections of every thread.
///
/// Returns once every thread has finished its requests in flight after `shutdown` completes, or
/// with the error of a thread that could not serve, after stopping the others.
pub async fn serve_on_threads<S: Service>(
    listener: TcpListener,
    threads: NonZeroUsize,
    service: Arc<S>,
    config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let listener = listener.into_std()?;
    let counts = Counts::default();
    let (stop, stopped) = watch::channel(false);
    let (finished, mut ended) = mpsc::unbounded_channel();
    for thread in 1..threads.get() {
        let serving = Serving {
            service: Arc::clone(&service),
            config: config.clone(),
            counts: counts.clone(),
            stopped: stopped.clone(),
        };
        let started = listener
            .try_clone()
            .and_then(|listener| start_thread(thread, listener, serving, finished.clone()));
        if let Err(error) = started {
            // The threads already started are stopped, and their requests in flight finished.
            let _ = stop.send(true);
            drop(finished);
            while ended.recv().await.is_some() {}
            return Err(error);
        }
    }
    drop(finished);
    let here = accept(TcpListener::from_std(listener)?, service, &config, &counts, until_stopped(stopped));
    let others = async {
        // A thread that ends before shutdown could not serve: the others are stopped too. (Every
        // thread sends when it ends, so the channel closes early only when there is no other.)
        let mut result = tokio::select! {
            () = shutdown => Ok(()),
            Some(early) = ended.recv() => early,
        };
        let _ = stop.send(true);
        while let Some(served) = ended.recv().await {
            result = result.and(served);
        }
        result
    };
    let (here, others) = tokio::join!(here, others);
    others.and(here)
}

/// What a serving thread is given besides its listener.
struct Serving<S> {
    service: Arc<S>,
    config: ServeConfig,
    counts: Counts,
    stopped: watch::Receiver<bool>,
}

/// Starts the serving thread number `thread`: a one-thread runtime accepting from `listener` until
/// it is told to stop; it sends its outcome to `finished` when it ends, whichever way.
fn start_thread<S: Service>(
    thread: usize,
    listener: std::net::TcpListener,
    Serving { service, config, counts, stopped }: Serving<S>,
    finished: mpsc::UnboundedSender<io::Result<()>>,
) -> io::Result<()> {
    let serving = move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        runtime.block_on(async move {
            let listener = TcpListener::from_std(listener)?;
            accept(listener, service, &config, &counts, until_stopped(stopped)).await
        })
    };
    std::thread::Builder::new().name(format!("serve-{thread}")).spawn(move || {
        let served = std::panic::catch_unwind(AssertUnwindSafe(serving))
            .unwrap_or_else(|_| Err(io::Error::other("a serving thread panicked")));
        let _ = finished.send(served);
    })?;
    Ok(())
}

/// Completes once `stopped` says so (or its sender is gone).
async fn until_stopped(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// Connections open on one server, across its threads: those served, and those accepted past
/// `max_connections` only to be refused. A clone counts the same connections.
#[derive(Debug, Default, Clone)]
struct Counts {
    open: Arc<AtomicUsize>,
    overflow: Arc<AtomicUsize>,
}

/// The accept loop of one runtime: accepts from `listener` until `shutdown` completes, serving each
/// connection in a task of its own, then lets them finish for at most the grace period.
async fn accept<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: &ServeConfig,
    counts: &Counts,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let (stop, stopped) = watch::channel(false);
    let shared = Arc::new(Shared::new(service, config, stopped));
    let acceptor = config.tls.as_ref().map(|tls| TlsAcceptor::from(Arc::clone(&tls.0)));
    let Counts { open, overflow } = counts;
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    // Out of descriptors or a connection reset before accept: wait a little and go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                // A place among the connections served, else in the reserve of those told `503`.
                let (counted, refuse) = match Counted::take(open, config.max_connections) {
                    Some(counted) => (counted, false),
                    None => match Counted::take(overflow, OVERFLOW_RESERVE) {
                        Some(counted) => (counted, true),
                        None => continue,
                    },
                };
                let _ = stream.set_nodelay(true);
                let (shared, acceptor) = (Arc::clone(&shared), acceptor.clone());
                tokio::spawn(async move {
                    shared.connection(stream, peer.ip(), acceptor, refuse).await;
                    drop(counted);
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds the shared state, and with it a receiver: when the last one is gone,
    // every connection has finished.
    drop(shared);
    let _ = tokio::time::timeout(config.shutdown_grace, stop.closed()).await;
    Ok(())
}

/// The future of one request's answer, which hyper polls: a ready answer costs no allocation. The
/// answer leaves with `Strict-Transport-Security` when the server sends it.
struct Answering {
    answer: Pending,
    strict_transport: Option<HeaderValue>,
    /// The request, noted on its connection until its answer is handed to hyper.
    in_flight: Option<InFlight>,
}

enum Pending {
    Ready(Option<Response<Body>>),
    Later(Pin<Box<dyn Future<Output = Response<Body>> + Send>>),
}

impl From<Answer> for Pending {
    fn from(answer: Answer) -> Self {
        match answer {
            Answer::Ready(response) => Self::Ready(Some(response)),
            Answer::Later(future) => Self::Later(future),
        }
    }
}

impl Future for Answering {
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut response = match &mut this.answer {
            Pending::Ready(response) => response.take().expect("an answer is polled once it is ready"),
            Pending::Later(answer) => std::task::ready!(answer.as_mut().poll(cx)),
        };
        if let Some(value) = &this.strict_transport {
            response.headers_mut().insert(STRICT_TRANSPORT_SECURITY, value.clone());
        }
        this.in_flight = None;
        Poll::Ready(Ok(response))
    }
}

/// One connection counted against a limit while it lives.
#[derive(Debug)]
struct Counted(Arc<AtomicUsize>);

impl Counted {
    /// Counts one more on `count` if it is below `limit`: in one step, so that threads accepting at
    /// the same moment cannot together pass the limit.
    fn take(count: &Arc<AtomicUsize>, limit: usize) -> Option<Self> {
        count.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| (n < limit).then_some(n + 1)).ok()?;
        Some(Self(Arc::clone(count)))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What every connection of one server shares.
struct Shared<S> {
    service: Arc<S>,
    screen: Arc<Screen>,
    /// The value of `Strict-Transport-Security`, when it is sent.
    strict_transport: Option<HeaderValue>,
    http1: http1::Builder,
    http2: http2::Builder<TokioExecutor>,
    tls_handshake_timeout: Duration,
    header_read_timeout: Duration,
    keep_alive_idle: Duration,
    stopped: watch::Receiver<bool>,
}

/// The protocol a connection speaks: HTTP/2 when TLS's ALPN chose it or a plain connection opens
/// with its preface, HTTP/1.1 otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Http1,
    Http2,
}

/// What a client speaking HTTP/2 without TLS sends first (RFC 9113, 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

impl<S: Service> Shared<S> {
    fn new(service: Arc<S>, config: &ServeConfig, stopped: watch::Receiver<bool>) -> Self {
        // hyper's own ceilings, far enough above ours that the service's answers to our refusals are
        // what clients see.
        let ceiling = (config.max_header_bytes.saturating_add(config.max_uri_bytes))
            .saturating_mul(2)
            .saturating_add(8 * 1024)
            .min(400 * 1024);
        let mut http1 = http1::Builder::new();
        // The header read timeout is the connection's watch's (`Watch`), judged on a tick: hyper's
        // arms a timer for every request, which cost more than the rest of the edge.
        http1.header_read_timeout(None).max_buf_size(ceiling.max(8 * 1024));
        let mut http2 = http2::Builder::new(TokioExecutor::new());
        http2.timer(TokioTimer::new()).max_header_list_size(u32::try_from(ceiling).unwrap_or(u32::MAX));
        Self {
            service,
            screen: Arc::new(Screen {
                max_uri_bytes: config.max_uri_bytes,
                max_header_bytes: config.max_header_bytes,
                budget: config.request_budget,
                proxies: config.trusted_proxies.clone(),
            }),
            strict_transport: config.strict_transport.map(StrictTransport::header),
            http1,
            http2,
            tls_handshake_timeout: config.tls_handshake_timeout,
            header_read_timeout: config.header_read_timeout,
            keep_alive_idle: config.keep_alive_idle,
            stopped,
        }
    }

    /// Serves one accepted connection to its end: the TLS handshake if any, then HTTP. A connection
    /// over the limit (`refuse`) is answered `503` and lives at most the header read timeout.
    async fn connection(&self, stream: TcpStream, peer: IpAddr, acceptor: Option<TlsAcceptor>, refuse: bool) {
        let state = ConnState::new();
        let served = async {
            match acceptor {
                None => {
                    let io = Metered::new(stream, Arc::clone(&state));
                    // A client that sends nothing is cut off as an idle one would be, and at once
                    // when shutdown begins: it has no request to finish.
                    let first = self.header_read_timeout.min(self.keep_alive_idle);
                    let mut stopped = self.stopped.clone();
                    let sniffed = tokio::select! {
                        sniffed = tokio::time::timeout(first, sniff(&io)) => sniffed,
                        _ = stopped.wait_for(|stop| *stop) => return,
                    };
                    if let Ok(Ok(protocol)) = sniffed {
                        self.http(io, protocol, peer, state, refuse).await;
                    }
                }
                Some(acceptor) => {
                    let io = Metered::new(stream, Arc::clone(&state));
                    let handshake = tokio::time::timeout(self.tls_handshake_timeout, acceptor.accept(io));
                    // A failed or slow handshake: nothing to answer in, so the connection just closes.
                    if let Ok(Ok(tls)) = handshake.await {
                        // HTTP/2 over TLS is chosen by ALPN only (RFC 9113, 3.3).
                        let protocol = match tls.get_ref().1.alpn_protocol() {
                            Some(b"h2") => Protocol::Http2,
                            _ => Protocol::Http1,
                        };
                        self.http(tls, protocol, peer, state, refuse).await;
                    }
                }
            }
        };
        if refuse {
            let _ = tokio::time::timeout(self.header_read_timeout, served).await;
        } else {
            served.await;
        }
    }

    async fn http<I>(&self, io: I, protocol: Protocol, peer: IpAddr, state: Arc<ConnState>, refuse: bool)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let service = {
            let (service, screen, state) =
                (Arc::clone(&self.service), Arc::clone(&self.screen), Arc::clone(&state));
            let strict_transport = self.strict_transport.clone();
            service_fn(move |request: Request<Incoming>| {
                let in_flight = state.request();
                let caller = screen.caller(peer, request.headers());
                let answer = if refuse {
                    let refusal = Refusal::TooManyConnections { retry_after: RETRY_SECONDS };
                    let mut response = service.refused(&request, caller.unwrap_or(peer), refusal);
                    response.headers_mut().insert(CONNECTION, CLOSE);
                    Pending::Ready(Some(response))
                } else {
                    match (screen.check(&request, state.waited()), caller) {
                        (Ok(()), Ok(caller)) => Pending::from(Arc::clone(&service).call(request, caller)),
                        (Err(refusal), caller) => {
                            Pending::Ready(Some(service.refused(&request, caller.unwrap_or(peer), refusal)))
                        }
                        (Ok(()), Err(unknown)) => {
                            Pending::Ready(Some(service.refused(&request, peer, unknown)))
                        }
                    }
                };
                Answering { answer, strict_transport: strict_transport.clone(), in_flight: Some(in_flight) }
            })
        };
        let io = TokioIo::new(io);
        let watch = Watch::new(
            self.keep_alive_idle,
            (protocol == Protocol::Http1).then_some(self.header_read_timeout),
        );
        match protocol {
            Protocol::Http1 => {
                let connection = pin!(self.http1.serve_connection(io, service));
                self.watched(connection, &state, watch).await;
            }
            Protocol::Http2 => {
                let connection = pin!(self.http2.serve_connection(io, service));
                self.watched(connection, &state, watch).await;
            }
        }
    }

    /// Drives `connection` to its end, closing it gracefully once shutdown begins or `watch` says
    /// it idled, and dropping it when it still does not move. The watchers (the shutdown signal,
    /// the tick) are polled only when they were woken, not each time the connection is: a request
    /// costs nothing of theirs.
    async fn watched<C: Graceful>(
        &self,
        mut connection: Pin<&mut C>,
        state: &Arc<ConnState>,
        mut watch: Watch,
    ) {
        let mut stopped = self.stopped.clone();
        let mut closing = *stopped.borrow_and_update();
        if closing {
            connection.as_mut().graceful_shutdown();
        }
        let mut stop = pin!(stopped.changed());
        let mut ticks = tokio::time::interval_at(Instant::now() + watch.tick, watch.tick);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let watchers = Waker::from(Arc::new(Watchers(Arc::clone(state))));
        std::future::poll_fn(|cx| {
            loop {
                if connection.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(());
                }
                if !state.watch(cx.waker()) {
                    return Poll::Pending;
                }
                let mut woken = Context::from_waker(&watchers);
                let mut close = !closing && stop.as_mut().poll(&mut woken).is_ready();
                while ticks.poll_tick(&mut woken).is_ready() {
                    match watch.tick(state, closing) {
                        Judged::Keep => {}
                        Judged::Close => close = true,
                        Judged::Drop => return Poll::Ready(()),
                    }
                }
                if !close || closing {
                    return Poll::Pending;
                }
                closing = true;
                connection.as_mut().graceful_shutdown();
                // The connection is polled again, as closing may have ended it; the watchers are
                // polled again too, so that the stopped signal is no longer one of them.
                state.rewatch();
            }
        })
        .await;
    }
}

/// Reads, without taking them, the first bytes of a plain connection until they tell its protocol.
async fn sniff(stream: &Metered<TcpStream>) -> io::Result<Protocol> {
    let mut first = [0; PREFACE.len()];
    let mut pause = Duration::from_millis(5);
    loop {
        let read = stream.peek(&mut first).await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if first[..read] != PREFACE[..read] {
            return Ok(Protocol::Http1);
        }
        if read == PREFACE.len() {
            return Ok(Protocol::Http2);
        }
        // Part of the preface: the bytes are still there, so a peek would return at once. Clients
        // send it whole; one that does not waits for the rest, a little longer each time (one that
        // stops there costs a dozen wake-ups before its timeout, not thousands).
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

/// A connection hyper serves, which can be asked to finish what it has and close.
trait Graceful: Future {
    fn graceful_shutdown(self: Pin<&mut Self>);
}

impl<I, S> Graceful for http1::Connection<I, S>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    S: hyper::service::HttpService<Incoming>,
    S::ResBody: hyper::body::Body + 'static,
    <S::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn graceful_shutdown(self: Pin<&mut Self>) {
        http1::Connection::graceful_shutdown(self);
    }
}

impl<I, S, E> Graceful for http2::Connection<I, S, E>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    S: hyper::service::HttpService<Incoming>,
    S::ResBody: hyper::body::Body + 'static,
    <S::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    E: hyper::rt::bounds::Http2ServerConnExec<S::Future, S::ResBody>,
{
    fn graceful_shutdown(self: Pin<&mut Self>) {
        http2::Connection::graceful_shutdown(self);
    }
}

/// The two timeouts of a connection, judged on a tick by counters that change when it moves: the
/// idle timeout (no byte moved for `idle`: close gracefully, then drop if still nothing moves) and,
/// on HTTP/1.1, the header read timeout (no request answered for `header` while none is in flight
/// and no answer waits to be written: the connection waits for a request head, or trickles one in,
/// and is dropped, as hyper's own timeout would). Their deadlines are kept to within a tick, a quarter of
/// the shorter.
#[derive(Debug)]
struct Watch {
    tick: Duration,
    idle: Duration,
    header: Option<Duration>,
    seen: u64,
    quiet_since: Instant,
    progress: Option<u64>,
    waiting_since: Instant,
}

/// What a tick decides about a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Judged {
    Keep,
    /// Finish what it has and close.
    Close,
    /// End it now.
    Drop,
}

impl Watch {
    fn new(idle: Duration, header: Option<Duration>) -> Self {
        let shortest = header.map_or(idle, |header| header.min(idle));
        let now = Instant::now();
        Self {
            tick: (shortest / 4).max(Duration::from_millis(20)),
            idle,
            header,
            seen: 0,
            quiet_since: now,
            progress: Some(0),
            waiting_since: now,
        }
    }

    fn tick(&mut self, state: &ConnState, closing: bool) -> Judged {
        let now = Instant::now();
        if let Some(header) = self.header {
            let progress = state.progress();
            if progress.is_none() || progress != self.progress {
                (self.progress, self.waiting_since) = (progress, now);
            } else if now.duration_since(self.waiting_since) >= header {
                return Judged::Drop;
            }
        }
        let activity = state.activity();
        if activity != self.seen {
            (self.seen, self.quiet_since) = (activity, now);
        } else if now.duration_since(self.quiet_since) >= self.idle {
            if closing {
                // Asked to close and still nothing moves: the client is gone or stalled.
                return Judged::Drop;
            }
            self.quiet_since = now;
            return Judged::Close;
        }
        Judged::Keep
    }
}
