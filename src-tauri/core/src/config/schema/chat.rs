//! Settings section `chat`.

use super::*;

/// Which tools are offered to the model on each message.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolSelection {
    /// Offer only the tools that fit the message when there are too many, which helps small local models.
    #[default]
    Auto,
    /// Always offer every tool.
    All,
}

/// How chat conversations are handled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct ChatConfig {
    /// How many recent messages are sent to the model with each reply.
    #[schemars(range(min = 2))]
    pub history_window: u32,
    /// After this many messages, older parts of a long chat are summarized to keep it manageable.
    #[schemars(range(min = 10))]
    pub compress_after_messages: u32,
    /// Show the model's reasoning in a block you can open.
    pub show_thinking: bool,
    /// Name new chats automatically from their first exchange.
    pub auto_title: bool,
    /// Which tools are offered to the model on each message.
    pub tool_selection: ToolSelection,
    /// Most tools offered at once to a model running on this computer.
    #[schemars(range(min = 3, max = 200))]
    pub max_tools_local: u32,
    /// Most tools offered at once to a cloud model.
    #[schemars(range(min = 3, max = 500))]
    pub max_tools_cloud: u32,
    /// Longest tool result the model reads, in characters; longer ones are cut and saved in full to a file.
    #[schemars(range(min = 1000, max = 1_000_000))]
    pub tool_result_max_chars: u32,
    /// Largest share of the model's reading length one tool result may fill.
    #[schemars(range(min = 0.01, max = 1.0))]
    pub tool_result_context_share: f64,
    /// Run look-ups the model asks for in the same step at the same time.
    pub parallel_read_tools: bool,
}

impl Default for ChatConfig {
    fn default() -> Self {
        Self {
            history_window: 30,
            compress_after_messages: 60,
            show_thinking: true,
            auto_title: true,
            tool_selection: ToolSelection::Auto,
            max_tools_local: 12,
            max_tools_cloud: 64,
            tool_result_max_chars: 16_000,
            tool_result_context_share: 0.25,
            parallel_read_tools: true,
        }
    }
}
