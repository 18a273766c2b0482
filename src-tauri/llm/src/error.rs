//! Why a model call failed, as one plain sentence that says what to do next. The provider's raw
//! reply is logged where the error is made and never shown.

use std::time::Duration;

use sentient_core::error::ApiError;

/// A provider's name as a person knows it.
pub fn provider_label(provider: &str) -> &str {
    match provider {
        "ollama" | "ollama_chat" => "Ollama",
        "anthropic" => "Anthropic",
        "openai" => "OpenAI",
        "openrouter" => "OpenRouter",
        "lm_studio" => "LM Studio",
        "nous" => "Nous Portal",
        "vllm" => "vLLM",
        "gemini" => "Google Gemini",
        "groq" => "Groq",
        "mistral" => "Mistral",
        "deepseek" => "DeepSeek",
        "xai" => "xAI",
        other => other,
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("{}", rate_limited(provider, *daily, retry_after))]
    RateLimited {
        provider: String,
        retry_after: Option<Duration>,
        /// A limit that resets tomorrow (OpenRouter's free models per day), not in seconds.
        daily: bool,
    },
    #[error(
        "{} says there are no credits left on this account. Add credits with {}, or pick another model in Settings > Models.",
        provider_label(provider),
        provider_label(provider)
    )]
    CreditsExhausted { provider: String },
    #[error(
        "{} turned down the saved key. Check or replace it in Settings > Models.",
        provider_label(provider)
    )]
    BadKey { provider: String },
    #[error(
        "There is no key for {} yet. Add one in Settings > Models.",
        provider_label(provider)
    )]
    NoKey { provider: String },
    #[error("{}", model_missing(provider, model))]
    ModelMissing { provider: String, model: String },
    #[error(
        "{} keeps {model} for coding tools, so Sentient can't use it here. Pick another model in Settings > Models.",
        provider_label(provider)
    )]
    CodingOnly { provider: String, model: String },
    #[error(
        "This conversation is longer than {model} can read at once. Start a new chat, or set a longer context length in Settings > Models."
    )]
    ContextTooLong { model: String },
    #[error("{}", unavailable(provider))]
    Unavailable { provider: String },
    /// The server answered, with an error of its own (HTTP 5xx): it is running, so "start it" is
    /// the wrong advice.
    #[error("{}", server_error(provider, *status))]
    ServerError { provider: String, status: u16 },
    /// A refusal with no known cause: the provider's own words, which are safe to show.
    #[error("{} refused the request: {message}", provider_label(provider))]
    Refused { provider: String, message: String },
    #[error(
        "{model} is not a model Sentient can use. Write it as provider/model, for example ollama_chat/qwen3:8b."
    )]
    BadModelName { model: String },
    #[error(
        "{} sent a reply Sentient could not read. Try again, or pick another model in Settings > Models.",
        provider_label(provider)
    )]
    Garbled { provider: String },
    #[error("Stopped.")]
    Cancelled,
}

fn rate_limited(provider: &str, daily: bool, retry_after: &Option<Duration>) -> String {
    let name = provider_label(provider);
    if daily && provider == "openrouter" {
        return "OpenRouter's free models have reached today's limit. Add credits on openrouter.ai, wait until tomorrow, or pick another model in Settings > Models.".to_owned();
    }
    match retry_after {
        Some(wait) if wait.as_secs() > 0 => format!(
            "{name} is getting too many requests right now. Wait about {} seconds and try again, or pick another model in Settings > Models.",
            wait.as_secs()
        ),
        _ => format!(
            "{name} is getting too many requests right now. Wait a minute and try again, or pick another model in Settings > Models."
        ),
    }
}

fn model_missing(provider: &str, model: &str) -> String {
    if provider.starts_with("ollama") {
        format!(
            "The model {model} isn't downloaded in Ollama yet. Download it in Settings > Models, or run: ollama pull {model}"
        )
    } else {
        format!(
            "{} doesn't have a model called {model}. Pick another one in Settings > Models.",
            provider_label(provider)
        )
    }
}

fn unavailable(provider: &str) -> String {
    match provider {
        "ollama" | "ollama_chat" => {
            "Ollama isn't answering. Start Ollama (or install it from ollama.com), then try again."
                .to_owned()
        }
        "lm_studio" => {
            "LM Studio isn't answering. Open LM Studio and start its local server, then try again."
                .to_owned()
        }
        other => format!(
            "{} isn't answering right now. Try again in a moment, or pick another model in Settings > Models.",
            provider_label(other)
        ),
    }
}

fn server_error(provider: &str, status: u16) -> String {
    let name = provider_label(provider);
    if provider.starts_with("ollama") || provider == "lm_studio" {
        format!(
            "{name} is running but had an error of its own (HTTP {status}); it may have run out of memory loading the model. Try again, restart {name}, or pick a smaller model in Settings > Models."
        )
    } else {
        format!(
            "{name} had an error of its own (HTTP {status}). Try again in a moment, or pick another model in Settings > Models."
        )
    }
}

impl LlmError {
    /// Worth trying the same model again after a short wait.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Unavailable { .. } | Self::ServerError { .. } | Self::Garbled { .. } => true,
            Self::RateLimited {
                daily, retry_after, ..
            } => !daily && retry_after.is_none_or(|w| w <= Duration::from_secs(10)),
            _ => false,
        }
    }

    /// Worth moving on to the role's next model (a fallback) rather than failing.
    pub fn allows_fallback(&self) -> bool {
        !matches!(
            self,
            Self::Cancelled | Self::ContextTooLong { .. } | Self::BadModelName { .. }
        )
    }

    /// Maps an HTTP refusal to its plain sentence. `body` is the provider's raw reply (logged
    /// by the caller, never shown except a known-safe message for unknown refusals).
    pub fn from_status(
        provider: &str,
        model: &str,
        status: u16,
        retry_after: Option<Duration>,
        body: &str,
    ) -> Self {
        let lower = body.to_ascii_lowercase();
        let provider = provider.to_owned();
        match status {
            429 => Self::RateLimited {
                daily: lower.contains("per-day")
                    || lower.contains("per day")
                    || lower.contains("daily"),
                provider,
                retry_after,
            },
            402 => Self::CreditsExhausted { provider },
            401 | 403 => Self::BadKey { provider },
            404 => Self::ModelMissing {
                provider,
                model: model.to_owned(),
            },
            400 | 413 | 422
                if lower.contains("context length")
                    || lower.contains("context_length")
                    || lower.contains("too long")
                    || lower.contains("maximum context")
                    || lower.contains("prompt is too long") =>
            {
                Self::ContextTooLong {
                    model: model.to_owned(),
                }
            }
            400 if lower.contains("only supported in v1/responses") || lower.contains("codex") => {
                Self::CodingOnly {
                    provider,
                    model: model.to_owned(),
                }
            }
            400 if lower.contains("not found") && lower.contains("model") => Self::ModelMissing {
                provider,
                model: model.to_owned(),
            },
            500..=599 => Self::ServerError { provider, status },
            _ => Self::Refused {
                message: refusal_message(body).unwrap_or_else(|| format!("error {status}")),
                provider,
            },
        }
    }
}

/// The human part of a provider's error body, when it has one.
fn refusal_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let message = value
        .pointer("/error/message")
        .or_else(|| value.get("error").filter(|e| e.is_string()))
        .or_else(|| value.get("message"))?
        .as_str()?;
    Some(message.chars().take(300).collect())
}

impl From<LlmError> for ApiError {
    fn from(err: LlmError) -> Self {
        let status = match &err {
            LlmError::BadModelName { .. } => 400,
            LlmError::Cancelled => 409,
            LlmError::NoKey { .. } | LlmError::BadKey { .. } | LlmError::ModelMissing { .. } => 400,
            _ => 503,
        };
        ApiError::new(status, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_become_plain_sentences() {
        let e = LlmError::from_status(
            "openrouter",
            "x",
            429,
            None,
            r#"{"error":{"message":"Rate limit exceeded: free-models-per-day"}}"#,
        );
        assert!(
            e.to_string()
                .starts_with("OpenRouter's free models have reached today's limit.")
        );
        assert!(!e.is_transient());
        let e = LlmError::from_status("anthropic", "m", 429, Some(Duration::from_secs(3)), "{}");
        assert!(e.to_string().contains("about 3 seconds"));
        assert!(e.is_transient());
        assert!(
            LlmError::from_status("openai", "m", 402, None, "")
                .to_string()
                .contains("no credits")
        );
        assert!(
            LlmError::from_status("openai", "m", 401, None, "")
                .to_string()
                .contains("turned down the saved key")
        );
        let missing = LlmError::from_status("ollama_chat", "qwen3:8b", 404, None, "");
        assert!(missing.to_string().contains("ollama pull qwen3:8b"));
        assert!(matches!(
            LlmError::from_status(
                "openai",
                "m",
                400,
                None,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#
            ),
            LlmError::ContextTooLong { .. }
        ));
        assert!(LlmError::from_status("anthropic", "m", 529, None, "overloaded").is_transient());
        let crashed = LlmError::from_status("ollama_chat", "qwen3:8b", 500, None, "{}").to_string();
        assert!(
            crashed.contains("running but had an error") && crashed.contains("500"),
            "{crashed}"
        );
        assert!(!crashed.contains("Start Ollama"), "{crashed}");
        let refused = LlmError::from_status(
            "openai",
            "m",
            400,
            None,
            r#"{"error":{"message":"temperature must be at most 2"}}"#,
        );
        assert_eq!(
            refused.to_string(),
            "OpenAI refused the request: temperature must be at most 2"
        );
    }

    #[test]
    fn the_raw_body_never_leaks_for_known_causes() {
        let body = r#"{"error":{"message":"secret internal trace id 123"}}"#;
        for status in [429, 402, 401, 404, 500] {
            let text = LlmError::from_status("openai", "m", status, None, body).to_string();
            assert!(!text.contains("trace id"), "{status}: {text}");
        }
    }
}
