//! `sentient-mcp-test-server`: the note book over stdio (the default), or with `--http` over
//! streamable HTTP on a free loopback port, printing `{"url": ...}` as its first line and serving
//! until its standard input closes. `NOTES_FILE` names a file each saved note is added to.

use rmcp::ServiceExt;
use sentient_mcp_test_server::{NoteBook, serve_http};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let file = std::env::var_os("NOTES_FILE").map(std::path::PathBuf::from);
    let book = NoteBook::new(Default::default(), file);
    if std::env::args().any(|a| a == "--http") {
        let stop = CancellationToken::new();
        let url = serve_http(book, stop.clone()).await?;
        println!("{}", serde_json::json!({ "url": url }));
        // Serve until whoever started us goes away.
        let mut sink = Vec::new();
        let _ = tokio::io::stdin().read_to_end(&mut sink).await;
        stop.cancel();
        return Ok(());
    }
    let running = book.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
