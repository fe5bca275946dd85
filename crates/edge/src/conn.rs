//! What the accept loop knows about one connection beyond what hyper tells it: when the bytes of the
//! latest request arrived (for the time budget) and whether anything moved lately (for the idle
//! timeout). [`Metered`] wraps the TCP stream, under TLS when there is TLS, and keeps both in a
//! [`ConnState`] shared with the connection's service.
//!
//! The arrival time is the moment the socket woke the connection's task, not the moment the task got
//! to read: a task that waits in the runtime's queue under overload has already used up part of its
//! requests' budget. To see that moment, reads are polled with a waker of our own that notes the time
//! and then wakes the task; it is made once per connection. When a read finds bytes without having
//! waited for them, they arrived at the read.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Reads and writes that moved bytes, counted; the idle timeout watches it change.
    activity: AtomicU64,
    /// The task to wake when the socket becomes readable.
    task: Mutex<Option<Waker>>,
}

impl ConnState {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            base: Instant::now(),
            woken: AtomicU64::new(0),
            arrived: AtomicU64::new(0),
            activity: AtomicU64::new(0),
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
        self.activity.load(Ordering::Relaxed)
    }
}

impl Wake for ConnState {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self.woken.compare_exchange(0, self.now(), Ordering::Relaxed, Ordering::Relaxed);
        let task = self.task.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        if let Some(task) = task {
            task.wake();
        }
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

impl<T: AsyncRead + Unpin> AsyncRead for Metered<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        {
            let mut task = this.state.task.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if !task.as_ref().is_some_and(|task| task.will_wake(cx.waker())) {
                *task = Some(cx.waker().clone());
            }
        }
        let woken = this.state.woken.swap(0, Ordering::Relaxed);
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(&mut Context::from_waker(&this.waker), buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let arrived = if woken == 0 { this.state.now() } else { woken };
            this.state.arrived.store(arrived, Ordering::Relaxed);
            this.state.activity.fetch_add(1, Ordering::Relaxed);
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
            self.state.activity.fetch_add(1, Ordering::Relaxed);
        }
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
