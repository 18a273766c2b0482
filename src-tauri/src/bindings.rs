//! The one list of commands and the types the window sees. `ui/src/bindings.ts` is generated
//! from it; a test fails when the committed file is stale (`npm run bindings` rewrites it).

use tauri_specta::{Builder, collect_commands};

use crate::commands;

/// Where the generated TypeScript lives, relative to the repository root.
pub const BINDINGS_PATH: &str = "ui/src/bindings.ts";

pub fn builder<R: tauri::Runtime>() -> Builder<R> {
    Builder::<R>::new()
        .commands(collect_commands![
            commands::core::health,
            commands::core::bootstrap,
            commands::core::onboarding,
            commands::config::get_config,
            commands::config::config_schema,
            commands::config::patch_config,
            commands::stop::get_stop,
            commands::stop::stop_all,
            commands::stop::resume,
            commands::models::model_providers,
            commands::models::local_models,
            commands::models::set_local_address,
            commands::models::test_model,
            commands::models::check_provider_key,
            commands::models::model_catalog,
            commands::models::connect_openrouter,
            commands::models::openrouter_sign_in_status,
            commands::models::test_embedding,
            commands::models::get_roles,
            commands::models::set_roles,
            commands::models::set_fallbacks,
            commands::models::model_busy,
            commands::models::hardware,
            commands::models::pull_model,
            commands::models::list_secrets,
            commands::models::set_secret,
            commands::models::delete_secret,
            commands::models::secrets_store,
            commands::models::choose_secrets_store,
            commands::models::model_presets,
            commands::models::apply_model_preset,
            commands::models::undo_model_preset,
            commands::models::save_model_preset,
            commands::models::rename_model_preset,
            commands::models::delete_model_preset,
            commands::models::model_checkup,
            commands::sessions::list_sessions,
            commands::sessions::create_session,
            commands::sessions::rename_session,
            commands::sessions::delete_session,
            commands::sessions::session_messages,
            commands::sessions::show_answer_version,
            commands::sessions::search_sessions,
            commands::files::upload_file,
            commands::files::list_files,
            commands::files::file_content,
            commands::chat::chat_send,
            commands::chat::chat_regenerate,
            commands::chat::chat_steer,
            commands::chat::chat_cancel,
            commands::chat::approval_respond,
            commands::chat::list_tools,
            commands::rules::rule_proposals,
            commands::rules::decide_rule_proposal,
            commands::tasks::list_tasks,
            commands::tasks::get_task,
            commands::tasks::preview_task,
            commands::tasks::create_task,
            commands::tasks::patch_task,
            commands::tasks::delete_task,
            commands::tasks::approve_task,
            commands::tasks::decline_task,
            commands::tasks::rerun_task,
            commands::tasks::run_task_now,
            commands::tasks::test_task_script,
            commands::tasks::archive_task,
            commands::tasks::task_chat,
            commands::tasks::answer_clarifications,
            commands::tasks::cancel_run,
            commands::tasks::answer_run,
            commands::tasks::retry_run,
            commands::tasks::run_events,
            commands::notifications::list_notifications,
            commands::notifications::read_notification,
            commands::notifications::read_all_notifications,
            commands::notifications::delete_notification,
            commands::notifications::delete_all_notifications,
            commands::hooks::list_hooks,
            commands::hooks::create_hook,
            commands::hooks::delete_hook,
            commands::sandbox::sandbox_status,
            commands::sandbox::run_script,
            commands::terminal::terminal_status,
            commands::terminal::terminal_stop,
            commands::subagents::list_subagents,
            commands::subagents::cancel_subagent,
            commands::browser::browser_status,
            commands::browser::open_browser,
            commands::browser::close_browser,
            commands::browser::browser_input,
            commands::browser::browser_profiles,
            commands::browser::add_browser_profile,
            commands::browser::change_browser_profile,
            commands::browser::delete_browser_profile,
            commands::devices::list_nodes,
            commands::devices::get_node,
            commands::devices::rename_node,
            commands::devices::delete_node,
            commands::devices::invoke_node,
            commands::devices::create_pairing,
            commands::devices::lan_status,
            commands::memory::list_memories,
            commands::memory::create_memory,
            commands::memory::update_memory,
            commands::memory::delete_memory,
            commands::memory::delete_memory_source,
            commands::memory::memory_topics,
            commands::memory::memory_graph,
            commands::memory::memory_summaries,
            commands::memory::memory_workspace,
            commands::memory::save_memory_workspace,
            commands::memory::memory_personas,
            commands::memory::memory_review,
            commands::memory::approve_memory,
            commands::memory::discard_memory,
            commands::memory::approve_all_memories,
            commands::memory::import_memories,
            commands::integrations::list_integrations,
            commands::integrations::connect_integration,
            commands::integrations::disconnect_integration,
            commands::integrations::cancel_connect,
            commands::integrations::discover_email,
            commands::integrations::test_integration,
            commands::integrations::set_integration_access,
            commands::integrations::privacy_filters,
            commands::integrations::set_privacy_filters,
            commands::integrations::list_feeds,
            commands::integrations::sync_feed,
            commands::integrations::list_mcp_servers,
            commands::integrations::add_mcp_server,
            commands::integrations::remove_mcp_server,
            commands::integrations::set_mcp_access,
            commands::integrations::set_mcp_enabled,
            commands::integrations::set_mcp_values,
            commands::integrations::test_mcp_server,
            commands::integrations::sign_in_mcp_server,
            commands::integrations::sign_out_mcp_server,
        ])
        .typ::<sentient_engine::bus::Envelope>()
        // Ids and counters fit in a JavaScript number; SQLite hands us i64.
        .dangerously_cast_bigints_to_number()
}

/// The TypeScript text for the current commands and types.
pub fn typescript() -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("sentient-bindings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("bindings.ts");
    builder::<tauri::Wry>()
        .export(
            specta_typescript::Typescript::default().header("// @ts-nocheck"),
            &path,
        )
        .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_bindings_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let committed_path = root.join(BINDINGS_PATH);
        let fresh = typescript().expect("bindings generate");
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&committed_path, &fresh).expect("write bindings");
            return;
        }
        let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
        assert!(
            committed == fresh,
            "{BINDINGS_PATH} is stale: run `npm run bindings` and commit the result"
        );
    }
}
