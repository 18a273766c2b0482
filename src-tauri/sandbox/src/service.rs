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

use crate::bridge::{self, Bridge, Door, ScriptFailure};
use crate::containment::{self, Containment};
use crate::docker;
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
    /// The event that started a triggered script job: the script's `trigger_event` variable.
    pub trigger_event: Option<Value>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("session_id", &self.session_id)
            .field("timeout_s", &self.timeout_s)
            .field("allowed_tools", &self.allowed_tools)
            .field("read_only", &self.read_only)
            .field("mark", &self.mark)
            .field("trigger_event", &self.trigger_event.is_some())
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
    /// bubblewrap, once it started (looked for again while it can't).
    containment: Mutex<Option<Containment>>,
    /// Whether `docker info` answered, and when it was asked (asked again after a while).
    docker: Mutex<Option<(Instant, bool)>>,
}

/// How long `docker info`'s answer is trusted.
const DOCKER_ANSWER_KEPT: Duration = Duration::from_secs(30);
/// The longest path a Unix socket can have (`sun_path`), with room to spare.
const MOST_SOCKET_PATH: usize = 100;

/// Where and how one run's script runs.
enum Plan {
    /// Inside bubblewrap (the program's path).
    Contained(std::path::PathBuf),
    /// A plain process with a clean environment (other systems, or the person's choice).
    Uncontained,
    /// In a container (the `docker` program's path).
    Docker(std::path::PathBuf),
}

impl Plan {
    fn backend(&self) -> ScriptBackend {
        match self {
            Self::Docker(_) => ScriptBackend::Docker,
            Self::Contained(_) | Self::Uncontained => ScriptBackend::Process,
        }
    }
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
const NO_PYTHON: &str = "Python 3 isn't installed on this computer (python3 was not found), so the script could not run. Install Python 3 and try again.";
const STOPPED: &str = "Sentient is stopped (Stop everything), so the script was not run. Resume Sentient and try again.";
const CANCELLED: &str = "The script was stopped before it finished.";
/// The triggering event of a script job, beside the script (the runner reads it).
const TRIGGER_EVENT_FILE: &str = "trigger_event.json";
const UNAVAILABLE: &str = "Code execution is unavailable right now, so the script was not run.";

impl SandboxService {
    pub fn new(agent: Agent) -> Self {
        let wanted = agent.config().current().sandbox.max_concurrent_runs.max(1);
        Self {
            inner: Arc::new(Inner {
                agent,
                slots: Mutex::new((wanted, Arc::new(Semaphore::new(wanted as usize)))),
                python: Mutex::new(None),
                swept: tokio::sync::OnceCell::new(),
                containment: Mutex::new(None),
                docker: Mutex::new(None),
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

    /// Whether anything of the sandbox ran yet: Python, bubblewrap or Docker looked for, an
    /// earlier session's folders swept. Start-up does none of it; the first script or status does.
    pub fn has_started(&self) -> bool {
        self.inner.swept.initialized()
            || self.inner.python.lock_unpoisoned().is_some()
            || self.inner.containment.lock_unpoisoned().is_some()
            || self.inner.docker.lock_unpoisoned().is_some()
    }

    /// `sandbox.enabled` as it is now.
    pub fn enabled(&self) -> bool {
        self.agent().config().current().sandbox.enabled
    }

    /// `GET /api/sandbox/status`: on or off, the backend a run would use now, whether Docker
    /// answers and which Python runs scripts.
    pub async fn status(&self) -> SandboxStatus {
        let settings = self.settings();
        let (python, docker_available, containment) =
            tokio::join!(self.python(), self.docker_answers(), self.containment());
        let plan = match self.docker_plan(&settings).await {
            Some(plan) => plan,
            None => process_plan(&settings, containment.clone()),
        };
        let backend = match &plan {
            Ok(plan) => plan.backend(),
            Err(_) if settings.backend == SandboxBackend::Docker => ScriptBackend::Docker,
            Err(_) => ScriptBackend::Process,
        };
        let note = match (&plan, backend) {
            (Err(refusal), ScriptBackend::Docker) => Some(refusal.clone()),
            (_, ScriptBackend::Docker) => None,
            _ => containment.note(settings.allow_uncontained),
        };
        SandboxStatus {
            enabled: settings.enabled,
            backend,
            docker_available,
            python_version: python.map(|p| p.version),
            contained: matches!(plan, Ok(Plan::Contained(_) | Plan::Docker(_))),
            note,
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

    /// Why `code` does not compile, as a plain sentence with its line; `None` when it compiles
    /// (or when no Python is here to ask: running it then says so).
    pub async fn compile_error(&self, code: &str) -> Option<String> {
        if code.trim().is_empty() {
            return Some("The script is empty.".to_owned());
        }
        let python = self.python().await?;
        let (line, message) = python::syntax_error(&python, code).await?;
        Some(syntax_sentence(line, &message))
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
        let refused = |backend: ScriptBackend, error: &str| SandboxResult {
            duration_ms: elapsed_ms(started),
            ..SandboxResult::refused(backend, error)
        };
        let wanted = match settings.backend {
            SandboxBackend::Docker => ScriptBackend::Docker,
            SandboxBackend::Auto | SandboxBackend::Process => ScriptBackend::Process,
        };
        if !settings.enabled {
            return refused(wanted, TURNED_OFF);
        }
        if self.agent().stop().is_stopped() {
            return refused(wanted, STOPPED);
        }
        let plan = match self.plan(&settings).await {
            Ok(plan) => plan,
            Err(refusal) => return refused(wanted, &refusal),
        };
        let backend = plan.backend();
        let python = match plan {
            Plan::Docker(_) => None,
            _ => match self.python().await {
                Some(python) => Some(python),
                None => return refused(backend, NO_PYTHON),
            },
        };
        let slots = self.slots(settings.max_concurrent_runs.max(1));
        let _place = tokio::select! {
            place = slots.acquire_owned() => match place {
                Ok(place) => place,
                Err(_) => return refused(backend, CANCELLED),
            },
            () = cancel.cancelled() => return refused(backend, CANCELLED),
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
                &run_id,
                &workdir,
                &plan,
                python.as_ref(),
                &code,
                &options,
                &settings,
                &cancel,
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
        plan: &Plan,
        python: Option<&Python>,
        code: &str,
        options: &RunOptions,
        settings: &SandboxConfig,
        cancel: &CancellationToken,
    ) -> std::io::Result<SandboxResult> {
        let lib_dir = workdir.join(files::OWN_FOLDERS[0]);
        let script = lib_dir.join("script.py");
        {
            let (lib_dir, script, code) = (lib_dir.clone(), script.clone(), code.to_owned());
            // Beside the script rather than prepended to it, so its line numbers stay its own.
            let trigger_event = options.trigger_event.as_ref().map(Value::to_string);
            tokio::task::spawn_blocking(move || {
                std::fs::create_dir_all(&lib_dir)?;
                std::fs::write(lib_dir.join("sentient_tools.py"), SENTIENT_TOOLS_PY)?;
                if let Some(event) = trigger_event {
                    std::fs::write(lib_dir.join(TRIGGER_EVENT_FILE), event)?;
                }
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
        let endpoint = bridge::serve(bridge.clone(), door_for(plan, &lib_dir)).await?;
        let timeout_s = options.timeout_s.unwrap_or(settings.timeout_s).max(1);
        tracing::info!(run_id, timeout_s, backend = ?plan.backend(), "script starting");
        let container = format!("sentient-script-{}", run_id.to_ascii_lowercase());
        let command = command_for(
            plan,
            python,
            workdir,
            &lib_dir,
            &script,
            &endpoint,
            bridge.token(),
            settings,
            &container,
        );
        let finished = process::run(Launch {
            command,
            timeout: Duration::from_secs(u64::from(timeout_s)),
            cancel: cancel.clone(),
            on_output: options.on_output.clone(),
            max_chars: settings.max_output_chars as usize,
        })
        .await;
        if let (Plan::Docker(program), Ok(done)) = (plan, &finished)
            && !matches!(done.ending, Ending::Exited(_))
        {
            docker::kill(program, &container).await;
        }
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
            backend: plan.backend(),
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

    /// Whether scripts can be contained here; bubblewrap once it started, else looked for again.
    async fn containment(&self) -> Containment {
        let known = self.inner.containment.lock_unpoisoned().clone();
        if let Some(known @ (Containment::Bubblewrap(_) | Containment::NotThisSystem)) = known {
            return known;
        }
        let found = containment::check(None).await;
        *self.inner.containment.lock_unpoisoned() = Some(found.clone());
        found
    }

    /// Whether `docker info` answers (asked at most every 30 s).
    async fn docker_answers(&self) -> bool {
        if let Some((asked, answered)) = *self.inner.docker.lock_unpoisoned()
            && asked.elapsed() < DOCKER_ANSWER_KEPT
        {
            return answered;
        }
        let answered = python::docker_available().await;
        *self.inner.docker.lock_unpoisoned() = Some((Instant::now(), answered));
        answered
    }

    /// Where the next script runs, or why it can't run at all: Docker when chosen (or, with
    /// Auto, when it answers); otherwise inside bubblewrap, or as a plain process where this
    /// system has nothing to contain it with or the person allowed it.
    async fn plan(&self, settings: &SandboxConfig) -> Result<Plan, String> {
        match self.docker_plan(settings).await {
            Some(plan) => plan,
            None => process_plan(settings, self.containment().await),
        }
    }

    /// The Docker part of [`Self::plan`]: `None` when scripts run as a process.
    async fn docker_plan(&self, settings: &SandboxConfig) -> Option<Result<Plan, String>> {
        let docker = || sentient_core::programs::on_path(docker::PROGRAM);
        match settings.backend {
            SandboxBackend::Docker => Some(match docker() {
                None => Err(docker::NOT_INSTALLED.to_owned()),
                Some(_) if !self.docker_answers().await => Err(docker::NOT_RUNNING.to_owned()),
                Some(program) => Ok(Plan::Docker(program)),
            }),
            SandboxBackend::Auto => match docker() {
                Some(program) if self.docker_answers().await => Some(Ok(Plan::Docker(program))),
                _ => None,
            },
            SandboxBackend::Process => None,
        }
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

/// The process part of a plan: inside bubblewrap, or a plain process where this system has
/// nothing to contain it with or the person allowed it.
fn process_plan(settings: &SandboxConfig, containment: Containment) -> Result<Plan, String> {
    match containment {
        Containment::Bubblewrap(program) => Ok(Plan::Contained(program)),
        Containment::NotThisSystem => Ok(Plan::Uncontained),
        _ if settings.allow_uncontained => Ok(Plan::Uncontained),
        other => Err(other.refusal().unwrap_or_default()),
    }
}

/// How the script reaches its tools: a container shares only its folder (request files); a
/// socket in the run's folder elsewhere, unless its path is too long for one.
fn door_for(plan: &Plan, lib_dir: &std::path::Path) -> Door {
    let socket = lib_dir.join("tools.sock");
    match plan {
        Plan::Docker(_) => Door::Files(lib_dir.join("requests")),
        _ if cfg!(not(unix)) => Door::Loopback,
        _ if socket.as_os_str().len() > MOST_SOCKET_PATH => Door::Files(lib_dir.join("requests")),
        _ => Door::Socket(socket),
    }
}

/// The command for `plan`: Python alone, inside bubblewrap, or in a container; each with a
/// clean environment and the endpoint as the script sees it.
#[allow(clippy::too_many_arguments)]
fn command_for(
    plan: &Plan,
    python: Option<&Python>,
    workdir: &std::path::Path,
    lib_dir: &std::path::Path,
    script: &std::path::Path,
    endpoint: &bridge::Endpoint,
    token: &str,
    settings: &SandboxConfig,
    container: &str,
) -> tokio::process::Command {
    const MB: u64 = 1024 * 1024;
    let seen = |path: &std::path::Path| match plan {
        Plan::Uncontained => path.to_owned(),
        _ => containment::inside(workdir, path),
    };
    let url = match &endpoint.door {
        Door::Loopback => endpoint.url.clone(),
        Door::Socket(path) => format!("unix:{}", seen(path).display()),
        Door::Files(path) => format!("files:{}", seen(path).display()),
    };
    let home = seen(workdir);
    let mut env = process::base_env(&home);
    env.push(("SENTIENT_TOOLS_URL".to_owned(), url.into()));
    env.push(("SENTIENT_TOOLS_TOKEN".to_owned(), token.into()));
    let memory = format!("memory={}", u64::from(settings.memory_mb) * MB);
    let file = format!("file={}", u64::from(settings.max_file_size_mb) * MB);
    let python_path = python.map(|p| p.path.clone()).unwrap_or_default();
    let mut command = match plan {
        Plan::Contained(bwrap) => {
            let mut command = tokio::process::Command::new(bwrap);
            command.args(containment::args(&containment::Jail {
                workdir,
                python_prefix: python.map(|p| p.prefix.as_path()),
            }));
            command.arg(&python_path);
            // Processes are counted inside the sandbox's own user namespace only.
            let processes = format!("processes={}", settings.max_processes);
            command.args(process::python_args(
                &seen(lib_dir),
                &seen(script),
                &[memory, processes, file],
            ));
            command
        }
        Plan::Uncontained => {
            let mut command = tokio::process::Command::new(&python_path);
            // Outside a namespace a process limit would count every process of the person's.
            let limits = if cfg!(unix) {
                vec![memory, file]
            } else {
                Vec::new()
            };
            command.args(process::python_args(lib_dir, script, &limits));
            command
        }
        Plan::Docker(program) => {
            // The image's own PATH finds its Python.
            let inside: Vec<_> = env.into_iter().filter(|(name, _)| name != "PATH").collect();
            let mut command = tokio::process::Command::new(program);
            command.args(docker::args(&docker::Container {
                name: container,
                image: &settings.docker_image,
                workdir,
                memory_mb: settings.docker_memory_mb,
                cpus: settings.docker_cpus,
                max_processes: settings.max_processes,
                network: settings.allow_network_in_docker,
                user: docker::owner_of(workdir),
                env: &inside,
            }));
            command.args(process::python_args(&seen(lib_dir), &seen(script), &[file]));
            // Docker's own client keeps Sentient's environment (DOCKER_HOST and the like);
            // the container gets only `env`.
            command.current_dir(workdir);
            return command;
        }
    };
    command.current_dir(workdir).env_clear().envs(env);
    command
}

fn elapsed_ms(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_millis()).unwrap_or(u32::MAX)
}

/// A syntax error as a sentence, with its line when known.
fn syntax_sentence(line: Option<u32>, message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    match line {
        Some(line) => format!("The script has a syntax error on line {line}: {message}."),
        None => format!("The script has a syntax error: {message}."),
    }
}

/// A script job's check, for tasks: read-only tools, the event that started it as
/// `trigger_event`. Through the weak handle, so tasks never keep the sandbox alive.
#[async_trait::async_trait]
impl sentient_core::domain::script::ScriptRunner for SandboxHandle {
    async fn compile_error(&self, code: &str) -> Option<String> {
        self.upgrade()?.compile_error(code).await
    }

    async fn check(
        &self,
        code: &str,
        trigger_event: Option<Value>,
        cancel: CancellationToken,
    ) -> SandboxResult {
        let Some(service) = self.upgrade() else {
            return SandboxResult::refused(ScriptBackend::Process, UNAVAILABLE);
        };
        let options = RunOptions {
            read_only: true,
            cancel,
            trigger_event,
            ..RunOptions::default()
        };
        service.run(code, options).await
    }
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
        ("syntax", line) => format!("{} Nothing was run.", syntax_sentence(line, message)),
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
    }
}
