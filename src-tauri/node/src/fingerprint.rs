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
