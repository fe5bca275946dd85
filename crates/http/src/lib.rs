//! The `/v1` HTTP interface: routing, typed parameters, the response envelope, and problem+json
//! errors. This crate is the only one that knows the wire format; it turns store answers into JSON.

mod app;
mod cache;
mod conditional;
mod envelope;
mod error;
pub mod exports;
mod front;
mod gate;
#[cfg(test)]
mod hostile_input;
mod markup;
mod metrics;
mod openapi;
mod pages;
mod params;
mod reference;
mod response;
mod routes;
mod site;
mod value_sets;
mod views;

pub use app::{App, DEFAULT_CACHE_BUDGET};
pub use front::Operators;
pub use gate::{
    Admission, CallingKey, Credentials, Gate, PendingVerdict, Policies, Policy, PolicyState, Quota, Refusal,
    Verdict,
};
pub use pages::Pages;
