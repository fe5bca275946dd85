//! What the accept loop knows about one connection beyond what hyper tells it: when the bytes of the
//! latest request arrived (for the time budget), whether anything moved lately (for the idle
//! timeout), and whether the connection waits for a request head (for the header read timeout).
//! [`Metered`] wraps the TCP stream, under TLS when there is TLS, and keeps the first two in a
//! [`ConnState`] shared with the connection's service, which notes the answers ([`InFlight`]).
//! Nothing here reads a clock per request but the arrival time: the timeouts are judged by a tick
//! that compares counters, and the tick is polled only when its timer woke it ([`ConnState::watch`]).
//!
//! The arrival time is the moment the socket woke the connection's task, not the moment the task got
//! to read: a task that waits in the runtime's queue under overload has already used up part of its
//! requests' budget. To see that moment, reads are polled with a waker of our own that notes the time
//! and then wakes the task; it is made once per connection. When a read finds bytes without having
//! waited for them, they arrived at the read.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Timing and activity of one connection.
#[derive(Debug)]
pub(crate) struct ConnState {
    /// Times below are nanoseconds since `base`, plus one, so that 0 means "none".
    base: Instant,
    /// When the socket last woke a read that was waiting; taken by the next read.
    woken: AtomicU64,
    /// When the bytes of the latest read arrived.
    arrived: AtomicU64,
    /// Reads that moved bytes, counted; the idle timeout watches it change.
    reads: AtomicU64,
    /// Writes that moved bytes, counted; the idle timeout watches it change.
    writes: AtomicU64,
    /// Whether the latest write found the socket full: an answer is still being written to a
    /// client that does not read it yet, which is the idle timeout's business, not the header's.
    write_blocked: AtomicBool,
    /// Requests handed to the service and not answered yet.
    in_flight: AtomicU64,
    /// Requests answered (or given up by hyper).
    answered: AtomicU64,
    /// Whether the connection's watchers (its tick, the shutdown signal) were woken since the task
    /// last polled them.
    watch_woken: AtomicBool,
    /// The task to wake when the socket becomes readable or a watcher is woken.
    task: Mutex<Option<Waker>>,
}

impl ConnState {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            base: Instant::now(),
            woken: AtomicU64::new(0),
            arrived: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            write_blocked: AtomicBool::new(false),
            in_flight: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            // Polled once at first, which arms them.
            watch_woken: AtomicBool::new(true),
            task: Mutex::new(None),
        })
    }

    fn now(&self) -> u64 {
        u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1
    }

    /// How long ago the bytes of the latest read arrived.
    pub(crate) fn waited(&self) -> Duration {
        match self.arrived.load(Ordering::Relaxed) {
            0 => Duration::ZERO,
            arrived => Duration::from_nanos(self.now().saturating_sub(arrived)),
        }
    }

    /// A number that changes whenever bytes move in either direction.
    pub(crate) fn activity(&self) -> u64 {
        self.reads.load(Ordering::Relaxed).wrapping_add(self.writes.load(Ordering::Relaxed))
    }

    /// The requests answered, while none is in flight and no answer waits to be written: a
    /// connection on which it stays the same waits for a request head. (A client that stops reading
    /// its answer is the idle timeout's business, as it was with hyper's own timer; bytes moved
    /// under TLS, which a client can provoke without sending a head, are not counted.)
    pub(crate) fn progress(&self) -> Option<u64> {
        let answered = self.answered.load(Ordering::Relaxed);
        let busy = self.in_flight.load(Ordering::Relaxed) > 0 || self.write_blocked.load(Ordering::Relaxed);
        (!busy).then_some(answered)
    }

    /// Notes a request handed to the service, until the guard is dropped with its answer.
    pub(crate) fn request(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(Arc::clone(self))
    }

    /// Whether the watchers were woken since the last call, which forgets it; `task` is the task to
    /// wake when they are woken again. The task's waker is also kept by every read of the
    /// connection ([`Metered`]), which hyper polls with the same context: a tokio task's waker does
    /// not change, so keeping it here only when the watchers ran is enough.
    pub(crate) fn watch(&self, task: &Waker) -> bool {
        if !self.watch_woken.swap(false, Ordering::Relaxed) {
            return false;
        }
        self.remember(task);
        true
    }

    /// Has the watchers polled again at the task's next turn, as if they were woken.
    pub(crate) fn rewatch(&self) {
        self.watch_woken.store(true, Ordering::Relaxed);
    }

    /// Keeps `task` as the one to wake, unless it is already the one.
    fn remember(&self, task: &Waker) {
        let mut held = self.task.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !held.as_ref().is_some_and(|held| held.will_wake(task)) {
            *held = Some(task.clone());
        }
    }

    fn wake_task(&self) {
        let task = self.task.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        if let Some(task) = task {
            task.wake();
        }
    }
}

/// A request of the connection being answered; dropped once the answer is handed to hyper (or the
/// request is given up).
#[derive(Debug)]
pub(crate) struct InFlight(Arc<ConnState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.answered.fetch_add(1, Ordering::Relaxed);
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The waker a connection's watchers are polled with: it notes that they were woken, then wakes the
/// connection's task, which polls them only then.
#[derive(Debug)]
pub(crate) struct Watchers(pub(crate) Arc<ConnState>);

impl Wake for Watchers {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.watch_woken.store(true, Ordering::Relaxed);
        self.0.wake_task();
    }
}

impl Wake for ConnState {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self.woken.compare_exchange(0, self.now(), Ordering::Relaxed, Ordering::Relaxed);
        self.wake_task();
    }
}

/// A byte stream that records into a [`ConnState`] when its reads' bytes arrive and that bytes moved.
#[derive(Debug)]
pub(crate) struct Metered<T> {
    inner: T,
    state: Arc<ConnState>,
    waker: Waker,
}

impl<T> Metered<T> {
    pub(crate) fn new(inner: T, state: Arc<ConnState>) -> Self {
        let waker = Waker::from(Arc::clone(&state));
        Self { inner, state, waker }
    }
}

impl Metered<tokio::net::TcpStream> {
    /// Reads the first bytes without taking them, noting when they arrived as a read does: the
    /// first request's time budget counts from there.
    pub(crate) async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        std::future::poll_fn(|cx| {
            self.state.remember(cx.waker());
            let mut buf = ReadBuf::new(buf);
            self.inner.poll_peek(&mut Context::from_waker(&self.waker), &mut buf)
        })
        .await
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Metered<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.state.remember(cx.waker());
        let woken = this.state.woken.swap(0, Ordering::Relaxed);
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(&mut Context::from_waker(&this.waker), buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let arrived = if woken == 0 { this.state.now() } else { woken };
            this.state.arrived.store(arrived, Ordering::Relaxed);
            this.state.reads.fetch_add(1, Ordering::Relaxed);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Metered<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.moved(&polled);
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.moved(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

impl<T> Metered<T> {
    fn moved(&self, polled: &Poll<io::Result<usize>>) {
        if matches!(polled, Poll::Ready(Ok(written)) if *written > 0) {
            self.state.writes.fetch_add(1, Ordering::Relaxed);
        }
        self.state.write_blocked.store(polled.is_pending(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn reads_note_arrival_and_activity() {
        let (client, server) = tokio::io::duplex(64);
        let state = ConnState::new();
        let mut server = Metered::new(server, Arc::clone(&state));
        let mut client = client;
        assert_eq!(state.waited(), Duration::ZERO);
        assert_eq!(state.activity(), 0);
        client.write_all(b"GET").await.unwrap();
        let mut buf = [0; 3];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(state.activity(), 1);
        std::thread::sleep(Duration::from_millis(20));
        assert!(state.waited() >= Duration::from_millis(20));
        server.write_all(b"ok").await.unwrap();
        assert_eq!(state.activity(), 2);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_read_that_waited_dates_its_bytes_from_the_wake() {
        let (mut client, server) = tokio::io::duplex(64);
        let state = ConnState::new();
        let mut server = Metered::new(server, Arc::clone(&state));
        let reader = tokio::spawn(async move {
            let mut buf = [0; 1];
            server.read_exact(&mut buf).await.unwrap();
        });
        tokio::task::yield_now().await;
        // The reader waits; the write wakes it, and this thread then sleeps before it can run.
        client.write_all(b"x").await.unwrap();
        std::thread::sleep(Duration::from_millis(30));
        reader.await.unwrap();
        assert!(state.waited() >= Duration::from_millis(30), "{:?}", state.waited());
    }
}
