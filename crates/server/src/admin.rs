//! The administrative commands: create, list, revoke and suspend keys, suspend accounts, block
//! addresses. They write the accounts database directly, so they work while `serve` runs on the same
//! data dir; the server sees each change within a quarter of a second.

use std::path::Path;

use anyhow::Context;
use tapster_domain::{AddressBlock, ApiKey, Email, Limits, Timestamp};
use tapster_store::{Accounts, KeyAction, KeyRecord, KeySelector};

use crate::access::now;

/// The account the server creates for itself when a data dir has no key at all.
pub const LOCAL_ACCOUNT: &str = "local@localhost";

#[derive(Debug)]
pub struct Admin {
    accounts: Accounts,
}

/// A key just created: shown whole this once.
#[derive(Debug)]
pub struct NewKey {
    pub record: KeyRecord,
    pub key: ApiKey,
}

impl Admin {
    pub fn open(data_dir: &Path) -> anyhow::Result<Self> {
        let accounts = Accounts::open(data_dir)
            .with_context(|| format!("opening the accounts database in {}", data_dir.display()))?;
        Ok(Self { accounts })
    }

    pub fn create_key(&self, email: &str, name: &str, limits: Limits) -> anyhow::Result<NewKey> {
        let email = Email::parse(email).map_err(|e| anyhow::anyhow!("the e-mail address {email:?} {e}"))?;
        let key = new_key().context("drawing a random key")?;
        let record = self.accounts.create_key(&email, name, limits, &key, timestamp())?;
        Ok(NewKey { record, key })
    }

    /// Creates the local account and its key when the data dir has no key at all, so that a
    /// newcomer's first `serve` gives them a key to try the API with.
    pub fn first_key(&self) -> anyhow::Result<Option<NewKey>> {
        if self.accounts.has_keys()? {
            return Ok(None);
        }
        self.create_key(LOCAL_ACCOUNT, "local", Limits::DEFAULT).map(Some)
    }

    pub fn list_keys(&self, account: Option<&str>) -> anyhow::Result<Vec<KeyRecord>> {
        let account = account
            .map(|email| Email::parse(email).map_err(|e| anyhow::anyhow!("the e-mail address {email:?} {e}")))
            .transpose()?;
        Ok(self.accounts.list_keys(account.as_ref())?)
    }

    pub fn change_key(&self, key_or_id: &str, action: KeyAction) -> anyhow::Result<KeyRecord> {
        let selector = KeySelector::parse(key_or_id)?;
        Ok(self.accounts.change_key(&selector, action, timestamp())?)
    }

    pub fn suspend_account(&self, email: &str, suspended: bool) -> anyhow::Result<()> {
        let email = Email::parse(email).map_err(|e| anyhow::anyhow!("the e-mail address {email:?} {e}"))?;
        Ok(self.accounts.set_account_suspended(&email, suspended)?)
    }

    /// Blocks (or unblocks) an address or CIDR range; returns the canonical block and whether anything changed.
    pub fn block(&self, address: &str, blocked: bool) -> anyhow::Result<(AddressBlock, bool)> {
        let block = AddressBlock::parse(address).map_err(|e| anyhow::anyhow!("{address:?} {e}"))?;
        let changed =
            if blocked { self.accounts.block(block, timestamp())? } else { self.accounts.unblock(block)? };
        Ok((block, changed))
    }
}

/// A key from the operating system's CSPRNG.
fn new_key() -> Result<ApiKey, getrandom::Error> {
    let mut pool = [0u8; 64];
    getrandom::fill(&mut pool)?;
    let mut next = 0;
    let mut failure = None;
    let key = ApiKey::generate(|| {
        if next == pool.len() {
            if let Err(e) = getrandom::fill(&mut pool) {
                failure = Some(e);
            }
            next = 0;
        }
        next += 1;
        pool[next - 1]
    });
    failure.map_or(Ok(key), Err)
}

fn timestamp() -> Timestamp {
    Timestamp(now().as_secs() as i64)
}

/// The keys as a table for the console; never the keys themselves, only their public prefixes.
pub fn format_keys(keys: &[KeyRecord]) -> String {
    let mut out = format!(
        "{:>5}  {:<12}  {:<28}  {:<20}  {:<18}  {:<20}  {}\n",
        "id", "prefix", "account", "name", "limits (min/burst/day)", "last used", "state"
    );
    for key in keys {
        let state = match (key.revoked_at, key.suspended) {
            (Some(at), _) => format!("revoked {at}"),
            (None, true) => "suspended".to_owned(),
            (None, false) => "active".to_owned(),
        };
        let limits = format!("{}/{}/{}", key.limits.per_minute, key.limits.burst, key.limits.per_day);
        let last_used = key.last_used_at.map(|t| t.to_string()).unwrap_or_else(|| "never".to_owned());
        out.push_str(&format!(
            "{:>5}  {:<12}  {:<28}  {:<20}  {:<18}  {:<20}  {state}\n",
            key.id, key.prefix, key.account, key.name, limits, last_used
        ));
    }
    out
}
