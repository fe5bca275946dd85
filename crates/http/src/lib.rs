//! The `/v1` HTTP interface: routing, typed parameters, the response envelope, and problem+json
//! errors; the OpenAPI document and `/docs` written from the same endpoint table; the bulk exports.
//! The answers' shapes are `tapster-wire`'s: this crate builds them from the store's catalogs. Its
//! modules stand in layers (docs/ARCHITECTURE.md draws them, and a tidy test holds them).

mod app;
mod cache;
mod conditional;
mod envelope;
mod error;
mod events;
pub mod exports;
mod front;
mod gate;
#[cfg(test)]
mod hostile_input;
mod markup;
mod metrics;
mod openapi;
mod params;
mod reference;
mod response;
mod routes;
mod schemas;
mod site;
mod tar;
mod value_sets;
mod views;

pub use app::{App, DEFAULT_CACHE_BUDGET, Pages, PendingVisit, Visit, Visitor};
pub use events::version_published;
pub use front::Operators;
pub use gate::{
    Admission, CallingKey, Credentials, Gate, PendingVerdict, Policies, Policy, PolicyState, Quota, Refusal,
    Verdict,
};
