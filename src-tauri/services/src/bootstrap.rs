//! `GET /api/bootstrap`: everything the window needs on launch, in one answer (contract
//! section 2). The answer's types live here; `Services::bootstrap` (lib.rs) gathers it, since it
//! reads every service. It reports only what is built: memory, voice and proactivity read `false` until
//! their areas exist ([`BUILT`]), whatever their settings say.

use serde::{Deserialize, Serialize};

use crate::config::Theme;
use crate::models::Roles;
use crate::stop::StopState;

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Bootstrap {
    pub version: String,
    pub home: String,
    pub assistant: BootstrapAssistant,
    pub models: Roles,
    pub memory_enabled: bool,
    pub unread_notifications: u32,
    pub ui: BootstrapUi,
    pub features: BootstrapFeatures,
    pub stop: StopState,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BootstrapAssistant {
    pub name: String,
    pub user_name: String,
    pub timezone: String,
    pub location: String,
    pub language: String,
    pub onboarding_complete: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BootstrapUi {
    #[schema(value_type = String)]
    pub theme: Theme,
    pub accent: String,
    pub launch_at_login: bool,
    pub minimize_to_tray: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BootstrapFeatures {
    pub voice: bool,
    pub proactivity: bool,
}

/// The areas behind the bootstrap's switches that exist in this build. Their settings stay in
/// the schema (config files keep loading), but a switch only reads true once its area is here.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    pub memory: bool,
    pub voice: bool,
    pub proactivity: bool,
}

/// This build: memory is here (contract section 7; insights arrive with the user model); voice
/// and proactivity are not yet.
pub const BUILT: Built = Built {
    memory: true,
    voice: false,
    proactivity: false,
};
