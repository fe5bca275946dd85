//! Search over game-data names: the folding that makes a query match a name whatever its case, accents,
//! character width or kana script.
//!
//! A pure crate: no IO, no clock, no environment.

mod fold;

pub use crate::fold::fold;
