//! Plans people already pay for (contract section 3, "Connecting plans"): checking a saved key
//! with a free request, and each provider's model list for Settings > Models, cached for ten
//! minutes. The addresses are the providers' bases (settings, else their defaults), so a test
//! points them at stand-ins on loopback.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use sentient_core::sync::MutexExt;

use crate::model_ref::provider_info;
use crate::service::LlmService;

/// Providers whose keys can be checked and whose model lists can be read.
pub const CONNECTABLE: [&str; 4] = ["anthropic", "openrouter", "nous", "chatgpt"];

/// How long a model list is kept.
pub const CATALOG_TTL: Duration = Duration::from_secs(10 * 60);

const CHATGPT_NOT_YET: &str = "Signing in with ChatGPT isn't available in this version of Sentient yet, so there is nothing to check. Use a key from another provider for now.";

/// `POST /api/models/connect/{provider}/check`: `{ok: true, detail}` or `{ok: false, error}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct KeyCheck {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl KeyCheck {
    fn works(detail: impl Into<String>) -> Self {
        Self {
            ok: true,
            detail: Some(detail.into()),
            error: None,
        }
    }
    fn fails(error: impl Into<String>) -> Self {
        Self {
            ok: false,
            detail: None,
            error: Some(error.into()),
        }
    }
}

/// One model a provider offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CatalogModel {
    /// The full model string, e.g. `openrouter/meta-llama/llama-4-maverick:free`.
    pub id: String,
    pub label: String,
    /// It costs nothing to use.
    pub free: bool,
    /// It can call tools.
    pub tools: bool,
    pub context_length: Option<u64>,
}

/// Why a model list could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// Not a provider with a list here (404).
    #[error("Sentient has no model list for {0}.")]
    Unknown(String),
    /// No key, or the provider refused or could not be reached (502).
    #[error("{0}")]
    Unavailable(String),
}

/// A list as read: when, a fingerprint of the key it was read with, and the models.
type CachedList = (Instant, u64, Vec<CatalogModel>);

/// The key checks and the cached model lists.
pub struct ProviderCatalogs {
    llm: LlmService,
    /// By provider: when the list was read, a fingerprint of the key it was read with, the list.
    cache: Mutex<HashMap<String, CachedList>>,
}

impl std::fmt::Debug for ProviderCatalogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderCatalogs").finish_non_exhaustive()
    }
}

/// What the provider answered, or why there is no answer.
enum Fetched {
    Body(Value),
    /// The key was refused (401 or 403).
    Refused,
    Failed(String),
}

fn label_of(provider: &str) -> &'static str {
    provider_info(provider).map_or("the provider", |p| p.label)
}

/// A fingerprint of a key, so a changed or removed key reads the list again (the key itself is
/// not kept here).
fn fingerprint(key: Option<&str>) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish()
}

impl ProviderCatalogs {
    pub fn new(llm: LlmService) -> Self {
        Self {
            llm,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn base(&self, provider: &str) -> String {
        self.llm
            .base_for(provider)
            .or_else(|| provider_info(provider).map(|p| p.default_base.to_owned()))
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned()
    }

    /// GET `path` under the provider's base with its key in the provider's header.
    async fn fetch(&self, provider: &str, path: &str, key: Option<&str>) -> Fetched {
        let url = format!("{}{path}", self.base(provider));
        let mut request = self.llm.http().get(&url).timeout(Duration::from_secs(20));
        if let Some(key) = key {
            request = if provider == "anthropic" {
                request
                    .header("x-api-key", key)
                    .header("anthropic-version", "2023-06-01")
            } else {
                request.bearer_auth(key)
            };
        }
        let label = label_of(provider);
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                tracing::info!(%error, provider, "a provider could not be reached");
                return Fetched::Failed(format!(
                    "Sentient couldn't reach {label}. Check your internet connection and try again."
                ));
            }
        };
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            return Fetched::Refused;
        }
        if !status.is_success() {
            return Fetched::Failed(format!(
                "{label} answered with an error (HTTP {}). Try again in a minute.",
                status.as_u16()
            ));
        }
        match response.json::<Value>().await {
            Ok(body) => Fetched::Body(body),
            Err(_) => Fetched::Failed(format!(
                "{label} sent an answer Sentient couldn't read. Try again in a minute."
            )),
        }
    }

    /// Checks the saved key with a request that spends nothing: OpenRouter's key info, the
    /// model list elsewhere. `None` for a provider without a check (404).
    pub async fn check(&self, provider: &str) -> Option<KeyCheck> {
        if !CONNECTABLE.contains(&provider) {
            return None;
        }
        if provider == "chatgpt" {
            return Some(KeyCheck::fails(CHATGPT_NOT_YET));
        }
        let label = label_of(provider);
        let Some(key) = self.llm.api_key(provider).await else {
            return Some(KeyCheck::fails(format!(
                "No {label} key is saved yet. Paste one in Settings > Models first."
            )));
        };
        let path = if provider == "openrouter" {
            "/key"
        } else if provider == "anthropic" {
            "/v1/models"
        } else {
            "/models"
        };
        Some(match self.fetch(provider, path, Some(&key)).await {
            Fetched::Body(body) => KeyCheck::works(works_detail(provider, &body)),
            Fetched::Refused => KeyCheck::fails(format!(
                "{label} didn't accept this key. Copy it again from your {label} account and save it."
            )),
            Fetched::Failed(error) => KeyCheck::fails(error),
        })
    }

    /// The provider's models, from the cache when read less than ten minutes ago with the same
    /// key. OpenRouter's list is public; the others need the key.
    pub async fn catalog(&self, provider: &str) -> Result<Vec<CatalogModel>, CatalogError> {
        if !CONNECTABLE.contains(&provider) {
            return Err(CatalogError::Unknown(provider.to_owned()));
        }
        if provider == "chatgpt" {
            return Err(CatalogError::Unavailable(CHATGPT_NOT_YET.to_owned()));
        }
        let key = self.llm.api_key(provider).await;
        let print = fingerprint(key.as_deref());
        if let Some((at, with, list)) = self.cache.lock_unpoisoned().get(provider)
            && *with == print
            && at.elapsed() < CATALOG_TTL
        {
            return Ok(list.clone());
        }
        let label = label_of(provider);
        if key.is_none() && provider != "openrouter" {
            return Err(CatalogError::Unavailable(format!(
                "No {label} key is saved yet, so its models can't be listed. Paste one in Settings > Models first."
            )));
        }
        let path = if provider == "anthropic" {
            "/v1/models?limit=1000"
        } else {
            "/models"
        };
        let body = match self.fetch(provider, path, key.as_deref()).await {
            Fetched::Body(body) => body,
            Fetched::Refused => {
                return Err(CatalogError::Unavailable(format!(
                    "{label} didn't accept the saved key, so its models can't be listed. Save the key again."
                )));
            }
            Fetched::Failed(error) => return Err(CatalogError::Unavailable(error)),
        };
        let list = models_of(provider, &body);
        self.cache
            .lock_unpoisoned()
            .insert(provider.to_owned(), (Instant::now(), print, list.clone()));
        Ok(list)
    }
}

/// The sentence for a key that works; OpenRouter's says what is left of its limit.
fn works_detail(provider: &str, body: &Value) -> String {
    let label = label_of(provider);
    if provider == "openrouter" {
        let data = &body["data"];
        if data["is_free_tier"].as_bool() == Some(true) {
            return "Your OpenRouter key works. It is on the free tier: free models only until you add credits.".to_owned();
        }
        if let Some(left) = data["limit_remaining"].as_f64() {
            return format!("Your OpenRouter key works, with ${left:.2} of its limit left.");
        }
        return "Your OpenRouter key works.".to_owned();
    }
    let count = body["data"].as_array().map_or(0, Vec::len);
    if count > 0 {
        format!("Your {label} key works: {count} models are available.")
    } else {
        format!("Your {label} key works.")
    }
}

/// A price field that reads zero (`"0"`, `0`).
fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(s) => s.trim().parse::<f64>().is_ok_and(|n| n == 0.0),
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

/// The provider's answer as catalog entries, in its order.
fn models_of(provider: &str, body: &Value) -> Vec<CatalogModel> {
    let entries = body["data"].as_array().cloned().unwrap_or_default();
    entries
        .iter()
        .filter_map(|entry| {
            let id = entry["id"].as_str()?.trim();
            if id.is_empty() {
                return None;
            }
            let label = entry["name"]
                .as_str()
                .or_else(|| entry["display_name"].as_str())
                .unwrap_or(id)
                .to_owned();
            let parameters: Vec<&str> = entry["supported_parameters"]
                .as_array()
                .map(|p| p.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let (free, tools) = match provider {
                "openrouter" => (
                    id.ends_with(":free")
                        || (is_zero(&entry["pricing"]["prompt"])
                            && is_zero(&entry["pricing"]["completion"])),
                    parameters.contains(&"tools"),
                ),
                // Every Claude model calls tools.
                "anthropic" => (false, true),
                // Nous lists no capabilities; its Hermes models call tools, unless it says not.
                _ => (
                    false,
                    parameters.is_empty() || parameters.contains(&"tools"),
                ),
            };
            let context_length = entry["context_length"]
                .as_u64()
                .or_else(|| entry["max_input_tokens"].as_u64())
                .or_else(|| entry["top_provider"]["context_length"].as_u64());
            Some(CatalogModel {
                id: format!("{provider}/{id}"),
                label,
                free,
                tools,
                context_length,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openrouter_entries_say_what_is_free_and_what_calls_tools() {
        let body = json!({"data": [
            {"id": "meta-llama/llama-4-maverick:free", "name": "Llama 4 Maverick (free)", "context_length": 128000,
             "pricing": {"prompt": "0.0001", "completion": "0.0002"}, "supported_parameters": ["tools", "temperature"]},
            {"id": "openai/gpt-5", "name": "GPT-5", "pricing": {"prompt": "0", "completion": "0"},
             "top_provider": {"context_length": 400000}, "supported_parameters": ["temperature"]},
            {"id": "anthropic/claude-sonnet-5", "pricing": {"prompt": "0.003", "completion": "0.015"}},
            {"id": "  "}
        ]});
        let list = models_of("openrouter", &body);
        assert_eq!(
            list,
            [
                CatalogModel {
                    id: "openrouter/meta-llama/llama-4-maverick:free".into(),
                    label: "Llama 4 Maverick (free)".into(),
                    free: true,
                    tools: true,
                    context_length: Some(128_000),
                },
                CatalogModel {
                    id: "openrouter/openai/gpt-5".into(),
                    label: "GPT-5".into(),
                    free: true,
                    tools: false,
                    context_length: Some(400_000),
                },
                CatalogModel {
                    id: "openrouter/anthropic/claude-sonnet-5".into(),
                    label: "anthropic/claude-sonnet-5".into(),
                    free: false,
                    tools: false,
                    context_length: None,
                },
            ]
        );
    }

    #[test]
    fn anthropic_and_nous_entries_are_read_too() {
        let claude = models_of(
            "anthropic",
            &json!({"data": [{"id": "claude-sonnet-5", "display_name": "Claude Sonnet 5", "max_input_tokens": 200000}]}),
        );
        assert_eq!(claude[0].id, "anthropic/claude-sonnet-5");
        assert_eq!(claude[0].label, "Claude Sonnet 5");
        assert!(claude[0].tools && !claude[0].free);
        assert_eq!(claude[0].context_length, Some(200_000));
        let nous = models_of("nous", &json!({"data": [{"id": "Hermes-4-70B"}]}));
        assert_eq!(nous[0].id, "nous/Hermes-4-70B");
        assert!(nous[0].tools);
    }

    #[test]
    fn a_working_key_is_described_plainly() {
        assert_eq!(
            works_detail("openrouter", &json!({"data": {"limit_remaining": 4.5}})),
            "Your OpenRouter key works, with $4.50 of its limit left."
        );
        assert!(
            works_detail("openrouter", &json!({"data": {"is_free_tier": true}}))
                .contains("free tier")
        );
        assert_eq!(
            works_detail("nous", &json!({"data": [{"id": "a"}, {"id": "b"}]})),
            "Your Nous Portal key works: 2 models are available."
        );
    }

    #[test]
    fn a_key_fingerprint_changes_with_the_key() {
        assert_eq!(fingerprint(Some("a")), fingerprint(Some("a")));
        assert_ne!(fingerprint(Some("a")), fingerprint(Some("b")));
        assert_ne!(fingerprint(Some("a")), fingerprint(None));
    }
}
