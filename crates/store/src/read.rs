//! Serving from the store: the published versions, held in memory because they are few and fixed
//! for the life of an opened store, and queries through a pool of read-only connections.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{OpenFlags, params};
use tapster_domain::{BuildId, GameVersion, RecordType, VersionSelector};
use tapster_i18n::Language;

use crate::import::LANGUAGE_NAME_PREFIX;
use crate::{Error, GAME_DB, Result, schema};

/// Connections kept open for serving; SQLite readers do not block each other.
const POOL_SIZE: u32 = 8;

/// An opened game-data store.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
    pool: Pool<SqliteConnectionManager>,
    versions: Arc<[VersionInfo]>,
}

/// A published game version and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    id: i64,
    pub name: GameVersion,
    pub build_id: BuildId,
    /// Release date, `YYYY-MM-DD`.
    pub released: String,
    /// Whether it is the version `latest` names.
    pub latest: bool,
    /// The version released before it, if any.
    pub previous: Option<GameVersion>,
    /// What changed since `previous`.
    pub changes: Option<ChangeSummary>,
    /// Number of records of each type.
    pub counts: BTreeMap<RecordType, u64>,
    /// Codes of the languages it has texts in.
    pub languages: Vec<Language>,
}

/// How many records a version added, removed and modified relative to the one before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeSummary {
    pub added: u64,
    pub removed: u64,
    pub modified: u64,
}

/// A language of one game version: its name and how much of the version it translates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageInfo {
    pub language: Language,
    /// The language's name in the requested language, and the language that name is actually in
    /// (English when the requested language does not name it).
    pub name: (String, Language),
    /// Texts of the version's records that are translated, of `total`.
    pub translated: u64,
    pub total: u64,
}

impl Store {
    /// Opens the store of `data_dir` for serving, read-only.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(GAME_DB);
        if !path.is_file() {
            return Err(Error::NoData(data_dir.to_owned()));
        }
        let manager = SqliteConnectionManager::file(&path)
            .with_flags(OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX);
        let pool = Pool::builder().max_size(POOL_SIZE).build(manager)?;
        let conn = pool.get()?;
        let found = schema::version(&conn)?;
        if found != schema::SCHEMA_VERSION {
            return Err(Error::Schema { path, found, expected: schema::SCHEMA_VERSION });
        }
        let versions = load_versions(&conn)?;
        if versions.is_empty() {
            return Err(Error::NoData(data_dir.to_owned()));
        }
        drop(conn);
        Ok(Self { path, pool, versions: versions.into() })
    }

    /// The database file this store reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every published version, newest first.
    pub fn versions(&self) -> &[VersionInfo] {
        &self.versions
    }

    pub fn latest(&self) -> &VersionInfo {
        &self.versions[0]
    }

    /// The version a selector names, if it is published.
    pub fn resolve(&self, selector: &VersionSelector) -> Option<&VersionInfo> {
        match selector {
            VersionSelector::Latest => Some(self.latest()),
            VersionSelector::Exact(name) => self.versions.iter().find(|v| &v.name == name),
        }
    }

    /// The languages of `version`, in the game's order, named in `lang`.
    pub fn languages(&self, version: &VersionInfo, lang: Language) -> Result<Vec<LanguageInfo>> {
        let conn = self.pool.get()?;
        let mut names = conn.prepare_cached(
            "SELECT lang, key, text FROM texts WHERE version_id = ?1 AND lang IN (?2, ?3) AND key >= ?4 AND key < ?5",
        )?;
        let mut found: BTreeMap<(String, Language), String> = BTreeMap::new();
        let upper = format!("{}\u{10FFFF}", LANGUAGE_NAME_PREFIX);
        let rows = names.query_map(
            params![version.id, lang.code(), Language::SOURCE.code(), LANGUAGE_NAME_PREFIX, upper],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?)),
        )?;
        for row in rows {
            let (table, key, text) = row?;
            let (Ok(table), Some(code)) = (Language::parse(&table), key.strip_prefix(LANGUAGE_NAME_PREFIX))
            else {
                continue;
            };
            found.insert((code.to_owned(), table), text);
        }
        let mut coverage =
            conn.prepare_cached("SELECT lang, translated, total FROM languages WHERE version_id = ?1")?;
        let counts: BTreeMap<String, (u64, u64)> = coverage
            .query_map([version.id], |row| Ok((row.get(0)?, (count(row, 1)?, count(row, 2)?))))?
            .collect::<Result<_, _>>()?;
        Ok(version
            .languages
            .iter()
            .map(|&language| {
                let code = language.code().to_owned();
                let name = tapster_i18n::translate(lang, |table| {
                    found.get(&(code.clone(), table)).map(String::as_str)
                })
                .map(|t| (t.text.to_owned(), t.language))
                .unwrap_or_else(|| (language.english_name().to_owned(), Language::SOURCE));
                let (translated, total) = counts.get(language.code()).copied().unwrap_or_default();
                LanguageInfo { language, name, translated, total }
            })
            .collect())
    }
}

fn load_versions(conn: &rusqlite::Connection) -> Result<Vec<VersionInfo>> {
    let mut stmt =
        conn.prepare("SELECT id, name, build_id, released FROM versions ORDER BY build_id DESC")?;
    let rows: Vec<(i64, String, i64, String)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let mut counts_stmt =
        conn.prepare("SELECT type, count(*) FROM records WHERE version_id = ?1 GROUP BY type")?;
    let mut languages_stmt = conn.prepare("SELECT lang FROM languages WHERE version_id = ?1")?;
    let mut changes_stmt = conn.prepare(
        "SELECT change, count(*) FROM changes WHERE version_id = ?1 AND from_version_id = ?2 GROUP BY change",
    )?;
    let mut versions = Vec::with_capacity(rows.len());
    for (index, (id, name, build_id, released)) in rows.iter().enumerate() {
        let name = GameVersion::parse(name)
            .map_err(|e| Error::Conflict(format!("stored version name {name:?} {e}")))?;
        let counts = counts_stmt
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, count(row, 1)?)))?
            .filter_map(|row| row.map(|(kind, n)| RecordType::parse(&kind).map(|k| (k, n))).transpose())
            .collect::<Result<_, _>>()?;
        let mut languages: Vec<Language> = languages_stmt
            .query_map([id], |row| row.get::<_, String>(0))?
            .filter_map(|code| code.map(|c| Language::parse(&c).ok()).transpose())
            .collect::<Result<_, _>>()?;
        languages.sort();
        let previous = rows.get(index + 1);
        let changes = match previous {
            Some((previous_id, ..)) => {
                let mut summary = ChangeSummary::default();
                let rows = changes_stmt.query_map(params![id, previous_id], |row| {
                    Ok((row.get::<_, String>(0)?, count(row, 1)?))
                })?;
                for row in rows {
                    let (change, n) = row?;
                    match change.as_str() {
                        "added" => summary.added = n,
                        "removed" => summary.removed = n,
                        _ => summary.modified = n,
                    }
                }
                Some(summary)
            }
            None => None,
        };
        versions.push(VersionInfo {
            id: *id,
            name,
            build_id: *build_id,
            released: released.clone(),
            latest: index == 0,
            previous: previous.and_then(|(_, name, ..)| GameVersion::parse(name).ok()),
            changes,
            counts,
            languages,
        });
    }
    Ok(versions)
}

/// Reads a count column; SQLite integers are signed, counts never negative.
fn count(row: &rusqlite::Row<'_>, column: usize) -> rusqlite::Result<u64> {
    row.get::<_, i64>(column).map(|n| n.max(0) as u64)
}
