//! The email app's tools: search and read (outside content: anyone can write an email), and
//! send. Every item goes through the privacy filters and the code masking first.

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use super::{EmailImap, MAX_BODY_CHARS, smtp::OutgoingMail};
use crate::ctx::AppCtx;

const APP: &str = "email_imap";

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// Words to look for in the messages.
    query: String,
    /// The folder to search (default the first watched folder, usually INBOX).
    folder: Option<String>,
    /// At most this many messages, newest first (default 10, at most 50).
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// The message's id from a search result.
    id: String,
    /// Its folder (default the first watched folder).
    folder: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct SendArgs {
    /// Who it goes to: email addresses.
    to: Vec<String>,
    subject: String,
    /// The message, as plain text.
    body: String,
    cc: Option<Vec<String>>,
    /// The Message-ID of the message this replies to (its `message_id`).
    in_reply_to: Option<String>,
}

#[derive(Clone, Copy)]
enum Action {
    Search,
    Read,
    Send,
}

struct EmailTool {
    def: ToolDef,
    action: Action,
    apps: AppCtx,
    imap: Arc<EmailImap>,
}

fn failed(error: crate::IntegrationError) -> ToolError {
    ToolError::Failed(error.to_string())
}

fn check_address(address: &str) -> Result<(), ToolError> {
    let ok = address.split_once('@').is_some_and(|(user, domain)| {
        !user.is_empty() && domain.contains('.') && !address.contains(char::is_whitespace)
    });
    if ok {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "\"{address}\" isn't an email address."
        )))
    }
}

impl EmailTool {
    async fn folder(&self, asked: Option<String>) -> String {
        match asked.map(|f| f.trim().to_owned()).filter(|f| !f.is_empty()) {
            Some(folder) => folder,
            None => self
                .imap
                .account()
                .await
                .ok()
                .and_then(|a| a.folders.first().cloned())
                .unwrap_or_else(|| "INBOX".to_owned()),
        }
    }

    async fn run(&self, args: Value) -> Result<Value, ToolError> {
        let imap = &self.imap;
        match self.action {
            Action::Search => {
                let args: SearchArgs = parse_args(args)?;
                let folder = self.folder(args.folder).await;
                let limit = args.limit.unwrap_or(10).clamp(1, 50) as usize;
                let query = args.query;
                let items = imap
                    .with_session(move |session, _| {
                        Box::pin(async move { session.search(&folder, &query, limit, 1000).await })
                    })
                    .await
                    .map_err(failed)?;
                Ok(json!(self.apps.screen(APP, items).await))
            }
            Action::Read => {
                let args: ReadArgs = parse_args(args)?;
                let uid: u32 = args.id.trim().parse().map_err(|_| {
                    ToolError::InvalidArguments(format!(
                        "\"{}\" isn't a message id from a search result.",
                        args.id
                    ))
                })?;
                let folder = self.folder(args.folder).await;
                let items = imap
                    .with_session(move |session, _| {
                        Box::pin(
                            async move { session.fetch(&folder, &[uid], MAX_BODY_CHARS).await },
                        )
                    })
                    .await
                    .map_err(failed)?;
                let shown = self.apps.screen(APP, items).await;
                shown.into_iter().next().ok_or_else(|| {
                    ToolError::Failed(
                        "There is no such message (or it is hidden by your privacy filters)."
                            .to_owned(),
                    )
                })
            }
            Action::Send => {
                let args: SendArgs = parse_args(args)?;
                if args.to.is_empty() {
                    return Err(ToolError::InvalidArguments(
                        "Say who the mail goes to.".to_owned(),
                    ));
                }
                let cc = args.cc.unwrap_or_default();
                for address in args.to.iter().chain(cc.iter()) {
                    check_address(address.trim())?;
                }
                let account = imap.account().await.map_err(failed)?;
                if !account.username.contains('@') {
                    return Err(ToolError::Failed(
                        "The email username isn't an address, so Sentient can't tell which address to send from. Connect Email (IMAP) with your full email address as the username.".to_owned(),
                    ));
                }
                let mail = OutgoingMail {
                    from: account.username.clone(),
                    to: args.to.iter().map(|a| a.trim().to_owned()).collect(),
                    cc: cc.iter().map(|a| a.trim().to_owned()).collect(),
                    subject: args.subject,
                    body: args.body,
                    in_reply_to: args.in_reply_to.filter(|m| !m.trim().is_empty()),
                };
                let message_id = imap.send(mail).await.map_err(failed)?;
                Ok(json!({"ok": true, "message_id": message_id}))
            }
        }
    }
}

impl Tool for EmailTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { ToolOutput::json(self.run(args).await?) })
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let to = args.get("to").and_then(Value::as_array)?;
        let names: Vec<&str> = to.iter().filter_map(Value::as_str).collect();
        Some(CallDescription {
            risk_label: None,
            target: Some(names.join(", ")),
        })
    }

    fn available(&self) -> bool {
        self.apps.offers(APP)
    }
}

/// The email app with its three tools.
pub fn plugin(apps: AppCtx, imap: Arc<EmailImap>) -> Plugin {
    let tool = |def: ToolDef, action| {
        Arc::new(EmailTool {
            def,
            action,
            apps: apps.clone(),
            imap: imap.clone(),
        }) as Arc<dyn Tool>
    };
    Plugin {
        id: APP.to_owned(),
        display_name: "Email (IMAP)".to_owned(),
        description: "Your email account over IMAP and SMTP.".to_owned(),
        category: "communication".to_owned(),
        icon: "mail".to_owned(),
        auth: "manual".to_owned(),
        selection_hint: "email mail inbox message reply send".to_owned(),
        scoped: false,
        tools: vec![
            tool(
                ToolDef::new::<SearchArgs>(
                    "email_imap_search",
                    "Searches your email for messages containing words, newest first.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Search,
            ),
            tool(
                ToolDef::new::<ReadArgs>(
                    "email_imap_read",
                    "Reads one email message in full.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Read,
            ),
            tool(
                ToolDef::new::<SendArgs>(
                    "email_imap_send",
                    "Sends an email from your account.",
                    Risk::Send,
                ),
                Action::Send,
            ),
        ],
    }
}
