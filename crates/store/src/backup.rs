//! Consistent copies of a data dir's two databases, taken while a server may be serving from it
//! and admin commands writing to it: SQLite's `VACUUM INTO` reads one transaction's view of each
//! database into a new, compact file, which a plain file copy of a WAL database does not guarantee.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::{ACCOUNTS_DB, Error, GAME_DB, Result};

/// Writes `accounts.sqlite` (and `game.sqlite`, when the data dir has game data) of `data_dir` into
/// the directory `dest`, created if needed; existing files there are never overwritten. Returns the
/// files written. A data dir restored from them is used by copying them into an empty data dir.
pub fn backup(data_dir: &Path, dest: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dest).map_err(Error::io(dest))?;
    let mut written = Vec::new();
    for name in [ACCOUNTS_DB, GAME_DB] {
        let target = dest.join(name);
        if target.exists() {
            return Err(Error::Admin(format!(
                "{} exists already; back up into a new directory",
                target.display()
            )));
        }
        let source = data_dir.join(name);
        if !source.is_file() {
            continue;
        }
        // The accounts database is in WAL mode, which a reader may need to open its shared-memory
        // index for; the game database is only ever read.
        let flags = if name == ACCOUNTS_DB {
            OpenFlags::SQLITE_OPEN_READ_WRITE
        } else {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        };
        let conn = Connection::open_with_flags(&source, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute("VACUUM INTO ?1", [target.to_string_lossy()])?;
        written.push(target);
    }
    if written.is_empty() {
        return Err(Error::NoData(data_dir.to_owned()));
    }
    Ok(written)
}
