//! The bundled dataset (the three game versions of `fixtures/`), carried inside the binary as one
//! brotli-compressed archive (`archive`, packed by `build.rs`), and imported from there into a data
//! dir that holds no game data yet, unless `--fixtures` names another dataset: the binary never
//! reads the source checkout it was built from.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use tapster_store::ImportReport;

use crate::archive;

/// The bundled dataset: brotli of an archive of its version folders.
static ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bundled.br"));

/// Imports the dataset a data dir without game data starts from: the folder `fixtures` when it is
/// given, otherwise the bundled dataset.
pub(crate) fn import_first(data_dir: &Path, fixtures: Option<&Path>) -> anyhow::Result<()> {
    match fixtures {
        None => {
            tracing::info!("{} holds no game data yet: importing the bundled dataset", data_dir.display());
            import(data_dir).context("importing the bundled dataset")?;
        }
        // Named by the operator, so a folder that is not there is a mistake to point out, not a
        // reason to serve other data.
        Some(fixtures) if !fixtures.is_dir() => anyhow::bail!(
            "{} holds no game data yet, and there is no folder at {}, which --fixtures (or \
             TAPSTER_FIXTURES) names as the dataset to import first: point it at a folder of game \
             versions, leave it out to import the bundled dataset, or import one with `tapster \
             import DIR --data-dir {}`",
            data_dir.display(),
            fixtures.display(),
            data_dir.display()
        ),
        Some(fixtures) => {
            tracing::info!("{} holds no game data yet: importing {}", data_dir.display(), fixtures.display());
            crate::game_data::import_with_exports(data_dir, fixtures)
                .with_context(|| format!("importing the dataset {}", fixtures.display()))?;
        }
    }
    Ok(())
}

/// Imports the bundled dataset into `data_dir` with its bulk exports, atomically, as
/// [`import_with_exports`](crate::import_with_exports) imports a folder.
fn import(data_dir: &Path) -> anyhow::Result<ImportReport> {
    import_archive(data_dir, ARCHIVE)
}

/// Imports the dataset `compressed` holds (brotli of an archive) into `data_dir`: unpacked into a
/// folder of its own inside `data_dir`, which is removed after, whether the import succeeded or not.
fn import_archive(data_dir: &Path, compressed: &[u8]) -> anyhow::Result<ImportReport> {
    let archive = decompress(compressed).context("decompressing the bundled dataset")?;
    let entries = archive::unpack(&archive).context("reading the bundled dataset")?;
    let unpacked = Unpacked::new(data_dir)?;
    for entry in entries {
        let path = unpacked.0.join(entry.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, entry.bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    drop(archive);
    Ok(crate::game_data::import_with_exports(data_dir, &unpacked.0)?)
}

fn decompress(compressed: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut archive = Vec::new();
    brotli_decompressor::Decompressor::new(compressed, 1 << 16).read_to_end(&mut archive)?;
    Ok(archive)
}

/// A folder in the data dir that the bundled dataset is unpacked into, removed when dropped.
#[derive(Debug)]
struct Unpacked(PathBuf);

impl Unpacked {
    fn new(data_dir: &Path) -> anyhow::Result<Self> {
        let folder = data_dir.join(format!(".bundled-{}", std::process::id()));
        // A process killed while it imported, which had the same pid, may have left its folder behind.
        let _ = fs::remove_dir_all(&folder);
        fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
        Ok(Self(folder))
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.0) {
            tracing::warn!(folder = %self.0.display(), error = %e, "could not remove the unpacked bundled dataset");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn the_bundled_dataset_is_the_version_folders_of_the_fixtures_file_for_file() {
        let archive = decompress(ARCHIVE).unwrap();
        let entries = archive::unpack(&archive).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut files = Vec::new();
        for version in ["v0.6.4.2.1", "v0.6.5.0.3", "v0.7.0.0.1"] {
            files_under(&fixtures, Path::new(version), &mut files);
        }
        let packed: Vec<&Path> = entries.iter().map(|e| e.path).collect();
        assert_eq!(packed, files);
        for entry in &entries {
            assert!(fs::read(fixtures.join(entry.path)).unwrap() == entry.bytes, "{}", entry.path.display());
        }
    }

    /// The files under `root.join(folder)`, relative to `root`, in name order.
    fn files_under(root: &Path, folder: &Path, files: &mut Vec<PathBuf>) {
        let mut names: Vec<_> =
            fs::read_dir(root.join(folder)).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        for name in names {
            let path = folder.join(name);
            if root.join(&path).is_dir() {
                files_under(root, &path, files);
            } else {
                files.push(path);
            }
        }
    }

    fn compressed(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut compressed = Vec::new();
        let mut writer = brotli::CompressorWriter::new(&mut compressed, 4096, 5, 20);
        writer.write_all(&archive::pack(files.iter().copied())).unwrap();
        drop(writer);
        compressed
    }

    /// The names of what `data_dir` holds.
    fn left_in(data_dir: &Path) -> Vec<String> {
        fs::read_dir(data_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_refused_import_leaves_nothing_unpacked_behind() {
        let data_dir = tempfile::TempDir::new().unwrap();
        let broken = compressed(&[("v1/manifest.json", b"not json"), ("v1/items.json", b"[]")]);
        let refused = import_archive(data_dir.path(), &broken).unwrap_err();
        assert!(format!("{refused:#}").contains("manifest.json"), "{refused:#}");
        assert!(
            !left_in(data_dir.path()).iter().any(|name| name.starts_with(".bundled")),
            "{:?}",
            left_in(data_dir.path())
        );
        assert!(!data_dir.path().join("game.sqlite").exists());
    }

    #[test]
    fn an_entry_outside_its_folder_is_refused_before_anything_is_written() {
        let data_dir = tempfile::TempDir::new().unwrap();
        for path in ["../escaped.json", "/tmp/escaped.json"] {
            let hostile = compressed(&[("v1/manifest.json", b"{}"), (path, b"{}")]);
            let refused = import_archive(data_dir.path(), &hostile).unwrap_err();
            assert!(format!("{refused:#}").contains("not a relative path"), "{refused:#}");
            assert_eq!(left_in(data_dir.path()), Vec::<String>::new());
        }
        assert!(!data_dir.path().parent().unwrap().join("escaped.json").exists());
    }

    #[test]
    fn what_is_not_brotli_is_refused() {
        let data_dir = tempfile::TempDir::new().unwrap();
        let refused = import_archive(data_dir.path(), b"{\"not\": \"brotli\"}").unwrap_err();
        assert!(format!("{refused:#}").contains("decompressing the bundled dataset"), "{refused:#}");
    }
}
