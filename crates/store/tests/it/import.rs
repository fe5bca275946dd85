//! Importing whole datasets: what is stored, what re-imports do, what is derived.

use tapster_domain::{GameVersion, RecordKey, RecordType, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{ChangeSummary, Store, import, read_dataset};
use tempfile::TempDir;

use crate::{copy_tree, mini};

#[test]
fn the_mini_dataset_imports_whole_and_serves_both_versions() {
    let dir = TempDir::new().unwrap();
    let report = import(dir.path(), &mini()).unwrap();
    let names: Vec<_> = report.versions.iter().map(|v| (v.name.as_str(), v.records)).collect();
    assert_eq!(names, [("v1.0.0.0.1", 32), ("v1.0.1.0.0", 32)]);

    let store = Store::open(dir.path()).unwrap();
    let versions: Vec<_> =
        store.versions().map(|v| (v.info.name.as_str(), v.info.build_id, v.info.latest)).collect();
    assert_eq!(versions, [("v1.0.1.0.0", 110, true), ("v1.0.0.0.1", 100, false)]);
    let latest = &store.latest().info;
    assert_eq!(latest.counts[&RecordType::Item], 12);
    assert_eq!(latest.counts[&RecordType::Recipe], 4);
    assert_eq!(latest.counts[&RecordType::Letter], 1);
    assert_eq!(latest.languages, [Language::English, Language::German, Language::Japanese]);
    assert_eq!(latest.previous.as_ref().map(GameVersion::as_str), Some("v1.0.0.0.1"));
    // 51 added, 50 removed; barley's price, pale ale's name and the two recipes named after it modified.
    assert_eq!(latest.changes, Some(ChangeSummary { added: 1, removed: 1, modified: 4 }));
    assert_eq!(store.versions().nth(1).unwrap().info.changes, None);

    let exact = VersionSelector::parse("v1.0.0.0.1").unwrap();
    assert_eq!(store.resolve(&exact).unwrap().info.build_id, 100);
    assert!(store.resolve(&VersionSelector::parse("v1.0.0.0.9").unwrap()).is_none());

    // Each record says which version brought it: the new kettle came with the second one.
    let latest = store.latest();
    assert_eq!(latest.introduced_in(RecordType::Item, "51").map(GameVersion::as_str), Some("v1.0.1.0.0"));
    assert_eq!(latest.introduced_in(RecordType::Item, "10").map(GameVersion::as_str), Some("v1.0.0.0.1"));
    assert_eq!(
        latest.introduced_in(RecordType::Letter, "Odile's Welcome").map(GameVersion::as_str),
        Some("v1.0.0.0.1")
    );
}

#[test]
fn languages_report_coverage_and_fall_back_for_their_names() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let languages = store.latest().languages(Language::German);
    let got: Vec<_> = languages
        .iter()
        .map(|l| (l.language.code(), l.name.0.as_str(), l.name.1.code(), l.translated, l.total))
        .collect();
    // German translates 6 of the 37 texts records use (an empty string counts as missing), and
    // names English and German but not Japanese, whose name falls back to English.
    assert_eq!(
        got,
        [("en", "Englisch", "de", 37, 37), ("de", "Deutsch", "de", 6, 37), ("ja", "Japanese", "en", 3, 37)]
    );
}

#[test]
fn text_keys_may_be_paths_as_games_key_their_string_tables() {
    let source = TempDir::new().unwrap();
    copy_tree(&mini(), source.path());
    // Barley's name under the key a game's own table would give it, in every file of both versions.
    for version in std::fs::read_dir(source.path()).unwrap() {
        let version = version.unwrap().path();
        let files = std::fs::read_dir(&version)
            .unwrap()
            .chain(std::fs::read_dir(version.join("localization")).unwrap());
        for file in files {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, text.replace("\"item.10.name\"", "\"Items/item_name_10\"")).unwrap();
            }
        }
    }
    let dir = TempDir::new().unwrap();
    import(dir.path(), source.path()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let barley = store.latest().item(&RecordKey::parse("10").unwrap()).unwrap();
    assert_eq!(barley.name_key.as_str(), "Items/item_name_10");
    let german = store.latest().text(&barley.name_key, Language::German).unwrap();
    assert_eq!((german.text, german.language), ("Gerste", Language::German));
}

#[test]
fn importing_the_same_folders_again_changes_nothing() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    let before = std::fs::read(dir.path().join(tapster_store::GAME_DB)).unwrap();
    let report = import(dir.path(), &mini()).unwrap();
    assert!(report.versions.iter().all(|v| v.outcome == tapster_store::Outcome::Unchanged), "{report:?}");
    assert_eq!(std::fs::read(dir.path().join(tapster_store::GAME_DB)).unwrap(), before);
}

#[test]
fn versions_can_arrive_one_update_at_a_time_and_a_changed_folder_replaces_its_version() {
    let dir = TempDir::new().unwrap();
    let data = TempDir::new().unwrap();
    crate::copy_tree(&mini(), data.path());
    import(dir.path(), &data.path().join("v1.0.0.0.1")).unwrap();
    assert_eq!(Store::open(dir.path()).unwrap().versions().len(), 1);

    let report = import(dir.path(), &data.path().join("v1.0.1.0.0")).unwrap();
    assert_eq!(report.versions[0].outcome, tapster_store::Outcome::Added);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.latest().info.changes, Some(ChangeSummary { added: 1, removed: 1, modified: 4 }));

    // A corrected re-release of the first version: one more price change against it.
    let items = data.path().join("v1.0.0.0.1/items.json");
    let text = std::fs::read_to_string(&items).unwrap().replace("\"base_price\": 20", "\"base_price\": 22");
    std::fs::write(&items, text).unwrap();
    let report = import(dir.path(), &data.path().join("v1.0.0.0.1")).unwrap();
    assert_eq!(report.versions[0].outcome, tapster_store::Outcome::Replaced);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.versions().len(), 2);
    assert_eq!(store.latest().info.changes, Some(ChangeSummary { added: 1, removed: 1, modified: 5 }));
}

#[test]
fn reading_a_dataset_orders_versions_by_build() {
    let versions = read_dataset(&mini()).unwrap();
    let builds: Vec<_> = versions.iter().map(|v| v.data.manifest.build_id).collect();
    assert_eq!(builds, [100, 110]);
    assert!(versions.iter().all(|v| v.sha256.len() == 64));
}
