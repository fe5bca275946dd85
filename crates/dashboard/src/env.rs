//! The clock and the source of randomness, given by the binary: this crate reads neither itself, so
//! its tests can move time on (to expire a link) and run without the OS.

use std::fmt::Debug;

use tapster_accounts::Token;
use tapster_domain::{ApiKey, Timestamp};

pub trait Environment: Send + Sync + Debug + 'static {
    /// The wall clock, to the second.
    fn now(&self) -> Timestamp;

    /// Fills `bytes` from a cryptographically secure source.
    fn fill_random(&self, bytes: &mut [u8]) -> std::io::Result<()>;
}

/// Secrets drawn from an [`Environment`].
pub(crate) trait Secrets {
    fn token(&self) -> std::io::Result<Token>;
    fn api_key(&self) -> std::io::Result<ApiKey>;
}

impl<E: Environment + ?Sized> Secrets for E {
    fn token(&self) -> std::io::Result<Token> {
        let mut bytes = [0; Token::BYTES];
        self.fill_random(&mut bytes)?;
        Ok(Token::from_random(bytes))
    }

    fn api_key(&self) -> std::io::Result<ApiKey> {
        ApiKey::generate_with(|bytes| self.fill_random(bytes))
    }
}
