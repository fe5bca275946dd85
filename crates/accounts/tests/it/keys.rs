//! Keys made by owners and by the operator: the 10-key cap, expiry, revocation, what the server's
//! snapshot says of each, usage, and deleting an account.

use tapster_accounts::{
    Error, KeyAction, KeyName, KeySelector, KeyStatus, MAX_ACTIVE_KEYS, Profile, Provider, Usage, hash_key,
};
use tapster_domain::{Limits, Origins, Timestamp};

use crate::{T0, api_key, at, email, signed_up, store, stores, token};

fn name(value: &str) -> KeyName {
    KeyName::parse(value).unwrap()
}

#[tokio::test]
async fn an_owner_may_hold_ten_active_keys() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let mut made = Vec::new();
        for n in 0..MAX_ACTIVE_KEYS as u8 {
            made.push(
                s.accounts.create_key(account, &name("bot"), None, None, &api_key(n), T0).await.unwrap(),
            );
        }
        let eleventh = s.accounts.create_key(account, &name("one more"), None, None, &api_key(100), T0).await;
        assert!(matches!(eleventh, Err(Error::TooManyKeys { max: 10 })));

        // A revoked key frees a place; so does an expired one.
        s.accounts.revoke_key(account, made[0].id, at(1)).await.unwrap();
        s.accounts
            .create_key(account, &name("expiring"), Some(at(100)), None, &api_key(101), at(2))
            .await
            .unwrap();
        assert!(
            s.accounts.create_key(account, &name("full"), None, None, &api_key(102), at(99)).await.is_err()
        );
        s.accounts.create_key(account, &name("after"), None, None, &api_key(103), at(100)).await.unwrap();
    }
}

#[tokio::test]
async fn keys_expire_and_the_snapshot_says_when() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let key = api_key(1);
        let record = s
            .accounts
            .create_key(account, &name("30 days"), Some(at(30 * 86_400)), None, &key, T0)
            .await
            .unwrap();
        assert_eq!(record.status(at(30 * 86_400 - 1)), KeyStatus::Active);
        assert_eq!(record.status(at(30 * 86_400)), KeyStatus::Expired);
        let snapshot = s.accounts.snapshot().await.unwrap();
        let access = &snapshot.keys[&hash_key(&key)];
        assert_eq!(access.expires_at, Some(at(30 * 86_400)));
        assert!(access.account_confirmed && !access.revoked);
    }
}

#[tokio::test]
async fn a_browser_key_keeps_its_origins_and_the_snapshot_says_them() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let origins = Origins::parse_lines("https://calc.example\nhttp://localhost:3000").unwrap().unwrap();
        let (browser, server) = (api_key(1), api_key(2));
        let made = s
            .accounts
            .create_key(account, &name("calculator"), None, Some(&origins), &browser, T0)
            .await
            .unwrap();
        s.accounts.create_key(account, &name("bot"), None, None, &server, T0).await.unwrap();
        assert_eq!(made.origins.as_ref(), Some(&origins));
        assert_eq!(s.accounts.key(account, made.id).await.unwrap().origins.as_ref(), Some(&origins));
        let snapshot = s.accounts.snapshot().await.unwrap();
        assert_eq!(snapshot.keys[&hash_key(&browser)].origins.as_ref(), Some(&origins));
        assert_eq!(snapshot.keys[&hash_key(&server)].origins, None);
    }
}

#[tokio::test]
async fn only_confirmed_unsuspended_accounts_make_keys() {
    for s in stores().await {
        let unconfirmed =
            Profile::new(Provider::Discord, "9", "d", Some(email("d@example.org")), false).unwrap();
        let unconfirmed = s.accounts.sign_in_with(&unconfirmed, T0).await.unwrap().account;
        assert!(matches!(
            s.accounts.create_key(unconfirmed, &name("k"), None, None, &api_key(1), T0).await,
            Err(Error::Unconfirmed)
        ));

        let marta = signed_up(&s.accounts, "marta@example.org", 2, T0).await;
        s.accounts
            .set_account_suspended(&email("marta@example.org"), true, Some("scraping 50 req/s"))
            .await
            .unwrap();
        let refused = s.accounts.create_key(marta, &name("k"), None, None, &api_key(2), T0).await;
        assert!(
            matches!(refused, Err(Error::AccountSuspended { reason: Some(ref r) }) if r == "scraping 50 req/s")
        );
        let account = s.accounts.account(marta).await.unwrap();
        assert_eq!(account.suspension.unwrap().reason.as_deref(), Some("scraping 50 req/s"));
        s.accounts.set_account_suspended(&email("marta@example.org"), false, None).await.unwrap();
        s.accounts.create_key(marta, &name("k"), None, None, &api_key(2), T0).await.unwrap();
        assert!(s.accounts.account(marta).await.unwrap().suspension.is_none());
    }
}

#[tokio::test]
async fn an_owner_sees_and_revokes_only_their_own_keys() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let dana = signed_up(&s.accounts, "dana@example.org", 2, T0).await;
        let hers = s.accounts.create_key(marta, &name("hers"), None, None, &api_key(1), T0).await.unwrap();
        assert!(matches!(s.accounts.revoke_key(dana, hers.id, T0).await, Err(Error::NoSuchKey)));
        assert!(matches!(s.accounts.key(dana, hers.id).await, Err(Error::NoSuchKey)));
        assert!(s.accounts.keys(dana, T0).await.unwrap().is_empty());

        let revoked = s.accounts.revoke_key(marta, hers.id, at(10)).await.unwrap();
        assert_eq!(revoked.status(at(10)), KeyStatus::Revoked);
        // Revoking again changes nothing, not even the time.
        assert_eq!(s.accounts.revoke_key(marta, hers.id, at(20)).await.unwrap().revoked_at, Some(at(10)));
        // Revoked keys stay listed for 30 days.
        assert_eq!(s.accounts.keys(marta, at(10 + 30 * 86_400 - 1)).await.unwrap().len(), 1);
        assert!(s.accounts.keys(marta, at(10 + 30 * 86_400)).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn usage_is_counted_per_key_and_day() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let key = s.accounts.create_key(marta, &name("k"), None, None, &api_key(1), T0).await.unwrap();
        let day = T0.day();
        let usage =
            |day, requests| Usage { key_id: key.id, day, requests, last_used: Timestamp(day * 86_400 + 5) };
        s.accounts.record_usage(vec![usage(day - 1, 7), usage(day, 3)]).await.unwrap();
        s.accounts.record_usage(vec![usage(day, 2)]).await.unwrap();
        assert_eq!(s.accounts.usage_on(day).await.unwrap()[&key.id], 5);
        let recorded = s.accounts.usage(marta, day - 29, day).await.unwrap();
        assert_eq!(
            recorded.iter().map(|u| (u.day, u.requests)).collect::<Vec<_>>(),
            [(day - 1, 7), (day, 5)]
        );
        assert_eq!(
            s.accounts.key(marta, key.id).await.unwrap().last_used_at,
            Some(Timestamp(day * 86_400 + 5))
        );
    }
}

#[tokio::test]
async fn deleting_an_account_revokes_its_keys_and_erases_the_address() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let key = api_key(1);
        s.accounts.create_key(marta, &name("k"), None, None, &key, T0).await.unwrap();
        let github =
            Profile::new(Provider::GitHub, "5", "m", Some(email("marta@example.org")), true).unwrap();
        s.accounts.sign_in_with(&github, T0).await.unwrap();
        s.accounts.create_session(marta, token(9).hash(), "ua", T0).await.unwrap();

        s.accounts.delete_account(marta, at(5)).await.unwrap();
        assert!(matches!(s.accounts.account(marta).await, Err(Error::AccountGone)));
        assert!(s.accounts.snapshot().await.unwrap().keys[&hash_key(&key)].revoked);
        assert_eq!(s.accounts.session(token(9).hash(), at(6)).await.unwrap(), None);
        assert!(matches!(s.accounts.delete_account(marta, at(7)).await, Err(Error::AccountGone)));
        assert!(matches!(s.accounts.unlink_identity(marta, 1).await, Err(Error::AccountGone)));

        // The address and the GitHub identity are free: both now make a new, empty account.
        let again = signed_up(&s.accounts, "marta@example.org", 2, T0).await;
        assert_ne!(again, marta);
        assert!(s.accounts.keys(again, at(8)).await.unwrap().is_empty());
        let github = s.accounts.sign_in_with(&github, at(9)).await.unwrap();
        assert_eq!(github.account, again, "the verified address links the identity to the new account");
    }
}

/// Replicas starting together on an empty store each try to make the first key; one does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_key_is_made_once_however_many_ask_at_once() {
    for s in stores().await {
        let tries: Vec<_> = (0..4u8)
            .map(|n| {
                let accounts = s.accounts.clone();
                tokio::spawn(async move {
                    let key = api_key(n);
                    accounts
                        .admin_create_first_key(
                            &email("local@localhost"),
                            &name("local"),
                            Limits::DEFAULT,
                            &key,
                            T0,
                        )
                        .await
                })
            })
            .collect();
        let mut made = 0;
        for attempt in tries {
            made += usize::from(attempt.await.unwrap().unwrap().is_some());
        }
        assert_eq!(made, 1);
        assert_eq!(s.accounts.list_keys(None).await.unwrap().len(), 1);
        let later = s
            .accounts
            .admin_create_first_key(&email("b@example.org"), &name("b"), Limits::DEFAULT, &api_key(9), T0)
            .await;
        assert!(later.unwrap().is_none(), "a store with a key makes no first one");
    }
}

#[tokio::test]
async fn the_operator_manages_any_key() {
    for s in stores().await {
        let key = api_key(1);
        let record = s
            .accounts
            .admin_create_key(
                &email("Bot@Example.org"),
                &name("ci"),
                Limits::new(60, 10, 1000).unwrap(),
                &key,
                T0,
            )
            .await
            .unwrap();
        assert_eq!(record.account_email, Some(email("bot@example.org")));
        assert_eq!(record.limits, Limits::new(60, 10, 1000).unwrap());
        assert!(!s.accounts.list_keys(None).await.unwrap().is_empty());

        for selector in [record.id.to_string(), record.prefix.clone(), key.expose().to_owned()] {
            let selector = KeySelector::parse(&selector).unwrap();
            assert!(s.accounts.change_key(&selector, KeyAction::Suspend, T0).await.unwrap().suspended);
            assert!(!s.accounts.change_key(&selector, KeyAction::Unsuspend, T0).await.unwrap().suspended);
        }
        let selector = KeySelector::Id(record.id);
        s.accounts.change_key(&selector, KeyAction::Revoke, at(1)).await.unwrap();
        assert!(matches!(
            s.accounts.change_key(&selector, KeyAction::Unsuspend, at(2)).await,
            Err(Error::KeyRevoked { .. })
        ));
        assert!(matches!(
            s.accounts.change_key(&KeySelector::Id(999), KeyAction::Revoke, at(2)).await,
            Err(Error::NoSuchKey)
        ));
        assert!(matches!(KeySelector::parse("nonsense"), Err(Error::BadKeySelector(_))));
        assert_eq!(s.accounts.list_keys(Some(&email("bot@example.org"))).await.unwrap().len(), 1);
        assert!(s.accounts.list_keys(Some(&email("nobody@example.org"))).await.unwrap().is_empty());
        assert!(matches!(
            s.accounts.set_account_suspended(&email("nobody@example.org"), true, None).await,
            Err(Error::NoSuchAccount(_))
        ));
    }
}

#[tokio::test]
async fn a_backup_is_a_whole_store() {
    let s = store().await;
    let key = api_key(1);
    s.accounts
        .admin_create_key(&email("a@example.org"), &name("k"), Limits::DEFAULT, &key, T0)
        .await
        .unwrap();
    let dest = s.dir.path().join("backup");
    let written = s.accounts.backup(&dest).await.unwrap();
    assert!(written.is_file());
    assert!(s.accounts.backup(&dest).await.is_err(), "a backup never overwrites one");
    let restored =
        tapster_accounts::Accounts::open(&tapster_accounts::Location::DataDir(dest)).await.unwrap();
    assert!(restored.snapshot().await.unwrap().keys.contains_key(&hash_key(&key)));
}

/// PostgreSQL holds every replica's writes; it is backed up by its own tools, and says so.
#[tokio::test]
async fn a_postgres_store_is_backed_up_by_postgres() {
    let Some(s) = crate::postgres_store().await else { return };
    let dest = s.dir.path().join("backup");
    assert!(matches!(s.accounts.backup(&dest).await, Err(Error::BackupElsewhere)));
    assert!(!dest.exists());
}
