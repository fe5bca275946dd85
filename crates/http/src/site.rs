//! Where the service is served from, as its clients reach it, and the documents written for that
//! address and one published data set: the OpenAPI document names the address as its server and
//! shows, as each operation's example, its real answer to one request, and `/docs` is that document
//! as a page; the changelog feed links to
//! the address, since a feed reader holds no other base to resolve a relative link against.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use askama::Template;
use bytes::Bytes;
use hyper::Method;
use tapster_domain::Limits;
use tapster_i18n::Language;
use tapster_store::{Catalog, Store};

use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::gate::{Admission, CallingKey, Policies, Policy, PolicyState, Quota};
use crate::metrics::Metrics;
use crate::openapi;
use crate::reference::Reference;
use crate::response::{Kind, Page};
use crate::routes::{Documents, IconsArchive, PICTURE, documented, icons_archive, route};

/// The public address, and the OpenAPI document built from it and the data on first request.
#[derive(Debug)]
pub(crate) struct Site {
    /// `https://api.example.com`, without a trailing slash; `None` when the operator named none.
    origin: Option<String>,
    openapi: OnceLock<Bytes>,
    /// `/docs`: the reference page, rendered from the document on its first request.
    reference: OnceLock<Arc<Page>>,
    /// `/changelog`, rendered on its first request.
    changelog: OnceLock<Arc<Page>>,
    /// Each version's pictures in one archive, by version name, built on its first request.
    icons: Mutex<HashMap<String, Arc<IconsArchive>>>,
}

impl Site {
    pub(crate) fn new(origin: Option<&str>) -> Self {
        Self {
            origin: origin.map(|o| o.trim_end_matches('/').to_owned()),
            openapi: OnceLock::new(),
            reference: OnceLock::new(),
            changelog: OnceLock::new(),
            icons: Mutex::new(HashMap::new()),
        }
    }

    /// The document with its examples: each endpoint's answer to its example request, and a picture
    /// of the data as the example of a picture's path. No example asks for `/openapi.json` (a test
    /// sees to it), so none waits on the document being built.
    fn document(&self, store: &Store, metrics: &Metrics) -> Bytes {
        let mut document = openapi::document(self.origin.as_deref());
        // A file's bytes are read only when served: it has no example in the document.
        for endpoint in documented().filter(|endpoint| !endpoint.answers_file()) {
            let Some(target) = endpoint.example else { continue };
            // An example naming a record that other data than the bundled lacks is left out.
            if let Some(body) = self.answer(store, metrics, target) {
                openapi::add_example(&mut document, endpoint.path, target, &body);
            }
        }
        if let Some(target) = picture_example(store) {
            openapi::add_path_examples(&mut document, PICTURE, &target);
        }
        // A tree of strings, numbers and maps always encodes.
        Bytes::from(serde_json::to_vec(&document).unwrap_or_default())
    }

    /// The body of the `200` that `store` answers to `target`, if it does, asked by [`example_caller`].
    fn answer(&self, store: &Store, metrics: &Metrics, target: &str) -> Option<Bytes> {
        let (path, query) = target.split_once('?').map_or((target, None), |(p, q)| (p, Some(q)));
        let caller = example_caller();
        let reply =
            route(store, self, metrics, Some(&caller), &Method::GET, path, query).ok()?.answer().ok()?;
        match reply.kind {
            // Files are not asked for (`document` leaves them out): their bytes are read only when
            // served.
            Kind::File(_) => None,
            // A page as a program that keeps no cookies gets it.
            Kind::Page(page) => Some(page.signed_out.clone()),
            Kind::Data | Kind::Private => Some(reply.body),
        }
    }
}

impl Documents for Site {
    fn origin(&self) -> &str {
        self.origin.as_deref().unwrap_or_default()
    }

    fn openapi(&self, store: &Store, metrics: &Metrics) -> Bytes {
        self.openapi.get_or_init(|| self.document(store, metrics)).clone()
    }

    fn reference(&self, store: &Store, metrics: &Metrics) -> Result<Arc<Page>, ApiError> {
        if let Some(page) = self.reference.get() {
            return Ok(Arc::clone(page));
        }
        let document: serde_json::Value = serde_json::from_slice(&self.openapi(store, metrics))
            .map_err(|e| ApiError::Internal(Box::new(e)))?;
        let html = Reference::of(&document).render().map_err(|e| ApiError::Internal(Box::new(e)))?;
        let page = Arc::new(Page::new("/docs", &html)?);
        Ok(Arc::clone(self.reference.get_or_init(|| page)))
    }

    fn changelog(&self, render: &dyn Fn() -> Result<Page, ApiError>) -> Result<Arc<Page>, ApiError> {
        if let Some(page) = self.changelog.get() {
            return Ok(Arc::clone(page));
        }
        // Rendered outside the cell: two first requests at once render it twice and keep one.
        let page = Arc::new(render()?);
        Ok(Arc::clone(self.changelog.get_or_init(|| page)))
    }

    fn icons(&self, store: &Store, catalog: &Catalog) -> Result<Arc<IconsArchive>, ApiError> {
        let version = catalog.info.name.as_str();
        let held = |icons: &HashMap<String, Arc<IconsArchive>>| icons.get(version).cloned();
        if let Some(archive) = held(&self.icons.lock().unwrap_or_else(|poisoned| poisoned.into_inner())) {
            return Ok(archive);
        }
        // Built outside the lock (a few milliseconds); two first requests at once build it twice
        // and keep the same bytes.
        let archive = Arc::new(icons_archive(store, catalog, self.origin())?);
        let mut icons = self.icons.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(Arc::clone(icons.entry(version.to_owned()).or_insert(archive)))
    }
}

/// The URL of the first picture an item of the latest version shows, relative (`/assets/{sha256}/{name}`).
fn picture_example(store: &Store) -> Option<String> {
    let catalog = store.latest();
    let loc = Localizer::new(catalog, Language::SOURCE);
    catalog.data.items.iter().find_map(|item| loc.picture_url(item.icon.as_ref()?))
}

/// Who asks the examples' requests: a key named `example key` with the default limits (300 a minute
/// in bursts of 60, 20,000 a day), after its first request of the day. Only `/v1/key` shows it.
fn example_caller() -> Admission {
    let policies = Policy::for_limits(Limits::DEFAULT);
    let states = policies.map(|policy| PolicyState {
        policy,
        remaining: policy.quota - 1,
        reset: if policy.name == "burst" { 1 } else { policy.window },
    });
    Admission {
        key: Arc::new(CallingKey {
            prefix: "tap_3xAmp1eK".to_owned(),
            name: "example key".to_owned(),
            expires_at: None,
        }),
        quota: Quota::new(Policies::new(&policies), &states),
        requests_today: 1,
        allowed_origin: None,
    }
}
