//! Broken datasets are refused with an error that names the file, the record and the field, and
//! leave the served data byte for byte as it was.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use tapster_store::{GAME_DB, import};
use tempfile::TempDir;

use crate::{copy_tree, mini};

/// The folder of the dataset's second version, which every case breaks.
const BROKEN: &str = "v1.0.1.0.0";
/// The pictures its items name.
const BARLEY: &str = "assets/Sprites/Items/Barley.png";
const PALE_ALE: &str = "assets/Sprites/Items/Pale Ale.png";

/// A valid, opaque black PNG of `width` by `height` pixels.
fn png_of(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&vec![255; (width * height * 4) as usize]).unwrap();
    writer.finish().unwrap();
    out
}

fn edit_json(path: &Path, change: impl FnOnce(&mut Value)) {
    let mut value: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    change(&mut value);
    fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
}

/// A way to break the dataset, and the phrases the refusal must contain.
struct Case {
    name: &'static str,
    break_it: fn(&Path),
    expected: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "dangling ingredient reference",
        break_it: |v| edit_json(&v.join("recipes.json"), |r| r[1]["ingredients"][0]["item"] = json!(999)),
        expected: &[
            "recipes.json",
            "record id 101 (pale-wort)",
            "field `ingredients[0].item`",
            "no item with id 999",
        ],
    },
    Case {
        name: "dangling group member",
        break_it: |v| edit_json(&v.join("ingredient_groups.json"), |g| g[0]["members"][1] = json!(-77)),
        expected: &[
            "ingredient_groups.json",
            "record id 200 (any-hops)",
            "field `members[1]`",
            "no item with id -77",
        ],
    },
    Case {
        name: "shop selling an unknown item",
        break_it: |v| edit_json(&v.join("shops.json"), |s| s[0]["catalogue"][1]["item"] = json!(4242)),
        expected: &[
            "shops.json",
            "record id 400 (mill-store)",
            "field `catalogue[1].item`",
            "no item with id 4242",
        ],
    },
    Case {
        name: "shop without its shopkeeper",
        break_it: |v| edit_json(&v.join("shops.json"), |s| s[0]["shopkeeper"] = json!(501)),
        expected: &["shops.json", "field `shopkeeper`", "no shopkeeper with id 501"],
    },
    Case {
        name: "crop harvesting nothing known",
        break_it: |v| edit_json(&v.join("crops.json"), |c| c[0]["harvest"]["item"] = json!(12345)),
        expected: &["crops.json", "record id 300 (barley)", "field `harvest.item`", "no item with id 12345"],
    },
    Case {
        name: "crop planted from a non-seed",
        break_it: |v| edit_json(&v.join("crops.json"), |c| c[0]["seed"] = json!(10)),
        expected: &["crops.json", "field `seed`", "item 10 is of kind `ingredient`, not `seed`"],
    },
    Case {
        name: "quest requiring a quest that does not exist",
        break_it: |v| edit_json(&v.join("quests.json"), |q| q[0]["requires"] = json!(["quest.missing"])),
        expected: &[
            "quests.json",
            "record key \"quest.first-brew\"",
            "field `requires[0]`",
            "no record with key \"quest.missing\" in quests.json",
        ],
    },
    Case {
        name: "recipe unlocked by an unknown perk",
        break_it: |v| edit_json(&v.join("recipes.json"), |r| r[2]["unlock"]["key"] = json!("Perk_Nope")),
        expected: &[
            "recipes.json",
            "record id 102 (pale-ale)",
            "field `unlock.key`",
            "\"Perk_Nope\" in perks.json",
        ],
    },
    Case {
        name: "duplicate item id",
        break_it: |v| {
            edit_json(&v.join("items.json"), |items| {
                let mut twin = items[0].clone();
                twin["slug"] = json!("barley-twin");
                items.as_array_mut().unwrap().push(twin);
            })
        },
        expected: &[
            "items.json",
            "record id 10 (barley-twin)",
            "field `id`",
            "id 10 is used by an earlier record",
        ],
    },
    Case {
        name: "duplicate slug",
        break_it: |v| edit_json(&v.join("items.json"), |items| items[1]["slug"] = json!("barley")),
        expected: &[
            "items.json",
            "record id 11 (barley)",
            "field `slug`",
            "slug \"barley\" is used by an earlier record",
        ],
    },
    Case {
        name: "recipe cycle",
        // Pale malt made from pale ale, which is brewed from wort, which is mashed from pale malt.
        break_it: |v| edit_json(&v.join("recipes.json"), |r| r[0]["ingredients"][0]["item"] = json!(20)),
        expected: &["recipes.json", "field `ingredients`", "the recipe graph has a cycle"],
    },
    Case {
        name: "recipe cycle through an ingredient group",
        break_it: |v| {
            edit_json(&v.join("ingredient_groups.json"), |g| {
                g[0]["members"].as_array_mut().unwrap().push(json!(20));
            })
        },
        expected: &[
            "recipes.json",
            "the recipe graph has a cycle",
            "16 -> 20 -> 16, through recipes [101, 10",
        ],
    },
    Case {
        name: "unknown water",
        break_it: |v| edit_json(&v.join("fish.json"), |f| f[0]["water"] = json!("Lake")),
        expected: &[
            "fish.json",
            "record #0 (id 600)",
            "field `water`",
            "unknown variant `Lake`",
            "`FreshWater`",
        ],
    },
    Case {
        name: "rarity out of range",
        break_it: |v| edit_json(&v.join("fish.json"), |f| f[0]["rarity"] = json!(11)),
        expected: &["fish.json", "field `rarity`", "rarity goes from 0 to 10"],
    },
    Case {
        name: "unknown season",
        break_it: |v| edit_json(&v.join("crops.json"), |c| c[0]["seasons"][1] = json!("monsoon")),
        expected: &["crops.json", "field `seasons[1]`", "unknown variant `monsoon`"],
    },
    Case {
        name: "misspelt field",
        break_it: |v| edit_json(&v.join("items.json"), |items| items[3]["base_prize"] = json!(40)),
        expected: &["items.json", "record #3 (id 13, slug \"dusk-hops\")", "unknown field `base_prize`"],
    },
    Case {
        name: "bad version string",
        break_it: |v| edit_json(&v.join("manifest.json"), |m| m["game_version"] = json!("1.0.1")),
        expected: &[
            "manifest.json",
            "field `game_version`",
            r"must match the pattern ^v\d+\.\d+",
            "\"1.0.1\"",
        ],
    },
    Case {
        name: "truncated JSON",
        break_it: |v| {
            let path = v.join("items.json");
            let bytes = fs::read(&path).unwrap();
            fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        },
        expected: &["items.json", "not valid JSON", "EOF while parsing"],
    },
    Case {
        name: "missing record file",
        break_it: |v| fs::remove_file(v.join("talents.json")).unwrap(),
        expected: &["talents.json", "the file is missing"],
    },
    Case {
        name: "text key missing in English",
        break_it: |v| {
            edit_json(&v.join("localization/en.json"), |t| {
                t.as_object_mut().unwrap().remove("station.2.description");
            })
        },
        expected: &[
            "crafting_stations.json",
            "record id 2 (brew-kettle)",
            "field `description_key`",
            "\"station.2.description\" is missing from localization/en.json",
        ],
    },
    Case {
        name: "table of an unknown language",
        break_it: |v| fs::write(v.join("localization/xx.json"), "{}").unwrap(),
        expected: &["localization/xx.json", "`xx` is not one of the game's languages"],
    },
    Case {
        name: "table of a language spelled in another case",
        break_it: |v| fs::rename(v.join("localization/ja.json"), v.join("localization/JA.json")).unwrap(),
        expected: &["localization/JA.json", "named by its code as the game spells it: `ja.json`"],
    },
    Case {
        name: "missing picture",
        break_it: |v| fs::remove_file(v.join(BARLEY)).unwrap(),
        expected: &["assets/Sprites/Items/Barley.png", "item 10 (barley) names the icon", "no such picture"],
    },
    Case {
        name: "picture that is not a PNG",
        break_it: |v| fs::write(v.join(PALE_ALE), b"GIF89a\x01\x00\x01\x00").unwrap(),
        expected: &["Pale Ale.png", "the icon of item 20 (pale-ale)", "is not a PNG file"],
    },
    Case {
        name: "picture cut short",
        break_it: |v| {
            let whole = fs::read(v.join(PALE_ALE)).unwrap();
            fs::write(v.join(PALE_ALE), &whole[..whole.len() / 2]).unwrap();
        },
        expected: &["Pale Ale.png", "is not a readable PNG"],
    },
    Case {
        name: "picture over the size bound",
        break_it: |v| {
            let mut bytes = fs::read(v.join(PALE_ALE)).unwrap();
            bytes.resize(300 * 1024, 0);
            fs::write(v.join(PALE_ALE), bytes).unwrap();
        },
        expected: &["Pale Ale.png", "is 300 KiB; a picture may be at most 256 KiB"],
    },
    Case {
        name: "picture over the side bound",
        break_it: |v| fs::write(v.join(PALE_ALE), png_of(600, 10)).unwrap(),
        expected: &["Pale Ale.png", "is 600x10 pixels", "at most 512 pixels"],
    },
    Case {
        name: "later build released earlier",
        break_it: |v| edit_json(&v.join("manifest.json"), |m| m["released"] = json!("2025-12-01")),
        expected: &["v1.0.1.0.0 (build 110) is released on 2025-12-01", "before v1.0.0.0.1"],
    },
];

#[test]
fn each_broken_dataset_is_refused_precisely_and_changes_nothing() {
    let data_dir = TempDir::new().unwrap();
    import(data_dir.path(), &mini().join("v1.0.0.0.1")).unwrap();
    let served = data_dir.path().join(GAME_DB);
    let before = fs::read(&served).unwrap();

    for case in CASES {
        let dataset = TempDir::new().unwrap();
        copy_tree(&mini(), dataset.path());
        (case.break_it)(&dataset.path().join(BROKEN));

        let error = import(data_dir.path(), dataset.path()).expect_err(case.name).to_string();
        for phrase in case.expected {
            assert!(error.contains(phrase), "{}: expected {phrase:?} in:\n{error}", case.name);
        }
        assert_eq!(fs::read(&served).unwrap(), before, "{}: the served data changed", case.name);
        let leftovers: Vec<_> = fs::read_dir(data_dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != GAME_DB && name != ".import.lock")
            .collect();
        assert!(leftovers.is_empty(), "{}: left {leftovers:?} behind", case.name);
    }
}

#[test]
fn a_refused_first_import_leaves_no_store_behind() {
    let data_dir = TempDir::new().unwrap();
    let dataset = TempDir::new().unwrap();
    copy_tree(&mini(), dataset.path());
    edit_json(&dataset.path().join(BROKEN).join("fish.json"), |f| f[0]["bait"] = json!("Bread"));
    import(data_dir.path(), dataset.path()).unwrap_err();
    assert!(!data_dir.path().join(GAME_DB).exists());
}

#[test]
fn two_folders_of_the_same_version_are_refused() {
    let dataset = TempDir::new().unwrap();
    copy_tree(&mini(), dataset.path());
    copy_tree(&mini().join("v1.0.1.0.0"), &dataset.path().join("copy-of-latest"));
    let error = import(TempDir::new().unwrap().path(), dataset.path()).unwrap_err().to_string();
    assert!(error.contains("are both v1.0.1.0.0 (build 110)"), "{error}");
}
