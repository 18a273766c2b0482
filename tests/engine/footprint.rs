//! Start-up builds nothing an area needs only when it is used (issue 33): after an engine has
//! started and answered, each lazy area's own state says it has not been built. Asserted on the
//! areas themselves, never on time, so the test holds on any machine.

use anyhow::Result;
use sentient_e2e::TestEngine;
use sentient_e2e::sentient_engine::memory::bit_cache::IndexState;
use sentient_e2e::sentient_engine::memory::codes::CodeState;

#[tokio::test]
async fn starting_the_engine_builds_no_area_before_its_first_use() -> Result<()> {
    let t = TestEngine::start().await?;
    let services = t.engine.services();
    // The gateway answers, so everything start does has run.
    let (status, _) = t.client.get("/api/bootstrap").await?;
    assert_eq!(status, 200);

    assert!(
        !services.llm().http_client_built(),
        "no model was called, so no HTTP client (and no CA bundle) is held for models"
    );
    assert!(
        !services.agent().tools().http_client_built(),
        "no tool was called, so the tools' HTTP client is not built"
    );
    assert_eq!(
        services.memory().facts().vector_index(),
        IndexState::NotLoaded,
        "memory was not searched, so the bit index holds nothing"
    );
    assert_eq!(
        services.memory().facts().vector_codes(),
        CodeState::NotLoaded,
        "memory was not searched, so no file of vector codes is made"
    );
    assert!(
        !services.sandbox().has_started(),
        "no script ran, so Python was not looked for and no folder was swept"
    );
    let lan = services.lan_status();
    assert!(
        !lan.running && !lan.mdns,
        "the LAN listener and its announcement wait for nodes.lan_enabled"
    );
    assert!(
        services.integrations().mcp().list().is_empty(),
        "no tool server is configured, so none is started"
    );

    // The first use builds what it needs.
    let (status, _) = t.client.get("/api/sandbox/status").await?;
    assert_eq!(status, 200);
    assert!(services.sandbox().has_started());
    t.stop().await;
    Ok(())
}
