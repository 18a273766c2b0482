//! The `subagents` app: `delegate_task(goal, context, tools, background)` and
//! `delegate_tasks(tasks)`, risk write, internal, untrusted output (a helper's summary carries
//! what it read). Hidden while `subagents.enabled` is off; a helper never gets them.

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use sentient_agent::run_loop::SUBAGENTS_APP;
use sentient_agent::tools::{
    Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::service::{HelperRequest, SubagentService};

/// Most goals one `delegate_tasks` call takes.
pub const MOST_GOALS: usize = 10;

#[derive(Debug, Deserialize, JsonSchema)]
struct DelegateArgs {
    /// What the helper should find out or do, in one or two sentences.
    goal: String,
    /// What the helper needs to know from this chat (names, links, what was tried). It sees nothing else.
    #[serde(default)]
    context: String,
    /// The only tools (or apps) the helper may use. Leave it out for every tool you have, except sending, running code and helpers.
    #[serde(default)]
    tools: Option<Vec<String>>,
    /// Work on in the background: answer at once, and the helper's summary joins this chat when it ends.
    #[serde(default)]
    background: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Goal {
    /// What this helper should find out or do.
    goal: String,
    /// What it needs to know from this chat.
    #[serde(default)]
    context: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct DelegateManyArgs {
    /// The separate parts of the job, one helper each (at most 10); they run side by side.
    tasks: Vec<Goal>,
}

const DELEGATE: &str = "Hand one part of the job to a helper that works on it with its own tools and context, and get back its summary. Use it for research or look-ups that take many steps, so this chat stays short. With background true you get an id at once and the summary joins the chat later. Helpers can't send anything, run code, ask the user or start helpers.";
const DELEGATE_MANY: &str = "Hand several independent parts of a job to helpers that work on them side by side, and get back every summary in order. Helpers can't send anything, run code, ask the user or start helpers.";

const UNAVAILABLE: &str = "Helpers aren't available now. Try again.";
const NESTED: &str = "Helpers can't start other helpers. Do this part yourself, or say in your summary what is left.";

fn service_of(weak: &Weak<SubagentService>) -> Result<Arc<SubagentService>, ToolError> {
    weak.upgrade()
        .ok_or_else(|| ToolError::Failed(UNAVAILABLE.to_owned()))
}

/// A helper's own calls to these tools are refused, whatever origin it inherited.
fn refuse_nesting(ctx: &ToolCtx) -> Result<(), ToolError> {
    if ctx.run.as_ref().is_some_and(|run| run.is_helper()) {
        return Err(ToolError::Failed(NESTED.to_owned()));
    }
    Ok(())
}

/// How much of each summary a shortened result keeps.
const SHORT_SUMMARY_CHARS: usize = 1_000;

/// A helper's outcome with its summary cut to its start (`shorten_fn`): the id, status,
/// error and files stay whole, so the model still sees how every part went.
fn shortened_outcome(outcome: &Value) -> Value {
    let mut short = outcome.clone();
    if let Some(summary) = outcome.get("summary").and_then(Value::as_str)
        && summary.chars().count() > SHORT_SUMMARY_CHARS
    {
        let head: String = summary.chars().take(SHORT_SUMMARY_CHARS).collect();
        short["summary"] = Value::String(head + "…");
    }
    short
}

fn failed(error: String) -> ToolError {
    ToolError::Failed(error)
}

struct DelegateTask {
    def: ToolDef,
    service: Weak<SubagentService>,
}

impl Tool for DelegateTask {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: DelegateArgs = parse_args(args)?;
            refuse_nesting(ctx)?;
            let goal = args.goal.trim().to_owned();
            if goal.is_empty() {
                return Err(failed("Give the helper a goal.".to_owned()));
            }
            let tools = args
                .tools
                .map(|t| {
                    t.into_iter()
                        .map(|name| name.trim().to_owned())
                        .filter(|name| !name.is_empty())
                        .collect::<Vec<_>>()
                })
                .filter(|t| !t.is_empty());
            let service = service_of(&self.service)?;
            let request = HelperRequest {
                goal,
                context: args.context,
                tools,
                background: args.background,
            };
            let value = service.delegate(request, ctx).await.map_err(failed)?;
            ToolOutput::json(value)
        })
    }

    fn shorten(&self, result: &Value) -> Option<Value> {
        Some(shortened_outcome(result))
    }

    fn available(&self) -> bool {
        self.service.upgrade().is_some_and(|s| s.enabled())
    }
}

struct DelegateTasks {
    def: ToolDef,
    service: Weak<SubagentService>,
}

impl Tool for DelegateTasks {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: DelegateManyArgs = parse_args(args)?;
            refuse_nesting(ctx)?;
            let goals: Vec<(String, String)> = args
                .tasks
                .into_iter()
                .map(|g| (g.goal.trim().to_owned(), g.context))
                .filter(|(goal, _)| !goal.is_empty())
                .collect();
            if goals.is_empty() {
                return Err(failed("Give at least one goal.".to_owned()));
            }
            if goals.len() > MOST_GOALS {
                return Err(failed(format!(
                    "Give at most {MOST_GOALS} goals at a time; join the smaller ones."
                )));
            }
            let service = service_of(&self.service)?;
            let value = service.delegate_many(goals, ctx).await.map_err(failed)?;
            ToolOutput::json(value)
        })
    }

    fn shorten(&self, result: &Value) -> Option<Value> {
        let results = result.get("results")?.as_array()?;
        Some(
            serde_json::json!({"results": results.iter().map(shortened_outcome).collect::<Vec<_>>()}),
        )
    }

    fn available(&self) -> bool {
        self.service.upgrade().is_some_and(|s| s.enabled())
    }
}

/// The `subagents` app.
pub fn plugin(service: &Arc<SubagentService>) -> Plugin {
    Plugin {
        id: SUBAGENTS_APP.to_owned(),
        display_name: "Helpers".to_owned(),
        description: "Helpers that work on parts of a job beside the chat.".to_owned(),
        category: "built_in".to_owned(),
        icon: "users".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "delegate helper subagent parallel research several parts background"
            .to_owned(),
        scoped: false,
        tools: vec![
            Arc::new(DelegateTask {
                def: ToolDef::new::<DelegateArgs>("delegate_task", DELEGATE, Risk::Write)
                    .internal()
                    .untrusted_output(),
                service: Arc::downgrade(service),
            }),
            Arc::new(DelegateTasks {
                def: ToolDef::new::<DelegateManyArgs>("delegate_tasks", DELEGATE_MANY, Risk::Write)
                    .internal()
                    .untrusted_output(),
                service: Arc::downgrade(service),
            }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_shortened_outcome_keeps_everything_but_the_end_of_a_long_summary() {
        let long = "word ".repeat(400);
        let outcome = json!({"subagent_id": "h1", "status": "completed", "summary": long, "files_created": ["outputs/a.md"]});
        let short = shortened_outcome(&outcome);
        assert_eq!(short["subagent_id"], "h1");
        assert_eq!(short["files_created"], json!(["outputs/a.md"]));
        let summary = short["summary"].as_str().expect("summary");
        assert_eq!(summary.chars().count(), SHORT_SUMMARY_CHARS + 1);
        assert!(summary.ends_with('…'));
        let brief = json!({"summary": "Found it."});
        assert_eq!(shortened_outcome(&brief), brief);
    }
}
