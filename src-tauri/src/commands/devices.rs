//! Paired devices from the window: list, one, rename, remove, try a capability, make a pairing
//! code, and the LAN listener's state; the same service calls as `/api/nodes` (contract
//! section 13).

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::devices::model::{
    InvokeReply, InvokeRequest, LanStatus, Node, Pairing, RenameNode,
};
use sentient_engine::error::ApiError;
use tauri::State;

/// Every device, online ones first.
#[tauri::command]
#[specta::specta]
pub async fn list_nodes(engine: State<'_, Engine>) -> Result<Vec<Node>, ApiError> {
    Ok(engine.services().devices().list().await?)
}

#[tauri::command]
#[specta::specta]
pub async fn get_node(engine: State<'_, Engine>, id: String) -> Result<Node, ApiError> {
    Ok(engine.services().devices().get(&id).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn rename_node(
    engine: State<'_, Engine>,
    id: String,
    body: RenameNode,
) -> Result<Node, ApiError> {
    Ok(engine.services().devices().rename(&id, &body.name).await?)
}

/// Revokes the device's token and disconnects it; the desktop app itself can't be removed.
#[tauri::command]
#[specta::specta]
pub async fn delete_node(engine: State<'_, Engine>, id: String) -> Result<OkReply, ApiError> {
    engine.services().devices().remove(&id).await?;
    Ok(OkReply::yes())
}

/// Asks a device to do one thing; a device that can't answers `ok: false` with its reason.
#[tauri::command]
#[specta::specta]
pub async fn invoke_node(
    engine: State<'_, Engine>,
    id: String,
    body: InvokeRequest,
) -> Result<InvokeReply, ApiError> {
    Ok(engine
        .services()
        .devices()
        .invoke_request(&id, body)
        .await?)
}

/// A single-use code for 10 minutes, with the QR code and link a phone opens.
#[tauri::command]
#[specta::specta]
pub async fn create_pairing(engine: State<'_, Engine>) -> Result<Pairing, ApiError> {
    Ok(engine.services().create_pairing()?)
}

#[tauri::command]
#[specta::specta]
pub async fn lan_status(engine: State<'_, Engine>) -> Result<LanStatus, ApiError> {
    Ok(engine.services().lan_status())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use tauri::Manager;

    #[test]
    fn devices_are_listed_paired_and_guarded_through_the_engine() {
        let (_dir, engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let nodes = list_nodes(state.clone()).await.expect("list");
            assert!(nodes.iter().all(|n| n.node_id != "nope"));

            let pairing = create_pairing(state.clone()).await.expect("pairing");
            assert_eq!(pairing.code.len(), 6);
            assert!(pairing.code.chars().all(|c| c.is_ascii_digit()));
            assert!(pairing.web_url.contains(&pairing.code));
            assert!(pairing.qr_svg.contains("<svg"));
            let lan = lan_status(state.clone()).await.expect("lan");
            assert_eq!(pairing.fingerprint.is_some(), lan.running);

            let gone = get_node(state.clone(), "nope".to_owned()).await;
            assert_eq!(gone.expect_err("unknown device").status, 404);
            let renamed = rename_node(
                state.clone(),
                "nope".to_owned(),
                RenameNode {
                    name: "Phone".to_owned(),
                },
            )
            .await;
            assert_eq!(renamed.expect_err("unknown device").status, 404);
            let desktop = delete_node(state.clone(), "desktop".to_owned()).await;
            assert_eq!(desktop.expect_err("the desktop app stays").status, 400);
            engine.services().shutdown().await;
        });
    }
}
