//! Webhooks in the store: an owner's endpoints within the rules, events announced once, messages
//! claimed by one worker at a time and tried again on a schedule, endpoints disabled after failing
//! for days, and what a deleted account leaves (nothing).

use tapster_accounts::{
    AttemptReport, Audience, Error, EventBodies, NewWebhook, Nonce, WEBHOOK_ATTEMPTS_KEPT,
    WebhookDescription, WebhookEvent, WebhookKind, message_id,
};
use tapster_domain::{Email, Timestamp};

use crate::{T0, api_key, at, signed_up, stores};

fn new(url: &str, kind: WebhookKind, events: &[WebhookEvent]) -> NewWebhook {
    NewWebhook {
        url: url.to_owned(),
        description: WebhookDescription::parse("wiki import").unwrap(),
        kind,
        events: events.to_vec(),
        secret: format!("whsec_{}", url.len()),
    }
}

const PUBLISHED: &[WebhookEvent] = &[WebhookEvent::VersionPublished];
const BOTH: &[WebhookEvent] = &[WebhookEvent::VersionPublished, WebhookEvent::KeyExpiring];

fn bodies() -> EventBodies {
    EventBodies { standard: r#"{"type":"version.published"}"#.into(), discord: r#"{"content":"v2"}"#.into() }
}

/// A nonce as a worker draws them, from a seed.
fn nonce(seed: u8) -> Nonce {
    [seed; 12]
}

/// What a worker claims with.
const CLAIM: &str = "worker";

fn report(at: Timestamp, delivered: bool) -> AttemptReport {
    AttemptReport {
        at,
        status: Some(if delivered { 200 } else { 500 }),
        duration_ms: 12,
        answer: if delivered { "ok".into() } else { "down".into() },
        error: (!delivered).then(|| "answered 500 Internal Server Error".into()),
        delivered,
    }
}

/// Marta's account, with an endpoint told of every event.
async fn marta_with_an_endpoint(
    s: &crate::Store,
) -> (tapster_accounts::AccountId, tapster_accounts::WebhookEndpoint) {
    let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
    let endpoint = new("https://a.example", WebhookKind::Standard, BOTH);
    (marta, s.accounts.create_webhook(marta, &endpoint, T0).await.unwrap())
}

#[tokio::test]
async fn an_owner_keeps_five_endpoints_rotates_disables_and_deletes_them() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let other = signed_up(&s.accounts, "other@example.org", 2, T0).await;
        let mut made = Vec::new();
        for n in 0..5 {
            let url = format!("https://hooks.example/{n}");
            made.push(
                s.accounts.create_webhook(marta, &new(&url, WebhookKind::Standard, BOTH), T0).await.unwrap(),
            );
        }
        let sixth = s
            .accounts
            .create_webhook(marta, &new("https://six.example", WebhookKind::Standard, BOTH), T0)
            .await;
        assert!(matches!(sixth, Err(Error::TooManyWebhooks { max: 5 })), "{sixth:?}");
        let listed = s.accounts.webhooks(marta).await.unwrap();
        assert_eq!(
            listed.iter().map(|e| e.id).collect::<Vec<_>>(),
            made.iter().rev().map(|e| e.id).collect::<Vec<_>>()
        );
        assert_eq!(listed[0].events, BOTH);
        assert_eq!(listed[0].description, "wiki import");

        // Another account's endpoint is refused as one that does not exist.
        let id = made[0].id;
        assert!(matches!(s.accounts.webhook(other, id).await, Err(Error::NoSuchWebhook)));
        assert!(matches!(s.accounts.delete_webhook(other, id).await, Err(Error::NoSuchWebhook)));

        let rotated = s.accounts.rotate_webhook_secret(marta, id, "whsec_new", at(10)).await.unwrap();
        assert_eq!(rotated.secret, "whsec_new");
        assert_eq!(rotated.previous_secret, Some((made[0].secret.clone(), at(10 + 86_400))));
        assert_eq!(rotated.signing_secrets(at(11)), ["whsec_new", made[0].secret.as_str()]);

        let disabled = s.accounts.set_webhook_disabled(marta, id, true, at(20)).await.unwrap();
        assert_eq!(disabled.disabled, Some((at(20), "disabled by its owner".to_owned())));
        assert!(matches!(
            s.accounts.queue_webhook_test(marta, id, &bodies(), nonce(11), at(21)).await,
            Err(Error::WebhookDisabled)
        ));
        let enabled = s.accounts.set_webhook_disabled(marta, id, false, at(30)).await.unwrap();
        assert_eq!(enabled.disabled, None);

        s.accounts.delete_webhook(marta, id).await.unwrap();
        assert_eq!(s.accounts.webhooks(marta).await.unwrap().len(), 4);
        s.accounts
            .create_webhook(marta, &new("https://six.example", WebhookKind::Discord, BOTH), T0)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn only_confirmed_accounts_add_endpoints() {
    use tapster_accounts::{Profile, Provider};
    for s in stores().await {
        let unvouched =
            Profile::new(Provider::Discord, "9", "d", Some(Email::parse("d@example.org").unwrap()), false)
                .unwrap();
        let unconfirmed = s.accounts.sign_in_with(&unvouched, T0).await.unwrap().account;
        let refused = s
            .accounts
            .create_webhook(unconfirmed, &new("https://a.example", WebhookKind::Standard, BOTH), T0)
            .await;
        assert!(matches!(refused, Err(Error::Unconfirmed)), "{refused:?}");
    }
}

#[tokio::test]
async fn an_event_is_announced_once_to_the_endpoints_told_of_it_each_in_its_kind() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let other = signed_up(&s.accounts, "other@example.org", 2, T0).await;
        let standard = s
            .accounts
            .create_webhook(marta, &new("https://a.example", WebhookKind::Standard, BOTH), T0)
            .await
            .unwrap();
        let discord = s
            .accounts
            .create_webhook(
                marta,
                &new("https://discord.com/api/webhooks/1/x", WebhookKind::Discord, PUBLISHED),
                T0,
            )
            .await
            .unwrap();
        let keys_only = s
            .accounts
            .create_webhook(
                other,
                &new("https://b.example", WebhookKind::Standard, &[WebhookEvent::KeyExpiring]),
                T0,
            )
            .await
            .unwrap();
        let off = s
            .accounts
            .create_webhook(other, &new("https://c.example", WebhookKind::Standard, BOTH), T0)
            .await
            .unwrap();
        s.accounts.set_webhook_disabled(other, off.id, true, T0).await.unwrap();

        let event = WebhookEvent::VersionPublished;
        assert_eq!(
            s.accounts.announce(event, "v2", &bodies(), Audience::Everyone, nonce(1), at(1)).await.unwrap(),
            2
        );
        // Again (another replica, a restart): already announced, nothing more.
        assert_eq!(
            s.accounts.announce(event, "v2", &bodies(), Audience::Everyone, nonce(2), at(2)).await.unwrap(),
            0
        );

        let claimed = s.accounts.claim_webhook_messages(at(3), 60, 10, CLAIM).await.unwrap();
        assert_eq!(claimed.len(), 2);
        let to = |id: i64| claimed.iter().find(|m| m.endpoint.id == id).unwrap();
        assert_eq!(to(standard.id).body, bodies().standard);
        assert_eq!(to(discord.id).body, bodies().discord);
        assert_eq!(to(standard.id).message_id, message_id(&nonce(1), standard.id));
        assert_eq!((to(standard.id).attempts, to(standard.id).created_at), (0, at(1)));

        // A key's expiry is for its own account only.
        let expiring = WebhookEvent::KeyExpiring;
        let queued = s
            .accounts
            .announce(expiring, "key:7", &bodies(), Audience::Account(other), nonce(3), at(4))
            .await;
        assert_eq!(queued.unwrap(), 1);
        let claimed = s.accounts.claim_webhook_messages(at(5), 60, 10, CLAIM).await.unwrap();
        assert_eq!(claimed.iter().map(|m| m.endpoint.id).collect::<Vec<_>>(), [keys_only.id]);
        assert_eq!(claimed[0].event, expiring);
    }
}

#[tokio::test]
async fn a_claimed_message_is_one_workers_until_its_lease_ends_and_failures_are_tried_again() {
    for s in stores().await {
        let (marta, endpoint) = marta_with_an_endpoint(&s).await;
        s.accounts.queue_webhook_test(marta, endpoint.id, &bodies(), nonce(11), at(0)).await.unwrap();

        let first = s.accounts.claim_webhook_messages(at(0), 60, 10, CLAIM).await.unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].event, WebhookEvent::Test);
        assert!(s.accounts.claim_webhook_messages(at(59), 60, 10, CLAIM).await.unwrap().is_empty(), "leased");
        // A worker that died, or outlived its lease, leaves it to another once its lease is over; its
        // late report is not recorded.
        let again = s.accounts.claim_webhook_messages(at(60), 60, 10, "another").await.unwrap();
        assert_eq!(again[0].id, first[0].id);
        assert_eq!(
            s.accounts.record_webhook_attempt(&first[0], &report(at(61), true), 500).await.unwrap(),
            None
        );
        assert!(s.accounts.webhook_attempts(marta, endpoint.id).await.unwrap().is_empty());

        // A failure: due again after the first wait (10 s, spread by the jitter), failing since then.
        s.accounts.record_webhook_attempt(&again[0], &report(at(61), false), 500).await.unwrap();
        assert!(s.accounts.claim_webhook_messages(at(70), 60, 10, CLAIM).await.unwrap().is_empty());
        let retried = s.accounts.claim_webhook_messages(at(71), 60, 10, CLAIM).await.unwrap();
        assert_eq!(retried[0].attempts, 1);
        assert_eq!(s.accounts.webhook(marta, endpoint.id).await.unwrap().failing_since, Some(at(61)));
        s.accounts.record_webhook_attempt(&retried[0], &report(at(72), false), 500).await.unwrap();
        let third = s.accounts.claim_webhook_messages(at(92), 60, 10, CLAIM).await.unwrap();
        s.accounts.record_webhook_attempt(&third[0], &report(at(93), true), 500).await.unwrap();
        assert!(
            s.accounts.claim_webhook_messages(at(10_000), 60, 10, CLAIM).await.unwrap().is_empty(),
            "delivered"
        );
        assert_eq!(s.accounts.webhook(marta, endpoint.id).await.unwrap().failing_since, None);

        let log = s.accounts.webhook_attempts(marta, endpoint.id).await.unwrap();
        assert_eq!(
            log.iter().map(|a| (a.attempt, a.report.delivered)).collect::<Vec<_>>(),
            [(3, true), (2, false), (1, false)]
        );
        assert_eq!(log[1].report, report(at(72), false));
        assert_eq!(log[0].message_id, message_id(&nonce(11), endpoint.id));
    }
}

#[tokio::test]
async fn a_message_is_given_up_after_a_day_and_an_endpoint_failing_for_three_is_disabled_once() {
    for s in stores().await {
        let (marta, endpoint) = marta_with_an_endpoint(&s).await;
        s.accounts
            .announce(WebhookEvent::VersionPublished, "v2", &bodies(), Audience::Everyone, nonce(4), at(0))
            .await
            .unwrap();
        // A worker that looks every five minutes, for two days.
        let mut tries = 0;
        for now in (0..2 * 86_400).step_by(300).map(at) {
            if let Some(message) =
                s.accounts.claim_webhook_messages(now, 60, 10, CLAIM).await.unwrap().first()
            {
                s.accounts.record_webhook_attempt(message, &report(now, false), 1_000).await.unwrap();
                tries += 1;
            }
        }
        assert!((20..=30).contains(&tries), "{tries} tries in a day");
        assert!(
            s.accounts.claim_webhook_messages(at(200_000), 60, 10, CLAIM).await.unwrap().is_empty(),
            "given up"
        );
        // The endpoint keeps its last 50 tries.
        assert_eq!(
            s.accounts.webhook_attempts(marta, endpoint.id).await.unwrap().len(),
            tries.min(WEBHOOK_ATTEMPTS_KEPT)
        );

        // Nobody tried it since: not disabled for days nobody tried it.
        assert_eq!(s.accounts.webhook(marta, endpoint.id).await.unwrap().disabled, None);
        // A try three days after the first failure that fails too disables it, once, naming its owner.
        s.accounts
            .queue_webhook_test(marta, endpoint.id, &bodies(), nonce(5), at(3 * 86_400 - 10))
            .await
            .unwrap();
        let test =
            s.accounts.claim_webhook_messages(at(3 * 86_400 - 10), 60, 10, CLAIM).await.unwrap().remove(0);
        assert_eq!(
            s.accounts.record_webhook_attempt(&test, &report(at(3 * 86_400 - 10), false), 0).await.unwrap(),
            None
        );
        let test = s.accounts.claim_webhook_messages(at(3 * 86_400), 60, 10, CLAIM).await.unwrap().remove(0);
        let disabled =
            s.accounts.record_webhook_attempt(&test, &report(at(3 * 86_400), false), 0).await.unwrap();
        let disabled = disabled.expect("disabled by a failure three days after the first");
        assert_eq!(disabled.owner.as_ref().map(Email::as_str), Some("marta@example.org"));
        assert_eq!(
            disabled.endpoint.disabled,
            Some((at(3 * 86_400), "every delivery failed for 3 days".to_owned()))
        );
        // Nothing more is claimed for a disabled endpoint.
        assert!(s.accounts.claim_webhook_messages(at(4 * 86_400), 60, 10, CLAIM).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn the_attempts_kept_are_the_last_fifty() {
    for s in stores().await {
        let (marta, endpoint) = marta_with_an_endpoint(&s).await;
        for n in 0..55 {
            s.accounts
                .queue_webhook_test(marta, endpoint.id, &bodies(), nonce(100 + n as u8), at(n))
                .await
                .unwrap();
            let message = s.accounts.claim_webhook_messages(at(n), 60, 1, CLAIM).await.unwrap().remove(0);
            s.accounts.record_webhook_attempt(&message, &report(at(n), true), 0).await.unwrap();
        }
        let log = s.accounts.webhook_attempts(marta, endpoint.id).await.unwrap();
        assert_eq!(log.len(), 50);
        assert_eq!(log[0].message_id, message_id(&nonce(154), endpoint.id));
        assert_eq!(log[49].message_id, message_id(&nonce(105), endpoint.id));
    }
}

#[tokio::test]
async fn keys_expiring_soon_are_found_and_a_deleted_account_leaves_no_endpoint() {
    use tapster_accounts::KeyName;
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let name = KeyName::parse("k").unwrap();
        let soon =
            s.accounts.create_key(marta, &name, Some(at(5 * 86_400)), None, &api_key(1), T0).await.unwrap();
        s.accounts.create_key(marta, &name, Some(at(30 * 86_400)), None, &api_key(2), T0).await.unwrap();
        s.accounts.create_key(marta, &name, None, None, &api_key(3), T0).await.unwrap();
        let revoked =
            s.accounts.create_key(marta, &name, Some(at(6 * 86_400)), None, &api_key(4), T0).await.unwrap();
        s.accounts.revoke_key(marta, revoked.id, T0).await.unwrap();
        let found = s.accounts.keys_expiring(T0, at(7 * 86_400)).await.unwrap();
        assert_eq!(found.iter().map(|k| k.id).collect::<Vec<_>>(), [soon.id]);

        let endpoint = s
            .accounts
            .create_webhook(marta, &new("https://a.example", WebhookKind::Standard, BOTH), T0)
            .await
            .unwrap();
        s.accounts.queue_webhook_test(marta, endpoint.id, &bodies(), nonce(14), T0).await.unwrap();
        s.accounts.delete_account(marta, at(1)).await.unwrap();
        assert!(s.accounts.claim_webhook_messages(at(2), 60, 10, CLAIM).await.unwrap().is_empty());
        assert!(s.accounts.keys_expiring(T0, at(7 * 86_400)).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn one_test_at_a_time_and_old_messages_are_forgotten_once_no_try_of_them_is_shown() {
    for s in stores().await {
        let (marta, endpoint) = marta_with_an_endpoint(&s).await;
        s.accounts.queue_webhook_test(marta, endpoint.id, &bodies(), nonce(11), T0).await.unwrap();
        let failed = s.accounts.claim_webhook_messages(T0, 60, 10, CLAIM).await.unwrap().remove(0);
        s.accounts.record_webhook_attempt(&failed, &report(T0, false), 500).await.unwrap();
        // Asked again while it waits to be tried again: no second test, the first is tried now.
        s.accounts.queue_webhook_test(marta, endpoint.id, &bodies(), nonce(12), at(2)).await.unwrap();
        let message = s.accounts.claim_webhook_messages(at(2), 60, 10, CLAIM).await.unwrap().remove(0);
        assert_eq!((message.id, message.attempts), (failed.id, 1));
        s.accounts.record_webhook_attempt(&message, &report(at(2), true), 0).await.unwrap();
        s.accounts.queue_webhook_test(marta, endpoint.id, &bodies(), nonce(13), at(1)).await.unwrap();

        // Done a month ago: kept while the endpoint's log shows a try of it, then forgotten.
        s.accounts.purge(at(31 * 86_400)).await.unwrap();
        assert_eq!(s.accounts.webhook_attempts(marta, endpoint.id).await.unwrap().len(), 2);
        s.execute_behind("DELETE FROM webhook_attempts").await;
        s.accounts.purge(at(31 * 86_400)).await.unwrap();
        // Were the done one still there, reopening it would make it claimable again.
        s.execute_behind(&format!("UPDATE webhook_messages SET done_at = NULL WHERE id = {}", message.id))
            .await;
        let pending = s.accounts.claim_webhook_messages(at(31 * 86_400), 60, 10, CLAIM).await.unwrap();
        assert_eq!(
            pending.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(),
            [message_id(&nonce(13), endpoint.id)]
        );
    }
}
