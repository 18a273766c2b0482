//! Connecting OpenRouter by signing in (contract section 3, "Connecting plans"): OAuth with PKCE
//! (S256) on the apps' shared loopback listener, the `state` routing the browser's return, the
//! code swapped for a key that goes to the keychain under `openrouter`. Each sign-in's progress
//! is kept for `GET /api/models/connect/openrouter/{state}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use sentient_core::secrets::SecretsService;
use sentient_core::sync::MutexExt;
use sentient_integrations::IntegrationService;
use sentient_integrations::error::IntegrationError;
use sentient_integrations::oauth::{Pending, SignIns};

/// `POST /api/models/connect/openrouter`: where to send the person, and the sign-in's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ConnectStart {
    pub auth_url: String,
    pub state: String,
}

/// A sign-in's progress: `waiting` (for the browser), `exchanging` (the code for a key),
/// `connected` or `failed` with a plain `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ConnectStatus {
    pub status: String,
    pub error: Option<String>,
}

impl ConnectStatus {
    fn at(status: &str) -> Self {
        Self {
            status: status.to_owned(),
            error: None,
        }
    }
}

/// Why a sign-in could not start.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConnectError(pub String);

/// The plan sign-ins: what each `state` stands for and how far it got.
pub struct PlanSignIns {
    integrations: IntegrationService,
    secrets: SecretsService,
    /// By the listener's app name (`plan:openrouter:<id>`): its state and progress.
    sign_ins: Mutex<HashMap<String, (String, ConnectStatus)>>,
}

impl std::fmt::Debug for PlanSignIns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanSignIns").finish_non_exhaustive()
    }
}

impl PlanSignIns {
    /// Made once; the apps' listener hands `plan:` returns to it.
    pub fn start(integrations: IntegrationService, secrets: SecretsService) -> Arc<Self> {
        let this = Arc::new(Self {
            integrations: integrations.clone(),
            secrets,
            sign_ins: Mutex::new(HashMap::new()),
        });
        let handler: Arc<dyn SignIns> = this.clone();
        integrations.set_plan_sign_ins(Arc::downgrade(&handler));
        this
    }

    fn set(&self, app: &str, status: ConnectStatus) {
        if let Some(entry) = self.sign_ins.lock_unpoisoned().get_mut(app) {
            entry.1 = status;
        }
    }

    /// Starts an OpenRouter sign-in: the page to open and its `state`.
    pub async fn start_openrouter(&self) -> Result<ConnectStart, ConnectError> {
        let app = format!("plan:openrouter:{}", sentient_core::store::new_id());
        let (callback, state, pkce) = self
            .integrations
            .begin_plan_sign_in(&app)
            .await
            .map_err(|e| ConnectError(e.to_string()))?;
        let endpoints = self.integrations.apps().endpoints();
        let mut url = reqwest::Url::parse(&endpoints.openrouter_auth).map_err(|e| {
            ConnectError(format!("OpenRouter's sign-in address is not valid ({e})."))
        })?;
        url.query_pairs_mut()
            .append_pair("callback_url", &callback)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256");
        self.sign_ins
            .lock_unpoisoned()
            .insert(app, (state.clone(), ConnectStatus::at("waiting")));
        Ok(ConnectStart {
            auth_url: url.to_string(),
            state,
        })
    }

    /// A sign-in's progress by its `state`; `None` for one this engine never started.
    pub fn status(&self, state: &str) -> Option<ConnectStatus> {
        self.sign_ins
            .lock_unpoisoned()
            .values()
            .find(|(s, _)| s == state)
            .map(|(_, status)| status.clone())
    }

    /// Swaps the code for a key with the verifier only this sign-in knows.
    async fn exchange(&self, pending: &Pending, code: &str) -> Result<String, String> {
        let endpoint = self.integrations.apps().endpoints().openrouter_keys.clone();
        // Made here, not at start: a client reads the system's certificates when it is built.
        let response = reqwest::Client::new()
            .post(&endpoint)
            .json(&json!({"code": code, "code_verifier": pending.verifier, "code_challenge_method": "S256"}))
            .timeout(std::time::Duration::from_secs(30))
            .send()
            .await
            .map_err(|_| "Sentient couldn't reach OpenRouter to finish the sign-in. Check your internet connection and connect again.".to_owned())?;
        if !response.status().is_success() {
            return Err(format!(
                "OpenRouter didn't accept the sign-in (HTTP {}). Connect again.",
                response.status().as_u16()
            ));
        }
        let body: Value = response.json().await.map_err(|_| {
            "OpenRouter sent an answer Sentient couldn't read. Connect again.".to_owned()
        })?;
        body["key"]
            .as_str()
            .filter(|k| !k.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| "OpenRouter sent no key. Connect again.".to_owned())
    }
}

impl SignIns for PlanSignIns {
    fn finish<'a>(
        &'a self,
        pending: &'a Pending,
        code: &'a str,
    ) -> BoxFuture<'a, Result<(), IntegrationError>> {
        Box::pin(async move {
            let app = pending.app.as_str();
            self.set(app, ConnectStatus::at("exchanging"));
            let key = self
                .exchange(pending, code)
                .await
                .map_err(IntegrationError::Invalid)?;
            // Saving announces `config.updated {sections: ["secrets"]}`.
            self.secrets
                .put("openrouter", &key)
                .await
                .map_err(|e| IntegrationError::Invalid(e.to_string()))?;
            self.set(app, ConnectStatus::at("connected"));
            tracing::info!("OpenRouter connected by signing in");
            Ok(())
        })
    }

    fn failed<'a>(&'a self, app: &'a str, text: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            self.set(
                app,
                ConnectStatus {
                    status: "failed".to_owned(),
                    error: Some(text.to_owned()),
                },
            );
        })
    }

    fn cancelled<'a>(&'a self, app: &'a str) -> BoxFuture<'a, ()> {
        self.failed(app, "The sign-in was cancelled. Nothing was changed.")
    }
}
