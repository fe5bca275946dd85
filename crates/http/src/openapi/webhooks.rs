//! The document's `webhooks` (OpenAPI 3.1): the events Tapster sends to the endpoints accounts
//! register in the dashboard, each a `POST` of its wire type (`tapster_wire::webhooks`) signed in the
//! Standard Webhooks headers. The bodies are the wire types' schemas, registered with the other
//! components, so that the document cannot say one shape and the server send another.

use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};
use tapster_wire::{KeyExpiringEvent, TestEvent, VersionPublishedEvent, WebhookEventType};

use crate::schemas::schema;

/// The tag of the webhooks, and what it says.
pub(super) const TAG: &str = "webhooks";
pub(super) const TAG_DESCRIPTION: &str = "The events Tapster sends, as signed `POST`s, to the webhook \
endpoints an account registers in the dashboard. They are not routes of this server: a receiver serves \
them. An endpoint that is a Discord webhook gets a Discord message made from the same event instead, \
unsigned. See docs/api.md, \"Webhooks\".";

/// One event type as the document describes it.
struct Event {
    kind: WebhookEventType,
    operation_id: &'static str,
    summary: &'static str,
    description: &'static str,
    body: fn(&mut SchemaGenerator) -> Schema,
}

const EVENTS: &[Event] = &[
    Event {
        kind: WebhookEventType::VersionPublished,
        operation_id: "webhookVersionPublished",
        summary: "A game version was published",
        description: "Sent once per game version, when it is first served, to every endpoint that asked for \
`version.published`: the version, how many records changed since the one before, up to 10 of them \
as headlines, and links to the API.",
        body: schema::<VersionPublishedEvent>,
    },
    Event {
        kind: WebhookEventType::KeyExpiring,
        operation_id: "webhookKeyExpiring",
        summary: "An API key expires in 7 days",
        description: "Sent once per key, 7 days before it expires, to the endpoints of the key's own \
account that asked for `key.expiring`: which key (its name and prefix, never the key) and where to \
make a new one.",
        body: schema::<KeyExpiringEvent>,
    },
    Event {
        kind: WebhookEventType::Test,
        operation_id: "webhookTest",
        summary: "A test event from the dashboard",
        description: "Sent to one endpoint when its owner asks for a test in the dashboard, whatever \
events the endpoint asked for, to see that it receives and verifies webhooks.",
        body: schema::<TestEvent>,
    },
];

/// The Standard Webhooks headers of every delivery, as header parameters.
fn headers() -> Value {
    json!([
        {
            "name": "webhook-id",
            "in": "header",
            "required": true,
            "description": "The event's id, unique per event and endpoint and the same on every retry of it: \
    a receiver that keeps the ids it has handled can drop a delivery it already has. The first part of \
    the signed content.",
            "schema": { "type": "string" },
        },
        {
            "name": "webhook-timestamp",
            "in": "header",
            "required": true,
            "description": "When this attempt was sent, in whole seconds since the Unix epoch. The second \
    part of the signed content; refuse a delivery whose timestamp is more than 5 minutes from your clock, \
    so that a captured one cannot be replayed later.",
            "schema": { "type": "string", "pattern": "^[0-9]+$" },
        },
        {
            "name": "webhook-signature",
            "in": "header",
            "required": true,
            "description": "The signatures of the delivery, `v1,` and a base64 HMAC-SHA256 each, apart by \
    spaces. To verify one: take the endpoint's secret, decode the base64 after `whsec_` into bytes, compute \
    the HMAC-SHA256 under those bytes of `{webhook-id}.{webhook-timestamp}.{body}` (the body as received, \
    byte for byte), encode it in base64, and compare it in constant time with each signature after its \
    `v1,`: one that matches is enough. While a secret is rotated, deliveries carry one signature per \
    secret, so that a receiver that knows the old or the new one verifies them. The Standard Webhooks \
    libraries (`standardwebhooks` for Python and JavaScript, and others) do all of this.",
            "schema": { "type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
        },
    ])
}

/// What a receiver answers, and what comes of it.
fn responses() -> Value {
    json!({
        "2XX": { "description": "Any 2xx: delivered. Its body is not read past 4 KiB and means nothing." },
        "default": {
            "description": "Any other answer, a redirect (never followed), no answer within 10 seconds or no \
    connection: not delivered. The event is sent again, with the same `webhook-id`, after waits that grow, \
    with jitter, for 24 hours; an endpoint that has failed for 3 days is disabled and its owner is mailed.",
        },
    })
}

/// The `webhooks` object: one `post` per event type, named by the type, whose body refers to the
/// event's schema in `components/schemas` (registered in `generator`).
pub(super) fn webhooks(generator: &mut SchemaGenerator) -> Value {
    let mut webhooks = Map::new();
    for event in EVENTS {
        let body = (event.body)(generator).to_value();
        let operation = json!({
            "operationId": event.operation_id,
            "summary": event.summary,
            "description": event.description,
            "tags": [TAG],
            // Tapster authenticates itself to the receiver by the signature, not by a scheme of this
            // document; the receiver asks for nothing.
            "security": [],
            "parameters": headers(),
            "requestBody": {
                "required": true,
                "description": format!("The `{}` event, as JSON.", event.kind),
                "content": { "application/json": { "schema": body } },
            },
            "responses": responses(),
        });
        webhooks.insert(event.kind.to_string(), json!({ "post": operation }));
    }
    Value::Object(webhooks)
}

#[cfg(test)]
mod tests {
    use schemars::generate::SchemaSettings;
    use tapster_wire::ValueSet;

    use super::*;

    #[test]
    fn every_event_type_is_a_webhook_whose_body_is_its_component() {
        let mut generator = SchemaSettings::draft2020_12()
            .with(|s| s.definitions_path = "/components/schemas/".into())
            .into_generator();
        let webhooks = webhooks(&mut generator);
        let names: Vec<&String> = webhooks.as_object().unwrap().keys().collect();
        assert_eq!(names, WebhookEventType::VALUES);
        let components = generator.take_definitions(true);
        for (name, component) in
            [("version.published", "VersionPublishedEvent"), ("key.expiring", "KeyExpiringEvent")]
        {
            let body = &webhooks[name]["post"]["requestBody"]["content"]["application/json"]["schema"];
            assert_eq!(body["$ref"], format!("#/components/schemas/{component}"), "{name}");
            assert!(components.contains_key(component), "{component}");
        }
    }
}
