//! Money in the game's coinage: whole copper, and its display in gold, silver and copper.
//! Pure integer arithmetic: no floating point ever touches a price.

mod copper;
mod error;

pub use copper::Copper;
pub use error::{Error, Result};
