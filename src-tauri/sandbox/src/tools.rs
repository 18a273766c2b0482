//! The `code` app: `execute_code(code, purpose)` (risk exec, untrusted output: a script's output
//! can carry what its tools read). Its result is the run's `SandboxResult`; the script's output
//! streams as the call's progress.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use sentient_agent::tools::{
    CallDescription, Plugin, ProgressKind, ProgressUpdate, Risk, Tool, ToolCtx, ToolDef, ToolError,
    ToolOutput, parse_args,
};

use crate::service::{RunOptions, SandboxHandle};

#[derive(Debug, Deserialize, JsonSchema)]
struct ExecuteArgs {
    /// The Python 3 script. `tools` and `result` are ready to use without importing.
    code: String,
    /// In a few words, what the script is for (shown to the person).
    purpose: String,
}

const DESCRIPTION: &str = "Run a short Python 3 script (standard library only) and get back what it printed, or the value it passed to result(value). Use it for calculations, data handling and files. Inside the script, call Sentient's tools as tools.<tool_name>(argument=value) with keyword arguments only; each returns the tool's JSON result, and tools.available() lists the tools a script can use. Tools that only look things up run; a call that changes, sends or deletes something is refused with ToolRefused, so call such tools directly instead. A failing tool raises ToolError. Files the script writes in its current folder are saved under files/outputs/.";

struct ExecuteCode {
    def: ToolDef,
    sandbox: SandboxHandle,
}

impl Tool for ExecuteCode {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: ExecuteArgs = parse_args(args)?;
            if args.code.trim().is_empty() {
                return Err(ToolError::InvalidArguments(
                    "code is empty: give the script to run.".to_owned(),
                ));
            }
            let sandbox = self.sandbox.upgrade().ok_or_else(|| {
                ToolError::Failed("Code execution isn't running. Try again.".to_owned())
            })?;
            let progress = ctx.progress.clone();
            let options = RunOptions {
                session_id: ctx.session_id.clone(),
                on_output: Some(Arc::new(move |kind: ProgressKind, text: String| {
                    progress(ProgressUpdate {
                        kind,
                        text,
                        data: None,
                    });
                })),
                cancel: ctx.cancel.clone(),
                mark: ctx.mark.clone(),
                ..RunOptions::default()
            };
            tracing::info!(purpose = %args.purpose, "running a script for the assistant");
            let result = sandbox.run(&args.code, options).await;
            ToolOutput::json(result)
        })
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let purpose = args
            .get("purpose")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty())?;
        Some(CallDescription {
            risk_label: None,
            target: Some(purpose.chars().take(80).collect()),
        })
    }

    fn available(&self) -> bool {
        self.sandbox
            .upgrade()
            .is_some_and(|sandbox| sandbox.enabled())
    }
}

/// The `code` app with `execute_code`.
pub fn plugin(sandbox: SandboxHandle) -> Plugin {
    Plugin {
        id: "code".to_owned(),
        display_name: "Code".to_owned(),
        description:
            "Short Python scripts Sentient writes and runs, which can use its other tools."
                .to_owned(),
        category: "built_in".to_owned(),
        icon: "code".to_owned(),
        auth: "none".to_owned(),
        selection_hint:
            "python script code calculate compute math data csv json table chart file convert"
                .to_owned(),
        scoped: false,
        tools: vec![Arc::new(ExecuteCode {
            def: ToolDef::new::<ExecuteArgs>("execute_code", DESCRIPTION, Risk::Exec)
                .untrusted_output(),
            sandbox,
        })],
    }
}
