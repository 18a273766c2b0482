//! GitHub's tools. Issues are written by other people, so the reads are outside content; the
//! changes are visible to others, so they can move data out.

use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use super::{issue_item, request};
use crate::ctx::AppCtx;
use crate::error::IntegrationError;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// GitHub search words, e.g. `is:open label:bug login` or `repo:owner/name crash`.
    query: String,
    /// Only this repository, as owner/name.
    repo: Option<String>,
    /// open or closed.
    state: Option<String>,
    /// At most this many results (default 10, at most 30).
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct IssueArgs {
    /// The repository, as owner/name.
    repo: String,
    /// The issue or pull request number.
    number: u64,
}

#[derive(Deserialize, JsonSchema)]
struct CreateArgs {
    /// The repository, as owner/name.
    repo: String,
    title: String,
    body: Option<String>,
    labels: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct UpdateArgs {
    /// The repository, as owner/name.
    repo: String,
    number: u64,
    title: Option<String>,
    body: Option<String>,
    /// open or closed.
    state: Option<String>,
    labels: Option<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct CommentArgs {
    /// The repository, as owner/name.
    repo: String,
    number: u64,
    /// The comment, in markdown.
    body: String,
}

#[derive(Clone, Copy)]
enum Action {
    Search,
    Get,
    Create,
    Update,
    Comment,
}

struct GithubTool {
    def: ToolDef,
    action: Action,
    apps: AppCtx,
}

fn repo_path(repo: &str) -> Result<String, ToolError> {
    let ok = repo.split('/').count() == 2
        && repo.split('/').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if ok {
        Ok(repo.to_owned())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "\"{repo}\" isn't a repository; write it as owner/name."
        )))
    }
}

fn failed(error: IntegrationError) -> ToolError {
    ToolError::Failed(error.to_string())
}

fn check_state(state: Option<&str>) -> Result<(), ToolError> {
    match state {
        None | Some("open" | "closed") => Ok(()),
        Some(other) => Err(ToolError::InvalidArguments(format!(
            "state must be open or closed, not \"{other}\"."
        ))),
    }
}

impl GithubTool {
    async fn run(&self, args: Value) -> Result<Value, ToolError> {
        let apps = &self.apps;
        match self.action {
            Action::Search => {
                let args: SearchArgs = parse_args(args)?;
                check_state(args.state.as_deref())?;
                let mut q = args.query.trim().to_owned();
                if let Some(repo) = &args.repo {
                    q.push_str(&format!(" repo:{}", repo_path(repo)?));
                }
                if let Some(state) = &args.state {
                    q.push_str(&format!(" state:{state}"));
                }
                let limit = args.limit.unwrap_or(10).clamp(1, 30);
                let found = request(
                    apps,
                    Method::GET,
                    "/search/issues",
                    &[("q", q), ("per_page", limit.to_string())],
                    None,
                )
                .await
                .map_err(failed)?;
                let items: Vec<Value> = found
                    .get("items")
                    .and_then(Value::as_array)
                    .map(|items| items.iter().map(issue_item).collect())
                    .unwrap_or_default();
                Ok(json!({"total": found.get("total_count"), "items": items}))
            }
            Action::Get => {
                let args: IssueArgs = parse_args(args)?;
                let repo = repo_path(&args.repo)?;
                let path = format!("/repos/{repo}/issues/{}", args.number);
                let issue = request(apps, Method::GET, &path, &[], None)
                    .await
                    .map_err(failed)?;
                let comments = request(
                    apps,
                    Method::GET,
                    &format!("{path}/comments"),
                    &[("per_page", "30".to_owned())],
                    None,
                )
                .await
                .map_err(failed)?;
                let mut item = issue_item(&issue);
                item["comment_list"] = Value::Array(
                    comments
                        .as_array()
                        .map(|list| {
                            list.iter()
                                .map(|c| {
                                    json!({
                                        "author": c.pointer("/user/login"),
                                        "created_at": c.get("created_at"),
                                        "body": c.get("body").and_then(Value::as_str).unwrap_or_default().chars().take(2000).collect::<String>(),
                                    })
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                );
                Ok(item)
            }
            Action::Create => {
                let args: CreateArgs = parse_args(args)?;
                let repo = repo_path(&args.repo)?;
                if args.title.trim().is_empty() {
                    return Err(ToolError::InvalidArguments(
                        "Give the issue a title.".to_owned(),
                    ));
                }
                let mut body = json!({"title": args.title.trim()});
                if let Some(text) = args.body {
                    body["body"] = json!(text);
                }
                if let Some(labels) = args.labels {
                    body["labels"] = json!(labels);
                }
                let issue = request(
                    apps,
                    Method::POST,
                    &format!("/repos/{repo}/issues"),
                    &[],
                    Some(body),
                )
                .await
                .map_err(failed)?;
                Ok(issue_item(&issue))
            }
            Action::Update => {
                let args: UpdateArgs = parse_args(args)?;
                let repo = repo_path(&args.repo)?;
                check_state(args.state.as_deref())?;
                let mut body = serde_json::Map::new();
                if let Some(v) = args.title {
                    body.insert("title".into(), json!(v));
                }
                if let Some(v) = args.body {
                    body.insert("body".into(), json!(v));
                }
                if let Some(v) = args.state {
                    body.insert("state".into(), json!(v));
                }
                if let Some(v) = args.labels {
                    body.insert("labels".into(), json!(v));
                }
                if body.is_empty() {
                    return Err(ToolError::InvalidArguments(
                        "Say what to change: title, body, state or labels.".to_owned(),
                    ));
                }
                let issue = request(
                    apps,
                    Method::PATCH,
                    &format!("/repos/{repo}/issues/{}", args.number),
                    &[],
                    Some(Value::Object(body)),
                )
                .await
                .map_err(failed)?;
                Ok(issue_item(&issue))
            }
            Action::Comment => {
                let args: CommentArgs = parse_args(args)?;
                let repo = repo_path(&args.repo)?;
                if args.body.trim().is_empty() {
                    return Err(ToolError::InvalidArguments(
                        "The comment is empty.".to_owned(),
                    ));
                }
                let comment = request(
                    apps,
                    Method::POST,
                    &format!("/repos/{repo}/issues/{}/comments", args.number),
                    &[],
                    Some(json!({"body": args.body})),
                )
                .await
                .map_err(failed)?;
                Ok(json!({"ok": true, "url": comment.get("html_url")}))
            }
        }
    }
}

impl Tool for GithubTool {
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
        let repo = args.get("repo").and_then(Value::as_str)?;
        let target = match args.get("number").and_then(Value::as_u64) {
            Some(n) => format!("{repo}#{n}"),
            None => repo.to_owned(),
        };
        Some(CallDescription {
            risk_label: None,
            target: Some(target),
        })
    }

    fn available(&self) -> bool {
        self.apps.offers("github")
    }
}

/// The GitHub app with its five tools.
pub fn plugin(apps: AppCtx) -> Plugin {
    let tool = |def: ToolDef, action| {
        Arc::new(GithubTool {
            def,
            action,
            apps: apps.clone(),
        }) as Arc<dyn Tool>
    };
    Plugin {
        id: "github".to_owned(),
        display_name: "GitHub".to_owned(),
        description: "Issues and pull requests on GitHub.".to_owned(),
        category: "development".to_owned(),
        icon: "github".to_owned(),
        auth: "api_key".to_owned(),
        selection_hint: "github issue pull request repository bug".to_owned(),
        scoped: false,
        tools: vec![
            tool(
                ToolDef::new::<SearchArgs>(
                    "github_search_issues",
                    "Searches GitHub issues and pull requests.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Search,
            ),
            tool(
                ToolDef::new::<IssueArgs>(
                    "github_get_issue",
                    "Reads one GitHub issue or pull request with its comments.",
                    Risk::Read,
                )
                .untrusted_output(),
                Action::Get,
            ),
            tool(
                ToolDef::new::<CreateArgs>(
                    "github_create_issue",
                    "Opens a new issue in a GitHub repository.",
                    Risk::Write,
                )
                .exfiltrates(),
                Action::Create,
            ),
            tool(
                ToolDef::new::<UpdateArgs>(
                    "github_update_issue",
                    "Changes a GitHub issue's title, text, state or labels.",
                    Risk::Write,
                )
                .exfiltrates(),
                Action::Update,
            ),
            tool(
                ToolDef::new::<CommentArgs>(
                    "github_comment",
                    "Posts a comment on a GitHub issue or pull request.",
                    Risk::Send,
                ),
                Action::Comment,
            ),
        ],
    }
}
