//! The types that cross services and doors: tasks and runs, devices, notifications, the stop
//! state, memory sources, rule proposals, scripts and script jobs, integrations and hooks, tools as listed, the local
//! model's state, and the domain events. They sit at the bottom so every crate above can name them and none of
//! them has to know another service.

pub mod browser;
pub mod events;
pub mod integration;
pub mod memory_change;
pub mod memory_source;
pub mod model_busy;
pub mod node;
pub mod notification;
pub mod rules;
pub mod script;
pub mod stop_state;
pub mod subagent;
pub mod task;
pub mod tool_info;

pub use events::DomainEvent;
pub use integration::{Hook, Integration};
pub use memory_change::MemoryChange;
pub use memory_source::MemorySource;
pub use model_busy::{JobKind, ModelBusy};
pub use node::Node;
pub use notification::{NewNotification, Notification};
pub use rules::{RuleProposal, RuleValue};
pub use stop_state::StopState;
pub use subagent::{Subagent, SubagentStatus};
pub use tool_info::{Risk, ToolInfo};
