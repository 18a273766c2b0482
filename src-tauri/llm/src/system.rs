//! Facts about the computer Sentient runs on, as opposed to Sentient's own state. For now that
//! is the hardware check behind `GET /api/system/hardware` (contract section 3): how much memory
//! and graphics memory there is, and which local model fits.

pub mod hardware;
pub mod power;

pub use hardware::{
    Gpu, GpuVendor, Hardware, HardwareCache, LOCAL_MODEL_TIERS, LocalModelTier, Os, Recommendation,
    RunsOn, TierFloor,
};
