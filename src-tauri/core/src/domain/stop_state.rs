//! Whether Sentient is stopped (contract section 17).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Whether Sentient is stopped, since when, and from where it was last turned on or off.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct StopState {
    pub stopped: bool,
    pub stopped_at: Option<DateTime<Utc>>,
    pub source: Option<String>,
}
