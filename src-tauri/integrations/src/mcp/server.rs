//! One MCP server's connection: the rmcp client over a child process (in its own process group,
//! so stopping it stops everything it started) or streamable HTTP, its status and its tools.

use sentient_core::sync::RwLockExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::RwLock;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use sentient_core::config::{McpServerConfig, McpTransport};
use sentient_core::domain::tool_info::Risk;

use super::values::Secrets;

/// Where a server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerStatus {
    Connecting,
    Connected,
    NeedsSignIn,
    Error,
    Disconnected,
    Disabled,
}

impl ServerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::NeedsSignIn => "needs_sign_in",
            Self::Error => "error",
            Self::Disconnected => "disconnected",
            Self::Disabled => "disabled",
        }
    }
}

/// One of a server's tools as the server list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct McpToolInfo {
    /// The Sentient tool name, `mcp_<server>_<tool>`.
    pub name: String,
    /// The server's own name for it.
    pub mcp_name: String,
    pub description: String,
    pub risk: Risk,
    /// The tool runs other tools named by a slug, so each call's risk comes from its slugs.
    pub per_call: bool,
}

type Client = RunningService<RoleClient, ()>;

struct Live {
    status: ServerStatus,
    error: Option<String>,
    missing: Vec<String>,
    tools: Vec<(McpToolInfo, Value)>,
}

/// A server and its connection.
pub struct Server {
    pub name: String,
    live: RwLock<Live>,
    /// A sign-in is stored for this server.
    signed_in: std::sync::atomic::AtomicBool,
    client: tokio::sync::RwLock<Option<Client>>,
    /// Where `integrations.mcp_timeout_s` is read at each call, so a changed limit applies to
    /// servers already connected; `None` keeps the limit given at the last connect.
    settings: Option<sentient_core::config::ConfigService>,
    timeout: RwLock<Duration>,
}

/// A tool name models accept: letters, digits, `_` and `-`, at most 64 characters.
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = format!("{}{server}_{clean}", super::APP_PREFIX);
    name.truncate(64);
    name
}

impl Server {
    pub fn new(name: &str, settings: Option<sentient_core::config::ConfigService>) -> Self {
        Self {
            settings,
            name: name.to_owned(),
            live: RwLock::new(Live {
                status: ServerStatus::Connecting,
                error: None,
                missing: Vec::new(),
                tools: Vec::new(),
            }),
            client: tokio::sync::RwLock::new(None),
            timeout: RwLock::new(Duration::from_secs(60)),
            signed_in: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub fn status(&self) -> (ServerStatus, Option<String>) {
        let live = self.live.read_unpoisoned();
        (live.status, live.error.clone())
    }

    pub fn is_connected(&self) -> bool {
        self.status().0 == ServerStatus::Connected
    }

    pub fn missing(&self) -> Vec<String> {
        self.live.read_unpoisoned().missing.clone()
    }

    pub fn tools(&self) -> Vec<McpToolInfo> {
        self.live
            .read_unpoisoned()
            .tools
            .iter()
            .map(|(info, _)| info.clone())
            .collect()
    }

    /// Each tool with its input schema.
    pub fn tools_with_schemas(&self) -> Vec<(McpToolInfo, Value)> {
        self.live.read_unpoisoned().tools.clone()
    }

    fn set(&self, status: ServerStatus, error: Option<String>) {
        let mut live = self.live.write_unpoisoned();
        live.status = status;
        live.error = error;
    }

    pub fn set_missing(&self, missing: Vec<String>) {
        self.live.write_unpoisoned().missing = missing;
    }

    pub fn signed_in(&self) -> bool {
        self.signed_in.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn set_signed_in(&self, signed_in: bool) {
        self.signed_in
            .store(signed_in, std::sync::atomic::Ordering::Relaxed);
    }

    /// Records a status and its sentence without touching the connection.
    pub fn mark(&self, status: ServerStatus, error: &str) {
        self.set(status, Some(error.to_owned()));
    }

    pub fn mark_connecting(&self) {
        self.set(ServerStatus::Connecting, None);
    }

    /// Closes the connection (a child process and everything it started is stopped) and
    /// records why. The tools stay listed, unavailable.
    pub async fn disconnect(&self, status: ServerStatus, error: Option<String>) {
        let client = self.client.write().await.take();
        if let Some(client) = client {
            let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
        }
        self.set(status, error);
    }

    /// Connects with these settings and values, replacing any earlier connection.
    pub async fn connect(&self, config: &McpServerConfig, secrets: &Secrets, timeout: Duration) {
        self.disconnect(ServerStatus::Connecting, None).await;
        *self.timeout.write_unpoisoned() = timeout;
        let started = tokio::time::timeout(timeout, start(config, secrets)).await;
        let client = match started {
            Ok(Ok(client)) => client,
            Ok(Err((status, error))) => {
                tracing::info!(server = %self.name, error, "a tool server did not connect");
                self.set(status, Some(error));
                return;
            }
            Err(_) => {
                self.set(
                    ServerStatus::Error,
                    Some(format!(
                        "The server didn't answer within {} seconds.",
                        timeout.as_secs()
                    )),
                );
                return;
            }
        };
        let listed = tokio::time::timeout(timeout, client.list_all_tools()).await;
        match listed {
            Ok(Ok(tools)) => {
                let tools = tools.iter().map(|t| self.describe(t)).collect();
                {
                    let mut live = self.live.write_unpoisoned();
                    live.tools = tools;
                    live.status = ServerStatus::Connected;
                    live.error = None;
                }
                *self.client.write().await = Some(client);
                tracing::info!(server = %self.name, "tool server connected");
            }
            Ok(Err(error)) => {
                self.set(
                    ServerStatus::Error,
                    Some(format!("The server didn't list its tools: {error}")),
                );
                let _ = client.cancel().await;
            }
            Err(_) => {
                self.set(
                    ServerStatus::Error,
                    Some("The server didn't list its tools in time.".to_owned()),
                );
                let _ = client.cancel().await;
            }
        }
    }

    fn describe(&self, tool: &Tool) -> (McpToolInfo, Value) {
        let schema = Value::Object((*tool.input_schema).clone());
        let per_call = super::slug_risk::takes_slugs(&schema);
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        (
            McpToolInfo {
                name: tool_name(&self.name, &tool.name),
                mcp_name: tool.name.to_string(),
                description: tool
                    .description
                    .as_deref()
                    .map(str::to_owned)
                    .or_else(|| tool.title.clone())
                    .unwrap_or_default(),
                risk: super::risk_of(read_only),
                per_call,
            },
            schema,
        )
    }

    /// Calls one tool: `{content, structured?}`, or why not.
    pub async fn call(&self, mcp_name: &str, args: Value) -> Result<Value, McpCallError> {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => return Err(McpCallError::NotAnObject),
        };
        let timeout = self.settings.as_ref().map_or_else(
            || *self.timeout.read_unpoisoned(),
            |s| Duration::from_secs(u64::from(s.current().integrations.mcp_timeout_s)),
        );
        let guard = self.client.read().await;
        let Some(client) = guard.as_ref() else {
            return Err(McpCallError::NotConnected(self.name.clone()));
        };
        let mut params = CallToolRequestParams::new(mcp_name.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        match tokio::time::timeout(timeout, client.call_tool(params)).await {
            Ok(Ok(result)) => answer(result),
            Ok(Err(error)) => Err(McpCallError::Failed(self.name.clone(), error.to_string())),
            Err(_) => Err(McpCallError::TooSlow(self.name.clone(), timeout.as_secs())),
        }
    }
}

/// Why a call to a server's tool gave no answer, as the sentence the model sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpCallError {
    #[error("The tool's arguments must be a JSON object.")]
    NotAnObject,
    #[error("The tool server \"{0}\" isn't connected. Check it in Integrations.")]
    NotConnected(String),
    #[error("The tool server \"{0}\" failed: {1}")]
    Failed(String, String),
    #[error("The tool server \"{0}\" didn't answer within {1} seconds.")]
    TooSlow(String, u64),
    #[error("The tool reported an error.")]
    ToolError,
    /// The tool's own error text, as it wrote it.
    #[error("{0}")]
    ToolSaid(String),
}

/// `{content: text, structured?}`; `structured` is left out when it only repeats the text.
fn answer(result: CallToolResult) -> Result<Value, McpCallError> {
    let text: Vec<String> = result
        .content
        .iter()
        .map(|block| match block.as_text() {
            Some(t) => t.text.clone(),
            None => serde_json::to_string(block).unwrap_or_default(),
        })
        .collect();
    let content = text.join("\n");
    if result.is_error == Some(true) {
        return Err(if content.is_empty() {
            McpCallError::ToolError
        } else {
            McpCallError::ToolSaid(content)
        });
    }
    let structured = result.structured_content.filter(|s| {
        let repeats_text = *s == json!({"result": content})
            || serde_json::from_str::<Value>(&content).is_ok_and(|parsed| parsed == *s);
        !repeats_text
    });
    let mut out = json!({"content": content});
    if let Some(structured) = structured {
        out["structured"] = structured;
    }
    Ok(out)
}

/// Starts the transport and the MCP handshake; the error is the status to show and a sentence.
async fn start(
    config: &McpServerConfig,
    secrets: &Secrets,
) -> Result<Client, (ServerStatus, String)> {
    match config.transport {
        McpTransport::Stdio => {
            let mut command = tokio::process::Command::new(&config.command);
            command
                .args(&config.args)
                .envs(secrets.env.iter())
                .kill_on_drop(true);
            let mut wrapped = process_wrap::tokio::CommandWrap::from(command);
            #[cfg(unix)]
            wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
            #[cfg(windows)]
            wrapped.wrap(process_wrap::tokio::JobObject);
            let (transport, _stderr) = TokioChildProcess::builder(wrapped)
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|e| {
                    (
                        ServerStatus::Error,
                        format!("\"{}\" could not be started: {e}", config.command),
                    )
                })?;
            ().serve(transport).await.map_err(|e| {
                tracing::info!(error = %e, command = %config.command, "a tool server program did not answer");
                (
                    ServerStatus::Error,
                    format!(
                        "\"{}\" started but didn't answer as a tool server. Check its command and arguments.",
                        config.command
                    ),
                )
            })
        }
        McpTransport::Http => {
            let headers = header_map(&secrets.headers)?;
            let transport = StreamableHttpClientTransport::with_client(
                reqwest::Client::new(),
                StreamableHttpClientTransportConfig::with_uri(config.url.clone())
                    .custom_headers(headers),
            );
            ().serve(transport).await.map_err(|e| {
                if e.auth_challenge().is_some() || e.to_string().contains("401") {
                    let error = if secrets.headers.is_empty() {
                        "This server asks you to sign in."
                    } else {
                        "The server didn't accept the saved headers. Change their values with the key button on the server."
                    };
                    (ServerStatus::NeedsSignIn, error.to_owned())
                } else {
                    tracing::info!(error = %e, url = %config.url, "a tool server did not answer");
                    (
                        ServerStatus::Error,
                        format!(
                            "The server at {} didn't answer as a tool server. Check the address and that the server is running.",
                            config.url
                        ),
                    )
                }
            })
        }
    }
}

fn header_map(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, (ServerStatus, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            let name = http::HeaderName::try_from(k.as_str());
            let value = http::HeaderValue::try_from(v.as_str());
            match (name, value) {
                (Ok(name), Ok(mut value)) => {
                    value.set_sensitive(true);
                    Ok((name, value))
                }
                _ => Err((
                    ServerStatus::Error,
                    format!("The saved header {k} isn't valid. Change it with the key button."),
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_valid_for_models() {
        assert_eq!(tool_name("files", "read_file"), "mcp_files_read_file");
        assert_eq!(tool_name("x", "get sum/2"), "mcp_x_get_sum_2");
        assert_eq!(tool_name("x", &"a".repeat(100)).len(), 64);
    }

    #[test]
    fn structured_content_that_repeats_the_text_is_left_out() {
        let mut result = CallToolResult::success(vec![rmcp::model::ContentBlock::text("42")]);
        result.structured_content = Some(json!({"result": "42"}));
        assert_eq!(answer(result).expect("ok"), json!({"content": "42"}));
        let mut result = CallToolResult::success(vec![rmcp::model::ContentBlock::text("sum")]);
        result.structured_content = Some(json!({"sum": 3}));
        assert_eq!(
            answer(result).expect("ok"),
            json!({"content": "sum", "structured": {"sum": 3}})
        );
        let failed = CallToolResult::error(vec![rmcp::model::ContentBlock::text("no such file")]);
        assert_eq!(
            answer(failed).map_err(|e| e.to_string()),
            Err("no such file".to_owned())
        );
    }
}
