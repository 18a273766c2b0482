//! Tasks from the window: the list, a preview, create, change, approve or decline a plan, run,
//! cancel, archive, delete, test a script job's script, the task's own chat and the planner's questions; the same service
//! calls as `/api/tasks` (contract section 4).

use sentient_engine::Engine;
use sentient_engine::OkReply;
use sentient_engine::domain::script::SandboxResult;
use sentient_engine::error::ApiError;
use sentient_engine::tasks::model::{ProgressUpdate, Task};
use sentient_engine::tasks::planner::Refinement;
use sentient_engine::tasks::requests::{
    ClarificationsRequest, PreviewRequest, RunAnswerRequest, TaskChatRequest,
};
use sentient_engine::tasks::{NewTask, TaskPatch};
use tauri::State;

/// Every task, newest first, each with its runs.
#[tauri::command]
#[specta::specta]
pub async fn list_tasks(engine: State<'_, Engine>) -> Result<Vec<Task>, ApiError> {
    engine.tasks().list_tasks().await.map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn get_task(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine.tasks().get_task(&id).await.map_err(ApiError::from)
}

/// What the planner makes of a prompt (name, description, priority, schedule), saving nothing.
#[tauri::command]
#[specta::specta]
pub async fn preview_task(
    engine: State<'_, Engine>,
    body: PreviewRequest,
) -> Result<Refinement, ApiError> {
    engine
        .tasks()
        .preview_task(&body.prompt)
        .await
        .map_err(ApiError::from)
}

/// Saves a task as `planning`; planning goes on in the background and arrives as `task.updated`.
#[tauri::command]
#[specta::specta]
pub async fn create_task(engine: State<'_, Engine>, body: NewTask) -> Result<Task, ApiError> {
    engine
        .tasks()
        .create_task(body)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn patch_task(
    engine: State<'_, Engine>,
    id: String,
    patch: TaskPatch,
) -> Result<Task, ApiError> {
    engine
        .tasks()
        .patch_task(&id, patch)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_task(engine: State<'_, Engine>, id: String) -> Result<OkReply, ApiError> {
    engine.tasks().delete_task(&id).await?;
    Ok(OkReply::yes())
}

#[tauri::command]
#[specta::specta]
pub async fn approve_task(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine
        .tasks()
        .approve_task(&id)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn decline_task(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine
        .tasks()
        .decline_task(&id)
        .await
        .map_err(ApiError::from)
}

/// A new copy of the task, planned afresh.
#[tauri::command]
#[specta::specta]
pub async fn rerun_task(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine.tasks().rerun_task(&id).await.map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn run_task_now(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine
        .tasks()
        .run_task_now(&id)
        .await
        .map_err(ApiError::from)
}

/// Runs the task's script, or `code`, once as its check would (section 16).
#[tauri::command]
#[specta::specta]
pub async fn test_task_script(
    engine: State<'_, Engine>,
    id: String,
    code: Option<String>,
) -> Result<SandboxResult, ApiError> {
    engine
        .tasks()
        .test_script(&id, code)
        .await
        .map_err(ApiError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn archive_task(engine: State<'_, Engine>, id: String) -> Result<Task, ApiError> {
    engine
        .tasks()
        .archive_task(&id)
        .await
        .map_err(ApiError::from)
}

/// A change request: the message joins the task's chat and the task is planned again.
#[tauri::command]
#[specta::specta]
pub async fn task_chat(
    engine: State<'_, Engine>,
    id: String,
    body: TaskChatRequest,
) -> Result<Task, ApiError> {
    engine
        .tasks()
        .task_chat(&id, &body.message)
        .await
        .map_err(ApiError::from)
}

/// Answers the planner's questions; the task is planned again.
#[tauri::command]
#[specta::specta]
pub async fn answer_clarifications(
    engine: State<'_, Engine>,
    id: String,
    body: ClarificationsRequest,
) -> Result<Task, ApiError> {
    let answers = body.checked()?;
    engine
        .tasks()
        .answer_clarifications(&id, answers)
        .await
        .map_err(ApiError::from)
}

/// Cancels a working or waiting run.
#[tauri::command]
#[specta::specta]
pub async fn cancel_run(
    engine: State<'_, Engine>,
    id: String,
    run_id: String,
) -> Result<Task, ApiError> {
    engine
        .tasks()
        .cancel_run(&id, &run_id)
        .await
        .map_err(ApiError::from)
}

/// Answers the question a waiting run asks; the run carries on from where it stopped.
#[tauri::command]
#[specta::specta]
pub async fn answer_run(
    engine: State<'_, Engine>,
    id: String,
    run_id: String,
    body: RunAnswerRequest,
) -> Result<Task, ApiError> {
    engine
        .tasks()
        .answer_run(&id, &run_id, &body.answer)
        .await
        .map_err(ApiError::from)
}

/// A new run that continues a failed or cancelled one from where it stopped.
#[tauri::command]
#[specta::specta]
pub async fn retry_run(
    engine: State<'_, Engine>,
    id: String,
    run_id: String,
) -> Result<Task, ApiError> {
    engine
        .tasks()
        .retry_run(&id, &run_id)
        .await
        .map_err(ApiError::from)
}

/// A run's whole progress log.
#[tauri::command]
#[specta::specta]
pub async fn run_events(
    engine: State<'_, Engine>,
    id: String,
    run_id: String,
) -> Result<Vec<ProgressUpdate>, ApiError> {
    engine
        .tasks()
        .run_events(&id, &run_id)
        .await
        .map_err(ApiError::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::engine_and_app;
    use sentient_engine::tasks::model::TaskStatus;
    use sentient_engine::tasks::requests::ClarificationAnswer;
    use tauri::Manager;

    #[test]
    fn a_task_is_created_listed_changed_and_deleted() {
        let (_dir, _engine, app) = engine_and_app();
        let state = app.state::<Engine>();
        tauri::async_runtime::block_on(async {
            let empty = preview_task(
                state.clone(),
                PreviewRequest {
                    prompt: "  ".to_owned(),
                },
            )
            .await;
            assert_eq!(empty.expect_err("empty prompt").status, 400);

            let body: NewTask =
                serde_json::from_value(serde_json::json!({"prompt": "Water the plants"}))
                    .expect("body");
            let created = create_task(state.clone(), body).await.expect("create");
            assert_eq!(created.status, TaskStatus::Planning);
            let list = list_tasks(state.clone()).await.expect("list");
            assert_eq!(list.len(), 1);
            assert_eq!(list[0].task_id, created.task_id);

            let patch: TaskPatch =
                serde_json::from_value(serde_json::json!({"name": "Plants"})).expect("patch");
            let changed = patch_task(state.clone(), created.task_id.clone(), patch)
                .await
                .expect("patch");
            assert_eq!(changed.name, "Plants");
            assert_eq!(
                get_task(state.clone(), created.task_id.clone())
                    .await
                    .expect("get")
                    .name,
                "Plants"
            );

            let blank = answer_clarifications(
                state.clone(),
                created.task_id.clone(),
                ClarificationsRequest {
                    answers: vec![ClarificationAnswer {
                        question_id: "q1".to_owned(),
                        answer_text: " ".to_owned(),
                    }],
                },
            )
            .await;
            assert_eq!(blank.expect_err("blank answer").status, 400);
            let no_run =
                cancel_run(state.clone(), created.task_id.clone(), "nope".to_owned()).await;
            assert_eq!(no_run.expect_err("unknown run").status, 404);

            delete_task(state.clone(), created.task_id.clone())
                .await
                .expect("delete");
            assert!(list_tasks(state.clone()).await.expect("list").is_empty());
            let gone = get_task(state.clone(), created.task_id).await;
            assert_eq!(gone.expect_err("deleted").status, 404);
        });
    }
}
