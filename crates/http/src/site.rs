//! Where the service is served from, as its clients reach it, and the documents written for that
//! address and one published data set: the OpenAPI document names the address as its server and
//! shows, as each operation's example, its real answer to one request; the changelog feed links to
//! the address, since a feed reader holds no other base to resolve a relative link against.

use std::sync::OnceLock;

use bytes::Bytes;
use hyper::Method;
use tapster_store::Store;

use crate::metrics::Metrics;
use crate::openapi;
use crate::routes::{documented, route};

/// The public address, and the OpenAPI document built from it and the data on first request.
#[derive(Debug)]
pub(crate) struct Site {
    /// `https://api.example.com`, without a trailing slash; `None` when the operator named none.
    origin: Option<String>,
    openapi: OnceLock<Bytes>,
}

impl Site {
    pub(crate) fn new(origin: Option<&str>) -> Self {
        Self { origin: origin.map(|o| o.trim_end_matches('/').to_owned()), openapi: OnceLock::new() }
    }

    /// The URL of `path` (which starts with `/`): absolute when the public address is known.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin.as_deref().unwrap_or_default())
    }

    /// `/openapi.json`'s body for the data in `store`, which this site is published with.
    pub(crate) fn openapi(&self, store: &Store, metrics: &Metrics) -> Bytes {
        self.openapi.get_or_init(|| self.document(store, metrics)).clone()
    }

    /// The document with its examples: each endpoint's answer to its example request. No example
    /// asks for `/openapi.json` (a test sees to it), so none waits on the document being built.
    fn document(&self, store: &Store, metrics: &Metrics) -> Bytes {
        let mut document = openapi::document(self.origin.as_deref());
        for endpoint in documented() {
            let Some(target) = endpoint.example else { continue };
            // An example naming a record that other data than the bundled lacks is left out.
            if let Some(body) = self.answer(store, metrics, target) {
                openapi::add_example(&mut document, endpoint.path, target, &body);
            }
        }
        // A tree of strings, numbers and maps always encodes.
        Bytes::from(serde_json::to_vec(&document).unwrap_or_default())
    }

    /// The body of the `200` that `store` answers to `target`, if it does.
    fn answer(&self, store: &Store, metrics: &Metrics, target: &str) -> Option<Bytes> {
        let (path, query) = target.split_once('?').map_or((target, None), |(p, q)| (p, Some(q)));
        let reply = route(store, self, metrics, &Method::GET, path, query).ok()?.answer().ok()?;
        Some(reply.body)
    }
}
