//! Accounts as the tests of several crates start from them: a fixed moment ([`T0`]), so that
//! expiries can be tested to the second, and an account signed up by a mailed link
//! ([`signed_up`]), as the dashboard signs one up.

use tapster_accounts::{AccountId, Accounts, Token};
use tapster_domain::{Email, Timestamp};

/// The moment the tests of the accounts store and the dashboard start at (November 2026).
pub const T0: Timestamp = Timestamp(1_795_000_000);

/// An account made in `accounts` at `now` by spending a sign-in link mailed to `address`; the link's
/// secret is made from `seed`, so that a test signing up several accounts gives each its own.
pub async fn signed_up(accounts: &Accounts, address: &str, seed: u8, now: Timestamp) -> AccountId {
    let link = Token::from_random([seed; 32]);
    let email = Email::parse(address).unwrap_or_else(|e| panic!("{address}: {e}"));
    accounts.issue_email_token(&email, None, link.hash(), now).await.expect("issuing a sign-in link");
    accounts.spend_email_token(link.hash(), None, now).await.expect("spending the sign-in link").account
}
