//! Tasks over HTTP (contract section 4). The engine hands these routes to the gateway with the
//! task service as their state. They live here, not in the tasks crate, so their macros are
//! expanded beside tasks' code generation rather than after it. Each handler is one call into the
//! tasks service.

use axum::Json;
use axum::extract::{Path, State};
use sentient_core::OkReply;
use sentient_core::body::JsonBody;
use sentient_core::error::{ApiError, ErrorBody};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use sentient_core::domain::script::SandboxResult;
use sentient_tasks::model::{ProgressUpdate, Task};
use sentient_tasks::planner::Refinement;
use sentient_tasks::requests::{
    ClarificationsRequest, PreviewRequest, RunAnswerRequest, TaskChatRequest,
};
use sentient_tasks::{NewTask, ScriptTestRequest, TaskPatch, TaskService};

pub fn routes() -> OpenApiRouter<TaskService> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(preview))
        .routes(routes!(get, patch, delete))
        .routes(routes!(approve))
        .routes(routes!(decline))
        .routes(routes!(rerun))
        .routes(routes!(run_now))
        .routes(routes!(test_script))
        .routes(routes!(archive))
        .routes(routes!(chat))
        .routes(routes!(clarifications))
        .routes(routes!(cancel_run))
        .routes(routes!(answer_run))
        .routes(routes!(retry_run))
        .routes(routes!(events))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// Words to find in names, descriptions, briefs and notes; leave it out for every task.
    q: Option<String>,
}

/// Every task, newest first; with `q`, the matching tasks, best first.
#[utoipa::path(get, path = "/api/tasks", tag = "tasks", params(ListQuery), responses((status = 200, body = Vec<Task>)))]
pub async fn list(
    State(tasks): State<TaskService>,
    axum::extract::Query(query): axum::extract::Query<ListQuery>,
) -> Result<Json<Vec<Task>>, ApiError> {
    match query.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        Some(q) => Ok(Json(tasks.search_tasks(q).await?)),
        None => Ok(Json(tasks.list_tasks().await?)),
    }
}

/// Creates a task; planning continues in the background and arrives as `task.updated`.
#[utoipa::path(post, path = "/api/tasks", tag = "tasks", request_body = NewTask,
    responses((status = 200, body = Task), (status = 400, body = ErrorBody)))]
pub async fn create(
    State(tasks): State<TaskService>,
    JsonBody(body): JsonBody<NewTask>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.create_task(body).await?))
}

/// What the planner would make of a prompt: name, description, priority and schedule.
#[utoipa::path(post, path = "/api/tasks/preview", tag = "tasks", request_body = PreviewRequest,
    responses((status = 200, body = Refinement), (status = 400, body = ErrorBody), (status = 502, body = ErrorBody),
              (status = 503, body = ErrorBody)))]
pub async fn preview(
    State(tasks): State<TaskService>,
    JsonBody(body): JsonBody<PreviewRequest>,
) -> Result<Json<Refinement>, ApiError> {
    Ok(Json(tasks.preview_task(&body.prompt).await?))
}

/// One task with its runs.
#[utoipa::path(get, path = "/api/tasks/{id}", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody)))]
pub async fn get(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.get_task(&id).await?))
}

/// Changes any of name, description, priority, schedule, plan, enabled, status, model,
/// browser_profile and deliver_to.
#[utoipa::path(patch, path = "/api/tasks/{id}", tag = "tasks", request_body = TaskPatch,
    responses((status = 200, body = Task), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn patch(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TaskPatch>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.patch_task(&id, body).await?))
}

/// Deletes a task, cancelling its runs.
#[utoipa::path(delete, path = "/api/tasks/{id}", tag = "tasks",
    responses((status = 200, body = OkReply), (status = 404, body = ErrorBody)))]
pub async fn delete(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    tasks.delete_task(&id).await?;
    Ok(Json(OkReply::yes()))
}

/// Approves the plan waiting for approval.
#[utoipa::path(post, path = "/api/tasks/{id}/approve", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn approve(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.approve_task(&id).await?))
}

/// Declines the plan waiting for approval.
#[utoipa::path(post, path = "/api/tasks/{id}/decline", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn decline(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.decline_task(&id).await?))
}

/// A new copy of the task, planned afresh.
#[utoipa::path(post, path = "/api/tasks/{id}/rerun", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody)))]
pub async fn rerun(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.rerun_task(&id).await?))
}

/// Starts a run at once.
#[utoipa::path(post, path = "/api/tasks/{id}/run-now", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn run_now(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.run_task_now(&id).await?))
}

/// Runs the task's script, or `code`, once as its check would, without changing what its
/// checks found (section 16).
#[utoipa::path(post, path = "/api/tasks/{id}/script/test", tag = "tasks", request_body = ScriptTestRequest,
    responses((status = 200, body = SandboxResult), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn test_script(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ScriptTestRequest>,
) -> Result<Json<SandboxResult>, ApiError> {
    Ok(Json(tasks.test_script(&id, body.code).await?))
}

/// Archives the task.
#[utoipa::path(post, path = "/api/tasks/{id}/archive", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn archive(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.archive_task(&id).await?))
}

/// A change request: the task is planned again.
#[utoipa::path(post, path = "/api/tasks/{id}/chat", tag = "tasks", request_body = TaskChatRequest,
    responses((status = 200, body = Task), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn chat(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TaskChatRequest>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.task_chat(&id, &body.message).await?))
}

/// Answers the planner's questions; the task is planned again.
#[utoipa::path(post, path = "/api/tasks/{id}/clarifications", tag = "tasks", request_body = ClarificationsRequest,
    responses((status = 200, body = Task), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn clarifications(
    State(tasks): State<TaskService>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ClarificationsRequest>,
) -> Result<Json<Task>, ApiError> {
    let answers = body.checked()?;
    Ok(Json(tasks.answer_clarifications(&id, answers).await?))
}

/// Cancels a working or waiting run.
#[utoipa::path(post, path = "/api/tasks/{id}/runs/{run_id}/cancel", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn cancel_run(
    State(tasks): State<TaskService>,
    Path((id, run_id)): Path<(String, String)>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.cancel_run(&id, &run_id).await?))
}

/// Answers the question of a run waiting for the person; the run carries on from where it stopped.
#[utoipa::path(post, path = "/api/tasks/{id}/runs/{run_id}/answer", tag = "tasks", request_body = RunAnswerRequest,
    responses((status = 200, body = Task), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, body = ErrorBody)))]
pub async fn answer_run(
    State(tasks): State<TaskService>,
    Path((id, run_id)): Path<(String, String)>,
    JsonBody(body): JsonBody<RunAnswerRequest>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.answer_run(&id, &run_id, &body.answer).await?))
}

/// A new run that continues a failed or cancelled one from its transcript.
#[utoipa::path(post, path = "/api/tasks/{id}/runs/{run_id}/retry", tag = "tasks",
    responses((status = 200, body = Task), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn retry_run(
    State(tasks): State<TaskService>,
    Path((id, run_id)): Path<(String, String)>,
) -> Result<Json<Task>, ApiError> {
    Ok(Json(tasks.retry_run(&id, &run_id).await?))
}

/// A run's whole progress log.
#[utoipa::path(get, path = "/api/tasks/{id}/runs/{run_id}/events", tag = "tasks",
    responses((status = 200, body = Vec<ProgressUpdate>), (status = 404, body = ErrorBody)))]
pub async fn events(
    State(tasks): State<TaskService>,
    Path((id, run_id)): Path<(String, String)>,
) -> Result<Json<Vec<ProgressUpdate>>, ApiError> {
    Ok(Json(tasks.run_events(&id, &run_id).await?))
}
