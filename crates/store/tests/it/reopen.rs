//! What a running server relies on to pick up new data: the file stamp changes exactly when an
//! import puts a new database in place, and a verified open refuses a damaged or half-copied file.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};

use tapster_store::{Error, FileStamp, GAME_DB, Store, import};
use tempfile::TempDir;

use crate::{copy_tree, mini};

#[test]
fn the_stamp_changes_when_an_import_changes_the_data_and_only_then() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini().join("v1.0.0.0.1")).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.stamp(), FileStamp::of_data_dir(dir.path()).unwrap());

    // Importing what is already there leaves the served file alone.
    import(dir.path(), &mini().join("v1.0.0.0.1")).unwrap();
    assert_eq!(FileStamp::of_data_dir(dir.path()).unwrap(), store.stamp());

    import(dir.path(), &mini().join("v1.0.1.0.0")).unwrap();
    let stamp = FileStamp::of_data_dir(dir.path()).unwrap();
    assert_ne!(stamp, store.stamp());
    let reopened = Store::open_verified(dir.path()).unwrap();
    assert_eq!(reopened.stamp(), stamp);
    assert_eq!(reopened.latest().info.name.as_str(), "v1.0.1.0.0");
}

#[test]
fn a_half_copied_database_is_refused() {
    let source = TempDir::new().unwrap();
    import(source.path(), &mini()).unwrap();
    let whole = std::fs::read(source.path().join(GAME_DB)).unwrap();

    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join(GAME_DB), &whole[..whole.len() / 2]).unwrap();
    assert!(Store::open_verified(dir.path()).is_err(), "half a database must not open");
}

#[test]
fn a_database_damaged_in_the_middle_is_refused_by_the_verified_open() {
    let dir = TempDir::new().unwrap();
    copy_tree(&mini(), &dir.path().join("dataset"));
    import(dir.path(), &dir.path().join("dataset")).unwrap();
    let path = dir.path().join(GAME_DB);
    let len = std::fs::metadata(&path).unwrap().len();
    // Scribble over the pages past the first few (the schema stays readable, the tables do not).
    let mut file = OpenOptions::new().write(true).open(&path).unwrap();
    let page = 4096;
    for offset in (3 * page..len).step_by(page as usize * 2) {
        file.seek(SeekFrom::Start(offset)).unwrap();
        file.write_all(&[0xA5; 512]).unwrap();
    }
    drop(file);
    match Store::open_verified(dir.path()) {
        Err(Error::Damaged { detail, .. }) => assert!(!detail.is_empty()),
        Err(Error::Sqlite(_)) => {}
        other => panic!("a damaged database opened: {other:?}"),
    }
}
