//! The webhooks' outbox as the dashboard sees it. The server runs the worker that delivers
//! messages, and alone knows what an event says (the API's shapes): it gives the dashboard an
//! [`Outbox`] that makes a test event's bodies and hears when one was queued, as it gives the
//! reference page's forms a [`Console`](crate::Console).

use tapster_accounts::{EventBodies, WebhookEndpoint};
use tapster_domain::Timestamp;

/// What the dashboard asks of the server's webhook worker.
pub trait Outbox: Send + Sync + std::fmt::Debug + 'static {
    /// The bodies of a test event for `endpoint`, made at `now`: the signed JSON of a Standard
    /// Webhooks endpoint, and the message of a Discord one.
    fn test_bodies(&self, endpoint: &WebhookEndpoint, now: Timestamp) -> EventBodies;

    /// Told once a message was queued, so that it goes out now rather than at the worker's next look.
    fn queued(&self);
}
