//! Webhooks, as the server runs them: one worker task per replica that announces events and
//! delivers the outbox the accounts store keeps.
//!
//! - Each game version the server serves is announced once (`version.published`), whichever
//!   replica serves it first and however often it restarts: the store refuses a second
//!   announcement of the same version, so an `import` or a `publish` of a new version makes exactly
//!   one message per endpoint. A key expiring within 7 days is announced once (`key.expiring`) to
//!   its account's endpoints.
//! - Due messages are claimed for a lease (so that of several replicas one delivers each), signed
//!   as Standard Webhooks specify (or sent as a Discord message, unsigned), delivered by
//!   `tapster-webhooks` (public addresses only unless allowed, 10 s, no redirects) and the try
//!   recorded under its claim; the store decides when a failed one is tried again, and whether a
//!   failure disables an endpoint that kept failing, whose owner the dashboard then mails.
//!
//! The worker wakes every second, and at once when the dashboard queues a test event; it delivers
//! a batch at a time, looking at new data, keys and its stop between batches.

mod events;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tapster_accounts::{
    Accounts, AttemptReport, Audience, DisabledWebhook, EventBodies, Nonce, WebhookEndpoint, WebhookEvent,
    WebhookKind, WebhookMessage,
};
use tapster_dashboard::{Dashboard, Outbox};
use tapster_domain::Timestamp;
use tapster_http::App;
use tapster_store::{FileStamp, Store};
use tapster_webhooks::{Client, Endpoint, Secret};
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::access::Clock;

pub use tapster_webhooks::CertificateDer;
/// How webhooks are delivered (`--webhooks-allow-private`, `--webhooks-ca`; the timeout for tests):
/// the delivery crate's own settings, as the server is given them.
pub use tapster_webhooks::Config as WebhookSettings;

/// How often the worker looks for due messages when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);
/// How often keys about to expire are looked for, in the worker's clock's seconds.
const SWEEP_EVERY_SECS: i64 = 60;
/// Messages claimed at once; more are claimed as soon as these are done.
const BATCH: usize = 16;
/// How long a claim holds at least; and at least three deliveries' time, so that no other replica
/// sends a message while a delivery of it may still be under way (replicas' clocks must agree to
/// well within it).
const LEASE_SECS: i64 = 60;
/// A key is announced as expiring this long before it does.
const EXPIRING_WITHIN_SECS: i64 = 7 * 86_400;
/// Characters of a receiver's answer kept with the try.
const ANSWER_KEPT: usize = 500;

/// The worker's state, shared with the dashboard's [`Outbox`].
#[derive(Debug)]
pub(crate) struct Webhooks {
    accounts: Accounts,
    client: Client,
    /// How long a claim holds, in seconds: see [`LEASE_SECS`].
    lease: i64,
    clock: Clock,
    /// Where the links of events lead: the server's public URL.
    origin: String,
    wake: Notify,
}

impl Webhooks {
    pub(crate) fn new(
        accounts: Accounts,
        settings: &WebhookSettings,
        clock: Clock,
        origin: &str,
    ) -> anyhow::Result<Arc<Self>> {
        let client = Client::new(settings.clone())
            .map_err(|error| anyhow::anyhow!("setting up webhook deliveries: {error}"))?;
        let timeout = i64::try_from(settings.timeout.as_secs()).unwrap_or(i64::MAX);
        Ok(Arc::new(Self {
            accounts,
            client,
            lease: LEASE_SECS.max(timeout.saturating_mul(3)),
            clock,
            origin: origin.trim_end_matches('/').to_owned(),
            wake: Notify::new(),
        }))
    }

    fn now(&self) -> Timestamp {
        Timestamp(i64::try_from(self.clock.now().as_secs()).unwrap_or(i64::MAX))
    }

    /// Runs until `stop` is set: announces what the served data and the keys call for, delivers
    /// what is due, and tells the dashboard of endpoints a failure disabled.
    pub(crate) async fn run(self: Arc<Self>, app: Arc<App>, dashboard: Dashboard, stop: Arc<AtomicBool>) {
        let mut announced: Option<FileStamp> = None;
        // The versions this process saw announced: the store keeps them for every replica, but the
        // bodies of an event are not made again to find that out.
        let mut versions: HashSet<String> = HashSet::new();
        let mut swept: Option<Timestamp> = None;
        while !stop.load(Ordering::Relaxed) {
            let store = app.store();
            if announced != Some(store.stamp()) {
                match self.announce_versions(&store, &mut versions).await {
                    Ok(()) => announced = Some(store.stamp()),
                    Err(error) => tracing::warn!(
                        error = format!("{error:#}"),
                        "the game versions could not be announced to webhooks (tried again in a second)"
                    ),
                }
            }
            let now = self.now();
            if swept.is_none_or(|at| now.0 - at.0 >= SWEEP_EVERY_SECS) {
                self.announce_expiring_keys().await;
                swept = Some(now);
            }
            let more = match self.deliver_due(&dashboard).await {
                Ok(more) => more,
                Err(error) => {
                    tracing::warn!(
                        error = format!("{error:#}"),
                        "the webhook outbox could not be read (tried again in a second)"
                    );
                    false
                }
            };
            if !more {
                let _ = tokio::time::timeout(POLL, self.wake.notified()).await;
            }
        }
    }

    /// Announces every version `store` serves, oldest first, but those in `announced` (which it
    /// adds them to); the store skips those another replica, or an earlier run, announced.
    async fn announce_versions(&self, store: &Store, announced: &mut HashSet<String>) -> anyhow::Result<()> {
        let mut versions: Vec<_> = store.versions().collect();
        versions.reverse();
        for catalog in versions {
            let name = catalog.info.name.to_string();
            if announced.contains(&name) {
                continue;
            }
            let now = self.now();
            let bodies = events::version_published(store, catalog, &self.origin, now);
            let queued = self
                .accounts
                .announce(WebhookEvent::VersionPublished, &name, &bodies, Audience::Everyone, nonce()?, now)
                .await?;
            if queued > 0 {
                tracing::info!(
                    version = name,
                    endpoints = queued,
                    "a game version was announced to webhooks"
                );
            }
            announced.insert(name);
        }
        Ok(())
    }

    /// Announces the keys that expire within a week to their accounts' endpoints.
    async fn announce_expiring_keys(&self) {
        let now = self.now();
        let keys = match self.accounts.keys_expiring(now, Timestamp(now.0 + EXPIRING_WITHIN_SECS)).await {
            Ok(keys) => keys,
            Err(error) => return tracing::warn!(%error, "the keys about to expire could not be read"),
        };
        for key in keys {
            let Some(expires_at) = key.expires_at else { continue };
            let subject = format!("key {} until {}", key.id, expires_at.0);
            let bodies = events::key_expiring(&key, expires_at, &self.origin, now);
            let audience = Audience::Account(key.account);
            let announced = async {
                let event = WebhookEvent::KeyExpiring;
                Ok::<_, anyhow::Error>(
                    self.accounts.announce(event, &subject, &bodies, audience, nonce()?, now).await?,
                )
            };
            if let Err(error) = announced.await {
                tracing::warn!(
                    error = format!("{error:#}"),
                    key = key.prefix,
                    "a key's coming expiry could not be announced to webhooks"
                );
            }
        }
    }

    /// Delivers a batch of the messages due now, and mails the owners of endpoints their failures
    /// disabled; true when the batch was full (more may be due).
    async fn deliver_due(self: &Arc<Self>, dashboard: &Dashboard) -> anyhow::Result<bool> {
        let claim = tapster_domain::hex(&random::<16>()?);
        let claimed = self.accounts.claim_webhook_messages(self.now(), self.lease, BATCH, &claim).await?;
        let full = claimed.len() == BATCH;
        let mut deliveries = JoinSet::new();
        for message in claimed {
            let worker = Arc::clone(self);
            deliveries.spawn(async move { worker.deliver(message).await });
        }
        while let Some(delivered) = deliveries.join_next().await {
            match delivered {
                Ok(Ok(None)) | Err(_) => {}
                Ok(Ok(Some(disabled))) => {
                    let (id, host) = (disabled.endpoint.id, host_of(&disabled.endpoint.url));
                    tracing::warn!(
                        endpoint = id,
                        host,
                        "a webhook endpoint failed for 3 days and is disabled"
                    );
                    if let Some(owner) = disabled.owner {
                        dashboard.mail_webhook_disabled(owner, &disabled.endpoint);
                    }
                }
                Ok(Err(error)) => tracing::warn!(
                    error = format!("{error:#}"),
                    "a webhook delivery could not be recorded (it is tried again once its claim ends)"
                ),
            }
        }
        Ok(full)
    }

    /// One try of `message`, recorded; the endpoint, when the try disabled it.
    async fn deliver(&self, message: WebhookMessage) -> anyhow::Result<Option<DisabledWebhook>> {
        let at = self.now();
        let report = match self.attempt(&message, at).await {
            Ok(outcome) => AttemptReport {
                at,
                status: outcome.status(),
                duration_ms: u32::try_from(outcome.duration().as_millis()).unwrap_or(u32::MAX),
                answer: outcome.answer().chars().take(ANSWER_KEPT).collect(),
                error: outcome.failure().map(ToString::to_string),
                delivered: outcome.succeeded(),
            },
            Err(error) => AttemptReport {
                at,
                status: None,
                duration_ms: 0,
                answer: String::new(),
                error: Some(error),
                delivered: false,
            },
        };
        Ok(self.accounts.record_webhook_attempt(&message, &report, jitter()?).await?)
    }

    /// Sends `message` to its endpoint: the URL judged again as it is now (an operator may have
    /// stopped allowing private addresses), signed with the endpoint's secrets unless it is
    /// Discord's.
    async fn attempt(
        &self,
        message: &WebhookMessage,
        at: Timestamp,
    ) -> Result<tapster_webhooks::Outcome, String> {
        let endpoint = Endpoint::parse(&message.endpoint.url, self.client.config())
            .map_err(|error| error.to_string())?;
        let timestamp = at.0.to_string();
        let signature = match message.endpoint.kind {
            WebhookKind::Discord => None,
            WebhookKind::Standard => {
                Some(signature(&message.endpoint, &message.message_id, at, &message.body)?)
            }
        };
        let mut headers = vec![
            (tapster_webhooks::ID_HEADER, message.message_id.as_str()),
            (tapster_webhooks::TIMESTAMP_HEADER, timestamp.as_str()),
        ];
        if let Some(signature) = &signature {
            headers.push((tapster_webhooks::SIGNATURE_HEADER, signature.as_str()));
        }
        Ok(self.client.deliver(&endpoint, &headers, message.body.as_bytes()).await)
    }
}

/// The `webhook-signature` of `body` as `id` at `at`: one `v1,` signature per secret that signs now.
fn signature(endpoint: &WebhookEndpoint, id: &str, at: Timestamp, body: &str) -> Result<String, String> {
    let secrets = endpoint
        .signing_secrets(at)
        .into_iter()
        .map(Secret::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| "the endpoint's stored secret cannot be read; rotate it".to_owned())?;
    let secrets: Vec<&Secret> = secrets.iter().collect();
    Ok(tapster_webhooks::sign(&secrets, id, at.0, body.as_bytes()))
}

/// The dashboard's way to the worker: a test event's bodies, and a nudge once it is queued.
impl Outbox for Webhooks {
    fn test_bodies(&self, endpoint: &WebhookEndpoint, now: Timestamp) -> EventBodies {
        events::test(endpoint, &self.origin, now)
    }

    fn queued(&self) {
        self.wake.notify_one();
    }
}

/// What makes the `webhook-id`s of one announcement unique, from the OS's randomness.
fn nonce() -> anyhow::Result<Nonce> {
    random()
}

/// How a failed message's wait is spread, per mille, from the OS's randomness.
fn jitter() -> anyhow::Result<u16> {
    Ok(u16::from_le_bytes(random()?) % 1_001)
}

fn random<const N: usize>() -> anyhow::Result<[u8; N]> {
    let mut bytes = [0; N];
    getrandom::fill(&mut bytes).map_err(|error| anyhow::anyhow!("drawing random bytes: {error}"))?;
    Ok(bytes)
}

/// The host of an endpoint's URL, for the log: the rest (a Discord webhook's token) is a secret.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or_default()
}
