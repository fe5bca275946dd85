//! Why a language code was refused.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("must be at most {max} characters long")]
    TooLong { max: usize },
    #[error("must match the pattern {pattern}")]
    Pattern { pattern: &'static str },
    /// Well-formed, but not a language the game ships; `suggestion` is the game's code for the same
    /// language (the same primary subtag), when it has one.
    #[error("is not one of the game's languages{}", suggestion.map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    Unknown { suggestion: Option<&'static str> },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
