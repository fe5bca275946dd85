//! What only the PostgreSQL backend has: its schema brought up to date by replicas starting at
//! once, a later generation refused, and the access version the replicas watch.

use tapster_accounts::{Accounts, Error, KeyAction, KeySelector, Location};
use tapster_domain::{AddressBlock, Limits};
use tapster_test_support::postgres::TestSchema;

use crate::{T0, api_key, email, postgres_store};

#[tokio::test]
async fn replicas_starting_at_once_on_an_empty_database_end_with_one_schema() {
    let Some(schema) = TestSchema::create() else { return };
    let location = Location::Postgres(schema.url().to_owned());
    let opened = open_at_once(&location).await;
    for accounts in &opened {
        assert!(accounts.list_keys(None).await.unwrap().is_empty());
    }
    // Each sees what another writes: there is one set of tables.
    let key = api_key(1);
    let name = tapster_accounts::KeyName::parse("shared").unwrap();
    opened[0].admin_create_key(&email("a@example.org"), &name, Limits::DEFAULT, &key, T0).await.unwrap();
    for accounts in &opened {
        assert!(!accounts.list_keys(None).await.unwrap().is_empty());
    }
}

/// Opens the same store from four tasks at once, as four replicas starting together would.
async fn open_at_once(location: &Location) -> Vec<Accounts> {
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let location = location.clone();
            tokio::spawn(async move { Accounts::open(&location).await })
        })
        .collect();
    let mut opened = Vec::new();
    for task in tasks {
        opened.push(task.await.unwrap().unwrap());
    }
    opened
}

#[tokio::test]
async fn a_database_of_a_later_generation_is_refused() {
    let Some(schema) = TestSchema::create() else { return };
    let location = Location::Postgres(schema.url().to_owned());
    drop(Accounts::open(&location).await.unwrap());
    let (client, connection) = tokio_postgres::connect(schema.url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.execute("UPDATE schema_version SET version = 99", &[]).await.unwrap();
    let opened = Accounts::open(&location).await;
    assert!(matches!(opened, Err(Error::Schema { found: 99, .. })), "{opened:?}");
}

/// Another replica's watcher sees a change to what the gate decides on, and only such a change.
#[tokio::test]
async fn the_access_version_moves_with_access_and_not_with_usage() {
    let Some(s) = postgres_store().await else { return };
    let other = Accounts::open(&Location::Postgres(s.postgres_url().unwrap().to_owned())).await.unwrap();
    let mut watcher = other.watcher().unwrap();
    assert!(watcher.changed().await.unwrap(), "the first look always says changed");
    assert!(!watcher.changed().await.unwrap());

    let key = api_key(1);
    let name = tapster_accounts::KeyName::parse("k").unwrap();
    let record =
        s.accounts.admin_create_key(&email("a@example.org"), &name, Limits::DEFAULT, &key, T0).await.unwrap();
    assert!(watcher.changed().await.unwrap(), "a new key");
    assert!(!watcher.changed().await.unwrap());

    let usage = tapster_accounts::Usage { key_id: record.id, day: 20_000, requests: 5, last_used: T0 };
    s.accounts.record_usage(vec![usage]).await.unwrap();
    assert!(!watcher.changed().await.unwrap(), "usage decides nothing");

    s.accounts.change_key(&KeySelector::Id(record.id), KeyAction::Revoke, T0).await.unwrap();
    assert!(watcher.changed().await.unwrap(), "a revocation");
    s.accounts.block(AddressBlock::parse("192.0.2.0/24").unwrap(), T0).await.unwrap();
    assert!(watcher.changed().await.unwrap(), "a block");
    s.accounts.set_account_suspended(&email("a@example.org"), true, Some("abuse")).await.unwrap();
    assert!(watcher.changed().await.unwrap(), "a suspension");
}

#[test]
fn an_accounts_url_names_postgres_or_nothing() {
    let dir = std::path::Path::new("/data");
    assert_eq!(Location::new(None, dir).unwrap(), Location::DataDir(dir.to_owned()));
    let url = "postgres://app:secret@db:5432/tapster";
    let location = Location::new(Some(url), dir).unwrap();
    assert_eq!(location, Location::Postgres(url.to_owned()));
    assert_eq!(location.to_string(), "postgres://app@db:5432/tapster", "no password in messages");
    let refused = Location::new(Some("mysql://app:secret@db/tapster"), dir).unwrap_err();
    let message = refused.to_string();
    assert!(message.contains("postgres://") && !message.contains("secret"), "{message}");
}
