//! Bulk exports: every record of every resource of one game version in one language, each in the
//! shape its own endpoint serves it, in one gzip-compressed NDJSON file. They are built once per
//! import ([`exporter`] is what the server hands `tapster_store::import_with_exports`), kept in the
//! game database with the data they come from, served by `/v1/exports/{version}/{lang}` and written
//! out by `tapster export`.
//!
//! One file rather than an archive of one file per resource: any language reads gzip and lines of
//! JSON without an archive library, a client can stream it line by line as it downloads, and
//! `zcat file | jq 'select(.resource == "items")'` picks a resource out. Each line is
//! `{"resource": "items", "data": {...}, "lang_fallback": ["/name"]}`: `resource` is the path
//! segment of the record's endpoint, `data` its answer's `data`, and `lang_fallback` its answer's
//! `meta.lang_fallback`, relative to `data`. The first line is the version itself, as
//! `/v1/versions/{version}` serves it (`"resource": "versions"`).

use std::io::Write;
use std::num::NonZeroUsize;
use std::sync::OnceLock;

use flate2::Compression;
use flate2::write::GzEncoder;
use serde::Serialize;
use sha2::{Digest, Sha256};
use tapster_i18n::Language;
use tapster_store::{Catalog, ExportFile, Exporter, Store};

use crate::envelope::Localizer;
use crate::views::{self, Documented};

/// The layout of a file's lines; raise it when the lines change in a way the answers' shapes do not
/// show (the first line, `resource`, `lang_fallback`).
const LINE_FORMAT: u32 = 1;

/// What the server hands `tapster_store::import_with_exports`: [`build`], and an edition that
/// changes with the answers' shapes (a digest of the OpenAPI document's schemas) and the lines'
/// layout, so that an import after an upgrade that changed them rebuilds the exports even when the
/// game data did not change.
pub fn exporter() -> Exporter<'static> {
    static EDITION: OnceLock<String> = OnceLock::new();
    let edition = EDITION.get_or_init(|| {
        let document = crate::openapi::document(None);
        let schemas = serde_json::to_vec(&document["components"]["schemas"]).unwrap_or_default();
        let digest: String = Sha256::digest(&schemas)[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("lines-{LINE_FORMAT}-schemas-{digest}")
    });
    Exporter { edition, build: &build }
}

/// Builds the export of every version of `store` in each of its languages, on every core this
/// process may use.
pub fn build(store: &Store) -> Vec<ExportFile> {
    let jobs: Vec<(&Catalog, Language)> = store
        .versions()
        .flat_map(|catalog| catalog.info.languages.iter().map(move |&lang| (catalog, lang)))
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(jobs.len()).max(1);
    let mut files: Vec<(usize, ExportFile)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                let jobs = &jobs;
                scope.spawn(move || {
                    jobs.iter()
                        .enumerate()
                        .skip(worker)
                        .step_by(threads)
                        .map(|(i, &(catalog, lang))| (i, export(catalog, lang)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    files.sort_by_key(|(i, _)| *i);
    files.into_iter().map(|(_, file)| file).collect()
}

/// The export of `catalog` in `lang`.
fn export(catalog: &Catalog, lang: Language) -> ExportFile {
    let mut out = Lines { catalog, lang, buffer: Vec::with_capacity(1 << 20), records: 0 };
    // The version itself first, which is not one of its records.
    out.write("versions", |_| views::game_version(&catalog.info));
    let data = &catalog.data;
    for item in &data.items {
        out.line("items", |loc| views::item_detail(loc, item, &[]));
    }
    for recipe in &data.recipes {
        out.line("recipes", |loc| views::recipe_detail(loc, recipe));
    }
    for group in &data.ingredient_groups {
        out.line("ingredient-groups", |loc| views::ingredient_group(loc, group));
    }
    for station in &data.crafting_stations {
        out.line("crafters", |loc| views::crafting_station(loc, station, "/data"));
    }
    for crop in &data.crops {
        out.line("crops", |loc| views::crop(loc, crop, "/data"));
    }
    for shop in &data.shops {
        out.line("shops", |loc| views::shop_detail(loc, shop));
    }
    for npc in &data.shopkeepers {
        out.line("npcs", |loc| views::npc(loc, npc, "/data"));
    }
    for fish in &data.fish {
        out.line("fish", |loc| views::fish(loc, fish, "/data"));
    }
    out.documents(&data.quests);
    out.documents(&data.perks);
    out.documents(&data.spells);
    out.documents(&data.talents);
    out.documents(&data.reputation);
    out.documents(&data.missions);
    out.documents(&data.letters);
    // The default level: the bundled data's 81 files (about 2 MB of JSON each, 15 MB compressed in
    // all) are built in about 6 s on two cores by a debug build, once per import.
    let mut gzip = GzEncoder::new(Vec::with_capacity(out.buffer.len() / 6), Compression::default());
    // Writing into memory cannot fail.
    let _ = gzip.write_all(&out.buffer);
    let body = gzip.finish().unwrap_or_default();
    ExportFile { version: catalog.info.name.clone(), lang, records: out.records, body }
}

/// The lines of one export as they are written.
struct Lines<'a> {
    catalog: &'a Catalog,
    lang: Language,
    buffer: Vec<u8>,
    records: u64,
}

/// One line: a record and where English stood in for its language.
#[derive(Serialize)]
struct Line<T> {
    resource: &'static str,
    data: T,
    lang_fallback: Vec<String>,
}

impl Lines<'_> {
    /// Writes the record `view` makes, and counts it.
    fn line<T: Serialize>(&mut self, resource: &'static str, view: impl FnOnce(&mut Localizer<'_>) -> T) {
        self.write(resource, view);
        self.records += 1;
    }

    /// Writes what `view` makes, as the endpoint of `resource` answers it (its texts noted at
    /// `/data/...`, as in an answer), with its fallbacks made relative to it.
    fn write<T: Serialize>(&mut self, resource: &'static str, view: impl FnOnce(&mut Localizer<'_>) -> T) {
        let mut loc = Localizer::new(self.catalog, self.lang);
        let data = view(&mut loc);
        let lang_fallback = loc
            .into_fallbacks()
            .into_iter()
            .map(|pointer| pointer.strip_prefix("/data").map(str::to_owned).unwrap_or(pointer))
            .collect();
        // The wire's shapes are maps of strings and numbers: they always serialize.
        let _ = serde_json::to_writer(&mut self.buffer, &Line { resource, data, lang_fallback });
        self.buffer.push(b'\n');
    }

    fn documents<R: Documented>(&mut self, records: &[R]) {
        for record in records {
            self.line(R::TYPE.plural(), |loc| views::document_detail(loc, record));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edition names the lines' layout and a digest of the answers' schemas, the same every time.
    #[test]
    fn the_edition_follows_the_lines_and_the_schemas() {
        let edition = exporter().edition;
        assert!(edition.starts_with(&format!("lines-{LINE_FORMAT}-schemas-")), "{edition}");
        assert_eq!(edition.len(), "lines-1-schemas-".len() + 16, "{edition}");
        assert_eq!(exporter().edition, edition);
    }
}
