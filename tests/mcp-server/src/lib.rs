//! A note book as an MCP server, built on rmcp's server side, for the engine's tests. Its tools:
//! `look_up` (marked read-only), `save_note` (changes something: no hints, so the engine treats
//! it as a write that may send data out), `broken` (always answers with a tool error) and
//! `wait` (takes `seconds` to answer, or until the call is cancelled). Saved notes go to the
//! shared list a test holds, and to `NOTES_FILE` when the process was started with one.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

/// The notes saved so far, shared with the test that started the server.
pub type Notes = Arc<Mutex<Vec<String>>>;

/// The server: one note book, optionally mirrored to a file.
#[derive(Clone, Default)]
pub struct NoteBook {
    notes: Notes,
    file: Option<PathBuf>,
}

impl NoteBook {
    pub fn new(notes: Notes, file: Option<PathBuf>) -> Self {
        Self { notes, file }
    }

    fn save(&self, text: &str) -> std::io::Result<()> {
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text.to_owned());
        if let Some(file) = &self.file {
            use std::io::Write;
            let mut out = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)?;
            writeln!(out, "{text}")?;
        }
        Ok(())
    }
}

fn schema(properties: Value, required: &[&str]) -> Map<String, Value> {
    let value = json!({"type": "object", "properties": properties, "required": required});
    value.as_object().cloned().unwrap_or_default()
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "look_up",
            "Looks a word up in the note book.",
            Arc::new(schema(json!({"word": {"type": "string"}}), &["word"])),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "save_note",
            "Saves a note in the note book.",
            Arc::new(schema(json!({"text": {"type": "string"}}), &["text"])),
        ),
        Tool::new("broken", "Always fails.", Arc::new(schema(json!({}), &[])))
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "wait",
            "Answers after the given number of seconds.",
            Arc::new(schema(json!({"seconds": {"type": "number"}}), &["seconds"])),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
    ]
}

fn text_of(args: &Map<String, Value>, key: &str) -> String {
    args.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl ServerHandler for NoteBook {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "look_up" => {
                let word = text_of(&args, "word");
                let mut found = CallToolResult::structured(
                    json!({"word": word, "meaning": format!("{word} is in the note book")}),
                );
                found.content = vec![ContentBlock::text(format!("{word}: in the note book"))];
                found
            }
            "save_note" => {
                let text = text_of(&args, "text");
                match self.save(&text) {
                    Ok(()) => {
                        CallToolResult::success(vec![ContentBlock::text(format!("Saved: {text}"))])
                    }
                    Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                        "Could not save: {error}"
                    ))]),
                }
            }
            "broken" => CallToolResult::error(vec![ContentBlock::text("The note book is locked.")]),
            "wait" => {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))) => {}
                    () = context.ct.cancelled() => {}
                }
                CallToolResult::success(vec![ContentBlock::text("Done waiting.")])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("There is no tool called {other}."),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// Serves `book` over streamable HTTP at `http://127.0.0.1:<free port>/mcp` until `stop` fires;
/// answers the address.
pub async fn serve_http(book: NoteBook, stop: CancellationToken) -> std::io::Result<String> {
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let service: StreamableHttpService<NoteBook, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(book.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await;
    });
    Ok(format!("http://{addr}/mcp"))
}
