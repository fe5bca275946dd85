//! The layout of the game-data database.
//!
//! `records` keeps every record exactly as the data format wrote it (its JSON body), so that the
//! store never loses a field and later generations can derive new tables from it; the columns beside
//! the body exist only to find records. Texts, per-language coverage and the changes between versions
//! are derived at import and stored, so that serving never recomputes them.

use rusqlite::Connection;

use crate::Result;

/// Generation of this layout, kept in SQLite's `user_version`. Generation 1 had no `exports`,
/// generation 2 no `exports.edition` and generation 3 no pictures; all are still read (without
/// pictures), and an import brings them up to date.
pub(crate) const SCHEMA_VERSION: i64 = 4;

/// The oldest generation this build reads.
pub(crate) const OLDEST_READABLE: i64 = 1;

const DDL: &str = "
CREATE TABLE versions (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE,
    build_id      INTEGER NOT NULL UNIQUE,
    released      TEXT    NOT NULL,
    source_sha256 TEXT    NOT NULL
);

-- One row per record of a version. `record_key` names the record within its type in every version:
-- the id in decimal, or the progression key.
CREATE TABLE records (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    type       TEXT    NOT NULL,
    record_key TEXT    NOT NULL,
    id         INTEGER,
    slug       TEXT,
    body       TEXT    NOT NULL,
    PRIMARY KEY (version_id, type, record_key)
) WITHOUT ROWID;
CREATE INDEX records_by_slug ON records (version_id, type, slug) WHERE slug IS NOT NULL;

-- Texts that records refer to, and the names of languages (`language.<code>`), per language.
CREATE TABLE texts (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    lang       TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    text       TEXT    NOT NULL,
    PRIMARY KEY (version_id, lang, key)
) WITHOUT ROWID;

-- How much of a version each language translates: of `total` texts that records refer to,
-- `translated` have a non-empty translation.
CREATE TABLE languages (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    lang       TEXT    NOT NULL,
    translated INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    PRIMARY KEY (version_id, lang)
) WITHOUT ROWID;

-- What changed from an earlier version to a later one, for every pair of versions.
CREATE TABLE changes (
    version_id      INTEGER NOT NULL REFERENCES versions (id),
    from_version_id INTEGER NOT NULL REFERENCES versions (id),
    seq             INTEGER NOT NULL,
    type            TEXT    NOT NULL,
    record_key      TEXT    NOT NULL,
    change          TEXT    NOT NULL CHECK (change IN ('added', 'removed', 'modified')),
    fields          TEXT    NOT NULL,
    PRIMARY KEY (version_id, from_version_id, seq)
) WITHOUT ROWID;
";

/// The bulk exports of each version in each language: built at import by the importer's caller from
/// the data as it is served, kept as bytes the store knows nothing about, with the edition of the
/// builder that wrote them (which changes with the answers' shapes). A rowid table, as SQLite advises
/// for rows this large.
const EXPORTS: &str = "
CREATE TABLE exports (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    lang       TEXT    NOT NULL,
    records    INTEGER NOT NULL,
    sha256     BLOB    NOT NULL,
    body       BLOB    NOT NULL,
    edition    TEXT    NOT NULL,
    UNIQUE (version_id, lang)
);
";

/// The pictures records name, once per content (`sha256` of the file as the dataset held it), with
/// every size and format served made from each (`sha256` there is of the variant's bytes, its entity
/// tag), and which picture each path of a version names. Rowid tables for the pictures, as SQLite
/// advises for rows of blobs.
const PICTURES: &str = "
CREATE TABLE pictures (
    sha256 BLOB PRIMARY KEY,
    body   BLOB NOT NULL
);

CREATE TABLE picture_variants (
    picture BLOB    NOT NULL REFERENCES pictures (sha256),
    side    INTEGER NOT NULL,
    format  TEXT    NOT NULL,
    sha256  BLOB    NOT NULL,
    body    BLOB    NOT NULL,
    PRIMARY KEY (picture, side, format)
);

CREATE TABLE assets (
    version_id INTEGER NOT NULL REFERENCES versions (id),
    path       TEXT    NOT NULL,
    picture    BLOB    NOT NULL REFERENCES pictures (sha256),
    PRIMARY KEY (version_id, path)
) WITHOUT ROWID;
";

/// Lays out an empty database.
pub(crate) fn create(conn: &Connection) -> Result<()> {
    conn.execute_batch(DDL)?;
    conn.execute_batch(EXPORTS)?;
    conn.execute_batch(PICTURES)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(())
}

/// Brings a database of an older generation up to this one, one generation at a time; whether it
/// had to.
pub(crate) fn upgrade(conn: &Connection) -> Result<bool> {
    let found = version(conn)?;
    if found >= SCHEMA_VERSION {
        return Ok(false);
    }
    if found < 2 {
        conn.execute_batch(EXPORTS)?;
    } else if found < 3 {
        // Exports of no known edition: the import rebuilds them.
        conn.execute_batch("ALTER TABLE exports ADD COLUMN edition TEXT NOT NULL DEFAULT ''")?;
    }
    // A version imported without pictures gets them when its folder is imported again (the folder's
    // hash now covers its pictures, so it no longer matches the one kept); until then it has none.
    conn.execute_batch(PICTURES)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(true)
}

/// The layout generation of an existing database.
pub(crate) fn version(conn: &Connection) -> Result<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?)
}
