//! The bulk exports the store keeps for its importer's caller: built from the data an import is about
//! to publish, replaced with it in the same rename, dropped when the data changes without them, read
//! back from the file a store was opened from, and added to a database of the layout before them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::Connection;
use sha2::{Digest, Sha256};
use tapster_domain::GameVersion;
use tapster_i18n::Language;
use tapster_store::{ExportFile, Exporter, GAME_DB, Store, import, import_with_exports};
use tempfile::TempDir;

use crate::mini;

/// An exporter whose files say what they were built from (`<tag> <version> <lang> <items>`), counting
/// how often it is asked.
struct Recorder {
    calls: Arc<AtomicUsize>,
    build: Box<Build>,
}

/// What an exporter runs.
type Build = dyn Fn(&Store) -> Vec<ExportFile>;

impl Recorder {
    fn new(tag: &'static str) -> Self {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let build = move |store: &Store| {
            counted.fetch_add(1, Ordering::SeqCst);
            let files = store.versions().flat_map(|catalog| {
                let (name, items) = (&catalog.info.name, catalog.data.items.len());
                catalog.info.languages.iter().map(move |&lang| ExportFile {
                    version: name.clone(),
                    lang,
                    records: items as u64,
                    body: format!("{tag} {name} {} {items}", lang.code()).into_bytes(),
                })
            });
            files.collect()
        };
        Self { calls, build: Box::new(build) }
    }

    /// The exporter of this recorder, of edition `one`.
    fn exporter(&self) -> Exporter<'_> {
        self.of_edition("one")
    }

    fn of_edition<'a>(&'a self, edition: &'a str) -> Exporter<'a> {
        Exporter { edition, build: &*self.build }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn version(name: &str) -> GameVersion {
    GameVersion::parse(name).unwrap()
}

fn body(store: &Store, name: &str, lang: Language) -> String {
    String::from_utf8(store.export_body(&version(name), lang).unwrap().unwrap()).unwrap()
}

#[test]
fn exports_are_built_from_every_version_and_kept_with_their_checksums() {
    let dir = TempDir::new().unwrap();
    let first = Recorder::new("first");
    import_with_exports(dir.path(), &mini().join("v1.0.0.0.1"), first.exporter()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let listed: Vec<(&str, Language)> =
        store.exports().iter().map(|e| (e.version.as_str(), e.lang)).collect();
    assert_eq!(
        listed,
        [
            ("v1.0.0.0.1", Language::English),
            ("v1.0.0.0.1", Language::German),
            ("v1.0.0.0.1", Language::Japanese)
        ]
    );
    let german = &store.exports()[1];
    let bytes = body(&store, "v1.0.0.0.1", Language::German);
    assert_eq!(bytes, "first v1.0.0.0.1 de 12");
    assert_eq!(german.size, bytes.len() as u64);
    assert_eq!(german.sha256, <[u8; 32]>::from(Sha256::digest(bytes.as_bytes())));
    assert_eq!(german.records, 12);

    // A new version: the exports of every version are built again, from the data as it now is.
    let second = Recorder::new("second");
    import_with_exports(dir.path(), &mini().join("v1.0.1.0.0"), second.exporter()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.exports().len(), 6);
    assert_eq!(store.exports()[0].version.as_str(), "v1.0.1.0.0", "newest first");
    assert_eq!(body(&store, "v1.0.0.0.1", Language::English), "second v1.0.0.0.1 en 12");
    assert_eq!(body(&store, "v1.0.1.0.0", Language::Japanese), "second v1.0.1.0.0 ja 12");
    assert_eq!(store.export_body(&version("v9.9.9.9.9"), Language::English).unwrap(), None);

    // The same data again: nothing is written, and the exports built for it stay.
    let again = Recorder::new("again");
    import_with_exports(dir.path(), &mini(), again.exporter()).unwrap();
    assert_eq!(again.calls(), 0);
    assert_eq!(
        body(&Store::open(dir.path()).unwrap(), "v1.0.1.0.0", Language::Japanese),
        "second v1.0.1.0.0 ja 12"
    );
    // Another edition of the exporter (the answers' shapes changed): the same data, new exports.
    let reshaped = Recorder::new("reshaped");
    import_with_exports(dir.path(), &mini(), reshaped.of_edition("two")).unwrap();
    assert_eq!(reshaped.calls(), 1);
    assert_eq!(
        body(&Store::open(dir.path()).unwrap(), "v1.0.1.0.0", Language::Japanese),
        "reshaped v1.0.1.0.0 ja 12"
    );
    import_with_exports(dir.path(), &mini(), reshaped.of_edition("two")).unwrap();
    assert_eq!(reshaped.calls(), 1, "exports of this edition are kept");
}

#[test]
fn an_import_without_exports_drops_those_of_the_data_it_replaces() {
    let dir = TempDir::new().unwrap();
    let recorder = Recorder::new("kept");
    import_with_exports(dir.path(), &mini().join("v1.0.0.0.1"), recorder.exporter()).unwrap();
    import(dir.path(), &mini().join("v1.0.1.0.0")).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.versions().len(), 2);
    assert!(store.exports().is_empty(), "{:?}", store.exports());
    // Asked for exports, the same data is not "unchanged": it has none yet.
    import_with_exports(dir.path(), &mini(), recorder.exporter()).unwrap();
    assert_eq!(Store::open(dir.path()).unwrap().exports().len(), 6);
}

#[test]
fn a_refused_export_leaves_the_served_data_and_exports_as_they_were() {
    let dir = TempDir::new().unwrap();
    let recorder = Recorder::new("before");
    import_with_exports(dir.path(), &mini().join("v1.0.0.0.1"), recorder.exporter()).unwrap();
    let before = std::fs::read(dir.path().join(GAME_DB)).unwrap();
    let stray = |_: &Store| {
        vec![ExportFile {
            version: version("v7.0.0.0.0"),
            lang: Language::English,
            records: 0,
            body: b"x".to_vec(),
        }]
    };
    let refused = import_with_exports(
        dir.path(),
        &mini().join("v1.0.1.0.0"),
        Exporter { edition: "one", build: &stray },
    )
    .unwrap_err();
    assert!(refused.to_string().contains("v7.0.0.0.0"), "{refused}");
    assert_eq!(std::fs::read(dir.path().join(GAME_DB)).unwrap(), before, "the served file is untouched");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("import-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_store_reads_the_exports_of_its_own_file_after_an_import_replaced_it() {
    let dir = TempDir::new().unwrap();
    let old = Recorder::new("old");
    import_with_exports(dir.path(), &mini().join("v1.0.0.0.1"), old.exporter()).unwrap();
    let served = Store::open(dir.path()).unwrap();
    let new = Recorder::new("new");
    import_with_exports(dir.path(), &mini().join("v1.0.1.0.0"), new.exporter()).unwrap();
    // Until the server publishes the new data, its answers and their exports are the old ones.
    assert_eq!(body(&served, "v1.0.0.0.1", Language::English), "old v1.0.0.0.1 en 12");
    assert_eq!(
        body(&Store::open(dir.path()).unwrap(), "v1.0.0.0.1", Language::English),
        "new v1.0.0.0.1 en 12"
    );
}

/// A database written before exports existed (layout generation 1) is still served, without exports,
/// and the next import adds them, even when its data is unchanged; one of generation 2, whose
/// exports say no edition, has them rebuilt.
#[test]
fn a_database_from_before_exports_is_read_and_an_import_brings_it_up_to_date() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    {
        let conn = Connection::open(dir.path().join(GAME_DB)).unwrap();
        conn.execute_batch(
            "DROP TABLE exports; DROP TABLE assets; DROP TABLE picture_variants; DROP TABLE pictures;
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.versions().len(), 2);
    assert!(store.exports().is_empty());
    assert_eq!(store.export_body(&version("v1.0.1.0.0"), Language::English).unwrap(), None);

    let recorder = Recorder::new("upgraded");
    let report = import_with_exports(dir.path(), &mini(), recorder.exporter()).unwrap();
    assert!(report.versions.iter().all(|v| v.outcome == tapster_store::Outcome::Unchanged));
    assert_eq!(Store::open(dir.path()).unwrap().exports().len(), 6);
    let conn = Connection::open(dir.path().join(GAME_DB)).unwrap();
    let generation: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(generation, 4);

    // Generation 2 kept exports without saying who wrote them: they are read, and rebuilt by the
    // next import.
    conn.execute_batch(
        "CREATE TABLE old AS SELECT version_id, lang, records, sha256, body FROM exports;
         DROP TABLE exports; ALTER TABLE old RENAME TO exports;
         DROP TABLE assets; DROP TABLE picture_variants; DROP TABLE pictures; PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(conn);
    assert_eq!(Store::open(dir.path()).unwrap().exports().len(), 6);
    let again = Recorder::new("again");
    import_with_exports(dir.path(), &mini(), again.exporter()).unwrap();
    assert_eq!(again.calls(), 1);
    assert_eq!(
        body(&Store::open(dir.path()).unwrap(), "v1.0.0.0.1", Language::English),
        "again v1.0.0.0.1 en 12"
    );
}

#[test]
fn a_part_of_an_export_is_read_without_the_rest() {
    // Large enough to span many of SQLite's overflow pages, and never the same byte twice in a row.
    let whole: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
    let build = |store: &Store| {
        let latest = &store.latest().info.name;
        vec![ExportFile { version: latest.clone(), lang: Language::English, records: 1, body: whole.clone() }]
    };
    let dir = TempDir::new().unwrap();
    import_with_exports(dir.path(), &mini().join("v1.0.0.0.1"), Exporter { edition: "one", build: &build })
        .unwrap();
    let store = Store::open(dir.path()).unwrap();
    let part =
        |start: u64, end: u64| store.export_part(&version("v1.0.0.0.1"), Language::English, start..end);

    assert_eq!(part(0, 50_000).unwrap().unwrap(), whole);
    assert_eq!(part(20_000, 30_000).unwrap().unwrap(), &whole[20_000..30_000], "a range within");
    assert_eq!(part(49_990, 60_000).unwrap().unwrap(), &whole[49_990..], "cut at the end");
    assert_eq!(part(70_000, 80_000).unwrap().unwrap(), b"", "past the end");
    assert_eq!(store.export_body(&version("v1.0.0.0.1"), Language::English).unwrap().unwrap(), whole);
    assert_eq!(store.export_part(&version("v1.0.0.0.1"), Language::German, 0..10).unwrap(), None);
}
