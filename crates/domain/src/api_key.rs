//! API keys: `tap_`, 30 random base62 characters, and a 6-character base62 CRC-32 of those 30.
//! The checksum lets a mistyped key be refused before any lookup, and the fixed prefix makes leaked
//! keys easy to scan for. Randomness comes in from the caller, so this stays pure.

use std::fmt;

use crate::{Error, Result};

const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A well-formed API key (its checksum holds). Whether it belongs to anyone is the store's business.
/// Its ASCII characters are held in place: every keyed request reads one, without an allocation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ApiKey([u8; ApiKey::LEN]);

impl ApiKey {
    pub const PREFIX: &'static str = "tap_";
    pub const RANDOM_LEN: usize = 30;
    pub const CHECKSUM_LEN: usize = 6;
    pub const LEN: usize = Self::PREFIX.len() + Self::RANDOM_LEN + Self::CHECKSUM_LEN;
    /// Characters shown to identify a key in listings and logs: the prefix and 8 random characters.
    pub const DISPLAY_LEN: usize = Self::PREFIX.len() + 8;

    /// Makes a new key from `random`, a source of uniformly random bytes (the OS's CSPRNG in
    /// production). Bytes that would bias the choice of a character are skipped.
    pub fn generate(mut random: impl FnMut() -> u8) -> Self {
        let mut key = String::with_capacity(Self::LEN);
        key.push_str(Self::PREFIX);
        while key.len() < Self::PREFIX.len() + Self::RANDOM_LEN {
            // 248 = 4 * 62: the largest multiple of 62 a byte can hold, so every character is equally likely.
            let byte = random();
            if byte < 248 {
                key.push(char::from(ALPHABET[usize::from(byte % 62)]));
            }
        }
        let checksum = checksum(&key[Self::PREFIX.len()..]);
        key.extend(checksum.map(char::from));
        Self::held(&key)
    }

    /// `key`, of [`ApiKey::LEN`] ASCII characters, held.
    fn held(key: &str) -> Self {
        let mut bytes = [0; Self::LEN];
        bytes.copy_from_slice(key.as_bytes());
        Self(bytes)
    }

    /// Makes a new key from `fill`, which fills a buffer with uniformly random bytes (the OS's
    /// CSPRNG in production), and may fail.
    pub fn generate_with<E>(mut fill: impl FnMut(&mut [u8]) -> Result<(), E>) -> Result<Self, E> {
        let mut pool = [0u8; 64];
        fill(&mut pool)?;
        let (mut next, mut failure) = (0, None);
        let key = Self::generate(|| {
            if next == pool.len() {
                if let Err(e) = fill(&mut pool) {
                    failure.get_or_insert(e);
                }
                next = 0;
            }
            next += 1;
            pool[next - 1]
        });
        failure.map_or(Ok(key), Err)
    }

    /// Checks the shape and the checksum of a key as a caller sent it.
    pub fn parse(value: &str) -> Result<Self> {
        let shape = Error::Pattern { pattern: "tap_ followed by 36 letters and digits" };
        let Some(rest) = value.strip_prefix(Self::PREFIX) else { return Err(shape) };
        if rest.len() != Self::RANDOM_LEN + Self::CHECKSUM_LEN
            || !rest.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(shape);
        }
        let (random, sum) = rest.split_at(Self::RANDOM_LEN);
        if checksum(random) != sum.as_bytes() {
            return Err(Error::Checksum);
        }
        Ok(Self::held(value))
    }

    /// The whole key. Shown once, at creation; never stored or logged.
    pub fn expose(&self) -> &str {
        std::str::from_utf8(&self.0).expect("an API key is ASCII letters and digits by construction")
    }

    /// The public part that identifies the key in listings and logs (`tap_Ab12Cd34`).
    pub fn display_prefix(&self) -> &str {
        &self.expose()[..Self::DISPLAY_LEN]
    }
}

/// Never prints the secret part, so a key can't leak through a debug log.
impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}…)", self.display_prefix())
    }
}

/// The 6-character base62 form of the CRC-32 of `random`; 62^6 > 2^32, so every sum fits.
fn checksum(random: &str) -> [u8; ApiKey::CHECKSUM_LEN] {
    let mut value = crc32(random.as_bytes());
    let mut digits = [b'0'; ApiKey::CHECKSUM_LEN];
    for digit in digits.iter_mut().rev() {
        *digit = ALPHABET[(value % 62) as usize];
        value /= 62;
    }
    digits
}

/// CRC-32 (IEEE 802.3, the zlib polynomial), a byte at a time from a table: every request's key is
/// checked, and bit by bit that was the costliest step of reading it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc = CRC_TABLE[usize::from((crc as u8) ^ byte)] ^ (crc >> 8);
    }
    !crc
}

/// The CRC of every byte value, bit by bit, made at compile time.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"The quick brown fox jumps over the lazy dog"), 0x414F_A339);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn refuses_bad_shapes_and_sums() {
        let key = ApiKey::generate(counter());
        assert!(ApiKey::parse(key.expose()).is_ok());
        let bad = [
            String::new(),
            "tap_".into(),
            key.expose().replace("tap_", "tak_"),
            key.expose()[..key.expose().len() - 1].into(),
            format!("{}0", key.expose()),
            key.expose().replacen(&key.expose()[4..5], "-", 1),
        ];
        for value in bad {
            assert!(ApiKey::parse(&value).is_err(), "{value}");
        }
    }

    #[test]
    fn keys_from_a_fallible_source_refill_it_and_pass_its_failure_on() {
        let mut calls = 0;
        let key = ApiKey::generate_with(|buf: &mut [u8]| {
            calls += 1;
            // Only bytes a key cannot use until the second fill.
            buf.fill(if calls == 1 { 255 } else { 7 });
            Ok::<_, ()>(())
        });
        assert!(ApiKey::parse(key.unwrap().expose()).is_ok());
        assert_eq!(calls, 2);
        assert_eq!(ApiKey::generate_with(|_: &mut [u8]| Err("no randomness")), Err("no randomness"));
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let key = ApiKey::generate(counter());
        let shown = format!("{key:?}");
        assert!(!shown.contains(&key.expose()[ApiKey::DISPLAY_LEN..]), "{shown}");
        assert_eq!(key.display_prefix().len(), 12);
    }

    fn counter() -> impl FnMut() -> u8 {
        let mut n = 0u8;
        move || {
            n = n.wrapping_add(97);
            n
        }
    }

    proptest! {
        #[test]
        fn generated_keys_always_validate(bytes in proptest::collection::vec(any::<u8>(), 64..256)) {
            let mut source = bytes.into_iter().cycle();
            let key = ApiKey::generate(|| source.next().unwrap_or(7));
            prop_assert_eq!(key.expose().len(), ApiKey::LEN);
            prop_assert!(key.expose().starts_with("tap_"));
            prop_assert_eq!(ApiKey::parse(key.expose()), Ok(key));
        }

        #[test]
        fn any_single_character_change_fails_the_checksum(
            bytes in proptest::collection::vec(any::<u8>(), 64..256),
            position in 4usize..ApiKey::LEN,
            replacement in 0usize..62,
        ) {
            let mut source = bytes.into_iter().cycle();
            let key = ApiKey::generate(|| source.next().unwrap_or(7));
            let mut changed = key.expose().as_bytes().to_vec();
            prop_assume!(changed[position] != ALPHABET[replacement]);
            changed[position] = ALPHABET[replacement];
            let changed = String::from_utf8(changed).unwrap();
            prop_assert!(ApiKey::parse(&changed).is_err(), "{} was accepted", changed);
        }
    }
}
