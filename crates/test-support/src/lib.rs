//! What the test suites of several crates would otherwise each copy: test doubles that are real peers
//! on `127.0.0.1:0` (an SMTP server that keeps what it is sent, [`SmtpSink`], and an OAuth 2.0
//! provider that speaks as GitHub or Discord, [`MockProvider`]); the clients tests talk to a real
//! server with (a blocking HTTP/1.1 client, [`http`], and TLS with a self-signed certificate for
//! `localhost`, [`tls`]); the bundled datasets and a temporary data dir with one imported
//! ([`DataDir`]); a PostgreSQL schema per test ([`postgres`]) and a
//! PostgreSQL of a test's own that speaks only TLS ([`postgres_tls`]), Redis ([`redis`]), a proxy a fault
//! test cuts ([`proxy`]) and nginx in front of a server ([`nginx`]), with the one rule for a test whose
//! service is missing ([`services`]); accounts as the tests start from them ([`accounts`]); and a log
//! writer into memory ([`LogBuffer`]). Only ever a dev-dependency.

pub mod accounts;
pub mod http;
pub mod nginx;
pub mod postgres;
pub mod postgres_tls;
pub mod proxy;
pub mod redis;
pub mod services;
pub mod tls;

mod data;
mod logs;
mod oauth;
mod smtp;

pub use data::{DataDir, copy_tree, fixtures, mini};
pub use logs::LogBuffer;
pub use oauth::{Behaviour, Flavour, MockProvider, User};
pub use smtp::{Mail, SmtpSink};

/// The output of a future that is ready when first polled, as `App::handle`'s is with a gate that
/// decides at once: no runtime, so that a benchmark measures the answer and nothing else. Panics
/// when the future would wait.
pub fn ready<F: std::future::Future>(future: F) -> F::Output {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(future).poll(&mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("the future waits; only a future that is ready at once is taken"),
    }
}
