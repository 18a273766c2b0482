//! The agent's tools through a real engine: `GET /api/tools` lists the built-in apps and their
//! tools, and calls made with the engine's own context land in its home and follow its settings.

use reqwest::Method;
use sentient_e2e::{TestEngine, send};
use serde_json::{Value, json};

#[tokio::test]
async fn get_tools_lists_the_built_in_apps() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t.client.get("/api/tools").await?;
    assert_eq!(status, 200, "{body}");
    let apps = body.as_array().expect("a list");
    let ids: Vec<&str> = apps.iter().filter_map(|a| a["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "time",
            "files",
            "web",
            "tasks",
            "gmail",
            "gcalendar",
            "email_imap",
            "github",
            "weather",
            "maps",
            "news",
            "charts",
            "browser",
            "code",
            "devices"
        ]
    );
    for app in apps {
        for key in [
            "display_name",
            "description",
            "category",
            "icon",
            "auth",
            "selection_hint",
        ] {
            assert!(app[key].is_string(), "{key} in {app}");
        }
        for tool in app["tools"].as_array().expect("tools") {
            let keys: Vec<&String> = tool.as_object().expect("tool").keys().collect();
            assert_eq!(keys, ["description", "name", "risk"], "{tool}");
        }
    }
    let tools: Vec<(String, String)> = apps
        .iter()
        .flat_map(|a| a["tools"].as_array().cloned().unwrap_or_default())
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_owned(),
                t["risk"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("time_now", "read"),
        ("files_list", "read"),
        ("files_read", "read"),
        ("files_write", "write"),
        ("web_fetch", "read"),
        ("internet_search", "read"),
        // The tasks app's changes are internal (never asked about), so only its look-ups are listed.
        ("search_tasks", "read"),
        ("get_task_status", "read"),
        // The apps' tools are listed while they are not connected (offered only once they are).
        ("gmail_search", "read"),
        ("gmail_read", "read"),
        ("gmail_create_draft", "write"),
        ("gmail_trash", "write"),
        ("gmail_reply", "send"),
        ("gmail_send_email", "send"),
        ("gcal_list_events", "read"),
        ("gcal_create_event", "write"),
        ("gcal_update_event", "write"),
        ("gcal_delete_event", "write"),
        ("email_imap_search", "read"),
        ("email_imap_read", "read"),
        ("email_imap_send", "send"),
        ("github_search_issues", "read"),
        ("github_get_issue", "read"),
        ("github_create_issue", "write"),
        ("github_update_issue", "write"),
        ("github_comment", "send"),
        // The built-in apps only look things up (charts are drawn on this computer).
        ("weather_current", "read"),
        ("weather_forecast", "read"),
        ("maps_search_places", "read"),
        ("maps_directions", "read"),
        ("maps_reverse", "read"),
        ("news_search", "read"),
        ("news_headlines", "read"),
        ("charts_create", "read"),
        ("browser_open", "read"),
        ("browser_snapshot", "read"),
        ("browser_click", "write"),
        ("browser_type", "write"),
        ("browser_select", "write"),
        ("browser_press", "write"),
        ("browser_scroll", "read"),
        ("browser_back", "read"),
        ("browser_tabs", "read"),
        ("browser_switch_tab", "read"),
        ("browser_extract", "read"),
        ("browser_screenshot", "read"),
        ("browser_close", "read"),
        // Scripts run code on this computer.
        ("execute_code", "exec"),
        // Listed even with no device online (Settings names every app); offered only with one.
        ("device_list", "read"),
        ("device_take_photo", "read"),
        ("device_capture_screen", "read"),
        ("device_get_location", "read"),
    ];
    assert_eq!(
        tools,
        expected.map(|(n, r)| (n.to_owned(), r.to_owned())).to_vec()
    );

    let (status, _) = send(t.client.anonymous(Method::GET, "/api/tools")).await?;
    assert_eq!(status, 401);
    let (_, doc) = t.client.get("/api/openapi.json").await?;
    assert!(doc["paths"]["/api/tools"]["get"].is_object());
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn calls_use_the_engine_home_and_settings() -> anyhow::Result<()> {
    let t = TestEngine::start().await?;
    let tools = t.engine.services().tools().clone();
    let ctx = t.engine.services().agent().tool_ctx("e2e-1");

    let saved = tools
        .invoke(
            "files_write",
            json!({"path": "outputs/hello.txt", "content": "hi there"}),
            &ctx,
            16_000,
        )
        .await;
    assert!(!saved.is_error, "{}", saved.content);
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/hello.txt"))?,
        "hi there"
    );

    let (status, _) = t
        .client
        .patch(
            "/api/config",
            json!({"assistant": {"timezone": "Asia/Kolkata"}}),
        )
        .await?;
    assert_eq!(status, 200);
    let ctx = t.engine.services().agent().tool_ctx("e2e-2");
    let now = tools.invoke("time_now", Value::Null, &ctx, 16_000).await;
    assert!(!now.is_error, "{}", now.content);
    assert_eq!(now.value["timezone"], "Asia/Kolkata");
    assert_eq!(now.value["utc_offset"], "+05:30");

    // A long result is cut for the model and saved whole in the engine's home.
    let long = tools
        .invoke("files_read", json!({"path": "outputs/hello.txt"}), &ctx, 2)
        .await;
    assert!(
        long.content
            .starts_with("hi\n\n[Result cut: this is only the first 2 of 8 characters.")
    );
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/tool-e2e-2.txt"))?,
        "hi there"
    );
    t.stop().await;
    Ok(())
}
