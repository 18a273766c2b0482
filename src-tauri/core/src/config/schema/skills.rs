//! Settings section `skills`.

use super::*;

/// Skills: saved step-by-step procedures Sentient can follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct SkillsConfig {
    /// Extra folders on this computer to load skills from.
    pub extra_dirs: Vec<String>,
    /// Skills Sentient writes for itself wait for your review before they are used.
    pub write_approval: bool,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        Self {
            extra_dirs: Vec::new(),
            write_approval: true,
        }
    }
}
