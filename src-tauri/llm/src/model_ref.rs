//! Model strings are `provider/model` (`ollama_chat/qwen3:8b`, `anthropic/claude-sonnet-5`,
//! `openrouter/meta-llama/llama-4-maverick:free`): which provider, and the model name it knows.

use super::error::LlmError;

/// How a provider's API is spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    Ollama,
    OpenAi,
    Anthropic,
}

/// What Sentient knows about a provider before any settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderInfo {
    pub id: &'static str,
    pub label: &'static str,
    pub format: WireFormat,
    /// Runs on this computer (no key, no cost).
    pub local: bool,
    pub default_base: &'static str,
    pub docs_url: &'static str,
    pub suggested: &'static [&'static str],
}

/// Every provider Sentient can talk to, in the order Settings lists them.
pub const PROVIDERS: &[ProviderInfo] = &[
    ProviderInfo {
        id: "ollama_chat",
        label: "Ollama",
        format: WireFormat::Ollama,
        local: true,
        default_base: "http://localhost:11434",
        docs_url: "https://ollama.com/download",
        suggested: &[
            "ollama_chat/qwen3:8b",
            "ollama_chat/qwen3:4b",
            "ollama_chat/qwen3:14b",
        ],
    },
    ProviderInfo {
        id: "ollama",
        label: "Ollama (embeddings)",
        format: WireFormat::Ollama,
        local: true,
        default_base: "http://localhost:11434",
        docs_url: "https://ollama.com/download",
        suggested: &["ollama/nomic-embed-text"],
    },
    ProviderInfo {
        id: "lm_studio",
        label: "LM Studio",
        format: WireFormat::OpenAi,
        local: true,
        default_base: "http://localhost:1234/v1",
        docs_url: "https://lmstudio.ai/",
        suggested: &[],
    },
    ProviderInfo {
        id: "vllm",
        label: "vLLM",
        format: WireFormat::OpenAi,
        local: true,
        default_base: "http://localhost:8000/v1",
        docs_url: "https://docs.vllm.ai/",
        suggested: &[],
    },
    ProviderInfo {
        id: "anthropic",
        label: "Anthropic",
        format: WireFormat::Anthropic,
        local: false,
        default_base: "https://api.anthropic.com",
        docs_url: "https://console.anthropic.com/",
        suggested: &["anthropic/claude-sonnet-5", "anthropic/claude-haiku-4-5"],
    },
    ProviderInfo {
        id: "openai",
        label: "OpenAI",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://api.openai.com/v1",
        docs_url: "https://platform.openai.com/api-keys",
        suggested: &["openai/gpt-5", "openai/gpt-5-mini"],
    },
    ProviderInfo {
        id: "openrouter",
        label: "OpenRouter",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://openrouter.ai/api/v1",
        docs_url: "https://openrouter.ai/keys",
        suggested: &[
            "openrouter/meta-llama/llama-4-maverick:free",
            "openrouter/anthropic/claude-sonnet-5",
        ],
    },
    ProviderInfo {
        id: "nous",
        label: "Nous Portal",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://inference-api.nousresearch.com/v1",
        docs_url: "https://portal.nousresearch.com/",
        suggested: &["nous/Hermes-4-70B"],
    },
    ProviderInfo {
        id: "gemini",
        label: "Google Gemini",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://generativelanguage.googleapis.com/v1beta/openai",
        docs_url: "https://aistudio.google.com/apikey",
        suggested: &["gemini/gemini-2.5-flash"],
    },
    ProviderInfo {
        id: "groq",
        label: "Groq",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://api.groq.com/openai/v1",
        docs_url: "https://console.groq.com/keys",
        suggested: &[],
    },
    ProviderInfo {
        id: "mistral",
        label: "Mistral",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://api.mistral.ai/v1",
        docs_url: "https://console.mistral.ai/",
        suggested: &[],
    },
    ProviderInfo {
        id: "deepseek",
        label: "DeepSeek",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://api.deepseek.com/v1",
        docs_url: "https://platform.deepseek.com/",
        suggested: &[],
    },
    ProviderInfo {
        id: "xai",
        label: "xAI",
        format: WireFormat::OpenAi,
        local: false,
        default_base: "https://api.x.ai/v1",
        docs_url: "https://console.x.ai/",
        suggested: &[],
    },
];

pub fn provider_info(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
}

/// A parsed model string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    pub provider: &'static ProviderInfo,
    /// The name the provider knows (everything after the first slash).
    pub name: String,
}

impl ModelRef {
    pub fn parse(model: &str) -> Result<Self, LlmError> {
        let bad = || LlmError::BadModelName {
            model: model.to_owned(),
        };
        let (provider, name) = model.trim().split_once('/').ok_or_else(bad)?;
        if name.trim().is_empty() {
            return Err(bad());
        }
        let provider = provider_info(provider).ok_or_else(bad)?;
        Ok(Self {
            provider,
            name: name.to_owned(),
        })
    }

    /// Back to `provider/model`.
    pub fn full(&self) -> String {
        format!("{}/{}", self.provider.id, self.name)
    }

    /// Whether the local-model queue applies (one Ollama job at a time).
    pub fn uses_local_queue(&self) -> bool {
        self.provider.format == WireFormat::Ollama
    }
}

/// Whether `model` runs on this computer (its provider is a local one: Ollama, LM Studio).
pub fn is_local(model: &str) -> bool {
    ModelRef::parse(model).is_ok_and(|m| m.provider.local)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_provider_and_keeps_slashes_in_the_name() {
        let m = ModelRef::parse("openrouter/meta-llama/llama-4-maverick:free").expect("parses");
        assert_eq!(m.provider.id, "openrouter");
        assert_eq!(m.name, "meta-llama/llama-4-maverick:free");
        assert_eq!(
            ModelRef::parse("ollama_chat/qwen3:8b")
                .expect("parses")
                .provider
                .format,
            WireFormat::Ollama
        );
        for bad in ["qwen3:8b", "nope/x", "ollama/", ""] {
            assert!(ModelRef::parse(bad).is_err(), "{bad}");
        }
    }
}
