//! The device side of pairing (contract section 13): `sentient node`, a reference device that
//! pairs with a code or a `sentient://pair` link, pins the engine's certificate, answers
//! invokes and presses Stop everything from the keyboard. The engine serves the web device app;
//! this crate is what a device runs.

pub mod fingerprint;
pub mod pinned;
pub mod reference_node;
