//! Sessions: found by the hash of their id, over after 30 idle days or 90 days in all, ended one by
//! one or all but one, and gone with their account.

use tapster_accounts::{SESSION_IDLE_SECS, SESSION_MAX_SECS, SESSION_TOUCH_SECS};

use crate::{T0, at, signed_up, stores, token};

#[tokio::test]
async fn a_session_lives_while_used_and_ends_after_30_idle_days() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let id = token(50);
        let created = s.accounts.create_session(account, id.hash(), "Firefox\u{7}/128", T0).await.unwrap();
        assert_eq!(s.accounts.session(id.hash(), at(1)).await.unwrap(), Some(created));
        assert_eq!(s.accounts.sessions(account, at(1)).await.unwrap()[0].user_agent, "Firefox/128");

        // Used 29 days later, then 29 days after that: still alive, because each use moves it on.
        let day = 86_400;
        assert!(s.accounts.session(id.hash(), at(29 * day)).await.unwrap().is_some());
        assert!(s.accounts.session(id.hash(), at(58 * day)).await.unwrap().is_some());
        // Then 30 idle days.
        assert_eq!(s.accounts.session(id.hash(), at(58 * day + SESSION_IDLE_SECS)).await.unwrap(), None);
        assert!(s.accounts.sessions(account, at(58 * day + SESSION_IDLE_SECS)).await.unwrap().is_empty());

        // A use within the touch interval is not written: the idle time runs from the last write.
        let id = token(51);
        s.accounts.create_session(account, id.hash(), "ua", T0).await.unwrap();
        assert!(s.accounts.session(id.hash(), at(SESSION_TOUCH_SECS - 1)).await.unwrap().is_some());
        assert_eq!(s.accounts.session(id.hash(), at(SESSION_IDLE_SECS)).await.unwrap(), None);
    }
}

#[tokio::test]
async fn a_session_used_every_day_ends_90_days_after_it_began() {
    let day = 86_400;
    assert_eq!(SESSION_MAX_SECS, 90 * day);
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let id = token(55);
        let created = s.accounts.create_session(account, id.hash(), "ua", T0).await.unwrap();
        assert_eq!(created.lasts_secs(T0), SESSION_IDLE_SECS);
        for n in 1..90 {
            let used = s.accounts.session(id.hash(), at(n * day)).await.unwrap();
            let used = used.unwrap_or_else(|| panic!("the session ended on day {n}"));
            // From day 60 on, a renewed cookie need not last the idle time: the session ends first.
            assert_eq!(used.lasts_secs(at(n * day)), SESSION_IDLE_SECS.min((90 - n) * day), "day {n}");
        }
        assert!(s.accounts.session(id.hash(), at(SESSION_MAX_SECS - 1)).await.unwrap().is_some());
        assert_eq!(s.accounts.sessions(account, at(SESSION_MAX_SECS - 1)).await.unwrap().len(), 1);

        assert_eq!(s.accounts.session(id.hash(), at(SESSION_MAX_SECS)).await.unwrap(), None);
        assert!(s.accounts.sessions(account, at(SESSION_MAX_SECS)).await.unwrap().is_empty());
        // Purged then, though it was used a moment ago: the row is gone, whenever it is asked for.
        s.accounts.purge(at(SESSION_MAX_SECS)).await.unwrap();
        assert!(s.accounts.sessions(account, at(SESSION_MAX_SECS - 1)).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn sessions_end_one_by_one_or_all_but_this_one() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        let other = signed_up(&s.accounts, "other@example.org", 2, T0).await;
        let here = s.accounts.create_session(account, token(60).hash(), "here", T0).await.unwrap();
        s.accounts.create_session(account, token(61).hash(), "phone", at(1)).await.unwrap();
        let laptop = s.accounts.create_session(account, token(62).hash(), "laptop", at(2)).await.unwrap();
        let theirs = s.accounts.create_session(other, token(63).hash(), "theirs", at(3)).await.unwrap();

        assert!(s.accounts.end_session_by_id(account, theirs.id).await.is_err(), "another account's session");
        s.accounts.end_session_by_id(account, laptop.id).await.unwrap();
        assert_eq!(s.accounts.session(token(62).hash(), at(4)).await.unwrap(), None);

        assert_eq!(s.accounts.end_other_sessions(account, here.id).await.unwrap(), 1);
        assert!(s.accounts.session(token(60).hash(), at(5)).await.unwrap().is_some());
        assert_eq!(s.accounts.session(token(61).hash(), at(5)).await.unwrap(), None);
        assert!(
            s.accounts.session(token(63).hash(), at(5)).await.unwrap().is_some(),
            "other accounts keep theirs"
        );

        s.accounts.end_session(token(60).hash()).await.unwrap();
        assert_eq!(s.accounts.session(token(60).hash(), at(6)).await.unwrap(), None);
    }
}

#[tokio::test]
async fn purging_forgets_idle_sessions_and_old_links() {
    for s in stores().await {
        let account = signed_up(&s.accounts, "marta@example.org", 1, T0).await;
        s.accounts.create_session(account, token(70).hash(), "old", T0).await.unwrap();
        s.accounts.purge(at(SESSION_IDLE_SECS + 1)).await.unwrap();
        assert!(s.accounts.sessions(account, T0).await.unwrap().is_empty(), "the row itself is gone");
    }
}
