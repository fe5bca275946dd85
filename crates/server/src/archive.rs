//! The archive format of the dataset the binary carries (`bundled`): files, each a relative path
//! and its bytes, one after the other. The build script (`build.rs`, which includes this file)
//! packs it and compresses it with brotli; the server decompresses it and reads it here.
//!
//! The whole format, all integers little-endian:
//!
//! ```text
//! archive = MAGIC entry*
//! entry   = path-length:u32 path:[u8; path-length] size:u64 bytes:[u8; size]
//! ```
//!
//! `MAGIC` is `tapster-archive 1\n`. A path is UTF-8, its components separated by `/`, relative and
//! without `.` or `..` (`v0.7.0.0.1/localization/fr.json`): reading refuses any other, so that an
//! archive never names a file outside the folder it is unpacked into.

use std::io;
use std::path::{Component, Path};

/// The first bytes of every archive: what it is and the version of its format.
const MAGIC: &[u8] = b"tapster-archive 1\n";

/// One file of an archive, borrowed from the archive's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    /// Relative to the folder the archive is unpacked into; checked by [`unpack`].
    pub(crate) path: &'a Path,
    pub(crate) bytes: &'a [u8],
}

/// The archive of `entries`, in their order.
#[allow(dead_code, reason = "the build script packs; the server only unpacks (its tests pack)")]
pub(crate) fn pack<'a>(entries: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let mut archive = MAGIC.to_vec();
    for (path, bytes) in entries {
        let path_length = u32::try_from(path.len()).expect("an archive's path is shorter than 4 GiB");
        archive.extend_from_slice(&path_length.to_le_bytes());
        archive.extend_from_slice(path.as_bytes());
        archive.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        archive.extend_from_slice(bytes);
    }
    archive
}

/// The entries of `archive`, in its order; refuses an archive that is cut short or not one, and an
/// entry whose path is absolute or leaves the folder (`..`).
pub(crate) fn unpack(archive: &[u8]) -> io::Result<Vec<Entry<'_>>> {
    let mut rest = archive.strip_prefix(MAGIC).ok_or_else(|| invalid("it does not start as an archive"))?;
    let mut entries = Vec::new();
    while !rest.is_empty() {
        let path_length = u32::from_le_bytes(take(&mut rest, 4)?.try_into().expect("4 bytes"));
        let path = take(&mut rest, path_length as usize)?;
        let path = std::str::from_utf8(path).map_err(|_| invalid("a path is not UTF-8"))?;
        let size = u64::from_le_bytes(take(&mut rest, 8)?.try_into().expect("8 bytes"));
        let size = usize::try_from(size).map_err(|_| invalid("an entry is larger than memory"))?;
        let bytes = take(&mut rest, size)?;
        entries.push(Entry { path: relative(path)?, bytes });
    }
    Ok(entries)
}

/// `path` as a path below the folder an archive is unpacked into, or why it is not one.
fn relative(path: &str) -> io::Result<&Path> {
    let inside = !path.is_empty()
        && !path.contains('\\')
        && Path::new(path).components().all(|part| matches!(part, Component::Normal(_)));
    if inside {
        Ok(Path::new(path))
    } else {
        Err(invalid(&format!("the entry {path:?} is not a relative path inside the archive's folder")))
    }
}

/// The first `n` bytes of `rest`, which moves past them.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> io::Result<&'a [u8]> {
    if rest.len() < n {
        return Err(invalid("it is cut short"));
    }
    let (taken, left) = rest.split_at(n);
    *rest = left;
    Ok(taken)
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("a broken archive: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_reads_back_what_was_packed_in_its_order() {
        let files: [(&str, &[u8]); 4] = [
            ("v1/manifest.json", b"{\"version\": \"v1\"}"),
            ("v1/localization/fr.json", "{\"a\": \"\u{e9}t\u{e9}\"}".as_bytes()),
            ("v1/empty.json", b""),
            ("v2/items.json", &[0, 255, 10, 13]),
        ];
        let archive = pack(files);
        let read: Vec<(&str, &[u8])> = unpack(&archive)
            .unwrap()
            .into_iter()
            .map(|entry| (entry.path.to_str().unwrap(), entry.bytes))
            .collect();
        assert_eq!(read, files);
        assert_eq!(unpack(&pack([])).unwrap(), []);
    }

    #[test]
    fn a_path_that_could_leave_the_folder_is_refused() {
        for path in
            ["../escaped", "v1/../../escaped", "v1/..", "/etc/passwd", "./v1/items.json", "", "v1\\..\\x"]
        {
            let archive = pack([("v1/manifest.json", &b"{}"[..]), (path, b"x")]);
            let refused = unpack(&archive).unwrap_err();
            assert_eq!(refused.kind(), io::ErrorKind::InvalidData, "{path:?}");
            assert!(refused.to_string().contains(&format!("{path:?}")), "{path:?}: {refused}");
        }
    }

    #[test]
    fn an_archive_cut_short_or_of_something_else_is_refused() {
        let archive = pack([("v1/manifest.json", &b"{\"version\": \"v1\"}"[..])]);
        for end in [MAGIC.len() + 2, MAGIC.len() + 4 + 3, archive.len() - 1] {
            assert!(unpack(&archive[..end]).unwrap_err().to_string().contains("cut short"), "{end}");
        }
        assert!(unpack(b"PK\x03\x04").unwrap_err().to_string().contains("does not start as an archive"));
    }
}
