//! Tests that run in a fresh process of this binary: where a process-wide choice is under test.

use std::time::Duration;

use anyhow::{Context, Result, ensure};

/// How long a child test may take.
const CHILD_WAIT: Duration = Duration::from_secs(180);

/// Runs the ignored test `name` in a fresh process of this binary with `env` added, its
/// output kept unless it fails. Used where a process-wide choice is under test: the log
/// subscriber, the keychain (chosen once per process), and the programs on the PATH.
/// `module` is the caller's `module_path!()`.
pub async fn run_in_child(module: &str, name: &str, env: &[(&str, &str)]) -> Result<()> {
    // Test names are paths from the binary's root (`secrets::logs_child`).
    let module = module.split_once("::").map_or("", |(_, m)| m);
    let full_name = format!("{module}::{name}");
    let mut command = tokio::process::Command::new(std::env::current_exe()?);
    command
        .args([
            full_name.as_str(),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, name)
        .kill_on_drop(true);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = tokio::time::timeout(CHILD_WAIT, command.output())
        .await
        .with_context(|| format!("{name} took too long"))??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Set to the child test's name in the child, so a plain `--ignored` run skips them.
pub const CHILD: &str = "SENTIENT_E2E_CHILD";

pub fn is_child(name: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|v| v == name)
}
