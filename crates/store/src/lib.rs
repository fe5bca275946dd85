//! The game-data store: game versions in the data format of `docs/data-format.md`, checked and
//! imported atomically into one SQLite file, read once into memory for serving.
//!
//! The store knows SQL and the data format; it knows nothing of HTTP or of the wire format.

mod backup;
mod catalog;
mod diff;
mod error;
mod exports;
mod import;
mod names;
mod picture;
mod pictures;
mod query;
mod read;
mod schema;
mod source;

pub use backup::backup;
pub use catalog::{Catalog, Change, ChangeSummary, LanguageInfo, VersionInfo, Vocabulary};
pub use error::{Error, Result};
pub use exports::{ExportFile, ExportInfo};
pub use import::{
    Exporter, ImportReport, ImportedVersion, Outcome, import, import_with_exports, install, served_sha256,
};
pub use picture::{MAX_PICTURE_BYTES, MAX_PICTURE_SIDE};
pub use pictures::{
    DEFAULT_PICTURE_SIDE, PICTURE_SIDES, Picture, PictureFormat, PictureVariant, picture_file_name,
};
pub use query::{
    ChangeFilter, ChangesPage, CropFilter, CropOrder, FishFilter, Found, ItemFilter, ItemOrder, ItemSources,
    ItemUse, ItemUsePage, MatchTier, Page, ProgressionSet, Ranking, RankingQuery, RecipeFilter, RecipeOrder,
    RecordLabel, SearchHit, ServingPrices, Sort, TREE_MAX_DEPTH, TREE_MAX_NODES, TreeEntry, TreeGroup,
    TreeItem, UseVia, Window,
};
pub use read::{FileStamp, Store};
pub use source::{SourceVersion, read_dataset};

/// File name of the game-data database inside the data dir.
pub const GAME_DB: &str = "game.sqlite";
