//! Settings > Models: providers and keys, local models, a test call per model, roles and
//! fallbacks, what the local model is busy with, this computer's hardware, model presets, and
//! the two long jobs whose progress streams through a channel (one message per NDJSON line of
//! the HTTP route): Ollama downloads and the check-up.

use std::collections::BTreeMap;

use futures::StreamExt;
use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::llm::queue::ModelBusy;
use sentient_engine::models::checkup::{CheckupLine, CheckupRequest};
use sentient_engine::models::local::LocalAddress;
use sentient_engine::models::presets::{
    Preset, PresetList, PresetSwitch, RenamePresetRequest, SavePresetRequest,
};
use sentient_engine::models::{
    EmbeddingTestRequest, EmbeddingTestResult, LocalModels, LocalServer, ProviderView,
    PullProgress, PullRequest, Roles, TestRequest, TestResult,
};
use sentient_engine::secrets::{SecretInfo, SecretValue, StoreChanged, StoreChoice, StoreStatus};
use sentient_engine::system::Hardware;
use tauri::State;
use tauri::ipc::Channel;

#[tauri::command]
#[specta::specta]
pub async fn model_providers(engine: State<'_, Engine>) -> Result<Vec<ProviderView>, ApiError> {
    Ok(engine.services().models().model_providers().await)
}

#[tauri::command]
#[specta::specta]
pub async fn local_models(engine: State<'_, Engine>) -> Result<LocalModels, ApiError> {
    Ok(engine.services().models().local_models().await)
}

/// Ollama's or LM Studio's address, saved once something answers there as that server.
#[tauri::command]
#[specta::specta]
pub async fn set_local_address(
    engine: State<'_, Engine>,
    body: LocalAddress,
) -> Result<LocalServer, ApiError> {
    engine
        .services()
        .models()
        .set_local_address(body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn test_model(
    engine: State<'_, Engine>,
    body: TestRequest,
) -> Result<TestResult, ApiError> {
    engine
        .services()
        .models()
        .test_model(body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn test_embedding(
    engine: State<'_, Engine>,
    body: EmbeddingTestRequest,
) -> Result<EmbeddingTestResult, ApiError> {
    engine
        .services()
        .models()
        .test_embedding(body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn get_roles(engine: State<'_, Engine>) -> Result<Roles, ApiError> {
    Ok(engine.services().models().roles())
}

/// The roles named in `roles` (null = use the main model); the others keep their model.
#[tauri::command]
#[specta::specta]
pub async fn set_roles(
    engine: State<'_, Engine>,
    roles: BTreeMap<String, Option<String>>,
) -> Result<Roles, ApiError> {
    engine
        .services()
        .models()
        .set_roles(roles)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn set_fallbacks(
    engine: State<'_, Engine>,
    fallbacks: BTreeMap<String, Vec<String>>,
) -> Result<OkReply, ApiError> {
    engine.services().models().set_fallbacks(fallbacks).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn model_busy(engine: State<'_, Engine>) -> Result<ModelBusy, ApiError> {
    Ok(engine.services().llm().queue().busy())
}

#[tauri::command]
#[specta::specta]
pub async fn hardware(
    engine: State<'_, Engine>,
    refresh: Option<bool>,
) -> Result<Hardware, ApiError> {
    Ok(engine
        .services()
        .hardware()
        .get(refresh.unwrap_or(false))
        .await)
}

/// Downloads a model into Ollama, sending each progress line through `on_progress`; returns once
/// the download has finished or failed (a failure after the start arrives as a line with `error`).
#[tauri::command]
#[specta::specta]
pub async fn pull_model(
    engine: State<'_, Engine>,
    body: PullRequest,
    on_progress: Channel<PullProgress>,
) -> Result<(), ApiError> {
    let mut lines = std::pin::pin!(engine.services().models().pull_model(&body.name).await?);
    while let Some(line) = lines.next().await {
        if on_progress.send(line).is_err() {
            // The window went away; nobody is listening to the rest.
            break;
        }
    }
    Ok(())
}

#[tauri::command]
#[specta::specta]
pub async fn list_secrets(engine: State<'_, Engine>) -> Result<Vec<SecretInfo>, ApiError> {
    Ok(engine.services().secrets().list().await)
}

/// Saves a key in the keychain; it is never sent back.
#[tauri::command]
#[specta::specta]
pub async fn set_secret(
    engine: State<'_, Engine>,
    name: String,
    body: SecretValue,
) -> Result<OkReply, ApiError> {
    engine.services().secrets().put(&name, &body.value).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn delete_secret(engine: State<'_, Engine>, name: String) -> Result<OkReply, ApiError> {
    engine.services().secrets().delete(&name).await?;
    Ok(OkReply::yes())
}

/// Where keys are kept and whether the keychain works now (asked again each time).
#[tauri::command]
#[specta::specta]
pub async fn secrets_store(engine: State<'_, Engine>) -> Result<StoreStatus, ApiError> {
    Ok(engine.services().secrets().store_status().await)
}

/// Chooses the private file (no keychain) or moves the keys into a keychain that appeared.
#[tauri::command]
#[specta::specta]
pub async fn choose_secrets_store(
    engine: State<'_, Engine>,
    body: StoreChoice,
) -> Result<StoreChanged, ApiError> {
    Ok(engine.services().secrets().choose_store(body.store).await?)
}

/// Every model setup, built-ins first, with the active one and whether a switch can be undone.
#[tauri::command]
#[specta::specta]
pub async fn model_presets(engine: State<'_, Engine>) -> Result<PresetList, ApiError> {
    engine
        .services()
        .models()
        .model_presets()
        .await
        .map_err(ApiError::from)
}

/// Switches every role to a setup in one save, and says what its models still need.
#[tauri::command]
#[specta::specta]
pub async fn apply_model_preset(
    engine: State<'_, Engine>,
    name: String,
) -> Result<PresetSwitch, ApiError> {
    engine
        .services()
        .models()
        .apply_model_preset(&name)
        .await
        .map_err(ApiError::from)
}

/// Puts back the setup from before the last switch (one step only).
#[tauri::command]
#[specta::specta]
pub async fn undo_model_preset(engine: State<'_, Engine>) -> Result<PresetSwitch, ApiError> {
    engine
        .services()
        .models()
        .undo_model_preset()
        .await
        .map_err(ApiError::from)
}

/// Saves the current roles, fallbacks, reasoning and context lengths as a setup.
#[tauri::command]
#[specta::specta]
pub async fn save_model_preset(
    engine: State<'_, Engine>,
    body: SavePresetRequest,
) -> Result<Preset, ApiError> {
    engine
        .services()
        .models()
        .save_model_preset(body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn rename_model_preset(
    engine: State<'_, Engine>,
    name: String,
    body: RenamePresetRequest,
) -> Result<Preset, ApiError> {
    engine
        .services()
        .models()
        .rename_model_preset(&name, body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_model_preset(
    engine: State<'_, Engine>,
    name: String,
) -> Result<OkReply, ApiError> {
    engine
        .services()
        .models()
        .delete_model_preset(&name)
        .await?;
    Ok(OkReply::yes())
}

/// Tries each role's model, one role at a time, sending each line (`start`, `step`s, a `role`
/// per role, then `done`) through `on_line`; returns once it is done. It changes no settings.
#[tauri::command]
#[specta::specta]
pub async fn model_checkup(
    engine: State<'_, Engine>,
    body: CheckupRequest,
    on_line: Channel<CheckupLine>,
) -> Result<(), ApiError> {
    let mut lines = std::pin::pin!(engine.services().models().checkup(body).await?);
    while let Some(line) = lines.next().await {
        if on_line.send(line).is_err() {
            // The window went away: dropping the stream stops the check-up.
            break;
        }
    }
    Ok(())
}

#[tauri::command]
#[specta::specta]
pub async fn check_provider_key(
    engine: State<'_, Engine>,
    provider: String,
) -> Result<sentient_engine::llm::catalog::KeyCheck, ApiError> {
    engine
        .services()
        .models()
        .check_key(&provider)
        .await
        .ok_or_else(|| ApiError::not_found(format!("Sentient can't check keys for {provider}.")))
}

#[tauri::command]
#[specta::specta]
pub async fn model_catalog(
    engine: State<'_, Engine>,
    provider: String,
) -> Result<Vec<sentient_engine::llm::catalog::CatalogModel>, ApiError> {
    use sentient_engine::llm::catalog::CatalogError;
    engine
        .services()
        .models()
        .catalog(&provider)
        .await
        .map_err(|error| match error {
            CatalogError::Unknown(_) => ApiError::not_found(error.to_string()),
            CatalogError::Unavailable(_) => ApiError::new(502, error.to_string()),
        })
}

#[tauri::command]
#[specta::specta]
pub async fn connect_openrouter(
    engine: State<'_, Engine>,
) -> Result<sentient_engine::models::connect::ConnectStart, ApiError> {
    engine
        .services()
        .plan_sign_ins()
        .start_openrouter()
        .await
        .map_err(|e| ApiError::conflict(e.to_string()))
}

#[tauri::command]
#[specta::specta]
pub async fn openrouter_sign_in_status(
    engine: State<'_, Engine>,
    state: String,
) -> Result<sentient_engine::models::connect::ConnectStatus, ApiError> {
    engine
        .services()
        .plan_sign_ins()
        .status(&state)
        .ok_or_else(|| ApiError::not_found("There is no OpenRouter sign-in with that id."))
}
