//! A consistent copy of a data dir's game data, taken while a server may be serving from it: SQLite's
//! `VACUUM INTO` reads one transaction's view of the database into a new, compact file, which a
//! plain file copy does not guarantee. (The accounts database has its own, in `tapster-accounts`.)

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::{Error, GAME_DB, Result};

/// Writes `game.sqlite` of `data_dir` into the directory `dest`, created if needed; an existing file
/// there is never overwritten. Returns the file written. A data dir is restored by copying the
/// files of a backup into an empty one.
pub fn backup(data_dir: &Path, dest: &Path) -> Result<PathBuf> {
    let source = data_dir.join(GAME_DB);
    if !source.is_file() {
        return Err(Error::NoData(data_dir.to_owned()));
    }
    let target = dest.join(GAME_DB);
    if target.exists() {
        return Err(Error::Exists(target));
    }
    std::fs::create_dir_all(dest).map_err(Error::io(dest))?;
    let conn = Connection::open_with_flags(
        &source,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.execute("VACUUM INTO ?1", [target.to_string_lossy()])?;
    Ok(target)
}
