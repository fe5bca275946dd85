//! A typed async client of the Tapster API, on hyper with rustls.
//!
//! One method per endpoint, taking the parameters the route documents ([`query`]; all but `fields`,
//! whose partial records a typed answer cannot hold: read those with [`Client::get`] into your own
//! type) and answering in
//! the shapes the server writes with ([`tapster_wire`], re-exported here): the same types on both
//! sides, so a field cannot drift. Sets of values, and the kinds of records and tree nodes, keep one
//! this client does not know as `Unknown`, so a newer server's answers still read.
//!
//! ```no_run
//! use tapster_client::{Client, ItemKind, ItemsQuery, Lang};
//!
//! # async fn run() -> tapster_client::Result<()> {
//! let client = Client::builder("http://127.0.0.1:8080", "tap_...").etag_cache(true).build()?;
//! let drinks = ItemsQuery { kind: Some(ItemKind::Drink), lang: Some(Lang::De), ..Default::default() };
//! for item in client.items_pages(&drinks).all().await? {
//!     println!("{}: {}", item.name, item.buy_price.display);
//! }
//! println!("{:?}", client.rate_limit());
//! # Ok(())
//! # }
//! ```
//!
//! Every call:
//! - sends the key as `Authorization: Bearer`, and a `User-Agent` you may set;
//! - with the ETag cache on, revalidates what it already holds with `If-None-Match` and reads a `304`
//!   from memory ([`Answer::revalidated`]);
//! - waits out a `429` (or a `503` with `Retry-After`) for at most [`ClientBuilder::max_wait`] in
//!   all, and then fails with [`Error::RateLimited`] (or [`Error::Api`]); gives up on a request after
//!   [`ClientBuilder::timeout`];
//! - fails with [`Error::Api`] holding the problem the server answered (`status`, `detail`, and for a
//!   `422` each refused parameter);
//! - leaves where the key stands ([`RateLimit`]) in [`Answer::rate_limit`] and [`Client::rate_limit`].
//!
//! [`ENDPOINTS`] lists every path the client calls with the parameters its method sends: the table
//! the methods build their targets from.

mod client;
mod endpoints;
mod error;
mod pages;
mod paths;
pub mod query;
mod rate_limit;

pub use client::{Answer, Client, ClientBuilder, DEFAULT_MAX_WAIT, DEFAULT_TIMEOUT};
pub use error::{Error, Result};
pub use pages::Pages;
pub use paths::{ENDPOINTS, Endpoint};
pub use query::{
    Bounds, ChangesQuery, CropsQuery, Expansion, FishQuery, ItemQuery, ItemsQuery, PageQuery, Parameter,
    PictureQuery, PriceQuery, RankingsQuery, RecipesQuery, SearchQuery, TreeQuery, VersionLang,
};
pub use rate_limit::RateLimit;
pub use tapster_wire;
pub use tapster_wire::*;
