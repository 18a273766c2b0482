//! Commands on this computer (contract section 18) with a real shell, real git, real processes
//! and the scripted model: hidden while off; with one folder allowed, `git status` runs unasked,
//! `rm -rf ~` is refused and an unlisted command asks; the checks' order and who may run what;
//! a scrubbed environment; cut output saved whole; and a timeout, Stop and Stop everything
//! killing the whole tree, a child that left the group included.

use anyhow::{Context, Result};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use sentient_e2e::sentient_engine::agent::approvals::Origin;
use sentient_e2e::sentient_engine::terminal::TerminalResult;
use sentient_e2e::{TestEngine, WAIT, eventually};
use sentient_model_server::Reply;

use crate::integrations::scripted;

async fn patch(t: &TestEngine, body: Value) -> Result<()> {
    let (status, answer) = t.client.patch("/api/config", body).await?;
    anyhow::ensure!(status == 200, "config: {status} {answer}");
    Ok(())
}

/// An engine with the terminal on for one new git repository (and its path).
async fn with_a_project() -> Result<(TestEngine, tempfile::TempDir, String)> {
    let t = TestEngine::start().await?;
    let project = tempfile::tempdir()?;
    let out = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(project.path())
        .output()?;
    anyhow::ensure!(out.status.success(), "git init: {out:?}");
    std::fs::write(project.path().join("README.md"), "hello")?;
    let folder = std::fs::canonicalize(project.path())?.display().to_string();
    patch(
        &t,
        json!({"terminal": {"enabled": true, "allowed_folders": [folder.clone()]}}),
    )
    .await?;
    Ok((t, project, folder))
}

async fn run_as(t: &TestEngine, command: &str, origin: Origin) -> TerminalResult {
    t.engine
        .services()
        .terminal()
        .run(
            command,
            None,
            origin,
            "call-1",
            &CancellationToken::new(),
            None,
        )
        .await
}

#[tokio::test]
async fn the_terminal_is_hidden_while_off_and_a_call_anyway_runs_nothing() -> Result<()> {
    let t = TestEngine::start().await?;
    let offered = t.engine.services().tools().offered(&[]);
    assert!(!offered.iter().any(|s| s.name == "terminal_run"));
    let (_, tools) = t.client.get("/api/tools").await?;
    assert!(!tools.to_string().contains("terminal_run"), "{tools}");
    let r = run_as(&t, "touch made.txt", Origin::Chat).await;
    assert!(!r.ok);
    assert_eq!(
        r.error.as_deref(),
        Some(
            "Running commands on this computer is turned off, so the command was not run. Turn it on in Settings > Terminal."
        )
    );
    let (status, body) = t.client.get("/api/terminal/status").await?;
    assert_eq!(status, 200);
    assert_eq!(body["enabled"], false);
    t.stop().await;
    Ok(())
}

/// The acceptance: with the terminal on for one folder, `git status` runs unasked, `rm -rf ~`
/// is refused without a question, and an unlisted command asks (and, denied, runs nothing).
#[tokio::test]
async fn with_one_folder_git_status_runs_unasked_rm_rf_home_is_refused_and_an_unlisted_command_asks()
-> Result<()> {
    let (t, project, folder) = with_a_project().await?;
    let model = scripted(&t).await?;
    patch(&t, json!({"tools": {"approvals": {"mode": "ask"}}})).await?;
    model.push(Reply::tool_call(
        "terminal_run",
        json!({"command": "git status"}),
    ));
    model.push(Reply::tool_call(
        "terminal_run",
        json!({"command": "rm -rf ~"}),
    ));
    model.push(Reply::tool_call(
        "terminal_run",
        json!({"command": "touch made.txt"}),
    ));
    model.push(Reply::text("Done."));
    let mut ws = t.ws().await?;
    ws.send_json(json!({"type": "chat.send", "text": "What's the state of my project?"}))
        .await?;
    let mut results = Vec::new();
    let question = loop {
        let event = tokio::time::timeout(WAIT * 3, ws.next_json()).await??;
        match event["type"].as_str() {
            Some("tool_result") => results.push(event),
            Some("approval_request") => break event,
            Some("done") => anyhow::bail!("no question came: {results:?}"),
            _ => {}
        }
    };
    assert_eq!(results.len(), 2, "both ran without a question: {results:?}");
    let status = &results[0]["result"];
    assert_eq!(status["ok"], true, "{status}");
    assert_eq!(status["cwd"], folder.as_str());
    assert!(
        status["stdout"]
            .as_str()
            .unwrap_or_default()
            .contains("README.md"),
        "{status}"
    );
    let refused = &results[1]["result"];
    assert_eq!(refused["ok"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Sentient never runs commands that"),
        "{refused}"
    );
    assert_eq!(refused["exit_code"], Value::Null);
    // The unlisted command asks, as running a command, in the folder it would run in.
    assert_eq!(question["name"], "terminal_run");
    assert_eq!(question["risk"], "exec");
    assert_eq!(question["risk_label"], "Runs a command");
    assert_eq!(question["target"], folder.as_str());
    ws.send_json(json!({"type": "approval.respond", "approval_id": question["approval_id"], "decision": "deny"}))
        .await?;
    ws.wait_for("done").await?;
    assert!(!project.path().join("made.txt").exists());
    // Listed while on; "Allow for this chat" never covers it.
    let (_, apps) = t.client.get("/api/tools").await?;
    assert!(apps.to_string().contains("\"terminal_run\""), "{apps}");
    let tool = t
        .engine
        .services()
        .tools()
        .get("terminal_run")
        .context("terminal_run registered")?;
    assert!(!tool.def().allow_for_chat);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn runs_nobody_can_be_asked_in_run_only_listed_commands_and_unprompted_work_none()
-> Result<()> {
    let (t, project, _) = with_a_project().await?;
    let not_listed = "Nobody can be asked to approve a command here, so only the commands listed in Settings > Terminal run, and this one isn't listed. Add it there, or run it from a chat.";
    for origin in [Origin::Task, Origin::Swarm, Origin::Subagent] {
        let r = run_as(&t, "touch made.txt", origin).await;
        assert_eq!(r.error.as_deref(), Some(not_listed), "{origin:?}");
        let r = run_as(&t, "git status", origin).await;
        assert!(r.ok, "{origin:?} {r:?}");
    }
    assert!(!project.path().join("made.txt").exists());
    // Work nobody asked for: refused even for a listed command and under an Allow rule.
    patch(
        &t,
        json!({"tools": {"approvals": {"rules": {"terminal_run": "allow"}}}}),
    )
    .await?;
    let r = run_as(&t, "git status", Origin::Proactive).await;
    assert_eq!(
        r.error.as_deref(),
        Some(
            "Sentient doesn't run commands for work nobody asked for, so the command was not run."
        )
    );
    // An Allow rule lets a task run an unlisted command.
    let r = run_as(&t, "touch made.txt", Origin::Task).await;
    assert!(r.ok, "{r:?}");
    assert!(project.path().join("made.txt").exists());
    // The order: the blocklist before the folder, the folder before who asks.
    let r = t
        .engine
        .services()
        .terminal()
        .run(
            "ls",
            Some("/"),
            Origin::Task,
            "c",
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(
        r.error.as_deref().unwrap_or_default().contains("outside"),
        "{r:?}"
    );
    let r = run_as(&t, &"x".repeat(8001), Origin::Chat).await;
    assert!(
        r.error
            .as_deref()
            .unwrap_or_default()
            .contains("at most 8000"),
        "{r:?}"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn long_output_keeps_its_start_and_end_and_is_saved_whole() -> Result<()> {
    let (t, _project, _) = with_a_project().await?;
    patch(&t, json!({"terminal": {"max_output_chars": 500}})).await?;
    let r = run_as(&t, "seq 1 5000; echo oops >&2", Origin::Chat).await;
    assert!(r.ok, "{r:?}");
    assert!(r.stdout.starts_with("1\n2\n3\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("4999\n5000\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(" characters cut here ...]"),
        "{}",
        r.stdout
    );
    assert_eq!(r.stderr, "oops\n");
    let file = r.output_file.as_deref().context("the whole output saved")?;
    assert!(
        file.starts_with("outputs/terminal-") && file.ends_with(".txt"),
        "{file}"
    );
    let whole = std::fs::read_to_string(t.home().join("files").join(file))?;
    assert!(
        whole.contains("\n2500\n") && whole.contains("5000\n"),
        "saved whole"
    );
    // A non-zero exit code is not an error.
    let r = run_as(&t, "exit 3", Origin::Chat).await;
    assert_eq!(
        (r.ok, r.exit_code, r.error.as_deref()),
        (false, Some(3), None)
    );
    t.stop().await;
    Ok(())
}

/// A command that leaves a `setsid` child (out of its process group) and waits.
fn leaves_a_child(marker: &str) -> String {
    format!("setsid sleep {marker} & sleep {marker}")
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_timeout_stop_and_stop_everything_kill_the_tree_and_a_child_that_left_it() -> Result<()> {
    let (t, _project, _) = with_a_project().await?;
    patch(&t, json!({"terminal": {"timeout_s": 5}})).await?;
    let pid = std::process::id();

    // The timeout.
    let marker = format!("301.{pid}");
    let r = run_as(&t, &leaves_a_child(&marker), Origin::Chat).await;
    assert!(r.timed_out && !r.ok, "{r:?}");
    assert_eq!(
        r.error.as_deref(),
        Some(
            "The command took longer than 5 seconds and was stopped. Give it more time in Settings > Terminal, or run something shorter."
        )
    );
    eventually("nothing of the timed-out command left", || async {
        Ok(crate::processes::alive_with(&marker)
            .is_empty()
            .then_some(()))
    })
    .await?;

    // Stop by id (the run's id, from the status) and by Stop everything.
    for (n, how) in ["by id", "everything"].iter().enumerate() {
        let marker = format!("30{}.{pid}", n + 2);
        let terminal = t.engine.services().terminal().clone();
        let command = leaves_a_child(&marker);
        let running = tokio::spawn(async move {
            terminal
                .run(
                    &command,
                    None,
                    Origin::Chat,
                    "call-stop",
                    &CancellationToken::new(),
                    None,
                )
                .await
        });
        let id = eventually("the command shows as running", || async {
            let (_, status) = t.client.get("/api/terminal/status").await?;
            Ok(status["running"][0]["id"].as_str().map(str::to_owned))
        })
        .await?;
        eventually("its child started", || async {
            Ok((crate::processes::alive_with(&marker).len() >= 2).then_some(()))
        })
        .await?;
        if *how == "by id" {
            let (status, answer) = t
                .client
                .post("/api/terminal/stop", json!({"id": id}))
                .await?;
            assert_eq!((status, answer), (200, json!({"stopped": true})));
        } else {
            let (status, body) = t.client.post("/api/stop-all", json!({})).await?;
            assert_eq!(status, 200, "{body}");
        }
        let r = tokio::time::timeout(WAIT, running).await??;
        assert!(r.stopped && !r.ok, "{how}: {r:?}");
        assert_eq!(
            r.error.as_deref(),
            Some("The command was stopped before it finished.")
        );
        eventually("nothing of the stopped command left", || async {
            Ok(crate::processes::alive_with(&marker)
                .is_empty()
                .then_some(()))
        })
        .await?;
        if *how == "everything" {
            t.client.post("/api/resume", json!({})).await?;
        }
    }
    let (_, status) = t.client.get("/api/terminal/status").await?;
    assert_eq!(status["running"], json!([]));
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_routes_answer_in_the_contracts_shapes() -> Result<()> {
    let (t, _project, folder) = with_a_project().await?;
    let (status, body) = t.client.get("/api/terminal/status").await?;
    assert_eq!(status, 200, "{body}");
    let keys: Vec<&str> = body
        .as_object()
        .context("object")?
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "allowed_folders",
            "blocked",
            "default_folder",
            "enabled",
            "running",
            "shell",
            "shell_path"
        ]
    );
    assert_eq!(body["default_folder"], folder.as_str());
    assert_eq!(body["blocked"].as_array().map(Vec::len), Some(7), "{body}");
    assert!(
        matches!(body["shell"].as_str(), Some("bash" | "zsh" | "sh")),
        "{body}"
    );
    let (status, body) = t
        .client
        .post("/api/terminal/stop", json!({"id": "nothing-runs"}))
        .await?;
    assert_eq!((status, body), (200, json!({"stopped": false})));
    for bad in [json!({}), json!({"id": 5})] {
        let (status, body) = t.client.post("/api/terminal/stop", bad.clone()).await?;
        assert_eq!(status, 422, "{bad} {body}");
        assert!(
            body["detail"].is_array() || body["detail"].is_string(),
            "{body}"
        );
    }
    t.stop().await;
    Ok(())
}

/// The environment a command sees: the engine's own without secrets.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_command_sees_no_secret_from_the_engines_environment() -> Result<()> {
    crate::child::run_in_child(
        module_path!(),
        "scrubbed_environment_child",
        &[
            ("OPENAI_API_KEY", "sk-test"),
            ("MY_SERVICE_TOKEN", "t0k"),
            ("DB_PASSWORD", "pw"),
            ("SENTIENT_SOMETHING", "1"),
            ("CUSTOM_PROVIDER_VAR", "kept-away"),
            ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "user.name"),
            ("GIT_CONFIG_VALUE_0", "Someone"),
        ],
    )
    .await
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "run by a_command_sees_no_secret_from_the_engines_environment"]
async fn scrubbed_environment_child() -> Result<()> {
    if !crate::child::is_child("scrubbed_environment_child") {
        return Ok(());
    }
    let (t, _project, _) = with_a_project().await?;
    patch(
        &t,
        json!({"models": {"providers": {"openai": {"api_key_env": "CUSTOM_PROVIDER_VAR"}}},
               "terminal": {"allowed_commands": ["env"]}}),
    )
    .await?;
    let r = run_as(&t, "env", Origin::Chat).await;
    assert!(r.ok, "{r:?}");
    let names: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for gone in [
        "OPENAI_API_KEY",
        "MY_SERVICE_TOKEN",
        "DB_PASSWORD",
        "SENTIENT_SOMETHING",
        "SENTIENT_E2E_CHILD",
        "CUSTOM_PROVIDER_VAR",
    ] {
        assert!(!names.contains(&gone), "{gone} reached the command");
    }
    let has = |line: &str| r.stdout.lines().any(|l| l == line);
    assert!(has("SSH_AUTH_SOCK=/tmp/agent.sock"));
    assert!(has("GIT_TERMINAL_PROMPT=0"));
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("SENTIENT_TERMINAL_RUN="))
    );
    // A listed command gets git's fsmonitor off, replacing any config the engine had.
    assert!(has("GIT_CONFIG_COUNT=1") && has("GIT_CONFIG_KEY_0=core.fsmonitor"));
    assert!(!r.stdout.contains("user.name"), "{}", r.stdout);
    patch(&t, json!({"terminal": {"allowed_commands": []}})).await?;
    let r = run_as(&t, "env", Origin::Chat).await;
    assert!(!r.stdout.contains("GIT_CONFIG"), "{}", r.stdout);
    t.stop().await;
    Ok(())
}
