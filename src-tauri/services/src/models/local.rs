//! The models a person already has: the one-click pick from what Ollama (or LM Studio) has
//! downloaded, their addresses (checked before they are saved), and the roles that follow a
//! new main model when their own model is not downloaded (issue 32).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checkup::{Check, CheckStatus};
use super::presets::RoleChange;
use super::{LocalModel, LocalModels, LocalServer, ModelError, ModelService, is_ollama};
use crate::error::FieldError;
use crate::llm::{ModelRef, ModelRole};

/// Where the roles that followed the main model are noted for the check-up.
const FOLLOWED_KEY: &str = "models.followed";

/// How long an address may take to answer before it counts as unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(4);

pub const OLLAMA_DEFAULT: &str = "http://localhost:11434";
pub const LM_STUDIO_DEFAULT: &str = "http://localhost:1234/v1";

/// What one click in onboarding sets, from the models already downloaded (an extra field of
/// `GET /api/models/local`): the main model, which every other chat job then uses, and the
/// embedding model when one is there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LocalPick {
    pub primary: String,
    pub embedding: Option<String>,
    /// Whether the main model says it can use tools.
    pub tools: bool,
}

/// `PUT /api/models/local/address`: `api_base` null or empty puts back the usual address.
#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct LocalAddress {
    /// ollama or lm_studio.
    pub provider: String,
    #[serde(default)]
    pub api_base: Option<String>,
}

fn can_use_tools(m: &LocalModel) -> bool {
    m.capabilities.iter().any(|c| c == "tools")
}

/// The best chat model and an embedding model among what is downloaded: a model that can use
/// tools before one that can't, then the bigger one (what the person chose to download).
/// Ollama first; LM Studio when Ollama has no chat model.
pub fn pick_local(local: &LocalModels) -> Option<LocalPick> {
    let best = |models: &[LocalModel]| {
        models
            .iter()
            .filter(|m| !m.is_embedding)
            .max_by(|a, b| {
                (can_use_tools(a), a.size)
                    .partial_cmp(&(can_use_tools(b), b.size))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    // max_by keeps the later of two equals; counting equals as greater keeps
                    // the first listed.
                    .then(std::cmp::Ordering::Greater)
            })
            .cloned()
    };
    let embedding_of = |models: &[LocalModel]| models.iter().find(|m| m.is_embedding).cloned();
    if let Some(main) = best(&local.ollama.models) {
        return Some(LocalPick {
            primary: format!("ollama_chat/{}", main.name),
            embedding: embedding_of(&local.ollama.models).map(|m| format!("ollama/{}", m.name)),
            tools: can_use_tools(&main),
        });
    }
    let main = best(&local.lm_studio.models)?;
    Some(LocalPick {
        primary: format!("lm_studio/{}", main.name),
        embedding: embedding_of(&local.ollama.models)
            .map(|m| format!("ollama/{}", m.name))
            .or_else(|| {
                embedding_of(&local.lm_studio.models).map(|m| format!("lm_studio/{}", m.name))
            }),
        tools: can_use_tools(&main),
    })
}

/// `192.168.1.20:11434` and `http://host:11434/` alike become `http://host:11434`.
fn normalized(address: &str) -> Result<String, ModelError> {
    let address = address.trim();
    let with_scheme = if address.contains("://") {
        address.to_owned()
    } else {
        format!("http://{address}")
    };
    let with_scheme = with_scheme.trim_end_matches('/').to_owned();
    let bad = || {
        ModelError::Fields(vec![FieldError::new(
            &["body", "api_base"],
            "Write the address like http://192.168.1.20:11434.",
            "value_error",
        )])
    };
    let url = reqwest::Url::parse(&with_scheme).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(bad());
    }
    Ok(with_scheme)
}

/// A role's model the person can't be using right now: an Ollama model that isn't downloaded.
fn missing(model: &str, downloaded: &[String]) -> bool {
    is_ollama(model)
        && ModelRef::parse(model).is_ok_and(|m| {
            !downloaded
                .iter()
                .any(|d| super::checkup::same_ollama_name(d, &m.name))
        })
}

/// The plain name of a model: `qwen3:8b` for `ollama_chat/qwen3:8b`.
fn short(model: &str) -> &str {
    model.split_once('/').map_or(model, |(_, name)| name)
}

/// A role that followed the main model, as the check-up tells it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Followed {
    from: String,
    to: Option<String>,
}

impl ModelService {
    /// What Ollama has downloaded, or `None` when it doesn't answer (nothing can be told then).
    async fn downloaded_ollama(&self) -> Option<Vec<String>> {
        let tags = self.llm().ollama().get("/api/tags").await.ok()?;
        Some(
            tags["models"]
                .as_array()?
                .iter()
                .filter_map(|m| m["name"].as_str().map(str::to_owned))
                .collect(),
        )
    }

    /// The roles a new main model takes along: chat roles whose own Ollama model isn't
    /// downloaded use the main model from now on, and an embedding model that isn't downloaded
    /// gives way to one that is. Roles named in `changes` keep what the person chose.
    pub(super) async fn roles_to_follow(
        &self,
        changes: &BTreeMap<String, Option<String>>,
    ) -> Vec<RoleChange> {
        if !changes.contains_key(ModelRole::Primary.as_str()) {
            return Vec::new();
        }
        let Some(downloaded) = self.downloaded_ollama().await else {
            return Vec::new();
        };
        let config = self.config().current();
        let mut follow = Vec::new();
        for role in ModelRole::ALL {
            if role == ModelRole::Primary || changes.contains_key(role.as_str()) {
                continue;
            }
            let Some(own) = role.own_model(&config) else {
                continue;
            };
            if !missing(&own, &downloaded) {
                continue;
            }
            let to = if role == ModelRole::Embedding {
                // An embedding model can't follow a chat model; one that is downloaded can stand in.
                let Some(name) = downloaded.iter().find(|n| n.contains("embed")) else {
                    continue;
                };
                Some(format!("ollama/{name}"))
            } else {
                None
            };
            follow.push(RoleChange {
                role: role.as_str().to_owned(),
                from: Some(own),
                to,
            });
        }
        follow
    }

    /// Notes which roles followed (and forgets roles the person set by hand), so the check-up
    /// can say why a role changed. Best effort: the note is only ever informational.
    pub(super) async fn note_followed(
        &self,
        changes: &BTreeMap<String, Option<String>>,
        followed: &[RoleChange],
    ) {
        let mut notes: BTreeMap<String, Followed> = self
            .store()
            .meta_get(FOLLOWED_KEY)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        let before = notes.len();
        notes.retain(|role, _| !changes.contains_key(role));
        if followed.is_empty() && notes.len() == before {
            return; // nothing to note or forget: no write
        }
        for change in followed {
            if let Some(from) = &change.from {
                notes.insert(
                    change.role.clone(),
                    Followed {
                        from: from.clone(),
                        to: change.to.clone(),
                    },
                );
            }
        }
        if let Err(e) = self.store().meta_set(FOLLOWED_KEY, &notes).await {
            tracing::warn!("could not note the roles that followed the main model: {e}");
        }
    }

    /// The check-up's note for a role that followed the main model, while it still does.
    pub(super) async fn followed_check(
        &self,
        role: ModelRole,
        config: &crate::config::Config,
    ) -> Option<Check> {
        let notes: BTreeMap<String, Followed> =
            self.store().meta_get(FOLLOWED_KEY).await.ok().flatten()?;
        let note = notes.get(role.as_str())?;
        if role.own_model(config) != note.to {
            return None;
        }
        let detail = match &note.to {
            None => format!(
                "{} isn't downloaded, so this job uses the main model ({}) since you picked it.",
                short(&note.from),
                short(&config.models.primary)
            ),
            Some(to) => format!(
                "{} isn't downloaded, so {} does this job since you picked a main model.",
                short(&note.from),
                short(to)
            ),
        };
        Some(Check {
            id: "followed".to_owned(),
            label: "Follows the main model".to_owned(),
            status: CheckStatus::Skip,
            detail,
            fix: None,
            action: None,
        })
    }

    /// `PUT /api/models/local/address`: checks that Ollama (or LM Studio) answers at the
    /// address, then saves it and answers with what is downloaded there.
    pub async fn set_local_address(&self, req: LocalAddress) -> Result<LocalServer, ModelError> {
        let (label, default, providers): (&str, &str, &[&str]) = match req.provider.as_str() {
            "ollama" | "ollama_chat" => ("Ollama", OLLAMA_DEFAULT, &["ollama", "ollama_chat"]),
            "lm_studio" => ("LM Studio", LM_STUDIO_DEFAULT, &["lm_studio"]),
            other => {
                return Err(ModelError::Fields(vec![FieldError::new(
                    &["body", "provider"],
                    format!("{other} has no address to set. Use ollama or lm_studio."),
                    "value_error",
                )]));
            }
        };
        let address = match req.api_base.as_deref().map(str::trim) {
            None | Some("") => default.to_owned(),
            Some(a) => normalized(a)?,
        };
        let address = if label == "Ollama" {
            probe_ollama(&address).await?
        } else {
            probe_lm_studio(&address).await?
        };
        self.config()
            .update(|config| {
                for id in providers {
                    config
                        .models
                        .providers
                        .entry((*id).to_owned())
                        .or_default()
                        .api_base = Some(address.clone());
                }
            })
            .await?;
        let local = self.local_models().await;
        Ok(if label == "Ollama" {
            local.ollama
        } else {
            local.lm_studio
        })
    }
}

async fn get(url: &str) -> Result<reqwest::Response, reqwest::Error> {
    reqwest::Client::new()
        .get(url)
        .timeout(PROBE_TIMEOUT)
        .send()
        .await
}

fn unreachable(label: &str, address: &str) -> ModelError {
    ModelError::Unreachable(format!(
        "Nothing answered at {address}: check the address, and that {label} is running there and accepts connections from this computer."
    ))
}

fn not_it(label: &str, address: &str) -> ModelError {
    ModelError::Unreachable(format!(
        "Something answered at {address}, but it isn't {label}: check the address and its port."
    ))
}

/// Ollama answers `GET /api/tags` with its model list.
async fn probe_ollama(address: &str) -> Result<String, ModelError> {
    let response = get(&format!("{address}/api/tags"))
        .await
        .map_err(|_| unreachable("Ollama", address))?;
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if body["models"].is_array() {
        Ok(address.to_owned())
    } else {
        Err(not_it("Ollama", address))
    }
}

/// LM Studio's OpenAI-style server answers `GET <base>/models`; `/v1` is added when left out.
async fn probe_lm_studio(address: &str) -> Result<String, ModelError> {
    let mut candidates = vec![address.to_owned()];
    if !address.ends_with("/v1") {
        candidates.push(format!("{address}/v1"));
    }
    let mut answered = false;
    for base in candidates {
        if let Ok(response) = get(&format!("{base}/models")).await {
            answered = true;
            let body: Value = response.json().await.unwrap_or(Value::Null);
            if body["data"].is_array() {
                return Ok(base);
            }
        }
    }
    Err(if answered {
        not_it("LM Studio", address)
    } else {
        unreachable("LM Studio", address)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: &str, size: f64, caps: &[&str]) -> LocalModel {
        LocalModel {
            name: name.to_owned(),
            size,
            is_embedding: caps.contains(&"embedding"),
            capabilities: caps.iter().map(|c| (*c).to_owned()).collect(),
            ..Default::default()
        }
    }

    fn ollama(models: Vec<LocalModel>) -> LocalModels {
        LocalModels {
            ollama: LocalServer {
                reachable: true,
                models,
            },
            ..Default::default()
        }
    }

    #[test]
    fn a_model_that_uses_tools_wins_over_a_bigger_one_that_cannot() {
        let local = ollama(vec![
            model("llama2:13b", 9e9, &["completion"]),
            model("qwen3:4b", 2.5e9, &["completion", "tools"]),
            model("nomic-embed-text", 2.7e8, &["embedding"]),
        ]);
        assert_eq!(
            pick_local(&local),
            Some(LocalPick {
                primary: "ollama_chat/qwen3:4b".to_owned(),
                embedding: Some("ollama/nomic-embed-text".to_owned()),
                tools: true,
            })
        );
    }

    #[test]
    fn without_a_tool_model_the_bigger_one_and_no_embedding() {
        let local = ollama(vec![
            model("gemma:2b", 1.6e9, &["completion"]),
            model("llama2:13b", 9e9, &["completion"]),
        ]);
        let pick = pick_local(&local).expect("a pick");
        assert_eq!(pick.primary, "ollama_chat/llama2:13b");
        assert_eq!((pick.embedding, pick.tools), (None, false));
    }

    #[test]
    fn lm_studio_when_ollama_has_nothing_and_nothing_when_neither_has() {
        let mut local = ollama(vec![model("nomic-embed-text", 2.7e8, &["embedding"])]);
        assert_eq!(pick_local(&local), None);
        local.lm_studio = LocalServer {
            reachable: true,
            models: vec![model("qwen2.5-7b-instruct", 0.0, &[])],
        };
        let pick = pick_local(&local).expect("a pick");
        assert_eq!(pick.primary, "lm_studio/qwen2.5-7b-instruct");
        assert_eq!(pick.embedding.as_deref(), Some("ollama/nomic-embed-text"));
    }

    #[test]
    fn addresses_get_a_scheme_and_lose_the_trailing_slash() {
        assert_eq!(
            normalized("192.168.1.20:11434/").ok().as_deref(),
            Some("http://192.168.1.20:11434")
        );
        assert_eq!(
            normalized(" https://box.lan:8080 ").ok().as_deref(),
            Some("https://box.lan:8080")
        );
        assert!(normalized("ftp://box").is_err());
        assert!(normalized("http://").is_err());
    }

    #[test]
    fn only_ollama_models_that_are_not_downloaded_are_missing() {
        let downloaded = vec!["qwen3:8b".to_owned(), "nomic-embed-text:latest".to_owned()];
        assert!(!missing("ollama/nomic-embed-text", &downloaded));
        assert!(!missing("ollama_chat/qwen3:8b", &downloaded));
        assert!(missing("ollama_chat/qwen3:14b", &downloaded));
        assert!(!missing("anthropic/claude-haiku-4-5", &downloaded));
    }
}
