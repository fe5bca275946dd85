//! The game-data store: game versions in the data-format of `docs/data-format.md` are checked and
//! imported atomically into one SQLite file, which the server then reads through a pool of
//! read-only connections.
//!
//! The store knows SQL and the data format; it knows nothing of HTTP or of the wire format.

mod diff;
mod error;
mod import;
mod read;
mod schema;
mod source;

pub use error::{Error, Result};
pub use import::{ImportReport, ImportedVersion, Outcome, import};
pub use read::{ChangeSummary, LanguageInfo, Store, VersionInfo};
pub use source::{SourceVersion, read_dataset};

/// File name of the game-data database inside the data dir.
pub const GAME_DB: &str = "game.sqlite";
