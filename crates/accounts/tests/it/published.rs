//! Game data published for every replica, in PostgreSQL: generations stored whole or not at all,
//! one current, old ones forgotten beyond what is kept, a rollback, and chunks that do not add up
//! refused. A store in one data dir has nothing to share and says so.

use tapster_accounts::{Error, NewGeneration};

use crate::{at, postgres_store, store};

/// A generation of `size` stored bytes (more than one chunk when large), its SHA-256 `seed`s.
fn new_generation(seed: u8, size: usize, versions: &[&str]) -> NewGeneration {
    NewGeneration {
        sha256: [seed; 32],
        size: size as u64 * 3,
        versions: versions.iter().map(|v| (*v).to_owned()).collect(),
        published_by: "marta@build".into(),
        stored: (0..size).map(|n| (n % 251) as u8 ^ seed).collect(),
    }
}

#[tokio::test]
async fn generations_are_published_listed_kept_and_activated() {
    let Some(store) = postgres_store().await else { return };
    let accounts = &store.accounts;
    assert_eq!(accounts.current_generation().await.unwrap(), None);

    // Three megabytes and a half: four chunks, read back in order.
    let first = new_generation(1, 3_500_000, &["v1.0.0.0.1"]);
    let published = accounts.publish_generation(first.clone(), 2, at(0)).await.unwrap();
    assert!(published.current);
    assert_eq!(published.size, 10_500_000);
    assert_eq!(published.stored, 3_500_000);
    assert_eq!(published.published_by, "marta@build");
    assert_eq!(accounts.generation_bytes(published.number).await.unwrap(), first.stored);
    assert_eq!(accounts.current_generation().await.unwrap(), Some(published.clone()));

    // Two more, keeping two: the first is forgotten, the newest is current.
    let second =
        accounts.publish_generation(new_generation(2, 10, &["v1.0.1.0.0", "v1.0.0.0.1"]), 2, at(1)).await;
    let second = second.unwrap();
    let third = accounts.publish_generation(new_generation(3, 10, &["v1.0.2.0.0"]), 2, at(2)).await.unwrap();
    let listed = accounts.generations().await.unwrap();
    assert_eq!(
        listed.iter().map(|g| (g.number, g.current)).collect::<Vec<_>>(),
        [(third.number, true), (second.number, false)]
    );
    assert_eq!(listed[1].versions, ["v1.0.1.0.0", "v1.0.0.0.1"]);
    assert!(matches!(accounts.generation_bytes(published.number).await, Err(Error::NoSuchGeneration(_))));

    // A rollback: the second is current again, and what is kept stays.
    let back = accounts.activate_generation(second.number).await.unwrap();
    assert!(back.current && back.sha256 == [2; 32]);
    assert_eq!(accounts.current_generation().await.unwrap().map(|g| g.number), Some(second.number));
    assert_eq!(accounts.generations().await.unwrap().len(), 2);
    // The next publish is current, and the two newest are kept.
    let fourth = accounts.publish_generation(new_generation(4, 10, &[]), 2, at(3)).await.unwrap();
    let kept: Vec<(i64, bool)> =
        accounts.generations().await.unwrap().iter().map(|g| (g.number, g.current)).collect();
    assert_eq!(kept, [(fourth.number, true), (third.number, false)]);
    assert!(matches!(accounts.activate_generation(9_999).await, Err(Error::NoSuchGeneration(9_999))));
}

#[tokio::test]
async fn chunks_that_do_not_add_up_are_refused() {
    let Some(store) = postgres_store().await else { return };
    let accounts = &store.accounts;
    let published = accounts.publish_generation(new_generation(7, 2_500_000, &[]), 5, at(0)).await.unwrap();
    let url = store.postgres_url().unwrap();
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .execute("DELETE FROM generation_chunks WHERE generation = $1 AND index = 1", &[&published.number])
        .await
        .unwrap();
    match accounts.generation_bytes(published.number).await {
        Err(Error::BrokenGeneration { number, reason }) => {
            assert_eq!(number, published.number);
            assert!(reason.contains("chunk 1 is missing"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_store_in_one_data_dir_has_nothing_to_publish_to() {
    let accounts = store().await.accounts;
    assert!(matches!(accounts.current_generation().await, Err(Error::NotShared)));
    assert!(matches!(
        accounts.publish_generation(new_generation(1, 10, &[]), 5, at(0)).await,
        Err(Error::NotShared)
    ));
    let message = accounts.generations().await.unwrap_err().to_string();
    assert!(message.contains("--accounts-url") && message.contains("tapster import"), "{message}");
}
