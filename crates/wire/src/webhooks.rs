//! The bodies of the webhooks Tapster sends: one event type per shape, each naming its `type`, the
//! `schema_version` of its shape and when it was made, with what happened in `data`. Receivers read
//! them with these types; the server writes them with these types and documents them, from their
//! schemas, in the OpenAPI document's `webhooks`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::*;

/// The `schema_version` of every payload this crate describes. A change that a receiver could
/// misread (a member removed, renamed or given another meaning) makes a new version; a member added
/// does not.
pub const WEBHOOK_SCHEMA_VERSION: u32 = 1;

/// `version.published`: a new game version is served. Sent to every endpoint that asked for it,
/// once per version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionPublishedEvent {
    /// Always `version.published`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "version.published"))]
    pub kind: WebhookEventType,
    /// The version of this payload's shape, `1` for the shape described here.
    #[schemars(range(min = 1))]
    pub schema_version: u32,
    /// When the event was made (RFC 3339, UTC); every retry of a delivery carries the same.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    pub data: VersionPublished,
}

/// The game version that was published, what changed since the one before, and where to read more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionPublished {
    /// The version's name, as `/v1/versions/{version}` takes it.
    pub version: String,
    /// The game's build id of the version.
    pub build_id: i64,
    /// The day the game released it.
    #[schemars(extend("format" = "date"))]
    pub released: String,
    /// The version before it; `null` for the first.
    pub previous: Option<String>,
    /// How many records were added, removed and modified since `previous`; `null` for the first
    /// version.
    pub changes: Option<ChangeCounts>,
    /// Up to 10 records added or modified since `previous`, for a message's headline; the whole list
    /// is at `links.changes`. Empty for the first version.
    #[schemars(length(max = 10))]
    pub highlights: Vec<VersionChange>,
    pub links: VersionLinks,
}

/// Absolute URLs of the API about a published version (each needs an API key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionLinks {
    /// The version: `/v1/versions/{version}`.
    #[schemars(extend("format" = "uri"))]
    pub version: String,
    /// Every change since the version before: `/v1/versions/{version}/changes`.
    #[schemars(extend("format" = "uri"))]
    pub changes: String,
    /// The list of bulk exports, `/v1/exports`, newest version first: this version's files, one
    /// per language, are at its top (the list takes no parameter).
    #[schemars(extend("format" = "uri"))]
    pub exports: String,
}

/// `key.expiring`: one of the account's API keys stops working soon. Sent once per key, 7 days
/// before it expires, to the endpoints of the key's own account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeyExpiringEvent {
    /// Always `key.expiring`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "key.expiring"))]
    pub kind: WebhookEventType,
    /// The version of this payload's shape, `1` for the shape described here.
    #[schemars(range(min = 1))]
    pub schema_version: u32,
    /// When the event was made (RFC 3339, UTC); every retry of a delivery carries the same.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    pub data: KeyExpiring,
}

/// The key that expires, how soon, and where to make a new one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeyExpiring {
    pub key: ExpiringKey,
    /// Whole days left until `key.expires_at`, counted when the event was made.
    pub days_left: u32,
    pub links: KeyLinks,
}

/// An API key, named as the dashboard lists it; never the key itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExpiringKey {
    /// The name its owner gave it.
    pub name: String,
    /// Its public prefix: `tap_` and the key's next 8 characters.
    #[schemars(regex(pattern = r"^tap_[0-9A-Za-z]{8}$"))]
    pub prefix: String,
    /// When it stops working (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    pub expires_at: String,
}

/// Where the key's owner acts on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeyLinks {
    /// The dashboard page that lists the account's keys and makes new ones.
    #[schemars(extend("format" = "uri"))]
    pub dashboard: String,
}

/// `webhook.test`: sent when the endpoint's owner asks for a test from the dashboard, to see that
/// the endpoint receives and verifies webhooks. It reports nothing that happened; a receiver
/// answers it like any other event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestEvent {
    /// Always `webhook.test`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "webhook.test"))]
    pub kind: WebhookEventType,
    /// The version of this payload's shape, `1` for the shape described here.
    #[schemars(range(min = 1))]
    pub schema_version: u32,
    /// When the event was made (RFC 3339, UTC); every retry of a delivery carries the same.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    pub data: TestData,
}

/// What a test event says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestData {
    /// The endpoint's description, as its owner wrote it in the dashboard.
    pub endpoint: String,
    /// A sentence for a person reading the receiver's log.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::*;

    /// `value` is written as `expected`, and `expected` reads back as `value`.
    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T, expected: Value) {
        assert_eq!(serde_json::to_value(value).unwrap(), expected);
        let back: T = serde_json::from_value(expected).unwrap();
        assert_eq!(&back, value);
    }

    #[test]
    fn version_published_reads_and_writes_as_documented() {
        let event = VersionPublishedEvent {
            kind: WebhookEventType::VersionPublished,
            schema_version: WEBHOOK_SCHEMA_VERSION,
            timestamp: "2025-03-14T09:30:00Z".into(),
            data: VersionPublished {
                version: "v1.2".into(),
                build_id: 14_210_051,
                released: "2025-03-13".into(),
                previous: Some("v1.1".into()),
                changes: Some(ChangeCounts { added: 12, removed: 1, modified: 30 }),
                highlights: vec![VersionChange {
                    kind: ChangeType::Items,
                    id: Some(1204),
                    key: None,
                    slug: Some("honey-mead".into()),
                    name: "Honey Mead".into(),
                    change: ChangeKind::Added,
                    fields: vec![],
                }],
                links: VersionLinks {
                    version: "https://api.example.com/v1/versions/v1.2".into(),
                    changes: "https://api.example.com/v1/versions/v1.2/changes".into(),
                    exports: "https://api.example.com/v1/exports".into(),
                },
            },
        };
        round_trip(
            &event,
            json!({
                "type": "version.published",
                "schema_version": 1,
                "timestamp": "2025-03-14T09:30:00Z",
                "data": {
                    "version": "v1.2",
                    "build_id": 14_210_051,
                    "released": "2025-03-13",
                    "previous": "v1.1",
                    "changes": { "added": 12, "removed": 1, "modified": 30 },
                    "highlights": [{
                        "type": "items", "id": 1204, "key": null, "slug": "honey-mead",
                        "name": "Honey Mead", "change": "added", "fields": [],
                    }],
                    "links": {
                        "version": "https://api.example.com/v1/versions/v1.2",
                        "changes": "https://api.example.com/v1/versions/v1.2/changes",
                        "exports": "https://api.example.com/v1/exports",
                    },
                },
            }),
        );
    }

    #[test]
    fn the_first_version_has_no_previous_and_no_changes() {
        let data = VersionPublished {
            version: "v1.0".into(),
            build_id: 1,
            released: "2024-11-02".into(),
            previous: None,
            changes: None,
            highlights: vec![],
            links: VersionLinks { version: "v".into(), changes: "c".into(), exports: "e".into() },
        };
        round_trip(
            &data,
            json!({
                "version": "v1.0", "build_id": 1, "released": "2024-11-02", "previous": null,
                "changes": null, "highlights": [],
                "links": { "version": "v", "changes": "c", "exports": "e" },
            }),
        );
    }

    #[test]
    fn key_expiring_reads_and_writes_as_documented() {
        let event = KeyExpiringEvent {
            kind: WebhookEventType::KeyExpiring,
            schema_version: WEBHOOK_SCHEMA_VERSION,
            timestamp: "2025-03-14T00:00:05Z".into(),
            data: KeyExpiring {
                key: ExpiringKey {
                    name: "wiki bot".into(),
                    prefix: "tap_Ab12Cd34".into(),
                    expires_at: "2025-03-21T00:00:00Z".into(),
                },
                days_left: 7,
                links: KeyLinks { dashboard: "https://api.example.com/account".into() },
            },
        };
        round_trip(
            &event,
            json!({
                "type": "key.expiring",
                "schema_version": 1,
                "timestamp": "2025-03-14T00:00:05Z",
                "data": {
                    "key": { "name": "wiki bot", "prefix": "tap_Ab12Cd34", "expires_at": "2025-03-21T00:00:00Z" },
                    "days_left": 7,
                    "links": { "dashboard": "https://api.example.com/account" },
                },
            }),
        );
    }

    #[test]
    fn test_event_reads_and_writes_as_documented() {
        let event = TestEvent {
            kind: WebhookEventType::Test,
            schema_version: WEBHOOK_SCHEMA_VERSION,
            timestamp: "2025-03-14T10:00:00Z".into(),
            data: TestData { endpoint: "Guild bot".into(), message: "A test event from Tapster.".into() },
        };
        round_trip(
            &event,
            json!({
                "type": "webhook.test",
                "schema_version": 1,
                "timestamp": "2025-03-14T10:00:00Z",
                "data": { "endpoint": "Guild bot", "message": "A test event from Tapster." },
            }),
        );
    }

    /// A receiver built against this crate still reads an event of a newer server: an event type it
    /// does not know is kept, and a member it does not know is ignored.
    #[test]
    fn newer_events_still_read() {
        let newer: TestEvent = serde_json::from_value(json!({
            "type": "webhook.ping", "schema_version": 2, "timestamp": "2026-01-01T00:00:00Z",
            "data": { "endpoint": "e", "message": "m", "colour": "blue" }, "extra": true,
        }))
        .unwrap();
        assert_eq!(newer.kind, WebhookEventType::Unknown("webhook.ping".into()));
        assert_eq!(newer.schema_version, 2);
    }
}
