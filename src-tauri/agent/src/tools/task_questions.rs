//! The `task_questions` app: `ask_user`, a task run's question to the person, for choices the
//! run can't make on its own. Scoped: offered only inside task runs, which pause after the
//! round and carry on with the answer as this call's result.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::tool::{Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args};

/// Most choices one question offers, and the longest one.
const MAX_OPTIONS: usize = 6;
const MAX_OPTION_CHARS: usize = 80;

pub fn plugin() -> Plugin {
    Plugin {
        id: "task_questions".to_owned(),
        display_name: "Questions".to_owned(),
        description: "Ask the person a question while a task runs.".to_owned(),
        category: "built_in".to_owned(),
        icon: "question".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "ask question choose decide which".to_owned(),
        scoped: true,
        tools: vec![Arc::new(AskUserTool::new())],
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskUserArgs {
    /// The question, in plain words, with what the person needs to decide.
    pub question: String,
    /// Up to six short answers to pick from; leave it out for a free answer.
    #[serde(default)]
    pub options: Option<Vec<String>>,
}

/// At most six short, distinct, non-empty choices, in the model's order.
pub fn clean_options(options: Option<Vec<String>>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for option in options.unwrap_or_default() {
        let option: String = option.trim().chars().take(MAX_OPTION_CHARS).collect();
        if !option.is_empty() && !kept.iter().any(|k| k.eq_ignore_ascii_case(&option)) {
            kept.push(option);
        }
        if kept.len() == MAX_OPTIONS {
            break;
        }
    }
    kept
}

pub struct AskUserTool {
    def: ToolDef,
}

impl AskUserTool {
    fn new() -> Self {
        Self {
            def: ToolDef::new::<AskUserArgs>(
                "ask_user",
                "Ask the person a question and wait for the answer. Only for choices you can't make on your own (which option, a missing detail, something only they can do such as a login); never to confirm risky actions.",
                Risk::Write,
            )
            .internal(),
        }
    }
}

impl Tool for AskUserTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: AskUserArgs = parse_args(args)?;
            let question = args.question.trim();
            if question.is_empty() {
                return Err(ToolError::Failed("Write the question first.".to_owned()));
            }
            let Some(run) = &ctx.run else {
                return Err(ToolError::Failed(
                    "ask_user only works inside a task run. Ask the person in your reply instead."
                        .to_owned(),
                ));
            };
            run.ask_user(&ctx.call_id, question, clean_options(args.options))
                .map_err(ToolError::Failed)?;
            Ok(ToolOutput::text(
                "Your question was sent to the person. The run waits for the answer, which will replace this message.",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_short_distinct_and_at_most_six() {
        let options = Some(
            [
                "IndiGo 07:10",
                " indigo 07:10 ",
                "",
                "Air India 09:40",
                "a",
                "b",
                "c",
                "d",
                "e",
            ]
            .map(String::from)
            .to_vec(),
        );
        assert_eq!(
            clean_options(options),
            ["IndiGo 07:10", "Air India 09:40", "a", "b", "c", "d"]
        );
        assert_eq!(
            clean_options(Some(vec!["x".repeat(200)]))[0].len(),
            MAX_OPTION_CHARS
        );
        assert!(clean_options(None).is_empty());
    }

    #[tokio::test]
    async fn outside_a_task_run_it_refuses_plainly() {
        let home =
            sentient_core::home::Home::at(std::env::temp_dir().join("sentient-ask-user-test"));
        let ctx = ToolCtx::new(home, reqwest::Client::new(), "call_1");
        let tool = AskUserTool::new();
        let outcome = tool
            .call(serde_json::json!({"question": "Which one?"}), &ctx)
            .await;
        assert!(
            matches!(outcome, Err(ToolError::Failed(m)) if m.starts_with("ask_user only works inside a task run"))
        );
    }
}
