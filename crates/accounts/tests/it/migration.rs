//! A data dir written by the first server (schema 1) opens under this build with every account,
//! key and count intact.

use rusqlite::Connection;
use tapster_accounts::{Accounts, Error, Location, hash_key};
use tapster_domain::Timestamp;
use tempfile::TempDir;

use crate::{api_key, email};

/// The first generation's tables, as that build created them.
const V1: &str = include_str!("../../src/sqlite/migrations/1.sql");

#[tokio::test]
async fn a_first_generation_store_is_brought_up_to_date() {
    let dir = TempDir::new().unwrap();
    let key = api_key(1);
    {
        let conn = Connection::open(dir.path().join("accounts.sqlite")).unwrap();
        conn.execute_batch(V1).unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO accounts (id, email, confirmed, suspended, created_at) VALUES
                 (1, 'local@localhost', 1, 0, 100), (2, 'late@example.org', 0, 1, 200);
             INSERT INTO keys (id, account_id, name, prefix, sha256, per_minute, burst, per_day, created_at)
                 VALUES (7, 1, 'local', '{}', x'{}', 300, 60, 20000, 150);
             INSERT INTO daily_usage VALUES (7, 20000, 42);
             PRAGMA user_version = 1;",
            key.display_prefix(),
            hash_key(&key).iter().map(|b| format!("{b:02x}")).collect::<String>()
        ))
        .unwrap();
    }
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    let snapshot = accounts.snapshot().await.unwrap();
    let access = &snapshot.keys[&hash_key(&key)];
    assert_eq!((access.id, access.account_confirmed, access.expires_at), (7, true, None));
    assert_eq!(accounts.usage_on(20000).await.unwrap()[&7], 42);
    let listed = accounts.list_keys(Some(&email("local@localhost"))).await.unwrap();
    assert_eq!(listed[0].created_at, Timestamp(150));
    // The unconfirmed address of the first generation is kept, but only as one to confirm.
    let late = accounts.account(tapster_accounts::AccountId(2)).await.unwrap();
    assert_eq!((late.email, late.pending_email), (None, Some(email("late@example.org"))));
    assert!(late.suspension.is_some());

    // Opening again changes nothing.
    drop(accounts);
    let again = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    assert_eq!(again.snapshot().await.unwrap().keys.len(), 1);
}

#[tokio::test]
async fn a_store_from_a_later_generation_is_refused() {
    let dir = TempDir::new().unwrap();
    Connection::open(dir.path().join("accounts.sqlite"))
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let opened = Accounts::open(&Location::DataDir(dir.path().to_owned())).await;
    assert!(matches!(opened, Err(Error::Schema { found: 99, .. })), "{opened:?}");
}
