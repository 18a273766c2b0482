//! Settings section `nodes`.

use super::*;

/// Phones, smart glasses and other devices connected to Sentient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct NodesConfig {
    /// Allow phones, glasses and other devices to connect to Sentient.
    pub enabled: bool,
    /// Accept devices on your local network (encrypted, and each needs a pairing code).
    pub lan_enabled: bool,
    /// The port devices on your network connect to.
    #[schemars(range(min = 1024))]
    pub lan_port: u16,
    /// Announce Sentient on your network so devices find it without typing an address.
    pub mdns_enabled: bool,
    /// Ask before the assistant takes a photo or captures a screen with one of your devices.
    pub camera_requires_approval: bool,
    /// Let the assistant capture this computer's screen through the desktop app when you ask.
    pub allow_desktop_screen: bool,
    /// Seconds to wait for a device to answer a request.
    #[schemars(range(min = 2, max = 120))]
    pub invoke_timeout_s: u32,
    /// A device that sends nothing for this many seconds is treated as disconnected.
    #[schemars(range(min = 30, max = 3600))]
    pub idle_timeout_s: u32,
}

impl Default for NodesConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            lan_enabled: false,
            lan_port: 7778,
            mdns_enabled: true,
            camera_requires_approval: true,
            allow_desktop_screen: true,
            invoke_timeout_s: 20,
            idle_timeout_s: 180,
        }
    }
}
