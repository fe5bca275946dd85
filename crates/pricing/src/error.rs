//! Why a written amount of money could not be read, or a price could not be made.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("expected `<s>s <c>c` or `<g>g <s>s <c>c`, with silver and copper parts below 100")]
    Malformed,
    #[error("the amount does not fit in 64 bits of copper")]
    Overflow,
    /// Aging was asked for an item that cannot be aged.
    #[error("item {item} cannot be aged")]
    CannotAge { item: i64 },
    #[error("there is no item {item} in the price book")]
    UnknownItem { item: i64 },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
