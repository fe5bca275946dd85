//! An SMTP server that accepts every mail and keeps it: enough of RFC 5321 (`EHLO`/`HELO`, `MAIL`,
//! `RCPT`, `DATA` with dot-unstuffing, `RSET`, `NOOP`, `QUIT`) for a real client to deliver to it.
//! It runs on a thread of its own with blocking sockets, so sync and async tests alike can use it.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// One delivered mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent: headers, a blank line, the body (CRLF line ends).
    pub data: String,
}

impl Mail {
    /// The first line of the body that holds `needle` (a link, say), trimmed.
    pub fn line_with(&self, needle: &str) -> Option<String> {
        self.data.lines().find(|line| line.contains(needle)).map(|line| line.trim().to_owned())
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next()?;
        head.lines()
            .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case(name)))
            .map(|(_, value)| value.trim().to_owned())
    }
}

/// The sink: listening on `127.0.0.1` on a port of its own until the process ends.
#[derive(Debug, Clone)]
pub struct SmtpSink {
    addr: SocketAddr,
    mails: Arc<(Mutex<Vec<Mail>>, Condvar)>,
}

impl SmtpSink {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding the SMTP sink");
        let addr = listener.local_addr().expect("the SMTP sink's address");
        let mails: Arc<(Mutex<Vec<Mail>>, Condvar)> = Arc::default();
        let kept = Arc::clone(&mails);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || {
                    let _ = converse(stream, &kept);
                });
            }
        });
        Self { addr, mails }
    }

    /// The URL a client is given: plain SMTP on the sink's port.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// Every mail delivered so far.
    pub fn mails(&self) -> Vec<Mail> {
        self.mails.0.lock().unwrap().clone()
    }

    /// Waits up to `timeout` until at least `count` mails have been delivered; returns them all.
    pub fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Mail> {
        let deadline = Instant::now() + timeout;
        let (lock, arrived) = &*self.mails;
        let mut mails = lock.lock().unwrap();
        while mails.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            mails = arrived.wait_timeout(mails, left).unwrap().0;
        }
        mails.clone()
    }
}

/// One SMTP session, to `QUIT` or until the client goes.
fn converse(stream: TcpStream, mails: &(Mutex<Vec<Mail>>, Condvar)) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    out.write_all(b"220 sink.test ESMTP ready\r\n")?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let verb = command.split([' ', ':']).next().unwrap_or_default().to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => out.write_all(b"250-sink.test\r\n250 8BITMIME\r\n")?,
            "HELO" => out.write_all(b"250 sink.test\r\n")?,
            "MAIL" => {
                from = address(&command);
                to.clear();
                out.write_all(b"250 OK\r\n")?;
            }
            "RCPT" => {
                to.push(address(&command));
                out.write_all(b"250 OK\r\n")?;
            }
            "DATA" => {
                out.write_all(b"354 end with <CRLF>.<CRLF>\r\n")?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                let (lock, arrived) = mails;
                lock.lock().unwrap().push(Mail { from: from.clone(), to: to.clone(), data });
                arrived.notify_all();
                out.write_all(b"250 OK queued\r\n")?;
            }
            "RSET" | "NOOP" => out.write_all(b"250 OK\r\n")?,
            "QUIT" => {
                out.write_all(b"221 bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"502 not implemented\r\n")?,
        }
    }
}

/// The address of `MAIL FROM:<a>` or `RCPT TO:<a>`.
fn address(command: &str) -> String {
    command
        .split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(a, _)| a.to_owned())
        .unwrap_or_default()
}
