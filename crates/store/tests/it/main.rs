//! Integration tests of the store against real SQLite files in temporary data dirs.

mod broken;
mod bundled;
mod import;
mod memory;
mod reopen;

use std::path::{Path, PathBuf};

/// The small hand-written dataset: two versions of a dozen items, every record type present.
pub(crate) fn mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mini")
}

/// Copies a folder tree, so that a test can break a dataset without touching the checked-in one.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
