//! Why a written amount of money could not be read.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("expected `<s>s <c>c` or `<g>g <s>s <c>c`, with silver and copper parts below 100")]
    Malformed,
    #[error("the amount does not fit in 64 bits of copper")]
    Overflow,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
