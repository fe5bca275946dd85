//! Each event in the two forms an endpoint may take: the JSON of the wire's event types, which
//! Standard Webhooks endpoints are sent signed, and a Discord message for Discord's. Made once,
//! when the event is announced, and stored as they will be sent.

use tapster_accounts::{EventBodies, KeyRecord, WebhookEndpoint};
use tapster_domain::Timestamp;
use tapster_store::{Catalog, Store};
use tapster_webhooks::{DiscordMessage, discord_message};
use tapster_wire::{
    ExpiringKey, KeyExpiring, KeyExpiringEvent, KeyLinks, TestData, TestEvent, VersionPublishedEvent,
    WEBHOOK_SCHEMA_VERSION, WebhookEventType,
};

/// The colour of Tapster's Discord messages (amber, as a pale ale).
const COLOR: u32 = 0xE0A526;
/// The footer of every Discord message.
const FOOTER: &str = "Tapster";

/// `version.published` for `version` of `store`, made at `now`.
pub(super) fn version_published(
    store: &Store,
    version: &Catalog,
    origin: &str,
    now: Timestamp,
) -> EventBodies {
    let data = tapster_http::version_published(store, version, origin);
    let timestamp = now.to_string();
    let summary = match (&data.previous, &data.changes) {
        (Some(previous), Some(changes)) => format!(
            "Since {previous}: {} added, {} removed, {} modified.",
            changes.added, changes.removed, changes.modified
        ),
        _ => "The first version Tapster serves.".to_owned(),
    };
    let described: Vec<(String, String)> = data
        .highlights
        .iter()
        .map(|change| {
            (
                format!("{} {}", capitalized(change.change.as_str()), singular(change.kind.as_str())),
                change.name.clone(),
            )
        })
        .collect();
    let fields: Vec<(&str, &str)> =
        described.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
    let content = format!("Game version {} is published.", data.version);
    let title = format!("{} (build {})", data.version, data.build_id);
    let changelog = format!("{origin}/changelog");
    let discord = discord_message(&DiscordMessage {
        content: &content,
        title: &title,
        url: &changelog,
        description: &summary,
        color: COLOR,
        fields: &fields,
        footer: FOOTER,
        timestamp: &timestamp,
    });
    let event = VersionPublishedEvent {
        kind: WebhookEventType::VersionPublished,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp,
        data,
    };
    bodies(&event, discord)
}

/// `key.expiring` for `key`, which expires at `expires_at`, made at `now`.
pub(super) fn key_expiring(
    key: &KeyRecord,
    expires_at: Timestamp,
    origin: &str,
    now: Timestamp,
) -> EventBodies {
    // Rounded up: a key announced a week ahead, a few seconds late, still has 7 days.
    let days_left = u32::try_from(((expires_at.0 - now.0).max(0) + 86_399) / 86_400).unwrap_or(u32::MAX);
    let timestamp = now.to_string();
    let dashboard = format!("{origin}/account");
    let content = format!("Your Tapster API key “{}” expires in {days_left} days.", key.name);
    let title = format!("{}… expires on {}", key.prefix, &expires_at.to_string()[..10]);
    let description =
        "Create a new key in the dashboard and switch to it before then: an expired key is answered 401.";
    let discord = discord_message(&DiscordMessage {
        content: &content,
        title: &title,
        url: &dashboard,
        description,
        color: COLOR,
        fields: &[],
        footer: FOOTER,
        timestamp: &timestamp,
    });
    let event = KeyExpiringEvent {
        kind: WebhookEventType::KeyExpiring,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp,
        data: KeyExpiring {
            key: ExpiringKey {
                name: key.name.clone(),
                prefix: key.prefix.clone(),
                expires_at: expires_at.to_string(),
            },
            days_left,
            links: KeyLinks { dashboard },
        },
    };
    bodies(&event, discord)
}

/// `webhook.test` for `endpoint`, made at `now`.
pub(super) fn test(endpoint: &WebhookEndpoint, origin: &str, now: Timestamp) -> EventBodies {
    let timestamp = now.to_string();
    let message = "A test event from the Tapster dashboard: this endpoint receives Tapster's webhooks.";
    let webhooks = format!("{origin}/account/webhooks");
    let discord = discord_message(&DiscordMessage {
        content: "A test event from Tapster.",
        title: "This channel receives Tapster's webhooks",
        url: &webhooks,
        description: message,
        color: COLOR,
        fields: &[],
        footer: FOOTER,
        timestamp: &timestamp,
    });
    let event = TestEvent {
        kind: WebhookEventType::Test,
        schema_version: WEBHOOK_SCHEMA_VERSION,
        timestamp,
        data: TestData { endpoint: endpoint.description.clone(), message: message.to_owned() },
    };
    bodies(&event, discord)
}

/// The signed JSON of `event` beside the Discord message.
fn bodies(event: &impl serde::Serialize, discord: Vec<u8>) -> EventBodies {
    EventBodies {
        // The wire's types hold strings and numbers only: writing them cannot fail.
        standard: serde_json::to_string(event).unwrap_or_default(),
        discord: String::from_utf8_lossy(&discord).into_owned(),
    }
}

/// `added` as `Added`.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A record type's plural as one record of it (`crafting_stations` as `crafting station`).
fn singular(plural: &str) -> String {
    let one = match plural {
        "fish" | "reputation" => plural,
        _ => plural.strip_suffix('s').unwrap_or(plural),
    };
    one.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_types_are_named_one_at_a_time() {
        for (plural, one) in [
            ("items", "item"),
            ("crafting_stations", "crafting station"),
            ("fish", "fish"),
            ("reputation", "reputation"),
            ("ingredient_groups", "ingredient group"),
        ] {
            assert_eq!(singular(plural), one);
        }
        assert_eq!(capitalized("added"), "Added");
    }
}
