//! Where each outside service is: one table that defaults to the real services. Tests point it
//! at stand-ins on loopback (`EngineOptions`, or `SENTIENT_ENDPOINTS=<json file>` for
//! `sentient serve`). It is not a Setting: nobody using Sentient changes where Gmail is.

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Endpoints {
    /// Google's sign-in page.
    pub google_auth: String,
    /// Google's token endpoint (code exchange and refresh).
    pub google_token: String,
    /// Gmail API v1 base, up to `/gmail/v1`.
    pub gmail: String,
    /// Calendar API v3 base, up to `/calendar/v3`.
    pub calendar: String,
    /// GitHub's REST API.
    pub github_api: String,
    /// GitHub's web address (device flow and sign-in).
    pub github_web: String,
    /// PEM certificates trusted besides the system's, for stand-in mail servers in tests.
    pub trusted_certificates: Vec<String>,
    /// Open-Meteo's place search (the weather app's keyless geocoding).
    pub open_meteo_geocoding: String,
    /// Open-Meteo's forecast API (the weather app's keyless provider).
    pub open_meteo_forecast: String,
    /// OpenStreetMap's Nominatim (the maps app's keyless place search and reverse look-up).
    pub nominatim: String,
    /// The OSRM route servers, one per travel mode under `/routed-car|foot|bike`.
    pub osrm: String,
    /// The news app's keyless RSS feeds (Google News).
    pub news_rss: String,
    /// DuckDuckGo's keyless HTML search page (web search without a key).
    pub duckduckgo_html: String,
    /// AccuWeather's API (keyed alternative for weather).
    pub accuweather: String,
    /// NewsAPI (keyed alternative for news).
    pub newsapi: String,
    /// Google Maps Platform (keyed alternative for maps).
    pub google_maps: String,
    /// Brave Search API (keyed alternative for web search).
    pub brave_search: String,
    /// Google Programmable Search (keyed alternative for web search).
    pub google_cse: String,
    /// Where a mail domain's autoconfig document is looked for, `{domain}` filled in (the
    /// domain's own two places by default; a loopback server in tests).
    pub mail_autoconfig: Vec<String>,
    /// How long one request of a built-in app may take, in milliseconds (tests shorten it).
    pub builtin_timeout_ms: u64,
    /// OpenRouter's sign-in page for apps (PKCE).
    pub openrouter_auth: String,
    /// Where OpenRouter swaps a sign-in's code for a key.
    pub openrouter_keys: String,
}

impl Default for Endpoints {
    fn default() -> Self {
        Self {
            google_auth: "https://accounts.google.com/o/oauth2/v2/auth".to_owned(),
            google_token: "https://oauth2.googleapis.com/token".to_owned(),
            gmail: "https://gmail.googleapis.com/gmail/v1".to_owned(),
            calendar: "https://www.googleapis.com/calendar/v3".to_owned(),
            github_api: "https://api.github.com".to_owned(),
            github_web: "https://github.com".to_owned(),
            trusted_certificates: Vec::new(),
            open_meteo_geocoding: "https://geocoding-api.open-meteo.com".to_owned(),
            open_meteo_forecast: "https://api.open-meteo.com".to_owned(),
            nominatim: "https://nominatim.openstreetmap.org".to_owned(),
            osrm: "https://routing.openstreetmap.de".to_owned(),
            news_rss: "https://news.google.com".to_owned(),
            duckduckgo_html: "https://html.duckduckgo.com/html/".to_owned(),
            accuweather: "https://dataservice.accuweather.com".to_owned(),
            newsapi: "https://newsapi.org".to_owned(),
            google_maps: "https://maps.googleapis.com".to_owned(),
            brave_search: "https://api.search.brave.com".to_owned(),
            google_cse: "https://www.googleapis.com".to_owned(),
            mail_autoconfig: vec![
                "https://autoconfig.{domain}/mail/config-v1.1.xml".to_owned(),
                "https://{domain}/.well-known/autoconfig/mail/config-v1.1.xml".to_owned(),
            ],
            builtin_timeout_ms: 10_000,
            openrouter_auth: "https://openrouter.ai/auth".to_owned(),
            openrouter_keys: "https://openrouter.ai/api/v1/auth/keys".to_owned(),
        }
    }
}

/// The environment variable naming a JSON file of endpoint overrides.
pub const ENDPOINTS_ENV: &str = "SENTIENT_ENDPOINTS";

/// Why the endpoint overrides could not be used; the binary prints it and stops.
#[derive(Debug, thiserror::Error)]
pub enum EndpointsError {
    #[error("{path} could not be read: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not valid: {source}")]
    Invalid {
        path: String,
        source: serde_json::Error,
    },
}

impl Endpoints {
    /// The defaults with the file's keys on top.
    pub fn from_file(path: &Path) -> Result<Self, EndpointsError> {
        let shown = || path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| EndpointsError::Unreadable {
            path: shown(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| EndpointsError::Invalid {
            path: shown(),
            source,
        })
    }

    /// From `SENTIENT_ENDPOINTS` when set, else the real services.
    pub fn from_env() -> Result<Self, EndpointsError> {
        match std::env::var_os(ENDPOINTS_ENV) {
            Some(path) if !path.is_empty() => Self::from_file(Path::new(&path)),
            _ => Ok(Self::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_overrides_only_its_keys_and_unknown_keys_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("endpoints.json");
        std::fs::write(&path, r#"{"github_api": "http://127.0.0.1:9/api"}"#).expect("write");
        let endpoints = Endpoints::from_file(&path).expect("read");
        assert_eq!(endpoints.github_api, "http://127.0.0.1:9/api");
        assert_eq!(endpoints.gmail, Endpoints::default().gmail);
        std::fs::write(&path, r#"{"gmial": "x"}"#).expect("write");
        let invalid = Endpoints::from_file(&path).expect_err("unknown key");
        assert!(
            matches!(invalid, EndpointsError::Invalid { .. }),
            "{invalid}"
        );
        let missing = Endpoints::from_file(&dir.path().join("none.json")).expect_err("missing");
        assert!(
            missing.to_string().contains("could not be read"),
            "{missing}"
        );
    }
}
