//! Reading a dataset from disk: version folders in the data format, parsed into [`GameData`] with
//! errors that name the file, the record and the field, and the pictures the records name, each
//! decoded once to check it. Nothing here checks references; that is [`tapster_domain::validate`]'s
//! work once a version is read whole.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tapster_domain::{AssetPath, GameData, Item, Manifest, RecordType, TextKey, TextTable};
use tapster_i18n::Language;

use crate::picture;
use crate::{Error, Result};

const MANIFEST: &str = "manifest.json";
const LOCALIZATION: &str = "localization";
const ASSETS: &str = "assets";

/// One version folder, read.
#[derive(Debug)]
pub struct SourceVersion {
    pub path: PathBuf,
    pub data: GameData,
    /// The pictures the records name, by their path (under the folder's `assets/`), each checked to
    /// be a PNG within the bounds an import takes.
    pub assets: BTreeMap<AssetPath, Vec<u8>>,
    /// SHA-256 of every file of the folder that is read, so that importing the same folder twice is
    /// recognised.
    pub sha256: String,
}

/// Reads a dataset: `dir` is either one version folder (it holds `manifest.json`) or a folder whose
/// sub-folders with a `manifest.json` are version folders (other entries are ignored). Versions come
/// back in build order.
pub fn read_dataset(dir: &Path) -> Result<Vec<SourceVersion>> {
    if !dir.is_dir() {
        return Err(Error::Source { path: dir.to_owned(), message: "not a folder".into() });
    }
    let mut versions = Vec::new();
    if dir.join(MANIFEST).is_file() {
        versions.push(read_version(dir)?);
    } else {
        let mut folders: Vec<PathBuf> = fs::read_dir(dir)
            .map_err(Error::io(dir))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.join(MANIFEST).is_file())
            .collect();
        folders.sort();
        for folder in folders {
            versions.push(read_version(&folder)?);
        }
    }
    if versions.is_empty() {
        return Err(Error::Source {
            path: dir.to_owned(),
            message: format!("no game version here: neither it nor any folder in it has a {MANIFEST}"),
        });
    }
    versions.sort_by_key(|v| v.data.manifest.build_id);
    Ok(versions)
}

fn read_version(dir: &Path) -> Result<SourceVersion> {
    let mut hasher = Sha256::new();
    let mut file = |name: &str| -> Result<Vec<u8>> {
        let path = dir.join(name);
        let bytes = fs::read(&path).map_err(|e| Error::Source {
            path: path.clone(),
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "the file is missing; every version folder has it".into(),
                _ => e.to_string(),
            },
        })?;
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        Ok(bytes)
    };

    let manifest: Manifest = parse_whole(&dir.join(MANIFEST), &file(MANIFEST)?)?;
    macro_rules! records {
        ($kind:expr) => {{
            let name = format!("{}.json", $kind);
            parse_records(&dir.join(&name), &file(&name)?)?
        }};
    }
    let items: Vec<Item> = records!(RecordType::Item);
    let recipes = records!(RecordType::Recipe);
    let ingredient_groups = records!(RecordType::IngredientGroup);
    let crafting_stations = records!(RecordType::CraftingStation);
    let crops = records!(RecordType::Crop);
    let shops = records!(RecordType::Shop);
    let shopkeepers = records!(RecordType::Shopkeeper);
    let fish = records!(RecordType::Fish);
    let quests = records!(RecordType::Quest);
    let perks = records!(RecordType::Perk);
    let spells = records!(RecordType::Spell);
    let talents = records!(RecordType::Talent);
    let reputation = records!(RecordType::Reputation);
    let missions = records!(RecordType::Mission);
    let letters = records!(RecordType::Letter);

    let mut texts = BTreeMap::new();
    for language in languages_present(&dir.join(LOCALIZATION))? {
        let name = format!("{LOCALIZATION}/{}.json", language.code());
        let table = parse_texts(&dir.join(&name), &file(&name)?)?;
        texts.insert(language.code().to_owned(), table);
    }

    let mut assets = BTreeMap::new();
    for item in &items {
        let Some(path) = &item.icon else { continue };
        if assets.contains_key(path) {
            continue;
        }
        let name = format!("{ASSETS}/{path}");
        if !dir.join(&name).is_file() {
            return Err(Error::Source {
                path: dir.join(&name),
                message: format!(
                    "item {} ({}) names the icon {path}, and the folder has no such picture",
                    item.id, item.slug
                ),
            });
        }
        let bytes = file(&name)?;
        picture::decode(&bytes).map_err(|why| Error::Source {
            path: dir.join(&name),
            message: format!("the icon of item {} ({}) {why}", item.id, item.slug),
        })?;
        assets.insert(path.clone(), bytes);
    }

    let data = GameData {
        manifest,
        items,
        recipes,
        ingredient_groups,
        crafting_stations,
        crops,
        shops,
        shopkeepers,
        fish,
        quests,
        perks,
        spells,
        talents,
        reputation,
        missions,
        letters,
        texts,
    };
    let sha256 = tapster_domain::hex(&hasher.finalize());
    Ok(SourceVersion { path: dir.to_owned(), data, assets, sha256 })
}

/// The languages that have a table in `dir`, in the game's order; a table for any other code is refused.
fn languages_present(dir: &Path) -> Result<Vec<Language>> {
    let entries = fs::read_dir(dir).map_err(|e| Error::Source {
        path: dir.to_owned(),
        message: format!("cannot read the localisation folder: {e}"),
    })?;
    let mut languages = Vec::new();
    for entry in entries {
        let path = entry.map_err(Error::io(dir))?.path();
        let Some(code) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".json"))
        else {
            continue;
        };
        let language = Language::parse(code).map_err(|e| Error::Source {
            path: path.clone(),
            message: format!("`{code}` {e}; the game's languages are {}", codes()),
        })?;
        // Files are read by the canonical spelling: a table spelled otherwise would not be found.
        if language.code() != code {
            return Err(Error::Source {
                path: path.clone(),
                message: format!(
                    "a table is named by its code as the game spells it: `{}.json`",
                    language.code()
                ),
            });
        }
        languages.push(language);
    }
    languages.sort();
    Ok(languages)
}

fn codes() -> String {
    Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>().join(" ")
}

fn parse_whole<T: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::Source { path: path.to_owned(), message: format!("not valid JSON: {e}") })?;
    serde_path_to_error::deserialize(value)
        .map_err(|e| Error::Source { path: path.to_owned(), message: describe_path_error(&e) })
}

/// Parses a record file: first as JSON (so that truncated or malformed JSON is reported with its
/// line), then each record on its own, so that an error names the record and the field.
fn parse_records<T: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<Vec<T>> {
    let values: Vec<Value> = serde_json::from_slice(bytes).map_err(|e| Error::Source {
        path: path.to_owned(),
        message: match e.classify() {
            serde_json::error::Category::Data => format!("expected an array of records: {e}"),
            _ => format!("not valid JSON: {e}"),
        },
    })?;
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            let who = identify(index, &value);
            serde_path_to_error::deserialize(value).map_err(|e| Error::Source {
                path: path.to_owned(),
                message: format!("record {who}: {}", describe_path_error(&e)),
            })
        })
        .collect()
}

fn parse_texts(path: &Path, bytes: &[u8]) -> Result<TextTable> {
    let raw: BTreeMap<String, Value> = serde_json::from_slice(bytes).map_err(|e| Error::Source {
        path: path.to_owned(),
        message: format!("expected one JSON object of text key to text: {e}"),
    })?;
    let mut table = TextTable::new();
    for (key, value) in raw {
        let Value::String(text) = value else {
            return Err(Error::Source {
                path: path.to_owned(),
                message: format!("the text of key {key:?} is not a string"),
            });
        };
        // Keys no record can refer to (interface strings of other shapes) are not game data.
        if let Ok(key) = TextKey::parse(&key) {
            table.insert(key, text);
        }
    }
    Ok(table)
}

/// Names a record for an error message: its position, and its id, slug or key when it has them.
fn identify(index: usize, value: &Value) -> String {
    let name = ["id", "slug", "key"]
        .iter()
        .filter_map(|field| value.get(field).map(|v| format!("{field} {v}")))
        .collect::<Vec<_>>();
    if name.is_empty() { format!("#{index}") } else { format!("#{index} ({})", name.join(", ")) }
}

fn describe_path_error(e: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = e.path().to_string();
    let inner = e.inner();
    let line = if inner.line() > 0 {
        format!(" (line {}, column {})", inner.line(), inner.column())
    } else {
        String::new()
    };
    let message = inner.to_string();
    // serde_json appends the position to its own message; keep it once, in our words.
    let message = message.split(" at line ").next().unwrap_or(&message);
    if path == "." { format!("{message}{line}") } else { format!("field `{path}`: {message}{line}") }
}
