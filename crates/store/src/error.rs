//! What can go wrong reading game data from disk, importing it, or serving from the store.

use std::path::PathBuf;

use tapster_domain::Problem;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of a dataset is missing, unreadable, not JSON, or not of the data format.
    #[error("{}: {message}", path.display())]
    Source { path: PathBuf, message: String },
    /// A game version breaks the rules of the data format; `problems` lists the first ones found.
    #[error("{} is not a valid game version ({} problem{}):\n{}",
        path.display(), problems.len(), if problems.len() == 1 { "" } else { "s" },
        problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid { path: PathBuf, problems: Vec<Problem> },
    /// The versions to import disagree with each other or with those already imported.
    #[error("{0}")]
    Conflict(String),
    /// A backup would overwrite this file.
    #[error("{} exists already; back up into a new directory", .0.display())]
    Exists(PathBuf),
    #[error("no game data has been imported into {}", .0.display())]
    NoData(PathBuf),
    #[error("{} was written by another generation of Tapster (schema {found}, this build reads {expected}); import the game data again into a new data dir", path.display())]
    Schema { path: PathBuf, found: i64, expected: i64 },
    /// SQLite found the database file damaged (say, copied only in part).
    #[error("{} is damaged: {detail}", path.display())]
    Damaged { path: PathBuf, detail: String },
    /// A stored record body could not be written or read back as JSON.
    #[error("game-data record encoding: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("game-data database: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}
