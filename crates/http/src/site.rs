//! Where the service is served from, as its clients reach it, and the documents written for that
//! address and the data being served: the OpenAPI document names the address as its server and
//! shows, as each operation's example, its real answer to one request; the changelog feed links to
//! the address, since a feed reader or a generated client holds no other base to resolve a relative
//! link against.

use bytes::Bytes;
use hyper::Method;
use tapster_store::Store;

use crate::openapi;
use crate::routes::{endpoints, route};

/// The public address and what is built from it and one game-data set, once.
#[derive(Debug)]
pub(crate) struct Site {
    /// `https://api.example.com`, without a trailing slash; `None` when the embedder gave none.
    origin: Option<String>,
    openapi: Bytes,
}

impl Site {
    pub(crate) fn new(origin: Option<&str>, store: &Store) -> Self {
        let origin = origin.map(|o| o.trim_end_matches('/').to_owned());
        let mut document = openapi::document(origin.as_deref());
        // The examples are answered by a site that has no document yet: no example asks for it.
        let bare = Self { origin, openapi: Bytes::new() };
        for endpoint in endpoints() {
            // An example that names a record this data lacks (other data than the bundled) is left out.
            let Some(target) = endpoint.example else { continue };
            if let Some(body) = bare.answer(store, target) {
                openapi::add_example(&mut document, endpoint.path, target, &body);
            }
        }
        // A tree of strings, numbers and maps always encodes.
        let openapi = Bytes::from(serde_json::to_vec(&document).unwrap_or_default());
        Self { openapi, ..bare }
    }

    /// The body of the `200` that `store` answers to `target`, if it does.
    fn answer(&self, store: &Store, target: &str) -> Option<Bytes> {
        let (path, query) = target.split_once('?').map_or((target, None), |(p, q)| (p, Some(q)));
        let reply = route(store, self, &Method::GET, path, query).ok()?.answer().ok()?;
        Some(reply.body)
    }

    /// The URL of `path` (which starts with `/`): absolute when the public address is known.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin.as_deref().unwrap_or_default())
    }

    /// `/openapi.json`'s body.
    pub(crate) fn openapi(&self) -> Bytes {
        self.openapi.clone()
    }
}
