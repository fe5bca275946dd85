//! The names of the bundled game version, read straight from the fixture files, and the name index
//! the store builds of them: the corpus of the search benchmark and of the relevance tests, and the
//! generator both draw their queries from.

use std::path::Path;

use serde_json::Value;
use tapster_search::{Index, stop_words};

pub(crate) const VERSION: &str = "v0.7.0.0.1";

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) struct Corpus {
    /// The language codes, one per list.
    pub(crate) languages: Vec<String>,
    /// Per language (same order), each document's name, if it has one.
    pub(crate) names: Vec<Vec<Option<String>>>,
}

/// Items a player can meet and recipes not replaced, as the store indexes them, by id.
pub(crate) fn corpus() -> Corpus {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(VERSION);
    let mut records: Vec<(i64, u8, String)> = Vec::new();
    for item in read(&dir.join("items.json")).as_array().expect("items") {
        if item["unlisted"] != true {
            records.push((
                item["id"].as_i64().unwrap_or_default(),
                0,
                item["name_key"].as_str().unwrap_or_default().into(),
            ));
        }
    }
    for recipe in read(&dir.join("recipes.json")).as_array().expect("recipes") {
        if recipe.get("replaced_by").is_none_or(Value::is_null) {
            records.push((
                recipe["id"].as_i64().unwrap_or_default(),
                1,
                recipe["name_key"].as_str().unwrap_or_default().into(),
            ));
        }
    }
    records.sort();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("localization"))
        .expect("localization")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut languages = Vec::new();
    let mut names = Vec::new();
    for file in files {
        let table = read(&file);
        languages.push(file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned());
        names.push(
            records
                .iter()
                .map(|(_, _, key)| table[key.as_str()].as_str().filter(|t| !t.is_empty()).map(str::to_owned))
                .collect(),
        );
    }
    Corpus { languages, names }
}

/// The index of `corpus`, one list per language with its stop words, as the store builds it.
pub(crate) fn build(corpus: &Corpus) -> Index {
    let mut builder = Index::builder();
    for (list, code) in corpus.languages.iter().enumerate() {
        builder.stop_words(list, stop_words(code));
    }
    for (list, names) in corpus.names.iter().enumerate() {
        for (doc, name) in names.iter().enumerate() {
            if let Some(name) = name {
                builder.add(list, doc as u32, name);
            }
        }
    }
    builder.build()
}

/// A small deterministic generator, so that every run asks the same queries and makes the same
/// changes to names.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}
