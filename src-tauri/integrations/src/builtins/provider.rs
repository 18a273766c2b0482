//! How the built-in apps ask their providers: one GET with the time limit from the endpoints
//! table, plain sentences for a provider that is down or slow, the cache, and Nominatim's rule
//! of one request a second.

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

use super::cache::{Cache, key_of};

/// Who Sentient says it is to OpenStreetMap's servers, which ask for a descriptive agent.
pub const MAPS_USER_AGENT: &str = concat!(
    "Sentient/",
    env!("CARGO_PKG_VERSION"),
    " (personal desktop assistant; one person's own look-ups)"
);

/// Nominatim's usage policy: at most one request a second.
pub const NOMINATIM_SPACING: Duration = Duration::from_secs(1);

/// Why a built-in app's provider gave no usable answer, as the plain sentence a tool shows the
/// model (and the person).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("A built-in app's provider address is not a web address; check the endpoints setting.")]
    BadAddress,
    /// The answer was not what the provider sends; names the provider.
    #[error("{0} sent an answer Sentient couldn't read. Try again in a minute.")]
    Unreadable(String),
    #[error("{0} didn't answer in time. Try again in a minute.")]
    TooSlow(String),
    #[error("{0} can't be reached right now. Check the internet connection and try again.")]
    Unreachable(String),
    /// A keyed provider's check answered with this HTTP status.
    #[error("{0} couldn't answer ({1}).")]
    Status(String, u16),
    /// What the provider's answer means for the person (a refused key, nothing found, a place
    /// to name), already a sentence.
    #[error("{0}")]
    Answered(String),
}

impl From<String> for ProviderError {
    fn from(sentence: String) -> Self {
        Self::Answered(sentence)
    }
}

impl From<&str> for ProviderError {
    fn from(sentence: &str) -> Self {
        Self::Answered(sentence.to_owned())
    }
}

impl From<ProviderError> for sentient_agent::tools::ToolError {
    fn from(error: ProviderError) -> Self {
        Self::Failed(error.to_string())
    }
}

/// One provider's answer: its HTTP status and body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Keeps requests at least `spacing` apart (Nominatim's limit), across every caller.
#[derive(Debug)]
pub struct Spacing {
    spacing: Duration,
    last: Mutex<Option<Instant>>,
}

impl Spacing {
    pub fn new(spacing: Duration) -> Self {
        Self {
            spacing,
            last: Mutex::new(None),
        }
    }

    /// Waits for this caller's turn. The lock is held through the wait, so callers go in order.
    pub async fn turn(&self) {
        let mut last = self.last.lock().await;
        if let Some(at) = *last {
            tokio::time::sleep_until(at + self.spacing).await;
        }
        *last = Some(Instant::now());
    }
}

/// `path` (with its query) under a provider's base address from the endpoints table.
pub fn endpoint(base: &str, path: &str) -> Result<url::Url, ProviderError> {
    url::Url::parse(&format!("{}{path}", base.trim_end_matches('/'))).map_err(|error| {
        tracing::warn!(%error, base, "a built-in app's provider address is not a web address");
        ProviderError::BadAddress
    })
}

/// Reads a provider's JSON answer; `who` names the provider when the answer is not JSON.
pub fn json_of<T: serde::de::DeserializeOwned>(body: &str, who: &str) -> Result<T, ProviderError> {
    serde_json::from_str(body).map_err(|error| {
        tracing::info!(%error, provider = who, "a built-in app's answer could not be read");
        ProviderError::Unreadable(who.to_owned())
    })
}

/// Sends `request` (a GET built on the shared client) within `timeout`; `who` names the
/// provider in the plain sentence for a failure.
pub async fn fetch(
    request: reqwest::RequestBuilder,
    timeout: Duration,
    who: &str,
) -> Result<Answer, ProviderError> {
    let response = request.timeout(timeout).send().await.map_err(|error| {
        // Keys travel in some providers' query strings; the log never shows the address.
        let error = error.without_url();
        tracing::info!(%error, provider = who, "a built-in app's provider did not answer");
        if error.is_timeout() {
            ProviderError::TooSlow(who.to_owned())
        } else {
            ProviderError::Unreachable(who.to_owned())
        }
    })?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(|error| {
        let error = error.without_url();
        tracing::info!(%error, provider = who, "a built-in app's answer was cut off");
        ProviderError::TooSlow(who.to_owned())
    })?;
    Ok(Answer { status, body })
}

/// The kept answer for `url` while fresh, else a new request whose good answers are kept for
/// `ttl`. `extra` names what else changes the answer (a header's key, say).
pub async fn cached(
    cache: &Cache,
    url: &str,
    extra: &str,
    ttl: chrono::Duration,
    fetch_it: impl std::future::Future<Output = Result<Answer, ProviderError>>,
) -> Result<Answer, ProviderError> {
    let key = key_of(&[url, extra]);
    if let Some(body) = cache.get(&key).await {
        return Ok(Answer { status: 200, body });
    }
    let answer = fetch_it.await?;
    if answer.ok() {
        cache.put(&key, &answer.body, ttl).await;
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn turns_are_spaced_by_the_rule() {
        let spacing = Spacing::new(NOMINATIM_SPACING);
        let start = Instant::now();
        spacing.turn().await;
        spacing.turn().await;
        spacing.turn().await;
        assert!(Instant::now() - start >= 2 * NOMINATIM_SPACING);
    }
}
