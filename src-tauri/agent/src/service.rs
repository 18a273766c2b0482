//! The agent service: what it is built from and the handles it holds; the loop, chats, rules
//! and summaries add their methods from their own files.

use std::sync::{Arc, OnceLock};

use sentient_core::bus::EventBus;
use sentient_core::clock::SharedClock;
use sentient_core::config::ConfigService;
use sentient_core::home::Home;
use sentient_core::stop::StopService;
use sentient_core::store::Store;
use sentient_llm::LlmService;

use crate::chat_memory::ChatMemory;
use crate::chat_rules::state::ChatRulesState;
use crate::chat_state::ChatState;
use crate::sessions::Sessions;
use crate::tools::{self, ToolCtx, ToolRegistry};

/// What the agent is built from; the engine hands these over at start.
pub struct AgentParts {
    pub home: Home,
    pub store: Store,
    pub bus: EventBus,
    pub config: ConfigService,
    pub stop: StopService,
    pub llm: LlmService,
    pub clock: SharedClock,
}

struct Inner {
    home: Home,
    store: Store,
    bus: EventBus,
    config: ConfigService,
    stop: StopService,
    llm: LlmService,
    clock: SharedClock,
    tools: ToolRegistry,
    sessions: Sessions,
    chat: Arc<ChatState>,
    chat_rules: Arc<ChatRulesState>,
    /// Memory, once the engine attaches it (chats work without it).
    memory: OnceLock<Arc<dyn ChatMemory>>,
}

/// The agent service: the loop, chats and the tool registry; cheap to clone.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("home", &self.inner.home.root())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// The agent with its own apps (time, files, web, questions) registered; other areas add
    /// theirs through [`Agent::tools`].
    pub fn new(parts: AgentParts) -> Self {
        let tools = ToolRegistry::new();
        for plugin in tools::plain_plugins() {
            if let Err(error) = tools.register(plugin) {
                // The built-ins have distinct names; a clash is a programming error worth a log.
                tracing::error!(%error, "a built-in app could not be registered");
            }
        }
        let sessions = Sessions::new(parts.store.clone(), parts.bus.clone(), parts.clock.clone());
        Self {
            inner: Arc::new(Inner {
                home: parts.home,
                store: parts.store,
                bus: parts.bus,
                config: parts.config,
                stop: parts.stop,
                llm: parts.llm,
                clock: parts.clock,
                tools,
                sessions,
                chat: Arc::default(),
                chat_rules: Arc::default(),
                memory: OnceLock::new(),
            }),
        }
    }

    pub fn home(&self) -> &Home {
        &self.inner.home
    }
    pub fn store(&self) -> &Store {
        &self.inner.store
    }
    pub fn bus(&self) -> &EventBus {
        &self.inner.bus
    }
    pub fn config(&self) -> &ConfigService {
        &self.inner.config
    }
    pub fn stop(&self) -> &StopService {
        &self.inner.stop
    }
    pub fn llm(&self) -> &LlmService {
        &self.inner.llm
    }
    pub fn clock(&self) -> &SharedClock {
        &self.inner.clock
    }
    /// The apps and tools every run may be offered.
    pub fn tools(&self) -> &ToolRegistry {
        &self.inner.tools
    }
    /// Chats and their transcripts.
    pub fn sessions(&self) -> &Sessions {
        &self.inner.sessions
    }
    /// Running chat turns and the approval questions they wait on.
    pub fn chat_state(&self) -> Arc<ChatState> {
        self.inner.chat.clone()
    }
    /// Gives chats their memory (once; a second call is ignored).
    pub fn attach_memory(&self, memory: Arc<dyn ChatMemory>) {
        let _ = self.inner.memory.set(memory);
    }
    /// Memory, when attached.
    pub fn chat_memory(&self) -> Option<&Arc<dyn ChatMemory>> {
        self.inner.memory.get()
    }
    /// Rule checks still weighing a chat's message (#130).
    pub fn chat_rules_state(&self) -> Arc<ChatRulesState> {
        self.inner.chat_rules.clone()
    }

    /// The user's time zone name: `assistant.timezone`, or this computer's for `auto`; UTC when
    /// neither can be read.
    pub fn user_timezone(&self) -> String {
        let setting = self.config().current().assistant.timezone.clone();
        tools::time::resolve_zone(None, &setting)
            .map_or_else(|_| "UTC".to_owned(), |tz| tz.name().to_owned())
    }

    /// A context for a call made by this agent: its home, clock, HTTP client and the current
    /// settings (time zone, longest page text). Callers add their own token and progress.
    pub fn tool_ctx(&self, call_id: impl Into<String>) -> ToolCtx {
        let config = self.config().current();
        let mut ctx = ToolCtx::new(self.home().clone(), self.tools().http().clone(), call_id);
        ctx.clock = self.clock().clone();
        ctx.timezone = config.assistant.timezone.clone();
        ctx.web.fetch_max_chars = usize::try_from(config.integrations.web_fetch_max_chars)
            .unwrap_or(ctx.web.fetch_max_chars);
        ctx
    }
}
