//! Apps Sentient connects to (contract section 5) and the webhooks that are their triggers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::tool_info::ToolInfo;

/// One setup field of an integration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SetupField {
    pub key: String,
    pub label: String,
    pub secret: bool,
    pub required: bool,
    pub help: String,
}

/// How an integration is set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Setup {
    pub fields: Vec<SetupField>,
    pub instructions_md: String,
    pub docs_url: Option<String>,
}

/// Which privacy filters an integration takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PrivacyFilters {
    pub supported: bool,
    pub fields: Vec<String>,
}

/// An event a triggered task can start on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Trigger {
    pub event: String,
    pub label: String,
}

/// An app Sentient connects to (contract section 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Integration {
    pub id: String,
    pub display_name: String,
    pub description: String,
    pub category: String,
    pub icon: String,
    pub auth_type: String,
    pub connected: bool,
    pub account_label: Option<String>,
    pub status: String,
    pub error: Option<String>,
    pub setup: Setup,
    pub privacy_filters: PrivacyFilters,
    /// For webhooks, one trigger per hook (event = the hook id).
    pub triggers: Vec<Trigger>,
    pub alternative_for: Option<String>,
    pub access: String,
    pub tools: Vec<ToolInfo>,
}

/// The webhook integration: always connected, one trigger per hook.
pub fn webhook_integration(hooks: &[Hook]) -> Integration {
    Integration {
        id: "webhook".to_owned(),
        display_name: "Webhooks".to_owned(),
        description: "Addresses other programs can call to start your tasks.".to_owned(),
        category: "core".to_owned(),
        icon: "webhook".to_owned(),
        auth_type: "builtin".to_owned(),
        connected: true,
        account_label: None,
        status: "connected".to_owned(),
        error: None,
        setup: Setup {
            fields: Vec::new(),
            instructions_md:
                "Create a webhook in Settings > Webhooks, then pick it as a task's trigger."
                    .to_owned(),
            docs_url: None,
        },
        privacy_filters: PrivacyFilters {
            supported: false,
            fields: Vec::new(),
        },
        triggers: hooks
            .iter()
            .map(|h| Trigger {
                event: h.id.clone(),
                label: format!("When \"{}\" is called", h.name),
            })
            .collect(),
        alternative_for: None,
        access: "read_write".to_owned(),
        tools: Vec::new(),
    }
}

/// One hook as `GET /api/hooks` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Hook {
    pub id: String,
    pub name: String,
    /// The address to call: `http://<loopback host:port>/hooks/<id>`.
    pub url: String,
    pub created_at: DateTime<Utc>,
    pub last_called_at: Option<DateTime<Utc>>,
    pub calls: u64,
}
