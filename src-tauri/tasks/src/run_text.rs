//! What a run's words become: the short form of a tool's arguments or result on a progress
//! line, the line for a call's result, and the structured result read from a final answer.
//! A leaf: the executor, one-call runs and swarms all use it.

use serde_json::Value;

use crate::model::{ResultFile, ResultLink, RunResult};
use sentient_llm::Message;

/// The result lists the model wrote in a ```json block at the end of its final answer.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct WrittenResult {
    #[serde(default)]
    links_created: Vec<ResultLink>,
    #[serde(default)]
    links_found: Vec<ResultLink>,
    #[serde(default)]
    files_created: Vec<ResultFile>,
}

/// Splits a final answer into the text for the person and the result block after it, if the
/// model wrote one that reads (anything else stays part of the text).
pub(crate) fn split_result_block(text: &str) -> (String, Option<WrittenResult>) {
    let trimmed = text.trim_end();
    if let Some(body) = trimmed.strip_suffix("```")
        && let Some(start) = body.rfind("```json")
        && let Ok(written) = serde_json::from_str::<WrittenResult>(body[start + 7..].trim())
    {
        return (body[..start].trim().to_owned(), Some(written));
    }
    (text.trim().to_owned(), None)
}

/// The structured result: the final answer, and what the calls show. `plugin_of` names the
/// app of a tool, or `None` for tools that don't count as used.
pub fn result_of(
    final_text: &str,
    messages: &[Message],
    plugin_of: impl Fn(&str) -> Option<String>,
) -> RunResult {
    let mut tools_used: Vec<String> = Vec::new();
    let mut links_found = Vec::new();
    let mut files_created = Vec::new();
    for call in messages.iter().flat_map(|m| m.tool_calls.iter()) {
        if let Some(plugin) = plugin_of(&call.name)
            && !tools_used.contains(&plugin)
        {
            tools_used.push(plugin);
        }
        let arg = |key: &str| {
            call.arguments
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match call.name.as_str() {
            "web_fetch" => {
                if let Some(url) = arg("url") {
                    links_found.push(ResultLink {
                        url,
                        description: "Read during the run".to_owned(),
                    });
                }
            }
            "files_write" => {
                if let Some(path) = arg("path") {
                    files_created.push(ResultFile {
                        filename: path,
                        description: "Written during the run".to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    // What the model wrote at the end of its answer comes first; what the calls show fills in.
    let (summary, written) = split_result_block(final_text);
    let mut links_created = Vec::new();
    if let Some(written) = written {
        links_created = written.links_created;
        // The model's own entries (and descriptions) first, then what only the calls show.
        links_found.retain(|l| !written.links_found.iter().any(|w| w.url == l.url));
        links_found.splice(0..0, written.links_found);
        files_created.retain(|f| {
            !written
                .files_created
                .iter()
                .any(|w| w.filename == f.filename)
        });
        files_created.splice(0..0, written.files_created);
    }
    RunResult {
        summary,
        links_created,
        links_found,
        files_created,
        tools_used,
    }
}

/// A value in at most 600 characters, for a progress line.
pub fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > 600 {
        text.chars().take(600).collect::<String>() + " …"
    } else {
        text
    }
}

/// The progress line of a call's result: "finished" only for a call that ran (a held or refused
/// call did not).
pub fn tool_result_line(name: &str, ran: bool) -> String {
    if ran {
        format!("{name} finished")
    } else {
        format!("{name} was not run")
    }
}
