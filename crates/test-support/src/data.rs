//! The bundled datasets and temporary data dirs with one imported, as the tests of the API and the
//! server start from: where `fixtures/` and `fixtures/mini/` are, and a [`DataDir`] that holds its
//! temporary directory for as long as it is kept.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The bundled invented dataset (`fixtures/`: three game versions, 27 languages).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The small hand-written dataset whose exact values the tests check (`fixtures/mini/`).
pub fn mini() -> PathBuf {
    fixtures().join("mini")
}

/// A data dir in a fresh temporary directory, removed when this is dropped (a `static` one lives
/// until the process ends).
#[derive(Debug)]
pub struct DataDir(TempDir);

impl DataDir {
    /// A data dir with nothing imported yet.
    pub fn empty() -> Self {
        Self(TempDir::new().expect("a temporary data dir"))
    }

    /// A data dir with `dataset` (one version folder, or a folder of them) imported.
    pub fn with(dataset: &Path) -> Self {
        let data_dir = Self::empty();
        data_dir.import(dataset);
        data_dir
    }

    /// A data dir with `dataset` imported and the exports `exporter` builds kept with it, as the
    /// server imports (the exports are the wire format's, which this crate does not know).
    pub fn with_exports(dataset: &Path, exporter: tapster_store::Exporter<'_>) -> Self {
        let data_dir = Self::empty();
        tapster_store::import_with_exports(data_dir.path(), dataset, exporter)
            .unwrap_or_else(|e| panic!("importing {}: {e}", dataset.display()));
        data_dir
    }

    /// A data dir with [`mini`] imported.
    pub fn mini() -> Self {
        Self::with(&mini())
    }

    /// A data dir with the bundled dataset ([`fixtures`]) imported.
    pub fn bundled() -> Self {
        Self::with(&fixtures())
    }

    /// Imports `dataset` beside what the data dir holds already.
    pub fn import(&self, dataset: &Path) {
        tapster_store::import(self.path(), dataset)
            .unwrap_or_else(|e| panic!("importing {}: {e}", dataset.display()));
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Copies a folder tree, so that a test can break a dataset without touching the checked-in one.
/// (The store's own tests, below this crate, keep a copy of their own.)
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("creating a folder of the copy");
    for entry in std::fs::read_dir(from).expect("reading a folder to copy") {
        let entry = entry.expect("an entry of a folder to copy");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("an entry's type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copying a file");
        }
    }
}
