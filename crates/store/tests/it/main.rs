//! Integration tests of the store against real SQLite files in temporary data dirs.

mod broken;
mod bundled;
mod exports;
mod extraction;
mod import;
mod install;
mod memory;
mod pictures;
mod reopen;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// The root of the source checkout.
pub(crate) fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs a Python script of `fixtures/generator/` (standard library only) and gives what it did.
/// Fails loudly when `python3` is missing: every machine of this project has CPython 3.11.
pub(crate) fn python_output(args: &[&OsStr]) -> Output {
    Command::new("python3")
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed to run the fixture scripts, and could not start: {e}"))
}

/// Runs a fixture script that must succeed, with its output in the failure message.
pub(crate) fn python(args: &[&OsStr]) -> Output {
    let output = python_output(args);
    assert!(
        output.status.success(),
        "{args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
