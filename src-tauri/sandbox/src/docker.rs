//! The Docker backend: a script runs in `sandbox.docker_image` with only its folder mounted,
//! limits on memory, processor and processes, no capabilities, no new privileges and, unless
//! `sandbox.allow_network_in_docker`, no network. It reaches Sentient's tools through request
//! files in its folder ([`crate::request_files`]), which work on every system Docker runs on
//! and need no port of Sentient's open to containers.

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::containment::INSIDE;

/// Docker's program name.
pub const PROGRAM: &str = "docker";
/// How long `docker kill` may take after a timeout or a stop.
const KILL_LIMIT: Duration = Duration::from_secs(10);

pub const NOT_INSTALLED: &str = "Scripts are set to run in Docker, and Docker isn't installed, so the script was not run. Install Docker, or choose Auto or Process in Settings > Scripts.";
pub const NOT_RUNNING: &str = "Scripts are set to run in Docker, and Docker isn't running, so the script was not run. Start Docker, or choose Auto or Process in Settings > Scripts.";

/// One run's container.
pub struct Container<'a> {
    /// `sentient-script-<run id>`: the name `docker kill` uses.
    pub name: &'a str,
    pub image: &'a str,
    /// The run's folder, mounted at [`INSIDE`].
    pub workdir: &'a Path,
    pub memory_mb: u32,
    pub cpus: f64,
    pub max_processes: u32,
    pub network: bool,
    /// The user and group the script runs as (the folder's owner, so Sentient can remove
    /// what it writes); `None` keeps the image's user.
    pub user: Option<(u32, u32)>,
    /// Variables the script sees (the container has nothing of Sentient's environment).
    pub env: &'a [(String, OsString)],
}

/// `docker` arguments up to the program the container runs (which follows them).
pub fn args(container: &Container<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    let memory = format!("{}m", container.memory_mb);
    let cpus = format!("{}", container.cpus);
    let pids = container.max_processes.to_string();
    push(&["run", "--rm", "--init", "--name", container.name]);
    push(&["--memory", &memory, "--memory-swap", &memory]);
    push(&["--cpus", &cpus, "--pids-limit", &pids]);
    push(&["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]);
    push(&["--read-only", "--tmpfs", "/tmp"]);
    if container.network {
        push(&["--add-host", "host.docker.internal:host-gateway"]);
    } else {
        push(&["--network", "none"]);
    }
    if let Some((uid, gid)) = container.user {
        let user = format!("{uid}:{gid}");
        push(&["--user", &user]);
    }
    let mut mount = OsString::from(container.workdir);
    mount.push(format!(":{INSIDE}"));
    args.push("--volume".into());
    args.push(mount);
    args.extend(["--workdir".into(), INSIDE.into()]);
    for (name, value) in container.env {
        let mut pair = OsString::from(format!("{name}="));
        pair.push(value);
        args.extend(["--env".into(), pair]);
    }
    args.push(container.image.into());
    args.push("python3".into());
    args
}

/// The folder's owner, who the script runs as.
pub fn owner_of(folder: &Path) -> Option<(u32, u32)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(folder).ok().map(|m| (m.uid(), m.gid()))
    }
    #[cfg(not(unix))]
    {
        let _ = folder;
        None
    }
}

/// Ends a container after a timeout or a stop: killing the `docker run` client leaves the
/// container running.
pub async fn kill(docker: &Path, name: &str) {
    let killed = tokio::process::Command::new(docker)
        .args(["kill", name])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .status();
    match tokio::time::timeout(KILL_LIMIT, killed).await {
        Ok(Ok(_)) => {}
        Ok(Err(error)) => tracing::warn!(%error, name, "a script's container could not be killed"),
        Err(_) => tracing::warn!(name, "killing a script's container took too long"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_gets_limits_no_capabilities_and_no_network() {
        let env = vec![("HOME".to_owned(), OsString::from("/sandbox"))];
        let container = Container {
            name: "sentient-script-r1",
            image: "python:3.12-slim",
            workdir: Path::new("/home/me/.sentient/sandbox/r1"),
            memory_mb: 512,
            cpus: 1.5,
            max_processes: 64,
            network: false,
            user: Some((1000, 1000)),
            env: &env,
        };
        let words: Vec<String> = args(&container)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            words,
            [
                "run",
                "--rm",
                "--init",
                "--name",
                "sentient-script-r1",
                "--memory",
                "512m",
                "--memory-swap",
                "512m",
                "--cpus",
                "1.5",
                "--pids-limit",
                "64",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "--read-only",
                "--tmpfs",
                "/tmp",
                "--network",
                "none",
                "--user",
                "1000:1000",
                "--volume",
                "/home/me/.sentient/sandbox/r1:/sandbox",
                "--workdir",
                "/sandbox",
                "--env",
                "HOME=/sandbox",
                "python:3.12-slim",
                "python3",
            ]
        );
        let networked = Container {
            network: true,
            ..container
        };
        let words: Vec<String> = args(&networked)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!words.contains(&"none".to_owned()));
        assert!(words.contains(&"host.docker.internal:host-gateway".to_owned()));
    }
}
