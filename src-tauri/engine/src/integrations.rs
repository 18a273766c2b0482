//! The Integration object (contract section 5). Integrations themselves are a later issue (they
//! get a crate of their own); the webhook integration exists now because hooks are its
//! triggers, and windows follow its `integration.updated` to keep their hook lists current.
//! The types sit with the other domain types.

pub use sentient_core::domain::integration::*;
