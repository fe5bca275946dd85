//! Delivering webhooks: what the server's outbox hands an event to. Signatures in the Standard
//! Webhooks form (`signature`), the judging of IP addresses (`address`), the endpoint URL a person
//! types (`endpoint`), and one delivery of a body to an endpoint, safe against server-side request
//! forgery (`deliver`); and the Discord message a Discord endpoint gets instead of an event
//! (`discord`). It keeps no state between deliveries: when to retry, what to store and what to show
//! are the caller's.
//!
//! The modules form a ladder: `error`, `config` and `discord` (which uses nothing of the crate) at
//! the bottom, `address` and `signature` on them, `endpoint` over `address`, `deliver` on top.

mod address;
mod config;
mod deliver;
mod discord;
mod endpoint;
mod error;
mod signature;

pub use address::is_public;
pub use config::Config;
pub use deliver::{Client, MAX_ANSWER_BYTES, Outcome, USER_AGENT};
pub use discord::{
    DiscordMessage, MAX_CONTENT, MAX_DESCRIPTION, MAX_EMBED_TOTAL, MAX_FIELD_NAME, MAX_FIELD_VALUE,
    MAX_FIELDS, MAX_FOOTER, MAX_TITLE, discord_message,
};
pub use endpoint::{Endpoint, Kind};
pub use error::{EndpointProblem, Error, Result};
/// A certificate in DER, for [`Config::extra_roots`].
pub use rustls::pki_types::CertificateDer;
pub use signature::{ID_HEADER, SIGNATURE_HEADER, Secret, SignedHeaders, TIMESTAMP_HEADER, sign, verify};
