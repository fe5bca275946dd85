//! Secrets handed to browsers (session ids, one-time sign-in links) and the hashes stored in their
//! place. A token is 256 random bits written as 64 lower-case hex digits; the randomness comes from
//! the caller, so that this crate reads no source of it.

use std::fmt;

use sha2::{Digest, Sha256};
use tapster_domain::ApiKey;

/// A random secret: only its SHA-256 is ever stored, so a copy of the database opens nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub const BYTES: usize = 32;
    pub const LEN: usize = Self::BYTES * 2;

    pub fn from_random(bytes: [u8; Self::BYTES]) -> Self {
        Self(tapster_domain::hex(&bytes))
    }

    /// A token as a browser sent it back: exactly 64 lower-case hex digits, or nothing.
    pub fn parse(value: &str) -> Option<Self> {
        tapster_domain::sha256_from_hex(value).map(|_| Self(value.to_owned()))
    }

    /// The secret itself, to put in a cookie or a link. Never logged, never stored.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn hash(&self) -> TokenHash {
        TokenHash(Sha256::digest(self.0.as_bytes()).into())
    }
}

/// Never prints the secret, so a token cannot leak through a debug log.
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(…)")
    }
}

/// The SHA-256 of a [`Token`]: what the database keeps and looks up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenHash(pub(crate) [u8; 32]);

impl TokenHash {
    /// The hash as 64 lower-case hex digits.
    pub fn to_hex(&self) -> String {
        tapster_domain::hex(&self.0)
    }

    /// A hash as [`to_hex`](Self::to_hex) writes it, or nothing.
    pub fn from_hex(text: &str) -> Option<Self> {
        tapster_domain::sha256_from_hex(text).map(Self)
    }
}

/// The SHA-256 of an API key: what is stored and looked up instead of the key.
pub type KeyHash = [u8; 32];

/// The [`KeyHash`] of `key`.
pub fn hash_key(key: &ApiKey) -> KeyHash {
    Sha256::digest(key.expose().as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_refuse_anything_else() {
        let token = Token::from_random([0xab; 32]);
        assert_eq!(token.expose(), "ab".repeat(32));
        assert_eq!(Token::parse(token.expose()), Some(token.clone()));
        assert_eq!(format!("{token:?}"), "Token(…)");
        for bad in ["", &"AB".repeat(32), &"ab".repeat(31), &"ab".repeat(33), &"zz".repeat(32)] {
            assert_eq!(Token::parse(bad), None, "{bad:?}");
        }
        assert_ne!(Token::from_random([1; 32]).hash(), token.hash());
        let hash = token.hash();
        assert_eq!(TokenHash::from_hex(&hash.to_hex()), Some(hash));
        assert_eq!(TokenHash::from_hex(&"AB".repeat(32)), None);
        assert_eq!(TokenHash::from_hex("ab"), None);
    }
}
