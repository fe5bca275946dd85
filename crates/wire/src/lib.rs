//! The JSON shapes of the Tapster API: every answer's `data`, the envelope around it, and the
//! problems errors are told in; and the bodies of the webhooks it sends ([`webhooks`]). The server
//! writes its answers and webhooks with these types and writes its OpenAPI document from their
//! schemas; a client or a receiver reads what it is sent into them. One definition for both, so
//! that they cannot drift apart.
//!
//! Field names are the wire's, as documented in `docs/api.md`. A client compiled against this version
//! still reads the answers of a newer server: a field it does not know is ignored, and every closed
//! set of values ([`sets`]), tagged union, [`TreeNode`] and `MatchHow` keeps a value it does not know
//! as `Unknown`.
//! Fields are public, to be read; building these types is the server's business, and a field added
//! to a struct is a change a struct literal outside this crate has to follow.

pub mod common;
pub mod envelope;
pub mod items;
pub mod prices;
pub mod progression;
pub mod recipes;
pub mod relations;
pub mod search;
pub mod service;
pub mod sets;
pub mod webhooks;
pub mod world;

pub use common::*;
pub use envelope::*;
pub use items::*;
pub use prices::*;
pub use progression::*;
pub use recipes::*;
pub use relations::*;
pub use search::*;
pub use service::*;
pub use sets::*;
pub use webhooks::*;
pub use world::*;
