//! Outside tool servers (MCP, contract section 5): each server is the app `mcp_<server>` with
//! tools `mcp_<server>_<tool>`, reached over stdio (a program started here, its whole process
//! tree stopped on remove, off or quit) or streamable HTTP. Settings keep each server's shape
//! (`integrations.mcp_servers`); env and header values live in the keychain (`mcp:<name>`,
//! `mcp:<name>:headers`). Connections run in the background, so a slow server never holds up
//! a listing or `/api/health`; changes to servers run one at a time.

mod server;
pub mod sign_in;
pub mod slug_risk;
pub mod tools;
mod values;

use sentient_core::sync::MutexExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use sentient_core::config::{McpAuth, McpServerConfig, McpTransport};
use sentient_core::domain::integration::{Integration, PrivacyFilters, Setup};
use sentient_core::domain::tool_info::{Risk, ToolInfo};

use sentient_agent::tools::ToolRegistry;

use crate::ctx::{AppCtx, parse_access};
use crate::error::IntegrationError;
use crate::oauth::{OAuthListener, Pending, SIGN_IN_WINDOW};
use server::Server;
pub use server::{McpToolInfo, ServerStatus};
pub use values::NewMcpServer;

/// How long adding a server (or filling in its values) waits for its first connection.
pub const FIRST_CONNECTION: Duration = Duration::from_secs(15);
/// How often a server that asked for a sign-in is tried again.
pub const SIGN_IN_RETRY: Duration = Duration::from_secs(5 * 60);

/// The prefix of every MCP server's app id.
pub const APP_PREFIX: &str = "mcp_";

/// The server a `mcp_<server>` app id names.
pub fn server_of(app_id: &str) -> Option<&str> {
    app_id.strip_prefix(APP_PREFIX).filter(|n| !n.is_empty())
}

/// One server as `GET /api/integrations/mcp` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct McpServerInfo {
    pub name: String,
    pub transport: String,
    pub command: String,
    pub args: Vec<String>,
    pub url: String,
    pub env_keys: Vec<String>,
    pub auth: String,
    pub header_keys: Vec<String>,
    pub missing_values: Vec<String>,
    pub signed_in: bool,
    pub signing_in: bool,
    pub enabled: bool,
    pub access: String,
    /// connecting, connected, needs_sign_in, error, disconnected or disabled
    pub status: String,
    pub tools: Vec<McpToolInfo>,
    pub error: Option<String>,
}

/// `POST /api/integrations/mcp/{name}/values`.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct McpValues {
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    #[serde(default)]
    #[specta(type = Option<bool>)]
    #[schema(value_type = Option<bool>)]
    pub enable: Option<Value>,
}

/// `POST /api/integrations/mcp/{name}/test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct McpTestResult {
    pub ok: bool,
    pub tools: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The servers and their connections; cheap to clone (background connections hold a copy).
#[derive(Clone)]
pub struct McpManager {
    shared: Arc<Shared>,
}

struct Shared {
    apps: AppCtx,
    tools: ToolRegistry,
    oauth: OAuthListener,
    servers: Mutex<HashMap<String, Arc<Server>>>,
    /// One change (add, values, on/off, remove) at a time.
    changes: tokio::sync::Mutex<()>,
}

/// A server's name: letters, digits, `-` and `_`, so its tools' names stay valid for models.
fn check_name(name: &str) -> Result<String, IntegrationError> {
    let name = name.trim();
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(name.to_owned())
    } else {
        Err(IntegrationError::Invalid(
            "Give the server a short name made of letters, digits, - or _ (at most 40).".to_owned(),
        ))
    }
}

impl McpManager {
    pub fn new(apps: AppCtx, tools: ToolRegistry, oauth: OAuthListener) -> Self {
        Self {
            shared: Arc::new(Shared {
                apps,
                tools,
                oauth,
                servers: Mutex::default(),
                changes: tokio::sync::Mutex::new(()),
            }),
        }
    }

    fn apps(&self) -> &AppCtx {
        &self.shared.apps
    }

    fn configs(&self) -> BTreeMap<String, McpServerConfig> {
        self.apps()
            .config()
            .current()
            .integrations
            .mcp_servers
            .clone()
    }

    fn server(&self, name: &str) -> Option<Arc<Server>> {
        self.shared.servers.lock_unpoisoned().get(name).cloned()
    }

    /// The server's connection, made when first asked for.
    fn server_or_new(&self, name: &str) -> Arc<Server> {
        self.shared
            .servers
            .lock_unpoisoned()
            .entry(name.to_owned())
            .or_insert_with(|| Arc::new(Server::new(name, Some(self.apps().config().clone()))))
            .clone()
    }

    /// Starts every server that is on (in the background), and the sign-in retries.
    pub async fn start_all(&self) {
        for name in self.configs().keys() {
            let server = self.server_or_new(name);
            let manager = self.clone();
            tokio::spawn(async move { manager.connect(&server).await });
        }
        let shutdown = self.apps().shutdown().clone();
        let manager = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(SIGN_IN_RETRY) => {}
                }
                let waiting: Vec<Arc<Server>> = manager
                    .shared
                    .servers
                    .lock_unpoisoned()
                    .values()
                    .filter(|s| s.status().0 == ServerStatus::NeedsSignIn)
                    .cloned()
                    .collect();
                for server in waiting {
                    manager.connect(&server).await;
                }
            }
        });
    }

    /// Stops every server (quit).
    pub async fn stop_all(&self) {
        let servers: Vec<Arc<Server>> = self
            .shared
            .servers
            .lock_unpoisoned()
            .values()
            .cloned()
            .collect();
        for server in servers {
            server.disconnect(ServerStatus::Disconnected, None).await;
        }
    }

    /// (Re)connects a server as its settings say: off, missing values, or a live connection.
    async fn connect(&self, server: &Arc<Server>) {
        let apps = self.apps();
        let Some(config) = self.configs().get(&server.name).cloned() else {
            return;
        };
        if !config.enabled {
            server.disconnect(ServerStatus::Disabled, None).await;
            self.publish(&server.name).await;
            return;
        }
        let secrets = values::load(apps, &server.name).await;
        let missing = values::missing(&config, &secrets);
        server.set_missing(missing.clone());
        if !missing.is_empty() {
            let error = format!(
                "This server needs {} before it can start. Fill them in with the key button on the server.",
                missing.join(", ")
            );
            server.disconnect(ServerStatus::Error, Some(error)).await;
            self.publish(&server.name).await;
            return;
        }
        let mut secrets = secrets;
        let oauth = config.transport == McpTransport::Http && config.auth == McpAuth::Oauth;
        let signed_in = sign_in::is_signed_in(apps, &server.name).await;
        server.set_signed_in(signed_in);
        if oauth {
            match sign_in::bearer(apps, &server.name, &config.url, false).await {
                Some(token) => {
                    secrets
                        .headers
                        .insert("Authorization".to_owned(), format!("Bearer {token}"));
                }
                None => {
                    server
                        .disconnect(
                            ServerStatus::NeedsSignIn,
                            Some("Sign in to use this server.".to_owned()),
                        )
                        .await;
                    self.publish(&server.name).await;
                    return;
                }
            }
        }
        server.mark_connecting();
        self.publish(&server.name).await;
        let timeout = Duration::from_secs(u64::from(
            apps.config().current().integrations.mcp_timeout_s,
        ));
        server.connect(&config, &secrets, timeout).await;
        if oauth && server.status().0 == ServerStatus::NeedsSignIn {
            // The token was refused: refresh once, then ask for a new sign-in.
            match sign_in::bearer(apps, &server.name, &config.url, true).await {
                Some(token) => {
                    secrets
                        .headers
                        .insert("Authorization".to_owned(), format!("Bearer {token}"));
                    server.connect(&config, &secrets, timeout).await;
                }
                None => server.mark(ServerStatus::NeedsSignIn, "Sign in to use this server."),
            }
            if server.status().0 == ServerStatus::NeedsSignIn {
                server.mark(ServerStatus::NeedsSignIn, "Sign in to use this server.");
            }
        }
        self.register_tools(server);
        self.publish(&server.name).await;
    }

    /// Puts the server's tools in the registry as the app `mcp_<server>`.
    fn register_tools(&self, server: &Arc<Server>) {
        let plugin = tools::plugin(server.clone());
        if let Err(error) = self.shared.tools.replace(plugin) {
            tracing::warn!(%error, server = %server.name, "a tool server's tools could not be registered");
        }
    }

    async fn publish(&self, name: &str) {
        self.apps().announce(&format!("{APP_PREFIX}{name}")).await;
    }

    /// Every server, as the routes list them.
    pub fn list(&self) -> Vec<McpServerInfo> {
        self.configs()
            .iter()
            .map(|(name, config)| self.info(name, config))
            .collect()
    }

    /// One server; 404 when unknown.
    pub fn get(&self, name: &str) -> Result<McpServerInfo, IntegrationError> {
        self.configs()
            .get(name)
            .map(|config| self.info(name, config))
            .ok_or_else(|| IntegrationError::UnknownServer(name.to_owned()))
    }

    fn info(&self, name: &str, config: &McpServerConfig) -> McpServerInfo {
        let server = self.server(name);
        let (status, error) = server.as_ref().map_or_else(
            || {
                if config.enabled {
                    (ServerStatus::Connecting, None)
                } else {
                    (ServerStatus::Disabled, None)
                }
            },
            |s| s.status(),
        );
        let missing = server.as_ref().map(|s| s.missing()).unwrap_or_default();
        let access = self.apps().access_of(&format!("{APP_PREFIX}{name}"));
        McpServerInfo {
            name: name.to_owned(),
            transport: match config.transport {
                McpTransport::Stdio => "stdio",
                McpTransport::Http => "http",
            }
            .to_owned(),
            command: config.command.clone(),
            args: config.args.clone(),
            url: config.url.clone(),
            env_keys: config.env_keys.clone(),
            auth: auth_name(config.auth).to_owned(),
            header_keys: config.header_keys.clone(),
            missing_values: missing,
            signed_in: config.auth == McpAuth::Oauth
                && server.as_ref().is_some_and(|s| s.signed_in()),
            signing_in: self.shared.oauth.is_pending(&sign_in::pending_app(name)),
            enabled: config.enabled,
            access: access.to_owned(),
            status: status.as_str().to_owned(),
            tools: server.map(|s| s.tools()).unwrap_or_default(),
            error,
        }
    }

    /// Each server as an Integration object (`auth_type: "mcp"`).
    pub fn integrations(&self) -> Vec<Integration> {
        self.list().into_iter().map(as_integration).collect()
    }

    pub fn integration(&self, app_id: &str) -> Option<Integration> {
        let name = server_of(app_id)?;
        self.get(name).ok().map(as_integration)
    }

    /// Adds (or replaces) a server and waits up to 15 s for its first connection.
    pub async fn add(&self, request: NewMcpServer) -> Result<McpServerInfo, IntegrationError> {
        let apps = self.apps();
        let name = check_name(&request.name)?;
        let checked = values::check_new(&request)?;
        let _one_change = self.shared.changes.lock().await;
        if let Some(access) = &request.access {
            let read_only = parse_access(&Value::String(access.clone()))?;
            apps.save_access(&format!("{APP_PREFIX}{name}"), read_only)
                .await?;
        }
        values::save(apps, &name, &checked).await?;
        if checked.config.transport == McpTransport::Http {
            let previous = self.configs().get(&name).map(|c| c.url.clone());
            sign_in::settle_on_add(apps, &name, &checked.config.url, previous.as_deref()).await?;
        }
        let config = checked.config.clone();
        let saved_name = name.clone();
        apps.config()
            .update(move |c| {
                c.integrations.mcp_servers.insert(saved_name, config);
            })
            .await
            .map_err(|e| IntegrationError::Invalid(e.to_string()))?;
        let server = self.server_or_new(&name);
        server.disconnect(ServerStatus::Connecting, None).await;
        self.connect_waiting(&server).await;
        self.get(&name)
    }

    /// Connects in the background and waits up to [`FIRST_CONNECTION`] for it.
    async fn connect_waiting(&self, server: &Arc<Server>) {
        let manager = self.clone();
        let server = server.clone();
        let connecting = tokio::spawn(async move { manager.connect(&server).await });
        let _ = tokio::time::timeout(FIRST_CONNECTION, connecting).await;
    }

    /// Removes a server: its connection, tools, keychain values and Read only setting.
    pub async fn remove(&self, name: &str) -> Result<(), IntegrationError> {
        let apps = self.apps();
        self.get(name)?;
        let _one_change = self.shared.changes.lock().await;
        let server = self.shared.servers.lock_unpoisoned().remove(name);
        if let Some(server) = server {
            server.disconnect(ServerStatus::Disconnected, None).await;
        }
        let app = format!("{APP_PREFIX}{name}");
        self.shared.tools.remove(&app);
        values::delete_all(apps, name).await?;
        let owned = name.to_owned();
        apps.config()
            .update(move |c| {
                c.integrations.mcp_servers.remove(&owned);
                c.integrations.read_only.retain(|r| *r != app);
            })
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        Ok(())
    }

    /// Read only on or off; the server keeps running.
    pub async fn set_access(
        &self,
        name: &str,
        access: &Value,
    ) -> Result<McpServerInfo, IntegrationError> {
        let read_only = parse_access(access)?;
        let apps = self.apps();
        self.get(name)?;
        apps.save_access(&format!("{APP_PREFIX}{name}"), read_only)
            .await?;
        self.publish(name).await;
        self.get(name)
    }

    /// Turns a server on or off and nothing else.
    pub async fn set_enabled(
        &self,
        name: &str,
        enabled: &Value,
    ) -> Result<McpServerInfo, IntegrationError> {
        let enabled = enabled.as_bool().ok_or(IntegrationError::BadEnabled)?;
        self.get(name)?;
        let _one_change = self.shared.changes.lock().await;
        self.save_enabled(name, enabled).await?;
        let server = self.server_or_new(name);
        if enabled {
            self.connect_waiting(&server).await;
        } else {
            self.connect(&server).await;
        }
        self.get(name)
    }

    async fn save_enabled(&self, name: &str, enabled: bool) -> Result<(), IntegrationError> {
        let apps = self.apps();
        let owned = name.to_owned();
        apps.config()
            .update(move |c| {
                if let Some(server) = c.integrations.mcp_servers.get_mut(&owned) {
                    server.enabled = enabled;
                }
            })
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        Ok(())
    }

    /// Fills in values of the server's own env or header keys, then reconnects.
    pub async fn set_values(
        &self,
        name: &str,
        request: McpValues,
    ) -> Result<McpServerInfo, IntegrationError> {
        let apps = self.apps();
        let config = self
            .configs()
            .get(name)
            .cloned()
            .ok_or_else(|| IntegrationError::UnknownServer(name.to_owned()))?;
        let enable = match &request.enable {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(IntegrationError::BadEnable),
        };
        let _one_change = self.shared.changes.lock().await;
        let becomes_headers = values::fill(apps, name, &config, &request.values).await?;
        if becomes_headers {
            let owned = name.to_owned();
            apps.config()
                .update(move |c| {
                    if let Some(server) = c.integrations.mcp_servers.get_mut(&owned) {
                        server.auth = McpAuth::Headers;
                    }
                })
                .await
                .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        }
        if enable == Some(true) {
            let secrets = values::load(apps, name).await;
            if values::missing(&config, &secrets).is_empty() {
                self.save_enabled(name, true).await?;
            }
        }
        let server = self.server_or_new(name);
        self.connect_waiting(&server).await;
        self.get(name)
    }

    /// Connects again now and says what the server offers.
    pub async fn test(&self, name: &str) -> Result<McpTestResult, IntegrationError> {
        self.get(name)?;
        let server = self.server_or_new(name);
        self.connect_waiting(&server).await;
        let info = self.get(name)?;
        Ok(McpTestResult {
            ok: info.status == "connected",
            tools: info.tools.iter().map(|t| t.name.clone()).collect(),
            error: if info.status == "connected" {
                None
            } else {
                Some(
                    info.error.unwrap_or_else(|| {
                        "The server didn't answer in time. Try again.".to_owned()
                    }),
                )
            },
        })
    }

    /// Deletes the stored sign-in (the client registration is kept) and cancels a waiting one;
    /// an `oauth` server then needs a new sign-in.
    pub async fn sign_out(&self, name: &str) -> Result<McpServerInfo, IntegrationError> {
        let apps = self.apps();
        self.get(name)?;
        self.shared.oauth.cancel(&sign_in::pending_app(name));
        apps.secrets()
            .delete_entry(&format!("mcp:{name}:oauth"))
            .await?;
        let server = self.server_or_new(name);
        server.set_signed_in(false);
        self.connect(&server).await;
        self.get(name)
    }

    /// Starts a browser sign-in with the server's authorization server.
    pub async fn sign_in(&self, name: &str) -> Result<McpSignIn, IntegrationError> {
        let apps = self.apps();
        let info = self.get(name)?;
        if info.transport == "stdio" {
            return Err(IntegrationError::Invalid(
                "Only servers reached at a web address can be signed in to; a program on this computer uses its own settings.".to_owned(),
            ));
        }
        let (auth_url, state) = sign_in::start(apps, &self.shared.oauth, name, &info.url).await?;
        self.publish(name).await;
        let manager = self.clone();
        let app = sign_in::pending_app(name);
        let owned = name.to_owned();
        tokio::spawn(async move {
            tokio::time::sleep(SIGN_IN_WINDOW).await;
            if !manager.shared.oauth.is_pending(&app) {
                manager.publish(&owned).await;
            }
        });
        Ok(McpSignIn { auth_url, state })
    }

    /// The browser came back with a code: tokens stored, auth `oauth`, the server reconnected.
    pub(crate) async fn finish_sign_in(
        &self,
        name: &str,
        pending: &Pending,
        code: &str,
    ) -> Result<(), IntegrationError> {
        let apps = self.apps();
        sign_in::finish(apps, name, pending, code).await?;
        let owned = name.to_owned();
        apps.config()
            .update(move |c| {
                if let Some(server) = c.integrations.mcp_servers.get_mut(&owned) {
                    server.auth = McpAuth::Oauth;
                }
            })
            .await
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        let server = self.server_or_new(name);
        self.connect(&server).await;
        Ok(())
    }

    pub(crate) async fn sign_in_failed(&self, name: &str, text: &str) {
        if let Some(server) = self.server(name) {
            server.mark(ServerStatus::NeedsSignIn, text);
        }
        self.publish(name).await;
    }
}

/// `POST /api/integrations/mcp/{name}/sign-in`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct McpSignIn {
    pub auth_url: String,
    pub state: String,
}

fn auth_name(auth: McpAuth) -> &'static str {
    match auth {
        McpAuth::None => "none",
        McpAuth::Headers => "headers",
        McpAuth::Oauth => "oauth",
    }
}

fn as_integration(info: McpServerInfo) -> Integration {
    let connected = info.status == "connected";
    let status = match info.status.as_str() {
        "connected" => "connected",
        "connecting" => "connecting",
        "needs_sign_in" | "error" => "error",
        _ => "disconnected",
    };
    Integration {
        id: format!("{APP_PREFIX}{}", info.name),
        display_name: info.name.clone(),
        description: if info.transport == "stdio" {
            format!("Tool server started as {}.", info.command)
        } else {
            format!("Tool server at {}.", info.url)
        },
        category: "utilities".to_owned(),
        icon: "mcp".to_owned(),
        auth_type: "mcp".to_owned(),
        connected,
        account_label: None,
        status: status.to_owned(),
        error: info.error.clone(),
        setup: Setup {
            fields: Vec::new(),
            instructions_md: "Manage this server in Integrations > Tool servers.".to_owned(),
            docs_url: Some("https://modelcontextprotocol.io".to_owned()),
        },
        privacy_filters: PrivacyFilters {
            supported: false,
            fields: Vec::new(),
        },
        triggers: Vec::new(),
        alternative_for: None,
        access: info.access.clone(),
        tools: info
            .tools
            .iter()
            .map(|t| ToolInfo {
                name: t.name.clone(),
                description: t.description.clone(),
                risk: t.risk,
            })
            .collect(),
    }
}

/// A tool's risk from the server's hint: read-only tools read, the rest write.
pub fn risk_of(read_only_hint: Option<bool>) -> Risk {
    if read_only_hint == Some(true) {
        Risk::Read
    } else {
        Risk::Write
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_app_ids() {
        assert_eq!(check_name(" files_1 ").expect("ok"), "files_1");
        assert!(check_name("").is_err());
        assert!(check_name("my server").is_err());
        assert!(check_name(&"x".repeat(41)).is_err());
        assert_eq!(server_of("mcp_files"), Some("files"));
        assert_eq!(server_of("mcp_"), None);
        assert_eq!(server_of("gmail"), None);
        assert_eq!(risk_of(Some(true)), Risk::Read);
        assert_eq!(risk_of(None), Risk::Write);
    }
}
