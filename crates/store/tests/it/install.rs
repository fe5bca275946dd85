//! A whole database made by an import elsewhere (a published generation) installed in place of the
//! served one: served at once, its SHA-256 the one the other data dir serves; a damaged or foreign
//! file refused with the served data untouched.

use tapster_store::{Error, GAME_DB, Store, import, install, served_sha256};
use tempfile::TempDir;

use crate::mini;

/// A data dir with `dataset` imported.
fn imported(dataset: &std::path::Path) -> TempDir {
    let dir = TempDir::new().unwrap();
    import(dir.path(), dataset).unwrap();
    dir
}

#[test]
fn a_database_made_elsewhere_is_installed_whole_and_known_by_its_sha256() {
    let elsewhere = imported(&mini());
    let here = imported(&mini().join("v1.0.0.0.1"));
    let made = std::fs::read(elsewhere.path().join(GAME_DB)).unwrap();
    assert_ne!(served_sha256(here.path()).unwrap(), served_sha256(elsewhere.path()).unwrap());

    // A copy a crashed install of another process left behind is removed by the next one.
    let left = here.path().join(format!(".{GAME_DB}.import-4194304"));
    std::fs::write(&left, b"half a database").unwrap();
    install(here.path(), &made).unwrap();
    assert!(!left.exists(), "{} was left behind", left.display());
    assert_eq!(served_sha256(here.path()).unwrap(), served_sha256(elsewhere.path()).unwrap());
    assert_eq!(Store::open(here.path()).unwrap().latest().info.name.to_string(), "v1.0.1.0.0");
    // Into an empty data dir too, which then serves it.
    let empty = TempDir::new().unwrap();
    assert_eq!(served_sha256(empty.path()).unwrap(), None);
    install(empty.path(), &made).unwrap();
    assert_eq!(Store::open(empty.path()).unwrap().versions().len(), 2);
}

#[test]
fn a_database_cut_short_or_not_one_is_refused_and_the_served_one_stays() {
    let here = imported(&mini().join("v1.0.0.0.1"));
    let served = std::fs::read(here.path().join(GAME_DB)).unwrap();
    let elsewhere = imported(&mini());
    let made = std::fs::read(elsewhere.path().join(GAME_DB)).unwrap();
    // (A byte altered inside a page may pass SQLite's structural check: what is installed is held
    // to its published SHA-256 before it gets here.)
    for (what, bytes) in [("cut short", &made[..made.len() / 3]), ("not SQLite", b"hello".as_slice())] {
        assert!(install(here.path(), bytes).is_err(), "{what} was installed");
        assert_eq!(std::fs::read(here.path().join(GAME_DB)).unwrap(), served, "{what}");
    }
    // No staging copy is left behind.
    let left: Vec<_> = std::fs::read_dir(here.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|name| !name.to_string_lossy().contains(".import-")), "{left:?}");
    assert!(matches!(
        install(here.path(), b"hello"),
        Err(Error::Sqlite(_) | Error::Damaged { .. } | Error::Schema { .. } | Error::NoData(_))
    ));
}
