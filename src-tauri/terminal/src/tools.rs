//! The `terminal` app: `terminal_run(command, cwd?)`, risk exec with a risk function (a listed
//! command, or one that fails a check, is read), untrusted output, never covered by "Allow for
//! this chat", and hidden while the terminal is off.

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use sentient_agent::tools::{
    CallDescription, Plugin, ProgressKind, ProgressUpdate, Risk, Tool, ToolCtx, ToolDef, ToolError,
    ToolOutput, parse_args,
};

use crate::service::{APP, TOOL, TerminalService};

#[derive(Debug, Deserialize, JsonSchema)]
struct RunArgs {
    /// The command line, run by the person's shell.
    command: String,
    /// The folder to run in: absolute, or relative to the default folder. Leave it out for the default folder.
    #[serde(default)]
    cwd: Option<String>,
}

const DESCRIPTION: &str = "Run a command on this computer in the person's shell, in one of the folders they allowed (for example git status, ls, or a project's tests), and get back its exit code and output. Each call is a fresh process with no input; nothing carries over between calls. Commands that format disks, shut the computer down or delete whole folders are never run.";

/// Cards show at most this much of the folder: its end, which names it.
const MOST_FOLDER_CHARS: usize = 120;

struct TerminalRun {
    def: ToolDef,
    terminal: Weak<TerminalService>,
}

impl TerminalRun {
    fn service(&self) -> Option<Arc<TerminalService>> {
        self.terminal.upgrade()
    }

    fn args_of(args: &Value) -> (String, Option<String>) {
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let cwd = args.get("cwd").and_then(Value::as_str).map(str::to_owned);
        (command, cwd)
    }
}

impl Tool for TerminalRun {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: RunArgs = parse_args(args)?;
            let service = self.service().ok_or_else(|| {
                ToolError::Failed(
                    "Commands on this computer aren't available now. Try again.".to_owned(),
                )
            })?;
            let progress = ctx.progress.clone();
            let on_output = Arc::new(move |kind: ProgressKind, text: String| {
                progress(ProgressUpdate {
                    kind,
                    text,
                    data: None,
                });
            });
            let result = service
                .run(
                    &args.command,
                    args.cwd.as_deref(),
                    ctx.origin,
                    &ctx.call_id,
                    &ctx.cancel,
                    Some(on_output),
                )
                .await;
            ToolOutput::json(result)
        })
    }

    /// A listed command only looks, and a call that fails a check runs nothing: both read, so
    /// nobody is asked to approve a refusal. Anything else runs code.
    fn risk_for(&self, args: &Value) -> Risk {
        let Some(service) = self.service() else {
            return Risk::Read;
        };
        let (command, cwd) = Self::args_of(args);
        match service.check_command(&command, cwd.as_deref()) {
            Ok(cleared) if cleared.listed => Risk::Read,
            Ok(_) => Risk::Exec,
            Err(_) => Risk::Read,
        }
    }

    fn risk_varies(&self) -> bool {
        true
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let service = self.service()?;
        let (command, cwd) = Self::args_of(args);
        let folder = service
            .check_command(&command, cwd.as_deref())
            .ok()
            .map(|cleared| {
                let text = cleared.cwd.display().to_string();
                let count = text.chars().count();
                text.chars()
                    .skip(count.saturating_sub(MOST_FOLDER_CHARS))
                    .collect()
            });
        Some(CallDescription {
            risk_label: Some("Runs a command".to_owned()),
            target: folder,
        })
    }

    fn available(&self) -> bool {
        self.service().is_some_and(|s| s.enabled())
    }

    /// Hidden while off: not offered, and not listed either.
    fn listed(&self) -> bool {
        self.available()
    }
}

/// The `terminal` app with `terminal_run`.
pub fn plugin(terminal: &Arc<TerminalService>) -> Plugin {
    Plugin {
        id: APP.to_owned(),
        display_name: "Terminal".to_owned(),
        description: "Commands on this computer, in the folders you allow.".to_owned(),
        category: "built_in".to_owned(),
        icon: "terminal".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "command terminal shell run git status ls folder project build test files directory repository"
            .to_owned(),
        scoped: false,
        tools: vec![Arc::new(TerminalRun {
            def: ToolDef::new::<RunArgs>(TOOL, DESCRIPTION, Risk::Exec)
                .untrusted_output()
                .not_for_chat(),
            terminal: Arc::downgrade(terminal),
        })],
    }
}
