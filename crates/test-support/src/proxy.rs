//! A TCP proxy on `127.0.0.1:0` in front of a real server, which a fault test cuts (every connection
//! closed, every new one closed at once, as when the server's machine goes away) and restores. It
//! lets a test take away a server it shares with other tests, such as the machine's PostgreSQL,
//! without stopping it.

use std::io::copy;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The proxy; it forwards until dropped.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    state: Arc<State>,
}

#[derive(Debug, Default)]
struct State {
    cut: AtomicBool,
    stopped: AtomicBool,
    /// Both ends of every forwarded connection, to close them when cut.
    streams: Mutex<Vec<TcpStream>>,
}

impl Proxy {
    /// Forwards every connection to `target`.
    pub fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding the proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if shared.stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                if shared.cut.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(target) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                forward(&shared, client, server);
            }
        });
        Self { addr, state }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Closes every connection, and every new one at once, until [`Proxy::restore`].
    pub fn cut(&self) {
        self.state.cut.store(true, Ordering::SeqCst);
        for stream in self.state.streams.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Forwards new connections again.
    pub fn restore(&self) {
        self.state.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.state.stopped.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees it is stopped.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Copies both ways on two threads, keeping both ends to close when cut.
fn forward(state: &State, client: TcpStream, server: TcpStream) {
    let (Ok(client_reader), Ok(server_reader)) = (client.try_clone(), server.try_clone()) else { return };
    let mut streams = state.streams.lock().unwrap_or_else(|p| p.into_inner());
    streams.extend(client.try_clone());
    streams.extend(server.try_clone());
    drop(streams);
    let (mut client_writer, mut server_writer) = (client, server);
    let (mut client_reader, mut server_reader) = (client_reader, server_reader);
    std::thread::spawn(move || {
        let _ = copy(&mut client_reader, &mut server_writer);
        let _ = server_writer.shutdown(Shutdown::Write);
    });
    std::thread::spawn(move || {
        let _ = copy(&mut server_reader, &mut client_writer);
        let _ = client_writer.shutdown(Shutdown::Write);
    });
}
