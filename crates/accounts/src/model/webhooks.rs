//! The values of webhooks: the endpoints an account registers, the events they subscribe to, the
//! messages waiting in the outbox for each, and the attempts to deliver them, as the dashboard
//! shows them and the server's delivery worker reads and writes them.
//!
//! An endpoint's signing secret is kept as it is, unlike every other secret here: signing a
//! message needs it, and a hash cannot sign.

use tapster_domain::{Email, Timestamp};

use super::AccountId;
use crate::error::{Error, Result};

/// Endpoints an account may hold.
pub const MAX_WEBHOOKS: usize = 5;
/// Deliveries shown, and kept, per endpoint.
pub const WEBHOOK_ATTEMPTS_KEPT: usize = 50;
/// A message is tried again for this long after it was made, then given up.
pub const WEBHOOK_RETRY_SECS: i64 = 24 * 3_600;
/// An endpoint whose deliveries have all failed for this long is disabled, and its owner told.
pub const WEBHOOK_FAILING_SECS: i64 = 3 * 86_400;
/// After a rotation, the replaced secret still signs (beside the new one) this long, so that a
/// receiver can switch without losing a message.
pub const WEBHOOK_ROTATION_SECS: i64 = 24 * 3_600;

/// What an endpoint is told of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WebhookEvent {
    /// A game version was published.
    VersionPublished,
    /// One of the account's keys expires within a week.
    KeyExpiring,
    /// The owner asked for a test from the dashboard; never subscribed to, sent when asked.
    Test,
}

impl WebhookEvent {
    /// The events an owner subscribes to.
    pub const SUBSCRIBED: [Self; 2] = [Self::VersionPublished, Self::KeyExpiring];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::VersionPublished => "version.published",
            Self::KeyExpiring => "key.expiring",
            Self::Test => "webhook.test",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::VersionPublished, Self::KeyExpiring, Self::Test]
            .into_iter()
            .find(|event| event.as_str() == value)
    }
}

/// How an endpoint is spoken to: signed Standard Webhooks JSON, or a Discord message (Discord
/// cannot check a signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WebhookKind {
    Standard,
    Discord,
}

impl WebhookKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Discord => "discord",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Standard, Self::Discord].into_iter().find(|kind| kind.as_str() == value)
    }
}

/// An endpoint's description, as its owner typed it: what receives the events, shown in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookDescription(String);

impl WebhookDescription {
    pub const MAX_CHARS: usize = 100;

    /// Trimmed; may be empty; at most [`Self::MAX_CHARS`] characters, none of them a control.
    pub fn parse(value: &str) -> Result<Self> {
        let value = value.trim();
        if value.chars().count() > Self::MAX_CHARS {
            return Err(Error::InvalidWebhook("description is at most 100 characters"));
        }
        if value.chars().any(char::is_control) {
            return Err(Error::InvalidWebhook("description is one line of text"));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An endpoint to add, as its owner gave it. The URL was checked by whoever took it (it is kept
/// as text here: the accounts store knows nothing of addresses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    pub url: String,
    pub description: WebhookDescription,
    pub kind: WebhookKind,
    /// At least one of [`WebhookEvent::SUBSCRIBED`].
    pub events: Vec<WebhookEvent>,
    /// `whsec_...`, made by the caller's randomness.
    pub secret: String,
}

/// An endpoint, as stored. (Its `Debug` leaves the secrets out.)
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: i64,
    pub account: AccountId,
    pub url: String,
    pub description: String,
    pub kind: WebhookKind,
    pub events: Vec<WebhookEvent>,
    pub secret: String,
    /// The secret a rotation replaced, and until when it still signs.
    pub previous_secret: Option<(String, Timestamp)>,
    pub created_at: Timestamp,
    /// When it was disabled, and why, while it is.
    pub disabled: Option<(Timestamp, String)>,
    /// Since when its deliveries have failed, with none delivered since.
    pub failing_since: Option<Timestamp>,
}

impl std::fmt::Debug for WebhookEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookEndpoint")
            .field("id", &self.id)
            .field("account", &self.account)
            .field("url", &self.url)
            .field("kind", &self.kind)
            .field("events", &self.events)
            .field("disabled", &self.disabled)
            .field("failing_since", &self.failing_since)
            .finish_non_exhaustive()
    }
}

impl WebhookEndpoint {
    /// Whether it is told of `event`.
    pub fn subscribes(&self, event: WebhookEvent) -> bool {
        self.events.contains(&event)
    }

    /// The secrets a message made at `now` is signed with: the current one, and the one a
    /// rotation replaced while it still signs.
    pub fn signing_secrets(&self, now: Timestamp) -> Vec<&str> {
        let mut secrets = vec![self.secret.as_str()];
        if let Some((previous, until)) = &self.previous_secret
            && *until > now
        {
            secrets.push(previous);
        }
        secrets
    }
}

/// The two renderings of one event: signed JSON for Standard Webhooks endpoints, and a message for
/// Discord's; each endpoint is sent the one of its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventBodies {
    pub standard: String,
    pub discord: String,
}

/// Whom an announced event is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Every endpoint that subscribes to it (a version published).
    Everyone,
    /// The endpoints of one account (one of its keys expiring).
    Account(AccountId),
}

/// A message the delivery worker claimed: what to send, to where, and how often it was tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookMessage {
    pub id: i64,
    /// What the worker claimed it with: its try is recorded only while the claim is still its own.
    pub claim: String,
    /// `webhook-id`: the same on every try, so that a receiver can tell a retry from a new event.
    pub message_id: String,
    pub event: WebhookEvent,
    pub body: String,
    pub created_at: Timestamp,
    /// Tries before this one.
    pub attempts: u32,
    pub endpoint: WebhookEndpoint,
}

/// One try at delivering a message, as the worker reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptReport {
    pub at: Timestamp,
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    pub duration_ms: u32,
    /// The first bytes of its answer (a few hundred characters are kept).
    pub answer: String,
    /// Why it failed, for a person, when it did.
    pub error: Option<String>,
    pub delivered: bool,
}

/// One try, as the dashboard lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAttempt {
    pub id: i64,
    pub message_id: String,
    pub event: WebhookEvent,
    /// Which try of its message this was, from 1.
    pub attempt: u32,
    pub report: AttemptReport,
}

/// The random bytes that make the `webhook-id`s of one event unique, from the caller's randomness.
pub type Nonce = [u8; 12];

/// The `webhook-id` of an event's message to `endpoint`: the same on every try of it, and unique
/// over endpoints and events (`msg_`, the nonce in hex, `_`, the endpoint's number).
pub fn message_id(nonce: &Nonce, endpoint: i64) -> String {
    format!("msg_{}_{endpoint}", tapster_domain::hex(nonce))
}

/// An endpoint the worker disabled because it kept failing, with its owner's address to tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledWebhook {
    pub endpoint: WebhookEndpoint,
    pub owner: Option<Email>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_kinds_read_back_what_they_write() {
        for event in [WebhookEvent::VersionPublished, WebhookEvent::KeyExpiring, WebhookEvent::Test] {
            assert_eq!(WebhookEvent::parse(event.as_str()), Some(event));
        }
        assert_eq!(WebhookEvent::parse("version.Published"), None);
        for kind in [WebhookKind::Standard, WebhookKind::Discord] {
            assert_eq!(WebhookKind::parse(kind.as_str()), Some(kind));
        }
    }

    #[test]
    fn a_rotated_secret_signs_beside_the_new_one_until_its_time() {
        let endpoint = WebhookEndpoint {
            id: 1,
            account: AccountId(1),
            url: "https://hooks.example/tapster".into(),
            description: String::new(),
            kind: WebhookKind::Standard,
            events: vec![WebhookEvent::VersionPublished],
            secret: "whsec_new".into(),
            previous_secret: Some(("whsec_old".into(), Timestamp(100))),
            created_at: Timestamp(0),
            disabled: None,
            failing_since: None,
        };
        assert_eq!(endpoint.signing_secrets(Timestamp(99)), ["whsec_new", "whsec_old"]);
        assert_eq!(endpoint.signing_secrets(Timestamp(100)), ["whsec_new"]);
        assert!(endpoint.subscribes(WebhookEvent::VersionPublished));
        assert!(!endpoint.subscribes(WebhookEvent::KeyExpiring));
    }

    #[test]
    fn descriptions_are_one_short_line() {
        assert_eq!(WebhookDescription::parse("  wiki import ").unwrap().as_str(), "wiki import");
        assert!(WebhookDescription::parse(&"x".repeat(101)).is_err());
        assert!(WebhookDescription::parse("two\nlines").is_err());
        assert_eq!(WebhookDescription::parse("").unwrap().as_str(), "");
    }
}
