//! Entity tags, conditional requests and content codings (RFC 9110 sections 8.8.3, 13.1.2 and
//! 12.5.3): a strong tag derived from the body bytes, so it changes exactly when the body does;
//! `If-None-Match` with its list of tags, weak comparison and `*`; and whether `Accept-Encoding` takes gzip.

use hyper::HeaderMap;
use hyper::header::{ACCEPT_ENCODING, IF_NONE_MATCH};
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

/// Whether the client takes a gzip body: `gzip` (or `x-gzip`, or `*`) with a non-zero quality, and
/// not refused by an explicit `gzip;q=0`.
pub(crate) fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    for value in headers.get_all(ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()) {
        for coding in value.split(',') {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let quality = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                named = Some(quality > 0.0);
            } else if name == "*" {
                any = Some(quality > 0.0);
            }
        }
    }
    named.or(any).unwrap_or(false)
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
    fn accept_encoding_decides_gzip() {
        let cases = [
            ("", false),
            ("gzip", true),
            ("br, gzip;q=0.5", true),
            ("GZIP", true),
            ("x-gzip", true),
            ("identity", false),
            ("*", true),
            ("gzip;q=0", false),
            ("*, gzip;q=0", false),
            ("deflate, *;q=0", false),
        ];
        for (value, expected) in cases {
            let mut headers = HeaderMap::new();
            if !value.is_empty() {
                headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
            }
            assert_eq!(accepts_gzip(&headers), expected, "{value:?}");
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
