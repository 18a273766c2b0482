//! Health, bootstrap and onboarding.

use sentient_engine::bootstrap::Bootstrap;
use sentient_engine::error::ApiError;
use sentient_engine::onboarding::{OnboardingDone, OnboardingRequest};
use sentient_engine::{Engine, Health};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn health(engine: State<'_, Engine>) -> Result<Health, ApiError> {
    Ok(engine.services().health())
}

#[tauri::command]
#[specta::specta]
pub async fn bootstrap(engine: State<'_, Engine>) -> Result<Bootstrap, ApiError> {
    engine.services().bootstrap().await
}

#[tauri::command]
#[specta::specta]
pub async fn onboarding(
    engine: State<'_, Engine>,
    body: OnboardingRequest,
) -> Result<OnboardingDone, ApiError> {
    sentient_engine::onboarding::complete(
        engine.services().config(),
        engine.services().home(),
        engine.services().memory(),
        body,
    )
    .await
    .map_err(ApiError::from)
}
