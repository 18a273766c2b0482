//! The system prompt: who the assistant is (SOUL.md), who the user is (USER.md), what it keeps
//! in mind (MEMORY.md), and the time where the user is. Memory recall, skills and the user model
//! add their parts here when they arrive.

use chrono::Utc;

use crate::Engine;

impl Engine {
    /// The system prompt for a chat turn or a run.
    pub fn system_prompt(&self) -> String {
        let read = |name: &str| {
            std::fs::read_to_string(self.home().workspace().join(name)).unwrap_or_default()
        };
        let config = self.config().current();
        let now = self.clock().now();
        let zone = config.assistant.timezone.trim();
        let local = zone
            .parse::<chrono_tz::Tz>()
            .map(|tz| {
                now.with_timezone(&tz)
                    .format("%A %-d %B %Y, %H:%M")
                    .to_string()
                    + &format!(" ({zone})")
            })
            .unwrap_or_else(|_| {
                now.with_timezone(&Utc)
                    .format("%A %-d %B %Y, %H:%M UTC")
                    .to_string()
            });
        let mut prompt = format!(
            "You are {}, a personal assistant.\n\n",
            config.assistant.name
        );
        for part in [read("SOUL.md"), read("USER.md"), read("MEMORY.md")] {
            let part = part.trim();
            if !part.is_empty() {
                prompt.push_str(part);
                prompt.push_str("\n\n");
            }
        }
        prompt.push_str(&format!("It is now {local}."));
        prompt
    }
}
