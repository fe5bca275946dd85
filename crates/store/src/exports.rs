//! The bulk exports kept beside the game data: one file per published version and language, built
//! at import by the importer's caller from the data as it will be served (what is in a file is the
//! wire format's business, not the store's: it keeps bytes, and names a file and its hash as a
//! download shows them), written into the same database as the data so that they are replaced
//! together, in one rename, and read back one file per request.

use std::ops::Range;
use std::sync::Mutex;

use rusqlite::{Connection, MAIN_DB, Transaction, params};
use sha2::{Digest, Sha256};
use tapster_domain::GameVersion;
use tapster_i18n::Language;

use crate::{Error, Result};

/// One file an [`Exporter`](crate::Exporter) built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    pub version: GameVersion,
    pub lang: Language,
    /// How many records it holds.
    pub records: u64,
    pub body: Vec<u8>,
}

/// A kept export, as a store lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportInfo {
    pub version: GameVersion,
    pub lang: Language,
    pub records: u64,
    /// Its length in bytes.
    pub size: u64,
    pub sha256: [u8; 32],
}

impl ExportInfo {
    /// The name a downloaded export is saved under: `tapster-v0.7.0.0.1-de.ndjson.gz`.
    pub fn file_name(&self) -> String {
        format!("tapster-{}-{}.ndjson.gz", self.version, self.lang.code())
    }

    /// Its SHA-256 in lowercase hex, as `sha256sum` prints it.
    pub fn sha256_hex(&self) -> String {
        tapster_domain::hex(&self.sha256)
    }
}

/// The exports of one opened database: their list, read at open, and the connection their bytes are
/// read through. The connection stays on the file the store was read from, so that a body always
/// belongs to the data being served even after an import renamed a new file over it.
#[derive(Debug)]
pub(crate) struct Exports {
    pub(crate) list: Vec<ExportInfo>,
    /// Where each listed export's bytes are: `rows[i]` is the row of `list[i]`.
    rows: Vec<i64>,
    conn: Mutex<Connection>,
}

impl Exports {
    /// The exports of the database `conn` (read-only) has open, of layout `generation`; none in
    /// generation 1. `conn` is the one the store's data was read through, so that the exports are of
    /// the same file even if an import has renamed another over it since.
    pub(crate) fn open(conn: Connection, generation: i64) -> Result<Self> {
        let (list, rows) =
            if generation >= 2 { list(&conn)?.into_iter().unzip() } else { Default::default() };
        Ok(Self { list, rows, conn: Mutex::new(conn) })
    }

    /// The bytes `range` of the export of `version` in `lang`, cut at its end, if one is kept. Only
    /// the pages holding them are read (SQLite's incremental BLOB reads), so that a resumed download
    /// or a small range costs what it asks for rather than the whole file.
    pub(crate) fn bytes(
        &self,
        version: &GameVersion,
        lang: Language,
        range: Range<u64>,
    ) -> Result<Option<Vec<u8>>> {
        let Some(at) = self.list.iter().position(|e| &e.version == version && e.lang == lang) else {
            return Ok(None);
        };
        // A kept export's size came from SQLite, whose values are below 2 GiB: these fit a `usize`.
        let end = range.end.min(self.list[at].size);
        let (start, end) = (range.start.min(end) as usize, end as usize);
        let conn = self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let blob = conn.blob_open(MAIN_DB, c"exports", c"body", self.rows[at], true)?;
        let mut bytes = vec![0; end - start];
        blob.read_at_exact(&mut bytes, start)?;
        Ok(Some(bytes))
    }
}

/// The kept exports, each with its row in `exports`.
fn list(conn: &Connection) -> Result<Vec<(ExportInfo, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT v.name, e.lang, e.records, length(e.body), e.sha256, e.rowid FROM exports e
        JOIN versions v ON v.id = e.version_id ORDER BY v.build_id DESC, e.rowid",
    )?;
    let rows = stmt.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, i64>(2)?,
            row.get::<_, i64>(3)?,
            row.get::<_, Vec<u8>>(4)?,
            row.get::<_, i64>(5)?,
        ))
    })?;
    let mut list = Vec::new();
    for row in rows {
        let (version, lang, records, size, sha256, row) = row?;
        let corrupt =
            || Error::Conflict(format!("the export of {version} in {lang} is damaged; import again"));
        let info = ExportInfo {
            version: GameVersion::parse(&version).map_err(|_| corrupt())?,
            lang: Language::parse(&lang).map_err(|_| corrupt())?,
            records: u64::try_from(records).map_err(|_| corrupt())?,
            size: u64::try_from(size).map_err(|_| corrupt())?,
            sha256: sha256.try_into().map_err(|_| corrupt())?,
        };
        list.push((info, row));
    }
    Ok(list)
}

/// Whether the kept exports are all of `edition`, and there are some.
pub(crate) fn kept_of(tx: &Transaction<'_>, edition: &str) -> Result<bool> {
    let (of_it, others): (i64, i64) = tx.query_row(
        "SELECT count(*) FILTER (WHERE edition = ?1), count(*) FILTER (WHERE edition <> ?1) FROM exports",
        [edition],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    Ok(of_it > 0 && others == 0)
}

/// Replaces every kept export with `files`, written by `edition`, in the import's staging copy; none
/// for an import without exports, whose data the old ones would no longer match.
pub(crate) fn replace(tx: &Transaction<'_>, files: &[ExportFile], edition: &str) -> Result<()> {
    tx.execute("DELETE FROM exports", [])?;
    let mut insert = tx.prepare(
        "INSERT INTO exports (version_id, lang, records, sha256, body, edition)
        SELECT id, ?2, ?3, ?4, ?5, ?6 FROM versions WHERE name = ?1",
    )?;
    for file in files {
        let sha256: [u8; 32] = Sha256::digest(&file.body).into();
        let records = i64::try_from(file.records).unwrap_or(i64::MAX);
        let written = insert.execute(params![
            file.version.as_str(),
            file.lang.code(),
            records,
            sha256.as_slice(),
            file.body,
            edition
        ])?;
        if written != 1 {
            return Err(Error::Conflict(format!(
                "an export names {}, which the imported data does not hold",
                file.version
            )));
        }
    }
    Ok(())
}
