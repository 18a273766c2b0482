//! The process backend: one Python process per run, started as the leader of its own process
//! group (a job object on Windows) so a timeout, Stop everything or a cancelled call kills the
//! script and everything it started at once. It runs isolated (`-I`: no user site folder, no
//! `PYTHON*` variables, the working folder not on the path) in its own folder, with only the
//! environment it needs: never the engine's, which may hold API keys.

use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::CommandWrap;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use sentient_agent::tools::ProgressKind;

use sentient_core::programs::ChildOutput;

use crate::OutputFn;
use crate::output::Capture;

/// Puts the runner's folder on the path and hands it the script and its limits.
pub const BOOTSTRAP: &str = "import sys; sys.path.insert(0, sys.argv[1]); import sentient_tools; sys.exit(sentient_tools._main(sys.argv[2], sys.argv[3:]))";
/// After the process is gone, how long its output may still take to drain (a grandchild that
/// left the group could hold the pipes open).
const DRAIN_LIMIT: Duration = Duration::from_secs(2);

/// What one process run needs.
pub struct Launch {
    /// The program with its arguments, environment and folder set (Python itself, bubblewrap
    /// around it, or `docker run`); its input, output and process group are set here.
    pub command: tokio::process::Command,
    pub timeout: Duration,
    pub cancel: CancellationToken,
    pub on_output: Option<OutputFn>,
    pub max_chars: usize,
}

/// Python's arguments after the program: isolated, no bytecode files, unbuffered, the
/// bootstrap, the runner's folder, the script and its limits (`memory=<bytes>` and the like,
/// which the runner sets before the script runs).
pub fn python_args(
    lib_dir: &std::path::Path,
    script: &std::path::Path,
    limits: &[String],
) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = ["-I", "-B", "-u", "-c", BOOTSTRAP]
        .iter()
        .map(Into::into)
        .collect();
    args.push(lib_dir.into());
    args.push(script.into());
    args.extend(limits.iter().map(Into::into));
    args
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself; the code, or `None` when a signal ended it.
    Exited(Option<i32>),
    TimedOut,
    Cancelled,
}

/// A finished run's ending and output.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
}

/// Starts the script and waits until it ends, is timed out or is cancelled; then the whole
/// group is killed, so nothing it started outlives the run.
pub async fn run(launch: Launch) -> std::io::Result<Finished> {
    let mut command = launch.command;
    command
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
    let reader = |stream, kind| {
        tokio::spawn(read(
            stream,
            kind,
            launch.max_chars,
            launch.on_output.clone(),
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
        () = tokio::time::sleep(launch.timeout) => Ending::TimedOut,
        () = launch.cancel.cancelled() => Ending::Cancelled,
    };
    // The whole group, also after a clean exit: a background child the script left must not
    // live on. After a clean exit the group is usually empty already, so a failure says nothing.
    let killed = child.start_kill();
    if !matches!(ending, Ending::Exited(_)) {
        if let Err(error) = killed {
            tracing::warn!(%error, "a script's processes could not be killed");
        }
        child.wait().await?;
    }

    let readers = futures::future::join(out, err);
    tokio::pin!(readers);
    let (stdout, stderr) = tokio::select! {
        both = &mut readers => both,
        () = tokio::time::sleep(DRAIN_LIMIT) => {
            stop_reading.cancel();
            readers.await
        }
    };
    Ok(Finished {
        ending,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
    })
}

/// PATH, HOME, TMPDIR and LANG: enough to run, nothing secret. `workdir` is the run's folder
/// as the script sees it.
pub fn base_env(workdir: &std::path::Path) -> Vec<(String, std::ffi::OsString)> {
    let mut env = vec![
        ("HOME".to_owned(), workdir.as_os_str().to_owned()),
        ("TMPDIR".to_owned(), workdir.as_os_str().to_owned()),
        (
            "LANG".to_owned(),
            std::env::var_os("LANG")
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| "C.UTF-8".into()),
        ),
    ];
    if let Some(path) = std::env::var_os("PATH") {
        env.push(("PATH".to_owned(), path));
    }
    // Windows needs these to start a program at all, and its temp folder variables.
    #[cfg(windows)]
    {
        for name in ["SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT"] {
            if let Some(value) = std::env::var_os(name) {
                env.push((name.to_owned(), value));
            }
        }
        env.push(("TEMP".to_owned(), workdir.as_os_str().to_owned()));
        env.push(("TMP".to_owned(), workdir.as_os_str().to_owned()));
        env.push(("USERPROFILE".to_owned(), workdir.as_os_str().to_owned()));
    }
    env
}

/// Reads one stream to its end (or until `stop`), passing each kept piece on as it comes.
async fn read(
    stream: Option<ChildOutput>,
    kind: ProgressKind,
    max_chars: usize,
    on_output: Option<OutputFn>,
    stop: CancellationToken,
) -> String {
    let mut capture = Capture::new(max_chars);
    let send = |text: String| {
        if let (Some(f), false) = (&on_output, text.is_empty()) {
            f(kind, text);
        }
    };
    if let Some(mut stream) = stream {
        let mut buf = vec![0u8; 8192];
        loop {
            let got = tokio::select! {
                got = stream.read(&mut buf) => got,
                () = stop.cancelled() => break,
            };
            match got {
                Ok(0) | Err(_) => break,
                Ok(n) => send(capture.push(&buf[..n])),
            }
        }
    }
    let (text, rest) = capture.finish();
    send(rest);
    text
}
