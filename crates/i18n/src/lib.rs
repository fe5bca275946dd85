//! The 27 languages the game ships in, how a caller names one, and how a missing translation falls
//! back to English. Pure: it knows nothing of where texts are stored or how answers are encoded.

mod error;
mod fallback;
mod language;

pub use error::{Error, Result};
pub use fallback::{Translated, translate};
pub use language::Language;
