//! Game data published once for every replica (`tapster publish`, with `--accounts-url`): a dataset
//! imported and checked as `tapster import` does it, into a scratch data dir, and the served
//! database that import makes stored in the shared PostgreSQL as the next generation, gzip-compressed,
//! with its SHA-256. Every `serve` on the same store follows the current generation ([`Follower`]):
//! when the database it serves is not that one (by SHA-256), it downloads it, checks its size and
//! SHA-256, and installs it the way an import replaces the served file, which the reload thread then
//! serves (and tells the follower so: only then do `/healthz` and `/metrics` name the generation);
//! requests in flight finish on the data they began with. A generation that cannot be installed is
//! thrown away, said in `/healthz`, and tried again later, while the data served before stays.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};
use tapster_accounts::{Accounts, Generation, NewGeneration};
use tapster_domain::{Timestamp, hex};
use tapster_store::{FileStamp, GAME_DB, Store};

/// How long a generation that could not be installed waits before it is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// Publishes `dataset` (a version folder, or a folder of them) for every replica: imported and
/// checked as `tapster import` does (a refused dataset publishes nothing), then stored as the next
/// generation, current from then on; generations beyond the newest `keep` are forgotten.
pub async fn publish(
    accounts: &Accounts,
    dataset: &Path,
    keep: usize,
    by: &str,
    now: Timestamp,
) -> anyhow::Result<Generation> {
    // Where nothing can be published (no PostgreSQL), or it cannot be reached, that is said before
    // the import's work.
    accounts.current_generation().await?;
    let (dataset, published_by) = (dataset.to_owned(), by.to_owned());
    let made = tokio::task::spawn_blocking(move || -> anyhow::Result<NewGeneration> {
        let scratch = tempfile::TempDir::new().context("making a scratch data dir")?;
        crate::game_data::import_with_exports(scratch.path(), &dataset)
            .with_context(|| format!("importing {}", dataset.display()))?;
        let versions =
            Store::open(scratch.path())?.versions().map(|catalog| catalog.info.name.to_string()).collect();
        let database = std::fs::read(scratch.path().join(GAME_DB)).context("reading the database made")?;
        let mut stored = GzEncoder::new(Vec::new(), Compression::default());
        stored.write_all(&database).context("compressing the database")?;
        Ok(NewGeneration {
            sha256: Sha256::digest(&database).into(),
            size: database.len() as u64,
            versions,
            published_by,
            stored: stored.finish().context("compressing the database")?,
        })
    })
    .await??;
    Ok(accounts.publish_generation(made, keep, now).await?)
}

/// The generations kept, newest first, as `tapster published` lists them.
pub fn format_generations(generations: &[Generation]) -> String {
    let mut out = format!(
        "{:>10}  {:<7}  {:<20}  {:<24}  {:>9}  {:<16}  {}\n",
        "generation", "current", "published (UTC)", "by", "size", "sha256", "versions"
    );
    for generation in generations {
        out.push_str(&format!(
            "{:>10}  {:<7}  {:<20}  {:<24}  {:>9}  {:<16}  {}\n",
            generation.number,
            if generation.current { "yes" } else { "" },
            generation.published_at.to_string(),
            generation.published_by,
            megabytes(generation.size),
            &hex(&generation.sha256)[..16],
            generation.versions.join(", ")
        ));
    }
    out
}

/// A size in megabytes, as people read it.
pub fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// What a replica serves of the published game data, and how it keeps up with the current
/// generation.
#[derive(Debug)]
pub(crate) struct Follower {
    data_dir: PathBuf,
    accounts: Accounts,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The database in the data dir (installed), once known.
    served: Option<Served>,
    /// The file the app serves now, as the reload thread last said.
    serving: Option<FileStamp>,
    /// Why the current generation is not served, while it is not.
    trouble: Option<String>,
    /// The generation last refused, and when, so that it is tried again only after a while.
    refused: Option<(i64, Instant)>,
}

/// The database a data dir serves: its file, its SHA-256 (worked out again only when the file
/// changed), and the generation it is, once known.
#[derive(Debug, Clone, Copy)]
struct Served {
    stamp: FileStamp,
    sha256: [u8; 32],
    generation: Option<i64>,
}

impl Follower {
    pub(crate) fn new(data_dir: &Path, accounts: Accounts) -> Self {
        Self { data_dir: data_dir.to_owned(), accounts, state: Mutex::default() }
    }

    /// Installs the current generation when the data dir serves another one: `Ok(Some(..))` with the
    /// generation it installed, `Ok(None)` when there was nothing to do (none published, already
    /// served, or refused a moment ago). A generation that cannot be installed is `Err`, and said
    /// by [`Follower::trouble`] until one is.
    pub(crate) async fn catch_up(&self) -> anyhow::Result<Option<Generation>> {
        let current = match self.accounts.current_generation().await {
            Ok(current) => current,
            // Said once, by the upkeep that watches the store; nothing to install meanwhile.
            Err(error) if error.is_unreachable() => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        let Some(current) = current else { return Ok(None) };
        let served = self.served_now().await?;
        if served.map(|served| served.sha256) == Some(current.sha256) {
            let mut state = self.lock();
            state.served = served.map(|served| Served { generation: Some(current.number), ..served });
            state.trouble = None;
            return Ok(None);
        }
        if self
            .lock()
            .refused
            .is_some_and(|(number, when)| number == current.number && when.elapsed() < RETRY_AFTER)
        {
            return Ok(None);
        }
        match self.install(&current).await {
            Ok(stamp) => {
                let served = Served { stamp, sha256: current.sha256, generation: Some(current.number) };
                let mut state = self.lock();
                (state.served, state.trouble, state.refused) = (Some(served), None, None);
                Ok(Some(current))
            }
            Err(error) => {
                let mut state = self.lock();
                state.trouble = Some(format!(
                    "published generation {} is not served: {error:#}; serving {}",
                    current.number,
                    match state.served.map(|served| served.generation) {
                        Some(Some(number)) => format!("generation {number}"),
                        Some(None) => "the data imported into this data dir".to_owned(),
                        None => "nothing yet".to_owned(),
                    }
                ));
                state.refused = Some((current.number, Instant::now()));
                Err(error)
            }
        }
    }

    /// The database the data dir serves now, if any: its SHA-256 worked out again only when its
    /// file is not the one last seen (an import into the data dir, by hand).
    async fn served_now(&self) -> anyhow::Result<Option<Served>> {
        let Ok(stamp) = FileStamp::of_data_dir(&self.data_dir) else { return Ok(None) };
        let known = self.lock().served.filter(|served| served.stamp == stamp);
        if let Some(served) = known {
            return Ok(Some(served));
        }
        let data_dir = self.data_dir.clone();
        let sha256 = tokio::task::spawn_blocking(move || tapster_store::served_sha256(&data_dir)).await??;
        let served = sha256.map(|sha256| Served { stamp, sha256, generation: None });
        self.lock().served = served;
        Ok(served)
    }

    /// Downloads `generation`, checks it, and puts it in place of the served database; the stamp
    /// of the file it put there.
    async fn install(&self, generation: &Generation) -> anyhow::Result<FileStamp> {
        let stored = self.accounts.generation_bytes(generation.number).await?;
        let (data_dir, generation) = (self.data_dir.clone(), generation.clone());
        tokio::task::spawn_blocking(move || -> anyhow::Result<FileStamp> {
            let mut database = Vec::with_capacity(usize::try_from(generation.size).unwrap_or(0));
            GzDecoder::new(stored.as_slice())
                .take(generation.size.saturating_add(1))
                .read_to_end(&mut database)
                .context("its stored bytes do not uncompress")?;
            drop(stored);
            anyhow::ensure!(
                database.len() as u64 == generation.size,
                "it uncompresses to {} bytes, not the {} published",
                database.len(),
                generation.size
            );
            let sha256: [u8; 32] = Sha256::digest(&database).into();
            anyhow::ensure!(
                sha256 == generation.sha256,
                "its SHA-256 is {}, not the {} published",
                hex(&sha256),
                hex(&generation.sha256)
            );
            tapster_store::install(&data_dir, &database)?;
            Ok(FileStamp::of_data_dir(&data_dir)?)
        })
        .await?
    }

    /// The reload thread serves the database of `stamp` from now on.
    pub(crate) fn serving(&self, stamp: FileStamp) {
        self.lock().serving = Some(stamp);
    }

    /// The generation served and its SHA-256: once the database in the data dir is known to be one,
    /// and the app serves it.
    pub(crate) fn served(&self) -> Option<(i64, String)> {
        let state = self.lock();
        let served = state.served.filter(|served| Some(served.stamp) == state.serving)?;
        Some((served.generation?, hex(&served.sha256)))
    }

    /// Why the current generation is not served, while it is not.
    pub(crate) fn trouble(&self) -> Option<String> {
        self.lock().trouble.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
