//! Commands on this computer (contract section 18): the tool `terminal_run` in the app
//! `terminal`, off by default. [`guard`] holds the checks as pure functions (the blocklist, the
//! listed commands, the folder); [`run`] runs one command in the person's shell with a scrubbed
//! environment, streams and cuts its output and kills its whole process tree; [`service`] checks
//! in the contract's order, keeps what runs now and stops it; [`tools`] is the app.

pub mod guard;
pub mod model;
pub mod run;
pub mod service;
pub mod tools;

pub use model::{RunningCommand, StopAnswer, StopRequest, TerminalResult, TerminalStatus};
pub use service::TerminalService;
