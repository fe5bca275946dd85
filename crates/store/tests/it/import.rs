//! Importing whole datasets: what is stored, what re-imports do, what is derived.

use tapster_domain::{ChangeKind, GameVersion, RecordKey, RecordType, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, ChangeFilter, ChangeSummary, Store, Window, import, read_dataset};
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

#[test]
fn changes_compare_the_texts_of_the_language_asked_for() {
    let dataset = TempDir::new().unwrap();
    copy_tree(&mini(), dataset.path());
    // In the later version German gains a name for dusk hops, keeps the old name of the renamed pale
    // ale, and withdraws the one of barley.
    let german = dataset.path().join("v1.0.1.0.0/localization/de.json");
    let mut table: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&german).unwrap()).unwrap();
    table.insert("item.13.name".into(), "Dämmerhopfen".into());
    table.insert("item.20.name".into(), "Helles Ale".into());
    table.remove("item.10.name");
    std::fs::write(&german, serde_json::to_string(&table).unwrap()).unwrap();
    let data_dir = TempDir::new().unwrap();
    import(data_dir.path(), dataset.path()).unwrap();
    let store = Store::open(data_dir.path()).unwrap();
    let (latest, earlier) = (store.latest(), store.versions().nth(1).unwrap());

    let between = |to: &Catalog, from: &Catalog, lang| {
        let page = to.changes_page(from, lang, ChangeFilter::default(), Window { limit: 100, offset: 0 });
        assert_eq!(page.total, page.records.len() as u64);
        page.records
            .iter()
            .map(|c| format!("{} {} {} {:?}", c.kind, c.record_key, c.change, c.fields))
            .collect::<Vec<_>>()
    };
    let listed = |lang| between(latest, earlier, lang);
    // English: barley repriced, pale ale renamed with its two recipes, a kettle added, a tankard gone.
    assert_eq!(
        listed(Language::English),
        [
            r#"items 10 modified ["base_price"]"#,
            r#"items 20 modified ["name"]"#,
            "items 50 removed []",
            "items 51 added []",
            r#"recipes 102 modified ["name"]"#,
            r#"recipes 103 modified ["name"]"#,
        ]
    );
    // German: barley's name fell back to English, and its crop's with it; dusk hops got a name; pale
    // ale and its recipes read as before.
    assert_eq!(
        listed(Language::German),
        [
            r#"items 10 modified ["base_price", "name"]"#,
            r#"items 13 modified ["name"]"#,
            "items 50 removed []",
            "items 51 added []",
            r#"crops 300 modified ["name"]"#,
        ]
    );
    // Japanese kept its name for pale ale through the English rename: its readers see no rename.
    assert_eq!(
        listed(Language::Japanese),
        [r#"items 10 modified ["base_price"]"#, "items 50 removed []", "items 51 added []"]
    );
    // Filters and windows apply to the language's list.
    let modified = ChangeFilter { kind: Some(RecordType::Item), change: Some(ChangeKind::Modified) };
    let page = latest.changes_page(earlier, Language::German, modified, Window { limit: 1, offset: 1 });
    assert_eq!((page.total, page.records[0].record_key.as_str()), (2, "13"));
    // From the later version back, the same changes run in reverse: the kettle goes, the tankard
    // comes back; in German too.
    assert_eq!(
        between(earlier, latest, Language::German),
        [
            r#"items 10 modified ["base_price", "name"]"#,
            r#"items 13 modified ["name"]"#,
            "items 50 added []",
            "items 51 removed []",
            r#"crops 300 modified ["name"]"#,
        ]
    );
    // A version compared with itself changed nothing.
    assert!(between(latest, latest, Language::German).is_empty());
}

#[test]
fn sources_list_the_records_giving_an_item_in_their_lists_order() {
    let dataset = TempDir::new().unwrap();
    copy_tree(&mini(), dataset.path());
    // Both reputation milestones give barley seeds, the higher level first in the file, and a
    // milestone giving them twice counts both stacks.
    let path = dataset.path().join("v1.0.1.0.0/reputation.json");
    let mut milestones: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    milestones.reverse();
    milestones[0]["rewards"]["items"] =
        serde_json::json!([{"item": 30, "amount": 2}, {"item": 30, "amount": 1}]);
    milestones[1]["rewards"]["items"] = serde_json::json!([{"item": 30, "amount": 4}]);
    std::fs::write(&path, serde_json::to_string(&milestones).unwrap()).unwrap();
    let data_dir = TempDir::new().unwrap();
    import(data_dir.path(), dataset.path()).unwrap();
    let store = Store::open(data_dir.path()).unwrap();
    let sources = store.latest().sources(30);
    let given: Vec<_> = sources.reputation.iter().map(|(m, amount)| (m.level, *amount)).collect();
    assert_eq!(given, [(1, 4), (2, 3)]);
}
