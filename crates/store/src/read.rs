//! Opening the store for serving: every published version is read from the database once, into a
//! [`Catalog`] in memory, so that answering a request reads no disk at all. The data changes only at
//! import, a few times a year; a few megabytes of memory per version buy that.
//!
//! An import renames a complete new database over the served one, so a server notices new data by
//! the file's [`FileStamp`] changing, and opens it afresh beside the store it serves.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rusqlite::{Connection, OpenFlags, params};
use tapster_domain::{ChangeKind, GameData, GameVersion, Manifest, RecordType, ReleaseDate, VersionSelector};
use tapster_i18n::Language;

use crate::catalog::{Catalog, Change, ChangeSummary, Coverage, TextPool, Texts, VersionInfo};
use crate::exports::{ExportInfo, Exports};
use crate::pictures::{AssetsByVersion, Picture, Pictures};
use crate::{Error, GAME_DB, Result, schema};

/// An opened game-data store: every published version, newest first.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
    stamp: FileStamp,
    versions: Arc<[Arc<Catalog>]>,
    exports: Arc<Exports>,
    pictures: Arc<Pictures>,
}

/// Which game database file a data dir holds, as the file system tells it: an import puts a new
/// file in place (another inode), and a copy over the old file changes its length or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Device and inode, where the platform has them.
    file: Option<(u64, u64)>,
}

impl FileStamp {
    /// The stamp of the game database in `data_dir` as it is now.
    pub fn of_data_dir(data_dir: &Path) -> Result<Self> {
        Self::of_file(&data_dir.join(GAME_DB))
    }

    fn of_file(path: &Path) -> Result<Self> {
        let metadata = std::fs::metadata(path).map_err(Error::io(path))?;
        #[cfg(unix)]
        let file = {
            use std::os::unix::fs::MetadataExt;
            Some((metadata.dev(), metadata.ino()))
        };
        #[cfg(not(unix))]
        let file = None;
        Ok(Self { len: metadata.len(), modified: metadata.modified().ok(), file })
    }
}

/// SQLite's check of the whole file's structure, then [`schema_in_range`].
fn check_structure(conn: &Connection, path: &Path) -> Result<i64> {
    let verdict: String = conn.query_row("PRAGMA quick_check(1)", [], |row| row.get(0))?;
    if verdict != "ok" {
        return Err(Error::Damaged { path: path.to_owned(), detail: verdict });
    }
    schema_in_range(conn, path)
}

/// The file's schema version, when this build reads it.
fn schema_in_range(conn: &Connection, path: &Path) -> Result<i64> {
    let found = schema::version(conn)?;
    if !(schema::OLDEST_READABLE..=schema::SCHEMA_VERSION).contains(&found) {
        return Err(Error::Schema { path: path.to_owned(), found, expected: schema::SCHEMA_VERSION });
    }
    Ok(found)
}

impl Store {
    /// Opens the store of `data_dir` and reads every version into memory.
    pub fn open(data_dir: &Path) -> Result<Self> {
        Self::read(data_dir, false)
    }

    /// Opens the database file at `path` like [`Store::open`]: an import's staging copy, for its
    /// exporter.
    pub(crate) fn open_file(path: &Path) -> Result<Self> {
        Self::read_file(path, false)
    }

    /// Checks the database file at `path` as [`Store::open_verified`] does before it reads it
    /// (SQLite's structure, a schema this build reads, some game data), without reading it: a
    /// whole database to install, whose bytes are known to be the ones made by an import.
    pub(crate) fn check_file(path: &Path) -> Result<()> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        check_structure(&conn, path)?;
        let versions: i64 = conn.query_row("SELECT count(*) FROM versions", [], |row| row.get(0))?;
        if versions == 0 {
            return Err(Error::NoData(path.parent().unwrap_or(path).to_owned()));
        }
        Ok(())
    }

    /// Opens the store like [`Store::open`], after SQLite has checked the whole file's structure:
    /// for data that appeared under a running server, which must never serve a damaged or
    /// half-copied file.
    pub fn open_verified(data_dir: &Path) -> Result<Self> {
        Self::read(data_dir, true)
    }

    fn read(data_dir: &Path, verify: bool) -> Result<Self> {
        let path = data_dir.join(GAME_DB);
        if !path.is_file() {
            return Err(Error::NoData(data_dir.to_owned()));
        }
        Self::read_file(&path, verify)
    }

    fn read_file(path: &Path, verify: bool) -> Result<Self> {
        let path = path.to_owned();
        let no_data = || Error::NoData(path.parent().unwrap_or(&path).to_owned());
        // Taken before opening: should the file be replaced meanwhile, the stamp is already stale
        // and the new file is noticed and read in turn.
        let stamp = FileStamp::of_file(&path)?;
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let found = if verify { check_structure(&conn, &path)? } else { schema_in_range(&conn, &path)? };
        let (pictures, mut assets) = Pictures::load(&conn, found)?;
        let mut catalogs = load(&conn, &mut assets)?;
        if catalogs.is_empty() {
            return Err(no_data());
        }
        // The connection the catalogs were read through stays open on this file, for the exports'
        // bytes: see `Exports`.
        let exports = Exports::open(conn, found)?;
        // Oldest first, each record is introduced by the first version that has it.
        let mut introduced: HashMap<(RecordType, String), GameVersion> = HashMap::new();
        for catalog in catalogs.iter_mut().rev() {
            for name in record_names(&catalog.data) {
                introduced.entry(name).or_insert_with(|| catalog.info.name.clone());
            }
            catalog.introduced = record_names(&catalog.data)
                .map(|name| {
                    let version = introduced[&name].clone();
                    (name, version)
                })
                .collect();
        }
        // Most searches are of the latest version: its index is ready before the first one.
        catalogs[0].name_index();
        Ok(Self {
            path,
            stamp,
            versions: catalogs.into_iter().map(Arc::new).collect(),
            exports: Arc::new(exports),
            pictures: Arc::new(pictures),
        })
    }

    /// The picture whose file has the SHA-256 `sha256`, if a version names it.
    pub fn picture(&self, sha256: &[u8; 32]) -> Option<&Picture> {
        self.pictures.get(sha256)
    }

    /// Every picture a version names, in no particular order.
    pub fn pictures(&self) -> impl Iterator<Item = &Picture> {
        self.pictures.iter()
    }

    /// The database file this store was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stamp the database file had when this store was read from it.
    pub fn stamp(&self) -> FileStamp {
        self.stamp
    }

    /// Every published version, newest first.
    pub fn versions(&self) -> impl ExactSizeIterator<Item = &Catalog> {
        self.versions.iter().map(Arc::as_ref)
    }

    pub fn latest(&self) -> &Catalog {
        &self.versions[0]
    }

    /// The bulk exports kept with this data, newest version first; none when it was imported without
    /// them (or by a build before exports).
    pub fn exports(&self) -> &[ExportInfo] {
        &self.exports.list
    }

    /// The bytes of the export of `version` in `lang`, if one is kept: read from the file this store
    /// was opened from, whatever an import has put in its place since.
    pub fn export_body(&self, version: &GameVersion, lang: Language) -> Result<Option<Vec<u8>>> {
        self.exports.bytes(version, lang, 0..u64::MAX)
    }

    /// The bytes `range` of that export, cut at its end (a resumed download), read without the rest.
    pub fn export_part(
        &self,
        version: &GameVersion,
        lang: Language,
        range: Range<u64>,
    ) -> Result<Option<Vec<u8>>> {
        self.exports.bytes(version, lang, range)
    }

    /// The version a selector names, if it is published.
    pub fn resolve(&self, selector: &VersionSelector) -> Option<&Catalog> {
        match selector {
            VersionSelector::Latest => Some(self.latest()),
            VersionSelector::Exact(name) => self.versions().find(|c| &c.info.name == name),
        }
    }
}

/// Every record of a version, named as the changes name them: type and record key.
fn record_names(data: &GameData) -> impl Iterator<Item = (RecordType, String)> + '_ {
    use tapster_domain::ProgressionRecord;
    fn ids<'a, T>(
        kind: RecordType,
        records: &'a [T],
        id: fn(&T) -> i64,
    ) -> impl Iterator<Item = (RecordType, String)> + 'a {
        records.iter().map(move |r| (kind, id(r).to_string()))
    }
    fn keys<R: ProgressionRecord>(records: &[R]) -> impl Iterator<Item = (RecordType, String)> + '_ {
        records.iter().map(|r| (R::TYPE, r.key().to_string()))
    }
    ids(RecordType::Item, &data.items, |r| r.id)
        .chain(ids(RecordType::Recipe, &data.recipes, |r| r.id))
        .chain(ids(RecordType::IngredientGroup, &data.ingredient_groups, |r| r.id))
        .chain(ids(RecordType::CraftingStation, &data.crafting_stations, |r| r.id))
        .chain(ids(RecordType::Crop, &data.crops, |r| r.id))
        .chain(ids(RecordType::Shop, &data.shops, |r| r.id))
        .chain(ids(RecordType::Shopkeeper, &data.shopkeepers, |r| r.id))
        .chain(ids(RecordType::Fish, &data.fish, |r| r.id))
        .chain(keys(&data.quests))
        .chain(keys(&data.perks))
        .chain(keys(&data.spells))
        .chain(keys(&data.talents))
        .chain(keys(&data.reputation))
        .chain(keys(&data.missions))
        .chain(keys(&data.letters))
}

/// Reads every version, newest first, each with the pictures its paths name (taken from `assets`).
fn load(conn: &Connection, assets: &mut AssetsByVersion) -> Result<Vec<Catalog>> {
    let mut stmt =
        conn.prepare("SELECT id, name, build_id, released FROM versions ORDER BY build_id DESC")?;
    let rows: Vec<(i64, String, i64, String)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let corrupt = |what: &str, value: &str, e: tapster_domain::Error| {
        Error::Conflict(format!("the stored {what} {value:?} {e}; import the game data again"))
    };
    let mut catalogs = Vec::with_capacity(rows.len());
    let mut pool = TextPool::default();
    for (index, (id, name, build_id, released)) in rows.iter().enumerate() {
        let name = GameVersion::parse(name).map_err(|e| corrupt("version name", name, e))?;
        let released = ReleaseDate::parse(released).map_err(|e| corrupt("release date", released, e))?;
        let manifest = Manifest {
            format: tapster_domain::FORMAT,
            game_version: name.clone(),
            build_id: *build_id,
            released,
        };
        let data = records(conn, *id, manifest)?;
        let (texts, coverage) = texts(conn, *id, &mut pool)?;
        let previous = rows.get(index + 1);
        let changes = changes(conn, *id, &rows)?;
        let previous_name = previous.map(|(_, n, ..)| n.clone());
        let summary = previous_name.as_ref().map(|p| {
            let mut summary = ChangeSummary::default();
            for change in changes.get(p).into_iter().flatten() {
                match change.change {
                    ChangeKind::Added => summary.added += 1,
                    ChangeKind::Removed => summary.removed += 1,
                    ChangeKind::Modified => summary.modified += 1,
                }
            }
            summary
        });
        let info = VersionInfo {
            name,
            build_id: *build_id,
            released,
            latest: index == 0,
            previous: previous_name.and_then(|p| GameVersion::parse(&p).ok()),
            changes: summary,
            counts: counts(&data),
            languages: coverage.keys().copied().collect(),
        };
        let mut catalog = Catalog::new(info, data, texts, coverage);
        catalog.changes = changes;
        catalog.assets = assets.remove(id).unwrap_or_default();
        catalogs.push(catalog);
    }
    Ok(catalogs)
}

fn records(conn: &Connection, version_id: i64, manifest: Manifest) -> Result<GameData> {
    let mut data = GameData::new(manifest);
    // Ordered by id (or key) within each type, so that every list starts in a stable order.
    let mut stmt =
        conn.prepare("SELECT type, body FROM records WHERE version_id = ?1 ORDER BY type, id, record_key")?;
    let mut rows = stmt.query([version_id])?;
    while let Some(row) = rows.next()? {
        let kind: String = row.get(0)?;
        let body: String = row.get(1)?;
        let body = body.as_str();
        match RecordType::parse(&kind) {
            Some(RecordType::Item) => data.items.push(serde_json::from_str(body)?),
            Some(RecordType::Recipe) => data.recipes.push(serde_json::from_str(body)?),
            Some(RecordType::IngredientGroup) => data.ingredient_groups.push(serde_json::from_str(body)?),
            Some(RecordType::CraftingStation) => data.crafting_stations.push(serde_json::from_str(body)?),
            Some(RecordType::Crop) => data.crops.push(serde_json::from_str(body)?),
            Some(RecordType::Shop) => data.shops.push(serde_json::from_str(body)?),
            Some(RecordType::Shopkeeper) => data.shopkeepers.push(serde_json::from_str(body)?),
            Some(RecordType::Fish) => data.fish.push(serde_json::from_str(body)?),
            Some(RecordType::Quest) => data.quests.push(serde_json::from_str(body)?),
            Some(RecordType::Perk) => data.perks.push(serde_json::from_str(body)?),
            Some(RecordType::Spell) => data.spells.push(serde_json::from_str(body)?),
            Some(RecordType::Talent) => data.talents.push(serde_json::from_str(body)?),
            Some(RecordType::Reputation) => data.reputation.push(serde_json::from_str(body)?),
            Some(RecordType::Mission) => data.missions.push(serde_json::from_str(body)?),
            Some(RecordType::Letter) => data.letters.push(serde_json::from_str(body)?),
            None => {}
        }
    }
    Ok(data)
}

fn texts(conn: &Connection, version_id: i64, pool: &mut TextPool) -> Result<(Texts, Coverage)> {
    let mut texts = Texts::default();
    let mut stmt = conn.prepare("SELECT lang, key, text FROM texts WHERE version_id = ?1")?;
    let mut rows = stmt.query([version_id])?;
    while let Some(row) = rows.next()? {
        // Borrowed from the row: most texts are already in the pool, and need no copy.
        let text_at = |i| row.get_ref(i)?.as_str().map_err(rusqlite::Error::from);
        let Ok(language) = Language::parse(text_at(0)?) else { continue };
        let (key, text) = (text_at(1)?, text_at(2)?);
        texts.insert(key, language, pool.share(text));
    }
    let mut stmt = conn.prepare("SELECT lang, translated, total FROM languages WHERE version_id = ?1")?;
    let coverage = stmt
        .query_map([version_id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?.max(0) as u64,
                row.get::<_, i64>(2)?.max(0) as u64,
            ))
        })?
        .filter_map(|row| {
            row.map(|(lang, t, n)| Language::parse(&lang).ok().map(|l| (l, (t, n)))).transpose()
        })
        .collect::<Result<_, _>>()?;
    Ok((texts, coverage))
}

/// The changes to `version_id` from every earlier version, by the earlier version's name.
fn changes(
    conn: &Connection,
    version_id: i64,
    versions: &[(i64, String, i64, String)],
) -> Result<HashMap<String, Vec<Change>>> {
    let names: HashMap<i64, &str> = versions.iter().map(|(id, name, ..)| (*id, name.as_str())).collect();
    let mut stmt = conn.prepare(
        "SELECT from_version_id, type, record_key, change, fields FROM changes WHERE version_id = ?1 ORDER BY from_version_id, seq",
    )?;
    let mut rows = stmt.query(params![version_id])?;
    let mut changes: HashMap<String, Vec<Change>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let from: i64 = row.get(0)?;
        let kind: String = row.get(1)?;
        let change: String = row.get(3)?;
        let (Some(from), Some(kind), Ok(change)) =
            (names.get(&from), RecordType::parse(&kind), ChangeKind::parse(&change))
        else {
            continue;
        };
        let fields: String = row.get(4)?;
        changes.entry((*from).to_owned()).or_default().push(Change {
            kind,
            record_key: row.get(2)?,
            change,
            fields: serde_json::from_str(&fields)?,
        });
    }
    Ok(changes)
}

fn counts(data: &GameData) -> BTreeMap<RecordType, u64> {
    let mut counts = BTreeMap::new();
    for (kind, _) in record_names(data) {
        *counts.entry(kind).or_default() += 1;
    }
    counts
}
