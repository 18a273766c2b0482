//! The request and answer bodies of the app routes (contract section 5), as a leaf the
//! service and the apps that sign in both use.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use sentient_core::domain::integration::Integration;

/// `POST /api/integrations/{id}/connect`.
#[derive(Debug, Clone, Default, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectRequest {
    #[serde(default)]
    #[specta(type = std::collections::BTreeMap<String, String>)]
    #[schema(value_type = Object)]
    pub fields: Map<String, Value>,
    #[serde(default)]
    pub access: Option<String>,
}

/// What a connect answers: the Integration (keys and manual setups), or where to sign in.
#[derive(Debug, Clone, Serialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum ConnectAnswer {
    Done(Box<Integration>),
    SignIn {
        auth_url: String,
        state: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        user_code: Option<String>,
    },
}

/// `POST /api/integrations/{id}/test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct IntegrationTest {
    pub ok: bool,
    pub detail: String,
}

/// `PUT /api/integrations/{id}/access`.
#[derive(Debug, Clone, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct AccessRequest {
    #[specta(type = String)]
    #[schema(value_type = String)]
    pub access: Value,
}

/// The plain sentence for an app this version can't connect.
pub fn not_available(display_name: &str) -> String {
    format!("{display_name} isn't available in this version of Sentient yet.")
}

/// `GET /api/integrations/email/discover`: the servers found for a mail address, in the names
/// of the setup fields (`host`, `port`, `security`, `username`, `smtp_host`, `smtp_port`), so
/// the full form can be filled with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MailServers {
    pub address: String,
    /// Where the servers came from: provider, autoconfig, srv or mx.
    pub source: String,
    /// The provider's name when it is one Sentient knows.
    pub provider: Option<String>,
    pub host: String,
    pub port: u16,
    /// ssl or starttls
    pub security: String,
    pub username: String,
    pub smtp_host: Option<String>,
    pub smtp_port: Option<u16>,
    /// Where the provider makes app passwords.
    pub app_password_url: Option<String>,
    /// Something to know before signing in (IMAP to turn on, a bridge to run).
    pub note: Option<String>,
}
