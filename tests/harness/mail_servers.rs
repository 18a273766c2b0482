//! Real mail servers for tests, on loopback with free ports:
//!
//! - [`Dovecot`]: Debian's Dovecot (`dovecot-imapd`) run unprivileged, IMAP over implicit TLS
//!   with a self-signed certificate made here (rcgen), a passwd-file user and a Maildir in a
//!   temporary folder. As root it runs as `nobody` (Dovecot never gives mail access to root);
//!   otherwise as the current user.
//! - [`SmtpSink`]: aiosmtpd (PyPI, from `<repo>/.venv-tests/`), plain SMTP that accepts any
//!   sign-in and keeps every message as a file.
//!
//! Both stop when dropped, and also when the test process dies (each watches its stdin).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// How long a server may take to accept connections.
const READY_WAIT: Duration = Duration::from_secs(10);
/// Tries with a new port when another process took the free one first.
const PORT_TRIES: usize = 5;

static DELIVERY: AtomicU64 = AtomicU64::new(0);

/// Dovecot's capabilities after sign-in, as 2.3 announces them, without IDLE.
const CAPABILITIES_WITHOUT_IDLE: &str = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE SORT \
SORT=DISPLAY THREAD=REFERENCES THREAD=REFS THREAD=ORDEREDSUBJECT MULTIAPPEND URL-PARTIAL CATENATE \
UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED I18NLEVEL=1 CONDSTORE QRESYNC ESEARCH ESORT \
SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS BINARY MOVE LITERAL+ SPECIAL-USE";

/// How often a bounded wait (a port accepting, a process exiting) checks again.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// A running Dovecot with one user.
pub struct Dovecot {
    /// Implicit TLS (like 993).
    pub port: u16,
    /// Plain IMAP that must be upgraded with STARTTLS before signing in (like 143).
    pub starttls_port: u16,
    pub user: String,
    pub password: String,
    /// The server's self-signed certificate (trust it to connect).
    pub cert_pem: String,
    dir: tempfile::TempDir,
    child: Child,
    stdin: Option<ChildStdin>,
    /// The account Dovecot runs as, when it differs from ours (we are root).
    owner: Option<(u32, u32)>,
    maildir: PathBuf,
    log: PathBuf,
}

impl Dovecot {
    /// Whether the `dovecot` binary is installed (Debian: `dovecot-imapd`).
    pub fn available() -> bool {
        dovecot_binary().is_some()
    }

    /// Starts Dovecot on 127.0.0.1 with free ports (implicit TLS on `port`, STARTTLS on
    /// `starttls_port`), a self-signed certificate for 127.0.0.1/localhost, the user `alice` and the
    /// given folders (INBOX always exists; `Sent`, `Drafts`, `Trash`, `Junk` and `Archive` get
    /// their special-use flag). Without `idle`, IDLE is left out of the capabilities.
    pub fn start(idle: bool, folders: &[&str]) -> Result<Self> {
        let binary =
            dovecot_binary().context("dovecot is not installed (apt-get install dovecot-imapd)")?;
        let as_root = process_uid()? == 0;
        // As root, Dovecot runs as `nobody`, which must be able to reach the folder.
        let dir = if as_root {
            tempfile::Builder::new()
                .prefix("sentient-dovecot-")
                .tempdir_in("/tmp")?
        } else {
            tempfile::Builder::new()
                .prefix("sentient-dovecot-")
                .tempdir()?
        };
        let root = dir.path().to_path_buf();
        let (uid, gid) = if as_root {
            passwd_ids("nobody").unwrap_or((65534, 65534))
        } else {
            let meta = fs::metadata(&root)?;
            (meta.uid(), meta.gid())
        };
        let user_name = name_for_id("/etc/passwd", uid)
            .or_else(|| if as_root { None } else { id_output("-un") })
            .with_context(|| format!("no user name for uid {uid} (Dovecot needs one)"))?;
        let group_name = name_for_id("/etc/group", gid)
            .or_else(|| if as_root { None } else { id_output("-gn") })
            .with_context(|| format!("no group name for gid {gid} (Dovecot needs one)"))?;

        let user = "alice".to_string();
        let password = format!("pw-{}-{}", std::process::id(), next_delivery());

        let cert = rcgen::generate_simple_self_signed(vec![
            "127.0.0.1".to_string(),
            "localhost".to_string(),
        ])?;
        let cert_pem = cert.cert.pem();
        let cert_path = root.join("cert.pem");
        let key_path = root.join("key.pem");
        fs::write(&cert_path, &cert_pem)?;
        fs::write(&key_path, cert.signing_key.serialize_pem())?;

        let home = root.join("home");
        let maildir = home.join("Maildir");
        let mut mailboxes = String::new();
        make_maildir(&maildir)?;
        for folder in folders {
            if folder.eq_ignore_ascii_case("INBOX") {
                continue;
            }
            make_maildir(&maildir.join(maildir_name(folder)?))?;
            fs::write(
                maildir.join(maildir_name(folder)?).join("maildirfolder"),
                "",
            )?;
            let special = match *folder {
                "Sent" => "    special_use = \\Sent\n",
                "Drafts" => "    special_use = \\Drafts\n",
                "Trash" => "    special_use = \\Trash\n",
                "Junk" => "    special_use = \\Junk\n",
                "Archive" => "    special_use = \\Archive\n",
                _ => "",
            };
            mailboxes.push_str(&format!(
                "  mailbox \"{folder}\" {{\n    auto = subscribe\n{special}  }}\n"
            ));
        }
        let passwd = root.join("passwd");
        fs::write(
            &passwd,
            format!(
                "{user}:{{PLAIN}}{password}:{uid}:{gid}::{}::\n",
                home.display()
            ),
        )?;
        fs::create_dir_all(root.join("run"))?;
        fs::create_dir_all(root.join("state"))?;
        let log = root.join("dovecot.log");

        let owner = as_root.then_some((uid, gid));
        let mut last_error = None;
        for _ in 0..PORT_TRIES {
            let port = free_port()?;
            let starttls_port = free_port()?;
            let capability = if idle {
                String::new()
            } else {
                format!("imap_capability = {CAPABILITIES_WITHOUT_IDLE}\n")
            };
            let config = format!(
                r#"# Written by the test harness (tests/harness/mail_servers.rs).
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
instance_name = sentient-test-{port}
log_path = {log}
info_log_path = {log}
default_internal_user = {user_name}
default_internal_group = {group_name}
default_login_user = {user_name}
first_valid_uid = 1
first_valid_gid = 1
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
auth_mechanisms = plain login
# "alice@example.com" signs in as alice, as with most providers.
auth_username_format = %Ln
mail_location = maildir:~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1 secs
{capability}passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {passwd}
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {passwd}
}}
namespace inbox {{
  inbox = yes
  separator = /
{mailboxes}}}
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {starttls_port}
  }}
  inet_listener imaps {{
    port = {port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
"#,
                root = root.display(),
                log = log.display(),
                cert = cert_path.display(),
                key = key_path.display(),
                passwd = passwd.display(),
            );
            let config_path = root.join("dovecot.conf");
            fs::write(&config_path, config)?;
            if let Some((uid, gid)) = owner {
                chown_tree(&root, uid, gid)?;
            }
            let _ = fs::remove_file(&log);
            let stderr_path = root.join("stderr.log");
            let stderr = fs::File::create(&stderr_path)?;

            // The shell ends Dovecot when our end of its stdin closes (we dropped it or died),
            // and exits with Dovecot's status.
            let mut command = Command::new("sh");
            command
                .arg("-c")
                .arg(
                    r#"exec 3<&0
"$1" -F -c "$2" </dev/null 3<&- &
pid=$!
(cat <&3 >/dev/null; kill -TERM "$pid" 2>/dev/null) &
exec 3<&-
wait "$pid""#,
                )
                .arg("sh")
                .arg(&binary)
                .arg(&config_path)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(stderr)
                .process_group(0);
            if let Some((uid, gid)) = owner {
                command.uid(uid).gid(gid);
            }
            let mut child = command.spawn().context("starting dovecot")?;
            let stdin = child.stdin.take();
            match wait_for_port(&mut child, port)
                .and_then(|()| wait_for_port(&mut child, starttls_port))
            {
                Ok(()) => {
                    return Ok(Self {
                        port,
                        starttls_port,
                        user,
                        password,
                        cert_pem,
                        dir,
                        child,
                        stdin,
                        owner,
                        maildir,
                        log,
                    });
                }
                Err(e) => {
                    drop(stdin);
                    stop_group(&mut child);
                    let mut output = fs::read_to_string(&log).unwrap_or_default();
                    output.push_str(&fs::read_to_string(&stderr_path).unwrap_or_default());
                    if output.contains("Address already in use") {
                        last_error = Some(e.context(output));
                        continue;
                    }
                    return Err(e.context(format!("dovecot did not start:\n{output}")));
                }
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow::anyhow!("dovecot found no free port")))
    }

    /// Delivers a raw message into `folder` as new mail (written into the Maildir's tmp/, then
    /// renamed into new/, as a delivery agent does, so IDLE sees it).
    pub fn deliver(&self, folder: &str, raw: &str) -> Result<()> {
        self.place(folder, raw, "new", "", None)
    }

    /// Stores a raw message in `folder` as seen mail received at `received` (the file's time
    /// is the message's IMAP internal date, which `SINCE` and `BEFORE` search).
    pub fn deliver_received(
        &self,
        folder: &str,
        raw: &str,
        received: std::time::SystemTime,
    ) -> Result<()> {
        self.place(folder, raw, "cur", ":2,S", Some(received))
    }

    /// Stores a raw message in `folder` as already-seen mail with Maildir flags (`S` seen,
    /// `F` flagged, `R` replied…), e.g. `"FS"`.
    pub fn deliver_with_flags(&self, folder: &str, raw: &str, flags: &str) -> Result<()> {
        let mut sorted: Vec<char> = flags.chars().collect();
        sorted.sort_unstable();
        let suffix: String = sorted.into_iter().collect();
        self.place(folder, raw, "cur", &format!(":2,{suffix}"), None)
    }

    /// Dovecot's log so far (for failure messages).
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The temporary folder holding the configuration, certificate and Maildir.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn place(
        &self,
        folder: &str,
        raw: &str,
        sub: &str,
        suffix: &str,
        received: Option<std::time::SystemTime>,
    ) -> Result<()> {
        let folder_dir = if folder.eq_ignore_ascii_case("INBOX") {
            self.maildir.clone()
        } else {
            self.maildir.join(maildir_name(folder)?)
        };
        if !folder_dir.join("tmp").is_dir() {
            bail!("the test server has no folder {folder}");
        }
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
        let name = format!(
            "{}.M{}P{}Q{}.sentient-test",
            now.as_secs(),
            now.subsec_micros(),
            std::process::id(),
            next_delivery()
        );
        let tmp = folder_dir.join("tmp").join(&name);
        {
            let mut file = fs::File::create(&tmp)?;
            file.write_all(raw.as_bytes())?;
            if let Some(received) = received {
                file.set_modified(received)?;
            }
            file.sync_all()?;
        }
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(&tmp, Some(uid), Some(gid))?;
        }
        fs::rename(&tmp, folder_dir.join(sub).join(format!("{name}{suffix}")))?;
        Ok(())
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        self.stdin.take();
        stop_group(&mut self.child);
    }
}

/// A plain SMTP server (aiosmtpd) that accepts every sign-in (except the password
/// [`SmtpSink::REJECTED_PASSWORD`]) and every message, keeping each as a file.
pub struct SmtpSink {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Child,
    stdin: Option<ChildStdin>,
}

impl SmtpSink {
    /// The one password the sink refuses (to test a wrong password).
    pub const REJECTED_PASSWORD: &'static str = "wrong-password";

    /// Whether the tests' Python environment has aiosmtpd (`tests/setup/lib.sh` installs it).
    pub fn available() -> bool {
        let Some(python) = venv_python() else {
            return false;
        };
        Command::new(python)
            .args(["-c", "import aiosmtpd"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Starts the sink on 127.0.0.1 with a free port.
    pub fn start() -> Result<Self> {
        let python = venv_python().context(
            "no .venv-tests/bin/python with aiosmtpd (run tests/setup's install, or set SENTIENT_TEST_PYTHON)",
        )?;
        let dir = tempfile::Builder::new()
            .prefix("sentient-smtp-")
            .tempdir()?;
        let script = dir.path().join("sink.py");
        fs::write(&script, SINK_PY)?;
        let inbox = dir.path().join("received");
        fs::create_dir_all(&inbox)?;
        let mut last_error = None;
        for _ in 0..PORT_TRIES {
            let port = free_port()?;
            let stderr_path = dir.path().join("stderr.log");
            let stderr = fs::File::create(&stderr_path)?;
            let mut child = Command::new(&python)
                .arg(&script)
                .arg(port.to_string())
                .arg(&inbox)
                .arg(Self::REJECTED_PASSWORD)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(stderr)
                .process_group(0)
                .spawn()
                .context("starting aiosmtpd")?;
            let stdin = child.stdin.take();
            let ready = child.stdout.take().map(|out| {
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let mut line = String::new();
                    let _ = BufReader::new(out).read_line(&mut line);
                    let _ = tx.send(line);
                });
                rx
            });
            let line = ready.and_then(|rx| rx.recv_timeout(READY_WAIT * 2).ok());
            if line.as_deref().map(str::trim) == Some("READY") {
                return Ok(Self {
                    port,
                    dir,
                    child,
                    stdin,
                });
            }
            drop(stdin);
            stop_group(&mut child);
            let errors = fs::read_to_string(&stderr_path).unwrap_or_default();
            if errors.contains("already in use") || errors.contains("Errno 98") {
                last_error = Some(anyhow::anyhow!("port {port} was taken: {errors}"));
                continue;
            }
            bail!("aiosmtpd did not start: {errors}");
        }
        Err(last_error.unwrap_or_else(|| anyhow::anyhow!("aiosmtpd found no free port")))
    }

    /// Every message received so far, oldest first, as sent (headers and body).
    pub fn received(&self) -> Vec<String> {
        self.files("eml")
            .into_iter()
            .filter_map(|p| fs::read(p).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect()
    }

    /// The envelopes of the messages received so far: `{mail_from, rcpt_tos, login}`.
    pub fn envelopes(&self) -> Vec<serde_json::Value> {
        self.files("json")
            .into_iter()
            .filter_map(|p| fs::read(p).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect()
    }

    fn files(&self, ext: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = fs::read_dir(self.dir.path().join("received"))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == ext))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.stdin.take();
        stop_group(&mut self.child);
    }
}

/// The sink: aiosmtpd's Controller on 127.0.0.1, AUTH allowed without TLS (loopback only),
/// each message written as msg-N.eml (plus msg-N.json with the envelope), then READY; it stops
/// when its stdin closes.
const SINK_PY: &str = r#"
import json, os, sys, threading
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

port, out, rejected = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()
count = [0]

class Sink:
    async def handle_DATA(self, server, session, envelope):
        with lock:
            count[0] += 1
            base = os.path.join(out, "msg-%05d" % count[0])
        login = session.auth_data
        if isinstance(login, bytes):
            login = login.decode("utf-8", "replace")
        elif login is not None:
            login = str(login)
        with open(base + ".json.tmp", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos, "login": login}, f)
        os.rename(base + ".json.tmp", base + ".json")
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 OK: kept"

def authenticator(server, session, envelope, mechanism, auth_data):
    if isinstance(auth_data, LoginPassword):
        if auth_data.password.decode("utf-8", "replace") == rejected:
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=auth_data.login)
    return AuthResult(success=True)

controller = Controller(Sink(), hostname="127.0.0.1", port=port, authenticator=authenticator,
                        auth_require_tls=False, auth_required=False, ready_timeout=10)
controller.start()
print("READY", flush=True)
try:
    sys.stdin.read()
finally:
    controller.stop()
"#;

fn next_delivery() -> u64 {
    DELIVERY.fetch_add(1, Ordering::Relaxed)
}

/// A port that was free a moment ago (bind to 0, read it, let it go).
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// Waits until `port` accepts connections, failing early when the server exits.
fn wait_for_port(child: &mut Child, port: u16) -> Result<()> {
    let deadline = Instant::now() + READY_WAIT;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("the server exited ({status}) before accepting connections on {port}");
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("nothing accepted connections on port {port} within {READY_WAIT:?}");
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Ends a child started as the leader of its own process group, with everything it started:
/// SIGTERM, then SIGKILL after 5 s.
fn stop_group(child: &mut Child) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        signal_group(child.id(), "-KILL");
        return;
    }
    signal_group(child.id(), "-TERM");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            // Leftovers in the group (the stdin watcher) go too.
            signal_group(child.id(), "-KILL");
            return;
        }
        std::thread::sleep(POLL_INTERVAL);
    }
    signal_group(child.id(), "-KILL");
    let _ = child.kill();
    let _ = child.wait();
}

fn signal_group(pid: u32, signal: &str) {
    let _ = Command::new("kill")
        .arg(signal)
        .arg("--")
        .arg(format!("-{pid}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn dovecot_binary() -> Option<PathBuf> {
    let from_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    from_path
        .into_iter()
        .chain(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join("dovecot"))
        .find(|p| p.is_file())
}

/// `<repo>/.venv-tests/bin/python`, found from this file's and the crate's folders (or
/// `SENTIENT_TEST_PYTHON`).
fn venv_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SENTIENT_TEST_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let mut starts = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    let this_file = PathBuf::from(file!());
    if this_file.is_absolute() {
        starts.push(this_file);
    }
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    starts.iter().find_map(|start| {
        start
            .ancestors()
            .map(|a| a.join(".venv-tests/bin/python"))
            .find(|p| p.exists())
    })
}

/// The effective uid of this process (the owner of a file it creates).
fn process_uid() -> Result<u32> {
    let probe = tempfile::NamedTempFile::new()?;
    Ok(probe.as_file().metadata()?.uid())
}

/// uid and gid of a user in /etc/passwd.
fn passwd_ids(user: &str) -> Option<(u32, u32)> {
    let passwd = fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.len() > 3 && fields[0] == user {
            Some((fields[2].parse().ok()?, fields[3].parse().ok()?))
        } else {
            None
        }
    })
}

/// The name for a numeric id in /etc/passwd or /etc/group.
fn name_for_id(file: &str, id: u32) -> Option<String> {
    let text = fs::read_to_string(file).ok()?;
    text.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 2 && fields[2].parse::<u32>().ok() == Some(id))
            .then(|| fields[0].to_string())
    })
}

fn id_output(flag: &str) -> Option<String> {
    let out = Command::new("id").arg(flag).output().ok()?;
    let name = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !name.is_empty()).then_some(name)
}

/// The Maildir++ folder for a mailbox name: `Receipts` → `.Receipts`, `A/B` → `.A.B`.
fn maildir_name(folder: &str) -> Result<String> {
    if folder.is_empty()
        || !folder.is_ascii()
        || folder.contains('.')
        || folder.starts_with('/')
        || folder.ends_with('/')
    {
        bail!("the test server can't make a folder named {folder:?} (ASCII without dots only)");
    }
    Ok(format!(".{}", folder.replace('/', ".")))
}

fn make_maildir(path: &Path) -> Result<()> {
    for sub in ["cur", "new", "tmp"] {
        fs::create_dir_all(path.join(sub))?;
    }
    Ok(())
}

fn chown_tree(path: &Path, uid: u32, gid: u32) -> Result<()> {
    std::os::unix::fs::chown(path, Some(uid), Some(gid))
        .with_context(|| format!("chown {}", path.display()))?;
    if path.is_dir() {
        for entry in fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}
