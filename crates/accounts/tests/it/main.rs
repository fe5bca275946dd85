//! The accounts store against its real backends: SQLite files in temporary data dirs, and a
//! PostgreSQL schema of its own per test. Every behaviour test runs on both ([`stores`]), so the two
//! backends cannot drift apart. Time is given to every call, so expiries are tested to the second.

#[cfg(unix)]
mod files;
mod keys;
mod migration;
mod postgres;
mod published;
mod sessions;
mod signin;
mod tls;
mod webhooks;

use tapster_accounts::{Accounts, Location, Token};
use tapster_domain::{ApiKey, Email, Timestamp};
use tapster_test_support::accounts::{T0, signed_up};
use tapster_test_support::postgres::TestSchema;
use tempfile::TempDir;

/// A fresh store (kept while the value lives): SQLite in a data dir of its own, or PostgreSQL in a
/// schema of its own (with a data dir beside it all the same).
struct Store {
    accounts: Accounts,
    dir: TempDir,
    schema: Option<TestSchema>,
}

impl Store {
    /// The URL of the PostgreSQL schema this store is in, for a test that changes it behind the
    /// store's back.
    fn postgres_url(&self) -> Option<&str> {
        self.schema.as_ref().map(TestSchema::url)
    }

    /// Runs `sql` on the store's database behind its back, for a test of what the store makes of rows
    /// it never writes itself.
    async fn execute_behind(&self, sql: &str) {
        match self.postgres_url() {
            Some(url) => {
                let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(connection);
                client.batch_execute(sql).await.unwrap();
            }
            None => {
                let conn =
                    rusqlite::Connection::open(self.dir.path().join(tapster_accounts::ACCOUNTS_DB)).unwrap();
                conn.execute_batch(sql).unwrap();
            }
        }
    }
}

/// A fresh SQLite store.
async fn store() -> Store {
    let dir = TempDir::new().unwrap();
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    Store { accounts, dir, schema: None }
}

/// A fresh PostgreSQL store; `None` where PostgreSQL is not running (said on stderr; a failure
/// where the services are required).
async fn postgres_store() -> Option<Store> {
    let schema = TestSchema::create()?;
    let accounts = Accounts::open(&Location::Postgres(schema.url().to_owned())).await.unwrap();
    Some(Store { accounts, dir: TempDir::new().unwrap(), schema: Some(schema) })
}

/// A fresh store on each backend, SQLite first, for the behaviour every backend must have.
async fn stores() -> Vec<Store> {
    let mut stores = vec![store().await];
    stores.extend(postgres_store().await);
    stores
}

fn email(value: &str) -> Email {
    Email::parse(value).unwrap()
}

/// A distinct token or key per call, from a counter: the tests need different secrets, not random ones.
fn token(seed: u8) -> Token {
    Token::from_random([seed; 32])
}

fn api_key(seed: u8) -> ApiKey {
    let mut n = seed;
    ApiKey::generate(|| {
        n = n.wrapping_mul(31).wrapping_add(7);
        n
    })
}

fn at(seconds_after_t0: i64) -> Timestamp {
    Timestamp(T0.0 + seconds_after_t0)
}
