//! Gmail (contract section 5): six tools over the Gmail API v1, and the history change feed
//! (INBOX additions since the last history id, at most 50 a sync; an expired history (404)
//! starts again from now with a `note`).

use std::sync::Arc;

use base64::Engine as _;
use futures::future::BoxFuture;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::ctx::AppCtx;
use crate::email_imap::message::item_from_raw;
use crate::email_imap::smtp::{OutgoingMail, compose};
use crate::error::IntegrationError;
use crate::feed::{Feed, SyncOutcome};
use crate::google::{call, call_ok};

const APP: &str = "gmail";
const MAX_BODY_CHARS: usize = 8000;
/// Most new messages one sync publishes.
const MAX_NEW_PER_SYNC: usize = 50;

pub(crate) fn base(apps: &AppCtx) -> String {
    format!("{}/users/me", apps.endpoints().gmail.trim_end_matches('/'))
}

/// One message in the gmail item shape.
pub async fn message(apps: &AppCtx, id: &str) -> Result<Value, IntegrationError> {
    let url = format!("{}/messages/{id}", base(apps));
    let value = call_ok(
        apps,
        APP,
        Method::GET,
        &url,
        &[("format", "raw".to_owned())],
        None,
    )
    .await?;
    let raw = value
        .get("raw")
        .and_then(Value::as_str)
        .and_then(|r| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(r.trim_end_matches('='))
                .ok()
        })
        .ok_or_else(|| {
            IntegrationError::Service("Gmail sent a message Sentient couldn't read.".to_owned())
        })?;
    let labels: Vec<Value> = value
        .get("labelIds")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let unread = labels.iter().any(|l| l == "UNREAD");
    let mut item = item_from_raw(&raw, 0, "INBOX", !unread, false, MAX_BODY_CHARS);
    item["id"] = json!(id);
    item["thread_id"] = value.get("threadId").cloned().unwrap_or(Value::Null);
    item["labels"] = Value::Array(labels);
    item["url"] = json!(format!("https://mail.google.com/mail/u/0/#all/{id}"));
    if let Some(snippet) = value.get("snippet").and_then(Value::as_str) {
        item["snippet"] = json!(snippet);
    }
    if let Some(map) = item.as_object_mut() {
        map.remove("mailbox");
    }
    Ok(item)
}

/// Messages matching a Gmail search, newest first.
pub(crate) async fn search(
    apps: &AppCtx,
    query: &str,
    limit: u32,
) -> Result<Vec<Value>, IntegrationError> {
    let url = format!("{}/messages", base(apps));
    let list = call_ok(
        apps,
        APP,
        Method::GET,
        &url,
        &[("q", query.to_owned()), ("maxResults", limit.to_string())],
        None,
    )
    .await?;
    let mut items = Vec::new();
    for id in list
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
    {
        items.push(message(apps, id).await?);
    }
    Ok(items)
}

fn raw_of(mail: &OutgoingMail) -> Result<String, IntegrationError> {
    let composed = compose(mail).map_err(|e| IntegrationError::Invalid(e.to_string()))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(composed.raw))
}

async fn own_address(apps: &AppCtx) -> Result<String, IntegrationError> {
    apps.state(APP).account_label.ok_or_else(|| {
        IntegrationError::Invalid("Gmail isn't connected. Connect it in Integrations.".to_owned())
    })
}

/// Gmail's history feed.
pub struct GmailFeed {
    pub apps: AppCtx,
}

#[async_trait::async_trait]
impl Feed for GmailFeed {
    fn source(&self) -> &'static str {
        APP
    }

    fn display_name(&self) -> &'static str {
        "Gmail"
    }

    fn kind(&self) -> &'static str {
        "gmail_history"
    }

    async fn sync(&self, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
        sync(&self.apps, cursor).await
    }
}

/// One feed sync: INBOX additions since the cursor's history id.
pub async fn sync(apps: &AppCtx, cursor: Option<Value>) -> Result<SyncOutcome, IntegrationError> {
    let history_id = cursor
        .as_ref()
        .and_then(|c| c.get("history_id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let baseline = |note: Option<String>| async move {
        let profile = call_ok(
            apps,
            APP,
            Method::GET,
            &format!("{}/profile", base(apps)),
            &[],
            None,
        )
        .await?;
        let id = profile
            .get("historyId")
            .and_then(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .or_else(|| v.as_u64().map(|n| n.to_string()))
            })
            .ok_or_else(|| {
                IntegrationError::Service("Gmail didn't say where its history is.".to_owned())
            })?;
        Ok::<_, IntegrationError>(SyncOutcome {
            items: Vec::new(),
            cursor: json!({"history_id": id}),
            rebaselined: true,
            note,
        })
    };
    let Some(history_id) = history_id else {
        return baseline(None).await;
    };
    let url = format!("{}/history", base(apps));
    let (status, value) = call(
        apps,
        APP,
        Method::GET,
        &url,
        &[
            ("startHistoryId", history_id.clone()),
            ("historyTypes", "messageAdded".to_owned()),
            ("labelId", "INBOX".to_owned()),
            ("maxResults", "500".to_owned()),
        ],
        None,
    )
    .await?;
    if status == 404 {
        return baseline(Some(
            "Gmail's change history had expired, so Sentient started again from now; mail from the gap was not announced.".to_owned(),
        ))
        .await;
    }
    if !(200..300).contains(&status) {
        return Err(IntegrationError::Service(format!(
            "Gmail answered {status} to the change check."
        )));
    }
    let mut ids: Vec<String> = Vec::new();
    for entry in value
        .get("history")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for added in entry
            .get("messagesAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(id) = added.pointer("/message/id").and_then(Value::as_str)
                && !ids.iter().any(|i| i == id)
            {
                ids.push(id.to_owned());
            }
        }
    }
    ids.truncate(MAX_NEW_PER_SYNC);
    let mut items = Vec::new();
    for id in &ids {
        match message(apps, id).await {
            Ok(item) => items.push(item),
            // A message deleted meanwhile is simply gone.
            Err(IntegrationError::Service(text)) if text.contains("found nothing") => {}
            Err(error) => return Err(error),
        }
    }
    let next = value
        .get("historyId")
        .and_then(|v| {
            v.as_str()
                .map(str::to_owned)
                .or_else(|| v.as_u64().map(|n| n.to_string()))
        })
        .unwrap_or(history_id);
    Ok(SyncOutcome {
        items,
        cursor: json!({"history_id": next}),
        rebaselined: false,
        note: None,
    })
}

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// Gmail search words, e.g. `from:jane is:unread` or `invoice newer_than:7d`.
    query: String,
    /// At most this many messages (default 10, at most 25).
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct IdArgs {
    /// The message's id from a search result.
    id: String,
}

#[derive(Deserialize, JsonSchema)]
struct NewMailArgs {
    /// Who it goes to: email addresses.
    to: Vec<String>,
    subject: String,
    /// The message, as plain text.
    body: String,
    cc: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct ReplyArgs {
    /// The id of the message to reply to.
    id: String,
    /// The reply, as plain text.
    body: String,
}

#[derive(Clone, Copy)]
enum Action {
    Search,
    Read,
    Draft,
    Trash,
    Reply,
    Send,
}

struct GmailTool {
    def: ToolDef,
    action: Action,
    apps: AppCtx,
}

fn failed(error: IntegrationError) -> ToolError {
    ToolError::Failed(error.to_string())
}

impl GmailTool {
    async fn new_mail(&self, args: NewMailArgs) -> Result<String, ToolError> {
        if args.to.is_empty() {
            return Err(ToolError::InvalidArguments(
                "Say who the mail goes to.".to_owned(),
            ));
        }
        let mail = OutgoingMail {
            from: own_address(&self.apps).await.map_err(failed)?,
            to: args.to,
            cc: args.cc.unwrap_or_default(),
            subject: args.subject,
            body: args.body,
            in_reply_to: None,
        };
        raw_of(&mail).map_err(failed)
    }

    async fn run(&self, args: Value) -> Result<Value, ToolError> {
        let apps = &self.apps;
        match self.action {
            Action::Search => {
                let args: SearchArgs = parse_args(args)?;
                let items = search(apps, &args.query, args.limit.unwrap_or(10).clamp(1, 25))
                    .await
                    .map_err(failed)?;
                Ok(json!(apps.screen(APP, items).await))
            }
            Action::Read => {
                let args: IdArgs = parse_args(args)?;
                let item = message(apps, &args.id).await.map_err(failed)?;
                apps.screen(APP, vec![item])
                    .await
                    .into_iter()
                    .next()
                    .ok_or_else(|| {
                        ToolError::Failed(
                            "That message is hidden by your privacy filters.".to_owned(),
                        )
                    })
            }
            Action::Draft => {
                let args: NewMailArgs = parse_args(args)?;
                let raw = self.new_mail(args).await?;
                let url = format!("{}/drafts", base(apps));
                let draft = call_ok(
                    apps,
                    APP,
                    Method::POST,
                    &url,
                    &[],
                    Some(&json!({"message": {"raw": raw}})),
                )
                .await
                .map_err(failed)?;
                Ok(json!({"ok": true, "draft_id": draft.get("id")}))
            }
            Action::Trash => {
                let args: IdArgs = parse_args(args)?;
                let url = format!("{}/messages/{}/trash", base(apps), args.id);
                call_ok(apps, APP, Method::POST, &url, &[], None)
                    .await
                    .map_err(failed)?;
                Ok(json!({"ok": true, "id": args.id}))
            }
            Action::Reply => {
                let args: ReplyArgs = parse_args(args)?;
                let original = message(apps, &args.id).await.map_err(failed)?;
                let text = |k: &str| {
                    original
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let subject = text("subject");
                let subject = if subject.to_lowercase().starts_with("re:") {
                    subject
                } else {
                    format!("Re: {subject}")
                };
                let mail = OutgoingMail {
                    from: own_address(apps).await.map_err(failed)?,
                    to: vec![text("sender_email")],
                    cc: Vec::new(),
                    subject,
                    body: args.body,
                    in_reply_to: Some(text("message_id")).filter(|m| !m.is_empty()),
                };
                let raw = raw_of(&mail).map_err(failed)?;
                let url = format!("{}/messages/send", base(apps));
                let sent = call_ok(
                    apps,
                    APP,
                    Method::POST,
                    &url,
                    &[],
                    Some(&json!({"raw": raw, "threadId": original.get("thread_id")})),
                )
                .await
                .map_err(failed)?;
                Ok(json!({"ok": true, "id": sent.get("id")}))
            }
            Action::Send => {
                let args: NewMailArgs = parse_args(args)?;
                let raw = self.new_mail(args).await?;
                let url = format!("{}/messages/send", base(apps));
                let sent = call_ok(
                    apps,
                    APP,
                    Method::POST,
                    &url,
                    &[],
                    Some(&json!({"raw": raw})),
                )
                .await
                .map_err(failed)?;
                Ok(json!({"ok": true, "id": sent.get("id")}))
            }
        }
    }
}

impl Tool for GmailTool {
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
        if matches!(self.action, Action::Trash) {
            return Some(CallDescription {
                risk_label: Some("Deletes".to_owned()),
                target: args.get("id").and_then(Value::as_str).map(str::to_owned),
            });
        }
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

/// The Gmail app with its six tools.
pub fn plugin(apps: AppCtx) -> Plugin {
    let tool = |def: ToolDef, action| {
        Arc::new(GmailTool {
            def,
            action,
            apps: apps.clone(),
        }) as Arc<dyn Tool>
    };
    Plugin {
        id: APP.to_owned(),
        display_name: "Gmail".to_owned(),
        description: "Your Gmail.".to_owned(),
        category: "communication".to_owned(),
        icon: "gmail".to_owned(),
        auth: "oauth".to_owned(),
        selection_hint: "email gmail mail inbox message reply draft send".to_owned(),
        scoped: false,
        tools: vec![
            tool(
                ToolDef::new::<SearchArgs>(
                    "gmail_search",
                    "Searches your Gmail, newest first.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Search,
            ),
            tool(
                ToolDef::new::<IdArgs>(
                    "gmail_read",
                    "Reads one Gmail message in full.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Read,
            ),
            tool(
                ToolDef::new::<NewMailArgs>(
                    "gmail_create_draft",
                    "Saves a draft in Gmail without sending it.",
                    Risk::Write,
                ),
                Action::Draft,
            ),
            tool(
                ToolDef::new::<IdArgs>(
                    "gmail_trash",
                    "Moves a Gmail message to the trash.",
                    Risk::Write,
                ),
                Action::Trash,
            ),
            tool(
                ToolDef::new::<ReplyArgs>(
                    "gmail_reply",
                    "Replies to a Gmail message in its thread.",
                    Risk::Send,
                ),
                Action::Reply,
            ),
            tool(
                ToolDef::new::<NewMailArgs>(
                    "gmail_send_email",
                    "Sends a new email from Gmail.",
                    Risk::Send,
                ),
                Action::Send,
            ),
        ],
    }
}
