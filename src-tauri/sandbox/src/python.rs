//! Finding the Python that runs scripts, and whether Docker answers. `python3` on the PATH may
//! be a launcher (pyenv's shims are shell scripts that need the person's HOME), so the real
//! interpreter is asked for its own path once and that is what scripts run with.

use std::path::PathBuf;

use sentient_core::programs::on_path;
use std::process::Stdio;
use std::time::Duration;

/// How long asking Python or Docker about themselves may take.
const ASK_LIMIT: Duration = Duration::from_secs(10);
/// `docker info` answers quickly when Docker runs; a stuck daemon counts as not available.
const DOCKER_LIMIT: Duration = Duration::from_secs(3);

/// The interpreter scripts run with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Python {
    pub path: PathBuf,
    /// E.g. `3.12.1`.
    pub version: String,
    /// Where its standard library is (`sys.base_prefix`), which a contained script must see.
    pub prefix: PathBuf,
}

/// Finds Python 3: `python3` on the PATH (`python` too on Windows), asked for its real path
/// and version. `None` when there is none that answers.
pub async fn find() -> Option<Python> {
    let names: &[&str] = if cfg!(windows) {
        &["python3", "python"]
    } else {
        &["python3"]
    };
    for name in names {
        let Some(found) = on_path(name) else {
            continue;
        };
        let asked = tokio::process::Command::new(&found)
            .args([
                "-I",
                "-c",
                "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3]); print(sys.version_info[0]); print(sys.base_prefix)",
            ])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .output();
        let Ok(Ok(out)) = tokio::time::timeout(ASK_LIMIT, asked).await else {
            continue;
        };
        if !out.status.success() {
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines().map(str::trim);
        let (executable, version, major, prefix) =
            (lines.next(), lines.next(), lines.next(), lines.next());
        if major != Some("3") {
            continue;
        }
        let path = executable
            .filter(|p| !p.is_empty())
            .map_or_else(|| found.clone(), PathBuf::from);
        // The file itself, not a link to it: a contained script sees the system's folders and
        // Python's own, not a folder of links (a PATH entry, a virtual environment).
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        return Some(Python {
            path,
            version: version.unwrap_or_default().to_owned(),
            prefix: prefix.map(PathBuf::from).unwrap_or_default(),
        });
    }
    None
}

/// Whether `docker info` succeeds within a few seconds.
pub async fn docker_available() -> bool {
    let Some(docker) = on_path(crate::docker::PROGRAM) else {
        return false;
    };
    let status = tokio::process::Command::new(docker)
        .args(["info", "--format", "{{.ServerVersion}}"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .status();
    matches!(
        tokio::time::timeout(DOCKER_LIMIT, status).await,
        Ok(Ok(s)) if s.success()
    )
}

/// Compiles the script read from stdin without running it; prints `{line, message}` when it
/// does not compile, nothing when it does.
const COMPILE_CHECK: &str = "import json, sys\nsource = sys.stdin.buffer.read().decode('utf-8', 'replace')\ntry:\n    compile(source, 'script', 'exec', dont_inherit=True)\nexcept SyntaxError as error:\n    print(json.dumps({'line': error.lineno, 'message': error.msg or 'invalid syntax'}))\nexcept ValueError as error:\n    print(json.dumps({'line': None, 'message': str(error)}))\n";

/// Why `code` does not compile, as `(line, message)`; `None` when it compiles, or when Python
/// could not be asked (the script's own run then says what is wrong).
pub async fn syntax_error(python: &Python, code: &str) -> Option<(Option<u32>, String)> {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(&python.path)
        .args(["-I", "-c", COMPILE_CHECK])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let source = code.to_owned();
    let writing = tokio::spawn(async move {
        let _ = stdin.write_all(source.as_bytes()).await;
    });
    let out = tokio::time::timeout(ASK_LIMIT, child.wait_with_output())
        .await
        .ok()?
        .ok()?;
    let _ = writing.await;
    let text = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    let line = report["line"].as_u64().and_then(|l| u32::try_from(l).ok());
    let message = report["message"]
        .as_str()
        .unwrap_or("invalid syntax")
        .to_owned();
    Some((line, message))
}
