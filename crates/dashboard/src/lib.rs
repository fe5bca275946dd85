//! The developer dashboard: the HTML pages where people get their API keys. Sign-in by e-mail
//! (passwordless, a one-time link), GitHub or Discord; keys created with a name, an expiry and, for
//! a browser key, its origins, shown once, revoked after a confirmation; usage at a glance; webhook
//! endpoints with their secrets and deliveries; sessions, linked sign-ins, deleting the account.
//!
//! It knows accounts (through `tapster-accounts`), HTML, cookies, forms, mail and OAuth, and none of
//! the API's code (its pages only link to the API's public documents): the server serves it beside
//! the API through [`Dashboard::claims`] and [`Dashboard::answer`]. Time and randomness come from the
//! [`Environment`] it is given; the reference page's "try it" forms are answered through the
//! [`Console`] the server gives it, which calls the API as one of the signed-in person's keys, and
//! its test events are made and sent through the [`Outbox`] the server gives it.
//!
//! Every `POST` must come from one of its own pages (same origin, and the form token of the browser's
//! cookie); every page carries a strict Content-Security-Policy and is never cached.

mod app;
mod chart;
mod config;
mod console;
mod cookies;
mod ctx;
mod env;
mod error;
mod forms;
mod mail;
mod notice;
mod oauth;
mod outbox;
mod reply;
mod routes;
mod views;

pub use app::{Dashboard, PageVisit};
pub use config::{Config, MailConfig, MailTransport, ProviderConfig, PublicUrl};
pub use console::{Console, ConsoleAnswer};
pub use env::Environment;
pub use error::{Error, Result};
pub use outbox::Outbox;

/// Compares two secrets in time that depends only on their length, not on where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && std::hint::black_box(a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y))) == 0
}
