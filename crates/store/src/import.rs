//! Atomic import: game versions are read and checked whole, written into a new copy of the
//! database with the bulk exports built from it, and the copy is renamed over the served file only
//! once it is complete. A refused or interrupted import leaves the served data byte for byte as it was.
//! A whole database made elsewhere (a generation published for every replica) is installed the same
//! way ([`install`]), and the served file's SHA-256 tells which one it is ([`served_sha256`]).

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, Transaction, params};
use sha2::{Digest, Sha256};
use tapster_domain::{BuildId, GameData, GameVersion, RecordType, SOURCE_LANGUAGE, validate};

use crate::catalog::LANGUAGE_NAME_PREFIX;
use crate::exports::{self, ExportFile};
use crate::source::{SourceVersion, read_dataset};
use crate::{Error, GAME_DB, Result, Store, diff, pictures, schema};

/// Builds the exports of the data an import is about to publish, given that data opened as a
/// [`Store`]: what [`import_with_exports`](crate::import_with_exports) keeps beside it.
#[derive(Clone, Copy)]
pub struct Exporter<'a> {
    /// What the files are made by: it changes whenever the same data would give other files (the
    /// answers' shapes changed), so that an import of unchanged data rebuilds exports of another edition.
    pub edition: &'a str,
    pub build: &'a dyn Fn(&Store) -> Vec<ExportFile>,
}

impl std::fmt::Debug for Exporter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter").field("edition", &self.edition).finish_non_exhaustive()
    }
}

/// Most problems listed when a version is refused; enough to fix a batch at once, few enough to read.
const MAX_PROBLEMS: usize = 50;

/// What an import did.
#[derive(Debug)]
pub struct ImportReport {
    pub versions: Vec<ImportedVersion>,
}

#[derive(Debug)]
pub struct ImportedVersion {
    pub name: GameVersion,
    pub build_id: BuildId,
    pub outcome: Outcome,
    pub records: usize,
    pub texts: usize,
    /// How many paths name a picture.
    pub pictures: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Added,
    /// A version of that name was there with other content, and now has this one.
    Replaced,
    /// The same files were imported before; nothing was written.
    Unchanged,
}

/// Imports the dataset at `dataset` (one version folder, or a folder of them) into the store in
/// `data_dir`, creating the store if there is none; without bulk exports (those kept before are
/// dropped, since the data they were built from changes), for programs that only read the data.
pub fn import(data_dir: &Path, dataset: &Path) -> Result<ImportReport> {
    run(data_dir, dataset, None)
}

/// Imports like [`import`], and keeps the exports `exporter` builds from the data as it will be
/// served: of every version, whether this import changed it or not (a record's first version, which
/// the answers name, can change with another version's import). An import that changes nothing
/// keeps the exports it finds, unless there are none or they are of another edition.
pub fn import_with_exports(data_dir: &Path, dataset: &Path, exporter: Exporter<'_>) -> Result<ImportReport> {
    run(data_dir, dataset, Some(exporter))
}

fn run(data_dir: &Path, dataset: &Path, exporter: Option<Exporter<'_>>) -> Result<ImportReport> {
    let versions = read_dataset(dataset)?;
    for version in &versions {
        let mut problems = validate(&version.data);
        if !problems.is_empty() {
            problems.truncate(MAX_PROBLEMS);
            return Err(Error::Invalid { path: version.path.clone(), problems });
        }
    }
    check_distinct(&versions)?;

    fs::create_dir_all(data_dir).map_err(Error::io(data_dir))?;
    let _lock = ImportLock::take(data_dir)?;
    let target = data_dir.join(GAME_DB);
    let staging = Staging::new(data_dir);
    let mut upgraded = false;
    if target.exists() {
        let served = Connection::open_with_flags(&target, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        check_schema(&served, &target)?;
        served.execute("VACUUM INTO ?1", [staging.path.to_string_lossy()])?;
        upgraded = schema::upgrade(&Connection::open(&staging.path)?)?;
    } else {
        schema::create(&Connection::open(&staging.path)?)?;
    }

    let mut conn = Connection::open(&staging.path)?;
    // The staging copy is thrown away on any failure, so it needs no journal; durability comes
    // from the sync before the rename.
    conn.pragma_update(None, "journal_mode", "OFF")?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let tx = conn.transaction()?;
    let mut report = ImportReport { versions: Vec::new() };
    for version in &versions {
        report.versions.push(write_version(&tx, version)?);
    }
    let unchanged = report.versions.iter().all(|v| v.outcome == Outcome::Unchanged);
    let exports_current = match exporter {
        Some(exporter) => exports::kept_of(&tx, exporter.edition)?,
        None => true,
    };
    if unchanged && !upgraded && exports_current {
        return Ok(report);
    }
    check_release_order(&tx)?;
    pictures::forget_unnamed(&tx)?;
    diff::recompute(&tx)?;
    tx.commit()?;
    let (files, edition) = match exporter {
        // Built from the data as a server will read it, before it is published.
        Some(exporter) => ((exporter.build)(&Store::open_file(&staging.path)?), exporter.edition),
        None => (Vec::new(), ""),
    };
    let tx = conn.transaction()?;
    exports::replace(&tx, &files, edition)?;
    tx.commit()?;
    drop(conn);
    staging.publish(&target)?;
    Ok(report)
}

/// Puts `database`, the bytes of a whole served database made by an import elsewhere (a generation
/// published for every replica, its SHA-256 checked by the caller), in place of the one `data_dir`
/// serves: written beside it, checked as a running server checks new data before it reads it
/// (SQLite's structure, a schema this build reads, some game data), and renamed over it in one
/// step, under the import lock. A database that does not check out leaves the served data byte for
/// byte as it was.
pub fn install(data_dir: &Path, database: &[u8]) -> Result<()> {
    fs::create_dir_all(data_dir).map_err(Error::io(data_dir))?;
    let _lock = ImportLock::take(data_dir)?;
    let staging = Staging::new(data_dir);
    fs::write(&staging.path, database).map_err(Error::io(&staging.path))?;
    Store::check_file(&staging.path)?;
    staging.publish(&data_dir.join(GAME_DB))
}

/// The SHA-256 of the database `data_dir` serves, or `None` when it serves none yet.
pub fn served_sha256(data_dir: &Path) -> Result<Option<[u8; 32]>> {
    let path = data_dir.join(GAME_DB);
    let mut file = match File::open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(Error::io(&path)(error)),
    };
    let (mut hasher, mut buffer) = (Sha256::new(), vec![0; 1 << 16]);
    loop {
        match std::io::Read::read(&mut file, &mut buffer).map_err(Error::io(&path))? {
            0 => return Ok(Some(hasher.finalize().into())),
            read => hasher.update(&buffer[..read]),
        }
    }
}

/// The versions of one dataset must not collide with each other.
fn check_distinct(versions: &[SourceVersion]) -> Result<()> {
    for (i, a) in versions.iter().enumerate() {
        for b in &versions[i + 1..] {
            let (ma, mb) = (&a.data.manifest, &b.data.manifest);
            if ma.game_version == mb.game_version || ma.build_id == mb.build_id {
                return Err(Error::Conflict(format!(
                    "{} and {} are both {} (build {}); each version folder must be a different game version",
                    a.path.display(),
                    b.path.display(),
                    ma.game_version,
                    ma.build_id
                )));
            }
        }
    }
    Ok(())
}

fn check_schema(conn: &Connection, path: &Path) -> Result<()> {
    let found = schema::version(conn)?;
    if !(schema::OLDEST_READABLE..=schema::SCHEMA_VERSION).contains(&found) {
        return Err(Error::Schema { path: path.to_owned(), found, expected: schema::SCHEMA_VERSION });
    }
    Ok(())
}

fn write_version(tx: &Transaction<'_>, source: &SourceVersion) -> Result<ImportedVersion> {
    let data = &source.data;
    let manifest = &data.manifest;
    let existing: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, source_sha256 FROM versions WHERE name = ?1",
            [manifest.game_version.as_str()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map(Some)
        .or_else(|e| if e == rusqlite::Error::QueryReturnedNoRows { Ok(None) } else { Err(e) })?;
    let mut imported = ImportedVersion {
        name: manifest.game_version.clone(),
        build_id: manifest.build_id,
        outcome: Outcome::Added,
        records: 0,
        texts: 0,
        pictures: 0,
    };
    if let Some((id, sha256)) = existing {
        if sha256 == source.sha256 {
            imported.outcome = Outcome::Unchanged;
            return Ok(imported);
        }
        imported.outcome = Outcome::Replaced;
        for table in ["records", "texts", "languages", "changes", "assets"] {
            tx.execute(&format!("DELETE FROM {table} WHERE version_id = ?1"), [id])?;
        }
        tx.execute("DELETE FROM changes WHERE from_version_id = ?1", [id])?;
        tx.execute("DELETE FROM versions WHERE id = ?1", [id])?;
    }
    let clash: Option<String> = tx
        .query_row("SELECT name FROM versions WHERE build_id = ?1", [manifest.build_id], |row| row.get(0))
        .map(Some)
        .or_else(|e| if e == rusqlite::Error::QueryReturnedNoRows { Ok(None) } else { Err(e) })?;
    if let Some(other) = clash {
        return Err(Error::Conflict(format!(
            "{}: build {} is already taken by the imported version {other}",
            source.path.display(),
            manifest.build_id
        )));
    }
    tx.execute(
        "INSERT INTO versions (name, build_id, released, source_sha256) VALUES (?1, ?2, ?3, ?4)",
        params![
            manifest.game_version.as_str(),
            manifest.build_id,
            manifest.released.to_string(),
            source.sha256
        ],
    )?;
    let version_id = tx.last_insert_rowid();
    imported.records = write_records(tx, version_id, data)?;
    imported.texts = write_texts(tx, version_id, data)?;
    imported.pictures = pictures::write(tx, version_id, &source.assets)?;
    Ok(imported)
}

fn write_records(tx: &Transaction<'_>, version_id: i64, data: &GameData) -> Result<usize> {
    let mut insert = tx.prepare(
        "INSERT INTO records (version_id, type, record_key, id, slug, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut count = 0;
    let mut put = |kind: RecordType, key: String, id: Option<i64>, slug: Option<&str>, body: String| {
        insert.execute(params![version_id, kind.plural(), key, id, slug, body])?;
        count += 1;
        Ok::<_, Error>(())
    };
    macro_rules! by_id {
        ($kind:expr, $records:expr) => {
            for r in $records {
                put($kind, r.id.to_string(), Some(r.id), Some(r.slug.as_str()), serde_json::to_string(r)?)?;
            }
        };
    }
    macro_rules! by_key {
        ($kind:expr, $records:expr) => {
            for r in $records {
                put($kind, r.key.to_string(), None, None, serde_json::to_string(r)?)?;
            }
        };
    }
    by_id!(RecordType::Item, &data.items);
    by_id!(RecordType::Recipe, &data.recipes);
    by_id!(RecordType::IngredientGroup, &data.ingredient_groups);
    by_id!(RecordType::CraftingStation, &data.crafting_stations);
    by_id!(RecordType::Crop, &data.crops);
    by_id!(RecordType::Shop, &data.shops);
    by_id!(RecordType::Shopkeeper, &data.shopkeepers);
    for fish in &data.fish {
        put(RecordType::Fish, fish.id.to_string(), Some(fish.id), None, serde_json::to_string(fish)?)?;
    }
    by_key!(RecordType::Quest, &data.quests);
    by_key!(RecordType::Perk, &data.perks);
    by_key!(RecordType::Spell, &data.spells);
    by_key!(RecordType::Talent, &data.talents);
    by_key!(RecordType::Reputation, &data.reputation);
    by_key!(RecordType::Mission, &data.missions);
    by_key!(RecordType::Letter, &data.letters);
    Ok(count)
}

/// Stores the texts records refer to and the names of languages, and how much of them each
/// language translates.
fn write_texts(tx: &Transaction<'_>, version_id: i64, data: &GameData) -> Result<usize> {
    let referenced = data.text_keys();
    let mut insert_text =
        tx.prepare("INSERT INTO texts (version_id, lang, key, text) VALUES (?1, ?2, ?3, ?4)")?;
    let mut insert_language =
        tx.prepare("INSERT INTO languages (version_id, lang, translated, total) VALUES (?1, ?2, ?3, ?4)")?;
    let mut count = 0;
    for (lang, table) in &data.texts {
        let mut translated = 0;
        for (key, text) in table {
            if text.is_empty() {
                continue;
            }
            let is_referenced = referenced.contains(key);
            if is_referenced || key.as_str().starts_with(LANGUAGE_NAME_PREFIX) {
                insert_text.execute(params![version_id, lang, key.as_str(), text])?;
                count += 1;
                translated += usize::from(is_referenced);
            }
        }
        insert_language.execute(params![version_id, lang, translated as i64, referenced.len() as i64])?;
    }
    debug_assert!(data.texts.contains_key(SOURCE_LANGUAGE), "validated before writing");
    Ok(count)
}

/// Later builds must not be released before earlier ones.
fn check_release_order(tx: &Transaction<'_>) -> Result<()> {
    let mut stmt = tx.prepare("SELECT name, build_id, released FROM versions ORDER BY build_id")?;
    let versions: Vec<(String, i64, String)> =
        stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?.collect::<Result<_, _>>()?;
    for pair in versions.windows(2) {
        let ((earlier, eb, er), (later, lb, lr)) = (&pair[0], &pair[1]);
        if lr < er {
            return Err(Error::Conflict(format!(
                "{later} (build {lb}) is released on {lr}, before {earlier} (build {eb}, released {er}); a higher build id means a later release"
            )));
        }
    }
    Ok(())
}

/// The database being built, beside the served one; removed unless it is published.
struct Staging {
    path: PathBuf,
    published: bool,
}

impl Staging {
    /// A staging path of this process's, made with the import lock held: copies that a crashed
    /// import or install left behind (of any process, since no other holds the lock) are removed
    /// first, so that none outlives the next import.
    fn new(data_dir: &Path) -> Self {
        let prefix = format!(".{GAME_DB}.import-");
        if let Ok(entries) = fs::read_dir(data_dir) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        Self { path: data_dir.join(format!("{prefix}{}", std::process::id())), published: false }
    }

    /// Makes the staging copy durable, then puts it in place of the served database in one rename.
    fn publish(mut self, target: &Path) -> Result<()> {
        File::open(&self.path).and_then(|f| f.sync_all()).map_err(Error::io(&self.path))?;
        fs::rename(&self.path, target).map_err(Error::io(target))?;
        if let Some(dir) = target.parent() {
            File::open(dir).and_then(|d| d.sync_all()).map_err(Error::io(dir))?;
        }
        self.published = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.published {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// One import at a time per data dir: a second one waits for the first rather than losing its work
/// when both rename over the same file.
struct ImportLock(File);

impl ImportLock {
    fn take(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(".import.lock");
        let file =
            File::options().create(true).truncate(false).write(true).open(&path).map_err(Error::io(&path))?;
        file.lock().map_err(Error::io(&path))?;
        Ok(Self(file))
    }
}

impl Drop for ImportLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}
