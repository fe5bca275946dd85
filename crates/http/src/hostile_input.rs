//! Property tests of the parsers that read what strangers send over HTTP: query strings against
//! every endpoint's declared parameters, `Authorization`, `If-None-Match`, and the router's binding
//! and percent-decoding of path segments. Whatever the input, each answers a value or a typed error,
//! never a panic; and where there is a rule to keep (only declared parameters get through, a valid
//! query always parses, a decoded segment is exactly what was encoded) it is checked.

use std::borrow::Cow;

use hyper::HeaderMap;
use hyper::header::{AUTHORIZATION, HeaderValue, IF_NONE_MATCH};
use proptest::prelude::*;
use tapster_domain::ApiKey;
use tapster_i18n::Language;

use crate::conditional::none_match;
use crate::error::ApiError;
use crate::gate::Credentials;
use crate::params::{MAX_OFFSET, Param, Query, Rule};
use crate::routes::{Endpoint, bind, endpoints, percent_decode};

fn all_endpoints() -> Vec<&'static Endpoint> {
    endpoints().collect()
}

/// One endpoint of the table, any of them.
fn endpoint() -> impl Strategy<Value = &'static Endpoint> {
    let all = all_endpoints();
    (0..all.len()).prop_map(move |i| all[i])
}

/// A raw query-string fragment as a hostile client writes it: anything, percent escapes good and
/// broken (also of bytes that are not UTF-8), huge and signed numbers, separators in odd places.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z_]{0,12}",
        "-?[0-9]{1,30}",
        "(%[0-9A-Fa-f]{2}){1,6}",
        "%[^0-9A-Fa-f]?[0-9A-Za-z%+]?",
        "[=&+,;%#?\\- ]{1,6}",
        Just("latest".to_owned()),
        Just("v0.6.4.2.1".to_owned()),
        Just("%FF%FE".to_owned()),
        Just("%C3%A9".to_owned()),
        Just("1e3".to_owned()),
        Just("true".to_owned()),
    ]
}

/// A query for `params`: names mostly the declared ones (so the values get checked), sometimes
/// unknown, misspelt, empty or encoded, repeated at will.
fn hostile_query(params: &'static [Param]) -> impl Strategy<Value = String> {
    let mut names: Vec<String> = params.iter().map(|p| p.name.to_owned()).collect();
    names.extend(["x", "", "LIMIT", "limit[]", "%6Cimit", "lang ", "sort%00"].map(str::to_owned));
    let name = (0..names.len()).prop_map(move |i| names[i].clone());
    let pair = (name, proptest::option::of(fragment())).prop_map(|(name, value)| match value {
        Some(value) => format!("{name}={value}"),
        None => name,
    });
    proptest::collection::vec(pair, 0..8).prop_map(|pairs| pairs.join("&"))
}

/// The decoded pairs of a query, as the parser sees them.
fn pairs(raw: &str) -> Vec<(Cow<'_, str>, Cow<'_, str>)> {
    form_urlencoded::parse(raw.as_bytes()).collect()
}

/// A value `rule` accepts, as a client would send it before encoding.
fn valid_value(rule: Rule) -> BoxedStrategy<String> {
    fn names(known: &'static [&'static str], max_len: usize, prefix: bool) -> BoxedStrategy<String> {
        proptest::sample::subsequence(known.to_vec(), 1..=known.len())
            .prop_shuffle()
            .prop_flat_map(move |chosen| {
                let len = chosen.len();
                (Just(chosen), proptest::collection::vec(any::<bool>(), len))
            })
            .prop_map(move |(chosen, minus)| {
                let parts: Vec<String> = chosen
                    .iter()
                    .zip(minus)
                    .map(
                        |(name, minus)| if prefix && minus { format!("-{name}") } else { (*name).to_owned() },
                    )
                    .collect();
                parts.join(",")
            })
            .prop_filter("within the length limit", move |value| value.len() <= max_len)
            .boxed()
    }
    match rule {
        Rule::Version => prop_oneof![Just("latest".to_owned()), r"v[0-9]{1,3}(\.[0-9]{1,3}){1,4}"].boxed(),
        Rule::Lang => proptest::sample::select(Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>())
            .prop_map(str::to_owned)
            .boxed(),
        Rule::Limit { max, .. } => (1..=max).prop_map(|n| n.to_string()).boxed(),
        Rule::Offset => (0..=MAX_OFFSET).prop_map(|n| n.to_string()).boxed(),
        Rule::Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        Rule::Enum(set) => proptest::sample::select(set.values).prop_map(str::to_owned).boxed(),
        Rule::Int { min, max } => (min..=max).prop_map(|n| n.to_string()).boxed(),
        Rule::Ident { max } => proptest::string::string_regex(&format!("[a-z][a-z0-9_]{{0,{}}}", max - 1))
            .expect("a valid pattern")
            .boxed(),
        Rule::Key => prop_oneof![any::<i64>().prop_map(|n| n.to_string()), "[a-z][a-z0-9-]{0,60}"].boxed(),
        Rule::Ids => proptest::collection::vec(any::<i64>(), 1..20)
            .prop_map(|ids| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
            .boxed(),
        Rule::Fields(known) => names(known, 300, false),
        Rule::Expand(known) => names(known, 60, false),
        Rule::Sort(known) => names(known, 60, true),
        Rule::SearchText { min, max, .. } => proptest::collection::vec(any::<char>(), min..=max)
            .prop_map(|chars| chars.into_iter().collect::<String>())
            .prop_filter("something to search", |text| !tapster_search::fold(text).is_empty())
            .boxed(),
    }
}

/// An endpoint and a valid query for it: every required parameter and a random choice of the others,
/// each once, with a value its rule accepts, form-encoded.
fn valid_query() -> impl Strategy<Value = (&'static Endpoint, Vec<(&'static str, String)>)> {
    endpoint().prop_flat_map(|endpoint| {
        let params: Vec<BoxedStrategy<Option<(&'static str, String)>>> = endpoint
            .params()
            .iter()
            .map(|param| {
                let name = param.name;
                let value = valid_value(param.rule).prop_map(move |v| (name, v));
                if param.rule.required() {
                    value.prop_map(Some).boxed()
                } else {
                    proptest::option::of(value).boxed()
                }
            })
            .collect();
        (Just(endpoint), params.prop_shuffle().prop_map(|given| given.into_iter().flatten().collect()))
    })
}

/// A strict percent-decoder to compare the router's with: `%` must be followed by two hex digits.
fn reference_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| char::from(b).to_digit(16);
            let high = hex(*bytes.get(i + 1)?)?;
            let low = hex(*bytes.get(i + 2)?)?;
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes every byte that is not unreserved (RFC 3986), as a careful client does.
fn encode_segment(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Header bytes as they may arrive: any byte a `HeaderValue` can hold, including obs-text (0x80 to
/// 0xFF, not UTF-8), with quotes, commas and the `W/` marker mixed in.
fn header_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => 0x20u8..0x7F,
        1 => 0x80u8..=0xFF,
        1 => Just(b'\t'),
        2 => proptest::sample::select(b"\",W/* ".to_vec()),
    ];
    proptest::collection::vec(byte, 0..60)
}

fn generated_key() -> impl Strategy<Value = ApiKey> {
    proptest::collection::vec(any::<u8>(), 64..128).prop_map(|bytes| {
        let mut source = bytes.into_iter().cycle();
        ApiKey::generate(|| source.next().unwrap_or(0))
    })
}

fn headers(name: hyper::header::HeaderName, values: &[HeaderValue]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for value in values {
        headers.append(name.clone(), value.clone());
    }
    headers
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    /// Any query on any endpoint: a checked query that holds only declared parameters, each once,
    /// with every required one; or a 422 naming only parameters that were given or are required.
    #[test]
    fn queries_parse_to_declared_parameters_or_a_validation_error(
        (endpoint, raw) in endpoint().prop_flat_map(|e| (Just(e), hostile_query(e.params()))),
    ) {
        let given = pairs(&raw);
        match Query::parse(Some(&raw), endpoint.params()) {
            Ok(query) => {
                for (i, (name, value)) in given.iter().enumerate() {
                    prop_assert!(endpoint.params().iter().any(|p| p.name == name), "{} let {:?} through", endpoint.path, name);
                    prop_assert!(!given[..i].iter().any(|(earlier, _)| earlier == name), "{:?} twice", name);
                    prop_assert_eq!(query.given(name), Some(value.as_ref()));
                }
                for param in endpoint.params().iter().filter(|p| p.rule.required()) {
                    prop_assert!(query.given(param.name).is_some(), "{} lacks {}", endpoint.path, param.name);
                }
                for param in endpoint.params() {
                    match param.rule {
                        Rule::Limit { max, .. } => prop_assert!((1..=max).contains(&query.read::<u32>(param).unwrap())),
                        Rule::Offset => prop_assert!(query.read::<u32>(param).unwrap() <= MAX_OFFSET),
                        _ => {}
                    }
                }
            }
            Err(ApiError::Validation(errors)) => {
                prop_assert!(!errors.is_empty());
                for error in &errors {
                    let named = given.iter().any(|(name, _)| name == error.parameter.as_str())
                        || endpoint.params().iter().any(|p| p.name == error.parameter && p.rule.required());
                    prop_assert!(named, "{}?{}: {:?} names no parameter given", endpoint.path, raw, error.parameter);
                    prop_assert!(!error.detail.is_empty());
                }
            }
            Err(other) => prop_assert!(false, "{}?{}: {:?}", endpoint.path, raw, other),
        }
    }

    /// Any query at all (not even form-shaped) never panics the parser.
    #[test]
    fn arbitrary_query_strings_never_panic(endpoint in endpoint(), raw in any::<String>()) {
        match Query::parse(Some(&raw), endpoint.params()) {
            Ok(_) | Err(ApiError::Validation(_)) => {}
            Err(other) => prop_assert!(false, "{:?}: {:?}", raw, other),
        }
    }

    /// A query of valid values, encoded as a client encodes it, always parses, to exactly those values.
    #[test]
    fn valid_queries_always_parse((endpoint, given) in valid_query()) {
        let mut raw = form_urlencoded::Serializer::new(String::new());
        for (name, value) in &given {
            raw.append_pair(name, value);
        }
        let raw = raw.finish();
        match Query::parse(Some(&raw), endpoint.params()) {
            Ok(query) => {
                for (name, value) in &given {
                    prop_assert_eq!(query.given(name), Some(value.as_str()));
                }
                // And the endpoint's parameters type reads each value as its declaration says.
                if let Err(error) = endpoint.handler.read(&query) {
                    prop_assert!(false, "{}?{} not read: {}", endpoint.path, raw, error);
                }
            }
            Err(error) => prop_assert!(false, "{}?{} refused: {}", endpoint.path, raw, error),
        }
    }

    /// Any `Authorization` value: credentials or a malformed verdict, and a key only when the value
    /// is `Bearer` (any case) and a key that parses.
    #[test]
    fn authorization_is_read_into_credentials(bytes in header_bytes(), prefix in "(?i:bearer)?[ \t]{0,2}") {
        let mut all = prefix.into_bytes();
        all.extend(bytes);
        let Ok(value) = HeaderValue::from_bytes(&all) else { return Ok(()) };
        match Credentials::from_headers(&headers(AUTHORIZATION, std::slice::from_ref(&value))) {
            Credentials::Key(key) => {
                let text = value.to_str().unwrap().trim();
                prop_assert!(text.get(..6).is_some_and(|s| s.eq_ignore_ascii_case("bearer")));
                prop_assert_eq!(text[6..].trim(), key.expose());
            }
            Credentials::Malformed { detail } => prop_assert!(!detail.is_empty()),
            Credentials::Missing => prop_assert!(false, "a header was sent"),
        }
        let twice = headers(AUTHORIZATION, &[value.clone(), value]);
        let verdict = Credentials::from_headers(&twice);
        prop_assert!(matches!(verdict, Credentials::Malformed { .. }), "two headers gave {:?}", verdict);
    }

    /// A real key behind `Bearer` in any case and with any blanks around it is read as that key.
    #[test]
    fn a_bearer_key_is_always_read(
        key in generated_key(),
        scheme in "(?i:bearer)",
        before in "[ ]{0,3}",
        between in "[ ]{1,3}",
        after in "[ \t]{0,3}",
    ) {
        let value = HeaderValue::from_str(&format!("{before}{scheme}{between}{}{after}", key.expose())).unwrap();
        prop_assert_eq!(Credentials::from_headers(&headers(AUTHORIZATION, &[value])), Credentials::Key(key));
        prop_assert_eq!(Credentials::from_headers(&HeaderMap::new()), Credentials::Missing);
    }

    /// Any `If-None-Match` values: a match only when one of them is `*` or holds the current tag.
    #[test]
    fn if_none_match_never_matches_what_does_not_name_the_tag(
        values in proptest::collection::vec(header_bytes(), 0..4),
        current in "\"[0-9a-f]{1,8}\"",
    ) {
        let values: Vec<HeaderValue> = values.iter().filter_map(|v| HeaderValue::from_bytes(v).ok()).collect();
        let matched = none_match(&headers(IF_NONE_MATCH, &values), &current);
        let named = values.iter().filter_map(|v| v.to_str().ok()).any(|v| v.trim() == "*" || v.contains(current.as_str()));
        prop_assert!(!matched || named, "{:?} matched {}", values, current);
    }

    /// The current tag, weak or strong, anywhere in a list of other tags and junk, always matches.
    #[test]
    fn if_none_match_finds_the_tag_in_any_list(
        before in proptest::collection::vec("(W/)?\"[ !#-~]{0,10}\"|[a-z]{1,5}", 0..4),
        after in proptest::collection::vec("(W/)?\"[ !#-~]{0,10}\"|[a-z]{1,5}", 0..4),
        weak in any::<bool>(),
        current in "\"[0-9a-f]{1,8}\"",
    ) {
        let tag = if weak { format!("W/{current}") } else { current.clone() };
        let list: Vec<String> = before.into_iter().chain([tag]).chain(after).collect();
        let Ok(value) = HeaderValue::from_str(&list.join(", ")) else { return Ok(()) };
        prop_assert!(none_match(&headers(IF_NONE_MATCH, &[value]), &current), "{:?}", list);
    }

    /// The router's percent-decoding agrees with a strict decoder on any segment.
    #[test]
    fn path_segments_decode_strictly(segment in prop_oneof![any::<String>(), "(%[+-]?[0-9A-Fa-fxz]{0,2}|[a-z+])+"]) {
        prop_assert_eq!(percent_decode(&segment).map(String::from), reference_decode(&segment), "{:?}", segment);
    }

    /// Any segments against every template: a binding only for the template's shape, holding each
    /// `{name}` in order, decoded; and an encoded value always binds back to itself.
    #[test]
    fn templates_bind_what_was_encoded(
        endpoint in endpoint(),
        raw in proptest::collection::vec(prop_oneof![any::<String>(), "[a-z0-9%-]{0,10}"], 0..5),
        value in any::<String>(),
    ) {
        let template = endpoint.path;
        let parts: Vec<&str> = template.split('/').skip(1).collect();
        let path = format!("/{}", raw.join("/"));
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        if let Some(bound) = bind(template, &path) {
            prop_assert_eq!(segments.len(), parts.len());
            let names: Vec<&str> = parts.iter().filter_map(|p| p.strip_prefix('{').and_then(|p| p.strip_suffix('}'))).collect();
            prop_assert_eq!(bound.iter().map(|(n, _)| n).collect::<Vec<_>>(), names);
        }
        // The template itself, each `{name}` replaced by an encoded value.
        let encoded = encode_segment(&value);
        let filled: Vec<&str> = parts.iter().map(|p| if p.starts_with('{') { encoded.as_str() } else { p }).collect();
        let filled = format!("/{}", filled.join("/"));
        let bound = bind(template, &filled);
        prop_assert!(bound.is_some(), "{} did not bind {:?}", template, filled);
        for (_, got) in bound.unwrap_or_default().iter() {
            prop_assert_eq!(got, value.as_str());
        }
    }
}

/// The property tests above cover these too; kept as named cases because each was a real doubt.
#[test]
fn broken_escapes_and_non_utf8_segments_do_not_decode() {
    for segment in ["%", "%4", "%zz", "%+1", "%-1", "%FF", "%C3", "a%2"] {
        assert_eq!(percent_decode(segment), None, "{segment:?}");
    }
    assert_eq!(percent_decode("Marta%27s%20Letter").as_deref(), Some("Marta's Letter"));
    assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
}
