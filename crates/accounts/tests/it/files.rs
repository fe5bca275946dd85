//! The SQLite files hold accounts, so they are their owner's alone to read and write (mode `0600`),
//! whatever the umask: the database, its write-ahead log and index, and a backup of it. The
//! process's umask is left alone (the tests run in parallel threads); the modes are checked to be
//! exactly `0600`, which the usual umask (`022`) would have made `0644`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use tapster_accounts::{ACCOUNTS_DB, Accounts, Location};
use tempfile::TempDir;

use crate::{T0, signed_up};

/// The database of `dir` and the two files SQLite keeps beside it while it is open.
fn database_files(dir: &Path) -> [PathBuf; 3] {
    let db = dir.join(ACCOUNTS_DB);
    let beside = |suffix: &str| PathBuf::from(format!("{}{suffix}", db.display()));
    [beside(""), beside("-wal"), beside("-shm")]
}

fn mode(path: &Path) -> u32 {
    let metadata = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    metadata.permissions().mode() & 0o777
}

#[tokio::test]
async fn a_new_database_and_its_write_ahead_log_are_the_owners_alone() {
    let dir = TempDir::new().unwrap();
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    signed_up(&accounts, "marta@example.org", 1, T0).await;
    // While the store is open, SQLite keeps the log and its index beside the database.
    for file in database_files(dir.path()) {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

#[tokio::test]
async fn files_left_with_wider_modes_are_narrowed_when_the_store_opens() {
    let dir = TempDir::new().unwrap();
    let files = database_files(dir.path());
    // A database left by an earlier build, open in another process (so its log is there too).
    let earlier = Connection::open(&files[0]).unwrap();
    earlier.pragma_update(None, "journal_mode", "WAL").unwrap();
    earlier.execute_batch("CREATE TABLE left_behind (x); INSERT INTO left_behind VALUES (1);").unwrap();
    for file in &files {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }

    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    signed_up(&accounts, "marta@example.org", 1, T0).await;
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
    drop(earlier);
}

#[tokio::test]
async fn a_backup_is_the_owners_alone() {
    let dir = TempDir::new().unwrap();
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    signed_up(&accounts, "marta@example.org", 1, T0).await;
    let backups = TempDir::new().unwrap();
    let copy = accounts.backup(backups.path()).await.unwrap();
    assert_eq!(mode(&copy), 0o600);
    let conn = Connection::open(&copy).unwrap();
    let count: i64 = conn.query_row("SELECT count(*) FROM accounts", [], |row| row.get(0)).unwrap();
    assert_eq!(count, 1, "the copy holds the accounts");
    // Never over an existing file, and a refused backup leaves the one there as it was.
    assert!(matches!(accounts.backup(backups.path()).await, Err(tapster_accounts::Error::BackupExists(_))));
    assert_eq!(mode(&copy), 0o600);
}
