//! Signatures in the Standard Webhooks form (<https://www.standardwebhooks.com/>), so that a
//! receiver's existing library verifies what we send: the signed content is
//! `{webhook-id}.{webhook-timestamp}.{body}`, signed with HMAC-SHA256 under the secret's bytes (the
//! base64 after `whsec_`), and sent as `webhook-signature: v1,<base64>`, several signatures apart by
//! spaces. Randomness and time come in as arguments: this module reads neither.

use std::fmt;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::{Error, Result};

/// The header that names a message, the same on every attempt to deliver it.
pub const ID_HEADER: &str = "webhook-id";
/// The header of the attempt's time, in Unix seconds.
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
/// The header of the signatures.
pub const SIGNATURE_HEADER: &str = "webhook-signature";

/// What a secret's text starts with.
const PREFIX: &str = "whsec_";
/// The bounds the standard sets on a secret's bytes.
const SECRET_BYTES: std::ops::RangeInclusive<usize> = 24..=64;

/// A signing secret shared with one endpoint. `Debug` does not show it; [`Secret::expose`] does,
/// for the one time it is shown to its owner and for storing it.
#[derive(Clone)]
pub struct Secret {
    bytes: Vec<u8>,
}

impl Secret {
    /// A new secret from 32 random bytes the caller drew from a CSPRNG.
    pub fn generate(random: [u8; 32]) -> Self {
        Self { bytes: random.to_vec() }
    }

    /// A secret from its text, `whsec_` and the base64 (standard alphabet, padded) of its bytes.
    pub fn parse(text: &str) -> Result<Self> {
        let encoded = text.strip_prefix(PREFIX).ok_or(Error::Secret("it must start with whsec_"))?;
        let bytes = BASE64.decode(encoded).map_err(|_| Error::Secret("what follows whsec_ is not base64"))?;
        if !SECRET_BYTES.contains(&bytes.len()) {
            return Err(Error::Secret("it must hold 24 to 64 bytes"));
        }
        Ok(Self { bytes })
    }

    /// The secret's text, `whsec_...`, which [`Secret::parse`] reads back.
    pub fn expose(&self) -> String {
        format!("{PREFIX}{}", BASE64.encode(&self.bytes))
    }

    /// The MAC over one message's signed content, ready to be finalized or verified.
    fn mac(&self, id: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.bytes).expect("HMAC takes a key of any length");
        for part in [id.as_bytes(), b".", timestamp.as_bytes(), b".", body] {
            mac.update(part);
        }
        mac
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The `webhook-signature` value for a message: `v1,<base64>` for each secret, apart by spaces.
/// Signing with the old and the new secret of a rotation lets a receiver that knows either verify
/// it through the grace period.
pub fn sign(secrets: &[&Secret], id: &str, timestamp: i64, body: &[u8]) -> String {
    let timestamp = timestamp.to_string();
    let signatures = secrets.iter().map(|secret| {
        format!("v1,{}", BASE64.encode(secret.mac(id, &timestamp, body).finalize().into_bytes()))
    });
    signatures.collect::<Vec<_>>().join(" ")
}

/// The three headers of a received webhook, as the receiver read them.
#[derive(Debug, Clone, Copy)]
pub struct SignedHeaders<'a> {
    /// `webhook-id`.
    pub id: &'a str,
    /// `webhook-timestamp`.
    pub timestamp: &'a str,
    /// `webhook-signature`.
    pub signature: &'a str,
}

/// Whether a received webhook was signed with `secret`: its timestamp within `tolerance` of `now`
/// (Unix seconds), and one of its `v1` signatures the one `secret` makes, compared in constant
/// time. Signatures of other versions, and ones that are not base64, are passed over.
pub fn verify(
    secret: &Secret,
    headers: &SignedHeaders<'_>,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> Result<()> {
    if headers.id.is_empty() {
        return Err(Error::MalformedHeader { header: ID_HEADER });
    }
    let timestamp =
        unix_seconds(headers.timestamp).ok_or(Error::MalformedHeader { header: TIMESTAMP_HEADER })?;
    if timestamp.abs_diff(now) > tolerance.as_secs() {
        return Err(Error::Stale { timestamp, tolerance });
    }
    if headers.signature.trim().is_empty() {
        return Err(Error::MalformedHeader { header: SIGNATURE_HEADER });
    }
    let mac = secret.mac(headers.id, headers.timestamp, body);
    let matches = headers
        .signature
        .split(' ')
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .filter_map(|encoded| BASE64.decode(encoded).ok())
        .any(|signature| mac.clone().verify_slice(&signature).is_ok());
    if matches { Ok(()) } else { Err(Error::SignatureMismatch) }
}

/// A timestamp header's value: ASCII digits only (no sign, no space), as a number of seconds.
fn unix_seconds(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTES_5: Duration = Duration::from_secs(300);

    /// The test vectors published with the standard (its specification and its reference libraries):
    /// secret, id, timestamp, body, and the signature they must make. Only matching these shows that
    /// a receiver's library accepts ours; our own round trip would pass with a wrong format too.
    const VECTORS: &[(&str, &str, i64, &str, &str)] = &[
        (
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            r#"{"test": 2432232314}"#,
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ),
        (
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1_649_367_553,
            r#"{"email":"test@example.com","username":"test_user"}"#,
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=",
        ),
    ];

    fn headers<'a>(id: &'a str, timestamp: &'a str, signature: &'a str) -> SignedHeaders<'a> {
        SignedHeaders { id, timestamp, signature }
    }

    #[test]
    fn the_standards_test_vectors_sign_and_verify() {
        for &(secret, id, timestamp, body, expected) in VECTORS {
            let secret = Secret::parse(secret).unwrap();
            assert_eq!(sign(&[&secret], id, timestamp, body.as_bytes()), expected);
            let sent = timestamp.to_string();
            verify(&secret, &headers(id, &sent, expected), body.as_bytes(), timestamp, MINUTES_5).unwrap();
        }
    }

    #[test]
    fn a_rotation_signs_with_both_secrets_and_either_verifies() {
        let old = Secret::parse(VECTORS[0].0).unwrap();
        let new = Secret::generate([7; 32]);
        let (id, body) = ("msg_1", br#"{"a":1}"#);
        let signature = sign(&[&old, &new], id, 1_700_000_000, body);
        assert_eq!(signature.split(' ').count(), 2);
        assert!(signature.split(' ').all(|s| s.starts_with("v1,")));
        for secret in [&old, &new] {
            verify(secret, &headers(id, "1700000000", &signature), body, 1_700_000_000, MINUTES_5).unwrap();
        }
        let other = Secret::generate([8; 32]);
        assert_eq!(
            verify(&other, &headers(id, "1700000000", &signature), body, 1_700_000_000, MINUTES_5),
            Err(Error::SignatureMismatch)
        );
    }

    #[test]
    fn verification_refuses_what_was_not_signed_so() {
        let (secret, id, timestamp, body, good) = VECTORS[0];
        let secret = Secret::parse(secret).unwrap();
        let sent = timestamp.to_string();
        let check = |id: &str, ts: &str, signature: &str, body: &str, now: i64| {
            verify(&secret, &headers(id, ts, signature), body.as_bytes(), now, MINUTES_5)
        };
        let mismatch = Err(Error::SignatureMismatch);
        let cases: Vec<(&str, Result<()>)> = vec![
            ("another body", check(id, &sent, good, r#"{"test": 2432232315}"#, timestamp)),
            ("another id", check("msg_other", &sent, good, body, timestamp)),
            ("a timestamp written otherwise", check(id, &format!("0{sent}"), good, body, timestamp)),
            ("another version", check(id, &sent, &good.replacen("v1,", "v2,", 1), body, timestamp)),
            ("not base64", check(id, &sent, "v1,???", body, timestamp)),
            ("cut short", check(id, &sent, &good[..good.len() - 4], body, timestamp)),
            ("empty signature", check(id, &sent, " ", body, timestamp)),
            ("empty id", check("", &sent, good, body, timestamp)),
            ("signed sign", check(id, &format!("+{sent}"), good, body, timestamp)),
            ("too old", check(id, &sent, good, body, timestamp + 301)),
            ("from the future", check(id, &sent, good, body, timestamp - 301)),
        ];
        let expected = [
            mismatch.clone(),
            mismatch.clone(),
            mismatch.clone(),
            mismatch.clone(),
            mismatch.clone(),
            mismatch,
            Err(Error::MalformedHeader { header: SIGNATURE_HEADER }),
            Err(Error::MalformedHeader { header: ID_HEADER }),
            Err(Error::MalformedHeader { header: TIMESTAMP_HEADER }),
            Err(Error::Stale { timestamp, tolerance: MINUTES_5 }),
            Err(Error::Stale { timestamp, tolerance: MINUTES_5 }),
        ];
        for ((case, got), expected) in cases.into_iter().zip(expected) {
            assert_eq!(got, expected, "{case}");
        }
        // Within the tolerance, on its edges, and among other signatures.
        check(id, &sent, good, body, timestamp + 300).unwrap();
        check(id, &sent, good, body, timestamp - 300).unwrap();
        check(id, &sent, &format!("v1,bm9wZQ== v2,abc {good}"), body, timestamp).unwrap();
    }

    #[test]
    fn secrets_are_read_back_as_written_and_never_printed() {
        let secret = Secret::generate([0xA5; 32]);
        let text = secret.expose();
        assert!(text.starts_with("whsec_"), "{text}");
        assert_eq!(Secret::parse(&text).unwrap().expose(), text);
        assert_eq!(format!("{secret:?}"), "Secret(..)");
        assert!(!format!("{secret:?}").contains(&text[6..]));
    }

    #[test]
    fn secrets_that_are_not_the_standards_are_refused() {
        let cases = [
            ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "it must start with whsec_"),
            ("whsec_", "it must hold 24 to 64 bytes"),
            ("whsec_not base64!", "what follows whsec_ is not base64"),
            ("whsec_c2hvcnQ=", "it must hold 24 to 64 bytes"),
        ];
        for (text, reason) in cases {
            assert_eq!(Secret::parse(text).map(|_| ()), Err(Error::Secret(reason)), "{text}");
        }
        let longest = format!("whsec_{}", BASE64.encode([1; 64]));
        let too_long = format!("whsec_{}", BASE64.encode([1; 65]));
        assert!(Secret::parse(&longest).is_ok());
        assert_eq!(Secret::parse(&too_long).map(|_| ()), Err(Error::Secret("it must hold 24 to 64 bytes")));
    }
}
