//! The administrative commands: create, list, revoke and suspend keys, suspend accounts, block
//! addresses, back up; and with the accounts in PostgreSQL, publish game data for every replica,
//! list what was published and roll back. They write the accounts store directly, so they work
//! while `serve` runs on the same data dir; the server sees each change within a quarter of a second
//! (a published generation within a few).

use std::path::{Path, PathBuf};

use anyhow::Context;
use tapster_accounts::{
    Accounts, Generation, KeyAction, KeyName, KeyRecord, KeySelector, KeyStatus, Location,
};
use tapster_domain::{AddressBlock, ApiKey, Email, Limits};

use crate::access::timestamp;

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
    /// Opens the accounts store of `data_dir` (its `accounts.sqlite`).
    pub async fn open(data_dir: &Path) -> anyhow::Result<Self> {
        Self::connect(&Location::DataDir(data_dir.to_owned())).await
    }

    /// Opens the accounts store at `location`.
    pub async fn connect(location: &Location) -> anyhow::Result<Self> {
        let accounts = Accounts::open(location)
            .await
            .with_context(|| format!("opening the accounts database {location}"))?;
        Ok(Self { accounts })
    }

    /// The store, for the server that goes on to serve from it.
    pub(crate) fn into_accounts(self) -> Accounts {
        self.accounts
    }

    /// The store.
    pub(crate) fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// Publishes `dataset` for every replica as the next generation (`tapster publish DIR`), by
    /// `by`; keeps the newest `keep`.
    pub async fn publish(&self, dataset: &Path, keep: usize, by: &str) -> anyhow::Result<Generation> {
        crate::published::publish(&self.accounts, dataset, keep, by, timestamp()).await
    }

    /// The generations kept, newest first (`tapster published`).
    pub async fn generations(&self) -> anyhow::Result<Vec<Generation>> {
        Ok(self.accounts.generations().await?)
    }

    /// Makes the kept generation `number` current again (`tapster publish --activate N`).
    pub async fn activate(&self, number: i64) -> anyhow::Result<Generation> {
        Ok(self.accounts.activate_generation(number).await?)
    }

    pub async fn create_key(&self, email: &str, name: &str, limits: Limits) -> anyhow::Result<NewKey> {
        let email = parse_email(email)?;
        let name = KeyName::parse(name)?;
        let key = new_key().context("drawing a random key")?;
        let record = self.accounts.admin_create_key(&email, &name, limits, &key, timestamp()).await?;
        Ok(NewKey { record, key })
    }

    /// Creates the local account and its key when the data dir has no key at all, so that a
    /// newcomer's first `serve` gives them a key to try the API with.
    /// One check and insert, so that of replicas starting together on an empty shared store only
    /// one makes it.
    pub async fn first_key(&self) -> anyhow::Result<Option<NewKey>> {
        let email = parse_email(LOCAL_ACCOUNT)?;
        let name = KeyName::parse("local")?;
        let key = new_key().context("drawing a random key")?;
        let created =
            self.accounts.admin_create_first_key(&email, &name, Limits::DEFAULT, &key, timestamp()).await?;
        Ok(created.map(|record| NewKey { record, key }))
    }

    pub async fn list_keys(&self, account: Option<&str>) -> anyhow::Result<Vec<KeyRecord>> {
        let account = account.map(parse_email).transpose()?;
        Ok(self.accounts.list_keys(account.as_ref()).await?)
    }

    pub async fn change_key(&self, key_or_id: &str, action: KeyAction) -> anyhow::Result<KeyRecord> {
        let selector = KeySelector::parse(key_or_id)?;
        Ok(self.accounts.change_key(&selector, action, timestamp()).await?)
    }

    /// Suspends an account (with a reason its owner reads in the dashboard) or reinstates it.
    pub async fn suspend_account(
        &self,
        email: &str,
        suspended: bool,
        reason: Option<&str>,
    ) -> anyhow::Result<()> {
        let email = parse_email(email)?;
        Ok(self.accounts.set_account_suspended(&email, suspended, reason).await?)
    }

    /// Blocks (or unblocks) an address or CIDR range; returns the canonical block and whether anything changed.
    pub async fn block(&self, address: &str, blocked: bool) -> anyhow::Result<(AddressBlock, bool)> {
        let block = AddressBlock::parse(address).map_err(|e| anyhow::anyhow!("{address:?} {e}"))?;
        let changed = if blocked {
            self.accounts.block(block, timestamp()).await?
        } else {
            self.accounts.unblock(block).await?
        };
        Ok((block, changed))
    }

    /// Consistent copies of the accounts and game databases of `data_dir` in the new directory
    /// `dest`; returns the files written.
    pub async fn backup(&self, data_dir: &Path, dest: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let game = dest.join(tapster_store::GAME_DB);
        anyhow::ensure!(!game.exists(), "{} exists already; back up into a new directory", game.display());
        let mut written = Vec::new();
        match self.accounts.backup(dest).await {
            Ok(file) => written.push(file),
            // Accounts in PostgreSQL are backed up by PostgreSQL; the caller says so.
            Err(tapster_accounts::Error::BackupElsewhere) => {}
            Err(e) => return Err(e.into()),
        }
        match tapster_store::backup(data_dir, dest) {
            Ok(file) => written.push(file),
            // A data dir that serves no game data yet still has accounts worth keeping.
            Err(tapster_store::Error::NoData(_)) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(written)
    }
}

fn parse_email(email: &str) -> anyhow::Result<Email> {
    Email::parse(email).map_err(|e| anyhow::anyhow!("the e-mail address {email:?} {e}"))
}

/// A key from the operating system's CSPRNG.
fn new_key() -> Result<ApiKey, getrandom::Error> {
    ApiKey::generate_with(getrandom::fill)
}

/// The keys as a table for the console; never the keys themselves, only their public prefixes.
pub fn format_keys(keys: &[KeyRecord]) -> String {
    let mut out = format!(
        "{:>5}  {:<12}  {:<28}  {:<20}  {:<18}  {:<20}  {}\n",
        "id", "prefix", "account", "name", "limits (min/burst/day)", "last used", "state"
    );
    let now = timestamp();
    for key in keys {
        let state = match (key.revoked_at, key.status(now)) {
            (Some(at), _) => format!("revoked {at}"),
            (None, KeyStatus::Expired) => format!("expired {}", key.expires_at.unwrap_or(now)),
            (None, status) => status.as_str().to_owned(),
        };
        let account = match &key.account_email {
            Some(email) => email.to_string(),
            None => format!("account {} (no address)", key.account),
        };
        let limits = format!("{}/{}/{}", key.limits.per_minute, key.limits.burst, key.limits.per_day);
        let last_used = key.last_used_at.map(|t| t.to_string()).unwrap_or_else(|| "never".to_owned());
        out.push_str(&format!(
            "{:>5}  {:<12}  {:<28}  {:<20}  {:<18}  {:<20}  {state}\n",
            key.id, key.prefix, account, key.name, limits, last_used
        ));
    }
    out
}
