//! One-time links (single use, 15 minutes, 3 mails per address per 15 minutes) and the rules that
//! link provider sign-ins to accounts.

use tapster_accounts::{Error, Issued, Profile, Provider, SignIn};

use crate::{T0, at, email, signed_up, stores, token};

#[tokio::test]
async fn a_link_signs_up_once_and_then_signs_in() {
    for s in stores().await {
        let first = token(1);
        assert_eq!(
            s.accounts.issue_email_token(&email("Marta@Example.org"), None, first.hash(), T0).await.unwrap(),
            Issued::Issued
        );
        let signed = s.accounts.spend_email_token(first.hash(), None, at(60)).await.unwrap();
        assert!(signed.created);
        let account = s.accounts.account(signed.account).await.unwrap();
        assert_eq!(account.email, Some(email("marta@example.org")), "spending the link confirms the address");

        // Spent links stay spent.
        assert!(matches!(
            s.accounts.spend_email_token(first.hash(), None, at(61)).await,
            Err(Error::TokenSpent)
        ));

        let second = token(2);
        s.accounts
            .issue_email_token(&email("marta@example.org"), None, second.hash(), at(120))
            .await
            .unwrap();
        let again = s.accounts.spend_email_token(second.hash(), None, at(130)).await.unwrap();
        assert_eq!(again, SignIn { account: signed.account, created: false });
    }
}

#[tokio::test]
async fn links_expire_after_15_minutes_and_unknown_ones_open_nothing() {
    for s in stores().await {
        let t = token(3);
        s.accounts.issue_email_token(&email("late@example.org"), None, t.hash(), T0).await.unwrap();
        assert!(matches!(
            s.accounts.spend_email_token(t.hash(), None, at(15 * 60)).await,
            Err(Error::TokenExpired)
        ));
        assert!(matches!(
            s.accounts.spend_email_token(token(4).hash(), None, T0).await,
            Err(Error::TokenUnknown)
        ));

        // The second before expiry still works.
        let t = token(5);
        s.accounts.issue_email_token(&email("late@example.org"), None, t.hash(), at(100)).await.unwrap();
        assert!(s.accounts.spend_email_token(t.hash(), None, at(100 + 15 * 60 - 1)).await.is_ok());
    }
}

#[tokio::test]
async fn three_mails_per_address_per_15_minutes() {
    for s in stores().await {
        let address = email("busy@example.org");
        for seed in 10..13 {
            assert_eq!(
                s.accounts
                    .issue_email_token(&address, None, token(seed).hash(), at(i64::from(seed)))
                    .await
                    .unwrap(),
                Issued::Issued
            );
        }
        assert_eq!(
            s.accounts.issue_email_token(&address, None, token(13).hash(), at(60)).await.unwrap(),
            Issued::Throttled
        );
        // A throttled link was never stored.
        assert!(matches!(
            s.accounts.spend_email_token(token(13).hash(), None, at(61)).await,
            Err(Error::TokenUnknown)
        ));
        // Another address is not held back, and this one may have mail again once the window moves on.
        assert_eq!(
            s.accounts
                .issue_email_token(&email("other@example.org"), None, token(14).hash(), at(60))
                .await
                .unwrap(),
            Issued::Issued
        );
        assert_eq!(
            s.accounts.issue_email_token(&address, None, token(15).hash(), at(15 * 60 + 11)).await.unwrap(),
            Issued::Issued
        );
    }
}

fn profile(provider: Provider, subject: &str, address: Option<&str>, verified: bool) -> Profile {
    Profile::new(provider, subject, "marta-gh", address.map(email), verified).unwrap()
}

#[tokio::test]
async fn a_verified_address_links_to_the_account_that_holds_it() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 20, T0).await;
        let github = profile(Provider::GitHub, "583231", Some("Marta@example.org"), true);
        let signed = s.accounts.sign_in_with(&github, T0).await.unwrap();
        assert_eq!(signed, SignIn { account: marta, created: false });
        let account = s.accounts.account(marta).await.unwrap();
        assert_eq!(account.identities.len(), 1);
        assert_eq!(account.identities[0].provider, Provider::GitHub);
        assert_eq!(account.identities[0].login, "marta-gh");

        // The same identity later signs in to the same account, whatever address it shows then.
        let moved = profile(Provider::GitHub, "583231", Some("new@example.org"), true);
        assert_eq!(s.accounts.sign_in_with(&moved, at(10)).await.unwrap().account, marta);
        assert_eq!(s.accounts.account(marta).await.unwrap().email, Some(email("marta@example.org")));
    }
}

#[tokio::test]
async fn an_unverified_address_never_links_and_leaves_the_account_unconfirmed() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 21, T0).await;
        // Someone at Discord names Marta's address without having proved it.
        let stranger = profile(Provider::Discord, "80351110224678912", Some("marta@example.org"), false);
        let signed = s.accounts.sign_in_with(&stranger, T0).await.unwrap();
        assert!(signed.created);
        assert_ne!(signed.account, marta);
        let account = s.accounts.account(signed.account).await.unwrap();
        assert_eq!(account.email, None);
        assert_eq!(account.pending_email, Some(email("marta@example.org")));
        assert!(!account.confirmed());
        assert!(
            s.accounts.account(marta).await.unwrap().identities.is_empty(),
            "Marta's account is untouched"
        );

        // And a sign-in link for the address still leads to Marta's own account.
        let t = crate::token(22);
        s.accounts.issue_email_token(&email("marta@example.org"), None, t.hash(), at(5)).await.unwrap();
        assert_eq!(s.accounts.spend_email_token(t.hash(), None, at(6)).await.unwrap().account, marta);
    }
}

#[tokio::test]
async fn an_account_confirms_an_address_by_mail() {
    for s in stores().await {
        let discord = profile(Provider::Discord, "80351110224678912", Some("dana@example.org"), false);
        let dana = s.accounts.sign_in_with(&discord, T0).await.unwrap().account;
        let t = token(30);
        s.accounts.issue_email_token(&email("dana@example.org"), Some(dana), t.hash(), at(1)).await.unwrap();
        // Only where Dana is signed in: elsewhere the link is refused, and stays unspent.
        assert!(matches!(
            s.accounts.spend_email_token(t.hash(), None, at(2)).await,
            Err(Error::TokenForAnotherAccount)
        ));
        let marta = signed_up(&s.accounts, "marta@example.org", 33, T0).await;
        assert!(matches!(
            s.accounts.spend_email_token(t.hash(), Some(marta), at(2)).await,
            Err(Error::TokenForAnotherAccount)
        ));
        assert_eq!(
            s.accounts.spend_email_token(t.hash(), Some(dana), at(2)).await.unwrap(),
            SignIn { account: dana, created: false }
        );
        let account = s.accounts.account(dana).await.unwrap();
        assert_eq!((account.email, account.pending_email), (Some(email("dana@example.org")), None));

        // An address another account confirmed first is refused, and the link stays unspent.
        let other = profile(Provider::GitHub, "7", Some("taken@example.org"), false);
        let other = s.accounts.sign_in_with(&other, at(3)).await.unwrap().account;
        signed_up(&s.accounts, "taken@example.org", 31, T0).await;
        let t = token(32);
        s.accounts
            .issue_email_token(&email("taken@example.org"), Some(other), t.hash(), at(4))
            .await
            .unwrap();
        assert!(matches!(
            s.accounts.spend_email_token(t.hash(), Some(other), at(5)).await,
            Err(Error::AddressTaken(_))
        ));
        assert!(matches!(
            s.accounts.spend_email_token(t.hash(), Some(other), at(6)).await,
            Err(Error::AddressTaken(_))
        ));
        assert!(!s.accounts.account(other).await.unwrap().confirmed());
    }
}

#[tokio::test]
async fn a_new_verified_identity_makes_a_confirmed_account_and_the_last_sign_in_stays() {
    for s in stores().await {
        let github = profile(Provider::GitHub, "42", Some("new@example.org"), true);
        let signed = s.accounts.sign_in_with(&github, T0).await.unwrap();
        assert!(signed.created);
        let account = s.accounts.account(signed.account).await.unwrap();
        assert!(account.confirmed());
        // With a confirmed address, the identity may go: mail still signs in.
        s.accounts.unlink_identity(signed.account, account.identities[0].id).await.unwrap();

        let unverified = profile(Provider::Discord, "43", None, false);
        let lonely = s.accounts.sign_in_with(&unverified, T0).await.unwrap().account;
        let identity = s.accounts.account(lonely).await.unwrap().identities[0].id;
        assert!(matches!(s.accounts.unlink_identity(lonely, identity).await, Err(Error::LastSignIn)));
        // Another account's sign-in is no sign-in to this one.
        assert!(matches!(
            s.accounts.unlink_identity(signed.account, identity).await,
            Err(Error::NoSuchIdentity)
        ));
    }
}

#[tokio::test]
async fn a_signed_in_owner_links_another_sign_in() {
    for s in stores().await {
        let marta = signed_up(&s.accounts, "marta@example.org", 40, T0).await;
        let github = profile(Provider::GitHub, "583231", Some("marta@work.example"), true);
        s.accounts.link_identity(marta, &github, T0).await.unwrap();
        // Linking again is harmless; the account keeps its own address.
        s.accounts.link_identity(marta, &github, at(1)).await.unwrap();
        let account = s.accounts.account(marta).await.unwrap();
        assert_eq!(account.identities.len(), 1);
        assert_eq!(account.email, Some(email("marta@example.org")));
        assert_eq!(s.accounts.sign_in_with(&github, at(2)).await.unwrap().account, marta);

        // Someone else's sign-in is not theirs to link.
        let dana = signed_up(&s.accounts, "dana@example.org", 41, T0).await;
        assert!(matches!(s.accounts.link_identity(dana, &github, at(3)).await, Err(Error::IdentityTaken)));

        // An unconfirmed account takes the address a provider vouches for.
        let unverified = profile(Provider::Discord, "99", Some("kim@example.org"), false);
        let kim = s.accounts.sign_in_with(&unverified, at(4)).await.unwrap().account;
        let verified = profile(Provider::GitHub, "100", Some("kim@example.org"), true);
        s.accounts.link_identity(kim, &verified, at(5)).await.unwrap();
        assert_eq!(s.accounts.account(kim).await.unwrap().email, Some(email("kim@example.org")));
    }
}

#[tokio::test]
async fn a_deleted_account_is_signed_in_to_by_nobody() {
    for s in stores().await {
        let github = profile(Provider::GitHub, "583231", Some("marta@example.org"), true);
        let first = s.accounts.sign_in_with(&github, T0).await.unwrap();
        // Deleting the account unlinks its sign-ins: the same user signing in again is someone new.
        s.accounts.delete_account(first.account, at(1)).await.unwrap();
        let again = s.accounts.sign_in_with(&github, at(2)).await.unwrap();
        assert!(again.created && again.account != first.account, "{again:?}");

        // Were a link to a deleted account left in the store, it would open nothing.
        s.accounts.delete_account(again.account, at(3)).await.unwrap();
        s.execute_behind(&format!(
            "INSERT INTO identities (provider, subject, account_id, login, created_at)
             VALUES ('github', '583231', {}, 'marta-gh', 0)",
            again.account
        ))
        .await;
        assert!(matches!(s.accounts.sign_in_with(&github, at(4)).await, Err(Error::AccountGone)));
    }
}
