//! [`TerminalService`]: the checks in the contract's order, one command from start to end, what
//! runs now, and stopping it. The settings are read at every call; a command is a
//! Stop-everything job, and one whose caller gives up (a stopped chat reply) is stopped too.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use sentient_agent::Agent;
use sentient_agent::approvals::Origin;
use sentient_core::config::{ApprovalMode, RuleValue, TerminalConfig};
use sentient_core::sync::MutexExt;

use crate::guard;
use crate::model::{RunningCommand, TerminalResult, TerminalStatus};
use crate::run::{self, Ending, OutputFn};

/// The tool's and the app's names, which Allow rules name.
pub const TOOL: &str = "terminal_run";
pub const APP: &str = "terminal";

const TURNED_OFF: &str = "Running commands on this computer is turned off, so the command was not run. Turn it on in Settings > Terminal.";
const UNPROMPTED: &str =
    "Sentient doesn't run commands for work nobody asked for, so the command was not run.";
const NOT_LISTED: &str = "Nobody can be asked to approve a command here, so only the commands listed in Settings > Terminal run, and this one isn't listed. Add it there, or run it from a chat.";
const NO_SHELL: &str =
    "No shell was found on this computer (bash, zsh or sh), so the command could not run.";
const STOPPED: &str = "The command was stopped before it finished.";

struct Running {
    info: RunningCommand,
    stop: CancellationToken,
}

struct Inner {
    agent: Agent,
    running: Mutex<BTreeMap<String, Running>>,
}

/// Commands on this computer; cheap to clone.
#[derive(Clone)]
pub struct TerminalService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for TerminalService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalService").finish_non_exhaustive()
    }
}

/// What passed the checks: where it runs and whether it is a listed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleared {
    pub cwd: std::path::PathBuf,
    pub listed: bool,
}

impl TerminalService {
    pub fn new(agent: Agent) -> Self {
        Self {
            inner: Arc::new(Inner {
                agent,
                running: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    fn settings(&self) -> TerminalConfig {
        self.inner.agent.config().current().terminal.clone()
    }

    /// `terminal.enabled` as it is now.
    pub fn enabled(&self) -> bool {
        self.settings().enabled
    }

    /// The checks that don't depend on who asks (on, length, blocklist, folder): `Ok` with the
    /// folder, or the sentence. The tool's risk and its approval card use this.
    pub fn check_command(&self, command: &str, cwd: Option<&str>) -> Result<Cleared, String> {
        let settings = self.settings();
        if !settings.enabled {
            return Err(TURNED_OFF.to_owned());
        }
        self.check_rest(&settings, command, cwd)
    }

    fn check_rest(
        &self,
        settings: &TerminalConfig,
        command: &str,
        cwd: Option<&str>,
    ) -> Result<Cleared, String> {
        let length = command.chars().count();
        if command.trim().is_empty() {
            return Err("The command is empty, so nothing was run.".to_owned());
        }
        if length > guard::MAX_COMMAND_CHARS {
            return Err(format!(
                "The command is {length} characters long; commands may be at most {} characters, so it was not run.",
                guard::MAX_COMMAND_CHARS
            ));
        }
        if let Some(kind) = guard::blocked(command) {
            return Err(guard::refusal(kind));
        }
        let cwd = guard::resolve_folder(cwd, &settings.default_folder, &settings.allowed_folders)?;
        Ok(Cleared {
            cwd,
            listed: guard::is_listed(command, &settings.allowed_commands, cfg!(windows)),
        })
    }

    /// Every check, in the contract's order: on; not work nobody asked for; the length; the
    /// blocklist; the folder; and where nobody can be asked, only listed commands unless an
    /// Allow rule or approvals off say otherwise.
    pub fn check(
        &self,
        command: &str,
        cwd: Option<&str>,
        origin: Origin,
    ) -> Result<Cleared, String> {
        let settings = self.settings();
        if !settings.enabled {
            return Err(TURNED_OFF.to_owned());
        }
        if unprompted(origin) {
            return Err(UNPROMPTED.to_owned());
        }
        let cleared = self.check_rest(&settings, command, cwd)?;
        let can_ask = matches!(origin, Origin::Chat | Origin::Voice | Origin::Channel);
        if !can_ask && !cleared.listed {
            let config = self.inner.agent.config().current();
            let approvals = &config.tools.approvals;
            let allowed = approvals.mode == ApprovalMode::Off
                || matches!(
                    approvals
                        .rules
                        .get(TOOL)
                        .or_else(|| approvals.rules.get(APP)),
                    Some(RuleValue::Allow)
                );
            if !allowed {
                return Err(NOT_LISTED.to_owned());
            }
        }
        Ok(cleared)
    }

    /// Runs one command after the checks; never fails: a refusal or a failure is `ok: false`
    /// with its sentence.
    pub async fn run(
        &self,
        command: &str,
        cwd: Option<&str>,
        origin: Origin,
        call_id: &str,
        cancel: &CancellationToken,
        on_output: Option<OutputFn>,
    ) -> TerminalResult {
        let cleared = match self.check(command, cwd, origin) {
            Ok(cleared) => cleared,
            Err(sentence) => return TerminalResult::refused(command, sentence),
        };
        let Some(shell) = run::find_shell() else {
            return TerminalResult::refused(command, NO_SHELL);
        };
        let settings = self.settings();
        let run_id = sentient_core::store::new_id();
        let job = self.inner.agent.stop().start_job_within("terminal", cancel);
        let stop = job.token().clone();
        // A caller that gives up (the reply was stopped) stops the command too.
        let _stop_with_caller = stop.clone().drop_guard();
        let cwd_text = cleared.cwd.display().to_string();
        self.inner.running.lock_unpoisoned().insert(
            run_id.clone(),
            Running {
                info: RunningCommand {
                    id: run_id.clone(),
                    call_id: call_id.to_owned(),
                    command: command.to_owned(),
                    cwd: cwd_text.clone(),
                    started_at: self.inner.agent.clock().now().to_rfc3339(),
                },
                stop: stop.clone(),
            },
        );
        let _forget = Forget {
            service: self.clone(),
            run_id: run_id.clone(),
        };
        let providers: Vec<String> = self
            .inner
            .agent
            .config()
            .current()
            .models
            .providers
            .values()
            .filter_map(|p| p.api_key_env.clone())
            .collect();
        let max_chars = settings.max_output_chars as usize;
        tracing::info!(run_id, cwd = %cwd_text, listed = cleared.listed, "command starting");
        let finished = run::run(run::Command {
            run_id: &run_id,
            shell: &shell,
            command,
            cwd: &cleared.cwd,
            env: run::environment(&run_id, &providers, cleared.listed),
            timeout: Duration::from_secs(u64::from(settings.timeout_s.max(1))),
            cancel: stop,
            on_output,
            max_chars,
        })
        .await;
        drop(job);
        let mut result = TerminalResult {
            cwd: cwd_text,
            shell: shell.name.clone(),
            ..TerminalResult::refused(command, "")
        };
        let finished = match finished {
            Ok(finished) => finished,
            Err(error) => {
                result.error = Some(format!(
                    "The shell ({}) could not start: {error}.",
                    shell.name
                ));
                return result;
            }
        };
        let (stdout, cut_out) = finished.stdout.shown(max_chars);
        let (stderr, cut_err) = finished.stderr.shown(max_chars);
        result.stdout = stdout;
        result.stderr = stderr;
        result.duration_ms = u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX);
        if cut_out || cut_err {
            result.output_file = self.save_whole(&run_id, &finished).await;
        }
        match finished.ending {
            Ending::Exited(code) => {
                result.exit_code = code;
                result.ok = code == Some(0);
                result.error = if code.is_none() {
                    Some("The command was ended by the system before it finished.".to_owned())
                } else {
                    None
                };
            }
            Ending::TimedOut => {
                result.timed_out = true;
                result.error = Some(format!(
                    "The command took longer than {} seconds and was stopped. Give it more time in Settings > Terminal, or run something shorter.",
                    settings.timeout_s
                ));
            }
            Ending::Stopped => {
                result.stopped = true;
                result.error = Some(STOPPED.to_owned());
            }
        }
        tracing::info!(run_id, ok = result.ok, exit_code = ?result.exit_code, duration_ms = result.duration_ms, "command finished");
        result
    }

    /// The whole output, both streams, in `files/outputs/terminal-<run id>.txt`; its name under
    /// the files folder.
    async fn save_whole(&self, run_id: &str, finished: &run::Finished) -> Option<String> {
        let name = format!("terminal-{run_id}.txt");
        let path = self.inner.agent.home().outputs().join(&name);
        let text = format!(
            "--- output ---\n{}\n--- errors ---\n{}\n",
            finished.stdout.whole, finished.stderr.whole
        );
        let written = tokio::task::spawn_blocking(move || {
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder)?;
            }
            std::fs::write(&path, text)
        })
        .await;
        match written {
            Ok(Ok(())) => Some(format!("outputs/{name}")),
            Ok(Err(error)) => {
                tracing::warn!(%error, "a command's whole output could not be saved");
                None
            }
            Err(_) => None,
        }
    }

    /// `POST /api/terminal/stop`: stops the command with this run id or tool call id.
    pub fn stop_command(&self, id: &str) -> bool {
        let running = self.inner.running.lock_unpoisoned();
        let found = running
            .values()
            .find(|r| r.info.id == id || r.info.call_id == id);
        match found {
            Some(running) => {
                running.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// `GET /api/terminal/status`.
    pub fn status(&self) -> TerminalStatus {
        let settings = self.settings();
        let shell = run::find_shell();
        TerminalStatus {
            enabled: settings.enabled,
            shell: shell.as_ref().map(|s| s.name.clone()),
            shell_path: shell.map(|s| s.path.display().to_string()),
            allowed_folders: settings.allowed_folders.clone(),
            default_folder: guard::default_folder(
                &settings.default_folder,
                &settings.allowed_folders,
            )
            .map(|p| p.display().to_string()),
            blocked: guard::BlockKind::ALL
                .iter()
                .map(|k| k.describe().to_owned())
                .collect(),
            running: self
                .inner
                .running
                .lock_unpoisoned()
                .values()
                .map(|r| r.info.clone())
                .collect(),
        }
    }
}

/// Work nobody asked for (ADR 0017): refused even with an Allow rule or a listed command.
fn unprompted(origin: Origin) -> bool {
    matches!(
        origin,
        Origin::Proactive
            | Origin::Heartbeat
            | Origin::Followups
            | Origin::Dreaming
            | Origin::Background
            | Origin::Script
    )
}

/// Takes a finished command out of what runs now, whichever way it ends.
struct Forget {
    service: TerminalService,
    run_id: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.service
            .inner
            .running
            .lock_unpoisoned()
            .remove(&self.run_id);
    }
}
