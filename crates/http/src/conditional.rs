//! Entity tags and conditional requests (RFC 9110 sections 8.8.3 and 13.1.2): a strong tag derived
//! from the body bytes, so it changes exactly when the body does, and `If-None-Match` with its list
//! of tags, weak comparison and `*`.

use hyper::HeaderMap;
use hyper::header::IF_NONE_MATCH;
use sha2::{Digest, Sha256};

/// The strong entity tag of a body: 128 bits of its SHA-256, in hex, quoted.
pub(crate) fn etag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let mut tag = String::with_capacity(34);
    tag.push('"');
    for byte in &digest[..16] {
        tag.push_str(&format!("{byte:02x}"));
    }
    tag.push('"');
    tag
}

/// Whether the request's `If-None-Match` names the current representation, so that `304` answers it.
/// Tags are compared weakly (a `W/` prefix is ignored); `*` matches any current representation; a
/// header that cannot be read never matches, so the client gets the full answer.
pub(crate) fn none_match(headers: &HeaderMap, current: &str) -> bool {
    let current = opaque(current);
    headers.get_all(IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).any(|value| {
        if value.trim() == "*" {
            return true;
        }
        tags(value).any(|tag| opaque(tag) == current)
    })
}

/// The entity tags of a comma-separated list, respecting quotes (a tag may contain a comma).
fn tags(list: &str) -> impl Iterator<Item = &str> {
    let mut rest = list;
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            return None;
        }
        let start = if rest.starts_with("W/") { 2 } else { 0 };
        if !rest[start..].starts_with('"') {
            // Not an entity tag: skip to the next comma.
            let end = rest.find(',').unwrap_or(rest.len());
            rest = &rest[end..];
            return Some("");
        }
        let close = rest[start + 1..].find('"').map(|i| start + 1 + i + 1).unwrap_or(rest.len());
        let tag = &rest[..close];
        rest = &rest[close..];
        Some(tag)
    })
}

/// A tag without its weakness marker, for weak comparison; empty for anything that is not a tag.
fn opaque(tag: &str) -> &str {
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    if tag.len() >= 2 && tag.starts_with('"') && tag.ends_with('"') { tag } else { "" }
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    fn matches(values: &[&str], current: &str) -> bool {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        }
        none_match(&headers, current)
    }

    #[test]
    fn if_none_match_follows_rfc_9110() {
        let current = "\"abc\"";
        let cases: &[(&[&str], bool)] = &[
            (&[], false),
            (&["\"abc\""], true),
            (&["W/\"abc\""], true),
            (&["\"xyz\""], false),
            (&["\"xyz\", \"abc\""], true),
            (&["\"xyz\",W/\"abc\""], true),
            (&["\"xyz\"", "\"abc\""], true),
            (&["*"], true),
            (&["abc"], false),
            (&["\"ab\""], false),
            (&["\"a,b\", \"abc\""], true),
            (&["junk, \"abc\""], true),
            (&["\"abc"], false),
        ];
        for (values, expected) in cases {
            assert_eq!(matches(values, current), *expected, "{values:?}");
        }
    }

    #[test]
    fn tags_are_strong_and_follow_the_body() {
        let a = etag(b"{\"data\":1}");
        assert_eq!(a.len(), 34);
        assert!(a.starts_with('"') && a.ends_with('"') && !a.starts_with("W/"));
        assert_eq!(a, etag(b"{\"data\":1}"));
        assert_ne!(a, etag(b"{\"data\":2}"));
    }
}
