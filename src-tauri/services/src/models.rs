//! Settings > Models behind the routes: the providers and their key state, the models installed
//! locally, a test call per model, roles and fallbacks, and Ollama downloads.

pub mod checkup;
pub mod connect;
pub mod local;
pub mod presets;

use std::collections::BTreeMap;
use std::time::Instant;

use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::{ConfigError, ConfigService};
use crate::error::{ApiError, FieldError};
use crate::llm::queue::JobKind;
use crate::llm::{
    CallOptions, ChatRequest, LlmError, Message, ModelRef, ModelRole, PROVIDERS, ToolSpec,
    WireFormat,
};
use crate::stop::StopService;
use crate::store::Store;
use crate::system::HardwareCache;
use tokio_util::sync::CancellationToken;

/// A provider as Settings shows it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ProviderView {
    pub id: String,
    pub label: String,
    /// "cloud" or "local".
    pub kind: String,
    pub key_required: bool,
    pub key_set: bool,
    pub api_base: Option<String>,
    pub docs_url: String,
    pub suggested: Vec<String>,
    pub sign_in: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LocalModel {
    pub name: String,
    pub size: f64,
    pub family: Option<String>,
    pub parameter_size: Option<String>,
    pub is_embedding: bool,
    pub capabilities: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LocalServer {
    pub reachable: bool,
    pub models: Vec<LocalModel>,
}

/// `GET /api/models/local`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LocalModels {
    pub ollama: LocalServer,
    pub lm_studio: LocalServer,
    /// Beyond the contract: what onboarding's one click sets from the models already
    /// downloaded; null when nothing that can chat is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<local::LocalPick>,
}

#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct TestRequest {
    pub model: String,
    #[serde(default)]
    pub role: Option<String>,
}

/// `POST /api/models/test`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TestResult {
    pub ok: bool,
    pub latency_ms: u32,
    pub reply: Option<String>,
    pub error: Option<String>,
    pub supports_tools: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct EmbeddingTestRequest {
    pub model: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct EmbeddingTestResult {
    pub ok: bool,
    pub dim: Option<u32>,
    pub error: Option<String>,
}

/// The model of every role (`null` = uses the main model).
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Roles {
    pub primary: String,
    pub fast: Option<String>,
    pub planner: Option<String>,
    pub executor: Option<String>,
    pub embedding: Option<String>,
    pub vision: Option<String>,
    pub voice: Option<String>,
    /// Beyond the contract, on `PUT /api/models/roles`: the roles that followed a new main
    /// model because their own model isn't downloaded (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub followed: Vec<presets::RoleChange>,
}

#[derive(Debug, Clone, Deserialize, Serialize, specta::Type, utoipa::ToSchema)]
pub struct PullRequest {
    pub name: String,
}

/// One line of `POST /api/models/ollama/pull`.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PullProgress {
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The one tool a test call offers; a model that calls it supports tools.
fn find_city_tool() -> ToolSpec {
    ToolSpec {
        name: "find_city".to_owned(),
        description: "Look up a city by name and return its country.".to_owned(),
        parameters: json!({"type": "object", "properties": {"name": {"type": "string", "description": "The city's name"}}, "required": ["name"]}),
    }
}

/// What can go wrong behind Settings > Models, in the service's own words; the doors answer
/// with `From<ModelError> for ApiError`.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Fields of the request that do not fit (a model name that can't be read, a role that
    /// does not exist), each with its sentence.
    #[error("{}", crate::error::fields_sentence(.0))]
    Fields(Vec<FieldError>),
    #[error("{0} is not a role. Use primary, fast, planner, executor, embedding, vision or voice.")]
    UnknownRole(String),
    /// A local model server's address that doesn't answer as that server.
    #[error("{0}")]
    Unreachable(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Model(#[from] LlmError),
}

impl From<ModelError> for ApiError {
    fn from(error: ModelError) -> Self {
        match error {
            ModelError::Fields(fields) => ApiError::validation(fields),
            ModelError::UnknownRole(_) | ModelError::Unreachable(_) => {
                ApiError::bad_request(error.to_string())
            }
            ModelError::Config(e) => e.into(),
            ModelError::Model(e) => e.into(),
        }
    }
}

/// Settings > Models as a service: providers, local models, tests, roles, downloads, the model
/// setups (`presets.rs`) and the check-up (`checkup.rs`).
#[derive(Clone)]
pub struct ModelService {
    config: ConfigService,
    llm: crate::llm::LlmService,
    /// Key checks and the providers' model lists (section 3, "Connecting plans").
    catalogs: std::sync::Arc<crate::llm::catalog::ProviderCatalogs>,
    hardware: std::sync::Arc<HardwareCache>,
    store: Store,
    stop: StopService,
    shutdown: CancellationToken,
}

impl ModelService {
    pub fn new(
        config: ConfigService,
        llm: crate::llm::LlmService,
        hardware: std::sync::Arc<HardwareCache>,
        store: Store,
        stop: StopService,
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            config,
            catalogs: std::sync::Arc::new(crate::llm::catalog::ProviderCatalogs::new(llm.clone())),
            llm,
            hardware,
            store,
            stop,
            shutdown,
        }
    }
    fn config(&self) -> &ConfigService {
        &self.config
    }
    fn llm(&self) -> &crate::llm::LlmService {
        &self.llm
    }
    fn hardware(&self) -> &HardwareCache {
        &self.hardware
    }
    fn store(&self) -> &Store {
        &self.store
    }
    fn stop(&self) -> &StopService {
        &self.stop
    }
    fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// `POST /api/models/connect/{provider}/check`: `None` for a provider without a check.
    pub async fn check_key(&self, provider: &str) -> Option<crate::llm::catalog::KeyCheck> {
        self.catalogs.check(provider).await
    }

    /// `GET /api/models/catalog/{provider}`.
    pub async fn catalog(
        &self,
        provider: &str,
    ) -> Result<Vec<crate::llm::catalog::CatalogModel>, crate::llm::catalog::CatalogError> {
        self.catalogs.catalog(provider).await
    }
}

fn checked_model(model: &str, field: &str) -> Result<ModelRef, ModelError> {
    ModelRef::parse(model).map_err(|e| {
        ModelError::Fields(vec![FieldError::new(
            &["body", field],
            e.to_string(),
            "value_error",
        )])
    })
}

impl ModelService {
    /// `GET /api/models/providers`.
    pub async fn model_providers(&self) -> Vec<ProviderView> {
        let mut out = Vec::new();
        for p in PROVIDERS {
            let key_required = !p.local;
            let key_set = key_required && self.llm().has_key(p.id).await;
            out.push(ProviderView {
                id: p.id.to_owned(),
                label: p.label.to_owned(),
                kind: if p.local { "local" } else { "cloud" }.to_owned(),
                key_required,
                key_set,
                api_base: self.llm().base_for(p.id),
                docs_url: p.docs_url.to_owned(),
                suggested: p.suggested.iter().map(|s| (*s).to_owned()).collect(),
                sign_in: false,
            });
        }
        out
    }

    /// `GET /api/models/local`: what Ollama and LM Studio have installed; never fails.
    pub async fn local_models(&self) -> LocalModels {
        let admin = self.llm().ollama();
        let ollama = match admin.get("/api/tags").await {
            Ok(tags) => {
                let listed = tags["models"].as_array().cloned().unwrap_or_default();
                // The list has no capabilities; each model's /api/show does.
                let shown = futures::future::join_all(
                    listed
                        .iter()
                        .map(|m| admin.show(m["name"].as_str().unwrap_or_default())),
                )
                .await;
                LocalServer {
                    reachable: true,
                    models: listed
                        .iter()
                        .zip(shown)
                        .map(|(m, show)| ollama_model(m, show.ok().as_ref()))
                        .collect(),
                }
            }
            Err(_) => LocalServer::default(),
        };
        let lm_base = self
            .llm()
            .base_for("lm_studio")
            .unwrap_or_else(|| "http://localhost:1234/v1".to_owned());
        let lm_studio = match reqwest::Client::new()
            .get(format!("{}/models", lm_base.trim_end_matches('/')))
            .timeout(std::time::Duration::from_secs(2))
            .send()
            .await
        {
            Ok(r) if r.status().is_success() => {
                let v: Value = r.json().await.unwrap_or(Value::Null);
                LocalServer {
                    reachable: true,
                    models: v["data"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|m| m["id"].as_str())
                        .map(|id| LocalModel {
                            name: id.to_owned(),
                            is_embedding: id.contains("embed"),
                            ..Default::default()
                        })
                        .collect(),
                }
            }
            _ => LocalServer::default(),
        };
        let mut local = LocalModels {
            ollama,
            lm_studio,
            pick: None,
        };
        local.pick = local::pick_local(&local);
        local
    }

    /// `POST /api/models/test`: one short call with a tool offered.
    pub async fn test_model(&self, req: TestRequest) -> Result<TestResult, ModelError> {
        checked_model(&req.model, "model")?;
        let role = match req.role.as_deref() {
            Some(r) => ModelRole::parse(r).ok_or_else(|| {
                ModelError::Fields(vec![FieldError::new(&["body", "role"], format!("{r} is not a role. Use primary, fast, planner, executor, embedding, vision or voice."), "value_error")])
            })?,
            None => ModelRole::Primary,
        };
        let call = ChatRequest {
            messages: vec![
                Message::system("You are being tested. Follow the instruction exactly."),
                Message::user("Use the find_city tool to look up Pune. Do not answer in text."),
            ],
            tools: vec![find_city_tool()],
            max_tokens: Some(256),
            ..Default::default()
        };
        let opts = CallOptions::new(role, "test", JobKind::Interactive)
            .with_model(Some(req.model.clone()));
        let started = Instant::now();
        let outcome = self.llm().complete(call, &opts).await;
        let latency_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        Ok(match outcome {
            Ok(outcome) => TestResult {
                ok: true,
                latency_ms,
                supports_tools: Some(
                    outcome
                        .reply
                        .tool_calls
                        .iter()
                        .any(|c| c.name == "find_city"),
                ),
                reply: Some(if outcome.reply.text.trim().is_empty() {
                    outcome
                        .reply
                        .tool_calls
                        .first()
                        .map(|c| format!("Called {} with {}", c.name, c.arguments))
                        .unwrap_or_default()
                } else {
                    outcome.reply.text.trim().to_owned()
                }),
                error: None,
            },
            Err(error) => TestResult {
                ok: false,
                latency_ms,
                error: Some(error.to_string()),
                ..Default::default()
            },
        })
    }

    /// `POST /api/models/test-embedding`.
    pub async fn test_embedding(
        &self,
        req: EmbeddingTestRequest,
    ) -> Result<EmbeddingTestResult, ModelError> {
        checked_model(&req.model, "model")?;
        let opts = CallOptions::new(ModelRole::Embedding, "test", JobKind::Interactive)
            .with_model(Some(req.model));
        Ok(
            match self
                .llm()
                .embed(
                    vec!["Sentient checks that embeddings work.".to_owned()],
                    &opts,
                )
                .await
            {
                Ok((_, vectors)) => EmbeddingTestResult {
                    ok: true,
                    dim: vectors
                        .first()
                        .map(|v| u32::try_from(v.len()).unwrap_or(u32::MAX)),
                    error: None,
                },
                Err(error) => EmbeddingTestResult {
                    ok: false,
                    dim: None,
                    error: Some(error.to_string()),
                },
            },
        )
    }

    /// The roles as saved.
    pub fn roles(&self) -> Roles {
        let c = self.config().current();
        let m = &c.models;
        Roles {
            primary: m.primary.clone(),
            fast: m.fast.clone(),
            planner: m.planner.clone(),
            executor: m.executor.clone(),
            embedding: m.embedding.clone(),
            vision: m.vision.clone(),
            voice: m.voice.clone(),
            followed: Vec::new(),
        }
    }

    /// `PUT /api/models/roles`: the roles named in `changes` (null = use the main model).
    pub async fn set_roles(
        &self,
        changes: BTreeMap<String, Option<String>>,
    ) -> Result<Roles, ModelError> {
        let mut problems = Vec::new();
        for (role, model) in &changes {
            match ModelRole::parse(role) {
                None => problems.push(FieldError::new(&["body", role], format!("{role} is not a role. Use primary, fast, planner, executor, embedding, vision or voice."), "value_error")),
                Some(ModelRole::Primary) if model.as_deref().is_none_or(|m| m.trim().is_empty()) => {
                    problems.push(FieldError::new(&["body", "primary"], "The main model can't be empty.", "value_error"));
                }
                Some(_) => {
                    if let Some(m) = model.as_deref().filter(|m| !m.trim().is_empty())
                        && let Err(e) = ModelRef::parse(m)
                    {
                        problems.push(FieldError::new(&["body", role], e.to_string(), "value_error"));
                    }
                }
            }
        }
        if !problems.is_empty() {
            return Err(ModelError::Fields(problems));
        }
        // A new main model takes along the roles whose own model isn't downloaded.
        let followed = self.roles_to_follow(&changes).await;
        let mut all = changes.clone();
        for f in &followed {
            all.insert(f.role.clone(), f.to.clone());
        }
        self.config()
            .update(|config| {
                let m = &mut config.models;
                for (role, model) in all {
                    let model = model.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
                    match ModelRole::parse(&role) {
                        Some(ModelRole::Primary) => m.primary = model.unwrap_or_default(),
                        Some(ModelRole::Fast) => m.fast = model,
                        Some(ModelRole::Planner) => m.planner = model,
                        Some(ModelRole::Executor) => m.executor = model,
                        Some(ModelRole::Embedding) => m.embedding = model,
                        Some(ModelRole::Vision) => m.vision = model,
                        Some(ModelRole::Voice) => m.voice = model,
                        None => {}
                    }
                }
            })
            .await?;
        self.note_followed(&changes, &followed).await;
        Ok(Roles {
            followed,
            ..self.roles()
        })
    }

    /// `PUT /api/models/fallbacks`: replaces each named role's fallback list.
    pub async fn set_fallbacks(
        &self,
        fallbacks: BTreeMap<String, Vec<String>>,
    ) -> Result<(), ModelError> {
        let mut problems = Vec::new();
        for (role, models) in &fallbacks {
            if ModelRole::parse(role).is_none() {
                problems.push(FieldError::new(
                    &["body", role],
                    format!("{role} is not a role."),
                    "value_error",
                ));
            }
            for (i, m) in models.iter().enumerate() {
                if let Err(e) = ModelRef::parse(m) {
                    let index = i.to_string();
                    problems.push(FieldError::new(
                        &["body", role, &index],
                        e.to_string(),
                        "value_error",
                    ));
                }
            }
        }
        if !problems.is_empty() {
            return Err(ModelError::Fields(problems));
        }
        self.config()
            .update(|config| {
                for (role, models) in fallbacks {
                    if models.is_empty() {
                        config.models.fallbacks.remove(&role);
                    } else {
                        config.models.fallbacks.insert(role, models);
                    }
                }
            })
            .await?;
        Ok(())
    }

    /// `POST /api/models/ollama/pull`: Ollama's download progress as it comes. Errors after
    /// the start arrive as a final line with `error`.
    pub async fn pull_model(
        &self,
        name: &str,
    ) -> Result<impl Stream<Item = PullProgress> + Send + 'static, ModelError> {
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(ModelError::Fields(vec![FieldError::new(
                &["body", "name"],
                "Name the model to download, for example qwen3:8b.",
                "value_error",
            )]));
        }
        let lines = self.llm().ollama().pull(name).await?;
        Ok(lines.map(|line| match line {
            Ok(line) => match serde_json::from_str::<Value>(&line) {
                Ok(v) if v.get("error").is_some() => PullProgress {
                    status: "error".to_owned(),
                    completed: None,
                    total: None,
                    error: Some(format!(
                        "Ollama could not download it: {}",
                        v["error"].as_str().unwrap_or("unknown error")
                    )),
                },
                Ok(v) => PullProgress {
                    status: v["status"].as_str().unwrap_or_default().to_owned(),
                    completed: v["completed"].as_f64(),
                    total: v["total"].as_f64(),
                    error: None,
                },
                Err(_) => PullProgress {
                    status: "error".to_owned(),
                    completed: None,
                    total: None,
                    error: Some(
                        LlmError::Garbled {
                            provider: "ollama".to_owned(),
                        }
                        .to_string(),
                    ),
                },
            },
            Err(e) => PullProgress {
                status: "error".to_owned(),
                completed: None,
                total: None,
                error: Some(e.to_string()),
            },
        }))
    }
}

fn ollama_model(m: &Value, show: Option<&Value>) -> LocalModel {
    let name = m["name"].as_str().unwrap_or_default().to_owned();
    let family = m["details"]["family"].as_str().map(str::to_owned);
    let is_embedding =
        name.contains("embed") || family.as_deref().is_some_and(|f| f.contains("bert"));
    LocalModel {
        size: m["size"].as_f64().unwrap_or(0.0),
        family,
        parameter_size: m["details"]["parameter_size"].as_str().map(str::to_owned),
        is_embedding,
        capabilities: show
            .and_then(|s| s["capabilities"].as_array())
            .or_else(|| m["capabilities"].as_array())
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_else(|| {
                if is_embedding {
                    vec!["embedding".to_owned()]
                } else {
                    Vec::new()
                }
            }),
        name,
    }
}

/// Whether `model` runs through Ollama (for the queue and the Ollama checks).
pub fn is_ollama(model: &str) -> bool {
    ModelRef::parse(model).is_ok_and(|m| m.provider.format == WireFormat::Ollama)
}
