//! Chats from the window: the list, a new chat, rename, delete, a transcript and search, the same
//! service calls as `/api/sessions`.

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::agent::chat_answers::ShowVersion;
use sentient_engine::agent::sessions::{Created, MessageRow, Rename, SearchHit, Session};
use sentient_engine::error::ApiError;
use tauri::State;

/// Chats, newest first (at most `limit`, default 100).
#[tauri::command]
#[specta::specta]
pub async fn list_sessions(
    engine: State<'_, Engine>,
    limit: Option<u32>,
) -> Result<Vec<Session>, ApiError> {
    Ok(engine
        .services()
        .sessions()
        .list(limit.unwrap_or(100))
        .await?)
}

/// Starts a new, empty chat.
#[tauri::command]
#[specta::specta]
pub async fn create_session(engine: State<'_, Engine>) -> Result<Created, ApiError> {
    let session = engine.services().sessions().create("desktop").await?;
    Ok(Created {
        session_id: session.id,
    })
}

#[tauri::command]
#[specta::specta]
pub async fn rename_session(
    engine: State<'_, Engine>,
    id: String,
    body: Rename,
) -> Result<OkReply, ApiError> {
    engine
        .services()
        .sessions()
        .rename(&id, &body.title)
        .await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn delete_session(engine: State<'_, Engine>, id: String) -> Result<OkReply, ApiError> {
    engine.services().sessions().delete(&id).await?;
    Ok(OkReply::yes())
}

/// The transcript, oldest first (the last `limit` rows, default 500).
#[tauri::command]
#[specta::specta]
pub async fn session_messages(
    engine: State<'_, Engine>,
    id: String,
    limit: Option<u32>,
) -> Result<Vec<MessageRow>, ApiError> {
    Ok(engine
        .services()
        .sessions()
        .messages(&id, limit.unwrap_or(500))
        .await?)
}

/// Shows another version of a regenerated answer (`message_id` is any row of it) and answers
/// the transcript, as `POST /api/sessions/{id}/messages/{message_id}/version`.
#[tauri::command]
#[specta::specta]
pub async fn show_answer_version(
    engine: State<'_, Engine>,
    id: String,
    message_id: String,
    body: ShowVersion,
) -> Result<Vec<MessageRow>, ApiError> {
    Ok(engine
        .services()
        .agent()
        .answers()
        .show_version(&id, &message_id, body.index, 500)
        .await?)
}

/// Messages that contain the words, best match first, with a snippet.
#[tauri::command]
#[specta::specta]
pub async fn search_sessions(
    engine: State<'_, Engine>,
    q: String,
) -> Result<Vec<SearchHit>, ApiError> {
    Ok(engine.services().sessions().search(&q).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use sentient_engine::error::ErrorDetail;
    use tauri::Manager;

    #[test]
    fn a_chat_is_created_listed_renamed_searched_and_deleted() {
        let (_dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let created = create_session(state.clone()).await.expect("create");
            let list = list_sessions(state.clone(), None).await.expect("list");
            assert_eq!(list.len(), 1);
            assert_eq!(list[0].id, created.session_id);

            rename_session(
                state.clone(),
                created.session_id.clone(),
                Rename {
                    title: "Groceries".to_owned(),
                },
            )
            .await
            .expect("rename");
            let list = list_sessions(state.clone(), Some(10)).await.expect("list");
            assert_eq!(list[0].title, "Groceries");
            // A bad title gets the HTTP route's answer: 400 with one sentence.
            let blank = rename_session(
                state.clone(),
                created.session_id.clone(),
                Rename {
                    title: "  ".to_owned(),
                },
            )
            .await
            .expect_err("blank title");
            assert_eq!(
                (blank.status, blank.message()),
                (400, "Give the chat a title.".to_owned())
            );
            assert!(matches!(blank.detail, ErrorDetail::Message(_)));

            let rows = session_messages(state.clone(), created.session_id.clone(), None)
                .await
                .expect("messages");
            assert!(rows.is_empty());

            let empty = search_sessions(state.clone(), "  ".to_owned()).await;
            assert_eq!(empty.expect_err("empty search").status, 422);

            delete_session(state.clone(), created.session_id.clone())
                .await
                .expect("delete");
            assert!(
                list_sessions(state.clone(), None)
                    .await
                    .expect("list")
                    .is_empty()
            );
            let gone = delete_session(state.clone(), created.session_id).await;
            assert_eq!(gone.expect_err("already deleted").status, 404);
        });
    }
}
