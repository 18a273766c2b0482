//! Named browser profiles: their names, attach addresses and folders. The profiles themselves
//! are settings (`browser.profiles`); a launch profile's cookies and sign-ins live in
//! `<home>/browser/profiles/<name>`.

use std::path::{Path, PathBuf};

use url::Url;

/// The profile that always exists and can't be renamed or deleted.
pub const DEFAULT_PROFILE: &str = "default";

/// Longest profile name, in characters.
const MAX_NAME: usize = 40;

/// A typed name as a profile name: lowercase letters, digits and dashes ("X growth" →
/// `x-growth`); `None` when nothing usable is left or it is too long.
pub fn normalize_name(typed: &str) -> Option<String> {
    let mut name = String::new();
    for c in typed.trim().chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if (c.is_whitespace() || c == '-' || c == '_') && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_matches('-').to_owned();
    (!name.is_empty() && name.chars().count() <= MAX_NAME).then_some(name)
}

/// The plain sentence for a name [`normalize_name`] refused.
pub fn bad_name_message(typed: &str) -> String {
    format!(
        "\"{}\" can't be a profile name. Use letters, numbers and dashes, up to {MAX_NAME} characters.",
        typed.trim()
    )
}

/// An attach profile's address as `http://host:port`: a bare port (`9333`) or `host:port` is
/// completed; only this computer's addresses (localhost, 127.0.0.0/8, ::1) are accepted.
pub fn normalize_endpoint(typed: &str) -> Result<String, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(
            "A connected browser needs its debugging address, such as http://127.0.0.1:9333."
                .to_owned(),
        );
    }
    let text = if typed.chars().all(|c| c.is_ascii_digit()) {
        format!("http://127.0.0.1:{typed}")
    } else if typed.contains("://") {
        typed.to_owned()
    } else {
        format!("http://{typed}")
    };
    let url = Url::parse(&text).map_err(|_| {
        format!("{typed} isn't a debugging address. Give one such as http://127.0.0.1:9333.")
    })?;
    if !matches!(url.scheme(), "http" | "ws") {
        return Err(format!(
            "{typed} isn't a debugging address. Give one such as http://127.0.0.1:9333."
        ));
    }
    let host = url.host_str().unwrap_or_default();
    if !is_this_computer(host) {
        return Err(format!(
            "{host} isn't on this computer. Sentient only connects to a browser running here (localhost or 127.0.0.1)."
        ));
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    Ok(format!("http://{host}:{port}"))
}

/// Whether `host` (a name or an address, IPv6 with or without brackets) is this computer.
pub fn is_this_computer(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// The folder of a launch profile.
pub fn folder(browser_root: &Path, name: &str) -> PathBuf {
    browser_root.join("profiles").join(name)
}

/// Moves an older version's single profile (`browser/profile`) to `profiles/default`; where it
/// can't be moved, it stays where it is and keeps being used. Returns the default's folder.
pub fn default_folder(browser_root: &Path) -> PathBuf {
    let old = browser_root.join("profile");
    let new = folder(browser_root, DEFAULT_PROFILE);
    if old.is_dir() && !new.exists() {
        let moved = new
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::rename(&old, &new));
        if let Err(error) = moved {
            tracing::warn!(%error, "the older browser profile could not be moved; it stays in use where it is");
            return old;
        }
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowercase_letters_digits_and_dashes() {
        assert_eq!(normalize_name("X growth").as_deref(), Some("x-growth"));
        assert_eq!(
            normalize_name("  Work__Account 2 ").as_deref(),
            Some("work-account-2")
        );
        assert_eq!(normalize_name("--a--b--").as_deref(), Some("a-b"));
        assert_eq!(normalize_name("!!!"), None);
        assert_eq!(normalize_name(""), None);
        assert_eq!(normalize_name(&"a".repeat(41)), None);
        assert_eq!(normalize_name(&"a".repeat(40)).map(|n| n.len()), Some(40));
    }

    #[test]
    fn endpoints_are_completed_and_must_be_on_this_computer() {
        assert_eq!(
            normalize_endpoint("9333").as_deref(),
            Ok("http://127.0.0.1:9333")
        );
        assert_eq!(
            normalize_endpoint("127.0.0.1:9333").as_deref(),
            Ok("http://127.0.0.1:9333")
        );
        assert_eq!(
            normalize_endpoint("localhost:9222").as_deref(),
            Ok("http://localhost:9222")
        );
        assert_eq!(
            normalize_endpoint("http://[::1]:9222/").as_deref(),
            Ok("http://[::1]:9222")
        );
        assert_eq!(
            normalize_endpoint("http://127.8.0.1:9222").as_deref(),
            Ok("http://127.8.0.1:9222")
        );
        let far = normalize_endpoint("http://192.168.1.5:9222").expect_err("refused");
        assert!(far.contains("isn't on this computer"), "{far}");
        assert!(normalize_endpoint("example.com:9222").is_err());
        assert!(normalize_endpoint("").is_err());
        assert!(normalize_endpoint("file:///etc").is_err());
    }

    #[test]
    fn an_older_profile_moves_to_default() {
        let root = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(root.path().join("profile")).expect("old");
        std::fs::write(root.path().join("profile/Cookies"), "c").expect("cookie");
        let folder = default_folder(root.path());
        assert_eq!(folder, root.path().join("profiles/default"));
        assert!(folder.join("Cookies").is_file());
        assert!(!root.path().join("profile").exists());
    }
}
