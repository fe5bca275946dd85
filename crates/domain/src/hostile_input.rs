//! Property tests of the parsers that read what strangers send: API keys, record keys, progression
//! keys, version selectors and data-defined identifiers. Whatever the input, each parser answers a
//! value or one of the typed [`Error`]s (never a panic), a value always obeys its documented rule, and
//! what a parser accepts it accepts again from its own display.

use proptest::prelude::*;

use crate::{ApiKey, Error, GameVersion, Ident, MAX_KEY_LEN, ProgressionKey, RecordKey, VersionSelector};

/// Strings a client might send: anything at all, mostly short, with now and then the characters and
/// lengths the rules are about (signs, digits, dots, quotes, non-ASCII, the 120-byte limit).
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-0-9a-zA-Z_. 'é\u{0}%/]{0,8}",
        "-?[0-9]{1,25}",
        "v[0-9.]{0,12}",
        "[A-Za-z0-9-]{110,130}",
        "tap_[0-9A-Za-z]{30,40}",
        "[a-z0-9_]{40,56}",
    ]
}

/// A base62 string of `len` characters.
fn base62(len: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![b'0'..=b'9', b'A'..=b'Z', b'a'..=b'z'].prop_map(char::from), len)
        .prop_map(|chars| chars.into_iter().collect())
}

fn generated_key() -> impl Strategy<Value = ApiKey> {
    proptest::collection::vec(any::<u8>(), 64..128).prop_map(|bytes| {
        let mut source = bytes.into_iter().cycle();
        ApiKey::generate(|| source.next().unwrap_or(0))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn api_keys_parse_only_in_their_exact_shape(value in hostile()) {
        match ApiKey::parse(&value) {
            Ok(key) => {
                prop_assert_eq!(key.expose(), value.as_str());
                prop_assert_eq!(value.len(), ApiKey::LEN);
                prop_assert!(value.starts_with(ApiKey::PREFIX));
                prop_assert!(value[ApiKey::PREFIX.len()..].bytes().all(|b| b.is_ascii_alphanumeric()));
                prop_assert_eq!(ApiKey::parse(key.expose()), Ok(key.clone()));
            }
            Err(Error::Pattern { .. } | Error::Checksum) => {}
            Err(other) => prop_assert!(false, "{:?} refused with {:?}", value, other),
        }
    }

    /// A string in the key's shape is refused only for its checksum; a generated key always parses,
    /// and only with its own checksum.
    #[test]
    fn well_shaped_keys_are_judged_by_their_checksum(random in base62(30), sum in base62(6), key in generated_key()) {
        let value = format!("tap_{random}{sum}");
        match ApiKey::parse(&value) {
            Ok(parsed) => prop_assert_eq!(parsed.expose(), value.as_str()),
            Err(error) => prop_assert_eq!(error, Error::Checksum),
        }
        prop_assert_eq!(ApiKey::parse(key.expose()), Ok(key.clone()));
        // A real key's random part with any other checksum is refused for that checksum.
        let cut = ApiKey::LEN - ApiKey::CHECKSUM_LEN;
        let resummed = format!("{}{sum}", &key.expose()[..cut]);
        if sum != key.expose()[cut..] {
            prop_assert_eq!(ApiKey::parse(&resummed), Err(Error::Checksum));
        }
    }

    #[test]
    fn record_keys_are_ids_or_slugs_that_display_back_to_themselves(value in hostile()) {
        match RecordKey::parse(&value) {
            Ok(key) => {
                prop_assert!(!value.is_empty() && value.len() <= MAX_KEY_LEN);
                let body = value.strip_prefix('-').unwrap_or(&value);
                prop_assert!(body.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric()));
                prop_assert!(body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
                match &key {
                    RecordKey::Id(id) => {
                        prop_assert!(body.bytes().all(|b| b.is_ascii_digit()));
                        prop_assert_eq!(value.parse::<i64>().ok(), Some(*id));
                    }
                    RecordKey::Slug(slug) => {
                        prop_assert_eq!(slug, &value);
                        prop_assert!(!body.bytes().all(|b| b.is_ascii_digit()));
                    }
                }
                prop_assert_eq!(RecordKey::parse(&key.to_string()), Ok(key.clone()));
            }
            Err(Error::Empty) => prop_assert!(value.is_empty()),
            Err(Error::TooLong { max }) => prop_assert!(value.len() > max && max == MAX_KEY_LEN),
            Err(Error::Pattern { pattern }) => prop_assert_eq!(pattern, RecordKey::PATTERN),
            Err(Error::OutOfRange { .. }) => prop_assert!(value.parse::<i64>().is_err()),
            Err(other) => prop_assert!(false, "{:?} refused with {:?}", value, other),
        }
    }

    #[test]
    fn every_key_in_the_documented_pattern_parses(value in "-?[A-Za-z0-9][A-Za-z0-9-]{0,100}") {
        match RecordKey::parse(&value) {
            Ok(key) => prop_assert_eq!(RecordKey::parse(&key.to_string()), Ok(key.clone())),
            // Only an integer beyond 64 bits is refused.
            Err(error) => {
                prop_assert_eq!(error, Error::OutOfRange { reason: "the id does not fit in 64 bits" });
                prop_assert!(value.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()));
            }
        }
    }

    #[test]
    fn every_id_displays_back_to_itself(id in any::<i64>()) {
        prop_assert_eq!(RecordKey::parse(&id.to_string()), Ok(RecordKey::Id(id)));
        prop_assert_eq!(RecordKey::Id(id).to_string(), id.to_string());
    }

    #[test]
    fn progression_keys_keep_exactly_what_was_sent(value in hostile()) {
        match ProgressionKey::parse(&value) {
            Ok(key) => {
                prop_assert_eq!(key.as_str(), value.as_str());
                prop_assert!(value.len() <= MAX_KEY_LEN);
                prop_assert!(value.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric()));
                prop_assert_eq!(ProgressionKey::parse(&key.to_string()), Ok(key.clone()));
            }
            Err(Error::Empty) => prop_assert!(value.is_empty()),
            Err(Error::TooLong { .. }) => prop_assert!(value.len() > MAX_KEY_LEN),
            Err(Error::Pattern { pattern }) => prop_assert_eq!(pattern, ProgressionKey::PATTERN),
            Err(other) => prop_assert!(false, "{:?} refused with {:?}", value, other),
        }
    }

    #[test]
    fn every_progression_key_in_the_documented_pattern_parses(value in "[A-Za-z0-9][A-Za-z0-9 _.'-]{0,119}") {
        let key = ProgressionKey::parse(&value);
        prop_assert_eq!(key.map(|k| k.to_string()), Ok(value));
    }

    #[test]
    fn version_selectors_are_latest_or_a_version_name(value in hostile()) {
        match VersionSelector::parse(&value) {
            Ok(VersionSelector::Latest) => prop_assert_eq!(value.as_str(), "latest"),
            Ok(VersionSelector::Exact(version)) => {
                prop_assert_eq!(version.as_str(), value.as_str());
                prop_assert!(value.len() <= GameVersion::MAX_LEN);
                let parts: Vec<&str> = value[1..].split('.').collect();
                prop_assert!(value.starts_with('v') && (2..=5).contains(&parts.len()));
                prop_assert!(parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())));
            }
            Err(Error::Empty) => prop_assert!(value.is_empty()),
            Err(Error::TooLong { .. }) => prop_assert!(value.len() > GameVersion::MAX_LEN),
            Err(Error::Pattern { pattern }) => prop_assert_eq!(pattern, VersionSelector::PATTERN),
            Err(other) => prop_assert!(false, "{:?} refused with {:?}", value, other),
        }
    }

    #[test]
    fn every_short_version_name_parses(value in r"v[0-9]{1,4}(\.[0-9]{1,4}){1,4}") {
        prop_assert_eq!(
            VersionSelector::parse(&value),
            Ok(VersionSelector::Exact(GameVersion::parse(&value).unwrap()))
        );
    }

    #[test]
    fn identifiers_are_lower_case_words(value in hostile()) {
        match Ident::parse(&value) {
            Ok(ident) => {
                prop_assert_eq!(ident.as_str(), value.as_str());
                prop_assert!(value.len() <= Ident::MAX_LEN);
                prop_assert!(value.bytes().next().is_some_and(|b| b.is_ascii_lowercase()));
                prop_assert!(value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
            }
            Err(Error::Empty) => prop_assert!(value.is_empty()),
            Err(Error::TooLong { .. }) => prop_assert!(value.len() > Ident::MAX_LEN),
            Err(Error::Pattern { pattern }) => prop_assert_eq!(pattern, Ident::PATTERN),
            Err(other) => prop_assert!(false, "{:?} refused with {:?}", value, other),
        }
    }
}
