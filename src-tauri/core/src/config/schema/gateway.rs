//! Settings section `gateway`.

use super::*;

/// The local connection the Sentient window and your scripts use to reach the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct GatewayConfig {
    /// The port on this computer the engine listens on (0 picks a free one); only this computer can connect.
    pub port: u16,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self { port: 7777 }
    }
}
