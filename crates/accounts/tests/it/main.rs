//! The accounts store against real SQLite files in temporary data dirs. Time is given to every
//! call, so expiries are tested to the second.

mod keys;
mod migration;
mod sessions;
mod signin;

use tapster_accounts::{AccountId, Accounts, Location, Token};
use tapster_domain::{ApiKey, Email, Timestamp};
use tempfile::TempDir;

/// A fresh store in a data dir of its own (kept while the value lives).
struct Store {
    accounts: Accounts,
    dir: TempDir,
}

async fn store() -> Store {
    let dir = TempDir::new().unwrap();
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    Store { accounts, dir }
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

const T0: Timestamp = Timestamp(1_795_000_000);

fn at(seconds_after_t0: i64) -> Timestamp {
    Timestamp(T0.0 + seconds_after_t0)
}

/// An account made by spending a sign-in link for `address`.
async fn signed_up(accounts: &Accounts, address: &str, seed: u8) -> AccountId {
    let t = token(seed);
    accounts.issue_email_token(&email(address), None, t.hash(), T0).await.unwrap();
    accounts.spend_email_token(t.hash(), None, T0).await.unwrap().account
}
