//! Packs the bundled dataset (the game version folders of `fixtures/`) into the archive the binary
//! carries (`src/bundled.rs`), in the format of `src/archive.rs`, compressed with brotli, so that a
//! copied or installed binary serves it without the sources it was built from.

#![allow(clippy::print_stdout, reason = "a build script speaks to Cargo on stdout")]

#[allow(dead_code, unreachable_pub, reason = "the build script only packs")]
#[path = "src/archive.rs"]
mod archive;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version folders of `fixtures/` that make the bundled dataset. A version generated later is
/// bundled once it is named here (`fixtures/mini`, the generator and the raw dump are not data to serve).
const VERSIONS: [&str; 3] = ["v0.6.4.2.1", "v0.6.5.0.3", "v0.7.0.0.1"];

/// Brotli's quality and window (log2 of its bytes): the versions repeat each other, and a 16 MiB
/// window reaches from a file of one version back to the same file of the one before, which is
/// most of what makes the archive small (`docs/ARCHITECTURE.md`, "Dependencies and why").
const QUALITY: u32 = 9;
const WINDOW: u32 = 24;

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("Cargo sets CARGO_MANIFEST_DIR"));
    let fixtures = manifest_dir.join("../../fixtures");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/archive.rs");
    let mut files = Vec::new();
    for version in VERSIONS {
        let folder = fixtures.join(version);
        assert!(
            folder.join("manifest.json").is_file(),
            "{} is no game version folder (no manifest.json)",
            folder.display()
        );
        // A folder is watched whole: any file added, changed or removed under it.
        println!("cargo:rerun-if-changed={}", folder.display());
        collect(&folder, version, &mut files);
    }
    let archive = archive::pack(files.iter().map(|(path, bytes)| (path.as_str(), bytes.as_slice())));
    let mut compressed = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut compressed, 1 << 16, QUALITY, WINDOW);
        writer.write_all(&archive).expect("compressing into memory");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("Cargo sets OUT_DIR")).join("bundled.br");
    fs::write(&out, compressed).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// Every file under `folder` as (its path relative to the fixtures, `/`-separated, under `name`, its
/// bytes), in name order, so that the archive is the same on every machine.
fn collect(folder: &Path, name: &str, files: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<fs::DirEntry> =
        read(folder, fs::read_dir(folder)).map(|entry| read(folder, entry)).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let file_name = entry.file_name();
        let file_name = file_name.to_str().unwrap_or_else(|| panic!("{} is not UTF-8", path.display()));
        let relative = format!("{name}/{file_name}");
        if read(&path, entry.file_type()).is_dir() {
            collect(&path, &relative, files);
        } else {
            files.push((relative, read(&path, fs::read(&path))));
        }
    }
}

/// What reading `path` gave; a build that cannot read its data stops, saying where.
fn read<T>(path: &Path, result: std::io::Result<T>) -> T {
    result.unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}
