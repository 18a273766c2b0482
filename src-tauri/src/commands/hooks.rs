//! Webhooks from the window: list, make (the secret is in this answer only), delete; the same
//! service calls as `/api/hooks` (contract section 16). Addresses are the engine's own
//! loopback address, as the gateway gives them to requests without a loopback Host.

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::error::ApiError;
use sentient_engine::hooks::{CreatedHook, Hook, NewHook};
use tauri::State;

#[tauri::command]
#[specta::specta]
pub async fn list_hooks(engine: State<'_, Engine>) -> Result<Vec<Hook>, ApiError> {
    Ok(engine
        .services()
        .hooks()
        .list(&engine.services().url())
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn create_hook(
    engine: State<'_, Engine>,
    body: NewHook,
) -> Result<CreatedHook, ApiError> {
    Ok(engine
        .services()
        .hooks()
        .create_hook(&body.name, &engine.services().url())
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_hook(engine: State<'_, Engine>, id: String) -> Result<OkReply, ApiError> {
    engine
        .services()
        .hooks()
        .delete_hook(&id, &engine.services().url())
        .await?;
    Ok(OkReply::yes())
}

#[cfg(test)]
mod tests {
    use crate::test_support::engine_and_app;

    #[test]
    fn hooks_are_made_listed_and_deleted_through_the_engine() {
        let (_home, engine, _app) = engine_and_app();
        tauri::async_runtime::block_on(async {
            let made = engine
                .services()
                .hooks()
                .store()
                .create("CI", &engine.services().url())
                .await
                .expect("create");
            assert!(made.url.starts_with(&engine.services().url()));
            assert!(!made.secret.is_empty());
            let listed = engine
                .services()
                .hooks()
                .list(&engine.services().url())
                .await
                .expect("list");
            assert_eq!(listed.len(), 1);
            assert_eq!(listed[0].name, "CI");
            engine
                .services()
                .hooks()
                .store()
                .delete(&made.id)
                .await
                .expect("delete");
            assert!(
                engine
                    .services()
                    .hooks()
                    .list(&engine.services().url())
                    .await
                    .expect("list")
                    .is_empty()
            );
            engine.services().shutdown().await;
        });
    }
}
