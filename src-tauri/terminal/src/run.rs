//! Running one command: the person's shell as a fresh process with empty input and an
//! environment without secrets, its output streamed and cut (the start and the end kept, the
//! whole saved when cut), and its whole process tree killed when it ends, times out or is
//! stopped: the process group, plus (on Linux) every process carrying the run's marker, so a
//! child that left the group dies too.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use process_wrap::tokio::CommandWrap;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use sentient_agent::tools::ProgressKind;
use sentient_core::programs::ChildOutput;

/// The variable that marks every process of a run.
pub const MARKER: &str = "SENTIENT_TERMINAL_RUN";
/// Most characters of each stream kept in all (and saved when cut).
pub const MOST_SAVED_CHARS: usize = 2_000_000;

/// Where each piece of output goes as it arrives.
pub type OutputFn = std::sync::Arc<dyn Fn(ProgressKind, String) + Send + Sync>;

/// The shell commands run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shell {
    /// `bash`, `zsh`, `sh`, `pwsh` or `powershell`.
    pub name: String,
    pub path: PathBuf,
}

impl Shell {
    /// The arguments before the command.
    fn args(&self) -> &'static [&'static str] {
        match self.name.as_str() {
            "pwsh" | "powershell" => &["-NoProfile", "-NonInteractive", "-Command"],
            _ => &["-c"],
        }
    }
}

/// The person's shell: on Windows pwsh, else powershell; elsewhere `$SHELL` when it is bash or
/// zsh, else bash, zsh or sh from the PATH.
pub fn find_shell() -> Option<Shell> {
    let named = |name: &str| {
        sentient_core::programs::on_path(name).map(|path| Shell {
            name: name.to_owned(),
            path,
        })
    };
    if cfg!(windows) {
        return named("pwsh").or_else(|| named("powershell"));
    }
    if let Some(own) = std::env::var_os("SHELL").map(PathBuf::from)
        && let Some(name) = own.file_name().and_then(|n| n.to_str())
        && matches!(name, "bash" | "zsh")
        && own.is_file()
    {
        return Some(Shell {
            name: name.to_owned(),
            path: own,
        });
    }
    named("bash")
        .or_else(|| named("zsh"))
        .or_else(|| named("sh"))
}

/// Whether a variable of this name may hold a secret: keys, tokens, passwords, credentials,
/// Sentient's own and LiteLLM's variables. `SSH_AUTH_SOCK` is a socket, not a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper == "SSH_AUTH_SOCK" {
        return false;
    }
    upper.starts_with("SENTIENT_")
        || upper.starts_with("LITELLM_")
        || [
            "KEY",
            "TOKEN",
            "SECRET",
            "PASSWORD",
            "PASSWD",
            "PASSPHRASE",
            "CREDENTIAL",
            "AUTH",
            "COOKIE",
            "SESSION",
        ]
        .iter()
        .any(|word| upper.contains(word))
}

/// The environment a command gets: the engine's own without secrets (and without the
/// variables named in `also_secret`, the providers' `api_key_env`), plus the run's marker,
/// no git password prompt and, for a listed command, git's fsmonitor off so a repository's
/// settings can't start a program without a question.
pub fn environment(
    run_id: &str,
    also_secret: &[String],
    listed: bool,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            !looks_secret(&name)
                && !also_secret.iter().any(|s| s.eq_ignore_ascii_case(&name))
                && !name.to_ascii_uppercase().starts_with("GIT_CONFIG_")
        })
        .collect();
    env.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
    env.push((MARKER.into(), run_id.into()));
    if listed {
        env.push(("GIT_CONFIG_COUNT".into(), "1".into()));
        env.push(("GIT_CONFIG_KEY_0".into(), "core.fsmonitor".into()));
        env.push(("GIT_CONFIG_VALUE_0".into(), "false".into()));
    }
    env
}

/// What one command needs.
pub struct Command<'a> {
    pub run_id: &'a str,
    pub shell: &'a Shell,
    pub command: &'a str,
    pub cwd: &'a Path,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    pub cancel: CancellationToken,
    pub on_output: Option<OutputFn>,
    /// Characters of each stream streamed and kept (start and end).
    pub max_chars: usize,
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(Option<i32>),
    TimedOut,
    Stopped,
}

/// A finished command.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: Stream,
    pub stderr: Stream,
    pub duration: Duration,
}

/// One stream's text, whole up to [`MOST_SAVED_CHARS`].
#[derive(Debug, Default)]
pub struct Stream {
    pub whole: String,
    /// Characters in all, counting those past what was kept.
    pub total_chars: usize,
}

impl Stream {
    /// The start and the end within `max` characters, with a note of what was cut between.
    pub fn shown(&self, max: usize) -> (String, bool) {
        if self.total_chars <= max {
            return (self.whole.clone(), false);
        }
        let chars: Vec<char> = self.whole.chars().collect();
        let head = max / 2;
        let tail = max - head;
        let start: String = chars.iter().take(head).collect();
        let end: String = chars[chars.len().saturating_sub(tail)..].iter().collect();
        let cut = self.total_chars - head - tail;
        (
            format!("{start}\n[... {cut} characters cut here ...]\n{end}"),
            true,
        )
    }
}

/// Runs the command to its end, a timeout or a stop; then kills what it left.
pub async fn run(cmd: Command<'_>) -> std::io::Result<Finished> {
    let started = Instant::now();
    let mut command = tokio::process::Command::new(&cmd.shell.path);
    command
        .args(cmd.shell.args())
        .arg(cmd.command)
        .current_dir(cmd.cwd)
        .env_clear()
        .envs(cmd.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut wrapped = CommandWrap::from(command);
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    wrapped.wrap(process_wrap::tokio::JobObject);
    let mut child = wrapped.spawn()?;
    let stdout = child.stdout().take();
    let stderr = child.stderr().take();
    let stop_reading = CancellationToken::new();
    let reader = |pipe: Option<ChildOutput>, kind| {
        tokio::spawn(read(
            pipe,
            kind,
            cmd.max_chars,
            cmd.on_output.clone(),
            stop_reading.clone(),
        ))
    };
    let out = reader(
        stdout.map(|p| Box::new(p) as ChildOutput),
        ProgressKind::Stdout,
    );
    let err = reader(
        stderr.map(|p| Box::new(p) as ChildOutput),
        ProgressKind::Stderr,
    );

    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status?.code()),
        () = tokio::time::sleep(cmd.timeout) => Ending::TimedOut,
        () = cmd.cancel.cancelled() => Ending::Stopped,
    };
    // The whole group, and every process carrying the marker, also after a clean exit: nothing
    // the command started keeps running.
    let _ = child.start_kill();
    sweep(cmd.run_id);
    if !matches!(ending, Ending::Exited(_)) {
        let _ = child.wait().await;
    }
    let readers = futures::future::join(out, err);
    tokio::pin!(readers);
    let (stdout, stderr) = tokio::select! {
        both = &mut readers => both,
        () = tokio::time::sleep(Duration::from_secs(2)) => {
            stop_reading.cancel();
            readers.await
        }
    };
    Ok(Finished {
        ending,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
        duration: started.elapsed(),
    })
}

/// Kills every process whose environment carries this run's marker (Linux reads it from
/// `/proc`; elsewhere the process group or job object is all there is).
pub fn sweep(run_id: &str) {
    #[cfg(target_os = "linux")]
    {
        let wanted = format!("{MARKER}={run_id}");
        let own = std::process::id();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|p| p.parse::<i32>().ok())
            else {
                continue;
            };
            if pid as u32 == own {
                continue;
            }
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            if environ
                .split(|b| *b == 0)
                .any(|pair| pair == wanted.as_bytes())
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = run_id;
}

/// Reads one stream to its end: keeps up to [`MOST_SAVED_CHARS`], streams up to `max_chars`
/// and then one note that the rest is in the result.
async fn read(
    pipe: Option<ChildOutput>,
    kind: ProgressKind,
    max_chars: usize,
    on_output: Option<OutputFn>,
    stop: CancellationToken,
) -> Stream {
    let mut stream = Stream::default();
    let Some(mut pipe) = pipe else {
        return stream;
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut streamed = 0usize;
    let mut noted = false;
    let mut buf = vec![0u8; 8192];
    loop {
        let got = tokio::select! {
            got = pipe.read(&mut buf) => got,
            () = stop.cancelled() => break,
        };
        let n = match got {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        // Only whole UTF-8 characters; a split one waits for its rest.
        let upto = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => pending.len(),
        };
        let text = String::from_utf8_lossy(&pending[..upto]).replace("\r\n", "\n");
        pending.drain(..upto);
        let count = text.chars().count();
        stream.total_chars += count;
        let room =
            MOST_SAVED_CHARS.saturating_sub(stream.whole.chars().count().min(MOST_SAVED_CHARS));
        stream.whole.extend(text.chars().take(room));
        if let Some(send) = &on_output {
            if streamed < max_chars {
                let piece: String = text.chars().take(max_chars - streamed).collect();
                streamed += piece.chars().count();
                send(kind, piece);
            } else if !noted {
                noted = true;
                send(
                    ProgressKind::Status,
                    format!(
                        "Only the first {max_chars} characters of the output are shown here; the result keeps its start and its end."
                    ),
                );
            }
        }
    }
    if !pending.is_empty() {
        let text = String::from_utf8_lossy(&pending).into_owned();
        stream.total_chars += text.chars().count();
        stream.whole.push_str(&text);
    }
    stream
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_and_the_marker_goes_in() {
        for secret in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "DB_PASSWORD",
            "AWS_SECRET_ACCESS_KEY",
            "SENTIENT_HOME",
            "LITELLM_MASTER",
            "my_credentials",
        ] {
            assert!(looks_secret(secret), "{secret}");
        }
        for plain in ["PATH", "HOME", "LANG", "SSH_AUTH_SOCK", "TERM"] {
            assert!(!looks_secret(plain), "{plain}");
        }
        let env = environment("r1", &["MY_PROVIDER_VAR".to_owned()], true);
        let has = |name: &str, value: &str| env.iter().any(|(k, v)| k == name && v == value);
        assert!(has(MARKER, "r1"));
        assert!(has("GIT_TERMINAL_PROMPT", "0"));
        assert!(has("GIT_CONFIG_KEY_0", "core.fsmonitor"));
        assert!(has("GIT_CONFIG_VALUE_0", "false"));
        let unlisted = environment("r2", &[], false);
        assert!(!unlisted.iter().any(|(k, _)| k == "GIT_CONFIG_COUNT"));
    }

    #[test]
    fn a_long_stream_keeps_its_start_and_its_end() {
        let stream = Stream {
            whole: "a".repeat(10) + &"b".repeat(10),
            total_chars: 20,
        };
        let (shown, cut) = stream.shown(8);
        assert!(cut);
        assert_eq!(shown, "aaaa\n[... 12 characters cut here ...]\nbbbb");
        let (shown, cut) = stream.shown(20);
        assert!(!cut);
        assert_eq!(shown.len(), 20);
    }
}
