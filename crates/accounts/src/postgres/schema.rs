//! The PostgreSQL schema and the steps from each generation to the next. The table `schema_version`
//! says which generation a database is. Every replica brings it up to date when it starts, in one
//! transaction under an advisory lock: replicas starting together wait for each other, the first
//! migrates, the others find it done, and a replica running meanwhile sees the schema whole before
//! or whole after.

use tokio_postgres::Client;

use crate::error::{Error, Result};

/// Each step takes the database from generation `n` to `n + 1` (the first from an empty schema).
const STEPS: &[&str] = &[V1, V2, V3, V4];

/// The generation this build writes.
pub(crate) const VERSION: i64 = STEPS.len() as i64;

/// Accounts, keys, blocks, daily usage, sign-ins, links and sessions, and the access version the
/// replicas watch.
const V1: &str = include_str!("migrations/1.sql");

/// Game data published for every replica: generations, their chunks, the current one.
const V2: &str = include_str!("migrations/2.sql");

/// Browser keys: the origins a key answers.
const V3: &str = include_str!("migrations/3.sql");

/// Webhooks: endpoints, the events announced, the outbox and the tries at delivering it.
const V4: &str = include_str!("migrations/4.sql");

/// The advisory lock migrations hold ("tap" and "m" in ASCII).
const MIGRATION_LOCK: i64 = 0x7461_706d;

/// Brings the database to [`VERSION`]; refuses one of a later generation.
pub(crate) async fn migrate(client: &mut Client, shown: &str) -> Result<()> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)").await?;
    let found: i64 =
        tx.query_opt("SELECT version FROM schema_version", &[]).await?.map_or(0, |row| row.get(0));
    if found > VERSION {
        return Err(Error::Schema { store: shown.to_owned(), found, expected: VERSION });
    }
    if found == VERSION {
        return Ok(());
    }
    for step in &STEPS[usize::try_from(found).unwrap_or(0)..] {
        tx.batch_execute(step).await?;
    }
    tx.execute("DELETE FROM schema_version", &[]).await?;
    tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&VERSION]).await?;
    tx.commit().await?;
    Ok(())
}
