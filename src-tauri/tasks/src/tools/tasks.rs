//! The `tasks` app: chat tools that create, find, read and change tasks through the tasks
//! service, so "remind me every Monday" in a chat becomes a task like one made on the Tasks page.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::tools::{
    Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::model::Task;
use crate::{NewTask, TaskHandle, TaskPatch, TaskService, schedule};

pub fn plugin(tasks: TaskHandle) -> Plugin {
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(TasksTool::new::<CreateArgs>(
            &tasks,
            Kind::Create,
            "create_task_from_prompt",
            "Create a task from the person's words: work to do now, later, on a schedule or when something happens. It is planned and, unless plans need no approval, waits for the person to approve its plan.",
            Risk::Write,
        )),
        Arc::new(TasksTool::new::<SearchArgs>(
            &tasks,
            Kind::Search,
            "search_tasks",
            "Find the person's tasks by words in their name or description, optionally by status.",
            Risk::Read,
        )),
        Arc::new(TasksTool::new::<StatusArgs>(
            &tasks,
            Kind::Status,
            "get_task_status",
            "Read one task: its status, schedule, plan, script, the latest run's result or error and any question waiting for the person.",
            Risk::Read,
        )),
        Arc::new(TasksTool::new::<UpdateArgs>(
            &tasks,
            Kind::Update,
            "update_task",
            "Change a task's name, description, schedule, or pause/resume it (enabled); for a script job also its script_code, script_condition (changed, alert, every_run) and script_then (notify, run). New code waits for the person's approval again.",
            Risk::Write,
        )),
        Arc::new(TasksTool::new::<ChangeArgs>(
            &tasks,
            Kind::Change,
            "request_task_change",
            "Ask for a change to what a task does, in plain words; the task is planned again.",
            Risk::Write,
        )),
    ];
    Plugin {
        id: "tasks".to_owned(),
        display_name: "Tasks".to_owned(),
        description: "Create, find and change your tasks.".to_owned(),
        category: "built_in".to_owned(),
        icon: "tasks".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "task remind schedule every daily weekly recurring later automate job"
            .to_owned(),
        scoped: false,
        tools,
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateArgs {
    /// What the task should do, and when, in the person's words.
    pub prompt: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for; leave it out to list every task.
    #[serde(default)]
    pub query: Option<String>,
    /// Only tasks with this status, e.g. active, approval_pending, waiting_for_user.
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StatusArgs {
    pub task_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateArgs {
    pub task_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// false pauses the task, true resumes it.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// A schedule object, e.g. {"type": "recurring", "frequency": "weekly", "days": ["Monday"], "time": "09:00"}.
    #[serde(default)]
    pub schedule: Option<Value>,
    /// A script job's new Python code (`from sentient_tools import tools, result`, look-up tools only).
    #[serde(default)]
    pub script_code: Option<String>,
    /// When a script job acts: "changed", "alert" or "every_run".
    #[serde(default)]
    pub script_condition: Option<String>,
    /// What a script job then does: "notify" or "run".
    #[serde(default)]
    pub script_then: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChangeArgs {
    pub task_id: String,
    /// The change, in plain words.
    pub message: String,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Create,
    Search,
    Status,
    Update,
    Change,
}

struct TasksTool {
    def: ToolDef,
    kind: Kind,
    tasks: TaskHandle,
}

impl TasksTool {
    fn new<Args: JsonSchema>(
        tasks: &TaskHandle,
        kind: Kind,
        name: &str,
        description: &str,
        risk: Risk,
    ) -> Self {
        let def = ToolDef::new::<Args>(name, description, risk);
        // Changing Sentient's own tasks is internal work: it does not ask in mode "ask".
        let def = if risk == Risk::Write {
            def.internal()
        } else {
            def
        };
        Self {
            def,
            kind,
            tasks: tasks.clone(),
        }
    }
}

/// The short view of a task a model reads.
fn summary(task: &Task) -> Value {
    let last = task.runs.last();
    json!({
        "task_id": task.task_id,
        "name": task.name,
        "status": task.status.as_str(),
        "enabled": task.enabled,
        "schedule": task.schedule.as_ref().map(schedule::describe),
        "next_execution_at": task.next_execution_at,
        "last_run": last.map(|r| json!({
            "status": r.status.as_str(),
            "summary": r.result.as_ref().map(|res| res.summary.clone()),
            "error": r.error,
            "question": r.pending_question.as_ref().map(|q| q.question.clone()),
        })),
    })
}

fn failed(error: crate::TaskError) -> ToolError {
    ToolError::Failed(error.message())
}

async fn run(kind: Kind, engine: &TaskService, args: Value) -> Result<ToolOutput, ToolError> {
    match kind {
        Kind::Create => {
            let args: CreateArgs = parse_args(args)?;
            let task = engine
                .create_task(NewTask {
                    prompt: args.prompt,
                    is_swarm: false,
                    assignee: None,
                    model: None,
                    browser_profile: None,
                })
                .await
                .map_err(failed)?;
            ToolOutput::json(json!({
                "task_id": task.task_id,
                "status": task.status.as_str(),
                "note": "The task is being planned; the person sees it on the Tasks page and approves its plan there.",
            }))
        }
        Kind::Search => {
            let args: SearchArgs = parse_args(args)?;
            let words: Vec<String> = args
                .query
                .unwrap_or_default()
                .to_lowercase()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            // Words go through the search index (names, descriptions, briefs, notes).
            let tasks = if words.is_empty() {
                engine.list_tasks().await
            } else {
                engine.search_tasks(&words.join(" ")).await
            }
            .map_err(failed)?;
            let found: Vec<Value> = tasks
                .iter()
                .filter(|t| {
                    args.status
                        .as_deref()
                        .is_none_or(|s| t.status.as_str() == s)
                })
                .take(20)
                .map(summary)
                .collect();
            ToolOutput::json(json!({ "tasks": found }))
        }
        Kind::Status => {
            let args: StatusArgs = parse_args(args)?;
            let task = engine.get_task(&args.task_id).await.map_err(failed)?;
            let mut view = summary(&task);
            view["description"] = json!(task.description);
            view["plan"] = json!(task.plan);
            view["script"] = json!(task.script);
            view["error"] = json!(task.error);
            ToolOutput::json(view)
        }
        Kind::Update => {
            let args: UpdateArgs = parse_args(args)?;
            let mut script = serde_json::Map::new();
            for (key, value) in [
                ("code", &args.script_code),
                ("condition", &args.script_condition),
                ("then", &args.script_then),
            ] {
                if let Some(value) = value {
                    script.insert(key.to_owned(), json!(value));
                }
            }
            let code_before = match &args.script_code {
                Some(_) => engine
                    .get_task(&args.task_id)
                    .await
                    .map_err(failed)?
                    .script
                    .map(|s| s.code),
                None => None,
            };
            let patch = TaskPatch {
                name: args.name,
                description: args.description,
                enabled: args.enabled,
                schedule: args.schedule,
                script: (!script.is_empty()).then_some(Some(Value::Object(script))),
                ..TaskPatch::default()
            };
            let mut task = engine
                .patch_task(&args.task_id, patch)
                .await
                .map_err(failed)?;
            // Code the assistant wrote runs on its own only once the person approved it.
            let new_code = task.script.as_ref().map(|s| &s.code);
            if args.script_code.is_some() && new_code != code_before.as_ref() {
                task = engine
                    .script_needs_approval(&args.task_id)
                    .await
                    .map_err(failed)?;
            }
            let mut view = summary(&task);
            view["script"] = json!(task.script);
            ToolOutput::json(view)
        }
        Kind::Change => {
            let args: ChangeArgs = parse_args(args)?;
            let task = engine
                .task_chat(&args.task_id, &args.message)
                .await
                .map_err(failed)?;
            ToolOutput::json(summary(&task))
        }
    }
}

impl Tool for TasksTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let tasks = self
                .tasks
                .get()
                .ok_or_else(|| ToolError::Failed("Tasks can't be reached from here.".to_owned()))?;
            run(self.kind, &tasks, args).await
        })
    }
}
