//! [`SandboxService`]: runs one script from start to end. The settings are read when a run
//! starts; the approvals are read again on every tool call the script makes (by the agent).
//! A run is a Stop-everything job, and one that its caller gives up on (a stopped chat reply)
//! is stopped too: the work runs in a task of its own that kills the process tree and removes
//! the folder whatever happens to the caller.

use sentient_core::sync::MutexExt;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use sentient_agent::Agent;
use sentient_agent::script_calls::{ScriptPolicy, ScriptRun};
use sentient_core::config::{SandboxBackend, SandboxConfig};

use crate::bridge::{self, Bridge, ScriptFailure};
use crate::model::{RunRequest, SandboxResult, SandboxStatus, ScriptBackend};
use crate::process::{self, Ending, Launch};
use crate::python::{self, Python};
use crate::{OutputFn, SENTIENT_TOOLS_PY, SandboxError, files};

/// What a run is given besides its code (the contract's `app.sandbox.run` keywords).
#[derive(Clone, Default)]
pub struct RunOptions {
    /// The chat the script belongs to (its rule proposals apply to the script's calls).
    pub session_id: Option<String>,
    /// Seconds before the script is stopped; `None` is `sandbox.timeout_s`.
    pub timeout_s: Option<u32>,
    /// Tool names or app ids the script may call; `None` is every tool the approvals allow.
    pub allowed_tools: Option<Vec<String>>,
    /// Only calls of effective risk read run.
    pub read_only: bool,
    /// Each piece of output as it arrives.
    pub on_output: Option<OutputFn>,
    /// The caller's token (a tool call's): cancelling it stops the script.
    pub cancel: CancellationToken,
    /// Outside content the calling run already read (its mark), which the script inherits.
    pub mark: Option<String>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("session_id", &self.session_id)
            .field("timeout_s", &self.timeout_s)
            .field("allowed_tools", &self.allowed_tools)
            .field("read_only", &self.read_only)
            .field("mark", &self.mark)
            .finish_non_exhaustive()
    }
}

struct Inner {
    agent: Agent,
    /// `sandbox.max_concurrent_runs` places, replaced when the setting changes.
    slots: Mutex<(u32, Arc<Semaphore>)>,
    /// The interpreter, once found (looked for again while there is none).
    python: Mutex<Option<Python>>,
    /// Set once the folders left by runs of an earlier session (a crash, a kill) were removed;
    /// the first runs wait for it, so it never touches a folder of this session.
    swept: tokio::sync::OnceCell<()>,
}

/// Code execution; cheap to clone.
#[derive(Clone)]
pub struct SandboxService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SandboxService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxService").finish_non_exhaustive()
    }
}

/// A weak handle for the `execute_code` tool: the registry holding the tool must not keep the
/// service (and through it the agent and the registry) alive.
#[derive(Clone)]
pub struct SandboxHandle {
    inner: Weak<Inner>,
}

impl SandboxHandle {
    pub fn upgrade(&self) -> Option<SandboxService> {
        self.inner.upgrade().map(|inner| SandboxService { inner })
    }
}

const TURNED_OFF: &str =
    "Code execution is turned off, so the script was not run. Turn it on in Settings > Scripts.";
const NO_DOCKER: &str = "Running scripts in Docker isn't available in this version of Sentient, so the script was not run. Choose Auto or Process in Settings > Scripts.";
const NO_PYTHON: &str = "Python 3 isn't installed on this computer (python3 was not found), so the script could not run. Install Python 3 and try again.";
const STOPPED: &str = "Sentient is stopped (Stop everything), so the script was not run. Resume Sentient and try again.";
const CANCELLED: &str = "The script was stopped before it finished.";

impl SandboxService {
    pub fn new(agent: Agent) -> Self {
        let wanted = agent.config().current().sandbox.max_concurrent_runs.max(1);
        Self {
            inner: Arc::new(Inner {
                agent,
                slots: Mutex::new((wanted, Arc::new(Semaphore::new(wanted as usize)))),
                python: Mutex::new(None),
                swept: tokio::sync::OnceCell::new(),
            }),
        }
    }

    pub fn handle(&self) -> SandboxHandle {
        SandboxHandle {
            inner: Arc::downgrade(&self.inner),
        }
    }

    fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    fn settings(&self) -> SandboxConfig {
        self.agent().config().current().sandbox.clone()
    }

    /// Whether anything of the sandbox ran yet: Python looked for, an earlier session's
    /// folders swept. Start-up does neither; the first script or status does.
    pub fn has_started(&self) -> bool {
        self.inner.swept.initialized() || self.inner.python.lock_unpoisoned().is_some()
    }

    /// `sandbox.enabled` as it is now.
    pub fn enabled(&self) -> bool {
        self.agent().config().current().sandbox.enabled
    }

    /// `GET /api/sandbox/status`: on or off, the backend a run would use now, whether Docker
    /// answers and which Python runs scripts.
    pub async fn status(&self) -> SandboxStatus {
        let settings = self.settings();
        let (python, docker_available) = tokio::join!(self.python(), python::docker_available());
        SandboxStatus {
            enabled: settings.enabled,
            backend: backend_for(settings.backend),
            docker_available,
            python_version: python.map(|p| p.version),
        }
    }

    /// `POST /api/sandbox/run`: the script's tool calls may only look things up, whatever the
    /// approvals mode says.
    pub async fn run_request(&self, request: RunRequest) -> Result<SandboxResult, SandboxError> {
        if request.code.trim().is_empty() {
            return Err(SandboxError::EmptyCode);
        }
        let options = RunOptions {
            read_only: true,
            ..RunOptions::default()
        };
        Ok(self.run(&request.code, options).await)
    }

    /// Runs one script to its end and says how it went. Never fails: a script that could not
    /// run or did not finish is `ok: false` with a plain sentence.
    pub async fn run(&self, code: &str, options: RunOptions) -> SandboxResult {
        let job = self
            .agent()
            .stop()
            .start_job_within("script", &options.cancel);
        let token = job.token().clone();
        // Dropping this future (the caller was stopped) stops the script too.
        let _stop_with_caller = token.clone().drop_guard();
        let service = self.clone();
        let code = code.to_owned();
        let work = tokio::spawn(async move {
            let _job = job;
            service.run_owned(code, options, token).await
        });
        match work.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "a script run failed inside Sentient");
                SandboxResult::refused(
                    ScriptBackend::Process,
                    "The script could not be run because something went wrong inside Sentient. Try again.",
                )
            }
        }
    }

    async fn run_owned(
        &self,
        code: String,
        options: RunOptions,
        cancel: CancellationToken,
    ) -> SandboxResult {
        let started = Instant::now();
        let settings = self.settings();
        let backend = backend_for(settings.backend);
        let refused = |error: &str| SandboxResult {
            duration_ms: elapsed_ms(started),
            ..SandboxResult::refused(backend, error)
        };
        if !settings.enabled {
            return refused(TURNED_OFF);
        }
        if backend == ScriptBackend::Docker {
            return refused(NO_DOCKER);
        }
        if self.agent().stop().is_stopped() {
            return refused(STOPPED);
        }
        let Some(python) = self.python().await else {
            return refused(NO_PYTHON);
        };
        let slots = self.slots(settings.max_concurrent_runs.max(1));
        let _place = tokio::select! {
            place = slots.acquire_owned() => match place {
                Ok(place) => place,
                Err(_) => return refused(CANCELLED),
            },
            () = cancel.cancelled() => return refused(CANCELLED),
        };

        let sandbox_root = self.agent().home().root().join("sandbox");
        if !settings.keep_workdirs {
            let root = sandbox_root.clone();
            self.inner
                .swept
                .get_or_init(|| async move {
                    // Done on the first run rather than at start, which stays free of it.
                    let _ =
                        tokio::task::spawn_blocking(move || files::remove_leftovers(&root)).await;
                })
                .await;
        }
        let run_id = sentient_core::store::new_id();
        let workdir = sandbox_root.join(&run_id);
        let outcome = self
            .run_in(
                &run_id, &workdir, &python, &code, &options, &settings, &cancel,
            )
            .await;
        let files_created = {
            let (workdir, outputs, run_id) = (
                workdir.clone(),
                self.agent().home().outputs(),
                run_id.clone(),
            );
            let (max_files, max_bytes) = (
                settings.max_files as usize,
                u64::from(settings.max_file_mb) * 1024 * 1024,
            );
            let keep = settings.keep_workdirs;
            let copied = tokio::task::spawn_blocking(move || {
                let copied = if workdir.is_dir() {
                    files::copy_outputs(&workdir, &outputs, &run_id, max_files, max_bytes)
                } else {
                    Ok(Vec::new())
                };
                if !keep
                    && let Err(error) = std::fs::remove_dir_all(&workdir)
                    && error.kind() != std::io::ErrorKind::NotFound
                {
                    tracing::warn!(%error, folder = %workdir.display(), "a script's folder could not be removed");
                }
                copied
            })
            .await;
            match copied {
                Ok(Ok(names)) => names,
                Ok(Err(error)) => {
                    tracing::warn!(%error, "a script's files could not be copied");
                    Vec::new()
                }
                Err(error) => {
                    tracing::warn!(%error, "copying a script's files failed");
                    Vec::new()
                }
            }
        };
        let mut result = match outcome {
            Ok(result) => result,
            Err(error) => {
                tracing::warn!(%error, "a script could not be started");
                SandboxResult::refused(
                    backend,
                    format!("The script could not be started: {error}."),
                )
            }
        };
        result.files_created = files_created;
        result.duration_ms = elapsed_ms(started);
        tracing::info!(
            run_id = %run_id,
            ok = result.ok,
            tool_calls = result.tool_calls,
            duration_ms = result.duration_ms,
            "script finished"
        );
        result
    }

    /// Prepares the folder and the endpoint, runs the process and reads how it went.
    #[allow(clippy::too_many_arguments)]
    async fn run_in(
        &self,
        run_id: &str,
        workdir: &std::path::Path,
        python: &Python,
        code: &str,
        options: &RunOptions,
        settings: &SandboxConfig,
        cancel: &CancellationToken,
    ) -> std::io::Result<SandboxResult> {
        let lib_dir = workdir.join(files::OWN_FOLDERS[0]);
        let script = lib_dir.join("script.py");
        {
            let (lib_dir, script, code) = (lib_dir.clone(), script.clone(), code.to_owned());
            tokio::task::spawn_blocking(move || {
                std::fs::create_dir_all(&lib_dir)?;
                std::fs::write(lib_dir.join("sentient_tools.py"), SENTIENT_TOOLS_PY)?;
                std::fs::write(&script, code)
            })
            .await
            .map_err(std::io::Error::other)??;
        }
        // The tool calls stop with the run, whichever way it ends.
        let calls_cancel = cancel.child_token();
        let _calls_end = calls_cancel.clone().drop_guard();
        let bridge = Arc::new(Bridge::new(
            self.agent().clone(),
            ScriptRun::new(
                options.session_id.clone(),
                calls_cancel,
                options.mark.clone(),
            ),
            ScriptPolicy {
                read_only: options.read_only,
                allowed_tools: options.allowed_tools.clone(),
            },
            settings.max_tool_calls,
        ));
        let endpoint = bridge::serve(bridge.clone()).await?;
        let timeout_s = options.timeout_s.unwrap_or(settings.timeout_s).max(1);
        tracing::info!(run_id, timeout_s, "script starting");
        let finished = process::run(Launch {
            python: python.path.clone(),
            workdir: workdir.to_owned(),
            lib_dir,
            script,
            env: vec![
                ("SENTIENT_TOOLS_URL".to_owned(), endpoint.url.clone()),
                ("SENTIENT_TOOLS_TOKEN".to_owned(), bridge.token().to_owned()),
            ],
            timeout: Duration::from_secs(u64::from(timeout_s)),
            cancel: cancel.clone(),
            on_output: options.on_output.clone(),
            max_chars: settings.max_output_chars as usize,
        })
        .await;
        endpoint.close();
        let finished = finished?;

        let error = match finished.ending {
            Ending::TimedOut => Some(timeout_message(timeout_s)),
            Ending::Cancelled => Some(CANCELLED.to_owned()),
            Ending::Exited(code) => match (bridge.failure(), code) {
                (Some(failure), _) => Some(failure_message(&failure)),
                (None, Some(0)) => None,
                (None, Some(code)) => Some(format!(
                    "The script stopped unexpectedly (exit code {code})."
                )),
                (None, None) => {
                    Some("The script was ended by the system before it finished.".to_owned())
                }
            },
        };
        let ok = error.is_none();
        let result = match bridge.result() {
            Some(value) => value,
            None if ok => Value::String(finished.stdout.clone()),
            None => Value::Null,
        };
        Ok(SandboxResult {
            ok,
            backend: ScriptBackend::Process,
            stdout: finished.stdout,
            stderr: finished.stderr,
            result,
            files_created: Vec::new(),
            tool_calls: bridge.tool_calls(),
            duration_ms: 0,
            error,
        })
    }

    async fn python(&self) -> Option<Python> {
        let known = self.inner.python.lock_unpoisoned().clone();
        if known.is_some() {
            return known;
        }
        let found = python::find().await?;
        *self.inner.python.lock_unpoisoned() = Some(found.clone());
        Some(found)
    }

    fn slots(&self, wanted: u32) -> Arc<Semaphore> {
        let mut slots = self.inner.slots.lock_unpoisoned();
        if slots.0 != wanted {
            // Runs holding places of the old size finish as they are.
            *slots = (wanted, Arc::new(Semaphore::new(wanted as usize)));
        }
        slots.1.clone()
    }
}

/// The backend a run uses for the setting: `auto` is the process backend in this version.
fn backend_for(setting: SandboxBackend) -> ScriptBackend {
    match setting {
        SandboxBackend::Docker => ScriptBackend::Docker,
        SandboxBackend::Auto | SandboxBackend::Process => ScriptBackend::Process,
    }
}

fn elapsed_ms(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_millis()).unwrap_or(u32::MAX)
}

fn timeout_message(seconds: u32) -> String {
    let unit = if seconds == 1 { "second" } else { "seconds" };
    format!("The script was still running after {seconds} {unit}, so it was stopped.")
}

/// The runner's report as a sentence: syntax errors with their line (nothing ran), runtime
/// errors with the failing line and its text.
fn failure_message(failure: &ScriptFailure) -> String {
    let message = failure.message.trim().trim_end_matches('.');
    match (failure.kind.as_str(), failure.line) {
        ("syntax", Some(line)) => {
            format!("The script has a syntax error on line {line}: {message}. Nothing was run.")
        }
        ("syntax", None) => format!("The script has a syntax error: {message}. Nothing was run."),
        ("runtime", Some(line)) if !failure.code.is_empty() => format!(
            "The script failed on line {line} ({}): {message}.",
            failure.code
        ),
        ("runtime", Some(line)) => format!("The script failed on line {line}: {message}."),
        ("runtime", None) => format!("The script failed: {message}."),
        _ => format!("{message}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(kind: &str, line: Option<u32>, message: &str, code: &str) -> ScriptFailure {
        ScriptFailure {
            kind: kind.to_owned(),
            line,
            message: message.to_owned(),
            code: code.to_owned(),
        }
    }

    #[test]
    fn failures_read_as_sentences_with_their_line() {
        assert_eq!(
            failure_message(&failure(
                "syntax",
                Some(3),
                "invalid syntax",
                "if x print(1)"
            )),
            "The script has a syntax error on line 3: invalid syntax. Nothing was run."
        );
        assert_eq!(
            failure_message(&failure(
                "runtime",
                Some(2),
                "ZeroDivisionError: division by zero",
                "y = 1 / 0"
            )),
            "The script failed on line 2 (y = 1 / 0): ZeroDivisionError: division by zero."
        );
        assert_eq!(
            failure_message(&failure(
                "exit",
                None,
                "The script ended with exit code 4.",
                ""
            )),
            "The script ended with exit code 4."
        );
        assert_eq!(
            timeout_message(1),
            "The script was still running after 1 second, so it was stopped."
        );
        assert_eq!(backend_for(SandboxBackend::Auto), ScriptBackend::Process);
    }
}
