//! Certificate fingerprints as devices pin them: the SHA-256 of the DER certificate.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of a DER certificate.
pub fn fingerprint_of(der: &[u8]) -> String {
    hex::encode(Sha256::digest(der))
}

/// The form fingerprints are compared in: lowercase, without `:` separators or spaces.
pub fn normalize_fingerprint(s: &str) -> String {
    s.chars()
        .filter(|c| *c != ':' && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How many bytes of a fingerprint the short code shows: 48 bits, too many to match by making
/// certificates until one does.
pub const SHORT_CODE_BYTES: usize = 6;

/// A fingerprint as the short code people compare: its first bytes in upper-case pairs, the way
/// a phone's browser shows a certificate's SHA-256 fingerprint ("3F A9 0C 17 B2 44"). The
/// desktop's pairing card shows the same code; `None` for text that is not a fingerprint.
pub fn short_code(fingerprint: &str) -> Option<String> {
    let hex = normalize_fingerprint(fingerprint);
    if hex.len() < SHORT_CODE_BYTES * 2 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let pairs: Vec<String> = hex.as_bytes()[..SHORT_CODE_BYTES * 2]
        .chunks(2)
        .map(|pair| String::from_utf8_lossy(pair).to_uppercase())
        .collect();
    Some(pairs.join(" "))
}

#[cfg(test)]
mod short_code_tests {
    use super::*;

    #[test]
    fn the_short_code_is_the_fingerprints_first_bytes_in_any_spelling() {
        let fp = fingerprint_of(b"a certificate");
        let code = short_code(&fp).expect("a fingerprint");
        assert_eq!(code.len(), 17, "{code}");
        assert_eq!(code.replace(' ', "").to_lowercase(), fp[..12]);
        // The colon-separated upper-case spelling gives the same code.
        let colons: Vec<String> = fp
            .as_bytes()
            .chunks(2)
            .map(|p| String::from_utf8_lossy(p).to_uppercase())
            .collect();
        assert_eq!(short_code(&colons.join(":")), Some(code));
        assert_eq!(
            short_code("3fa90c17b244"),
            Some("3F A9 0C 17 B2 44".to_owned())
        );
        assert_eq!(short_code("AB:CD:EF:01"), None, "too short");
        assert_eq!(short_code("not a fingerprint at all"), None);
    }
}
