//! Delivering webhooks: what the server's outbox will hand an event to. Signatures in the Standard
//! Webhooks form (`signature`), the judging of IP addresses (`address`) and the endpoint URL a
//! person types (`endpoint`).
//!
//! The modules form a ladder: `error` and `config` at the bottom, `address` and `signature` on them,
//! `endpoint` over `address`.

mod address;
mod config;
mod endpoint;
mod error;
mod signature;

pub use address::is_public;
pub use config::Config;
pub use endpoint::{Endpoint, Kind};
pub use error::{EndpointProblem, Error, Result};
/// A certificate in DER, for [`Config::extra_roots`].
pub use rustls::pki_types::CertificateDer;
pub use signature::{ID_HEADER, SIGNATURE_HEADER, Secret, SignedHeaders, TIMESTAMP_HEADER, sign, verify};
