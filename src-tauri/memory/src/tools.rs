//! The memory app (plugin `memory`): the model recalls, remembers and forgets facts, and looks
//! through past chats by words, by date and by meaning. Recalled rows the model read become the
//! reply's memory sources (`via: "tool"`); a past chat that read outside content marks the run
//! that finds it; a fact remembered by a marked run or by work nobody asked for waits for review.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, TimeZone, Utc};
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use sentient_agent::approvals::Origin;
use sentient_agent::chat_events::MemorySource;
use sentient_agent::sessions::{HistoryHit, Sessions};
use sentient_agent::tools::time::resolve_zone;
use sentient_agent::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

use crate::model::{Memory, ReviewNote};
use crate::service::MemoryService;

/// What the memory tools work with.
#[derive(Clone)]
struct Deps {
    memory: MemoryService,
    sessions: Sessions,
}

impl Deps {
    /// Memory tools are offered only while memory is on and its search can load.
    fn offered(&self) -> bool {
        self.memory.config().current().memory.enabled && self.memory.available()
    }
}

/// The memory app with its seven tools.
pub fn plugin(memory: MemoryService, sessions: Sessions) -> Plugin {
    let deps = Deps { memory, sessions };
    let tool = |def: ToolDef, kind: Kind| -> Arc<dyn Tool> {
        Arc::new(MemoryTool {
            deps: deps.clone(),
            def,
            kind,
        })
    };
    Plugin {
        id: "memory".to_owned(),
        display_name: "Memory".to_owned(),
        description: "What Sentient remembers about you, and your past chats.".to_owned(),
        category: "built_in".to_owned(),
        icon: "brain".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "remember recall forget memory earlier before last time past chat history"
            .to_owned(),
        scoped: false,
        tools: vec![
            tool(
                ToolDef::new::<RecallArgs>(
                    "memory_recall",
                    "Look up what you remember about the person: facts from earlier chats, best matches first.",
                    Risk::Read,
                )
                .internal(),
                Kind::Recall,
            ),
            tool(
                ToolDef::new::<BySourceArgs>(
                    "memory_search_by_source",
                    "Look up remembered facts that came from one source: conversation, manual, onboarding or file:<name>.",
                    Risk::Read,
                )
                .internal(),
                Kind::BySource,
            ),
            tool(
                ToolDef::new::<RememberArgs>(
                    "memory_remember",
                    "Remember one lasting fact about the person, as one short third-person sentence (\"User's sister Meera lives in Lisbon\"). One fact per call. Do it quietly: don't announce that you are remembering.",
                    Risk::Write,
                )
                .internal(),
                Kind::Remember,
            ),
            tool(
                ToolDef::new::<ForgetArgs>(
                    "memory_forget",
                    "Forget one remembered fact, by the id memory_recall gave. The person is asked first.",
                    Risk::Send,
                )
                .internal()
                .not_for_chat(),
                Kind::Forget,
            ),
            tool(
                ToolDef::new::<HistoryArgs>(
                    "memory_search_history",
                    "Search what the person and you said in past chats, by words.",
                    Risk::Read,
                )
                .internal(),
                Kind::History,
            ),
            tool(
                ToolDef::new::<TimeArgs>(
                    "history_time_search",
                    "Read what the person and you said in past chats between two dates (YYYY-MM-DD, or a date and time; a date alone as the end means the whole of that day).",
                    Risk::Read,
                )
                .internal(),
                Kind::TimeRange,
            ),
            tool(
                ToolDef::new::<SemanticArgs>(
                    "history_semantic_search",
                    "Find past chats about something by meaning: the summaries of earlier conversations closest to the question.",
                    Risk::Read,
                )
                .internal(),
                Kind::Summaries,
            ),
        ],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Recall,
    BySource,
    Remember,
    Forget,
    History,
    TimeRange,
    Summaries,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct RecallArgs {
    /// What to look for.
    query: String,
    /// How many facts, at most 50 (default 8).
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct BySourceArgs {
    /// What to look for.
    query: String,
    /// The facts' source: conversation, manual, onboarding or file:<name>.
    source: String,
    /// How many facts, at most 50 (default 5).
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct RememberArgs {
    /// One short third-person sentence about the person or someone in their life.
    fact: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ForgetArgs {
    /// The fact's id, as memory_recall gave it.
    fact_id: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct HistoryArgs {
    /// Words to look for.
    query: String,
    /// How many messages, at most 50 (default 8).
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TimeArgs {
    /// First day (YYYY-MM-DD) or moment (YYYY-MM-DDTHH:MM) to read from, in the person's time zone.
    start_date: String,
    /// Last day (the whole day) or moment to read to.
    end_date: String,
    /// How many messages, at most 1000 (default 200).
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SemanticArgs {
    /// What the conversation was about.
    query: String,
    /// How many summaries, at most 20 (default 5).
    #[serde(default)]
    limit: Option<u32>,
}

struct MemoryTool {
    deps: Deps,
    def: ToolDef,
    kind: Kind,
}

impl Tool for MemoryTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn available(&self) -> bool {
        self.deps.offered()
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        (self.kind == Kind::Forget).then(|| CallDescription {
            risk_label: Some("Forgets something it remembers".to_owned()),
            target: args
                .get("fact_id")
                .and_then(Value::as_i64)
                .map(|id| format!("Memory #{id}")),
        })
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            if !self.deps.offered() {
                return Err(ToolError::Failed(
                    "Memory is turned off in Settings, so there is nothing to look up or save."
                        .to_owned(),
                ));
            }
            match self.kind {
                Kind::Recall => {
                    let a: RecallArgs = parse_args(args)?;
                    let found = self
                        .deps
                        .memory
                        .recall(&a.query, limit(a.limit, 8, 50))
                        .await
                        .map_err(failed)?;
                    Ok(fact_rows(found, true))
                }
                Kind::BySource => {
                    let a: BySourceArgs = parse_args(args)?;
                    let source = a.source.trim();
                    if source.is_empty() {
                        return Err(ToolError::InvalidArguments(
                            "Name the source to search, for example conversation or file:notes.txt."
                                .to_owned(),
                        ));
                    }
                    let found = self
                        .deps
                        .memory
                        .recall_from(&a.query, limit(a.limit, 5, 50), Some(source))
                        .await
                        .map_err(failed)?;
                    Ok(fact_rows(found, false))
                }
                Kind::Remember => {
                    let a: RememberArgs = parse_args(args)?;
                    self.remember(&a.fact, ctx).await
                }
                Kind::Forget => {
                    let a: ForgetArgs = parse_args(args)?;
                    self.deps.memory.delete(a.fact_id).await.map_err(failed)?;
                    ToolOutput::json(json!({"deleted": true, "id": a.fact_id}))
                }
                Kind::History => {
                    let a: HistoryArgs = parse_args(args)?;
                    let hits = self
                        .deps
                        .sessions
                        .history_search(&a.query, limit(a.limit, 8, 50) as u32)
                        .await
                        .map_err(|e| ToolError::Failed(e.to_string()))?;
                    history_output(hits, ctx)
                }
                Kind::TimeRange => {
                    let a: TimeArgs = parse_args(args)?;
                    let zone = resolve_zone(None, &ctx.timezone)?;
                    let start = moment(&a.start_date, zone, Edge::Start)?;
                    let end = moment(&a.end_date, zone, Edge::End)?;
                    if end <= start {
                        return Err(ToolError::Failed(
                            "The end date is before the start date. Give the earlier date first."
                                .to_owned(),
                        ));
                    }
                    let hits = self
                        .deps
                        .sessions
                        .history_between(start, end, limit(a.limit, 200, 1000) as u32)
                        .await
                        .map_err(|e| ToolError::Failed(e.to_string()))?;
                    history_output(hits, ctx)
                }
                Kind::Summaries => {
                    let a: SemanticArgs = parse_args(args)?;
                    let found = self
                        .deps
                        .memory
                        .search_summaries(&a.query, limit(a.limit, 5, 20))
                        .await
                        .map_err(failed)?;
                    let rows: Vec<Value> = found
                        .into_iter()
                        .map(|(s, similarity)| {
                            json!({
                                "id": s.id,
                                "content": s.content,
                                "start_at": s.start_at,
                                "end_at": s.end_at,
                                "session_id": s.session_id,
                                "similarity": similarity.map(round),
                            })
                        })
                        .collect();
                    ToolOutput::json(rows)
                }
            }
        })
    }
}

impl MemoryTool {
    /// Saves one fact; held for review when the run read outside content or nobody asked for it.
    async fn remember(&self, fact: &str, ctx: &ToolCtx) -> Result<ToolOutput, ToolError> {
        let review =
            held_because(ctx).map(|from| ReviewNote::new(&from, None, ctx.session_id.as_deref()));
        let held = review.is_some();
        let written = self
            .deps
            .memory
            .remember(fact, "conversation", review)
            .await
            .map_err(failed)?;
        let mut answer = serde_json::to_value(&written)
            .map_err(|e| ToolError::Failed(format!("The answer could not be encoded: {e}")))?;
        if held && let Some(object) = answer.as_object_mut() {
            object.insert(
                "message".to_owned(),
                Value::String(
                    "Saved for review: it waits in Memory > Review until the person approves it, and is not used before then."
                        .to_owned(),
                ),
            );
        }
        Ok(ToolOutput {
            value: answer,
            ..ToolOutput::default()
        })
    }
}

/// Why a fact the model saves must wait for review: the app whose content the run read, or
/// the kind of work nobody asked for. `None` for a clean run the person started.
fn held_because(ctx: &ToolCtx) -> Option<String> {
    if let Some(app) = ctx.mark.as_deref().filter(|m| !m.is_empty()) {
        return Some(app.to_owned());
    }
    ctx.origin.is_unprompted().then(|| {
        match ctx.origin {
            Origin::Proactive => "a proactive check",
            Origin::Heartbeat => "a heartbeat check",
            Origin::Followups => "a follow-up check",
            Origin::Dreaming => "dreaming",
            _ => "background work",
        }
        .to_owned()
    })
}

/// Facts as the model reads them, each row a memory source (`via: "tool"`).
fn fact_rows(facts: Vec<Memory>, with_topics: bool) -> ToolOutput {
    let rows = facts
        .into_iter()
        .map(|f| {
            let mut row = json!({
                "id": f.id,
                "fact": f.content,
                "similarity": f.similarity.map(round),
            });
            if with_topics {
                row["topics"] = json!(f.topics);
            }
            let source = MemorySource {
                kind: "fact".to_owned(),
                id: Value::from(f.id),
                text: f.content,
                source: f.source,
                via: "tool".to_owned(),
            };
            (row, source)
        })
        .collect();
    ToolOutput::memory_rows(rows)
}

/// Past messages as the model reads them; a hit from another chat that read outside content
/// marks this run with that app.
fn history_output(hits: Vec<HistoryHit>, ctx: &ToolCtx) -> Result<ToolOutput, ToolError> {
    let mark = hits
        .iter()
        .filter(|h| ctx.session_id.as_deref() != Some(h.session_id.as_str()))
        .find_map(|h| h.untrusted.clone());
    Ok(ToolOutput::json(hits)?.marking_run(mark))
}

fn failed(error: crate::MemoryError) -> ToolError {
    ToolError::Failed(error.to_string())
}

fn limit(asked: Option<u32>, default: usize, most: usize) -> usize {
    asked.map_or(default, |n| n as usize).clamp(1, most)
}

fn round(similarity: f64) -> f64 {
    (similarity * 1000.0).round() / 1000.0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Start,
    End,
}

/// A date or moment in the person's zone as UTC. A bare date is the start of that day, or as
/// an end the start of the next (the whole day included).
fn moment(text: &str, zone: chrono_tz::Tz, edge: Edge) -> Result<DateTime<Utc>, ToolError> {
    let text = text.trim();
    let bad = || {
        ToolError::Failed(format!(
            "\"{text}\" is not a date. Write dates as YYYY-MM-DD, for example 2026-03-14."
        ))
    };
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    let local = if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = match edge {
            Edge::Start => day,
            Edge::End => day.checked_add_signed(Duration::days(1)).ok_or_else(bad)?,
        };
        day.and_hms_opt(0, 0, 0).ok_or_else(bad)?
    } else {
        [
            "%Y-%m-%dT%H:%M:%S",
            "%Y-%m-%dT%H:%M",
            "%Y-%m-%d %H:%M:%S",
            "%Y-%m-%d %H:%M",
        ]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
        .ok_or_else(bad)?
    };
    zone.from_local_datetime(&local)
        .earliest()
        .map(|at| at.with_timezone(&Utc))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_end_date_covers_the_whole_day() {
        let zone: chrono_tz::Tz = "Asia/Kolkata".parse().unwrap_or(chrono_tz::UTC);
        let start = moment("2026-03-14", zone, Edge::Start).ok();
        let end = moment("2026-03-14", zone, Edge::End).ok();
        assert_eq!(
            start.map(|t| t.to_rfc3339()),
            Some("2026-03-13T18:30:00+00:00".to_owned())
        );
        assert_eq!(
            end.map(|t| t.to_rfc3339()),
            Some("2026-03-14T18:30:00+00:00".to_owned())
        );
        assert_eq!(
            moment("2026-03-14T09:15", chrono_tz::UTC, Edge::End)
                .ok()
                .map(|t| t.to_rfc3339()),
            Some("2026-03-14T09:15:00+00:00".to_owned())
        );
    }

    #[test]
    fn a_bad_date_is_a_plain_error() {
        let error = moment("next tuesday", chrono_tz::UTC, Edge::Start).err();
        assert!(
            matches!(&error, Some(ToolError::Failed(m)) if m.contains("YYYY-MM-DD")),
            "{error:?}"
        );
        assert!(moment("2026-02-30", chrono_tz::UTC, Edge::Start).is_err());
    }

    #[test]
    fn fact_rows_end_where_their_text_ends() {
        let fact = |id: i64, text: &str| Memory {
            id,
            content: text.to_owned(),
            topics: vec!["Relationships & Social Life".to_owned()],
            source: "manual".to_owned(),
            memory_type: crate::model::MemoryType::LongTerm,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            expires_at: None,
            previous_content: None,
            status: crate::model::FactStatus::Active,
            review: None,
            similarity: Some(0.5),
            score: None,
        };
        let output = fact_rows(vec![fact(1, "a"), fact(2, "Meera lives in Lisbon")], true);
        let text = output.value.to_string();
        let ends: Vec<usize> = output.memory_sources.iter().map(|(end, _)| *end).collect();
        assert_eq!(ends.len(), 2);
        // Each row's end is just before the comma or closing bracket that follows it.
        assert_eq!(&text[ends[0]..=ends[0]], ",");
        assert_eq!(ends[1] + 1, text.chars().count());
        assert!(output.memory_sources.iter().all(|(_, s)| s.via == "tool"));
    }
}
