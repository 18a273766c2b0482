//! Which addresses the browser may open: http and https only, and `browser.allow_domains` /
//! `browser.block_domains` (a domain covers its subdomains). Checked before opening and again
//! on the address a page ended up at (after redirects).

use reqwest::Url;
use sentient_core::config::BrowserConfig;

/// `Ok` with the parsed address when the browser may open `text`, else the sentence why not.
/// The address itself is checked as `web_fetch` checks it (a full http or https address).
pub fn check(text: &str, settings: &BrowserConfig) -> Result<Url, String> {
    let url = sentient_agent::tools::web::web_address(text).map_err(|e| e.to_string())?;
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_lowercase();
    if settings.block_domains.iter().any(|d| covers(d, &host)) {
        return Err(format!(
            "{host} is on the blocked sites list in Settings > Browser, so Sentient won't open it."
        ));
    }
    if !settings.allow_domains.is_empty()
        && !settings.allow_domains.iter().any(|d| covers(d, &host))
    {
        return Err(format!(
            "{host} isn't on the allowed sites list in Settings > Browser, so Sentient won't open it."
        ));
    }
    Ok(url)
}

/// Whether the listed `domain` covers `host` (itself or a subdomain).
fn covers(domain: &str, host: &str) -> bool {
    let domain = domain
        .trim()
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.')
        .to_lowercase();
    !domain.is_empty() && (host == domain || host.ends_with(&format!(".{domain}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_cover_subdomains_and_only_web_addresses_open() {
        let mut settings = BrowserConfig::default();
        assert!(check("https://shop.example.com/a", &settings).is_ok());
        assert!(check("file:///etc/passwd", &settings).is_err());
        assert!(check("not a url", &settings).is_err());
        settings.block_domains = vec!["example.com".to_owned()];
        let refused = check("https://shop.example.com/a", &settings).expect_err("blocked");
        assert!(refused.contains("blocked"), "{refused}");
        assert!(check("https://notexample.com", &settings).is_ok());
        settings.block_domains.clear();
        settings.allow_domains = vec!["amazon.in".to_owned()];
        assert!(check("https://www.amazon.in/x", &settings).is_ok());
        assert!(
            check("https://evil.in", &settings)
                .expect_err("not allowed")
                .contains("allowed")
        );
    }
}
