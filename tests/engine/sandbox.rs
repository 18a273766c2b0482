//! Code execution (contract section 11) with real Python, real bubblewrap, real sockets and
//! real SQLite: a contained script reaches nothing of the person, Sentient or the network;
//! Read only connections hold on the script surface (also when switched on while a script
//! runs), scripts only read unless approvals are off, rules apply, `execute_code` from a chat
//! streams its output, a timeout kills the whole process tree, errors name their line, output
//! is capped, files are kept, and the routes answer in the contract's shapes.

use sentient_engine::sync::MutexExt;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use futures::future::BoxFuture;
use sentient_e2e::sentient_engine::integrations::Endpoints;
use sentient_e2e::sentient_engine::sandbox::{RunOptions, SandboxResult};
use sentient_e2e::sentient_engine::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput,
};
use sentient_e2e::{TestEngine, WAIT, eventually};
use sentient_model_server::Reply;
use serde_json::{Value, json};

use crate::integrations::{Log, chat, github_stand_in, scripted, tool_result};

const READ_ONLY_CREATE: &str = "GitHub is set to Read only, so Sentient can look things up there but can't change, send or delete anything. \"Create issue\" was not done. Change this in Integrations.";

async fn run(t: &TestEngine, code: &str) -> SandboxResult {
    t.engine
        .services()
        .sandbox()
        .run(code, RunOptions::default())
        .await
}

async fn patch(t: &TestEngine, body: Value) -> Result<()> {
    let (status, answer) = t.client.patch("/api/config", body).await?;
    anyhow::ensure!(status == 200, "config: {status} {answer}");
    Ok(())
}

/// An engine whose GitHub is the loopback stand-in, connected.
async fn with_github(log: &Log) -> Result<TestEngine> {
    let api = github_stand_in(log.clone()).await?;
    let t = TestEngine::start_with_endpoints(Endpoints {
        github_api: api,
        ..Endpoints::default()
    })
    .await?;
    let (status, body) = t
        .client
        .post(
            "/api/integrations/github/connect",
            json!({"fields": {"token": "ghp_good"}}),
        )
        .await?;
    anyhow::ensure!(status == 200, "connect: {status} {body}");
    Ok(t)
}

async fn set_github_access(t: &TestEngine, access: &str) -> Result<()> {
    let (status, body) = t
        .client
        .put("/api/integrations/github/access", json!({"access": access}))
        .await?;
    anyhow::ensure!(status == 200, "access: {status} {body}");
    Ok(())
}

/// Issues the stand-in was asked to create.
fn issues_posted(log: &Log) -> usize {
    log.lock_unpoisoned()
        .requests
        .iter()
        .filter(|r| r.0 == "POST")
        .count()
}

#[tokio::test]
async fn read_only_refuses_a_scripts_change_even_with_approvals_off_and_an_allow_rule() -> Result<()>
{
    let log: Log = Log::default();
    let t = with_github(&log).await?;
    set_github_access(&t, "read").await?;
    patch(
        &t,
        json!({"tools": {"approvals": {"mode": "off", "rules": {"github_create_issue": "allow"}}}}),
    )
    .await?;

    let r = run(
        &t,
        r#"
found = tools.github_search_issues(query="crash", repo="o/r")
try:
    tools.github_create_issue(repo="o/r", title="It crashes")
    outcome = "ran"
except ToolRefused as refusal:
    outcome = str(refusal)
listed = tools.available()
result({"found": found["items"][0]["number"], "refusal": outcome,
        "create_listed": "github_create_issue" in listed,
        "search_listed": "github_search_issues" in listed})
"#,
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.result["refusal"], READ_ONLY_CREATE, "{r:?}");
    assert_eq!(r.result["found"], 7, "the read ran");
    assert_eq!(r.result["create_listed"], false);
    assert_eq!(r.result["search_listed"], true);
    assert_eq!(r.tool_calls, 1, "the refused call is not counted");
    assert_eq!(issues_posted(&log), 0, "nothing reached GitHub");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn switching_to_read_only_while_a_script_runs_refuses_its_next_call() -> Result<()> {
    let log: Log = Log::default();
    let t = with_github(&log).await?;
    patch(
        &t,
        json!({"tools": {"approvals": {"mode": "off", "rules": {"github_create_issue": "allow"}}},
               "sandbox": {"max_tool_calls": 10000}}),
    )
    .await?;
    // The script keeps filing issues until one is refused (at most 3000, so it always ends).
    let code = r#"
made = 0
refusal = None
while made < 3000:
    try:
        tools.github_create_issue(repo="o/r", title="Try %d" % made)
    except ToolRefused as error:
        refusal = str(error)
        break
    made += 1
result({"made": made, "refusal": refusal})
"#;
    let sandbox = t.engine.services().sandbox().clone();
    let running = tokio::spawn(async move { sandbox.run(code, RunOptions::default()).await });
    eventually("the script's first issue reaching GitHub", || async {
        Ok((issues_posted(&log) >= 1).then_some(()))
    })
    .await?;
    set_github_access(&t, "read").await?;
    let r = tokio::time::timeout(WAIT * 3, running).await??;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.result["refusal"], READ_ONLY_CREATE, "{r:?}");
    let made = r.result["made"].as_u64().context("made")?;
    assert!((1..3000).contains(&made), "{made}");
    assert_eq!(
        issues_posted(&log) as u64,
        made,
        "every call that ran reached GitHub; the refused one did not"
    );
    assert_eq!(u64::from(r.tool_calls), made);
    t.stop().await;
    Ok(())
}

/// A stand-in shop: `shop_look` reads, `shop_receipt` sends, `shop_order` is a purchase.
struct ShopTool {
    def: ToolDef,
    purchase: bool,
    calls: Arc<Mutex<Vec<String>>>,
}

impl Tool for ShopTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        _args: Value,
        _ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            self.calls.lock_unpoisoned().push(self.def.name.clone());
            Ok(ToolOutput::text("done"))
        })
    }

    fn describe(&self, _args: &Value) -> Option<CallDescription> {
        self.purchase.then(|| CallDescription {
            risk_label: Some("Purchase".to_owned()),
            target: Some("Place order".to_owned()),
        })
    }
}

fn shop(calls: &Arc<Mutex<Vec<String>>>) -> Plugin {
    let tool = |name: &str, risk: Risk, purchase: bool| -> Arc<dyn Tool> {
        Arc::new(ShopTool {
            def: ToolDef {
                name: name.to_owned(),
                description: format!("The shop's {name}."),
                parameters: json!({"type": "object", "properties": {}}),
                risk,
                untrusted_output: false,
                exfiltrates: false,
                internal: false,
                allow_for_chat: true,
            },
            purchase,
            calls: calls.clone(),
        })
    };
    Plugin {
        id: "shop".to_owned(),
        display_name: "Shop".to_owned(),
        description: "A test shop.".to_owned(),
        category: "test".to_owned(),
        icon: "cart".to_owned(),
        auth: "none".to_owned(),
        selection_hint: String::new(),
        scoped: false,
        tools: vec![
            tool("shop_look", Risk::Read, false),
            tool("shop_receipt", Risk::Send, false),
            tool("shop_order", Risk::Send, true),
        ],
    }
}

/// Calls each tool and reports `ran`, `refused: <why>` or `failed: <why>`, plus the list.
const TRY_EACH: &str = r#"
out = {}
for name, arguments in CALLS:
    try:
        getattr(tools, name)(**arguments)
        out[name] = "ran"
    except ToolRefused as refusal:
        out[name] = "refused: " + str(refusal)
    except ToolError as error:
        out[name] = "failed: " + str(error)
result({"out": out, "available": tools.available()})
"#;

fn try_each(calls: Value) -> String {
    format!(
        "import json\nCALLS = json.loads({:?})\n{TRY_EACH}",
        calls.to_string()
    )
}

fn listed(r: &SandboxResult) -> BTreeSet<String> {
    r.result["available"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn scripts_only_look_things_up_unless_approvals_are_off_and_rules_still_apply() -> Result<()>
{
    let t = TestEngine::start().await?;
    let calls = Arc::new(Mutex::new(Vec::new()));
    t.engine.services().tools().register(shop(&calls))?;
    let code = try_each(json!([
        ["files_write", {"path": "outputs/x.txt", "content": "x"}],
        ["shop_receipt", {}],
        ["shop_order", {}],
        ["shop_look", {}],
        ["time_now", {}],
        ["execute_code", {"code": "print(1)", "purpose": "nested"}],
    ]));

    // Mode ask: only look-ups run.
    let r = run(&t, &code).await;
    assert!(r.ok, "{r:?}");
    let out = &r.result["out"];
    assert_eq!(
        out["files_write"],
        "refused: Scripts can only look things up. Call files_write directly instead, so Sentient can ask the user first."
    );
    assert_eq!(
        out["shop_receipt"],
        "refused: Scripts can only look things up. Call shop_receipt directly instead, so Sentient can ask the user first."
    );
    assert_eq!(
        out["shop_order"],
        "refused: Scripts can't buy or pay for anything. Call shop_order directly instead, so the user can confirm it."
    );
    assert_eq!(out["shop_look"], "ran");
    assert_eq!(out["time_now"], "ran");
    assert_eq!(
        out["execute_code"],
        "refused: execute_code can't be used inside a script. Call it directly instead."
    );
    assert_eq!(r.tool_calls, 2);
    let names = listed(&r);
    for name in ["time_now", "files_read", "shop_look"] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    for name in ["files_write", "shop_receipt", "execute_code"] {
        assert!(!names.contains(name), "{name} in {names:?}");
    }
    assert!(!t.home().join("files/outputs/x.txt").exists());
    assert_eq!(*calls.lock_unpoisoned(), ["shop_look"]);

    // Mode off with an Allow rule: changes and sends run, a purchase and code still don't; a
    // Never rule refuses and hides its tool, an Ask rule refuses.
    patch(
        &t,
        json!({"tools": {"approvals": {"mode": "off", "rules": {
            "shop_order": "allow", "time_now": "never", "files_list": "ask"}}}}),
    )
    .await?;
    let code = try_each(json!([
        ["files_write", {"path": "outputs/x.txt", "content": "x"}],
        ["shop_receipt", {}],
        ["shop_order", {}],
        ["time_now", {}],
        ["files_list", {}],
        ["execute_code", {"code": "print(1)", "purpose": "nested"}],
    ]));
    let r = run(&t, &code).await;
    assert!(r.ok, "{r:?}");
    let out = &r.result["out"];
    assert_eq!(out["files_write"], "ran");
    assert_eq!(out["shop_receipt"], "ran");
    assert_eq!(
        out["shop_order"],
        "refused: Scripts can't buy or pay for anything. Call shop_order directly instead, so the user can confirm it."
    );
    assert!(
        out["time_now"]
            .as_str()
            .unwrap_or_default()
            .starts_with("refused: You've set Sentient to never use"),
        "{out}"
    );
    assert!(
        out["files_list"]
            .as_str()
            .unwrap_or_default()
            .contains("is set to Ask, and scripts can't ask you"),
        "{out}"
    );
    assert_eq!(
        out["execute_code"],
        "refused: execute_code can't be used inside a script. Call it directly instead."
    );
    let names = listed(&r);
    for name in ["files_write", "shop_receipt", "shop_look"] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    for name in ["time_now", "files_list", "execute_code"] {
        assert!(!names.contains(name), "{name} in {names:?}");
    }
    assert_eq!(
        std::fs::read_to_string(t.home().join("files/outputs/x.txt"))?,
        "x"
    );
    assert_eq!(*calls.lock_unpoisoned(), ["shop_look", "shop_receipt"]);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn a_script_runs_at_most_max_tool_calls_and_refused_calls_do_not_count() -> Result<()> {
    let t = TestEngine::start().await?;
    patch(&t, json!({"sandbox": {"max_tool_calls": 2}})).await?;
    let code = try_each(json!([
        ["files_write", {"path": "outputs/x.txt", "content": "x"}],
        ["time_now", {}],
        ["files_list", {}],
        ["files_read", {"path": "outputs/nowhere.txt"}],
    ]));
    let r = run(&t, &code).await;
    assert!(r.ok, "{r:?}");
    let out = &r.result["out"];
    assert!(
        out["files_write"]
            .as_str()
            .unwrap_or_default()
            .starts_with("refused: Scripts can only look things up"),
        "{out}"
    );
    assert_eq!(out["time_now"], "ran");
    assert_eq!(out["files_list"], "ran");
    assert_eq!(
        out["files_read"],
        "refused: This script has already made 2 tool calls, the most one script may make (Settings > Scripts). Do the rest in another step."
    );
    assert_eq!(r.tool_calls, 2);

    // A tool that fails raises ToolError (not ToolRefused) and counts as a call that ran.
    patch(&t, json!({"sandbox": {"max_tool_calls": 200}})).await?;
    let r = run(
        &t,
        r#"
try:
    tools.files_read(path="outputs/nowhere.txt")
    result("read")
except ToolRefused:
    result("refused")
except ToolError as error:
    result("failed: " + str(error))
"#,
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert!(
        r.result
            .as_str()
            .unwrap_or_default()
            .starts_with("failed: "),
        "{r:?}"
    );
    assert_eq!(r.tool_calls, 1);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn execute_code_from_a_chat_streams_its_output_and_returns_its_result() -> Result<()> {
    let t = TestEngine::start().await?;
    let model = scripted(&t).await?;
    model.push(Reply::tool_call(
        "execute_code",
        json!({"code": "print('hello from the script')\nresult(6 * 7)", "purpose": "Multiply"}),
    ));
    model.push(Reply::text("It is 42."));
    let events = chat(&t, "What is six times seven?").await?;
    let done = tool_result(&events, "execute_code")?;
    let r = &done["result"];
    assert_eq!(r["ok"], true, "{done}");
    assert_eq!(r["result"], 42);
    assert_eq!(r["stdout"], "hello from the script\n");
    assert_eq!(r["backend"], "process");
    assert_eq!(r["error"], Value::Null);
    let streamed: String = events
        .iter()
        .filter(|e| e["type"] == "tool_progress" && e["name"] == "execute_code")
        .filter(|e| e["kind"] == "stdout")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(streamed, "hello from the script\n", "{events:?}");
    t.stop().await;
    Ok(())
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_timeout_kills_the_whole_process_tree() -> Result<()> {
    let t = TestEngine::start().await?;
    // Each process carries a marker in its command line that nothing else on the computer has.
    let marker = format!("61.{}", std::process::id());
    let started = std::time::Instant::now();
    let code = format!(
        "import os, subprocess, time\nkids = [subprocess.Popen(['sleep', '{marker}'])]\nkids.append(subprocess.Popen(['sleep', '{marker}'], start_new_session=True))\nfor _ in range(8):\n    if os.fork() == 0:\n        subprocess.Popen(['sleep', '{marker}'])\n        time.sleep(60)\n        os._exit(0)\nprint('forked', flush=True)\ntime.sleep(60)\n"
    );
    let r = t
        .engine
        .services()
        .sandbox()
        .run(
            &code,
            RunOptions {
                timeout_s: Some(2),
                ..RunOptions::default()
            },
        )
        .await;
    assert!(!r.ok);
    assert_eq!(
        r.error.as_deref(),
        Some("The script was still running after 2 seconds, so it was stopped.")
    );
    assert!(r.stdout.contains("forked"), "{r:?}");
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());
    eventually("no process of the script left", || async {
        Ok(crate::processes::alive_with(&marker)
            .is_empty()
            .then_some(()))
    })
    .await?;
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn errors_name_their_line_and_output_is_normalized_and_capped() -> Result<()> {
    let t = TestEngine::start().await?;

    let r = run(&t, "print('before')\nx = 1\nif x print(x)\n").await;
    assert!(!r.ok);
    let error = r.error.clone().unwrap_or_default();
    assert!(
        error.starts_with("The script has a syntax error on line 3: "),
        "{error}"
    );
    assert!(error.ends_with("Nothing was run."), "{error}");
    assert_eq!(r.stdout, "", "checked before anything ran");

    let r = run(&t, "x = 1\ny = 0\nz = x / y\n").await;
    assert!(!r.ok);
    assert_eq!(
        r.error.as_deref(),
        Some("The script failed on line 3 (z = x / y): ZeroDivisionError: division by zero.")
    );
    assert!(r.stderr.contains("ZeroDivisionError"), "{}", r.stderr);
    assert_eq!(r.result, Value::Null);

    let r = run(&t, "tools.time_now('UTC')\n").await;
    assert!(
        r.error
            .as_deref()
            .unwrap_or_default()
            .contains("keyword arguments only"),
        "{r:?}"
    );

    let r = run(&t, "import sys\nsys.exit(3)\n").await;
    assert_eq!(
        r.error.as_deref(),
        Some("The script ended with exit code 3.")
    );

    let r = run(
        &t,
        "import sys\nsys.stdout.write('a\\r\\nb\\rc\\n')\nsys.stderr.write('warn\\r\\n')\n",
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert_eq!(
        (r.stdout.as_str(), r.stderr.as_str()),
        ("a\nb\nc\n", "warn\n")
    );
    assert_eq!(
        r.result, "a\nb\nc\n",
        "without result(), the output is the result"
    );

    patch(&t, json!({"sandbox": {"max_output_chars": 1000}})).await?;
    let r = run(&t, "print('x' * 5000)\n").await;
    assert!(r.ok, "{r:?}");
    assert_eq!(
        r.stdout,
        format!("{}\n[output cut after 1000 characters]", "x".repeat(1000))
    );

    // The module imports as documented; ToolRefused is a ToolError.
    let r = run(
        &t,
        "from sentient_tools import tools as t, result as r, ToolError, ToolRefused\nr(issubclass(ToolRefused, ToolError) and t is tools)\n",
    )
    .await;
    assert_eq!(r.result, true, "{r:?}");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn scripts_get_a_scrubbed_environment_and_a_token_only_they_know() -> Result<()> {
    let t = TestEngine::start().await?;
    let r = run(
        &t,
        r#"
import os, sentient_tools
url = os.environ["SENTIENT_TOOLS_URL"]
token, sentient_tools._TOKEN = sentient_tools._TOKEN, "wrong"
try:
    tools.available()
    wrong = "answered"
except ToolError as error:
    wrong = str(error)
sentient_tools._TOKEN = token
result({"env": sorted(os.environ), "url": url, "wrong_token": wrong,
        "home": os.environ["HOME"] == os.getcwd()})
"#,
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert_eq!(
        r.result["wrong_token"],
        "Sentient's tools answered with status 403."
    );
    // A socket in the run's own folder, as the contained script sees it.
    if cfg!(target_os = "linux") {
        assert_eq!(
            r.result["url"], "unix:/sandbox/.sentient/tools.sock",
            "{r:?}"
        );
    }
    assert_eq!(r.result["home"], true);
    let allowed = [
        "HOME",
        "LANG",
        "LC_CTYPE",
        "PATH",
        // bubblewrap names the folder it starts in.
        "PWD",
        "SENTIENT_TOOLS_TOKEN",
        "SENTIENT_TOOLS_URL",
        "TMPDIR",
    ];
    for name in r.result["env"].as_array().context("env")? {
        let name = name.as_str().unwrap_or_default();
        assert!(allowed.contains(&name), "{name} reached the script");
    }
    t.stop().await;
    Ok(())
}

/// The bar a person holds containment to: a script can't read their home, list Sentient's
/// home, reach Sentient's port or any other address, see Sentient's other processes or write
/// outside its own folder.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_contained_script_reaches_nothing_of_the_person_or_the_network() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t.client.get("/api/sandbox/status").await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["contained"], &body["note"]),
        (&json!(true), &Value::Null),
        "{body}"
    );

    let other = sentient_e2e::serve_on_loopback(
        axum::Router::new().route("/", axum::routing::get(|| async { "hello" })),
        "/",
    )
    .await?;
    let port_of = |url: &str| -> Result<u16> { reqwest::Url::parse(url)?.port().context("a port") };
    let engine_port = port_of(&t.client.url("/"))?;
    let other_port = port_of(&other)?;
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
    let code = format!(
        r#"
import os, socket, sys
def tried(f):
    try:
        f()
        return "allowed"
    except OSError as error:
        return type(error).__name__
def connect(port):
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
def write(path):
    open(path, "w").write("x")
open("kept.txt", "w").write("mine")
open("/tmp/scratch.txt", "w").write("scratch")
result({{
    "person_home": tried(lambda: os.listdir({home:?})),
    "home_listing": os.listdir({home:?}) if os.path.isdir({home:?}) else [],
    "python_prefix": sys.base_prefix,
    "engine_home": tried(lambda: os.listdir({engine_home:?})),
    "engine_port": tried(lambda: connect({engine_port})),
    "other_port": tried(lambda: connect({other_port})),
    "dns": tried(lambda: socket.getaddrinfo("example.com", 443)),
    "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "system": tried(lambda: write("/usr/sentient-was-here")),
    "etc": tried(lambda: write("/etc/sentient-was-here")),
    "cwd": os.getcwd(),
}})
"#,
        engine_home = t.home().display().to_string(),
    );
    let r = run(&t, &code).await;
    assert!(r.ok, "{r:?}");
    let said = &r.result;
    // The home is not there; only the folders on the way to a Python installed in it (pyenv's,
    // say), which scripts run with, are shown.
    let prefix = said["python_prefix"].as_str().unwrap_or_default();
    for entry in said["home_listing"].as_array().context("listing")? {
        let shown = format!("{home}/{}", entry.as_str().unwrap_or_default());
        assert!(prefix.starts_with(&shown), "{shown} is visible: {said}");
    }
    if !prefix.starts_with(&home) {
        assert_eq!(said["person_home"], "FileNotFoundError", "{said}");
    }
    assert_eq!(said["engine_home"], "FileNotFoundError", "{said}");
    assert_ne!(said["engine_port"], "allowed", "{said}");
    assert_ne!(said["other_port"], "allowed", "{said}");
    assert_ne!(said["dns"], "allowed", "{said}");
    assert_ne!(said["system"], "allowed", "{said}");
    assert_ne!(said["etc"], "allowed", "{said}");
    assert_eq!(said["cwd"], "/sandbox");
    // Only the sandbox's own processes: its first process and the script.
    let processes = said["processes"].as_array().context("processes")?;
    assert!(
        processes.len() <= 3 && processes.iter().all(|p| p.as_u64() < Some(10)),
        "{said}"
    );
    // Its own folder is writable and kept; /tmp was its own and is gone.
    assert_eq!(r.files_created.len(), 1, "{r:?}");
    let kept = t.home().join("files").join(&r.files_created[0]);
    assert_eq!(std::fs::read_to_string(kept)?, "mine");
    assert!(!std::path::Path::new("/tmp/scratch.txt").exists());
    assert!(!std::path::Path::new("/usr/sentient-was-here").exists());
    t.stop().await;
    Ok(())
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_script_is_held_to_its_memory_and_file_size_limits() -> Result<()> {
    let t = TestEngine::start().await?;
    patch(
        &t,
        json!({"sandbox": {"memory_mb": 128, "max_file_size_mb": 1}}),
    )
    .await?;
    let r = run(
        &t,
        "big = bytearray(512 * 1024 * 1024)
print(len(big))
",
    )
    .await;
    assert!(!r.ok, "{r:?}");
    assert!(
        r.error
            .as_deref()
            .unwrap_or_default()
            .contains("MemoryError"),
        "{r:?}"
    );
    let r = run(
        &t,
        "try:
    open('big.bin', 'wb').write(b'x' * (3 * 1024 * 1024))
    result('written')
except OSError as error:
    result(error.strerror)
",
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.result, "File too large");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn files_a_script_writes_are_kept_and_its_folder_removed() -> Result<()> {
    let t = TestEngine::start().await?;
    patch(&t, json!({"sandbox": {"max_file_mb": 1}})).await?;
    let r = run(
        &t,
        "import os\nopen('chart.png', 'wb').write(b'PNG')\nos.makedirs('sub')\nopen('sub/data.csv', 'w').write('a,b')\nopen('big.bin', 'wb').write(b'0' * (2 * 1024 * 1024))\n",
    )
    .await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.files_created.len(), 2, "{r:?}");
    let run_id = r.files_created[0]
        .strip_prefix("outputs/")
        .and_then(|rest| rest.split('/').next())
        .context("a run id")?
        .to_owned();
    assert_eq!(
        r.files_created,
        [
            format!("outputs/{run_id}/chart.png"),
            format!("outputs/{run_id}/sub/data.csv")
        ],
        "the 2 MB file is over max_file_mb"
    );
    let files = t.home().join("files");
    assert_eq!(std::fs::read(files.join(&r.files_created[0]))?, b"PNG");
    assert_eq!(
        std::fs::read_to_string(files.join(&r.files_created[1]))?,
        "a,b"
    );
    assert!(
        !t.home().join("sandbox").join(&run_id).exists(),
        "the working folder is removed"
    );
    let (status, listed) = t.client.get("/api/files").await?;
    assert_eq!(status, 200);
    assert!(
        listed
            .to_string()
            .contains(&format!("outputs/{run_id}/chart.png")),
        "{listed}"
    );
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_first_run_removes_folders_an_earlier_session_left_behind() -> Result<()> {
    let t = TestEngine::start().await?;
    // As a crash mid-run leaves it: a working folder with the runner and a file in it.
    let left = t.home().join("sandbox").join("crashed-run");
    std::fs::create_dir_all(left.join(".sentient"))?;
    std::fs::write(left.join("half.csv"), "a,")?;
    let r = run(&t, "print('hi')").await;
    assert!(r.ok, "{r:?}");
    assert!(
        !left.exists(),
        "the leftover folder is removed by the first run"
    );
    // Only once, and only what was there before this session: a folder kept now stays.
    patch(&t, json!({"sandbox": {"keep_workdirs": true}})).await?;
    let kept = run(&t, "open('x.txt', 'w').write('1')").await;
    assert!(kept.ok, "{kept:?}");
    patch(&t, json!({"sandbox": {"keep_workdirs": false}})).await?;
    assert!(run(&t, "print(1)").await.ok);
    let folders = std::fs::read_dir(t.home().join("sandbox"))?.count();
    assert_eq!(folders, 1, "the kept folder is still there");
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn turned_off_or_docker_a_script_does_not_run() -> Result<()> {
    let t = TestEngine::start().await?;
    patch(&t, json!({"sandbox": {"enabled": false}})).await?;
    let r = run(&t, "open('made.txt', 'w').write('x')\n").await;
    assert!(!r.ok);
    assert_eq!(
        r.error.as_deref(),
        Some(
            "Code execution is turned off, so the script was not run. Turn it on in Settings > Scripts."
        )
    );
    assert!(r.files_created.is_empty());
    let offered = t.engine.services().tools().offered(&[]);
    assert!(
        !offered.iter().any(|s| s.name == "execute_code"),
        "not offered while off"
    );

    patch(
        &t,
        json!({"sandbox": {"enabled": true, "backend": "docker"}}),
    )
    .await?;
    let r = run(&t, "print(1)\n").await;
    assert_eq!(
        serde_json::to_value(r.backend)?,
        json!("docker"),
        "the backend it was asked for"
    );
    // Where Docker runs (not on this project's machines) the script runs in it.
    let (_, status) = t.client.get("/api/sandbox/status").await?;
    if status["docker_available"] == false {
        assert!(!r.ok);
        let said = r.error.as_deref().unwrap_or_default();
        assert!(
            said == sentient_e2e::sentient_engine::sandbox::docker::NOT_RUNNING
                || said == sentient_e2e::sentient_engine::sandbox::docker::NOT_INSTALLED,
            "{r:?}"
        );
        assert_eq!(status["note"], said, "{status}");
        assert_eq!(status["contained"], false, "{status}");
    }
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn stop_everything_stops_a_running_script() -> Result<()> {
    let t = TestEngine::start().await?;
    let sandbox = t.engine.services().sandbox().clone();
    let (started, mut printed) = tokio::sync::mpsc::unbounded_channel();
    let options = RunOptions {
        on_output: Some(Arc::new(move |_, text| {
            let _ = started.send(text);
        })),
        ..RunOptions::default()
    };
    let running = tokio::spawn(async move {
        sandbox
            .run(
                "import time\nprint('started', flush=True)\ntime.sleep(60)\n",
                options,
            )
            .await
    });
    // `print` may write its text and its newline separately; the first piece is enough.
    let first = tokio::time::timeout(WAIT, printed.recv()).await?;
    assert!(first.is_some_and(|text| text.starts_with("started")));
    let (status, body) = t.client.post("/api/stop-all", json!({})).await?;
    assert_eq!(status, 200, "{body}");
    let r = tokio::time::timeout(WAIT, running).await??;
    assert!(!r.ok);
    assert_eq!(
        r.error.as_deref(),
        Some("The script was stopped before it finished.")
    );
    assert_eq!(t.engine.services().stop().running_jobs("script"), 0);
    t.stop().await;
    Ok(())
}

#[tokio::test]
async fn the_routes_answer_status_and_runs_in_the_contracts_shapes() -> Result<()> {
    let t = TestEngine::start().await?;
    let (status, body) = t.client.get("/api/sandbox/status").await?;
    assert_eq!(status, 200, "{body}");
    let keys: BTreeSet<&str> = body
        .as_object()
        .context("object")?
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "backend",
            "contained",
            "docker_available",
            "enabled",
            "note",
            "python_version"
        ])
    );
    assert_eq!(body["enabled"], true);
    assert_eq!(body["backend"], "process");
    assert!(body["docker_available"].is_boolean());
    assert!(
        body["python_version"]
            .as_str()
            .unwrap_or_default()
            .starts_with("3."),
        "{body}"
    );

    let (status, body) = t
        .client
        .post("/api/sandbox/run", json!({"code": "print(1 + 1)"}))
        .await?;
    assert_eq!(status, 200, "{body}");
    let keys: BTreeSet<&str> = body
        .as_object()
        .context("object")?
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "backend",
            "duration_ms",
            "error",
            "files_created",
            "ok",
            "result",
            "stderr",
            "stdout",
            "tool_calls"
        ])
    );
    assert_eq!(
        (
            &body["ok"],
            &body["stdout"],
            &body["result"],
            &body["backend"]
        ),
        (
            &json!(true),
            &json!("2\n"),
            &json!("2\n"),
            &json!("process")
        )
    );

    // Tool calls from the route only read, even with approvals off.
    patch(&t, json!({"tools": {"approvals": {"mode": "off"}}})).await?;
    let (status, body) = t
        .client
        .post(
            "/api/sandbox/run",
            json!({"code": "try:\n    tools.files_write(path='outputs/r.txt', content='x')\n    result('ran')\nexcept ToolRefused as e:\n    result(str(e))\n"}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"],
        "This script may only look things up, so files_write was not done."
    );
    assert!(!t.home().join("files/outputs/r.txt").exists());

    for bad in [
        json!({}),
        json!({"code": ""}),
        json!({"code": "  \n"}),
        json!({"code": 5}),
    ] {
        let (status, body) = t.client.post("/api/sandbox/run", bad.clone()).await?;
        assert_eq!(status, 422, "{bad} {body}");
        assert!(body["detail"].is_array(), "{body}");
    }
    t.stop().await;
    Ok(())
}

/// A folder holding only links to the programs named, to be the whole PATH of a child test.
#[cfg(target_os = "linux")]
fn path_with(dir: &std::path::Path, programs: &[&str]) -> Result<String> {
    // The system's own programs first: a PATH may start with launchers (pyenv's shims) that
    // need more than the folder.
    let system = std::ffi::OsString::from("/usr/bin:/bin");
    for name in programs {
        let found = std::env::split_paths(&system)
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            ))
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .with_context(|| format!("{name} on the PATH"))?;
        std::os::unix::fs::symlink(found, dir.join(name))?;
    }
    Ok(dir.display().to_string())
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn without_bubblewrap_scripts_do_not_run_unless_the_person_allows_it() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = path_with(dir.path(), &["python3", "sleep"])?;
    crate::child::run_in_child(module_path!(), "no_bubblewrap_child", &[("PATH", &path)]).await
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "run by without_bubblewrap_scripts_do_not_run_unless_the_person_allows_it"]
async fn no_bubblewrap_child() -> Result<()> {
    if !crate::child::is_child("no_bubblewrap_child") {
        return Ok(());
    }
    let t = TestEngine::start().await?;
    let r = run(&t, "open('made.txt', 'w').write('x')\nprint('ran')\n").await;
    assert!(!r.ok, "{r:?}");
    assert_eq!(
        r.error.as_deref(),
        Some(
            "Scripts run inside bubblewrap, which keeps them away from your files and the network, and it isn't installed, so the script was not run. Install it (sudo apt install bubblewrap) and try again, or allow uncontained scripts in Settings > Scripts."
        )
    );
    assert!(r.files_created.is_empty() && r.stdout.is_empty(), "{r:?}");
    let (_, status) = t.client.get("/api/sandbox/status").await?;
    assert_eq!(status["contained"], false, "{status}");
    assert_eq!(
        status["note"],
        "bubblewrap isn't installed, so scripts can't be kept away from your files and the network. Install it: sudo apt install bubblewrap. Until then scripts don't run."
    );

    // The person's choice: a plain process, said plainly.
    patch(&t, json!({"sandbox": {"allow_uncontained": true}})).await?;
    let r = run(&t, "import os\nprint(os.getcwd() != '/sandbox')\n").await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.stdout, "True\n");
    let (_, status) = t.client.get("/api/sandbox/status").await?;
    assert!(
        status["note"]
            .as_str()
            .unwrap_or_default()
            .ends_with("Until then scripts run uncontained, as you chose: they can read your files and reach the internet."),
        "{status}"
    );
    t.stop().await;
    Ok(())
}

/// A stand-in `docker` that answers `info`, and for `run` and `kill` writes its arguments to
/// `$FAKE_DOCKER_LOG` (a line each); `run` prints, or sleeps when the image is `slow`.
#[cfg(target_os = "linux")]
const FAKE_DOCKER: &str = r#"#!/bin/sh
case "$1" in
  info) echo 28.2.2 ;;
  run) echo "$*" >> "$FAKE_DOCKER_LOG"; case "$*" in *" slow python3 "*) sleep 30 ;; *) echo "in the container" ;; esac ;;
  kill) echo "$*" >> "$FAKE_DOCKER_LOG" ;;
esac
"#;

#[cfg(target_os = "linux")]
#[tokio::test]
async fn auto_picks_docker_when_it_answers_with_the_limits_and_kills_the_container_on_timeout()
-> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = path_with(dir.path(), &["python3", "bwrap", "sh", "sleep"])?;
    let docker = dir.path().join("docker");
    std::fs::write(&docker, FAKE_DOCKER)?;
    std::fs::set_permissions(&docker, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let log = dir.path().join("docker.log");
    let log = log.display().to_string();
    crate::child::run_in_child(
        module_path!(),
        "fake_docker_child",
        &[("PATH", &path), ("FAKE_DOCKER_LOG", &log)],
    )
    .await?;
    let lines = std::fs::read_to_string(&log)?;
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let run = lines[0];
    for needed in [
        "run --rm --init --name sentient-script-",
        "--memory 256m --memory-swap 256m --cpus 0.5 --pids-limit 64",
        "--cap-drop ALL --security-opt no-new-privileges --read-only --tmpfs /tmp --network none",
        ":/sandbox --workdir /sandbox",
        "--env HOME=/sandbox",
        "--env SENTIENT_TOOLS_URL=files:/sandbox/.sentient/requests",
        " python:3.12-slim python3 -I -B -u -c ",
        " /sandbox/.sentient /sandbox/.sentient/script.py file=536870912",
    ] {
        assert!(run.contains(needed), "{needed} missing in {run}");
    }
    assert!(!run.contains("PATH="), "the host's PATH stays out: {run}");
    // The slow run timed out, and its container was killed by name.
    let slow_name = lines[1]
        .split_whitespace()
        .skip_while(|w| *w != "--name")
        .nth(1)
        .context("a name")?;
    assert_eq!(lines[2], format!("kill {slow_name}"));
    Ok(())
}

#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "run by auto_picks_docker_when_it_answers_with_the_limits_and_kills_the_container_on_timeout"]
async fn fake_docker_child() -> Result<()> {
    if !crate::child::is_child("fake_docker_child") {
        return Ok(());
    }
    let t = TestEngine::start().await?;
    patch(
        &t,
        json!({"sandbox": {"docker_memory_mb": 256, "docker_cpus": 0.5}}),
    )
    .await?;
    let (_, status) = t.client.get("/api/sandbox/status").await?;
    assert_eq!(
        (
            &status["backend"],
            &status["docker_available"],
            &status["contained"]
        ),
        (&json!("docker"), &json!(true), &json!(true)),
        "{status}"
    );
    let r = run(&t, "print('hi')\n").await;
    assert!(r.ok, "{r:?}");
    assert_eq!(serde_json::to_value(r.backend)?, json!("docker"));
    assert_eq!(r.stdout, "in the container\n");
    patch(&t, json!({"sandbox": {"docker_image": "slow"}})).await?;
    let r = t
        .engine
        .services()
        .sandbox()
        .run(
            "print('hi')\n",
            RunOptions {
                timeout_s: Some(1),
                ..RunOptions::default()
            },
        )
        .await;
    assert_eq!(
        r.error.as_deref(),
        Some("The script was still running after 1 second, so it was stopped.")
    );
    t.stop().await;
    Ok(())
}
