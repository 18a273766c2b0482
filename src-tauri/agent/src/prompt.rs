//! The system prompt: who the assistant is (SOUL.md), who the user is (USER.md), what it keeps
//! in mind (MEMORY.md), the time where the user is, and the connected apps set to Read only
//! (so the model can say why it can't act there). A chat turn adds memory's part after it (what
//! it remembers about the person for the message, through `ChatMemory`); skills and the user
//! model add theirs when they arrive.

use chrono::Utc;

use crate::Agent;

impl Agent {
    /// The system prompt for a chat turn or a run.
    pub fn system_prompt(&self) -> String {
        let read = |name: &str| {
            std::fs::read_to_string(self.home().workspace().join(name)).unwrap_or_default()
        };
        let config = self.config().current();
        let now = self.clock().now();
        let zone = self.user_timezone();
        let zone = zone.as_str();
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
        let read_only = self.read_only_apps();
        if !read_only.is_empty() {
            prompt.push_str(&format!(
                "\n\nThese apps are set to Read only: {}. You can look things up there but can't change, send or delete anything; if asked to, say it is set to Read only and can be changed in Integrations.",
                read_only.join(", ")
            ));
        }
        prompt
    }

    /// Display names of the registered apps the user set to Read only.
    fn read_only_apps(&self) -> Vec<String> {
        let config = self.config().current();
        self.tools()
            .catalog()
            .into_iter()
            .filter(|app| config.integrations.read_only.contains(&app.id))
            .map(|app| app.display_name)
            .collect()
    }
}
