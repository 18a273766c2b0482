//! Containment of the process backend on Linux: the script's Python runs inside bubblewrap
//! (`bwrap`), which sees the system read-only, its own folder (at [`INSIDE`]) as the only
//! place it can write, no home folder, only its own processes (a PID namespace) and no network
//! (its own, empty network namespace). It dies with Sentient, and killing bubblewrap ends every
//! process inside: the namespace's first process takes the rest with it.
//!
//! Where bubblewrap can't run, scripts don't run either (unless `sandbox.allow_uncontained`),
//! and the reason is one sentence saying what to install or turn on.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// bubblewrap's program name.
pub const PROGRAM: &str = "bwrap";
/// Where the run's folder is, seen from inside.
pub const INSIDE: &str = "/sandbox";
/// How long the probe that bubblewrap can start may take.
const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// The system folders a contained script sees, read-only, where they exist (the rest of the
/// root is an empty folder of bubblewrap's own).
const SYSTEM_FOLDERS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"];

/// Whether scripts can be contained here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Containment {
    /// bubblewrap starts: scripts run inside it.
    Bubblewrap(PathBuf),
    /// Not installed (not on the PATH).
    NotInstalled,
    /// Installed, but the system refused to start it (user namespaces turned off); what it said.
    NotAllowed(String),
    /// Not Linux: scripts run as a plain process with a clean environment.
    NotThisSystem,
}

impl Containment {
    /// Why a script was not run, for `SandboxResult.error`; `None` when scripts can be contained.
    pub fn refusal(&self) -> Option<String> {
        match self {
            Self::Bubblewrap(_) | Self::NotThisSystem => None,
            Self::NotInstalled => Some(format!(
                "Scripts run inside bubblewrap, which keeps them away from your files and the network, and it isn't installed, so the script was not run. Install it ({INSTALL}) and try again, or allow uncontained scripts in Settings > Scripts."
            )),
            Self::NotAllowed(_) => Some(format!(
                "Scripts run inside bubblewrap, which keeps them away from your files and the network, and this system doesn't let it start (user namespaces are turned off), so the script was not run. Turn them on ({TURN_ON}) and try again, or allow uncontained scripts in Settings > Scripts."
            )),
        }
    }

    /// What `GET /api/sandbox/status` says of it, `uncontained` being whether scripts run anyway
    /// (`sandbox.allow_uncontained`).
    pub fn note(&self, uncontained: bool) -> Option<String> {
        let cannot = match self {
            Self::Bubblewrap(_) => return None,
            Self::NotThisSystem => {
                return Some("On this system scripts run as a separate process with a clean environment, not contained: they can read your files and reach the internet.".to_owned());
            }
            Self::NotInstalled => {
                format!(
                    "bubblewrap isn't installed, so scripts can't be kept away from your files and the network. Install it: {INSTALL}"
                )
            }
            Self::NotAllowed(_) => format!(
                "This system doesn't let bubblewrap start (user namespaces are turned off), so scripts can't be kept away from your files and the network. Turn them on: {TURN_ON}"
            ),
        };
        Some(if uncontained {
            format!(
                "{cannot}. Until then scripts run uncontained, as you chose: they can read your files and reach the internet."
            )
        } else {
            format!("{cannot}. Until then scripts don't run.")
        })
    }

    pub fn contained(&self) -> bool {
        matches!(self, Self::Bubblewrap(_))
    }
}

/// The command that installs bubblewrap on Debian and Ubuntu.
pub const INSTALL: &str = "sudo apt install bubblewrap";
/// The commands that let it start where user namespaces are off (Debian's switch, then Ubuntu's).
pub const TURN_ON: &str = "sudo sysctl -w kernel.unprivileged_userns_clone=1 kernel.apparmor_restrict_unprivileged_userns=0";

/// Looks for bubblewrap in the folders of `path` (the engine's PATH when `None`) and checks it
/// can start a sandbox like a script's.
pub async fn check(path: Option<&OsStr>) -> Containment {
    if !cfg!(target_os = "linux") {
        return Containment::NotThisSystem;
    }
    let Some(program) = sentient_core::programs::on_path_in(PROGRAM, path) else {
        return Containment::NotInstalled;
    };
    let probe = tokio::process::Command::new(&program)
        .args(namespace_args())
        .args(["--ro-bind", "/", "/", "--", "/bin/true"])
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(PROBE_LIMIT, probe).await {
        Ok(Ok(out)) if out.status.success() => Containment::Bubblewrap(program),
        Ok(Ok(out)) => {
            Containment::NotAllowed(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
        Ok(Err(error)) => Containment::NotAllowed(error.to_string()),
        Err(_) => Containment::NotAllowed("it did not answer within 5 seconds".to_owned()),
    }
}

/// The namespaces a script gets: its own users (no capability outside), processes, network,
/// mounts, host name and message queues.
fn namespace_args() -> [&'static str; 3] {
    ["--unshare-all", "--unshare-user", "--die-with-parent"]
}

/// What one contained run needs.
pub struct Jail<'a> {
    /// The run's folder outside; it is [`INSIDE`] within.
    pub workdir: &'a Path,
    /// The interpreter's own folder when it is outside the system folders (a Python installed
    /// under /opt, say), shown read-only.
    pub python_prefix: Option<&'a Path>,
}

/// bubblewrap's arguments up to the program it runs (which follows them).
pub fn args(jail: &Jail<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = namespace_args().iter().map(OsString::from).collect();
    // No signals or terminal tricks towards Sentient's session; and no capability even where
    // Sentient runs as root.
    for flag in ["--new-session", "--cap-drop", "ALL"] {
        args.push(flag.into());
    }
    for folder in SYSTEM_FOLDERS {
        let path = Path::new(folder);
        // /bin, /lib and the like are links to /usr on merged systems: the link, not a copy.
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(path) {
                    args.extend(["--symlink".into(), target.into_os_string(), path.into()]);
                }
            }
            Ok(_) => args.extend(["--ro-bind".into(), path.into(), path.into()]),
            Err(_) => {}
        }
    }
    if let Some(prefix) = jail.python_prefix
        && !prefix.as_os_str().is_empty()
        && !SYSTEM_FOLDERS.iter().any(|f| prefix.starts_with(f))
    {
        args.extend(["--ro-bind".into(), prefix.into(), prefix.into()]);
    }
    for (flag, path) in [("--dev", "/dev"), ("--proc", "/proc"), ("--tmpfs", "/tmp")] {
        args.extend([flag.into(), path.into()]);
    }
    args.extend([
        "--bind".into(),
        jail.workdir.into(),
        INSIDE.into(),
        "--chdir".into(),
        INSIDE.into(),
        "--".into(),
    ]);
    args
}

/// The run's folder as the script sees it: `path` (inside the workdir) moved under [`INSIDE`].
pub fn inside(workdir: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(workdir) {
        Ok(rest) if rest.as_os_str().is_empty() => PathBuf::from(INSIDE),
        Ok(rest) => Path::new(INSIDE).join(rest),
        Err(_) => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_jail_shows_the_system_read_only_and_only_its_folder_writable() {
        let args = pairs(&args(&Jail {
            workdir: Path::new("/home/me/.sentient/sandbox/run1"),
            python_prefix: Some(Path::new("/opt/python3.12")),
        }));
        let joined = args.join(" ");
        for needed in [
            "--unshare-all",
            "--unshare-user",
            "--die-with-parent",
            "--new-session",
            "--cap-drop ALL",
            "--proc /proc",
            "--dev /dev",
            "--tmpfs /tmp",
            "--ro-bind /usr /usr",
            "--ro-bind /opt/python3.12 /opt/python3.12",
            "--bind /home/me/.sentient/sandbox/run1 /sandbox --chdir /sandbox --",
        ] {
            assert!(joined.contains(needed), "{needed} missing in {joined}");
        }
        // The only writable place is the run's folder; nothing of the home is shown.
        assert_eq!(args.iter().filter(|a| *a == "--bind").count(), 1);
        assert!(!joined.contains("--share-net"));
        assert!(!args.iter().any(|a| a == "/home" || a == "/root"));
        assert_eq!(args.last().map(String::as_str), Some("--"));
        // A Python in a system folder adds nothing.
        let plain = pairs(&args_for_prefix("/usr"));
        assert!(!plain.iter().any(|a| a == "/usr/local"));
    }

    fn args_for_prefix(prefix: &str) -> Vec<OsString> {
        args(&Jail {
            workdir: Path::new("/w"),
            python_prefix: Some(Path::new(prefix)),
        })
    }

    #[test]
    fn paths_in_the_folder_are_seen_under_sandbox() {
        assert_eq!(
            inside(
                Path::new("/h/run1"),
                Path::new("/h/run1/.sentient/script.py")
            ),
            PathBuf::from("/sandbox/.sentient/script.py")
        );
        assert_eq!(
            inside(Path::new("/h/run1"), Path::new("/h/run1")),
            PathBuf::from("/sandbox")
        );
    }

    #[test]
    fn each_reason_is_one_sentence_with_what_to_do() {
        let missing = Containment::NotInstalled.refusal().unwrap_or_default();
        assert!(missing.contains("sudo apt install bubblewrap"), "{missing}");
        assert!(missing.contains("was not run"), "{missing}");
        let refused = Containment::NotAllowed("no".into())
            .refusal()
            .unwrap_or_default();
        assert!(refused.contains("sysctl"), "{refused}");
        assert_eq!(Containment::Bubblewrap("b".into()).refusal(), None);
        assert_eq!(Containment::Bubblewrap("b".into()).note(false), None);
        let note = Containment::NotInstalled.note(false).unwrap_or_default();
        assert!(note.ends_with("Until then scripts don't run."), "{note}");
        let chosen = Containment::NotInstalled.note(true).unwrap_or_default();
        assert!(chosen.contains("as you chose"), "{chosen}");
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn without_bubblewrap_on_the_path_it_is_not_installed() {
        let empty = tempfile::tempdir().expect("a folder");
        assert_eq!(
            check(Some(empty.path().as_os_str())).await,
            Containment::NotInstalled
        );
    }
}
