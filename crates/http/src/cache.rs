//! The response cache. Game data changes only when a version is imported, so the answer to a request
//! depends only on the request: once rendered, a `200` is kept under the canonical form of its request
//! (see `routes::Routed::cache_key`) with its entity tag and its gzip form, and served again without
//! rendering, hashing or compressing. The canonical form is itself a request target, so a request
//! that arrives in that form (most repeated requests do) is found by its target alone, before its
//! query is even parsed. The key check and the rate limit still run on every request; a cache
//! belongs to one published data set, and `App::publish` replaces the two together, so new data
//! starts with an empty cache.
//!
//! The cache holds at most its budget of bytes (bodies, their gzip forms and keys); when full, the
//! entries that were stored first leave first.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use hyper::header::HeaderValue;

use crate::conditional::etag;

/// Bodies at least this long are also kept gzipped, for clients that accept it.
pub(crate) const GZIP_FROM: usize = 1024;

/// A rendered answer, ready to send in either encoding.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// The endpoint's position in the endpoint table, for the metrics of answers served from here.
    pub(crate) endpoint: usize,
    pub(crate) headers: Headers,
    pub(crate) body: Bytes,
    /// Strong entity tag of `body`.
    pub(crate) etag: Tag,
    /// `body` gzipped and its own entity tag, made the first time a client takes it (or when the
    /// answer enters the cache), for bodies of [`GZIP_FROM`] bytes or more.
    zipped: OnceLock<Option<(Bytes, Tag)>>,
}

/// The headers a rendered answer keeps with its body, as its handler set them.
#[derive(Debug)]
pub(crate) struct Headers {
    pub(crate) content_type: HeaderValue,
    /// The languages of the answer's texts, for answers that have them.
    pub(crate) content_language: Option<HeaderValue>,
    /// How long a client may keep the answer: longer for a named version than for `latest`.
    pub(crate) cache_control: HeaderValue,
}

/// A strong entity tag, kept as text (to compare with `If-None-Match`) and as the header value it is
/// sent as, so that neither is made again for every answer.
#[derive(Debug)]
pub(crate) struct Tag {
    pub(crate) text: String,
    pub(crate) header: HeaderValue,
}

impl Tag {
    fn new(text: String) -> Self {
        // Quoted hex digits: always a valid header value.
        let header = HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("\"\""));
        Self { text, header }
    }
}

impl Rendered {
    pub(crate) fn new(endpoint: usize, headers: Headers, body: Bytes) -> Self {
        let etag = Tag::new(etag(&body));
        Self { endpoint, headers, body, etag, zipped: OnceLock::new() }
    }

    /// The gzip form and its tag; `None` for bodies too short to be worth compressing.
    pub(crate) fn gzip(&self) -> Option<&(Bytes, Tag)> {
        self.zipped
            .get_or_init(|| {
                let zipped = (self.body.len() >= GZIP_FROM).then(|| gzip(&self.body)).flatten()?;
                // The gzip form is another representation, so it has its own strong tag (RFC 9110 8.8.3).
                Some((zipped, Tag::new(format!("{}-gzip\"", self.etag.text.trim_end_matches('"')))))
            })
            .as_ref()
    }

    /// Bytes the answer holds once its gzip form is made.
    fn size(&self) -> usize {
        self.body.len() + self.etag.text.len() + self.gzip().map_or(0, |(z, t)| z.len() + t.text.len())
    }
}

fn gzip(body: &[u8]) -> Option<Bytes> {
    let mut encoder =
        flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 4), flate2::Compression::default());
    encoder.write_all(body).ok()?;
    encoder.finish().ok().map(Bytes::from)
}

/// Rendered answers by canonical request, within a memory budget.
#[derive(Debug)]
pub(crate) struct ResponseCache {
    budget: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Keys are request targets, which callers choose: std's SipHash, which is made for that.
    entries: HashMap<Arc<str>, Arc<Rendered>>,
    /// Keys in the order they were stored, oldest first.
    order: VecDeque<Arc<str>>,
    used: usize,
}

impl ResponseCache {
    /// A cache of at most `budget` bytes; a budget of 0 keeps nothing.
    pub(crate) fn new(budget: usize) -> Self {
        Self { budget, inner: Mutex::default() }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.budget > 0
    }

    pub(crate) fn get(&self, key: &str) -> Option<Arc<Rendered>> {
        self.lock().entries.get(key).cloned()
    }

    /// Keeps `rendered` under `key`, making room by dropping the oldest entries; an answer bigger than
    /// an eighth of the budget is not kept, so that one answer cannot empty the cache.
    pub(crate) fn insert(&self, key: &str, rendered: Arc<Rendered>) {
        let size = rendered.size() + key.len();
        if size > self.budget / 8 {
            return;
        }
        let mut inner = self.lock();
        if inner.entries.contains_key(key) {
            return;
        }
        while inner.used + size > self.budget {
            let Some(oldest) = inner.order.pop_front() else { break };
            if let Some(gone) = inner.entries.remove(&oldest) {
                inner.used -= gone.size() + oldest.len();
            }
        }
        let key: Arc<str> = key.into();
        inner.order.push_back(Arc::clone(&key));
        inner.entries.insert(key, rendered);
        inner.used += size;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(len: usize) -> Arc<Rendered> {
        let headers = Headers {
            content_type: HeaderValue::from_static("application/json"),
            content_language: None,
            cache_control: HeaderValue::from_static("private, max-age=300"),
        };
        Arc::new(Rendered::new(0, headers, Bytes::from(vec![b'x'; len])))
    }

    #[test]
    fn keeps_within_its_budget_dropping_the_oldest_first() {
        let cache = ResponseCache::new(8_000);
        for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            cache.insert(key, rendered(900));
        }
        let inner = cache.lock();
        assert!(inner.used <= 8_000, "{}", inner.used);
        drop(inner);
        assert!(cache.get("j").is_some());
        assert!(cache.get("a").is_none(), "the oldest entry should have left");
        // Bigger than an eighth of the budget: not kept.
        cache.insert("big", rendered(1_200));
        assert!(cache.get("big").is_none());
        assert!(!ResponseCache::new(0).enabled());
    }

    #[test]
    fn long_bodies_carry_a_gzip_form_with_its_own_tag() {
        let long = rendered(GZIP_FROM);
        let (zipped, tag) = long.gzip().unwrap();
        assert!(zipped.len() < long.body.len());
        assert!(tag.text.ends_with("-gzip\"") && tag.text.starts_with(long.etag.text.trim_end_matches('"')));
        assert_eq!(tag.header, tag.text.as_str());
        let mut decoded = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&zipped[..]), &mut decoded).unwrap();
        assert_eq!(decoded, long.body);
        assert!(rendered(GZIP_FROM - 1).gzip().is_none());
    }
}
