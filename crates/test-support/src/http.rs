//! A plain HTTP/1.1 client over blocking sockets, for tests that talk to a real server as a client
//! on the wire does: requests are written as text (so a test can also pipeline them or break them),
//! and answers are read off the connection whole (status, headers, and the body as its framing says:
//! `Content-Length`, chunks, or the end of the connection).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use hyper::HeaderMap;
use hyper::header::{HeaderName, HeaderValue};
use serde_json::Value;
use tokio::net::TcpSocket;

/// How long a read waits for the server before the test gives up, on however loaded a machine.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// One answer read off a connection.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    /// Reads one answer to a request other than `HEAD`; `None` when the connection closed (or broke)
    /// before a whole answer arrived.
    pub fn read(reader: &mut impl BufRead) -> Option<Self> {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let status: u16 = line.split(' ').nth(1)?.parse().ok()?;
        let mut headers = HeaderMap::new();
        loop {
            line.clear();
            reader.read_line(&mut line).ok()?;
            let field = line.trim_end();
            if field.is_empty() {
                break;
            }
            let (name, value) = field.split_once(':')?;
            headers.append(
                HeaderName::from_bytes(name.trim().as_bytes()).ok()?,
                HeaderValue::from_bytes(value.trim().as_bytes()).ok()?,
            );
        }
        let answer = Self { status, headers, body: Vec::new() };
        let body = if status < 200 || status == 204 || status == 304 {
            Vec::new()
        } else if answer.header("transfer-encoding").eq_ignore_ascii_case("chunked") {
            read_chunks(reader)?
        } else if let Ok(length) = answer.header("content-length").parse() {
            let mut body = vec![0; length];
            reader.read_exact(&mut body).ok()?;
            body
        } else {
            // Neither length nor chunks: the body ends with the connection, however it ends.
            let mut body = Vec::new();
            let _ = reader.read_to_end(&mut body);
            body
        };
        Some(Self { body, ..answer })
    }

    /// The value of the first header `name`, or `""` when there is none.
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default()
    }

    /// The body as text.
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// A body sent in chunks, put back together; the trailers are read and dropped.
fn read_chunks(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let size = usize::from_str_radix(line.trim_end().split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            loop {
                line.clear();
                if reader.read_line(&mut line).ok()? == 0 || line.trim_end().is_empty() {
                    return Some(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).ok()?;
        line.clear();
        reader.read_line(&mut line).ok()?;
    }
}

/// A new connection to `addr`, whose reads give up after [`PATIENCE`].
pub fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connecting to {addr}: {e}"));
    stream.set_read_timeout(Some(PATIENCE)).expect("a read timeout");
    stream
}

/// Waits until the server closes `stream` (reading and dropping what it still sends) and says how
/// long that took; panics when the read gives up ([`PATIENCE`] on a stream from [`connect`]).
pub fn closed_after(stream: &mut TcpStream) -> Duration {
    let start = Instant::now();
    let mut sink = [0; 1024];
    loop {
        match stream.read(&mut sink) {
            Ok(0) => return start.elapsed(),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                return start.elapsed();
            }
            Err(e) => panic!("the connection was not closed: {e}"),
        }
    }
}

/// `GET target` from `host` with `headers`, asking the server to close the connection after it.
pub(crate) fn get_request(target: &str, host: &str, headers: &[(&str, &str)]) -> String {
    let mut request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request + "\r\n"
}

/// `GET target` with `headers` on a new connection to `addr`.
pub fn get(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Answer {
    exchange(addr, &get_request(target, &addr.to_string(), headers), 1).remove(0)
}

/// `GET target` with `headers` on a new connection to `addr` from the local address `source` (any
/// address of 127.0.0.0/8 is this machine's, so one test can call from many addresses).
pub fn get_from(source: IpAddr, addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Answer {
    let connected =
        tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap().block_on(async {
            let socket = if source.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }?;
            socket.bind(SocketAddr::new(source, 0))?;
            socket.connect(addr).await?.into_std()
        });
    let stream = connected.unwrap_or_else(|e| panic!("connecting to {addr} from {source}: {e}"));
    stream.set_nonblocking(false).expect("a blocking stream");
    stream.set_read_timeout(Some(PATIENCE)).expect("a read timeout");
    exchange_on(stream, &get_request(target, &addr.to_string(), headers), 1).remove(0)
}

/// Sends `raw` as it is on a new connection to `addr` and reads `count` answers; panics when one
/// does not come.
pub fn exchange(addr: SocketAddr, raw: &str, count: usize) -> Vec<Answer> {
    exchange_on(connect(addr), raw, count)
}

fn exchange_on(mut stream: TcpStream, raw: &str, count: usize) -> Vec<Answer> {
    stream.write_all(raw.as_bytes()).unwrap_or_else(|e| panic!("sending {raw:.200}: {e}"));
    let mut reader = BufReader::new(stream);
    (0..count)
        .map(|i| Answer::read(&mut reader).unwrap_or_else(|| panic!("no answer {i} to {raw:.200}")))
        .collect()
}
