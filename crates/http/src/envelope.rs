//! The envelope of every successful data answer: `data`; `meta` saying which game version and
//! language produced it and which texts fell back to English (as JSON Pointers); and `pagination` on
//! paged lists, whose links keep every other parameter (docs/api.md, "Languages and fallback" and
//! "Lists and pagination").

use hyper::header::HeaderValue;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use serde::Serialize;
use serde_json::Value;
use tapster_domain::AssetPath;
use tapster_i18n::Language;
use tapster_store::{Catalog, picture_file_name};
use tapster_wire::{Meta, Pagination};

/// What a path segment escapes: everything but the unreserved characters of RFC 3986.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A language as the wire spells it.
pub(crate) fn lang(language: Language) -> tapster_wire::Lang {
    tapster_wire::Lang::parse(language.code())
}

/// An answer as the server writes it: the wire's envelope around the records, whole or reduced to the
/// `fields` asked for.
pub(crate) type Envelope<T> = tapster_wire::Envelope<Data<T>>;

/// The `Content-Language` of an answer: the requested language, and English too where a text fell
/// back to it (`de, en`).
pub(crate) fn content_language(meta: &Meta) -> HeaderValue {
    let lang = meta.lang.as_str();
    let value =
        if meta.lang_fallback.is_empty() || lang == "en" { lang.to_owned() } else { format!("{lang}, en") };
    // Language codes are letters and hyphens.
    HeaderValue::try_from(value).unwrap_or_else(|_| HeaderValue::from_static("en"))
}

/// The records in their wire types, or reduced to the `fields` asked for.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Data<T> {
    Whole(T),
    Fields(Value),
}

/// The pagination of a page of `total` records requested at `path` with the (canonical) query
/// `params`, which the links keep, after their own `limit` and `offset`.
pub(crate) fn pagination<'n, 'v>(
    path: &str,
    params: impl Iterator<Item = (&'n str, &'v str)> + Clone,
    limit: u32,
    offset: u32,
    total: u64,
) -> Pagination {
    let link = |offset: u32| {
        let mut serializer = form_urlencoded::Serializer::new(String::new());
        serializer.append_pair("limit", &limit.to_string());
        serializer.append_pair("offset", &offset.to_string());
        for (name, value) in params.clone() {
            if name != "limit" && name != "offset" {
                serializer.append_pair(name, value);
            }
        }
        format!("{path}?{}", serializer.finish())
    };
    let end = u64::from(offset) + u64::from(limit);
    let next = (end < total && end <= u64::from(crate::params::MAX_OFFSET)).then(|| link(end as u32));
    // Past the end of the list, the page before is its last page (the first when it is empty).
    let size = u64::from(limit.max(1));
    let last = (total.saturating_sub(1) / size * size) as u32;
    let prev = (offset > 0).then(|| link(offset.saturating_sub(limit).min(last)));
    Pagination { limit, offset, total, next, prev }
}

/// Resolves texts in the requested language and notes, as JSON Pointers, each one served in English;
/// and writes links to what the service serves beside the data (a record's picture) from its origin.
#[derive(Debug)]
pub(crate) struct Localizer<'a> {
    pub(crate) catalog: &'a Catalog,
    pub(crate) lang: Language,
    /// The service's public origin (`https://api.example`), or empty: links are then relative.
    pub(crate) origin: &'a str,
    fallbacks: Vec<String>,
}

impl<'a> Localizer<'a> {
    /// A localizer whose links are relative (`/assets/...`), as the bulk exports hold them.
    pub(crate) fn new(catalog: &'a Catalog, lang: Language) -> Self {
        Self { catalog, lang, origin: "", fallbacks: Vec::new() }
    }

    /// The same, with links under `origin` (empty: relative).
    pub(crate) fn with_origin(mut self, origin: &'a str) -> Self {
        self.origin = origin;
        self
    }

    /// The URL of the picture `path` names in this version (`/assets/{sha256}/{name}`, under the
    /// origin), or `None` when the store keeps none for it.
    pub(crate) fn picture_url(&self, path: &AssetPath) -> Option<String> {
        let sha256 = self.catalog.picture_of(path)?;
        let name = picture_file_name(path);
        let name = percent_encoding::utf8_percent_encode(&name, PATH_SEGMENT);
        Some(format!("{}/assets/{}/{name}", self.origin, tapster_domain::hex(sha256)))
    }

    /// The text of `key`; `pointer` names where it goes in the body, in case it falls back.
    pub(crate) fn text(&mut self, key: &tapster_domain::TextKey, pointer: impl FnOnce() -> String) -> String {
        match self.catalog.text(key, self.lang) {
            Some(text) => {
                if text.fell_back(self.lang) {
                    self.fallbacks.push(pointer());
                }
                text.text.to_owned()
            }
            // Import guarantees every key has English text; an empty string is the honest answer otherwise.
            None => String::new(),
        }
    }

    /// One view per record of a list answer, each made knowing its pointer (`/data/3`).
    pub(crate) fn list<R, V>(
        &mut self,
        records: impl IntoIterator<Item = R>,
        view: impl Fn(&mut Self, R, &str) -> V,
    ) -> Vec<V> {
        records.into_iter().enumerate().map(|(i, record)| view(self, record, &format!("/data/{i}"))).collect()
    }

    /// Notes a fallback the caller resolved itself.
    pub(crate) fn note(&mut self, served: Language, pointer: impl FnOnce() -> String) {
        if served != self.lang {
            self.fallbacks.push(pointer());
        }
    }

    /// The pointers of the texts served in English so far, in document order: for the exports,
    /// which write each record's own envelope.
    pub(crate) fn into_fallbacks(self) -> Vec<String> {
        let mut fallbacks = self.fallbacks;
        fallbacks.sort_by(|a, b| document_order(a, b));
        fallbacks
    }

    /// The envelope around `data`, keeping only the `fields` asked for (and the fallbacks inside them).
    /// Without `fields`, the views are serialized as they are, with no intermediate JSON tree.
    pub(crate) fn envelope<T: Serialize>(
        self,
        data: T,
        fields: Option<&[&str]>,
        pagination: Option<Pagination>,
    ) -> Result<Envelope<T>, serde_json::Error> {
        let mut fallbacks = self.fallbacks;
        let data = match fields {
            None => Data::Whole(data),
            Some(fields) => Data::Fields(select(serde_json::to_value(data)?, fields, &mut fallbacks)),
        };
        fallbacks.sort_by(|a, b| document_order(a, b));
        Ok(Envelope {
            data,
            meta: Meta {
                game_version: self.catalog.info.name.to_string(),
                build_id: self.catalog.info.build_id,
                lang: lang(self.lang),
                lang_fallback: fallbacks,
            },
            pagination,
        })
    }
}

/// Keeps only `fields` of the record (or of each record of a list), and the fallbacks inside them.
fn select(mut data: Value, fields: &[&str], fallbacks: &mut Vec<String>) -> Value {
    let keep = |record: &mut Value| {
        if let Value::Object(map) = record {
            map.retain(|name, _| fields.contains(&name.as_str()));
        }
    };
    let list = data.is_array();
    match &mut data {
        Value::Array(records) => records.iter_mut().for_each(keep),
        record => keep(record),
    }
    fallbacks.retain(|pointer| {
        let mut segments = pointer.split('/').skip(2);
        if list {
            segments.next();
        }
        segments.next().is_some_and(|field| fields.contains(&field))
    });
    data
}

/// Orders pointers as their targets appear in the document: segment by segment, array indexes as numbers.
fn document_order(a: &str, b: &str) -> std::cmp::Ordering {
    let mut a = a.split('/');
    let mut b = b.split('/');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => {
                return match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    // Different fields of one object: keep the order they were noted in.
                    _ => std::cmp::Ordering::Equal,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_keep_every_other_parameter_and_stop_at_the_ends() {
        let p = pagination(
            "/v1/items",
            [("kind", "food"), ("limit", "50"), ("lang", "de")].into_iter(),
            50,
            0,
            120,
        );
        assert_eq!(p.next.as_deref(), Some("/v1/items?limit=50&offset=50&kind=food&lang=de"));
        assert_eq!(p.prev, None);
        let p = pagination("/v1/items", [("offset", "100")].into_iter(), 50, 100, 120);
        assert_eq!(p.next, None);
        assert_eq!(p.prev.as_deref(), Some("/v1/items?limit=50&offset=50"));
        let p = pagination("/v1/items", [].into_iter(), 50, 30, 120);
        assert_eq!(p.prev.as_deref(), Some("/v1/items?limit=50&offset=0"));
        // Past the end, `prev` is the last page, which holds records.
        let p = pagination("/v1/items", [].into_iter(), 3, 5000, 200);
        assert_eq!((p.next, p.prev.as_deref()), (None, Some("/v1/items?limit=3&offset=198")));
        let p = pagination("/v1/items", [].into_iter(), 50, 200, 200);
        assert_eq!(p.prev.as_deref(), Some("/v1/items?limit=50&offset=150"));
        let p = pagination("/v1/items", [].into_iter(), 50, 80, 0);
        assert_eq!(p.prev.as_deref(), Some("/v1/items?limit=50&offset=0"));
        // Offsets stop at 10000, so no link points past it.
        let p = pagination("/v1/items", [].into_iter(), 100, 10_000, 50_000);
        assert_eq!(p.next, None);
    }

    #[test]
    fn pointers_sort_in_document_order() {
        let mut pointers = vec!["/data/10/name", "/data/2/item/name", "/data/2/name"];
        pointers.sort_by(|a, b| document_order(a, b));
        assert_eq!(pointers, ["/data/2/item/name", "/data/2/name", "/data/10/name"]);
    }
}
