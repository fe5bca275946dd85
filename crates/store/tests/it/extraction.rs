//! The worked example of docs/extraction.md: `fixtures/raw-dump/`, a raw extraction in the shape a
//! game's asset export gives, goes through `fixtures/generator/convert.py` and imports whole, with
//! every field the mapping fills arriving where the format says.

use tapster_domain::{GatherMethod, RecordKey, Season, TextKey};
use tapster_i18n::Language;
use tapster_store::{Store, import};
use tempfile::TempDir;

use crate::{python, repository};

#[test]
fn the_raw_dump_converts_and_imports_whole() {
    let out = TempDir::new().unwrap();
    let root = repository();
    python(&[
        root.join("fixtures/generator/convert.py").as_os_str(),
        root.join("fixtures/raw-dump").as_os_str(),
        out.path().as_os_str(),
    ]);

    let data_dir = TempDir::new().unwrap();
    let report = import(data_dir.path(), out.path()).unwrap();
    let versions: Vec<_> = report.versions.iter().map(|v| (v.name.as_str(), v.records)).collect();
    assert_eq!(versions, [("v0.7.1.0.2", 48)]);
    let store = Store::open(data_dir.path()).unwrap();
    let catalog = store.latest();
    assert_eq!(catalog.info.build_id, 15890);
    assert_eq!(catalog.info.released.to_string(), "2026-11-02");

    // Money in gold, silver and copper becomes copper; a zero or equal trade price is left out.
    let item = |slug: &str| catalog.item(&RecordKey::parse(slug).unwrap()).unwrap();
    let barley = item("barley");
    assert_eq!((barley.base_price, barley.buy_price, barley.sell_price), (8, Some(10), Some(4)));
    assert_eq!(barley.name_key.as_str(), "Items/item_name_1001");
    assert_eq!(barley.icon.as_ref().map(|p| p.as_str()), Some("Sprites/Items/Barley.png"));
    let ale = item("pale-ale");
    assert_eq!((ale.base_price, ale.buy_price, ale.sell_price), (150, None, None));
    let chandelier = item("iron-chandelier");
    assert_eq!((chandelier.base_price, chandelier.sell_price), (10500, Some(6000)));
    assert_eq!((ale.stack_size, ale.servings, ale.can_be_aged), (5, 10, true));
    assert_eq!(item("copper-axe").buy_price, Some(485));
    // Enum numbers, PascalCase names and season bits become the format's words.
    assert_eq!(item("mushroom-omelette").category.as_str(), "egg_dish");
    let chanterelle = &item("chanterelle").gathering;
    assert_eq!(chanterelle.len(), 1);
    assert_eq!(chanterelle[0].method, GatherMethod::Foraging);
    assert_eq!(chanterelle[0].from.as_str(), "old_wood");
    assert_eq!(chanterelle[0].seasons, [Season::Summer, Season::Autumn]);
    assert_eq!(item("coal").gathering.len(), 2);
    assert_eq!(item("coal").fuel_value, Some(12));
    let debug = catalog.item_by_id(-1).unwrap();
    assert!(debug.unlisted && debug.description_key.is_none() && debug.icon.is_none());

    let recipe = |slug: &str| catalog.recipe(&RecordKey::parse(slug).unwrap()).unwrap();
    let wort = recipe("pale-wort");
    assert_eq!((wort.craft_minutes, wort.fuel), (90, 2));
    let ale_2 = recipe("pale-ale-2");
    let aging = ale_2.aging_days.unwrap();
    assert_eq!((aging.young, aging.aged, aging.reserve, aging.grand_reserve), (2, 5, 10, 20));
    assert_eq!(recipe("pale-ale").replaced_by, Some(ale_2.id));
    assert_eq!(ale_2.name_key, ale.name_key);

    let barley_crop = catalog.crop(&RecordKey::parse("barley").unwrap()).unwrap();
    assert!(!barley_crop.reusable && barley_crop.regrow_days.is_none());
    let hops_crop = catalog.crop(&RecordKey::parse("bright-hops").unwrap()).unwrap();
    assert_eq!((hops_crop.reusable, hops_crop.regrow_days), (true, Some(3)));

    // The language columns became tables; an empty cell falls back to English like a missing key.
    assert_eq!(
        catalog.info.languages,
        [Language::English, Language::German, Language::French, Language::Japanese]
    );
    let text = |key: &str, lang| {
        let found = catalog.text(&TextKey::parse(key).unwrap(), lang).unwrap();
        (found.text, found.language)
    };
    assert_eq!(text("Items/item_name_1001", Language::German), ("Gerste", Language::German));
    assert_eq!(text("Items/item_name_1011", Language::French), ("Dusk Hops", Language::English));
    assert_eq!(
        text("Items/item_description_3001", Language::German),
        ("Ein frisches Ale, das sich <b>{0}</b> Tage im Keller hält.", Language::German)
    );
    // The option menu's language names name the languages.
    let names: Vec<_> =
        catalog.languages(Language::French).into_iter().map(|l| (l.language.code(), l.name.0)).collect();
    assert_eq!(
        names,
        [
            ("en", "Anglais".into()),
            ("de", "Allemand".into()),
            ("fr", "Français".into()),
            ("ja", "Japanese".into())
        ]
    );
}

#[test]
fn a_value_the_mapping_does_not_know_stops_the_conversion_by_name() {
    let dump = TempDir::new().unwrap();
    crate::copy_tree(&repository().join("fixtures/raw-dump"), dump.path());
    let items = dump.path().join("MonoBehaviour/ItemDatabase.json");
    let text = std::fs::read_to_string(&items).unwrap();
    std::fs::write(&items, text.replacen("\"type\": \"Forage\"", "\"type\": \"Fishing\"", 1)).unwrap();
    let out = TempDir::new().unwrap();
    let script = repository().join("fixtures/generator/convert.py");
    let run = crate::python_output(&[script.as_os_str(), dump.path().as_os_str(), out.path().as_os_str()]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(
            "ItemDatabase.json | id 1050 (Chanterelle) | sources[0].type | 'Fishing' is not one of"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing is written");

    // A language column the format does not have, even one tagged with a code, is refused too.
    std::fs::write(&items, text).unwrap();
    let sheet = dump.path().join("Localization/I2Languages.csv");
    let csv = std::fs::read_to_string(&sheet).unwrap();
    std::fs::write(&sheet, csv.replacen("Japanese [ja]", "Klingon [tlh]", 1)).unwrap();
    let run = crate::python_output(&[script.as_os_str(), dump.path().as_os_str(), out.path().as_os_str()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("Klingon [tlh] | not one of the format's languages"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing is written");
}
