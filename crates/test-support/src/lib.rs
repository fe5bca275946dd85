//! What the test suites of several crates share, so that none keeps a copy of it: test doubles that
//! are real peers on `127.0.0.1:0` (an SMTP server that keeps what it is sent, [`SmtpSink`], and an
//! OAuth 2.0 provider that speaks as GitHub or Discord, [`MockProvider`]), and the bundled datasets
//! with a temporary data dir that holds one imported ([`DataDir`]), and a log writer into memory
//! ([`LogBuffer`]). Only ever a dev-dependency.

pub mod http;
pub mod tls;

mod data;
mod logs;
mod oauth;
mod smtp;

pub use data::{DataDir, fixtures, mini};
pub use logs::LogBuffer;
pub use oauth::{Behaviour, Flavour, MockProvider, User};
pub use smtp::{Mail, SmtpSink};
