//! The `browser` app: open, read and act in web pages (contract section 12). Every result can
//! carry what a website wrote (untrusted output); a failure is `{error}` the model can act on.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::safety::{self, Consequence};
use crate::service::BrowserService;

#[derive(Debug, Deserialize, JsonSchema)]
struct OpenArgs {
    /// The full web address (http or https).
    url: String,
    /// A browser profile to use for this and the following browser calls; empty keeps the current one.
    #[serde(default)]
    profile: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
struct RefArgs {
    /// The element's ref from the latest snapshot, such as e12.
    #[serde(rename = "ref")]
    reference: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TypeArgs {
    /// The field's ref from the latest snapshot, such as e4.
    #[serde(rename = "ref")]
    reference: String,
    /// The text to type; it replaces what the field holds.
    text: String,
    /// Press Enter afterwards.
    #[serde(default)]
    submit: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SelectArgs {
    /// The list's ref from the latest snapshot.
    #[serde(rename = "ref")]
    reference: String,
    /// The option's label, value or position (counting from 0).
    option: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PressArgs {
    /// A key such as enter, esc, tab, page down, or a combination such as ctrl+a.
    key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ScrollArgs {
    /// down, up, top, bottom, left or right.
    #[serde(default = "down")]
    direction: String,
}

fn down() -> String {
    "down".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TabsArgs {
    /// A browser profile; empty uses the current one.
    #[serde(default)]
    profile: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SwitchArgs {
    /// The tab's index from browser_tabs, counting from 0.
    index: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ExtractArgs {
    /// What you want to know; only the most related paragraphs are kept. Empty returns the main text.
    #[serde(default)]
    question: String,
}

/// Which browser tool a [`BrowserTool`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Open,
    Snapshot,
    Click,
    Type,
    Select,
    Press,
    Scroll,
    Back,
    Tabs,
    SwitchTab,
    Extract,
    Screenshot,
    Close,
}

struct BrowserTool {
    def: ToolDef,
    op: Op,
    service: BrowserService,
}

impl Tool for BrowserTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            // A call cancelled (its Cancel) or dropped (Stop everything ends the whole reply)
            // stops the page loading; the browser stays.
            let mut unfinished = StopWhenDropped(Some(self.service.clone()));
            let work = crate::actions::run(&self.service, self.op, args, ctx);
            let result = tokio::select! {
                result = work => result.map_err(ToolError::Failed).and_then(ToolOutput::json),
                () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            };
            unfinished.0 = None;
            result
        })
    }

    fn risk_for(&self, args: &Value) -> Risk {
        if self.consequence(args).is_some() {
            Risk::Send
        } else {
            self.def.risk
        }
    }

    fn risk_varies(&self) -> bool {
        matches!(self.op, Op::Click | Op::Type | Op::Press)
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let consequence = self.consequence(args)?;
        let target = self
            .target_element(args)
            .map(|e| e.name)
            .filter(|n| !n.is_empty());
        Some(CallDescription {
            risk_label: Some(consequence.label().to_owned()),
            target,
        })
    }

    fn available(&self) -> bool {
        self.service.unavailable_reason().is_none()
    }

    fn urls(&self, args: &Value) -> Vec<String> {
        match self.op {
            Op::Open => args
                .get("url")
                .and_then(Value::as_str)
                .map(|u| vec![u.to_owned()])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

impl BrowserTool {
    fn target_element(&self, args: &Value) -> Option<crate::snapshot::Element> {
        match self.op {
            Op::Click | Op::Type => args
                .get("ref")
                .and_then(Value::as_str)
                .and_then(|r| self.service.element(r)),
            Op::Press => self
                .service
                .last_snapshot()
                .elements
                .into_values()
                .find(|e| e.focused),
            _ => None,
        }
    }

    /// What this call would do beyond the page, as far as the last snapshot tells.
    fn consequence(&self, args: &Value) -> Option<Consequence> {
        let element = self.target_element(args)?;
        match self.op {
            Op::Click => safety::click_consequence(&element),
            Op::Type if args.get("submit").and_then(Value::as_bool) == Some(true) => {
                safety::submit_consequence(&element)
            }
            Op::Press => {
                let key = args.get("key").and_then(Value::as_str).unwrap_or_default();
                let enter = crate::keys::parse(key).is_ok_and(|(m, k)| m == 0 && k == "Enter");
                if enter {
                    safety::submit_consequence(&element)
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

const OPEN: &str = "Open a web page in the browser and get a snapshot of it (its buttons, fields and links, each with a ref such as e12, and its text). Use it for sites without their own app. profile picks a browser profile (its own sign-ins) for this and the following browser calls.";
const SNAPSHOT: &str = "Read the current page again: its buttons, fields and links with fresh refs, and its text. Take one after the page changes; refs from an older snapshot stop working.";
const CLICK: &str = "Click the element with this ref from the latest snapshot. Clicks that buy, pay, send, post or delete ask the person first.";
const TYPE: &str = "Type text into the field with this ref (it replaces what the field holds); submit presses Enter afterwards. Never for passwords, card details, one-time codes or other secrets: ask the person to fill those in.";
const SELECT: &str = "Pick an option in the list with this ref, by its label, value or position.";
const PRESS: &str = "Press a key in the page, such as enter, esc, tab, page down or ctrl+a.";
const SCROLL: &str = "Scroll the page: down, up, top, bottom, left or right.";
const BACK: &str = "Go back to the previous page in this tab.";
const TABS: &str = "List the browser's open tabs.";
const SWITCH: &str = "Switch to another open tab by its index from browser_tabs.";
const EXTRACT: &str = "Read the page's main text (without menus, headers and footers). With a question, only the most related paragraphs are kept.";
const SCREENSHOT: &str =
    "Save a picture of the visible page under outputs/browser/ in Sentient's files.";
const CLOSE: &str = "Close the browser (it opens again on the next browser call).";

/// The `browser` app with its tools.
pub fn plugin(service: BrowserService) -> Plugin {
    let tool = |op: Op, def: ToolDef| -> Arc<dyn Tool> {
        Arc::new(BrowserTool {
            def: def.untrusted_output(),
            op,
            service: service.clone(),
        })
    };
    Plugin {
        id: "browser".to_owned(),
        display_name: "Browser".to_owned(),
        description: "Reads and uses web pages in a browser on this computer, for sites without their own app.".to_owned(),
        category: "built_in".to_owned(),
        icon: "globe".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "browser website web page site click form fill book order shop sign in portal open page tab screenshot".to_owned(),
        scoped: false,
        tools: vec![
            tool(Op::Open, ToolDef::new::<OpenArgs>("browser_open", OPEN, Risk::Read)),
            tool(Op::Snapshot, ToolDef::new::<NoArgs>("browser_snapshot", SNAPSHOT, Risk::Read)),
            tool(Op::Click, ToolDef::new::<RefArgs>("browser_click", CLICK, Risk::Write)),
            tool(Op::Type, ToolDef::new::<TypeArgs>("browser_type", TYPE, Risk::Write).exfiltrates()),
            tool(Op::Select, ToolDef::new::<SelectArgs>("browser_select", SELECT, Risk::Write)),
            tool(Op::Press, ToolDef::new::<PressArgs>("browser_press", PRESS, Risk::Write)),
            tool(Op::Scroll, ToolDef::new::<ScrollArgs>("browser_scroll", SCROLL, Risk::Read)),
            tool(Op::Back, ToolDef::new::<NoArgs>("browser_back", BACK, Risk::Read)),
            tool(Op::Tabs, ToolDef::new::<TabsArgs>("browser_tabs", TABS, Risk::Read)),
            tool(Op::SwitchTab, ToolDef::new::<SwitchArgs>("browser_switch_tab", SWITCH, Risk::Read)),
            tool(Op::Extract, ToolDef::new::<ExtractArgs>("browser_extract", EXTRACT, Risk::Read)),
            tool(Op::Screenshot, ToolDef::new::<NoArgs>("browser_screenshot", SCREENSHOT, Risk::Read)),
            tool(Op::Close, ToolDef::new::<NoArgs>("browser_close", CLOSE, Risk::Read)),
        ],
    }
}

/// The arguments of each tool, read before anything is done.
pub(crate) enum Args {
    Open {
        url: String,
        profile: String,
    },
    None,
    Ref(String),
    Type {
        reference: String,
        text: String,
        submit: bool,
    },
    Select {
        reference: String,
        option: String,
    },
    Press(String),
    Scroll(String),
    Tabs(String),
    Switch(usize),
    Extract(String),
}

pub(crate) fn read_args(op: Op, args: Value) -> Result<Args, String> {
    let invalid = |e: ToolError| e.to_string();
    Ok(match op {
        Op::Open => {
            let a: OpenArgs = parse_args(args).map_err(invalid)?;
            Args::Open {
                url: a.url,
                profile: a.profile,
            }
        }
        Op::Click => Args::Ref(parse_args::<RefArgs>(args).map_err(invalid)?.reference),
        Op::Type => {
            let a: TypeArgs = parse_args(args).map_err(invalid)?;
            Args::Type {
                reference: a.reference,
                text: a.text,
                submit: a.submit,
            }
        }
        Op::Select => {
            let a: SelectArgs = parse_args(args).map_err(invalid)?;
            Args::Select {
                reference: a.reference,
                option: a.option,
            }
        }
        Op::Press => Args::Press(parse_args::<PressArgs>(args).map_err(invalid)?.key),
        Op::Scroll => Args::Scroll(parse_args::<ScrollArgs>(args).map_err(invalid)?.direction),
        Op::Tabs => Args::Tabs(parse_args::<TabsArgs>(args).map_err(invalid)?.profile),
        Op::SwitchTab => Args::Switch(parse_args::<SwitchArgs>(args).map_err(invalid)?.index),
        Op::Extract => Args::Extract(parse_args::<ExtractArgs>(args).map_err(invalid)?.question),
        Op::Snapshot | Op::Back | Op::Screenshot | Op::Close => {
            parse_args::<NoArgs>(args).map_err(invalid)?;
            Args::None
        }
    })
}

/// Stops the page loading when a call ends before its action did.
struct StopWhenDropped(Option<BrowserService>);

impl Drop for StopWhenDropped {
    fn drop(&mut self) {
        if let Some(service) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move { service.stop_loading().await });
        }
    }
}

/// `{error, needs_user: reason}`: something only the person may do in the page; a task run
/// pauses on it and asks them, with `reason` in its question.
pub(crate) fn needs_user(message: &str, reason: &str) -> Value {
    json!({"error": message, "needs_user": reason})
}
