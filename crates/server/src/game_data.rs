//! The game data on disk as the commands handle it: imported with the bulk exports the HTTP
//! interface builds from it (`tapster import`, and `serve` on an empty data dir), and those exports
//! written out to a directory for mirroring (`tapster export`).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use tapster_store::{ImportReport, Store};

/// Imports `dataset` into `data_dir` with its bulk exports, atomically.
pub fn import_with_exports(data_dir: &Path, dataset: &Path) -> tapster_store::Result<ImportReport> {
    tapster_store::import_with_exports(data_dir, dataset, tapster_http::exports::exporter())
}

/// Writes every export kept in `data_dir` into `dest` (created if need be), under the names a
/// download takes, and a `SHA256SUMS` that `sha256sum -c` checks them with; returns the files
/// written. Each file is written beside its place and renamed into it, so that a mirror serving
/// `dest` never serves half a file; files of other names in `dest` are left alone.
pub fn export(data_dir: &Path, dest: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let store =
        Store::open(data_dir).with_context(|| format!("opening the game data in {}", data_dir.display()))?;
    anyhow::ensure!(
        !store.exports().is_empty(),
        "{} keeps no exports: its data was imported without them; import it again with `tapster import`",
        data_dir.display()
    );
    fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?;
    let mut written = Vec::new();
    let mut sums = String::new();
    for export in store.exports() {
        let name = export.file_name();
        let body = store
            .export_body(&export.version, export.lang)?
            .with_context(|| format!("reading the export of {} in {}", export.version, export.lang.code()))?;
        written.push(replace(&dest.join(&name), &body)?);
        sums.push_str(&format!("{}  {name}\n", export.sha256_hex()));
    }
    written.push(replace(&dest.join("SHA256SUMS"), sums.as_bytes())?);
    Ok(written)
}

/// Puts `bytes` at `path` in one rename, durably.
fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<PathBuf> {
    let file_name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let partial = path.with_file_name(format!(".{file_name}.partial"));
    let mut file = File::create(&partial).with_context(|| format!("writing {}", partial.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", partial.display()))?;
    fs::rename(&partial, path)
        .with_context(|| format!("renaming {} to {}", partial.display(), path.display()))?;
    Ok(path.to_owned())
}
