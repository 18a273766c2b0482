//! The scripted model server seen from a raw HTTP client: each provider's exact wire shape
//! for text, thinking, tool calls (fragmented where the format streams them), usage, errors,
//! stalls, slow streams, pulls, embeddings, listings and request recording.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::header::CONTENT_TYPE;
use sentient_model_server::{ModelInfo, ReasoningField, Reply, ScriptedModel};
use serde_json::{Value, json};

/// An upper bound for waits that should end at once (never a sleep).
const WAIT: Duration = Duration::from_secs(10);

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

async fn post(url: String, body: Value) -> reqwest::Response {
    client()
        .post(url)
        .json(&body)
        .send()
        .await
        .expect("request sent")
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each NDJSON line is JSON"))
        .collect()
}

/// Server-sent events as (event name, data); checks every event ends with a blank line.
fn events(text: &str) -> Vec<(Option<String>, String)> {
    assert!(text.ends_with("\n\n"), "stream ends with a complete event");
    text.split("\n\n")
        .filter(|block| !block.is_empty())
        .map(|block| {
            let mut name = None;
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = Some(n.to_owned());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push(d);
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            (name, data.join("\n"))
        })
        .collect()
}

fn data_json(events: &[(Option<String>, String)]) -> Vec<Value> {
    events
        .iter()
        .filter(|(_, d)| d != "[DONE]")
        .map(|(_, d)| serde_json::from_str(d).expect("event data is JSON"))
        .collect()
}

fn ollama_chat(model: &str, stream: Option<bool>) -> Value {
    let mut body = json!({
        "model": model,
        "messages": [{"role": "user", "content": "What is the weather in Pune?"}],
        "think": true,
        "options": {"num_ctx": 8192, "temperature": 0.2},
        "tools": [{"type": "function", "function": {"name": "find_city", "parameters": {"type": "object"}}}],
    });
    if let Some(stream) = stream {
        body["stream"] = json!(stream);
    }
    body
}

fn openai_chat(stream: bool, include_usage: bool) -> Value {
    let mut body = json!({
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "What is the weather in Pune?"}],
        "stream": stream,
    });
    if include_usage {
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

fn anthropic_chat(stream: bool) -> Value {
    json!({
        "model": "claude-test",
        "max_tokens": 1024,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "What is the weather in Pune?"}],
        "stream": stream,
    })
}

async fn anthropic_post(server: &ScriptedModel, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/v1/messages", server.anthropic_url()))
        .header("x-api-key", "sk-ant-test")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .expect("request sent")
}

// ---- Ollama -----------------------------------------------------------------------------

#[tokio::test]
async fn ollama_streams_text_as_ndjson_with_usage_and_records_options() {
    let server = ScriptedModel::start().await;
    server.push(Reply::text("Hello there, friend").usage(120, 8));
    let response = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("qwen3:8b", None),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CONTENT_TYPE], "application/x-ndjson");
    let lines = lines(&response.text().await.expect("body"));
    let (last, chunks) = lines.split_last().expect("lines");
    assert_eq!(chunks.len(), 3, "one line a word: {lines:?}");
    for chunk in chunks {
        assert_eq!(chunk["model"], "qwen3:8b");
        assert_eq!(chunk["done"], false);
        assert_eq!(chunk["message"]["role"], "assistant");
        let created = chunk["created_at"].as_str().expect("created_at");
        chrono_like(created);
    }
    let text: String = chunks
        .iter()
        .map(|c| c["message"]["content"].as_str().expect("content"))
        .collect();
    assert_eq!(text, "Hello there, friend");
    assert_eq!(last["done"], true);
    assert_eq!(last["done_reason"], "stop");
    assert_eq!(last["message"], json!({"role": "assistant", "content": ""}));
    assert_eq!(last["prompt_eval_count"], 120);
    assert_eq!(last["eval_count"], 8);
    assert!(last["total_duration"].as_u64().is_some());

    let recorded = server.last_request().expect("recorded");
    assert_eq!(recorded.method, "POST");
    assert_eq!(recorded.path, "/api/chat");
    assert_eq!(recorded.body["options"]["num_ctx"], 8192);
    assert_eq!(recorded.body["think"], true);
    assert_eq!(recorded.body["tools"][0]["function"]["name"], "find_city");
    assert_eq!(recorded.header("content-type"), Some("application/json"));
}

/// RFC 3339 with a date, a `T` and a zone.
fn chrono_like(stamp: &str) {
    assert!(
        stamp.len() >= 20 && stamp.as_bytes()[10] == b'T' && stamp.ends_with('Z'),
        "timestamp {stamp:?}"
    );
}

#[tokio::test]
async fn ollama_sends_thinking_then_content_and_estimates_usage() {
    let server = ScriptedModel::start().await;
    server.push(Reply::thinking("Let me see").then_text("It is 12°C"));
    let body = ollama_chat("qwen3:8b", Some(true));
    let lines = lines(
        &post(format!("{}/api/chat", server.base_url()), body.clone())
            .await
            .text()
            .await
            .expect("body"),
    );
    let thinking: String = lines
        .iter()
        .filter_map(|l| l["message"]["thinking"].as_str())
        .collect();
    let content: String = lines
        .iter()
        .filter_map(|l| l["message"]["content"].as_str())
        .collect();
    assert_eq!(thinking, "Let me see");
    assert_eq!(content, "It is 12°C");
    // Thinking lines come first and carry empty content.
    assert_eq!(lines[0]["message"]["content"], "");
    assert_eq!(lines[0]["message"]["thinking"], "Let ");
    let first_text = lines
        .iter()
        .position(|l| l["message"]["content"] != "")
        .expect("text");
    assert!(
        lines[..first_text]
            .iter()
            .all(|l| l["message"]["thinking"].is_string())
    );
    let done = lines.last().expect("done line");
    // Characters in messages ("user" + the question) / 4; 3 + 3 chunks × 2.
    let chars = "user".len() + "What is the weather in Pune?".len();
    assert_eq!(done["prompt_eval_count"], chars / 4);
    assert_eq!(done["eval_count"], 12);
}

#[tokio::test]
async fn ollama_sends_complete_tool_calls_with_object_arguments() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
        .push(Reply::tool_calls(vec![
            ("a", json!({})),
            ("b", json!({"x": 1})),
        ]));
    let url = format!("{}/api/chat", server.base_url());
    let first = lines(
        &post(url.clone(), ollama_chat("qwen3:8b", None))
            .await
            .text()
            .await
            .expect("body"),
    );
    assert_eq!(first.len(), 2, "{first:?}");
    let call = &first[0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "find_city");
    assert_eq!(call["function"]["arguments"], json!({"name": "Pune"}));
    assert_eq!(call["function"]["index"], 0);
    assert_eq!(call["id"], "call_1");
    assert_eq!(first[1]["done"], true);
    assert_eq!(first[1]["done_reason"], "stop");

    let second = lines(
        &post(url, ollama_chat("qwen3:8b", None))
            .await
            .text()
            .await
            .expect("body"),
    );
    let calls = second[0]["message"]["tool_calls"]
        .as_array()
        .expect("calls");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["function"]["name"], "a");
    assert_eq!(calls[1]["function"]["name"], "b");
    assert_eq!(calls[1]["function"]["index"], 1);
    assert_eq!(calls[1]["function"]["arguments"], json!({"x": 1}));
    assert_ne!(calls[0]["id"], calls[1]["id"]);
}

#[tokio::test]
async fn ollama_non_streaming_is_one_object() {
    let server = ScriptedModel::start().await;
    server.push(
        Reply::thinking("hmm")
            .then_text("Found it")
            .then_tool_call("find_city", json!({"name": "Pune"}))
            .usage(10, 4),
    );
    let response = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("qwen3:8b", Some(false)),
    )
    .await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("one JSON object");
    assert_eq!(answer["done"], true);
    assert_eq!(answer["done_reason"], "stop");
    assert_eq!(answer["message"]["content"], "Found it");
    assert_eq!(answer["message"]["thinking"], "hmm");
    assert_eq!(
        answer["message"]["tool_calls"][0]["function"]["arguments"],
        json!({"name": "Pune"})
    );
    assert_eq!(answer["prompt_eval_count"], 10);
    assert_eq!(answer["eval_count"], 4);
}

#[tokio::test]
async fn ollama_unknown_model_is_404_and_keeps_the_script() {
    let server = ScriptedModel::start().await;
    server.set_models(vec![ModelInfo::new("qwen3:8b")]);
    server.push(Reply::text("unused"));
    let response = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("llama3.2:1b", None),
    )
    .await;
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("json");
    assert_eq!(
        body,
        json!({"error": "model \"llama3.2:1b\" not found, try pulling it first"})
    );
    assert_eq!(server.pending(), 1);
    // The set model, with or without an explicit tag, is accepted.
    let ok = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("qwen3:8b", None),
    )
    .await;
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn ollama_errors_have_ollamas_body_and_retry_after() {
    let server = ScriptedModel::start().await;
    server
        .push(
            Reply::error(429)
                .message("Rate limit exceeded: free-models-per-day")
                .retry_after(30),
        )
        .push(Reply::error(401))
        .push(Reply::error(402))
        .push(Reply::error(404));
    let url = format!("{}/api/chat", server.base_url());
    let limited = post(url.clone(), ollama_chat("m", None)).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "30");
    assert_eq!(
        limited.json::<Value>().await.expect("json"),
        json!({"error": "Rate limit exceeded: free-models-per-day"})
    );
    for status in [401u16, 402, 404] {
        let response = post(url.clone(), ollama_chat("m", None)).await;
        assert_eq!(response.status().as_u16(), status);
        assert!(response.headers().get("retry-after").is_none());
        let body: Value = response.json().await.expect("json");
        let object = body.as_object().expect("object");
        assert_eq!(object.len(), 1, "{body}");
        assert!(body["error"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let exhausted = post(url, ollama_chat("m", None)).await;
    assert_eq!(exhausted.status(), 500);
    let body: Value = exhausted.json().await.expect("json");
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .starts_with("script exhausted")
    );
}

#[tokio::test]
async fn ollama_model_endpoints_describe_the_set_models() {
    let server = ScriptedModel::start().await;
    server.set_embedding_dim(384);
    server.set_models(vec![
        ModelInfo::new("qwen3:8b")
            .capabilities(&["completion", "tools", "thinking"])
            .context_length(40960),
        ModelInfo::new("nomic-embed-text:latest")
            .family("nomic-bert")
            .capabilities(&["embedding"])
            .loaded(true),
    ]);
    let base = server.base_url();

    let tags: Value = client()
        .get(format!("{base}/api/tags"))
        .send()
        .await
        .expect("tags")
        .json()
        .await
        .expect("json");
    let models = tags["models"].as_array().expect("models");
    assert_eq!(models.len(), 2);
    assert_eq!(models[0]["name"], "qwen3:8b");
    assert_eq!(models[0]["model"], "qwen3:8b");
    assert_eq!(models[0]["details"]["family"], "qwen3");
    assert_eq!(models[0]["details"]["parameter_size"], "8B");
    assert_eq!(models[0]["details"]["quantization_level"], "Q4_K_M");
    assert_eq!(models[0]["details"]["format"], "gguf");
    assert_eq!(models[0]["digest"].as_str().expect("digest").len(), 64);
    assert!(models[0]["size"].as_u64().is_some());
    assert!(models[0]["modified_at"].is_string());

    let show = post(format!("{base}/api/show"), json!({"model": "qwen3:8b"})).await;
    assert_eq!(show.status(), 200);
    let show: Value = show.json().await.expect("json");
    assert_eq!(show["model_info"]["qwen3.context_length"], 40960);
    assert_eq!(show["model_info"]["general.architecture"], "qwen3");
    assert_eq!(
        show["capabilities"],
        json!(["completion", "tools", "thinking"])
    );
    assert_eq!(show["details"]["family"], "qwen3");
    let embed_show: Value = post(
        format!("{base}/api/show"),
        json!({"name": "nomic-embed-text"}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(embed_show["model_info"]["nomic-bert.embedding_length"], 384);

    let missing = post(format!("{base}/api/show"), json!({"model": "x:1b"})).await;
    assert_eq!(missing.status(), 404);
    assert_eq!(
        missing.json::<Value>().await.expect("json"),
        json!({"error": "model 'x:1b' not found"})
    );

    // Loaded from the start: the embedding model; after a chat with num_ctx: qwen3 too.
    let ps = |base: String| async move {
        client()
            .get(format!("{base}/api/ps"))
            .send()
            .await
            .expect("ps")
            .json::<Value>()
            .await
            .expect("json")
    };
    let before = ps(base.clone()).await;
    assert_eq!(before["models"].as_array().expect("models").len(), 1);
    assert_eq!(before["models"][0]["name"], "nomic-embed-text:latest");
    server.push(Reply::text("hi"));
    post(format!("{base}/api/chat"), ollama_chat("qwen3:8b", None))
        .await
        .text()
        .await
        .expect("chat");
    let after = ps(base.clone()).await;
    let loaded = after["models"].as_array().expect("models");
    assert_eq!(loaded.len(), 2);
    assert_eq!(loaded[1]["name"], "qwen3:8b");
    assert_eq!(loaded[1]["context_length"], 8192);
    assert!(loaded[1]["size_vram"].as_u64().is_some());

    let version: Value = client()
        .get(format!("{base}/api/version"))
        .send()
        .await
        .expect("version")
        .json()
        .await
        .expect("json");
    assert!(version["version"].is_string());
}

#[tokio::test]
async fn ollama_pull_streams_progress_then_success_or_the_manifest_error() {
    let server = ScriptedModel::start().await;
    server.set_models(vec![ModelInfo::new("qwen3:8b")]);
    server.set_unpullable(&["nope:1b"]);
    let url = format!("{}/api/pull", server.base_url());

    let response = post(url.clone(), json!({"model": "llama3.2:1b"})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CONTENT_TYPE], "application/x-ndjson");
    let progress = lines(&response.text().await.expect("body"));
    assert_eq!(progress[0], json!({"status": "pulling manifest"}));
    let downloads: Vec<&Value> = progress.iter().filter(|l| l["total"].is_u64()).collect();
    assert!(downloads.len() >= 3);
    let total = downloads[0]["total"].as_u64().expect("total");
    let completed: Vec<u64> = downloads
        .iter()
        .filter_map(|l| l["completed"].as_u64())
        .collect();
    assert!(completed.windows(2).all(|w| w[0] < w[1]), "{completed:?}");
    assert_eq!(completed.last(), Some(&total));
    assert!(
        downloads[0]["digest"]
            .as_str()
            .expect("digest")
            .starts_with("sha256:")
    );
    assert!(
        downloads[0]["status"]
            .as_str()
            .expect("status")
            .starts_with("pulling ")
    );
    assert_eq!(progress.last(), Some(&json!({"status": "success"})));
    // The pulled model is now listed.
    let tags: Value = client()
        .get(format!("{}/api/tags", server.base_url()))
        .send()
        .await
        .expect("tags")
        .json()
        .await
        .expect("json");
    assert!(
        tags["models"]
            .as_array()
            .expect("models")
            .iter()
            .any(|m| m["name"] == "llama3.2:1b")
    );

    let failed = post(url.clone(), json!({"name": "nope:1b", "stream": true})).await;
    assert_eq!(failed.status(), 200);
    assert_eq!(
        lines(&failed.text().await.expect("body")),
        vec![
            json!({"status": "pulling manifest"}),
            json!({"error": "pull model manifest: file does not exist"}),
        ]
    );
    let failed_whole = post(url.clone(), json!({"model": "nope:1b", "stream": false})).await;
    assert_eq!(failed_whole.status(), 500);
    assert_eq!(
        failed_whole.json::<Value>().await.expect("json"),
        json!({"error": "pull model manifest: file does not exist"})
    );
    let whole = post(url, json!({"model": "phi4:14b", "stream": false})).await;
    assert_eq!(
        whole.json::<Value>().await.expect("json"),
        json!({"status": "success"})
    );
}

#[tokio::test]
async fn embeddings_in_both_formats_have_the_set_dimension() {
    let server = ScriptedModel::start().await;
    server.set_embedding_dim(16);
    let ollama: Value = post(
        format!("{}/api/embed", server.base_url()),
        json!({"model": "nomic-embed-text", "input": ["the cat sat", "the cat sat", "stock prices"]}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(ollama["model"], "nomic-embed-text");
    let vectors = ollama["embeddings"].as_array().expect("embeddings");
    assert_eq!(vectors.len(), 3);
    assert!(
        vectors
            .iter()
            .all(|v| v.as_array().expect("vector").len() == 16)
    );
    assert_eq!(vectors[0], vectors[1]);
    assert_ne!(vectors[0], vectors[2]);
    assert!(ollama["prompt_eval_count"].as_u64().expect("count") > 0);
    let single: Value = post(
        format!("{}/api/embed", server.base_url()),
        json!({"model": "nomic-embed-text", "input": "one string"}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(
        single["embeddings"].as_array().expect("embeddings").len(),
        1
    );

    let openai: Value = post(
        format!("{}/embeddings", server.openai_url()),
        json!({"model": "text-embedding-3-small", "input": "the cat sat"}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(openai["object"], "list");
    assert_eq!(openai["data"][0]["index"], 0);
    assert_eq!(openai["data"][0]["object"], "embedding");
    assert_eq!(openai["data"][0]["embedding"], vectors[0]);
    assert_eq!(openai["model"], "text-embedding-3-small");
    assert!(openai["usage"]["prompt_tokens"].as_u64().is_some());
    assert!(openai["usage"]["total_tokens"].as_u64().is_some());
}

// ---- OpenAI-compatible ----------------------------------------------------------------

#[tokio::test]
async fn openai_streams_sse_chunks_with_a_usage_chunk_and_done() {
    let server = ScriptedModel::start().await;
    server.push(Reply::text("Hello there").usage(120, 8));
    let response = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(true, true),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CONTENT_TYPE], "text/event-stream");
    let events = events(&response.text().await.expect("body"));
    assert!(events.iter().all(|(name, _)| name.is_none()));
    assert_eq!(events.last().expect("done").1, "[DONE]");
    let chunks = data_json(&events);
    let (usage_chunk, chunks) = chunks.split_last().expect("usage chunk");
    for chunk in chunks {
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["model"], "gpt-test");
        assert_eq!(chunk["choices"][0]["index"], 0);
        assert!(chunk["created"].is_i64());
        assert!(chunk["id"].as_str().expect("id").starts_with("chatcmpl-"));
        assert_eq!(chunk["usage"], Value::Null);
        assert!(chunk.as_object().expect("object").contains_key("usage"));
    }
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Hello there");
    let last = chunks.last().expect("finish chunk");
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert!(
        chunks[..chunks.len() - 1]
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(
        usage_chunk["usage"],
        json!({"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128})
    );
}

#[tokio::test]
async fn openai_without_include_usage_sends_no_usage() {
    let server = ScriptedModel::start().await;
    server.push(Reply::text("Hi"));
    let text = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(true, false),
    )
    .await
    .text()
    .await
    .expect("body");
    let chunks = data_json(&events(&text));
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
    assert!(
        chunks
            .iter()
            .all(|c| c["choices"].as_array().expect("choices").len() == 1)
    );
    assert!(text.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn openai_reasoning_goes_in_reasoning_content_or_reasoning() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::thinking("Let me see").then_text("It is 12°C"))
        .push(Reply::thinking("Again").then_text("Yes"));
    let url = format!("{}/chat/completions", server.openai_url());
    let chunks = data_json(&events(
        &post(url.clone(), openai_chat(true, false))
            .await
            .text()
            .await
            .expect("body"),
    ));
    let reasoning: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["reasoning_content"].as_str())
        .collect();
    let content: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(reasoning, "Let me see");
    assert_eq!(content, "It is 12°C");

    server.set_reasoning_field(ReasoningField::Reasoning);
    let chunks = data_json(&events(
        &post(url, openai_chat(true, false))
            .await
            .text()
            .await
            .expect("body"),
    ));
    let reasoning: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["reasoning"].as_str())
        .collect();
    assert_eq!(reasoning, "Again");
    assert!(
        chunks
            .iter()
            .all(|c| c["choices"][0]["delta"].get("reasoning_content").is_none())
    );
}

#[tokio::test]
async fn openai_streams_tool_call_arguments_as_fragments() {
    let server = ScriptedModel::start().await;
    server.push(Reply::tool_calls(vec![
        ("find_city", json!({"name": "Pune", "country": "India"})),
        ("b", json!({"x": 1})),
    ]));
    let chunks = data_json(&events(
        &post(
            format!("{}/chat/completions", server.openai_url()),
            openai_chat(true, true),
        )
        .await
        .text()
        .await
        .expect("body"),
    ));
    let deltas: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    // The first delta of each call names it, with empty arguments.
    let starts: Vec<&&Value> = deltas.iter().filter(|d| d.get("id").is_some()).collect();
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0]["index"], 0);
    assert_eq!(starts[0]["type"], "function");
    assert_eq!(starts[0]["function"]["name"], "find_city");
    assert_eq!(starts[0]["function"]["arguments"], "");
    assert_eq!(starts[0]["id"], "call_1");
    assert_eq!(starts[1]["id"], "call_2");
    assert_eq!(starts[1]["index"], 1);
    assert_eq!(starts[1]["function"]["name"], "b");
    for index in 0..2 {
        let fragments: Vec<&str> = deltas
            .iter()
            .filter(|d| d["index"] == index && d.get("id").is_none())
            .map(|d| d["function"]["arguments"].as_str().expect("fragment"))
            .collect();
        assert!(fragments.len() >= 2, "arguments come in fragments");
        let arguments: Value =
            serde_json::from_str(&fragments.concat()).expect("fragments reassemble");
        let expected = if index == 0 {
            json!({"name": "Pune", "country": "India"})
        } else {
            json!({"x": 1})
        };
        assert_eq!(arguments, expected);
    }
    let finish = chunks
        .iter()
        .find_map(|c| c["choices"][0]["finish_reason"].as_str())
        .expect("finish reason");
    assert_eq!(finish, "tool_calls");
}

#[tokio::test]
async fn openai_non_streaming_is_a_chat_completion() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::text("Hello there").usage(12, 3))
        .push(Reply::tool_call("find_city", json!({"name": "Pune"})))
        .push(Reply::json(json!({"ok": true})).truncated());
    let url = format!("{}/chat/completions", server.openai_url());
    let answer: Value = post(url.clone(), openai_chat(false, false))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["choices"][0]["message"]["role"], "assistant");
    assert_eq!(answer["choices"][0]["message"]["content"], "Hello there");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        answer["usage"],
        json!({"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15})
    );
    let calls: Value = post(url.clone(), openai_chat(false, false))
        .await
        .json()
        .await
        .expect("json");
    let message = &calls["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["tool_calls"][0]["type"], "function");
    let arguments = message["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .expect("arguments are a JSON string");
    assert_eq!(
        serde_json::from_str::<Value>(arguments).expect("json"),
        json!({"name": "Pune"})
    );
    assert_eq!(calls["choices"][0]["finish_reason"], "tool_calls");
    let structured: Value = post(url, openai_chat(false, false))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(
        structured["choices"][0]["message"]["content"],
        r#"{"ok":true}"#
    );
    assert_eq!(structured["choices"][0]["finish_reason"], "length");
}

#[tokio::test]
async fn openai_errors_have_openais_body_and_retry_after() {
    let server = ScriptedModel::start().await;
    server
        .push(
            Reply::error(429)
                .message("Rate limit exceeded: free-models-per-day")
                .retry_after(30),
        )
        .push(Reply::error(401))
        .push(Reply::error(402))
        .push(Reply::error(404));
    let url = format!("{}/chat/completions", server.openai_url());
    let limited = post(url.clone(), openai_chat(true, true)).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "30");
    assert_eq!(
        limited.headers()[CONTENT_TYPE],
        "application/json; charset=utf-8"
    );
    let body: Value = limited.json().await.expect("json");
    assert_eq!(
        body["error"]["message"],
        "Rate limit exceeded: free-models-per-day"
    );
    assert_eq!(body["error"]["code"], "rate_limit_exceeded");
    assert!(body["error"]["type"].is_string());
    let expected = [
        (401u16, "invalid_api_key"),
        (402, "insufficient_quota"),
        (404, "model_not_found"),
    ];
    for (status, code) in expected {
        let response = post(url.clone(), openai_chat(true, true)).await;
        assert_eq!(response.status().as_u16(), status);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert!(body["error"]["type"].is_string());
    }
    let exhausted = post(url, openai_chat(true, true)).await;
    assert_eq!(exhausted.status(), 500);
    let body: Value = exhausted.json().await.expect("json");
    assert!(
        body["error"]["message"]
            .as_str()
            .expect("message")
            .starts_with("script exhausted")
    );
}

#[tokio::test]
async fn v1_models_answers_in_openai_or_anthropic_shape() {
    let server = ScriptedModel::start().await;
    server.set_models(vec![
        ModelInfo::new("gpt-test"),
        ModelInfo::new("claude-test"),
    ]);
    let openai: Value = client()
        .get(format!("{}/models", server.openai_url()))
        .send()
        .await
        .expect("models")
        .json()
        .await
        .expect("json");
    assert_eq!(openai["object"], "list");
    assert_eq!(
        openai["data"][0],
        json!({"id": "gpt-test", "object": "model", "created": 1_748_779_200, "owned_by": "library"})
    );
    let anthropic: Value = client()
        .get(format!("{}/v1/models", server.anthropic_url()))
        .header("anthropic-version", "2023-06-01")
        .send()
        .await
        .expect("models")
        .json()
        .await
        .expect("json");
    assert_eq!(anthropic["data"][1]["type"], "model");
    assert_eq!(anthropic["data"][1]["id"], "claude-test");
    assert_eq!(anthropic["has_more"], false);
    assert_eq!(anthropic["first_id"], "gpt-test");

    // Set models also gate chat requests in every format.
    server.push(Reply::text("unused"));
    let missing = post(
        format!("{}/chat/completions", server.openai_url()),
        json!({"model": "other", "messages": []}),
    )
    .await;
    assert_eq!(missing.status(), 404);
    assert_eq!(
        missing.json::<Value>().await.expect("json")["error"]["code"],
        "model_not_found"
    );
    let mut body = anthropic_chat(false);
    body["model"] = json!("other");
    let missing = anthropic_post(&server, body).await;
    assert_eq!(missing.status(), 404);
    assert_eq!(
        missing.json::<Value>().await.expect("json")["error"]["type"],
        "not_found_error"
    );
    assert_eq!(server.pending(), 1);
}

// ---- Anthropic --------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_streams_named_events_with_thinking_text_and_tool_use() {
    let server = ScriptedModel::start().await;
    server.push(
        Reply::thinking("Let me see")
            .then_text("Checking.")
            .then_tool_call("find_city", json!({"name": "Pune", "country": "India"}))
            .usage(120, 8),
    );
    let response = anthropic_post(&server, anthropic_chat(true)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CONTENT_TYPE], "text/event-stream");
    let events = events(&response.text().await.expect("body"));
    let data = data_json(&events);
    for ((name, _), data) in events.iter().zip(&data) {
        assert_eq!(
            name.as_deref(),
            data["type"].as_str(),
            "event name = data type"
        );
    }
    let names: Vec<&str> = events.iter().filter_map(|(n, _)| n.as_deref()).collect();
    assert_eq!(names[..2], ["message_start", "ping"]);
    assert_eq!(names[names.len() - 2..], ["message_delta", "message_stop"]);

    let start = &data[0]["message"];
    assert_eq!(start["type"], "message");
    assert_eq!(start["role"], "assistant");
    assert_eq!(start["model"], "claude-test");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["stop_reason"], Value::Null);
    assert!(start["id"].as_str().expect("id").starts_with("msg_"));
    assert_eq!(
        start["usage"],
        json!({"input_tokens": 120, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
    );

    let blocks: Vec<&Value> = data
        .iter()
        .filter(|d| d["type"] == "content_block_start")
        .collect();
    assert_eq!(blocks.len(), 3);
    assert_eq!(
        blocks[0]["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    assert_eq!(
        blocks[1]["content_block"],
        json!({"type": "text", "text": ""})
    );
    assert_eq!(blocks[2]["content_block"]["type"], "tool_use");
    assert_eq!(blocks[2]["content_block"]["name"], "find_city");
    assert_eq!(blocks[2]["content_block"]["input"], json!({}));
    assert_eq!(blocks[2]["content_block"]["id"], "toolu_1");
    let stops = data
        .iter()
        .filter(|d| d["type"] == "content_block_stop")
        .count();
    assert_eq!(stops, 3);

    let deltas = |index: u64, kind: &str, field: &str| -> Vec<String> {
        data.iter()
            .filter(|d| d["type"] == "content_block_delta" && d["index"] == index)
            .filter(|d| d["delta"]["type"] == kind)
            .map(|d| d["delta"][field].as_str().expect("delta text").to_owned())
            .collect()
    };
    assert_eq!(
        deltas(0, "thinking_delta", "thinking").concat(),
        "Let me see"
    );
    assert_eq!(deltas(0, "signature_delta", "signature").len(), 1);
    assert_eq!(deltas(1, "text_delta", "text").concat(), "Checking.");
    let partials = deltas(2, "input_json_delta", "partial_json");
    assert!(partials.len() >= 3, "input arrives in fragments");
    assert_eq!(
        serde_json::from_str::<Value>(&partials.concat()).expect("reassembles"),
        json!({"name": "Pune", "country": "India"})
    );

    let message_delta = &data[data.len() - 2];
    assert_eq!(
        message_delta["delta"],
        json!({"stop_reason": "tool_use", "stop_sequence": null})
    );
    assert_eq!(message_delta["usage"], json!({"output_tokens": 8}));

    let recorded = server.last_request().expect("recorded");
    assert_eq!(recorded.path, "/v1/messages");
    assert_eq!(recorded.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(recorded.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(recorded.body["system"], "Be brief.");
}

#[tokio::test]
async fn anthropic_text_ends_turn_and_non_streaming_is_one_message() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::text("Hello there"))
        .push(Reply::thinking("hmm").then_text("Hi").usage(9, 2))
        .push(Reply::text("cut").truncated());
    let data = data_json(&events(
        &anthropic_post(&server, anthropic_chat(true))
            .await
            .text()
            .await
            .expect("body"),
    ));
    let message_delta = data
        .iter()
        .find(|d| d["type"] == "message_delta")
        .expect("message_delta");
    assert_eq!(message_delta["delta"]["stop_reason"], "end_turn");
    // Default usage: (system + messages) characters / 4 and 2 chunks × 2.
    let chars = "Be brief.".len() + "user".len() + "What is the weather in Pune?".len();
    assert_eq!(data[0]["message"]["usage"]["input_tokens"], chars / 4);
    assert_eq!(message_delta["usage"]["output_tokens"], 4);

    let answer: Value = anthropic_post(&server, anthropic_chat(false))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(answer["type"], "message");
    assert_eq!(answer["role"], "assistant");
    assert_eq!(answer["content"][0]["type"], "thinking");
    assert_eq!(answer["content"][0]["thinking"], "hmm");
    assert!(answer["content"][0]["signature"].is_string());
    assert_eq!(answer["content"][1], json!({"type": "text", "text": "Hi"}));
    assert_eq!(answer["stop_reason"], "end_turn");
    assert_eq!(answer["usage"]["input_tokens"], 9);
    assert_eq!(answer["usage"]["output_tokens"], 2);

    let cut: Value = anthropic_post(&server, anthropic_chat(false))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(cut["stop_reason"], "max_tokens");
}

#[tokio::test]
async fn anthropic_errors_have_anthropics_body_and_retry_after() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::error(429).retry_after(30))
        .push(Reply::error(401))
        .push(Reply::error(402))
        .push(Reply::error(404))
        .push(Reply::error(529).message("Overloaded right now"));
    let limited = anthropic_post(&server, anthropic_chat(true)).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "30");
    let body: Value = limited.json().await.expect("json");
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "rate_limit_error");
    assert!(body["error"]["message"].is_string());
    for (status, kind) in [
        (401u16, "authentication_error"),
        (402, "billing_error"),
        (404, "not_found_error"),
        (529, "overloaded_error"),
    ] {
        let response = anthropic_post(&server, anthropic_chat(true)).await;
        assert_eq!(response.status().as_u16(), status);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], kind, "{body}");
        if status == 529 {
            assert_eq!(body["error"]["message"], "Overloaded right now");
        }
    }
    let exhausted = anthropic_post(&server, anthropic_chat(true)).await;
    assert_eq!(exhausted.status(), 500);
    let body: Value = exhausted.json().await.expect("json");
    assert_eq!(body["error"]["type"], "api_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .expect("message")
            .starts_with("script exhausted")
    );
}

// ---- the script across formats, pacing, recording ---------------------------------------

#[tokio::test]
async fn one_script_serves_whichever_format_is_called_in_order() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::text("first"))
        .push(Reply::text("second"))
        .push(Reply::text("third"));
    let ollama: Value = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("m", Some(false)),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(ollama["message"]["content"], "first");
    let openai: Value = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(false, false),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(openai["choices"][0]["message"]["content"], "second");
    let anthropic: Value = anthropic_post(&server, anthropic_chat(false))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(anthropic["content"][0]["text"], "third");
    assert_eq!(server.pending(), 0);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/api/chat", "/v1/chat/completions", "/v1/messages"]);
    assert_eq!(server.requests_to("/v1/messages").len(), 1);
}

/// Reads a streamed body until `enough` says so; returns what arrived.
async fn read_until(response: reqwest::Response, enough: impl Fn(&str) -> bool) -> String {
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !enough(&text) {
        let chunk = tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("more data in time")
            .expect("stream still open")
            .expect("chunk");
        text.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
    }
    text
}

#[tokio::test]
async fn stalled_streams_send_n_chunks_then_hold_until_the_client_leaves() {
    let server = ScriptedModel::start().await;
    server
        .push(Reply::stall_after(2))
        .push(Reply::stall_after(1))
        .push(Reply::text("alpha beta gamma").stalls_after(2));

    // Ollama: two content lines, no done line, then the client drops the response.
    let response = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("m", None),
    )
    .await;
    let text = read_until(response, |t| t.matches('\n').count() >= 2).await;
    let got = lines(&text);
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|l| l["done"] == false));
    tokio::time::timeout(WAIT, server.wait_for_disconnects(1))
        .await
        .expect("the stalled stream noticed the client leaving");

    // OpenAI: the role chunk and one content chunk; no finish, no [DONE].
    let response = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(true, true),
    )
    .await;
    let text = read_until(response, |t| t.matches("\n\n").count() >= 2).await;
    let chunks = data_json(&events(&text));
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[1]["choices"][0]["delta"]["content"], "part1 ");
    assert!(!text.contains("[DONE]") && !text.contains("\"stop\""));
    tokio::time::timeout(WAIT, server.wait_for_disconnects(2))
        .await
        .expect("second disconnect");

    // Anthropic: framing plus two text deltas; no message_stop.
    let response = anthropic_post(&server, anthropic_chat(true)).await;
    let text = read_until(response, |t| t.matches("text_delta").count() >= 2).await;
    assert!(text.contains("content_block_start") && !text.contains("message_stop"));
    tokio::time::timeout(WAIT, server.wait_for_disconnects(3))
        .await
        .expect("third disconnect");
    assert_eq!(server.disconnects(), 3);
}

#[tokio::test]
async fn a_stall_past_the_last_chunk_still_withholds_the_ending() {
    let server = ScriptedModel::start().await;
    server.push(Reply::text("one two").stalls_after(5));
    let response = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(true, true),
    )
    .await;
    // The role chunk and both words arrive; no finish_reason, usage or [DONE].
    let text = read_until(response, |t| t.matches("\n\n").count() >= 3).await;
    let chunks = data_json(&events(&text));
    assert_eq!(chunks.len(), 3);
    assert!(
        chunks
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );
    tokio::time::timeout(WAIT, server.wait_for_disconnects(1))
        .await
        .expect("still open until the client left");
}

#[tokio::test]
async fn dropping_the_server_ends_a_stalled_stream() {
    let server = ScriptedModel::start().await;
    server.push(Reply::stall_after(1));
    let response = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("m", None),
    )
    .await;
    let mut stream = response.bytes_stream();
    let first = tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("first chunk in time")
        .expect("a chunk")
        .expect("bytes");
    assert!(
        std::str::from_utf8(&first)
            .expect("utf-8")
            .contains("part1")
    );
    drop(server);
    // The body now ends (cleanly or cut off), without a done line.
    let rest = tokio::time::timeout(WAIT, async {
        let mut rest = Vec::new();
        while let Some(Ok(bytes)) = stream.next().await {
            rest.extend_from_slice(&bytes);
        }
        rest
    })
    .await
    .expect("the stream ends once the server is dropped");
    assert!(!String::from_utf8_lossy(&rest).contains("\"done\":true"));
}

#[tokio::test]
async fn a_stalled_non_streaming_request_gets_no_answer() {
    let server = ScriptedModel::start().await;
    server.push(Reply::stall_after(0));
    let url = format!("{}/api/chat", server.base_url());
    let request = tokio::spawn(post(url, ollama_chat("m", Some(false))));
    tokio::time::timeout(WAIT, server.wait_for_requests(1))
        .await
        .expect("request arrived");
    assert!(!request.is_finished());
    request.abort();
    tokio::time::timeout(WAIT, server.wait_for_disconnects(1))
        .await
        .expect("the server saw the client leave");
}

#[tokio::test]
async fn chunk_delay_paces_every_content_chunk() {
    let server = ScriptedModel::start().await;
    // A long delay: the opening frame arrives at once, the words are still pending.
    server.push(Reply::text("one two three").chunk_delay(Duration::from_secs(60)));
    let response = post(
        format!("{}/chat/completions", server.openai_url()),
        openai_chat(true, false),
    )
    .await;
    let first = read_until(response, |t| t.contains("\n\n")).await;
    let chunks = data_json(&events(&first));
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );

    let delay = Duration::from_millis(100);
    server.push(Reply::text("a b c").chunk_delay(delay));
    let started = Instant::now();
    let body = post(
        format!("{}/api/chat", server.base_url()),
        ollama_chat("m", None),
    )
    .await
    .text()
    .await
    .expect("body");
    assert!(started.elapsed() >= delay * 3);
    assert_eq!(lines(&body).len(), 4);
}

#[tokio::test]
async fn requests_are_recorded_and_can_be_awaited() {
    let server = ScriptedModel::start().await;
    let waiter = server.wait_for_requests(2);
    let base = server.base_url();
    let calls = async {
        client()
            .get(format!("{base}/api/tags?verbose=1"))
            .header("authorization", "Bearer secret")
            .send()
            .await
            .expect("tags");
        post(format!("{base}/nowhere"), json!({"a": 1})).await
    };
    let ((), missing) = tokio::join!(
        async {
            tokio::time::timeout(WAIT, waiter)
                .await
                .expect("two requests");
        },
        calls
    );
    assert_eq!(missing.status(), 404);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].path, "/api/tags");
    assert_eq!(requests[0].query.as_deref(), Some("verbose=1"));
    assert_eq!(requests[0].header("Authorization"), Some("Bearer secret"));
    assert_eq!(requests[0].body, Value::Null);
    assert_eq!(requests[1].body, json!({"a": 1}));
    assert_eq!(server.last_request().expect("last").path, "/nowhere");
}
