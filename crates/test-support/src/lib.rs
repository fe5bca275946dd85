//! Test doubles shared by the test suites of several crates, each a real peer on `127.0.0.1:0`: an
//! SMTP server that keeps what it is sent ([`SmtpSink`]) and an OAuth 2.0 provider that speaks as
//! GitHub or Discord ([`MockProvider`]). Only ever a dev-dependency.

mod oauth;
mod smtp;

pub use oauth::{Behaviour, Flavour, MockProvider, User};
pub use smtp::{Mail, SmtpSink};
