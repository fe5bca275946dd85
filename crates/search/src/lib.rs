//! Search over game-data names: the folding that makes a query match a name whatever its case, accents,
//! character width or kana script, the typos a query word may have, the stop words a name may hold, and
//! the index that finds and ranks the names a query matches.
//!
//! A pure crate: no IO, no clock, no environment.

mod fold;
mod index;
mod stop;
mod typo;

pub use crate::fold::fold;
pub use crate::index::{Hit, Index, IndexBuilder, Tier};
pub use crate::stop::stop_words;
pub use crate::typo::{MIN_TYPO_WORD_CHARS, TWO_TYPOS_FROM_CHARS};
