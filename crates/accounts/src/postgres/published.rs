//! Game data published for every replica: each generation's bytes (as the publisher stored them)
//! in chunks of [`CHUNK`] bytes, written in one transaction with what describes them and made
//! current in the same one, so that a replica sees a generation whole or not at all. Publishing is
//! serialized by an advisory lock of its own, so that a publish of many megabytes holds up no key
//! change.

use tapster_domain::Timestamp;
use tokio_postgres::{Client, GenericClient, IsolationLevel, Row};

use crate::error::{Error, Result};
use crate::model::{Generation, NewGeneration};

/// Bytes per stored chunk: far below PostgreSQL's limits on a value and a message, few rows a file.
const CHUNK: usize = 1 << 20;

/// The advisory lock publishers hold ("tap" and "p" in ASCII).
const PUBLISH_LOCK: i64 = 0x7461_7070;

const COLUMNS: &str = "g.number, g.sha256, g.size, g.stored, g.versions, g.published_at, g.published_by, \
                       c.number IS NOT NULL";

/// Stores `new` as the next generation and makes it current; then deletes the oldest generations
/// beyond `keep` (never the current one). Returns the generation stored.
pub(crate) async fn publish_generation(
    client: &mut Client,
    new: &NewGeneration,
    keep: usize,
    now: Timestamp,
) -> Result<Generation> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PUBLISH_LOCK]).await?;
    let chunks: Vec<&[u8]> = new.stored.chunks(CHUNK).collect();
    let number: i64 = tx
        .query_one(
            "INSERT INTO generations (sha256, size, stored, chunks, versions, published_at, published_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING number",
            &[
                &new.sha256.as_slice(),
                &bigint(new.size),
                &bigint(new.stored.len() as u64),
                &i32::try_from(chunks.len()).unwrap_or(i32::MAX),
                &new.versions,
                &now.0,
                &new.published_by,
            ],
        )
        .await?
        .get(0);
    let insert =
        tx.prepare("INSERT INTO generation_chunks (generation, index, bytes) VALUES ($1, $2, $3)").await?;
    for (index, chunk) in chunks.iter().enumerate() {
        tx.execute(&insert, &[&number, &i32::try_from(index).unwrap_or(i32::MAX), chunk]).await?;
    }
    make_current(&tx, number).await?;
    tx.execute(
        "DELETE FROM generations WHERE number NOT IN (SELECT number FROM generations ORDER BY number DESC LIMIT $1)
         AND number <> (SELECT number FROM current_generation)",
        &[&bigint(keep as u64)],
    )
    .await?;
    let generation = one(&tx, number).await?;
    tx.commit().await?;
    Ok(generation)
}

/// Every generation kept, newest first.
pub(crate) async fn generations(client: &mut Client) -> Result<Vec<Generation>> {
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM generations g LEFT JOIN current_generation c ON c.number = g.number
                 ORDER BY g.number DESC"
            ),
            &[],
        )
        .await?;
    rows.iter().map(generation).collect()
}

/// The generation every replica is to serve, if one was published.
pub(crate) async fn current_generation(client: &mut Client) -> Result<Option<Generation>> {
    let row = client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM current_generation c JOIN generations g ON g.number = c.number"),
            &[],
        )
        .await?;
    row.as_ref().map(generation).transpose()
}

/// Makes the kept generation `number` the current one again (a rollback, or forward again).
pub(crate) async fn activate_generation(client: &mut Client, number: i64) -> Result<Generation> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PUBLISH_LOCK]).await?;
    if tx.query_opt("SELECT 1 FROM generations WHERE number = $1", &[&number]).await?.is_none() {
        return Err(Error::NoSuchGeneration(number));
    }
    make_current(&tx, number).await?;
    let generation = one(&tx, number).await?;
    tx.commit().await?;
    Ok(generation)
}

/// The stored bytes of generation `number`, its chunks in order; refused when they do not add up
/// to what was stored. Read in one snapshot, so that a publish deleting the generation meanwhile
/// is not taken for damage.
pub(crate) async fn generation_bytes(client: &mut Client, number: i64) -> Result<Vec<u8>> {
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let described =
        tx.query_opt("SELECT stored, chunks FROM generations WHERE number = $1", &[&number]).await?;
    let Some(described) = described else { return Err(Error::NoSuchGeneration(number)) };
    let (stored, chunks): (i64, i32) = (described.get(0), described.get(1));
    let rows = tx
        .query("SELECT index, bytes FROM generation_chunks WHERE generation = $1 ORDER BY index", &[&number])
        .await?;
    tx.commit().await?;
    let broken = |reason: String| Error::BrokenGeneration { number, reason };
    let mut bytes = Vec::with_capacity(usize::try_from(stored).unwrap_or(0));
    for (expected, row) in (0..).zip(&rows) {
        let index: i32 = row.get(0);
        if index != expected {
            return Err(broken(format!("chunk {expected} is missing")));
        }
        bytes.extend_from_slice(row.get::<_, &[u8]>(1));
    }
    if rows.len() != usize::try_from(chunks).unwrap_or(0) || bytes.len() as u64 != stored as u64 {
        return Err(broken(format!(
            "{} chunks of {} bytes were stored, {} of {} bytes are there",
            chunks,
            stored,
            rows.len(),
            bytes.len()
        )));
    }
    Ok(bytes)
}

async fn make_current(tx: &impl GenericClient, number: i64) -> Result<()> {
    tx.execute(
        "INSERT INTO current_generation (one, number) VALUES (true, $1)
         ON CONFLICT (one) DO UPDATE SET number = excluded.number",
        &[&number],
    )
    .await?;
    Ok(())
}

async fn one(tx: &impl GenericClient, number: i64) -> Result<Generation> {
    let row = tx
        .query_one(
            &format!(
                "SELECT {COLUMNS} FROM generations g LEFT JOIN current_generation c ON c.number = g.number
                 WHERE g.number = $1"
            ),
            &[&number],
        )
        .await?;
    generation(&row)
}

fn generation(row: &Row) -> Result<Generation> {
    let sha256: &[u8] = row.get(1);
    Ok(Generation {
        number: row.get(0),
        sha256: sha256
            .try_into()
            .map_err(|_| Error::Corrupt(format!("a generation's SHA-256 {sha256:02x?}")))?,
        size: u64::try_from(row.get::<_, i64>(2)).unwrap_or(0),
        stored: u64::try_from(row.get::<_, i64>(3)).unwrap_or(0),
        versions: row.get(4),
        published_at: Timestamp(row.get(5)),
        published_by: row.get(6),
        current: row.get(7),
    })
}

/// A size as BIGINT (sizes of files never come near its end).
fn bigint(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
