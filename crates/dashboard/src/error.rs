//! What can stop the dashboard from starting. What goes wrong while it answers is a page
//! ([`crate::page::Failure`]), not an error of this crate's callers.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A setting that cannot work (a malformed URL, an unknown SMTP scheme); the message names it.
    #[error("{0}")]
    Config(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
