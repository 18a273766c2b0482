//! Pairing codes (devices-protocol.md §3): six digits, single use, ten minutes. Wrong codes
//! are limited to 5 a minute per address, and 30 in ten minutes cancel every open code. Also
//! the pairing link and its QR code.

use std::collections::HashMap;
use std::net::IpAddr;

use chrono::{DateTime, Duration, Utc};
use qrcode::QrCode;
use qrcode::render::svg;

/// How long a code works.
pub const CODE_TTL: Duration = Duration::minutes(10);
/// Wrong codes one address may send in [`RATE_WINDOW`].
pub const WRONG_PER_ADDRESS: usize = 5;
pub const RATE_WINDOW: Duration = Duration::minutes(1);
/// Wrong codes from anywhere in [`PANIC_WINDOW`] that cancel every open code.
pub const WRONG_IN_ALL: usize = 30;
pub const PANIC_WINDOW: Duration = Duration::minutes(10);

/// What a code check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeCheck {
    Accepted,
    Wrong,
    RateLimited,
}

/// Open codes and recent wrong guesses, in memory: a restart simply means a new code.
#[derive(Debug, Default)]
pub struct PairingCodes {
    open: HashMap<String, DateTime<Utc>>,
    wrong_by_address: HashMap<IpAddr, Vec<DateTime<Utc>>>,
    wrong_all: Vec<DateTime<Utc>>,
}

impl PairingCodes {
    /// A new code valid until the returned time.
    pub fn issue(&mut self, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        self.open.retain(|_, expires| *expires > now);
        let code = loop {
            let candidate = format!("{:06}", rand::random_range(0..1_000_000u32));
            if !self.open.contains_key(&candidate) {
                break candidate;
            }
        };
        let expires = now + CODE_TTL;
        self.open.insert(code.clone(), expires);
        (code, expires)
    }

    /// Whether `address` may try a code now.
    pub fn is_limited(&mut self, address: IpAddr, now: DateTime<Utc>) -> bool {
        let recent = self.wrong_by_address.entry(address).or_default();
        recent.retain(|t| now - *t < RATE_WINDOW);
        recent.len() >= WRONG_PER_ADDRESS
    }

    /// Uses up `code` if it is open; a wrong one is counted against `address`.
    pub fn redeem(&mut self, code: &str, address: IpAddr, now: DateTime<Utc>) -> CodeCheck {
        if self.is_limited(address, now) {
            return CodeCheck::RateLimited;
        }
        let code = code.trim();
        match self.open.remove(code) {
            Some(expires) if expires > now => CodeCheck::Accepted,
            _ => {
                self.wrong_by_address.entry(address).or_default().push(now);
                self.wrong_all.retain(|t| now - *t < PANIC_WINDOW);
                self.wrong_all.push(now);
                if self.wrong_all.len() >= WRONG_IN_ALL {
                    tracing::warn!(
                        "{WRONG_IN_ALL} wrong pairing codes in ten minutes; every open code is cancelled"
                    );
                    self.open.clear();
                }
                CodeCheck::Wrong
            }
        }
    }
}

/// `sentient://pair?url=...&code=...&fp=...`.
pub fn pair_link(url: &str, code: &str, fingerprint: Option<&str>) -> String {
    let mut link = format!(
        "sentient://pair?url={}&code={}",
        percent_encode(url),
        percent_encode(code)
    );
    if let Some(fp) = fingerprint {
        link.push_str("&fp=");
        link.push_str(&percent_encode(fp));
    }
    link
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// An inline SVG QR code of `text`.
pub fn qr_svg(text: &str) -> Result<String, qrcode::types::QrError> {
    let code = QrCode::new(text.as_bytes())?;
    Ok(code
        .render::<svg::Color<'_>>()
        .min_dimensions(220, 220)
        .quiet_zone(true)
        .build())
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn at(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default() + Duration::minutes(minutes)
    }

    const ADDR: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 9));
    const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 10));

    #[test]
    fn a_code_works_once_and_only_for_ten_minutes() {
        let mut codes = PairingCodes::default();
        let (code, expires) = codes.issue(at(0));
        assert_eq!(code.len(), 6);
        assert_eq!(expires, at(10));
        assert_eq!(codes.redeem(&code, ADDR, at(1)), CodeCheck::Accepted);
        assert_eq!(codes.redeem(&code, ADDR, at(1)), CodeCheck::Wrong);
        let (late, _) = codes.issue(at(0));
        assert_eq!(codes.redeem(&late, ADDR, at(10)), CodeCheck::Wrong);
    }

    #[test]
    fn five_wrong_codes_a_minute_limit_that_address_only() {
        let mut codes = PairingCodes::default();
        let (code, _) = codes.issue(at(0));
        for _ in 0..WRONG_PER_ADDRESS {
            assert_eq!(codes.redeem("000000x", ADDR, at(0)), CodeCheck::Wrong);
        }
        assert_eq!(codes.redeem(&code, ADDR, at(0)), CodeCheck::RateLimited);
        assert!(codes.is_limited(ADDR, at(0)));
        assert!(!codes.is_limited(OTHER, at(0)));
        // A minute later the address may try again, and the code is still open.
        assert_eq!(codes.redeem(&code, ADDR, at(1)), CodeCheck::Accepted);
    }

    #[test]
    fn thirty_wrong_codes_cancel_every_open_code() {
        let mut codes = PairingCodes::default();
        let (code, _) = codes.issue(at(0));
        for i in 0..WRONG_IN_ALL {
            let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, u8::try_from(i).unwrap_or(0)));
            codes.redeem("nope", address, at(0));
        }
        assert_eq!(codes.redeem(&code, ADDR, at(0)), CodeCheck::Wrong);
    }

    #[test]
    fn the_pair_link_is_percent_encoded() {
        let link = pair_link("wss://192.168.1.20:7778/ws/node", "123456", Some("ab12"));
        assert_eq!(
            link,
            "sentient://pair?url=wss%3A%2F%2F192.168.1.20%3A7778%2Fws%2Fnode&code=123456&fp=ab12"
        );
    }

    #[test]
    fn the_qr_code_is_an_svg() {
        let svg = qr_svg("https://192.168.1.20:7778/node/#code=123456").expect("qr");
        assert!(svg.starts_with("<?xml") || svg.starts_with("<svg"));
        assert!(svg.contains("<svg"));
    }
}
