//! Entity tags, conditional requests, content codings and byte ranges (RFC 9110 sections 8.8.3,
//! 13.1.2, 12.5.3, 14 and 13.1.5): a strong tag derived from the body bytes, so it changes exactly
//! when the body does; `If-None-Match` with its list of tags, weak comparison and `*`; whether
//! `Accept-Encoding` takes gzip; and the part of a file a `Range` asks for, unless `If-Range` says the
//! client holds another version of it.

use hyper::HeaderMap;
use std::ops::Range;

use hyper::header::{ACCEPT_ENCODING, IF_NONE_MATCH, IF_RANGE, RANGE};
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
    let values = headers.get_all(IF_NONE_MATCH);
    // Most revalidations send back the very tag they were given: that is a match at once.
    if values.iter().any(|value| value.as_bytes() == current.as_bytes()) {
        return true;
    }
    let current = opaque(current);
    values.iter().filter_map(|v| v.to_str().ok()).any(|value| {
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

/// What a request asks of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wanted {
    Whole,
    /// These bytes (`206`).
    Part(Range<u64>),
    /// A range that starts past the end (`416`).
    PastTheEnd,
}

/// What a request asks of a file of `size` bytes whose strong entity tag is `current`. Only one range
/// of `bytes` is served; several ranges, another unit, a `Range` that does not parse, and an
/// `If-Range` that is not the current tag (or is a date) all get the whole file, as RFC 9110 lets a
/// server answer any of them.
pub(crate) fn byte_range(headers: &HeaderMap, size: u64, current: &str) -> Wanted {
    let mut ranges = headers.get_all(RANGE).iter();
    let (Some(value), None) = (ranges.next(), ranges.next()) else { return Wanted::Whole };
    if let Some(condition) = headers.get(IF_RANGE) {
        // Compared strongly: a weak tag, or a date, never matches.
        if condition.to_str().map(str::trim).ok() != Some(current) {
            return Wanted::Whole;
        }
    }
    let Some(spec) = value.to_str().ok().and_then(|v| {
        let (unit, spec) = v.trim().split_once('=')?;
        unit.trim().eq_ignore_ascii_case("bytes").then_some(spec.trim())
    }) else {
        return Wanted::Whole;
    };
    if spec.contains(',') {
        return Wanted::Whole;
    }
    let Some((first, last)) = spec.split_once('-') else { return Wanted::Whole };
    let number = |digits: &str| {
        let digits = digits.trim();
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u64>().ok())?
    };
    let range = match (first.trim().is_empty(), number(first), number(last)) {
        // `-500`: the last 500 bytes.
        (true, _, Some(suffix)) => {
            if suffix == 0 || size == 0 {
                return Wanted::PastTheEnd;
            }
            size.saturating_sub(suffix)..size
        }
        (false, Some(start), end) if last.trim().is_empty() || end.is_some() => {
            if end.is_some_and(|end| end < start) {
                return Wanted::Whole;
            }
            if start >= size {
                return Wanted::PastTheEnd;
            }
            start..end.map_or(size, |end| end.saturating_add(1).min(size))
        }
        _ => return Wanted::Whole,
    };
    Wanted::Part(range)
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
    fn one_byte_range_is_served_and_anything_else_is_the_whole_file() {
        let tag = "\"abc\"";
        let range = |range: Option<&str>, if_range: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(range) = range {
                headers.insert(RANGE, HeaderValue::from_str(range).unwrap());
            }
            if let Some(condition) = if_range {
                headers.insert(IF_RANGE, HeaderValue::from_str(condition).unwrap());
            }
            byte_range(&headers, 1000, tag)
        };
        let cases: &[(Option<&str>, Option<&str>, Wanted)] = &[
            (None, None, Wanted::Whole),
            (Some("bytes=0-99"), None, Wanted::Part(0..100)),
            (Some("BYTES = 500-"), None, Wanted::Part(500..1000)),
            (Some("bytes=900-5000"), None, Wanted::Part(900..1000)),
            (Some("bytes=-200"), None, Wanted::Part(800..1000)),
            (Some("bytes=-5000"), None, Wanted::Part(0..1000)),
            (Some("bytes=999-999"), None, Wanted::Part(999..1000)),
            (Some("bytes=1000-"), None, Wanted::PastTheEnd),
            (Some("bytes=-0"), None, Wanted::PastTheEnd),
            // Ignored: several ranges, another unit, nonsense, a backwards range.
            (Some("bytes=0-1,5-6"), None, Wanted::Whole),
            (Some("items=0-1"), None, Wanted::Whole),
            (Some("bytes=a-b"), None, Wanted::Whole),
            (Some("bytes=+1-2"), None, Wanted::Whole),
            (Some("bytes=50-10"), None, Wanted::Whole),
            (Some("bytes"), None, Wanted::Whole),
            // `If-Range`: the current strong tag lets the range through; anything else, the whole file.
            (Some("bytes=0-99"), Some("\"abc\""), Wanted::Part(0..100)),
            (Some("bytes=0-99"), Some("\"old\""), Wanted::Whole),
            (Some("bytes=0-99"), Some("W/\"abc\""), Wanted::Whole),
            (Some("bytes=0-99"), Some("Wed, 21 Oct 2015 07:28:00 GMT"), Wanted::Whole),
        ];
        for (asked, condition, expected) in cases {
            assert_eq!(range(*asked, *condition), *expected, "{asked:?} {condition:?}");
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
