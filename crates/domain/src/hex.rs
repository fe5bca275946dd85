//! Hashes spelled in lowercase hex, as `sha256sum` prints them and as URLs, `ETag`s and the stored
//! keys hold them: one spelling for every crate.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `bytes` in lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    // Written as bytes, then taken as the ASCII they are: a picture's tag is spelled per request.
    let mut text = Vec::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.extend_from_slice(&[DIGITS[usize::from(byte >> 4)], DIGITS[usize::from(byte & 0xf)]]);
    }
    String::from_utf8(text).unwrap_or_default()
}

/// The 32 bytes (a SHA-256) that exactly 64 lowercase hex digits spell; `None` for anything else,
/// upper case included, so that a hash has one spelling.
pub fn sha256_from_hex(text: &str) -> Option<[u8; 32]> {
    let digits = text.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let value = |digit: u8| match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    };
    let mut hash = [0; 32];
    for (byte, pair) in hash.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = value(pair[0])? << 4 | value(pair[1])?;
    }
    Some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_reads_back_from_its_one_spelling() {
        let hash: [u8; 32] = std::array::from_fn(|i| (i * 37 + 5) as u8);
        let text = hex(&hash);
        assert_eq!(text.len(), 64);
        assert_eq!(sha256_from_hex(&text), Some(hash));
        assert_eq!(sha256_from_hex(&text.to_uppercase()), None);
        assert_eq!(sha256_from_hex(&text[..62]), None);
        assert_eq!(sha256_from_hex(&format!("{text}00")), None);
        assert_eq!(sha256_from_hex(&text.replacen(&text[..1], "g", 1)), None);
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
    }
}
