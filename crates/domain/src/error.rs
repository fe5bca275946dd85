//! Why a value is not a valid identifier, version or date of the game-data model.

/// A value refused by one of the model's parsers. Each variant says which rule it broke, in words a
/// caller can show to whoever typed the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {max} characters long")]
    TooLong { max: usize },
    #[error("must match the pattern {pattern}")]
    Pattern { pattern: &'static str },
    #[error("is out of range: {reason}")]
    OutOfRange { reason: &'static str },
    #[error("fails its checksum: a character was mistyped or lost")]
    Checksum,
    #[error("must be one of {allowed}")]
    UnknownVariant { allowed: &'static str },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
