//! A task run's own memory: `task_notepad` (app `task_notepad`, only in runs of repeating tasks)
//! keeps the notes between runs, and `task_brief_update` (app `task_brief`, in every task run)
//! keeps the task's brief. Both are scoped, internal and never count as tools used.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use sentient_agent::tools::{
    Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::{TaskHandle, TaskService};

fn plugin(id: &str, name: &str, description: &str, tools: Vec<Arc<dyn Tool>>) -> Plugin {
    Plugin {
        id: id.to_owned(),
        display_name: name.to_owned(),
        description: description.to_owned(),
        category: "built_in".to_owned(),
        icon: "note".to_owned(),
        auth: "none".to_owned(),
        selection_hint: String::new(),
        scoped: true,
        tools,
    }
}

pub fn notepad_plugin(tasks: &TaskHandle) -> Plugin {
    plugin(
        "task_notepad",
        "Notes between runs",
        "The notes a repeating task keeps between its runs.",
        vec![Arc::new(NotepadTool {
            tasks: tasks.clone(),
            def: ToolDef::new::<NotepadArgs>(
                "task_notepad",
                "Save this task's notes between runs, replacing the old ones: the full list of everything reported to the person so far (old and new), so the next run tells them only what is new. Then reply with your final answer.",
                Risk::Write,
            )
            .internal(),
        })],
    )
}

pub fn conversation_plugin(tasks: &TaskHandle) -> Plugin {
    plugin(
        "task_conversation",
        "Task conversation",
        "Search and read a task's own earlier conversation.",
        vec![
            Arc::new(SearchTool {
                tasks: tasks.clone(),
                def: ToolDef::new::<SearchArgs>(
                    "search_task_conversation",
                    "Search this task's own conversation (its chat and answers, and its earlier runs' messages and logs) for something the person already said, instead of asking again. Returns short excerpts with refs to read more.",
                    Risk::Read,
                )
                .internal(),
            }),
            Arc::new(ReadTool {
                tasks: tasks.clone(),
                def: ToolDef::new::<ReadArgs>(
                    "read_task_conversation",
                    "Read a few entries around a ref that search_task_conversation returned.",
                    Risk::Read,
                )
                .internal(),
            }),
        ],
    )
}

pub fn brief_plugin(tasks: &TaskHandle) -> Plugin {
    plugin(
        "task_brief",
        "Task brief",
        "The short brief of what a task is doing.",
        vec![Arc::new(BriefTool {
            tasks: tasks.clone(),
            def: ToolDef::new::<BriefArgs>(
                "task_brief_update",
                "Keep this task's brief up to date: a short, self-contained summary the person (or the next run) reads to know what the task is doing. Pass only the fields that changed; each replaces that field. Name files, sites, people and ids explicitly. Good: {\"current_focus\": \"Comparing Lisbon flights on kayak.com and skyscanner.net; TAP is cheapest so far (EUR 212, 14 May)\"}. Bad: {\"current_focus\": \"Looking into it\"}. Update it when the goal changes, when you drop a route (and why), about every ten steps, and before your final answer.",
                Risk::Write,
            )
            .internal(),
        })],
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotepadArgs {
    /// The whole notes, replacing the old ones.
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BriefArgs {
    /// What the task is for, in one or two lines.
    #[serde(default)]
    pub goal: Option<String>,
    /// Rules the work must keep to.
    #[serde(default)]
    pub constraints: Option<String>,
    /// Choices made, and why.
    #[serde(default)]
    pub decisions: Option<String>,
    /// What is finished.
    #[serde(default)]
    pub done: Option<String>,
    /// What is still open or needs the person.
    #[serde(default)]
    pub open: Option<String>,
    /// What the run is working on now.
    #[serde(default)]
    pub current_focus: Option<String>,
    /// Files, sites, pages and ids the work uses.
    #[serde(default, rename = "where")]
    pub where_: Option<String>,
    /// What could go wrong.
    #[serde(default)]
    pub risks: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
    /// chat (the task's chat and answers), runs (earlier runs) or both (the default).
    #[serde(default)]
    pub source: Option<String>,
    /// user (the person), agent (the model) or system (run logs).
    #[serde(default)]
    pub author: Option<String>,
    /// How many results, at most 20 (default 8).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// A ref from search_task_conversation, e.g. chat:3 or run:<run_id>:12.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Entries before the ref (default 2, at most 10).
    #[serde(default)]
    pub before: Option<u32>,
    /// Entries after the ref (default 2, at most 10).
    #[serde(default)]
    pub after: Option<u32>,
}

struct SearchTool {
    def: ToolDef,
    tasks: TaskHandle,
}

struct ReadTool {
    def: ToolDef,
    tasks: TaskHandle,
}

/// An optional filter among `allowed`; nothing, "" or `all` (e.g. "both") means no filter.
fn filter_choice(
    field: &str,
    given: Option<&str>,
    allowed: &[&str],
    all: &str,
) -> Result<Option<String>, ToolError> {
    match given.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) if v == all => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v.to_owned())),
        Some(other) => {
            let mut words: Vec<&str> = allowed.to_vec();
            if !all.is_empty() {
                words.push(all);
            }
            let last = words.pop().unwrap_or_default();
            Err(ToolError::InvalidArguments(format!(
                "{field} is {} or {last}, not {other}.",
                words.join(", ")
            )))
        }
    }
}

impl Tool for SearchTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: SearchArgs = parse_args(args)?;
            let source =
                filter_choice("source", args.source.as_deref(), &["chat", "runs"], "both")?;
            let author = filter_choice(
                "author",
                args.author.as_deref(),
                &["user", "agent", "system"],
                "",
            )?;
            let (engine, task_id, _) = task_run(ctx, &self.tasks, "search_task_conversation")?;
            let hits = engine
                .tasks()
                .store()
                .search_conversation(
                    &task_id,
                    &args.query,
                    source.as_deref(),
                    author.as_deref(),
                    args.limit.unwrap_or(8),
                )
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            ToolOutput::json(serde_json::json!({ "results": hits }))
        })
    }
}

impl Tool for ReadTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: ReadArgs = parse_args(args)?;
            let (engine, task_id, _) = task_run(ctx, &self.tasks, "read_task_conversation")?;
            let refused = || {
                ToolError::Failed(format!(
                    "{} is not a ref of this task's conversation. Use a ref that search_task_conversation returned.",
                    args.reference
                ))
            };
            let reference = crate::recall::parse_ref(&args.reference).ok_or_else(refused)?;
            let found = engine
                .tasks()
                .store()
                .read_conversation(
                    &task_id,
                    &reference,
                    args.before.unwrap_or(2),
                    args.after.unwrap_or(2),
                )
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?
                .ok_or_else(refused)?;
            ToolOutput::json(found)
        })
    }
}

struct NotepadTool {
    def: ToolDef,
    tasks: TaskHandle,
}

struct BriefTool {
    def: ToolDef,
    tasks: TaskHandle,
}

/// The tasks service and the run's ids, or the plain refusal for calls from anywhere else.
fn task_run(
    ctx: &ToolCtx,
    tasks: &TaskHandle,
    what: &str,
) -> Result<(TaskService, String, String), ToolError> {
    let refused = || ToolError::Failed(format!("{what} only works inside a task run."));
    let (task_id, run_id) = ctx
        .run
        .as_ref()
        .and_then(|r| r.task_run())
        .ok_or_else(refused)?;
    let engine = tasks.get().ok_or_else(refused)?;
    Ok((engine, task_id, run_id))
}

impl Tool for NotepadTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: NotepadArgs = parse_args(args)?;
            if !ctx.run.as_ref().is_some_and(|r| r.keeps_notes()) {
                return Err(ToolError::Failed(
                    "task_notepad only works inside runs of a repeating task.".to_owned(),
                ));
            }
            let (engine, task_id, run_id) = task_run(ctx, &self.tasks, "task_notepad")?;
            engine
                .parts()
                .stage_notepad(&task_id, &run_id, &args.text)
                .await
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(
                "Saved. Don't call any more tools: reply now with your final answer, reporting only what is new.",
            ))
        })
    }
}

impl Tool for BriefTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            // Validate the shape first; the fields themselves go through as given (null clears).
            let _: BriefArgs = parse_args(args.clone())?;
            let changes: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
            if changes.is_empty() {
                return Err(ToolError::Failed(
                    "Name at least one field of the brief to change.".to_owned(),
                ));
            }
            let (engine, task_id, run_id) = task_run(ctx, &self.tasks, "task_brief_update")?;
            let brief = engine
                .parts()
                .update_brief_from_run(&task_id, &run_id, changes)
                .await
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(format!(
                "The brief now reads:\n{}",
                crate::brief::render(&brief)
            )))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_one_of_their_words_or_none() {
        let source = |v| filter_choice("source", v, &["chat", "runs"], "both");
        assert_eq!(source(None), Ok(None));
        assert_eq!(source(Some(" both ")), Ok(None));
        assert_eq!(source(Some("runs")), Ok(Some("runs".to_owned())));
        assert_eq!(
            source(Some("mail")),
            Err(ToolError::InvalidArguments(
                "source is chat, runs or both, not mail.".to_owned()
            ))
        );
        let author = filter_choice("author", Some("bot"), &["user", "agent", "system"], "");
        assert_eq!(
            author,
            Err(ToolError::InvalidArguments(
                "author is user, agent or system, not bot.".to_owned()
            ))
        );
    }
}
