//! The scripted model server as a process, for browser tests that start the real engine:
//! `scripted-model-server SCRIPT.json` serves the replies in the file, in order, then prints one
//! JSON ready line (`{"base_url", "openai_url"}`) and runs until killed.
//!
//! The script is a JSON array; each reply is an object with `parts` (in order, each one of
//! `{"text"}`, `{"thinking"}` or `{"tool_call": {"name", "arguments"}}`), or the shorthand
//! `text` / `thinking` / `tool_call` for a one-part reply, or `error: {status, message?}`.
//! Optional: `usage: [prompt, completion]`, `chunk_delay_ms`.
//!
//! The file may instead be an object `{"replies": [...], "models": ["qwen3:8b", ...]}` (a model
//! may also be `{"name", "capabilities": ["completion", "tools"]}`): then Ollama has exactly those models (`[]`: none, so `/api/tags` is empty until a model is
//! pulled, and chat for a model it doesn't have gets Ollama's 404). Without `models` every
//! name is accepted and the listing is empty, as with a plain list. `pull_delay_ms` there
//! spaces a pull's progress lines.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use sentient_model_server::{ModelInfo, Reply, ScriptedModel};
use serde_json::{Value, json};

/// One part of a reply, added to what came before (or starting it).
fn add_part(reply: Option<Reply>, part: &Value) -> Result<Reply> {
    let text = |key: &str| part.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(t) = text("text") {
        return Ok(match reply {
            Some(r) => r.then_text(t),
            None => Reply::text(t),
        });
    }
    if let Some(t) = text("thinking") {
        return Ok(match reply {
            Some(r) => r.then_thinking(t),
            None => Reply::thinking(t),
        });
    }
    if let Some(call) = part.get("tool_call") {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .context("a tool_call needs a name")?;
        let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        return Ok(match reply {
            Some(r) => r.then_tool_call(name, arguments),
            None => Reply::tool_call(name, arguments),
        });
    }
    bail!("a part is {{text}}, {{thinking}} or {{tool_call}}, not {part}")
}

/// One scripted reply from its JSON.
fn reply_from_json(value: &Value) -> Result<Reply> {
    if let Some(error) = value.get("error") {
        let status = error
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(500);
        let mut reply = Reply::error(status);
        if let Some(message) = error.get("message").and_then(Value::as_str) {
            reply = reply.message(message);
        }
        return Ok(reply.into());
    }
    let parts: Vec<Value> = match value.get("parts") {
        Some(Value::Array(parts)) => parts.clone(),
        Some(other) => bail!("parts is a list, not {other}"),
        None => vec![value.clone()],
    };
    let mut reply = None;
    for part in &parts {
        reply = Some(add_part(reply, part)?);
    }
    let mut reply = reply.context("a reply needs at least one part")?;
    if let Some([prompt, completion]) = value
        .get("usage")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        let count = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        reply = reply.usage(count(prompt), count(completion));
    }
    if let Some(ms) = value.get("chunk_delay_ms").and_then(Value::as_u64) {
        reply = reply.chunk_delay(Duration::from_millis(ms));
    }
    Ok(reply)
}

/// A model is a name (`"qwen3:8b"`), or `{"name", "capabilities"}` for one that e.g. can use tools.
fn model_from_json(value: &Value) -> Result<ModelInfo> {
    if let Some(name) = value.as_str() {
        return Ok(ModelInfo::new(name));
    }
    let name = value["name"]
        .as_str()
        .context("a model is a name or {name, capabilities}")?;
    let model = ModelInfo::new(name);
    Ok(match value["capabilities"].as_array() {
        Some(caps) => {
            let caps: Vec<&str> = caps.iter().filter_map(Value::as_str).collect();
            model.capabilities(&caps)
        }
        None => model,
    })
}

/// The replies and, when the file names them, the models Ollama has.
fn script_and_models(file: Value) -> Result<(Vec<Value>, Option<Vec<ModelInfo>>)> {
    match file {
        Value::Array(replies) => Ok((replies, None)),
        Value::Object(mut object) => {
            let replies = match object.remove("replies") {
                Some(Value::Array(replies)) => replies,
                None => Vec::new(),
                Some(other) => bail!("replies is a list, not {other}"),
            };
            let models = match object.remove("models") {
                None | Some(Value::Null) => None,
                Some(Value::Array(names)) => Some(
                    names
                        .iter()
                        .map(model_from_json)
                        .collect::<Result<Vec<_>>>()?,
                ),
                Some(other) => bail!("models is a list of names, not {other}"),
            };
            Ok((replies, models))
        }
        other => bail!("the script is a list of replies or {{replies, models}}, not {other}"),
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let path = std::env::args()
        .nth(1)
        .context("usage: scripted-model-server SCRIPT.json")?;
    let text = std::fs::read_to_string(&path).with_context(|| format!("read {path}"))?;
    let file: Value = serde_json::from_str(&text).with_context(|| format!("{path} is not JSON"))?;
    let pull_delay = file.get("pull_delay_ms").and_then(Value::as_u64);
    let (script, models) = script_and_models(file).with_context(|| format!("read {path}"))?;
    let server = ScriptedModel::try_start().await?;
    if let Some(ms) = pull_delay {
        server.set_pull_delay(Duration::from_millis(ms));
    }
    if let Some(models) = models {
        server.set_models(models);
    }
    for (i, value) in script.iter().enumerate() {
        let reply = reply_from_json(value).with_context(|| format!("reply {i} in {path}"))?;
        server.push(reply);
    }
    println!(
        "{}",
        json!({"base_url": server.base_url(), "openai_url": server.openai_url(), "replies": script.len()})
    );
    // Until the test kills it.
    tokio::signal::ctrl_c().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_from_json_and_mistakes_are_named() {
        assert!(reply_from_json(&json!({"text": "Hi"})).is_ok());
        assert!(
            reply_from_json(&json!({"parts": [{"thinking": "Hmm"}, {"text": "Hi"}, {"tool_call": {"name": "time_now"}}], "usage": [10, 2]}))
                .is_ok()
        );
        assert!(
            reply_from_json(&json!({"error": {"status": 429, "message": "slow down"}})).is_ok()
        );
        let bad = reply_from_json(&json!({"parts": []})).expect_err("empty");
        assert!(bad.to_string().contains("at least one part"), "{bad}");
        let bad = reply_from_json(&json!({"parts": [{"picture": 1}]})).expect_err("unknown part");
        assert!(bad.to_string().contains("tool_call"), "{bad}");
    }

    #[test]
    fn a_script_is_a_list_or_replies_with_models() {
        let names = |models: Option<Vec<ModelInfo>>| {
            models.map(|m| m.iter().map(|m| m.name().to_owned()).collect::<Vec<_>>())
        };
        let (replies, models) = script_and_models(json!([{"text": "Hi"}])).expect("list");
        assert_eq!((replies.len(), names(models)), (1, None));
        let (replies, models) =
            script_and_models(json!({"replies": [{"text": "Hi"}], "models": []})).expect("object");
        assert_eq!((replies.len(), names(models)), (1, Some(Vec::new())));
        let (_, models) = script_and_models(
            json!({"models": ["qwen3:8b", {"name": "qwen3:4b", "capabilities": ["completion", "tools"]}]}),
        )
        .expect("models only");
        assert_eq!(
            names(models),
            Some(vec!["qwen3:8b".to_owned(), "qwen3:4b".to_owned()])
        );
        assert!(script_and_models(json!({"models": [1]})).is_err());
        assert!(script_and_models(json!({"models": [{"capabilities": []}]})).is_err());
        assert!(script_and_models(json!("hi")).is_err());
    }
}
