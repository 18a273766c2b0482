//! The checks `terminal_run` makes before it runs anything (contract section 18), all pure: the
//! built-in blocklist that no setting overrides ([`blocked`]), the listed commands that run
//! without asking ([`is_listed`]) and the folder a command runs in ([`resolve_folder`]).
//!
//! The blocklist reads a command the way POSIX shells and PowerShell would (and cmd.exe on
//! Windows), looks at every simple command in it, including the ones inside `$( )`, backticks,
//! `bash -c "…"`, `cmd /c …` and `powershell -Command …`, and skips prefixes such as `sudo`,
//! `env` or `nohup`. Where the readings disagree, any one of them that matches blocks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The longest command `terminal_run` accepts, in characters.
pub const MAX_COMMAND_CHARS: usize = 8000;

/// The kinds of commands Sentient never runs, whatever the settings say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Formatting, wiping or repartitioning disks.
    FormatDisk,
    /// Shutting down, restarting, suspending or signing out.
    PowerOff,
    /// Deleting from the Windows registry.
    Registry,
    /// Deleting or re-owning a whole drive, a system folder or a home folder.
    WholeDrive,
    /// Deleting backups, shadow copies, restore points or snapshots.
    Backups,
    /// Changing how the computer boots.
    BootSettings,
    /// A process that copies itself until the computer freezes.
    ForkBomb,
}

impl BlockKind {
    pub const ALL: [BlockKind; 7] = [
        BlockKind::FormatDisk,
        BlockKind::PowerOff,
        BlockKind::Registry,
        BlockKind::WholeDrive,
        BlockKind::Backups,
        BlockKind::BootSettings,
        BlockKind::ForkBomb,
    ];

    /// A short plain phrase for the kind, e.g. "formatting or wiping disks".
    pub fn describe(self) -> &'static str {
        match self {
            BlockKind::FormatDisk => "formatting or wiping disks",
            BlockKind::PowerOff => "shutting down, restarting or signing out",
            BlockKind::Registry => "deleting from the Windows registry",
            BlockKind::WholeDrive => {
                "deleting or re-owning a whole drive, system folder or home folder"
            }
            BlockKind::Backups => "deleting backups",
            BlockKind::BootSettings => "changing boot settings",
            BlockKind::ForkBomb => "fork bombs",
        }
    }
}

/// The one sentence the person (and the model) reads when a command was blocked.
pub fn refusal(kind: BlockKind) -> String {
    let what = match kind {
        BlockKind::FormatDisk => "commands that format or wipe disks",
        BlockKind::PowerOff => "commands that shut down, restart or sign out of the computer",
        BlockKind::Registry => "commands that delete from the Windows registry",
        BlockKind::WholeDrive => {
            "commands that delete or take over a whole drive, a system folder or a home folder"
        }
        BlockKind::Backups => "commands that delete backups, shadow copies or restore points",
        BlockKind::BootSettings => "commands that change how the computer boots",
        BlockKind::ForkBomb => "fork bombs, which copy themselves until the computer freezes",
    };
    format!("Sentient never runs {what}, so this command was not run.")
}

/// Which blocklist kind `command` falls under, if any.
pub fn blocked(command: &str) -> Option<BlockKind> {
    // cmd.exe only runs commands on Windows; elsewhere its quoting rules would only add false
    // alarms (it ignores single quotes)
    let shells: &[Syntax] = if cfg!(windows) {
        &[Syntax::Posix, Syntax::PowerShell, Syntax::Cmd]
    } else {
        &[Syntax::Posix, Syntax::PowerShell]
    };
    Scan::new(shells).line(command, 0)
}

// ---------------------------------------------------------------------------------------------
// Listed commands

const FORBIDDEN_CHARS: [char; 13] = [
    ';', '&', '|', '<', '>', '`', '$', '(', ')', '{', '}', '\n', '\r',
];

/// Options that make a read-only command write files or run programs, each with the shortest
/// abbreviation that must count too (git takes unambiguous abbreviations of long options;
/// `--text` is an option of its own).
const FORBIDDEN_OPTIONS: [(&str, usize); 4] = [
    ("--output", 5),
    ("--exec", 5),
    ("--ext-diff", 5),
    ("--textconv", 7),
];

/// Whether `command` is one of the commands the person listed to run without asking: it equals a
/// listed prefix or starts with it and a space, and holds nothing that could chain, redirect or
/// substitute another command.
pub fn is_listed(command: &str, allowed_commands: &[String], windows: bool) -> bool {
    let command = command.trim();
    if command.is_empty() || command.contains(FORBIDDEN_CHARS) || has_forbidden_option(command) {
        return false;
    }
    let fold = |text: &str| {
        let text = squeeze_spaces(text);
        if windows { text.to_lowercase() } else { text }
    };
    let command = fold(command);
    allowed_commands
        .iter()
        .map(|prefix| fold(prefix))
        .filter(|prefix| !prefix.is_empty())
        .any(|prefix| {
            command == prefix
                || command
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|rest| rest.starts_with(' '))
        })
}

fn has_forbidden_option(command: &str) -> bool {
    let lower = command.to_lowercase();
    if FORBIDDEN_OPTIONS
        .iter()
        .any(|(option, _)| lower.contains(option))
    {
        return true;
    }
    lower.split_whitespace().any(|word| {
        let name = word.split('=').next().unwrap_or(word);
        FORBIDDEN_OPTIONS
            .iter()
            .any(|(option, shortest)| name.len() >= *shortest && option.starts_with(name))
    })
}

/// Trims and turns runs of spaces and tabs into one space, as the shell reads them.
fn squeeze_spaces(text: &str) -> String {
    text.split([' ', '\t'])
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// The folder a command runs in

const NO_FOLDER: &str = "No folder is allowed for commands yet. Add one in Settings > Terminal.";

/// The folder a command runs in: `cwd` when given (absolute, `~/…`, or relative to the default
/// folder), else the default folder (`default_folder`, or the first allowed folder when that is
/// empty). Links are followed, and the result must be an existing folder inside one of
/// `allowed_folders`.
pub fn resolve_folder(
    cwd: Option<&str>,
    default_folder: &str,
    allowed_folders: &[String],
) -> Result<PathBuf, String> {
    let listed: Vec<&str> = allowed_folders
        .iter()
        .map(|folder| folder.trim())
        .filter(|folder| !folder.is_empty())
        .collect();
    let Some(first) = listed.first() else {
        return Err(NO_FOLDER.to_string());
    };
    // a listed folder that is gone (or not a full path) allows nothing
    let allowed: Vec<PathBuf> = listed
        .iter()
        .filter_map(|folder| expand_home(folder).ok())
        .filter(|folder| folder.is_absolute())
        .filter_map(|folder| std::fs::canonicalize(folder).ok())
        .filter(|folder| folder.is_dir())
        .map(plain)
        .collect();
    if allowed.is_empty() {
        return Err(format!(
            "None of the folders allowed in Settings > Terminal ({}) exists on this computer.",
            listed.join(", ")
        ));
    }

    let base = || {
        let folder = match default_folder.trim() {
            "" => *first,
            folder => folder,
        };
        let path = expand_home(folder)?;
        if path.is_absolute() {
            Ok(path)
        } else {
            Err(format!(
                "The folder {folder} in Settings > Terminal is not a full path."
            ))
        }
    };
    let wanted = match cwd.map(str::trim).filter(|cwd| !cwd.is_empty()) {
        None => base()?,
        Some(cwd) => {
            let path = expand_home(cwd)?;
            if path.is_absolute() {
                path
            } else {
                base()?.join(path)
            }
        }
    };

    let resolved = std::fs::canonicalize(&wanted).map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            format!("The folder {} doesn't exist.", shown(&wanted))
        } else {
            format!("The folder {} can't be opened ({error}).", shown(&wanted))
        }
    })?;
    let resolved = plain(resolved);
    if !resolved.is_dir() {
        return Err(format!("{} is a file, not a folder.", shown(&resolved)));
    }
    if !allowed.iter().any(|folder| inside(&resolved, folder)) {
        return Err(format!(
            "Commands may only run inside the folders allowed in Settings > Terminal ({}); {} is outside them.",
            listed.join(", "),
            shown(&resolved)
        ));
    }
    Ok(resolved)
}

/// Where a command without `cwd` would start, or `None` when none can.
pub fn default_folder(default_folder: &str, allowed_folders: &[String]) -> Option<PathBuf> {
    resolve_folder(None, default_folder, allowed_folders).ok()
}

fn home_folder() -> Result<PathBuf, String> {
    let names: &[&str] = if cfg!(windows) {
        &["USERPROFILE", "HOME"]
    } else {
        &["HOME"]
    };
    names
        .iter()
        .filter_map(std::env::var_os)
        .find(|home| !home.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "The home folder isn't known on this computer.".to_string())
}

/// `~` and `~/…` (also `~\…` on Windows) start at the home folder.
fn expand_home(path: &str) -> Result<PathBuf, String> {
    if path == "~" {
        return home_folder();
    }
    let rest = path
        .strip_prefix("~/")
        .or_else(|| path.strip_prefix("~\\").filter(|_| cfg!(windows)));
    match rest {
        Some(rest) => Ok(home_folder()?.join(rest)),
        None => Ok(PathBuf::from(path)),
    }
}

/// Drops the `\\?\` that canonical paths get on Windows: cmd.exe can't start in such a folder
/// and people don't write them.
fn plain(path: PathBuf) -> PathBuf {
    let stripped = path
        .to_str()
        .and_then(|text| text.strip_prefix(r"\\?\"))
        .filter(|rest| rest.chars().nth(1) == Some(':'))
        .map(PathBuf::from);
    stripped.unwrap_or(path)
}

fn shown(path: &Path) -> String {
    plain(path.to_path_buf()).display().to_string()
}

fn inside(path: &Path, folder: &Path) -> bool {
    if path.starts_with(folder) {
        return true;
    }
    // Windows and macOS name files without regard to case
    cfg!(any(windows, target_os = "macos"))
        && Path::new(&path.to_string_lossy().to_lowercase())
            .starts_with(folder.to_string_lossy().to_lowercase())
}

// ---------------------------------------------------------------------------------------------
// Reading a command line

/// The shells whose quoting a command is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Posix,
    PowerShell,
    Cmd,
}

impl Syntax {
    fn escape(self) -> char {
        match self {
            Syntax::Posix => '\\',
            Syntax::PowerShell => '`',
            Syntax::Cmd => '^',
        }
    }
}

/// One simple command as read: its words without quotes, and where its output goes.
#[derive(Debug, Default)]
struct Piece {
    words: Vec<String>,
    outputs: Vec<String>,
}

#[derive(Default)]
struct Splitter {
    pieces: Vec<Piece>,
    current: Piece,
    word: String,
    /// A word has begun (so `""` counts as one).
    in_word: bool,
    /// The next word is a redirection's target: `Some(true)` for output.
    redirect: Option<bool>,
}

impl Splitter {
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.in_word = true;
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        self.in_word = false;
        let word = std::mem::take(&mut self.word);
        match self.redirect.take() {
            Some(true) => self.current.outputs.push(word),
            Some(false) => {}
            None => self.current.words.push(word),
        }
    }

    fn end_piece(&mut self) {
        self.end_word();
        self.redirect = None;
        let piece = std::mem::take(&mut self.current);
        if !piece.words.is_empty() || !piece.outputs.is_empty() {
            self.pieces.push(piece);
        }
    }
}

/// Splits a command line into simple commands the way `shell` would: on `;`, `&`, `|`, line
/// breaks, parentheses and braces, and (POSIX) backticks. Redirections are set apart.
fn split_commands(line: &str, shell: Syntax) -> Vec<Piece> {
    let chars: Vec<char> = line.chars().collect();
    let mut s = Splitter::default();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == shell.escape() {
            // an escaped character is literal; an escaped line break joins two lines
            if let Some(&next) = chars.get(i) {
                i += 1;
                if next != '\n' && next != '\r' {
                    s.push(next);
                }
            }
            continue;
        }
        match c {
            '\'' if shell != Syntax::Cmd => {
                s.in_word = true;
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    if d == '\'' {
                        break;
                    }
                    s.push(d);
                }
            }
            '"' => {
                s.in_word = true;
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    if d == '"' {
                        break;
                    }
                    // inside double quotes POSIX shells only unescape these
                    if d == shell.escape()
                        && shell != Syntax::Cmd
                        && let Some(&next) = chars.get(i)
                        && (shell == Syntax::PowerShell
                            || matches!(next, '$' | '`' | '"' | '\\' | '\n'))
                    {
                        i += 1;
                        if next != '\n' {
                            s.push(next);
                        }
                        continue;
                    }
                    s.push(d);
                }
            }
            // `${HOME}` is one word, not a group
            '$' if chars.get(i) == Some(&'{') => {
                s.push('$');
                let mut depth = 0;
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    s.push(d);
                    if d == '{' {
                        depth += 1;
                    } else if d == '}' {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            '<' | '>' => {
                s.end_word();
                let mut output = c == '>';
                while let Some(&d) = chars.get(i) {
                    if !matches!(d, '<' | '>' | '&' | '|') {
                        break;
                    }
                    output |= d == '>';
                    i += 1;
                }
                s.redirect = Some(output);
            }
            // `&>` and `&>>` send both outputs to a file
            '&' if chars.get(i) == Some(&'>') => {
                s.end_word();
                while chars.get(i) == Some(&'>') {
                    i += 1;
                }
                s.redirect = Some(true);
            }
            ';' | '&' | '|' | '\n' | '\r' | '(' | ')' | '{' | '}' => s.end_piece(),
            '`' if shell == Syntax::Posix => s.end_piece(),
            c if c.is_whitespace() => s.end_word(),
            c => s.push(c),
        }
    }
    s.end_piece();
    s.pieces
}

/// The insides of `$( … )` and backtick pairs anywhere in the line, quoted or not: POSIX shells
/// run them inside double quotes too, PowerShell runs `$( )` there.
fn substitutions(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] == '$' && chars[i + 1] == '(' {
            let start = i + 2;
            let mut depth = 1;
            let mut end = start;
            while let Some(&c) = chars.get(end) {
                if c == '(' {
                    depth += 1;
                } else if c == ')' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                end += 1;
            }
            found.push(chars[start..end].iter().collect());
            // nested ones are found when the inside is read
            i = end + 1;
        } else {
            i += 1;
        }
    }
    let ticks: Vec<usize> = (0..chars.len()).filter(|&i| chars[i] == '`').collect();
    for pair in ticks.chunks_exact(2) {
        found.push(chars[pair[0] + 1..pair[1]].iter().collect());
    }
    found
}

// ---------------------------------------------------------------------------------------------
// The blocklist

/// How deep commands inside commands are read (`bash -c "sh -c '…'"`).
const MAX_DEPTH: usize = 12;

/// Reads one command line and every line inside it, each once, within a bounded amount of work.
struct Scan<'s> {
    shells: &'s [Syntax],
    seen: HashSet<String>,
    /// Characters left to read, so crafted nesting can't take long.
    budget: usize,
}

impl<'s> Scan<'s> {
    fn new(shells: &'s [Syntax]) -> Self {
        Scan {
            shells,
            seen: HashSet::new(),
            budget: 64 * MAX_COMMAND_CHARS,
        }
    }

    fn line(&mut self, line: &str, depth: usize) -> Option<BlockKind> {
        if depth > MAX_DEPTH || line.len() > self.budget || !self.seen.insert(line.to_string()) {
            return None;
        }
        self.budget -= line.len();
        if has_fork_bomb(line) {
            return Some(BlockKind::ForkBomb);
        }
        for &shell in self.shells {
            for piece in split_commands(line, shell) {
                if let Some(kind) = self.piece(&piece, depth) {
                    return Some(kind);
                }
            }
        }
        substitutions(line)
            .iter()
            .find_map(|inner| self.line(inner, depth + 1))
    }

    fn piece(&mut self, piece: &Piece, depth: usize) -> Option<BlockKind> {
        if piece.outputs.iter().any(|target| is_disk_device(target)) {
            return Some(BlockKind::FormatDisk);
        }
        let start = command_start(&piece.words)?;
        let words = piece.words.get(start..)?;
        let (first, raw_args) = words.split_first()?;
        let command = Command {
            name: command_name(&first.to_lowercase()),
            args: raw_args.iter().map(|arg| arg.to_lowercase()).collect(),
            raw_args,
        };
        // a quoted name with spaces is a whole command line (`env -S "…"`, `"rm -rf /"`)
        if first.contains(char::is_whitespace)
            && let Some(kind) = self.line(&words.join(" "), depth + 1)
        {
            return Some(kind);
        }
        if let Some(kind) = self.nested(&command, depth + 1) {
            return Some(kind);
        }
        RULES
            .iter()
            .find(|(_, rule)| rule(&command))
            .map(|(kind, _)| *kind)
    }

    /// Command lines that `command` runs: shells' `-c` strings, `cmd /c …`, PowerShell's
    /// `-Command` and `-EncodedCommand`, `eval`, `Start-Process`.
    fn nested(&mut self, command: &Command, depth: usize) -> Option<BlockKind> {
        let raw = command.raw_args;
        match command.name.as_str() {
            "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "csh" | "tcsh"
            | "su" | "runuser" => raw.iter().find_map(|arg| self.line(arg, depth)),
            "eval" | "iex" | "invoke-expression" => self.line(&raw.join(" "), depth),
            "cmd" => {
                let at = command.args.iter().position(|arg| {
                    arg.starts_with("/c") || arg.starts_with("/k") || arg.starts_with("/r")
                })?;
                // `/c` may touch the command (`cmd /cshutdown /s`)
                let mut parts: Vec<String> = vec![raw[at].chars().skip(2).collect()];
                parts.extend(raw[at + 1..].iter().cloned());
                self.line(&parts.join(" "), depth)
            }
            "powershell" | "pwsh" => self.powershell(command, depth),
            // cmd's `start ["title"] [/switches] command …`
            "start" => {
                let rest: Vec<&String> = raw
                    .iter()
                    .skip_while(|arg| arg.is_empty() || arg.starts_with('/'))
                    .collect();
                let rest: Vec<&str> = rest.iter().map(|arg| arg.as_str()).collect();
                self.line(&rest.join(" "), depth)
            }
            "start-process" | "saps" => {
                let rest: Vec<&str> = raw
                    .iter()
                    .filter(|arg| !arg.starts_with('-'))
                    .map(|arg| arg.as_str())
                    .collect();
                // `-ArgumentList '/s','/t','0'` is a list
                self.line(&rest.join(" ").replace(',', " "), depth)
            }
            _ => None,
        }
    }

    fn powershell(&mut self, command: &Command, depth: usize) -> Option<BlockKind> {
        let raw = command.raw_args;
        for (i, arg) in command.args.iter().enumerate() {
            let Some(flag) = arg.strip_prefix(['-', '/']) else {
                continue;
            };
            if flag.is_empty() {
                continue;
            }
            // PowerShell takes any prefix of a parameter's name; `-e` is -EncodedCommand
            if flag == "ec" || "encodedcommand".starts_with(flag) {
                let decoded = raw.get(i + 1).and_then(|text| decode_encoded_command(text));
                if let Some(kind) = decoded.and_then(|text| self.line(&text, depth)) {
                    return Some(kind);
                }
            } else if flag == "cwa" || "commandwithargs".starts_with(flag) {
                return self.line(&raw[i + 1..].join(" "), depth);
            }
        }
        // Windows PowerShell takes the first plain argument as the command; an option's value
        // may come before it (`-ExecutionPolicy Bypass Stop-Computer`)
        let starts: Vec<usize> = (0..raw.len())
            .filter(|&i| !raw[i].starts_with('-') && !raw[i].starts_with('/'))
            .take(3)
            .collect();
        starts
            .into_iter()
            .find_map(|i| self.line(&raw[i..].join(" "), depth))
    }
}

/// A simple command after its prefixes: the program's name, its arguments in lower case and as
/// written.
struct Command<'a> {
    name: String,
    args: Vec<String>,
    raw_args: &'a [String],
}

impl Command<'_> {
    /// The arguments that aren't options: paths, devices, subcommands.
    fn operands(&self) -> impl Iterator<Item = &str> {
        self.args.iter().filter_map(|arg| operand(arg))
    }

    fn has(&self, arg: &str) -> bool {
        self.args.iter().any(|a| a == arg)
    }

    fn has_any(&self, args: &[&str]) -> bool {
        self.args.iter().any(|a| args.contains(&a.as_str()))
    }
}

/// Whether a command falls under one kind.
type Rule = fn(&Command<'_>) -> bool;

/// The checks per kind, in order: `Remove-Item HKLM:\…` is about the registry, not a drive.
const RULES: [(BlockKind, Rule); 6] = [
    (BlockKind::FormatDisk, formats_disk),
    (BlockKind::PowerOff, powers_off),
    (BlockKind::Registry, deletes_registry),
    (BlockKind::WholeDrive, deletes_whole_folder),
    (BlockKind::Backups, deletes_backups),
    (BlockKind::BootSettings, changes_boot),
];

/// The index of the word that names the program, past assignments (`FOO=1`), keywords (`then`)
/// and prefixes that run the rest (`sudo -u root`, `env`, `nohup`, `timeout 5`).
fn command_start(words: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let lower = word.to_lowercase();
        if is_assignment(&lower) {
            i += 1;
            continue;
        }
        match wrapped_start(&command_name(&lower), &words[i..]) {
            Some(skip) => i += skip,
            None => return Some(i),
        }
    }
    None
}

/// Where the command run by the prefix `words[0]` starts, or `None` when it isn't a prefix.
fn wrapped_start(name: &str, words: &[String]) -> Option<usize> {
    let (value_options, positional): (&[&str], usize) = match name {
        "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "!" | "coproc" | "nohup"
        | "setsid" | "unbuffer" | "builtin" | "busybox" => (&[], 0),
        "sudo" => (
            &[
                "-u",
                "-g",
                "-c",
                "-d",
                "-h",
                "-p",
                "-r",
                "-t",
                "--user",
                "--group",
                "--chdir",
                "--host",
                "--prompt",
                "--role",
                "--type",
                "--other-user",
                "--close-from",
                "--command-timeout",
                "--chroot",
            ],
            0,
        ),
        "doas" => (&["-u", "-c"], 0),
        "env" => (&["-u", "-c", "--unset", "--chdir"], 0),
        "exec" => (&["-a"], 0),
        "nice" => (&["-n", "--adjustment"], 0),
        "ionice" => (&["-c", "-n", "-p", "--class", "--classdata", "--pid"], 0),
        "time" => (&["-f", "-o", "--format", "--output"], 0),
        "stdbuf" => (&["-i", "-o", "-e", "--input", "--output", "--error"], 0),
        "timeout" => (&["-s", "-k", "--signal", "--kill-after"], 1),
        "xargs" => (
            &[
                "-a",
                "-d",
                "-e",
                "-i",
                "-l",
                "-n",
                "-p",
                "-s",
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-lines",
                "--max-procs",
                "--max-chars",
            ],
            0,
        ),
        "watch" => (&["-n", "--interval"], 0),
        "pkexec" => (&["--user"], 0),
        "wsl" => (&["-d", "-u", "--distribution", "--user", "--cd"], 0),
        "systemd-run" => (&["-p", "-u", "-e", "--unit", "--property", "--setenv"], 0),
        // `command -v x` only looks x up
        "command" if words.iter().skip(1).any(|w| w.eq_ignore_ascii_case("-v")) => return None,
        "command" => (&[], 0),
        _ => return None,
    };
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let lower = word.to_lowercase();
        if lower == "--" {
            i += 1;
            break;
        }
        if name == "env" {
            // `env -S "…"` splits its value into the command
            if lower == "-s" || lower == "--split-string" {
                return Some(i + 1);
            }
            if is_assignment(&lower) {
                i += 1;
                continue;
            }
        }
        if lower.len() > 1 && lower.starts_with('-') {
            i += if value_options.contains(&lower.as_str()) {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    Some(i + positional)
}

/// `NAME=value` before a command sets a variable for it.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The program's plain name: no folder, no `.exe`, lower case (`C:\Windows\System32\shutdown.exe`
/// is `shutdown`, `\rm` is `rm`).
fn command_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let base = base
        .strip_suffix(".exe")
        .or_else(|| base.strip_suffix(".com"))
        .unwrap_or(base);
    base.to_lowercase()
}

/// cmd's switches: `/s`, `/q`, `/a:h` (but not a one-letter POSIX path such as `/usr`).
fn is_switch(arg: &str) -> bool {
    let mut chars = arg.chars();
    chars.next() == Some('/')
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '?')
        && matches!(chars.next(), None | Some(':'))
}

/// An argument that isn't an option or switch; PowerShell's `-Path:value` gives its value.
fn operand(arg: &str) -> Option<&str> {
    if is_switch(arg) {
        return None;
    }
    match arg.strip_prefix('-') {
        None | Some("") => Some(arg),
        Some(flag) => flag
            .split_once(':')
            .filter(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic()))
            .map(|(_, value)| value),
    }
}

/// Short options one by one (`-rf` is `-r` and `-f`), long ones without their value, up to `--`.
fn option_names(raw_args: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for arg in raw_args {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            names.push(format!("--{}", long.split('=').next().unwrap_or(long)));
        } else if let Some(short) = arg.strip_prefix('-') {
            names.extend(short.chars().map(|c| format!("-{c}")));
        }
    }
    names
}

fn is_recursive_flag(arg: &str) -> bool {
    if arg == "--recursive" || arg == "/s" {
        return true;
    }
    // `-r`, `-rf`, `-fR`, PowerShell's `-Recurse` and its prefixes
    arg.strip_prefix('-').is_some_and(|flags| {
        !flags.is_empty() && flags.chars().all(|c| c.is_ascii_alphabetic()) && flags.contains('r')
    })
}

/// `C:`, `d:\`
fn is_drive(arg: &str) -> bool {
    let mut chars = arg.trim_end_matches(['\\', '/']).chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.next() == Some(':')
        && chars.next().is_none()
}

/// Resolves `.` and `..` and doubled slashes in an absolute POSIX path.
fn clean_absolute(path: &str) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// A disk or partition (`/dev/sda1`, `/dev/disk2`, `\\.\PhysicalDrive0`), not one of the
/// harmless devices such as `/dev/null`.
fn is_disk_device(target: &str) -> bool {
    let target = target.to_lowercase();
    if target.starts_with(r"\\.\") {
        return true;
    }
    let Some(clean) = clean_absolute(&target) else {
        return false;
    };
    let Some(device) = clean.strip_prefix("/dev/") else {
        return false;
    };
    const HARMLESS: [&str; 12] = [
        "null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "console",
        "ptmx", "kmsg", "log",
    ];
    const HARMLESS_GROUPS: [&str; 5] = ["tty", "pts/", "fd/", "shm/", "mqueue/"];
    !HARMLESS.contains(&device)
        && !HARMLESS_GROUPS
            .iter()
            .any(|group| device.starts_with(group))
}

fn formats_disk(command: &Command) -> bool {
    let name = command.name.as_str();
    if name.starts_with("mkfs") || name.starts_with("newfs") {
        return true;
    }
    match name {
        "mke2fs" | "mkdosfs" | "mkntfs" | "wipefs" | "diskpart" | "blkdiscard" | "cfdisk"
        | "format-volume" | "clear-disk" | "remove-partition" => true,
        "dd" => command
            .args
            .iter()
            .any(|arg| arg.strip_prefix("of=").is_some_and(is_disk_device)),
        "shred" | "mkswap" | "tee" => command.operands().any(is_disk_device),
        "cp" => command.operands().last().is_some_and(is_disk_device),
        // these write only when told to; listing is fine
        "fdisk" | "gdisk" => {
            let names = option_names(command.raw_args);
            !names.iter().any(|n| {
                [
                    "-l",
                    "--list",
                    "-x",
                    "--list-details",
                    "-h",
                    "--help",
                    "-V",
                    "--version",
                ]
                .contains(&n.as_str())
            })
        }
        "sfdisk" => {
            let names = option_names(command.raw_args);
            let reads = names.iter().any(|n| {
                [
                    "-l",
                    "--list",
                    "-d",
                    "--dump",
                    "-J",
                    "--json",
                    "-s",
                    "--show-size",
                    "-g",
                    "--show-geometry",
                    "-V",
                    "--verify",
                    "-F",
                    "--list-free",
                    "-T",
                    "--list-types",
                    "-h",
                    "--help",
                    "-v",
                    "--version",
                ]
                .contains(&n.as_str())
            });
            let writes = names.iter().any(|n| {
                [
                    "--delete",
                    "--part-type",
                    "--part-label",
                    "--part-uuid",
                    "--part-attrs",
                    "-A",
                    "--activate",
                    "--relocate",
                    "-r",
                    "--reorder",
                    "-N",
                    "--partno",
                    "-a",
                    "--append",
                    "--move-data",
                ]
                .contains(&n.as_str())
            });
            !reads || writes
        }
        "sgdisk" => option_names(command.raw_args).iter().any(|n| {
            ![
                "-p",
                "--print",
                "-i",
                "--info",
                "-v",
                "--verify",
                "-L",
                "--list-types",
                "-O",
                "--print-mbr",
                "-b",
                "--backup",
                "-a",
                "--set-alignment",
                "-E",
                "--end-of-largest",
                "-f",
                "--first-in-largest",
                "-F",
                "--first-aligned-in-largest",
                "-P",
                "--pretend",
                "-?",
                "--help",
                "--usage",
                "-V",
                "--version",
            ]
            .contains(&n.as_str())
        }),
        "parted" => {
            let lists = command.has_any(&["-l", "--list", "-h", "--help", "-v", "--version"]);
            let writes = command.operands().any(|word| {
                [
                    "mklabel",
                    "mktable",
                    "mkpart",
                    "mkpartfs",
                    "rm",
                    "resizepart",
                    "resize",
                    "rescue",
                    "mkfs",
                    "move",
                    "cp",
                    "set",
                    "toggle",
                    "name",
                    "disk_set",
                    "disk_toggle",
                    "type",
                ]
                .contains(&word)
            });
            !lists && writes
        }
        "format" => command.args.iter().any(|arg| is_drive(arg)),
        "cipher" => command.args.iter().any(|arg| arg.starts_with("/w")),
        "diskutil" => command.has_any(&[
            "erasedisk",
            "erasevolume",
            "zerodisk",
            "randomdisk",
            "secureerase",
            "partitiondisk",
            "reformat",
            "deletecontainer",
            "deletevolume",
        ]),
        _ => false,
    }
}

fn powers_off(command: &Command) -> bool {
    match command.name.as_str() {
        "reboot"
        | "poweroff"
        | "halt"
        | "logout"
        | "logoff"
        | "stop-computer"
        | "restart-computer"
        | "tsshutdn"
        | "psshutdown"
        | "pm-suspend"
        | "pm-hibernate"
        | "pm-suspend-hybrid"
        | "gnome-session-quit"
        | "xfce4-session-logout"
        | "lxsession-logout" => true,
        // `shutdown -c` and `shutdown /a` cancel a planned shutdown; `-k` only warns
        "shutdown" => !command
            .args
            .first()
            .is_some_and(|arg| ["-c", "/a", "-a", "-k", "--help", "/?"].contains(&arg.as_str())),
        "init" | "telinit" => command.args.first().is_some_and(|arg| {
            ["0", "6", "1", "s", "single", "runlevel0", "runlevel6"].contains(&arg.as_str())
        }),
        "systemctl" => {
            let verbs = [
                "poweroff",
                "reboot",
                "halt",
                "suspend",
                "hibernate",
                "hybrid-sleep",
                "suspend-then-hibernate",
                "sleep",
                "kexec",
                "soft-reboot",
                "rescue",
                "emergency",
            ];
            let targets = [
                "poweroff.target",
                "reboot.target",
                "halt.target",
                "shutdown.target",
                "kexec.target",
                "suspend.target",
                "hibernate.target",
                "sleep.target",
                "rescue.target",
                "emergency.target",
            ];
            command.operands().any(|word| verbs.contains(&word))
                || (command.has_any(&["start", "isolate", "restart"])
                    && command.operands().any(|word| targets.contains(&word)))
        }
        "loginctl" => command.has_any(&[
            "terminate-user",
            "kill-user",
            "terminate-session",
            "kill-session",
            "terminate-seat",
        ]),
        // `kill -9 -1` ends every process of the person
        "kill" => command.args.len() >= 2 && command.args.last().is_some_and(|a| a == "-1"),
        "osascript" => {
            let script = command.args.join(" ");
            ["shut down", "restart", "log out"]
                .iter()
                .any(|action| script.contains(action))
        }
        "pmset" => command.has("sleepnow"),
        "rundll32" => command
            .args
            .iter()
            .any(|arg| arg.contains("setsuspendstate") || arg.contains("exitwindowsex")),
        "wmic" => command.has("os") && command.has_any(&["shutdown", "reboot", "win32shutdown"]),
        _ => false,
    }
}

fn is_registry_path(path: &str) -> bool {
    [
        "hklm:",
        "hkcu:",
        "hkcr:",
        "hku:",
        "hkcc:",
        "hkey_",
        "registry::",
    ]
    .iter()
    .any(|root| path.starts_with(root))
        || path.contains("\\registry::")
}

fn deletes_registry(command: &Command) -> bool {
    match command.name.as_str() {
        "reg" => command.args.first().is_some_and(|verb| verb == "delete"),
        "remove-item"
        | "ri"
        | "rm"
        | "del"
        | "erase"
        | "rd"
        | "rmdir"
        | "remove-itemproperty"
        | "rp"
        | "clear-item"
        | "cli"
        | "clear-itemproperty"
        | "clp" => command.operands().any(is_registry_path),
        _ => false,
    }
}

/// The folders that a command must never delete or take over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// `/`
    Slash,
    /// `C:\`
    Drive,
    /// `~`
    Home,
}

const SYSTEM_FOLDERS: [&str; 28] = [
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "users",
    "system",
    "library",
    "applications",
    "private",
    "volumes",
    "mnt",
    "media",
    "snap",
    "nix",
];

const WINDOWS_FOLDERS: [&str; 9] = [
    "windows",
    "program files",
    "program files (x86)",
    "programdata",
    "users",
    "recovery",
    "boot",
    "system volume information",
    "documents and settings",
];

/// Variables that name a home, system or drive folder, and what they stand for.
const FOLDER_VARIABLES: [(&[&str], &str); 5] = [
    (
        &[
            "$home",
            "${home}",
            "$env:home",
            "${env:home}",
            "$env:userprofile",
            "${env:userprofile}",
            "%userprofile%",
            "%homedrive%%homepath%",
        ],
        "~",
    ),
    (
        &[
            "$env:windir",
            "${env:windir}",
            "$env:systemroot",
            "${env:systemroot}",
            "%windir%",
            "%systemroot%",
        ],
        "c:/windows",
    ),
    (
        &[
            "$env:systemdrive",
            "${env:systemdrive}",
            "%systemdrive%",
            "%homedrive%",
        ],
        "c:",
    ),
    (
        &[
            "$env:programfiles",
            "${env:programfiles}",
            "${env:programfiles(x86)}",
            "$env:programw6432",
            "%programfiles%",
            "%programfiles(x86)%",
            "%programw6432%",
        ],
        "c:/program files",
    ),
    (
        &[
            "$env:programdata",
            "${env:programdata}",
            "$env:allusersprofile",
            "%programdata%",
            "%allusersprofile%",
        ],
        "c:/programdata",
    ),
];

/// `target` with `\` as `/` and a leading folder variable replaced.
fn expand_folder_variables(target: &str) -> String {
    let path = target.replace('\\', "/");
    for (names, value) in FOLDER_VARIABLES {
        for name in names {
            if let Some(rest) = path.strip_prefix(name)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("{value}{rest}");
            }
        }
    }
    path
}

/// Whether a (lower-case) path names a drive, a system folder or a home folder
/// (`Some(false)`), or everything in one through a wildcard (`Some(true)`, as `/*` or `~/*`).
/// Relative paths never do.
fn vital_target(target: &str) -> Option<bool> {
    let path = expand_folder_variables(target);
    let (root, rest) = if let Some(rest) = path.strip_prefix('~') {
        // `~alice` is another person's home folder
        (Root::Home, rest.find('/').map_or("", |at| &rest[at..]))
    } else if path.starts_with('/') {
        (Root::Slash, path.as_str())
    } else {
        let (drive, rest) = path.split_once('/').unwrap_or((path.as_str(), ""));
        if !is_drive(drive) {
            return None;
        }
        (Root::Drive, rest)
    };
    let mut folders: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                // above the home folder are everyone's home folders
                if folders.pop().is_none() && root == Root::Home {
                    return Some(false);
                }
            }
            part => folders.push(part),
        }
    }
    // `*`, `.*`, `*.*` take everything in the folder; at the top of a drive any pattern
    // (`/u*`) takes system folders
    if let Some((last, parent)) = folders.split_last()
        && last.contains(['*', '?', '['])
    {
        let everything = last.chars().all(|c| matches!(c, '*' | '?' | '.'));
        let top = parent.is_empty() && root != Root::Home;
        return ((everything || top) && vital_folder(root, parent)).then_some(true);
    }
    vital_folder(root, &folders).then_some(false)
}

fn vital_folder(root: Root, folders: &[&str]) -> bool {
    match (root, folders) {
        (_, []) => true,
        (Root::Home, _) => false,
        (Root::Slash, [top]) => SYSTEM_FOLDERS.contains(top),
        // /usr/bin and the like, /var/lib, everyone's home folders, mounted drives
        (Root::Slash, ["var", "lib"] | ["system", "library"] | ["private", "etc" | "var"]) => true,
        (Root::Slash, [top, _]) => {
            ["usr", "home", "users", "mnt", "media", "volumes"].contains(top)
        }
        (Root::Drive, [top]) => WINDOWS_FOLDERS.contains(top),
        (Root::Drive, ["users" | "windows", _]) => true,
        _ => false,
    }
}

fn deletes_whole_folder(command: &Command) -> bool {
    let vital = |target: &str| vital_target(target).is_some();
    match command.name.as_str() {
        "rm" | "del" | "erase" | "rd" | "rmdir" | "remove-item" | "ri" => {
            // Remove-Item takes a folder's contents even without -Recurse once confirmed
            let recursive = matches!(command.name.as_str(), "remove-item" | "ri")
                || command.args.iter().any(|arg| is_recursive_flag(arg));
            command
                .operands()
                .any(|target| vital_target(target).is_some_and(|glob| glob || recursive))
        }
        "chown" | "chmod" | "chgrp" => {
            command.args.iter().any(|arg| is_recursive_flag(arg)) && command.operands().any(vital)
        }
        "takeown" => command.has("/r") && command.operands().any(vital),
        "icacls" => {
            let changes = command.args.iter().any(|arg| {
                [
                    "/reset",
                    "/grant",
                    "/deny",
                    "/remove",
                    "/setowner",
                    "/inheritance",
                ]
                .iter()
                .any(|change| arg.starts_with(change))
            });
            command.has("/t") && changes && command.operands().any(vital)
        }
        "find" => {
            let starts = command
                .args
                .iter()
                .take_while(|arg| !arg.starts_with('-') && *arg != "!");
            let deletes = command.has("-delete")
                || command.args.windows(2).any(|pair| {
                    ["-exec", "-execdir", "-ok", "-okdir"].contains(&pair[0].as_str())
                        && ["rm", "shred", "unlink"].contains(&command_name(&pair[1]).as_str())
                });
            deletes && starts.into_iter().any(|start| vital(start))
        }
        // `mv ~ /dev/null` and the like
        "mv" => {
            let operands: Vec<&str> = command.operands().collect();
            operands
                .split_last()
                .is_some_and(|(_, sources)| sources.iter().any(|source| vital(source)))
        }
        _ => false,
    }
}

fn deletes_backups(command: &Command) -> bool {
    let operands: Vec<&str> = command.operands().collect();
    match command.name.as_str() {
        "remove-computerrestorepoint" => true,
        "vssadmin" => command.has_any(&["delete", "resize"]),
        "wmic" => command.has("shadowcopy") && command.has("delete"),
        "wbadmin" => command.has("delete"),
        "tmutil" => command
            .args
            .first()
            .is_some_and(|verb| verb.starts_with("delete") || verb == "thinlocalsnapshots"),
        // btrfs takes prefixes of its subcommands (`btrfs sub del`)
        "btrfs" => {
            operands.len() >= 3
                && operands[0].starts_with("su")
                && operands[1].starts_with("de")
                && operands[2..].iter().any(|path| path.contains("snap"))
        }
        "zfs" => operands.first() == Some(&"destroy") && operands.iter().any(|o| o.contains('@')),
        "timeshift" => command.args.iter().any(|arg| arg.starts_with("--delete")),
        "snapper" => operands
            .iter()
            .any(|word| ["delete", "remove", "rm"].contains(word)),
        _ => false,
    }
}

fn changes_boot(command: &Command) -> bool {
    match command.name.as_str() {
        "grub-install" | "grub2-install" | "update-grub" | "update-grub2" | "grub-set-default"
        | "grub2-set-default" | "grub-reboot" | "grub2-reboot" | "bootsect" | "bcdboot" => true,
        // `bcdedit` alone and `bcdedit /enum` only list
        "bcdedit" => command.args.iter().any(|arg| {
            (arg.starts_with('/') || arg.starts_with('-'))
                && !["/enum", "-enum", "/v", "-v", "/?"].contains(&arg.as_str())
        }),
        "efibootmgr" => option_names(command.raw_args)
            .iter()
            .any(|name| name != "-v" && name != "--verbose"),
        "grub-mkconfig" | "grub2-mkconfig" => command
            .args
            .iter()
            .any(|arg| arg == "-o" || arg.starts_with("--output")),
        "grub-editenv" | "grub2-editenv" => command.has_any(&["set", "unset", "create"]),
        "bootctl" => command.has_any(&[
            "install",
            "update",
            "remove",
            "set-default",
            "set-oneshot",
            "set-timeout",
            "set-timeout-oneshot",
            "unlink",
            "cleanup",
        ]),
        // `nvram -p` and `nvram name` read; `name=value`, `-d` and `-c` write
        "nvram" => command
            .args
            .iter()
            .any(|arg| arg.contains('=') || ["-d", "-c", "-f"].contains(&arg.as_str())),
        "bless" => !command
            .args
            .iter()
            .any(|arg| arg.trim_start_matches('-') == "info"),
        "systemsetup" => command
            .args
            .iter()
            .any(|arg| arg.starts_with("-setstartupdisk")),
        _ => false,
    }
}

/// `:(){ :|:& };:` with any name or spacing, `function f { f | f & }`, `%0|%0`.
fn has_fork_bomb(line: &str) -> bool {
    let squeezed: String = line
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    if squeezed.contains("%0|%0") || squeezed.contains("forkwhilefork") {
        return true;
    }
    let chars: Vec<char> = line.chars().collect();
    chars.iter().enumerate().any(|(at, &c)| {
        if c != '{' {
            return false;
        }
        // function names are short; looking back a little keeps this linear
        let before: String = chars[at.saturating_sub(256)..at].iter().collect();
        function_name(&before)
            .is_some_and(|name| spawns_itself(&name, &block_body(&chars[at + 1..])))
    })
}

/// The name of the shell function whose body opens right after `before`: `name()` or
/// `function name`.
fn function_name(before: &str) -> Option<String> {
    let text = before.trim_end();
    let (head, parens) = match text.strip_suffix(')') {
        Some(rest) => (rest.trim_end().strip_suffix('(')?.trim_end(), true),
        None => (text, false),
    };
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace() || ";&|(){}".contains(*c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let name = &head[start..];
    if name.is_empty() {
        return None;
    }
    // without parentheses bash needs the keyword
    let keyword = head[..start].trim_end();
    let named = parens
        || keyword == "function"
        || keyword
            .strip_suffix("function")
            .is_some_and(|rest| rest.ends_with(|c: char| c.is_whitespace() || ";&|{}".contains(c)));
    named.then(|| name.to_string())
}

fn block_body(after: &[char]) -> String {
    let mut depth = 1;
    let mut body = String::new();
    for &c in after {
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth -= 1;
            if depth == 0 {
                break;
            }
        }
        body.push(c);
    }
    body
}

/// A body that runs its own function twice, at least once in the background or a pipe.
fn spawns_itself(name: &str, body: &str) -> bool {
    let mut calls = 0;
    let mut forks = false;
    let mut at_start = true;
    let mut token = String::new();
    for c in body.chars().chain([' ']) {
        let operator = matches!(c, '|' | '&' | ';');
        if c.is_whitespace() || operator {
            if !token.is_empty() {
                if at_start && token == name {
                    calls += 1;
                }
                at_start = false;
                token.clear();
            }
            if operator {
                at_start = true;
                forks |= c != ';';
            }
        } else {
            token.push(c);
        }
    }
    calls >= 2 && forks
}

/// The script behind PowerShell's `-EncodedCommand`: Base64 of UTF-16LE.
fn decode_encoded_command(text: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for c in text.trim().bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push(((buffer >> bits) & 0xff) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_all(kind: Option<BlockKind>, commands: &[&str]) {
        for command in commands {
            assert_eq!(blocked(command), kind, "{command:?}");
        }
    }

    #[test]
    fn formatting_disks_is_blocked() {
        check_all(
            Some(BlockKind::FormatDisk),
            &[
                "mkfs /dev/sda1",
                "mkfs.ext4 /dev/sdb1",
                "sudo mkfs.vfat -F 32 /dev/sdc1",
                "mke2fs -t ext4 /dev/sda2",
                "wipefs -a /dev/sda",
                "dd if=/dev/zero of=/dev/sda bs=1M",
                "sudo dd if=image.iso of=/dev/disk2 bs=4m",
                "dd if=x of=\\\\.\\PhysicalDrive0",
                "shred -n 3 -z /dev/nvme0n1",
                "fdisk /dev/sda",
                "parted /dev/sda mklabel gpt",
                "parted -s /dev/sdb mkpart primary ext4 0% 100%",
                "sfdisk /dev/sda < table.txt",
                "sfdisk --delete /dev/sda 1",
                "sgdisk --zap-all /dev/sda",
                "sgdisk -o /dev/sdb",
                "diskpart",
                "diskpart /s wipe.txt",
                "format C:",
                "FORMAT D: /FS:NTFS /Q",
                "format.com e:\\",
                "Format-Volume -DriveLetter D -FileSystem NTFS",
                "Clear-Disk -Number 1 -RemoveData",
                "cipher /w:C:\\",
                "CIPHER /W:D:\\data",
                "cat image.img > /dev/sda",
                "cat image.img | sudo tee /dev/sdb > /dev/null",
                "cp disk.iso /dev/sdc",
                "diskutil eraseDisk APFS Blank disk2",
                "blkdiscard /dev/nvme0n1",
            ],
        );
    }

    #[test]
    fn powering_off_is_blocked() {
        check_all(
            Some(BlockKind::PowerOff),
            &[
                "shutdown -h now",
                "sudo shutdown -r +5",
                "shutdown",
                "reboot",
                "poweroff",
                "halt",
                "halt -p",
                "init 0",
                "init 6",
                "telinit 0",
                "systemctl poweroff",
                "systemctl reboot",
                "systemctl halt",
                "systemctl suspend",
                "systemctl -i hibernate",
                "systemctl isolate reboot.target",
                "logout",
                "loginctl terminate-user alice",
                "loginctl kill-user bob",
                "Stop-Computer -Force",
                "Restart-Computer",
                "restart-computer -ComputerName localhost",
                "shutdown.exe /s /t 0",
                "C:\\Windows\\System32\\shutdown.exe /r /t 0",
                "SHUTDOWN /S",
                "logoff",
                "kill -9 -1",
                "osascript -e 'tell app \"System Events\" to shut down'",
                "rundll32.exe powrprof.dll,SetSuspendState 0,1,0",
            ],
        );
    }

    #[test]
    fn deleting_from_the_registry_is_blocked() {
        check_all(
            Some(BlockKind::Registry),
            &[
                "reg delete HKLM\\Software\\Foo /f",
                "REG DELETE \"HKCU\\Software\\Bar\" /va /f",
                "reg.exe delete HKCU\\Software\\Baz",
                "Remove-Item -Path HKLM:\\Software\\Foo -Recurse",
                "Remove-Item HKCU:\\Software\\Foo",
                "remove-item -path:HKCU:\\Software\\Foo",
                "Remove-ItemProperty -Path HKCU:\\Environment -Name Path",
                "ri 'HKLM:\\SOFTWARE\\x'",
                "Remove-Item Registry::HKEY_LOCAL_MACHINE\\Software\\x",
                "rm -r -fo HKCU:\\Software\\Foo",
            ],
        );
    }

    #[test]
    fn deleting_a_whole_drive_or_system_folder_is_blocked() {
        check_all(
            Some(BlockKind::WholeDrive),
            &[
                "rm -rf /",
                "rm -fr /",
                "rm -r -f /",
                "rm -R -f /",
                "rm --recursive --force /",
                "rm -rf --no-preserve-root /",
                "rm -rf -- /",
                "rm -rf /*",
                "rm -rf /.",
                "rm -rf //",
                "rm -rf /usr/../",
                "rm -rf /tmp/..",
                "rm -rf ~",
                "rm -rf ~/",
                "rm -rf ~/*",
                "rm -rf ~/..",
                "rm -rf $HOME",
                "rm -rf \"$HOME\"",
                "rm -rf '$HOME'/",
                "rm -rf ${HOME}/",
                "rm -rf $HOME/*",
                "rm -rf ~alice",
                "rm -Rf /usr",
                "rm -r /etc",
                "rm -rf /bin",
                "rm -rf /boot",
                "rm -rf /var",
                "rm -rf /home",
                "rm -rf /Users",
                "rm -rf /usr/bin",
                "rm -rf /home/alice",
                "rm -rf /Users/alice/",
                "rm -rf /e*",
                "rm /etc/*",
                "rm -rf C:\\",
                "rd /s /q C:\\",
                "RD /S /Q C:\\",
                "rmdir /S /Q C:\\Windows",
                "rd /s /q \"C:\\Program Files\"",
                "rd /s %SystemRoot%",
                "del /s /q C:\\*",
                "del /f /s /q C:\\Windows\\*",
                "Remove-Item -Recurse -Force C:\\",
                "Remove-Item -Recurse C:\\Windows",
                "Remove-Item C:\\Users\\alice -Recurse -Force",
                "Remove-Item $env:USERPROFILE -Recurse",
                "rm -r -fo C:\\Windows\\System32",
                "chown -R nobody /",
                "chown -R me ~",
                "chown -R me:me /usr",
                "chmod -R 777 /",
                "chmod -R 000 /etc",
                "chmod --recursive 700 ~",
                "find / -delete",
                "find ~ -type f -delete",
                "mv ~ /tmp/trash",
                "takeown /f C:\\Windows /r /d y",
                "icacls C:\\ /grant Everyone:F /t",
            ],
        );
    }

    #[test]
    fn deleting_backups_is_blocked() {
        check_all(
            Some(BlockKind::Backups),
            &[
                "vssadmin delete shadows /all /quiet",
                "vssadmin.exe Delete Shadows /For=C: /Oldest",
                "vssadmin resize shadowstorage /for=c: /on=c: /maxsize=401MB",
                "wmic shadowcopy delete",
                "wbadmin delete catalog -quiet",
                "wbadmin delete systemstatebackup -keepVersions:0",
                "tmutil delete /Volumes/Backup/Backups.backupdb/mac/2024-01-01",
                "tmutil deletelocalsnapshots /",
                "sudo tmutil thinlocalsnapshots / 999999999999 4",
                "Remove-ComputerRestorePoint -RestorePoint 5",
                "btrfs subvolume delete /.snapshots/1/snapshot",
                "zfs destroy pool/home@daily",
                "timeshift --delete-all",
                "snapper -c root delete 5",
            ],
        );
    }

    #[test]
    fn changing_boot_settings_is_blocked() {
        check_all(
            Some(BlockKind::BootSettings),
            &[
                "bcdedit /set {default} recoveryenabled No",
                "bcdedit /deletevalue {current} safeboot",
                "BCDEDIT /SET {bootmgr} displaybootmenu yes",
                "efibootmgr -o 0001,0002",
                "efibootmgr -b 0003 -B",
                "grub-install /dev/sda",
                "update-grub",
                "sudo grub-mkconfig -o /boot/grub/grub.cfg",
                "grub2-mkconfig --output=/boot/grub2/grub.cfg",
                "nvram boot-args=\"-v\"",
                "sudo nvram -c",
                "bootctl set-default arch.conf",
                "bcdboot C:\\Windows",
                "bless --mount /Volumes/X --setBoot",
            ],
        );
    }

    #[test]
    fn fork_bombs_are_blocked() {
        check_all(
            Some(BlockKind::ForkBomb),
            &[
                ":(){ :|:& };:",
                ":(){ :|: & };:",
                ": ( ) { : | : & } ; :",
                "bomb() { bomb | bomb & }; bomb",
                "f(){ f|f& };f",
                "x() {\n  x | x &\n}\nx",
                "function boom { boom | boom & }; boom",
                "function boom() { boom & boom & }; boom",
                "%0|%0",
                "%0 | %0",
                "bash -c ':(){ :|:& };:'",
                "perl -e 'fork while fork'",
            ],
        );
    }

    #[test]
    fn compound_and_wrapped_commands_are_read_whole() {
        let cases: &[(&str, BlockKind)] = &[
            ("git status && rm -rf /", BlockKind::WholeDrive),
            ("echo hi; reboot", BlockKind::PowerOff),
            ("ls || shutdown now", BlockKind::PowerOff),
            ("make | sudo reboot", BlockKind::PowerOff),
            ("sleep 1 & poweroff", BlockKind::PowerOff),
            ("sleep 1&poweroff", BlockKind::PowerOff),
            ("echo a\nreboot", BlockKind::PowerOff),
            ("echo a\r\nreboot", BlockKind::PowerOff),
            ("echo $(reboot)", BlockKind::PowerOff),
            ("echo \"$(reboot)\"", BlockKind::PowerOff),
            ("echo `reboot`", BlockKind::PowerOff),
            ("echo \"`rm -rf ~`\"", BlockKind::WholeDrive),
            ("x=$(echo $(shutdown -h now))", BlockKind::PowerOff),
            ("(reboot)", BlockKind::PowerOff),
            ("{ reboot; }", BlockKind::PowerOff),
            ("if true; then rm -rf /; fi", BlockKind::WholeDrive),
            ("for d in a b; do rm -rf /; done", BlockKind::WholeDrive),
            ("! reboot", BlockKind::PowerOff),
            ("sudo rm -rf /", BlockKind::WholeDrive),
            ("sudo -u root -E rm -rf /", BlockKind::WholeDrive),
            ("sudo -- rm -rf /", BlockKind::WholeDrive),
            ("doas rm -rf /", BlockKind::WholeDrive),
            ("doas -u root reboot", BlockKind::PowerOff),
            ("env rm -rf /", BlockKind::WholeDrive),
            ("env -i PATH=/bin FOO=1 rm -rf /", BlockKind::WholeDrive),
            ("env -S 'rm -rf /'", BlockKind::WholeDrive),
            ("FOO=bar rm -rf /", BlockKind::WholeDrive),
            ("nohup shutdown -h now &", BlockKind::PowerOff),
            ("exec reboot", BlockKind::PowerOff),
            ("exec -a x reboot", BlockKind::PowerOff),
            ("nice -n 10 reboot", BlockKind::PowerOff),
            ("timeout 5 reboot", BlockKind::PowerOff),
            ("timeout -s KILL 5 rm -rf /", BlockKind::WholeDrive),
            ("time reboot", BlockKind::PowerOff),
            ("command reboot", BlockKind::PowerOff),
            ("busybox rm -rf /", BlockKind::WholeDrive),
            ("echo / | xargs -n 1 rm -rf /", BlockKind::WholeDrive),
            ("bash -c \"rm -rf /\"", BlockKind::WholeDrive),
            ("sh -c 'mkfs.ext4 /dev/sda1'", BlockKind::FormatDisk),
            ("sudo bash -lc 'reboot'", BlockKind::PowerOff),
            (
                "/bin/bash -o pipefail -c 'ls && reboot'",
                BlockKind::PowerOff,
            ),
            ("bash -c \"sh -c 'reboot'\"", BlockKind::PowerOff),
            ("zsh -c 'echo hi; rm -rf ~'", BlockKind::WholeDrive),
            ("eval 'rm -rf /'", BlockKind::WholeDrive),
            ("eval \"sudo reboot\"", BlockKind::PowerOff),
            ("cmd /c rd /s /q C:\\", BlockKind::WholeDrive),
            ("cmd.exe /C \"shutdown /s /t 0\"", BlockKind::PowerOff),
            ("cmd /k format C:", BlockKind::FormatDisk),
            (
                "powershell -NoProfile -Command Stop-Computer -Force",
                BlockKind::PowerOff,
            ),
            (
                "powershell.exe -c \"Remove-Item -Recurse -Force C:\\\"",
                BlockKind::WholeDrive,
            ),
            (
                "pwsh -NoProfile -ExecutionPolicy Bypass Stop-Computer",
                BlockKind::PowerOff,
            ),
            (
                "powershell -EncodedCommand UwB0AG8AcAAtAEMAbwBtAHAAdQB0AGUAcgAgAC0ARgBvAHIAYwBlAA==",
                BlockKind::PowerOff,
            ),
            (
                "powershell -enc UwB0AG8AcAAtAEMAbwBtAHAAdQB0AGUAcgAgAC0ARgBvAHIAYwBlAA==",
                BlockKind::PowerOff,
            ),
            ("iex 'Restart-Computer'", BlockKind::PowerOff),
            (
                "Start-Process shutdown -ArgumentList '/s /t 0'",
                BlockKind::PowerOff,
            ),
            (
                "Start-Process -FilePath cmd -ArgumentList '/c','rd','/s','/q','C:\\'",
                BlockKind::WholeDrive,
            ),
            ("start \"\" /b shutdown /s", BlockKind::PowerOff),
            ("Stop`-Computer", BlockKind::PowerOff),
            ("Get-Date; Stop-Computer", BlockKind::PowerOff),
            (
                "& 'C:\\Windows\\System32\\shutdown.exe' /s",
                BlockKind::PowerOff,
            ),
            ("rm   -rf    /", BlockKind::WholeDrive),
            ("\trm\t-rf\t/", BlockKind::WholeDrive),
            ("r\\m -rf /", BlockKind::WholeDrive),
            ("\\rm -rf /", BlockKind::WholeDrive),
            ("'rm' -rf '/'", BlockKind::WholeDrive),
            ("\"/bin/rm\" -rf \"/\"", BlockKind::WholeDrive),
            ("/usr/bin/sudo /sbin/reboot", BlockKind::PowerOff),
            ("rm -rf / > /dev/null 2>&1", BlockKind::WholeDrive),
            ("rm -rf / &>/dev/null", BlockKind::WholeDrive),
            ("cat <<EOF\nreboot\nEOF", BlockKind::PowerOff),
            ("REBOOT", BlockKind::PowerOff),
        ];
        for (command, kind) in cases {
            assert_eq!(blocked(command), Some(*kind), "{command:?}");
        }
    }

    #[test]
    fn harmless_commands_are_not_blocked() {
        check_all(
            None,
            &[
                "rm -rf ./build",
                "rm -rf node_modules",
                "ls /",
                "git status",
                "echo shutdown",
                "cat /etc/hosts",
                "dd if=a.img of=b.img",
                "rm -rf /tmp/x",
                "rm -rf /tmp/*",
                "rm -rf build dist",
                "rm -rf .",
                "rm file.txt",
                "rm ~/notes.txt",
                "rm ~/*.log",
                "rm -rf ~/projects/app/dist",
                "rm -rf $HOME/.cache/app",
                "rm -rf \"$HOME/.cache/app\"",
                "rm -f /",
                "rmdir /tmp/empty",
                "rd /s /q build",
                "del /s *.tmp",
                "Remove-Item .\\build -Recurse -Force",
                "Remove-Item C:\\Users\\alice\\project\\dist -Recurse",
                "chmod -R 755 ./dist",
                "chown -R me:me ~/project",
                "chmod 644 /etc/hosts",
                "find . -name '*.tmp' -delete",
                "find / -name hosts",
                "mv ~/a.txt ~/b.txt",
                "echo 'rm -rf /'",
                "echo \"reboot; rm -rf /\"",
                "git commit -m \"fix the reboot loop\"",
                "git commit -m 'format C: fix'",
                "grep -r shutdown src",
                "man shutdown",
                "which reboot",
                "command -v shutdown",
                "echo formatted",
                "fdisk -l",
                "sudo fdisk -l /dev/sda",
                "parted -l",
                "parted /dev/sda print",
                "sfdisk -l /dev/sda",
                "sfdisk --dump /dev/sda",
                "sgdisk -p /dev/sda",
                "lsblk",
                "df -h /",
                "dd if=/dev/zero of=test.img bs=1M count=10",
                "dd if=/dev/sda of=backup.img",
                "dd if=/dev/urandom of=/dev/null count=1",
                "cat x > /dev/null",
                "echo hi >/dev/stderr",
                "echo hi > out.txt 2>&1",
                "ls -la /dev",
                "shutdown -c",
                "shutdown /a",
                "systemctl status nginx",
                "systemctl restart nginx",
                "systemctl status reboot.target",
                "loginctl list-sessions",
                "kill -9 1234",
                "kill -1 1234",
                "reg query HKLM\\Software\\Microsoft",
                "reg add HKCU\\Software\\Foo /v x /d 1",
                "Get-ItemProperty HKLM:\\Software\\Foo",
                "Get-ChildItem C:\\ -Recurse",
                "dir C:\\",
                "vssadmin list shadows",
                "tmutil listbackups",
                "wbadmin get versions",
                "zfs list -t snapshot",
                "btrfs subvolume list /",
                "efibootmgr",
                "efibootmgr -v",
                "bcdedit",
                "bcdedit /enum",
                "nvram -p",
                "grub-mkconfig",
                "bootctl status",
                "npm run build",
                "cargo test",
                "python -c 'print(1)'",
                "bash -c 'ls /'",
                "bash script.sh",
                "powershell -Command Get-ChildItem",
                "powershell -EncodedCommand RwBlAHQALQBEAGEAdABlAA==",
                "cmd /c dir",
                "echo ':)'",
                "f() { echo hi; }; f",
                "git log --format='%h %s'",
                "rm -rf ${BUILD_DIR}/out",
                "mkdir -p /tmp/a && cd /tmp/a",
                "echo ${HOME}",
                "git init",
                "terraform init",
                "clang-format -i main.c",
                "awk '{print $1}' file",
            ],
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_reads_commands_as_cmd_too() {
        assert_eq!(blocked("shut^down /s"), Some(BlockKind::PowerOff));
    }

    #[test]
    fn cmd_quoting_is_understood() {
        let cmd = |line: &str| Scan::new(&[Syntax::Cmd]).line(line, 0);
        assert_eq!(cmd("shut^down /s"), Some(BlockKind::PowerOff));
        // cmd.exe doesn't treat single quotes as quotes
        assert_eq!(cmd("echo 'x & shutdown /s'"), Some(BlockKind::PowerOff));
        assert_eq!(cmd("echo \"x & shutdown /s\""), None);
        assert_eq!(cmd("rd /s /q C:\\"), Some(BlockKind::WholeDrive));
        assert_eq!(
            cmd("if exist x (rd /s /q C:\\)"),
            Some(BlockKind::WholeDrive)
        );
    }

    #[test]
    fn deep_or_huge_commands_end_quickly() {
        let nested = "bash -c ".repeat(200) + "ls";
        assert_eq!(blocked(&nested), None);
        let long = "echo a; ".repeat(MAX_COMMAND_CHARS / 8);
        assert_eq!(blocked(&long), None);
        let braces = "f(){ ".repeat(MAX_COMMAND_CHARS / 5);
        assert_eq!(blocked(&braces), None);
    }

    #[test]
    fn every_kind_has_a_phrase_and_a_refusal() {
        assert_eq!(MAX_COMMAND_CHARS, 8000);
        assert_eq!(
            refusal(BlockKind::FormatDisk),
            "Sentient never runs commands that format or wipe disks, so this command was not run."
        );
        let mut refusals = HashSet::new();
        for kind in BlockKind::ALL {
            assert!(!kind.describe().is_empty());
            let sentence = refusal(kind);
            assert!(sentence.starts_with("Sentient never runs "), "{sentence}");
            assert!(
                sentence.ends_with(", so this command was not run."),
                "{sentence}"
            );
            assert!(refusals.insert(sentence));
        }
        assert_eq!(
            BlockKind::FormatDisk.describe(),
            "formatting or wiping disks"
        );
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn listed_commands_match_by_prefix() {
        let allowed = strings(&["git status", "ls", "", "   ", "git diff", "npm test"]);
        let cases: &[(&str, bool)] = &[
            ("git status", true),
            ("  git status  ", true),
            ("git status -s", true),
            ("git  status\t-s", true),
            ("ls", true),
            ("ls -la src", true),
            ("npm test", true),
            ("git diff HEAD~1", true),
            ("git diff --text", true),
            ("git statusx", false),
            ("git stat", false),
            ("lsblk", false),
            ("rm x", false),
            ("", false),
            ("git status; rm x", false),
            ("git status && x", false),
            ("git status || x", false),
            ("git status & x", false),
            ("git status | sh", false),
            ("git status > out.txt", false),
            ("git status < in.txt", false),
            ("git status\nrm", false),
            ("git status\rrm", false),
            ("ls $(whoami)", false),
            ("ls $HOME", false),
            ("ls `whoami`", false),
            ("ls (x)", false),
            ("ls {a,b}", false),
            ("git diff --output=/tmp/x", false),
            ("git diff --output /tmp/x", false),
            ("git diff --outp=/tmp/x", false),
            ("git log --ext-diff", false),
            ("git log --ext", false),
            ("git diff --textconv", false),
            ("git diff --textc", false),
            ("git status --exec=x", false),
            ("git log --EXT-DIFF", false),
            ("Git Status", false),
            ("GIT STATUS -s", false),
        ];
        for (command, listed) in cases {
            assert_eq!(is_listed(command, &allowed, false), *listed, "{command:?}");
        }
        assert!(!is_listed("anything", &strings(&["", " "]), false));
        assert!(!is_listed("anything", &[], true));
    }

    #[test]
    fn listed_commands_ignore_case_only_on_windows() {
        let allowed = strings(&["Get-ChildItem", "git status"]);
        assert!(is_listed("get-childitem -Force", &allowed, true));
        assert!(is_listed("GIT STATUS -s", &allowed, true));
        assert!(is_listed("Git Status", &allowed, true));
        assert!(!is_listed("get-childitem -Force", &allowed, false));
        assert!(!is_listed("GIT STATUS -s", &allowed, false));
        assert!(is_listed("Get-ChildItem -Force", &allowed, false));
        // the forbidden characters count on Windows too
        assert!(!is_listed("git status & del x", &allowed, true));
        assert!(!is_listed("GIT STATUS | sh", &allowed, true));
    }

    /// A tempdir with `allowed/sub`, `allowed/file.txt` and `outside`, all canonical.
    struct Folders {
        _dir: tempfile::TempDir,
        allowed: PathBuf,
        sub: PathBuf,
        outside: PathBuf,
    }

    fn folders() -> Folders {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical tempdir");
        let allowed = root.join("allowed");
        let sub = allowed.join("sub");
        let outside = root.join("outside");
        std::fs::create_dir_all(&sub).expect("sub");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(allowed.join("file.txt"), "x").expect("file");
        Folders {
            _dir: dir,
            allowed,
            sub,
            outside,
        }
    }

    fn text(path: &Path) -> String {
        path.to_str().expect("utf-8 path").to_string()
    }

    #[test]
    fn resolve_folder_finds_the_folder() {
        let f = folders();
        let allowed = vec![text(&f.allowed)];
        // no cwd: the first allowed folder, or the default folder
        assert_eq!(resolve_folder(None, "", &allowed), Ok(f.allowed.clone()));
        assert_eq!(
            resolve_folder(Some("  "), "", &allowed),
            Ok(f.allowed.clone())
        );
        assert_eq!(
            resolve_folder(None, &text(&f.sub), &allowed),
            Ok(f.sub.clone())
        );
        // relative to the default folder
        assert_eq!(resolve_folder(Some("sub"), "", &allowed), Ok(f.sub.clone()));
        assert_eq!(
            resolve_folder(Some("./sub/../sub/"), "", &allowed),
            Ok(f.sub.clone())
        );
        assert_eq!(
            resolve_folder(Some(".."), &text(&f.sub), &allowed),
            Ok(f.allowed.clone())
        );
        // absolute
        assert_eq!(
            resolve_folder(Some(&text(&f.sub)), "", &allowed),
            Ok(f.sub.clone())
        );
        // a listed folder that is gone is skipped
        let with_gone = vec![text(&f.allowed.join("gone")), text(&f.allowed)];
        assert_eq!(
            resolve_folder(Some(&text(&f.sub)), "", &with_gone),
            Ok(f.sub.clone())
        );
    }

    #[test]
    fn resolve_folder_refuses_what_is_outside_or_missing() {
        let f = folders();
        let allowed = vec![text(&f.allowed)];
        let outside_error = |path: &Path| {
            format!(
                "Commands may only run inside the folders allowed in Settings > Terminal ({}); {} is outside them.",
                text(&f.allowed),
                path.display()
            )
        };
        assert_eq!(
            resolve_folder(Some(".."), "", &allowed),
            Err(outside_error(f.allowed.parent().expect("parent")))
        );
        assert_eq!(
            resolve_folder(Some("../outside"), "", &allowed),
            Err(outside_error(&f.outside))
        );
        assert_eq!(
            resolve_folder(Some("sub/../../outside"), "", &allowed),
            Err(outside_error(&f.outside))
        );
        assert_eq!(
            resolve_folder(Some(&text(&f.outside)), "", &allowed),
            Err(outside_error(&f.outside))
        );
        assert_eq!(
            resolve_folder(None, &text(&f.outside), &allowed),
            Err(outside_error(&f.outside))
        );
        assert_eq!(
            resolve_folder(Some("nope"), "", &allowed),
            Err(format!(
                "The folder {} doesn't exist.",
                f.allowed.join("nope").display()
            ))
        );
        assert_eq!(
            resolve_folder(Some("file.txt"), "", &allowed),
            Err(format!(
                "{} is a file, not a folder.",
                f.allowed.join("file.txt").display()
            ))
        );
        assert_eq!(
            resolve_folder(Some("sub"), "relative/folder", &allowed),
            Err("The folder relative/folder in Settings > Terminal is not a full path.".into())
        );
        let gone = vec![text(&f.allowed.join("gone"))];
        assert_eq!(
            resolve_folder(None, "", &gone),
            Err(format!(
                "None of the folders allowed in Settings > Terminal ({}) exists on this computer.",
                text(&f.allowed.join("gone"))
            ))
        );
    }

    #[test]
    fn resolve_folder_needs_an_allowed_folder() {
        let no_folder =
            Err("No folder is allowed for commands yet. Add one in Settings > Terminal.".into());
        assert_eq!(resolve_folder(None, "", &[]), no_folder);
        assert_eq!(
            resolve_folder(Some("/"), "/", &strings(&["", "  "])),
            no_folder
        );
        assert_eq!(default_folder("/", &[]), None);
    }

    #[cfg(unix)]
    #[test]
    fn resolve_folder_follows_links() {
        let f = folders();
        let allowed = vec![text(&f.allowed)];
        std::os::unix::fs::symlink(&f.outside, f.allowed.join("escape")).expect("link");
        std::os::unix::fs::symlink(&f.sub, f.allowed.join("inner")).expect("link");
        assert_eq!(
            resolve_folder(Some("escape"), "", &allowed),
            Err(format!(
                "Commands may only run inside the folders allowed in Settings > Terminal ({}); {} is outside them.",
                text(&f.allowed),
                f.outside.display()
            ))
        );
        assert!(resolve_folder(Some(&text(&f.allowed.join("escape"))), "", &allowed).is_err());
        assert_eq!(
            resolve_folder(Some("inner"), "", &allowed),
            Ok(f.sub.clone())
        );
        // an allowed folder given through a link is allowed where the link points
        let through_link = vec![text(&f.allowed.join("inner"))];
        assert_eq!(
            resolve_folder(Some(&text(&f.sub)), "", &through_link),
            Ok(f.sub.clone())
        );
    }

    #[test]
    fn resolve_folder_expands_the_home_folder() {
        let Ok(home) = home_folder() else {
            return;
        };
        let Ok(home) = std::fs::canonicalize(home) else {
            return;
        };
        let allowed = vec!["~".to_string()];
        assert_eq!(resolve_folder(Some("~"), "", &allowed), Ok(home.clone()));
        assert_eq!(resolve_folder(None, "~", &allowed), Ok(home.clone()));
        assert_eq!(resolve_folder(Some("~/."), "", &allowed), Ok(home));
    }

    #[test]
    fn default_folder_is_where_commands_start() {
        let f = folders();
        let allowed = vec![text(&f.allowed)];
        assert_eq!(default_folder("", &allowed), Some(f.allowed.clone()));
        assert_eq!(default_folder(&text(&f.sub), &allowed), Some(f.sub.clone()));
        assert_eq!(default_folder(&text(&f.outside), &allowed), None);
        assert_eq!(
            default_folder(&text(&f.allowed.join("missing")), &allowed),
            None
        );
        assert_eq!(
            default_folder("", &[text(&f.allowed.join("missing"))]),
            None
        );
    }
}
