//! The reference node behind `sentient node`: a device simulated from a terminal, written only
//! against the device protocol (JSON messages, no engine types), so it also shows firmware
//! authors what a device has to do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

use crate::fingerprint::normalize_fingerprint;
use crate::pinned;

/// How to run the reference node: the `sentient node` flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NodeOptions {
    /// wss://<ip>:7778/ws/node, ws://127.0.0.1:<port>/ws/node, or a sentient://pair link.
    #[arg(long)]
    pub url: String,
    /// The 6-digit code from Devices > Pair a device (first time only).
    #[arg(long)]
    pub code: Option<String>,
    /// The certificate fingerprint Sentient shows next to the code.
    #[arg(long)]
    pub fingerprint: Option<String>,
    /// Accept any certificate (development only).
    #[arg(long)]
    pub insecure: bool,
    /// The name Sentient shows for this device.
    #[arg(long, default_value = "Reference node")]
    pub name: String,
    /// Answer location requests with this place, as LAT,LON (advertises location.get).
    #[arg(long, value_parser = parse_location)]
    pub location: Option<(f64, f64)>,
    /// Where device tokens are kept (default: <config dir>/sentient-node/token.json).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
}

/// `--location 38.72,-9.14`.
pub fn parse_location(text: &str) -> Result<(f64, f64), String> {
    let (lat, lon) = text
        .split_once(',')
        .ok_or_else(|| "Give the location as LAT,LON, e.g. 38.72,-9.14.".to_owned())?;
    let lat: f64 = lat
        .trim()
        .parse()
        .map_err(|_| "The latitude is not a number.".to_owned())?;
    let lon: f64 = lon
        .trim()
        .parse()
        .map_err(|_| "The longitude is not a number.".to_owned())?;
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err("Latitude is -90 to 90 and longitude -180 to 180.".to_owned());
    }
    Ok((lat, lon))
}

/// Reads a `sentient://pair?url=…&code=…&fp=…` link into (url, code, fingerprint).
pub fn parse_pair_link(link: &str) -> Option<(String, Option<String>, Option<String>)> {
    let parsed = reqwest::Url::parse(link.trim()).ok()?;
    if parsed.scheme() != "sentient" || parsed.host_str() != Some("pair") {
        return None;
    }
    let mut url = None;
    let mut code = None;
    let mut fp = None;
    for (key, value) in parsed.query_pairs() {
        let value = value.trim().to_owned();
        if value.is_empty() {
            continue;
        }
        match key.as_ref() {
            "url" => url = Some(value),
            "code" => code = Some(value),
            "fp" => fp = Some(value),
            _ => {}
        }
    }
    Some((url?, code, fp))
}

/// What a message from the engine asks the node to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this JSON message back.
    Send(Value),
    /// Show this line to the user.
    Print(String),
    /// The engine accepted the node; keep the token if one came.
    Welcome {
        token: Option<String>,
        keepalive_s: u64,
    },
    /// An `error` message; see [`error_policy`].
    Error { code: String, message: String },
}

/// What to do after an `error` message (protocol §7 and §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Not fatal: keep the connection.
    Continue,
    /// Reconnect, waiting at least this long.
    ReconnectAfter(Duration),
    /// The token is no longer valid: delete it, then pair again (with a code, if one is at hand).
    ForgetToken,
    /// Do not reconnect automatically.
    Stop,
}

pub fn error_policy(code: &str) -> ErrorPolicy {
    match code {
        "bad_token" | "revoked" => ErrorPolicy::ForgetToken,
        "bad_code" | "pairing_required" | "rate_limited" | "replaced" => ErrorPolicy::Stop,
        // Devices are turned off on the computer: try again every few minutes.
        "disabled" => ErrorPolicy::ReconnectAfter(Duration::from_secs(120)),
        _ => ErrorPolicy::Continue,
    }
}

/// The capabilities this node advertises.
pub fn capabilities(location: Option<(f64, f64)>) -> Vec<&'static str> {
    let mut caps = vec!["display.text", "notify.show", "button.events"];
    if location.is_some() {
        caps.push("location.get");
    }
    caps
}

/// The `hello` message, with the token when there is one, else the pairing code.
pub fn hello(
    name: &str,
    location: Option<(f64, f64)>,
    token: Option<&str>,
    pair_code: Option<&str>,
) -> Value {
    let mut hello = json!({
        "type": "hello",
        "protocol": 1,
        "name": non_empty(name.trim(), "Reference node"),
        "kind": "custom",
        "platform": std::env::consts::OS,
        "app_version": sentient_core::VERSION,
        "capabilities": capabilities(location),
    });
    if let Some(token) = token {
        hello["token"] = json!(token);
    } else if let Some(code) = pair_code {
        hello["pair_code"] = json!(code);
    }
    hello
}

/// Reacts to one text frame from the engine. Pure, so every message is testable without a socket.
pub fn handle_message(text: &str, location: Option<(f64, f64)>) -> Vec<Effect> {
    let Ok(msg) = serde_json::from_str::<Value>(text) else {
        return vec![Effect::Print(format!(
            "Ignored a message that is not JSON: {}",
            shorten(text)
        ))];
    };
    let str_of = |key: &str| msg.get(key).and_then(Value::as_str).unwrap_or_default();
    match str_of("type") {
        "welcome" => {
            let mut effects = vec![
                Effect::Print(format!(
                    "Connected to {} as \"{}\" (node {}).",
                    non_empty(str_of("assistant"), "Sentient"),
                    str_of("name"),
                    str_of("node_id")
                )),
                Effect::Welcome {
                    token: msg
                        .get("token")
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned),
                    keepalive_s: msg
                        .get("keepalive_s")
                        .and_then(Value::as_u64)
                        .filter(|s| *s > 0)
                        .unwrap_or(60),
                },
            ];
            if msg.get("stopped").and_then(Value::as_bool) == Some(true) {
                effects.push(Effect::Print(
                    "Sentient is stopped (Stop everything is on).".to_owned(),
                ));
            }
            effects
        }
        "invoke" => invoke(&msg, location),
        "stop_state" => {
            let line = if msg.get("stopped").and_then(Value::as_bool) == Some(true) {
                match msg.get("source").and_then(Value::as_str) {
                    Some(source) if !source.is_empty() => {
                        format!("Sentient stopped everything (from {source})")
                    }
                    _ => "Sentient stopped everything".to_owned(),
                }
            } else {
                "Sentient resumed".to_owned()
            };
            vec![Effect::Print(line)]
        }
        "error" => vec![Effect::Error {
            code: str_of("code").to_owned(),
            message: non_empty(str_of("message"), "The engine reported an error.").to_owned(),
        }],
        "pong" => vec![],
        other => vec![Effect::Print(format!(
            "Ignored a message of type \"{other}\"."
        ))],
    }
}

fn invoke(msg: &Value, location: Option<(f64, f64)>) -> Vec<Effect> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let capability = msg
        .get("capability")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = msg.get("params").cloned().unwrap_or_else(|| json!({}));
    let text = params
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let ok = |data: Value| json!({"type": "result", "id": id, "ok": true, "data": data});
    match (capability, location) {
        ("display.text", _) => vec![
            Effect::Print(format!("[display] {text}")),
            Effect::Send(ok(json!({"shown": true}))),
        ],
        ("notify.show", _) => {
            let line = match params.get("title").and_then(Value::as_str) {
                Some(title) if !title.is_empty() => format!("[notification] {title}: {text}"),
                _ => format!("[notification] {text}"),
            };
            vec![
                Effect::Print(line),
                Effect::Send(ok(json!({"shown": true}))),
            ]
        }
        ("location.get", Some((lat, lon))) => vec![Effect::Send(ok(json!({
            "lat": lat, "lon": lon, "accuracy_m": 10, "label": "fixed location"
        })))],
        _ => vec![Effect::Send(json!({
            "type": "result", "id": id, "ok": false,
            "error": {
                "code": "unsupported",
                "message": format!("The reference node cannot do \"{capability}\"."),
            },
        }))],
    }
}

/// What a line typed on the keyboard means.
#[derive(Debug, Clone, PartialEq)]
pub enum InputAction {
    Send(Value),
    Quit,
    Help(String),
}

pub const INPUT_HELP: &str =
    "Enter = button press, b 40 = battery 40%, s = stop everything, r = resume, q = quit";

pub fn input_action(line: &str) -> InputAction {
    let line = line.trim();
    match line {
        "" => InputAction::Send(
            json!({"type": "event", "event": "button", "data": {"action": "press"}}),
        ),
        "s" => InputAction::Send(json!({"type": "stop_all"})),
        "r" => InputAction::Send(json!({"type": "resume"})),
        "q" => InputAction::Quit,
        _ => match line.strip_prefix("b ").map(|n| n.trim().parse::<u8>()) {
            Some(Ok(level)) if level <= 100 => {
                InputAction::Send(json!({"type": "state", "battery": level}))
            }
            Some(_) => InputAction::Help("The battery level is a number from 0 to 100.".to_owned()),
            None => InputAction::Help(INPUT_HELP.to_owned()),
        },
    }
}

/// Runs the node until `q`, a fatal error, or the end of the process. `input` gives keyboard
/// lines; `out` shows lines to the user.
pub async fn run(
    opts: NodeOptions,
    input: impl AsyncBufRead + Unpin,
    mut out: impl FnMut(String),
) -> Result<(), String> {
    let target = Target::resolve(&opts)?;
    let token_file = match &opts.token_file {
        Some(path) => path.clone(),
        None => default_token_file()?,
    };
    let mut code = target.code.clone();
    let mut lines = input.lines();
    let mut input_open = true;
    let mut failures: u32 = 0;
    let mut pause: Option<Duration> = None;
    out(format!("Connecting to {} … ({INPUT_HELP})", target.url));

    loop {
        if let Some(wait) = pause.take() {
            let wait = wait.max(backoff(failures));
            out(format!(
                "Reconnecting in {} s (q to quit).",
                wait.as_secs().max(1)
            ));
            let sleep = tokio::time::sleep(wait);
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    _ = &mut sleep => break,
                    line = lines.next_line(), if input_open => match line {
                        Ok(Some(line)) if input_action(&line) == InputAction::Quit => return Ok(()),
                        Ok(Some(_)) => out("Not connected; the input was dropped.".to_owned()),
                        _ => input_open = false,
                    },
                }
            }
        }

        let stored = load_token(&token_file, &target.url);
        let expected_fp = target.fingerprint.clone().or_else(|| {
            stored
                .as_ref()
                .and_then(|s| s.fingerprint.clone())
                .filter(|fp| !fp.is_empty())
        });
        let token = stored.map(|s| s.token);
        if token.is_none() && code.is_none() {
            return Err(
                "This device is not paired yet. Pass --code with the 6-digit code from Devices › Pair a device in Sentient."
                    .to_owned(),
            );
        }
        if target.tls && expected_fp.is_none() && !opts.insecure {
            return Err(
                "A wss:// address needs the computer's certificate fingerprint. Pass --fingerprint (shown next to the pairing code), use the sentient://pair link, or --insecure for development only."
                    .to_owned(),
            );
        }

        let connector = target.tls.then(|| {
            let expected = if opts.insecure {
                None
            } else {
                expected_fp.as_deref()
            };
            tokio_tungstenite::Connector::Rustls(pinned::client_config(expected))
        });
        let connected = tokio_tungstenite::connect_async_tls_with_config(
            target.url.as_str(),
            None,
            true,
            connector,
        )
        .await;
        let mut socket = match connected {
            Ok((socket, _)) => socket,
            Err(e) => {
                let text = e.to_string();
                if text.contains("FingerprintMismatch") {
                    return Err(format!(
                        "The computer at {} presented a different certificate than the one this device trusts ({}). It may be another computer; pair again with a new link or code.",
                        target.url,
                        expected_fp.unwrap_or_default()
                    ));
                }
                out(format!("Could not connect: {text}"));
                failures = failures.saturating_add(1);
                pause = Some(Duration::ZERO);
                continue;
            }
        };

        let sent_code = token.is_none();
        let hello = hello(
            &opts.name,
            opts.location,
            token.as_deref(),
            if sent_code { code.as_deref() } else { None },
        );
        if let Err(e) = socket.send(Message::text(hello.to_string())).await {
            out(format!("The connection dropped: {e}"));
            failures = failures.saturating_add(1);
            pause = Some(Duration::ZERO);
            continue;
        }

        // Pings start after welcome, at the interval the engine asks for.
        let mut keepalive: Option<tokio::time::Interval> = None;
        let outcome = 'conn: loop {
            let tick = async {
                match keepalive.as_mut() {
                    Some(interval) => {
                        interval.tick().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                frame = socket.next() => {
                    let text = match frame {
                        Some(Ok(Message::Text(text))) => text.to_string(),
                        Some(Ok(Message::Close(frame))) => break 'conn closed(frame.as_ref()),
                        // The engine only sends binary frames after invokes this node does not advertise.
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => {
                            out(format!("The connection dropped: {e}"));
                            break 'conn Outcome::Reconnect(Duration::ZERO);
                        }
                        None => break 'conn Outcome::Reconnect(Duration::ZERO),
                    };
                    for effect in handle_message(&text, opts.location) {
                        match effect {
                            Effect::Send(reply) => {
                                if socket.send(Message::text(reply.to_string())).await.is_err() {
                                    break 'conn Outcome::Reconnect(Duration::ZERO);
                                }
                            }
                            Effect::Print(line) => out(line),
                            Effect::Welcome { token: new_token, keepalive_s } => {
                                failures = 0;
                                if sent_code {
                                    // Pairing codes are single use.
                                    code = None;
                                }
                                if let Some(new_token) = new_token {
                                    let fp = expected_fp.clone().map(|f| normalize_fingerprint(&f));
                                    match save_token(&token_file, &target.url, &new_token, fp.as_deref()) {
                                        Ok(()) => {
                                            out(format!("Paired. The token is kept in {}.", token_file.display()));
                                            // The code the computer's pairing card shows, to compare.
                                            if let Some(code) = fp.as_deref().and_then(crate::fingerprint::short_code) {
                                                out(format!("The computer's certificate starts with {code}, as on its pairing card."));
                                            }
                                        }
                                        Err(e) => out(e),
                                    }
                                }
                                let period = Duration::from_secs(keepalive_s);
                                keepalive = Some(tokio::time::interval_at(
                                    tokio::time::Instant::now() + period,
                                    period,
                                ));
                            }
                            Effect::Error { code: err_code, message } => {
                                out(format!("Sentient: {message} ({err_code})"));
                                match error_policy(&err_code) {
                                    ErrorPolicy::Continue => {}
                                    ErrorPolicy::ReconnectAfter(wait) => break 'conn Outcome::Reconnect(wait),
                                    ErrorPolicy::ForgetToken => break 'conn Outcome::ForgetToken(message),
                                    ErrorPolicy::Stop => break 'conn Outcome::Stop(message),
                                }
                            }
                        }
                    }
                }
                _ = tick => {
                    if socket.send(Message::text(json!({"type": "ping"}).to_string())).await.is_err() {
                        break 'conn Outcome::Reconnect(Duration::ZERO);
                    }
                }
                line = lines.next_line(), if input_open => {
                    let line = match line {
                        Ok(Some(line)) => line,
                        _ => {
                            input_open = false;
                            continue;
                        }
                    };
                    match input_action(&line) {
                        InputAction::Send(msg) => {
                            if socket.send(Message::text(msg.to_string())).await.is_err() {
                                break 'conn Outcome::Reconnect(Duration::ZERO);
                            }
                        }
                        InputAction::Help(help) => out(help),
                        InputAction::Quit => break 'conn Outcome::Quit,
                    }
                }
            }
        };

        match outcome {
            Outcome::Quit => {
                let _ = socket.close(None).await;
                return Ok(());
            }
            Outcome::Stop(message) => return Err(message),
            Outcome::ForgetToken(message) => {
                if let Err(e) = forget_token(&token_file, &target.url) {
                    out(e);
                }
                if !sent_code && code.is_some() {
                    // The token was refused but a pairing code is at hand: pair with it right away.
                    continue;
                }
                return Err(format!(
                    "{message} Run sentient node again with --code and a new code from Devices › Pair a device."
                ));
            }
            Outcome::Reconnect(wait) => {
                failures = failures.saturating_add(1);
                pause = Some(wait);
            }
        }
    }
}

enum Outcome {
    Quit,
    Stop(String),
    ForgetToken(String),
    Reconnect(Duration),
}

/// A close without an `error` message first still follows the close code (protocol §7).
fn closed(frame: Option<&CloseFrame>) -> Outcome {
    let Some(frame) = frame else {
        return Outcome::Reconnect(Duration::ZERO);
    };
    let reason = frame.reason.to_string();
    let why = |fallback: &str| {
        if reason.is_empty() {
            fallback.to_owned()
        } else {
            reason.clone()
        }
    };
    match u16::from(frame.code) {
        4401 => Outcome::ForgetToken(why("The engine refused this device's credentials.")),
        4409 => Outcome::Stop(why(
            "This device connected again elsewhere, so this connection was closed.",
        )),
        4429 => Outcome::Stop(why(
            "Too many wrong codes; wait at least a minute before trying again.",
        )),
        4403 => Outcome::Reconnect(Duration::from_secs(120)),
        _ => Outcome::Reconnect(Duration::ZERO),
    }
}

/// 1 s, 2 s, 4 s … capped at 30 s, plus 0-50 % jitter (protocol §8).
fn backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let base = 2u64
        .saturating_pow(failures.saturating_sub(1).min(5))
        .min(30);
    let jitter = rand::random::<f64>() * 0.5;
    Duration::from_secs_f64(base as f64 * (1.0 + jitter))
}

/// The URL, code and fingerprint after reading a pairing link and the flags; flags win.
struct Target {
    url: String,
    code: Option<String>,
    fingerprint: Option<String>,
    tls: bool,
}

impl Target {
    fn resolve(opts: &NodeOptions) -> Result<Target, String> {
        let given = opts.url.trim();
        let (url, link_code, link_fp) = if given.starts_with("sentient:") {
            parse_pair_link(given).ok_or_else(|| {
                "The pairing link is not valid. Copy the whole sentient://pair?url=… link from Devices › Pair a device."
                    .to_owned()
            })?
        } else {
            (given.to_owned(), None, None)
        };
        let parsed = reqwest::Url::parse(&url).map_err(|e| {
            format!("The address {url} is not valid ({e}). Use ws://host:port/ws/node or wss://host:port/ws/node.")
        })?;
        let tls = match parsed.scheme() {
            "wss" => true,
            "ws" => false,
            other => {
                return Err(format!(
                    "The address must start with ws:// or wss://, not {other}://."
                ));
            }
        };
        let clean = |s: &Option<String>| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        Ok(Target {
            url,
            code: clean(&opts.code).or(link_code),
            fingerprint: clean(&opts.fingerprint)
                .or(link_fp)
                .map(|fp| normalize_fingerprint(&fp)),
            tls,
        })
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredToken {
    pub token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

fn default_token_file() -> Result<PathBuf, String> {
    dirs::config_dir()
        .map(|dir| dir.join("sentient-node").join("token.json"))
        .ok_or_else(|| {
            "This system has no configuration folder for the node's token. Pass a token file explicitly."
                .to_owned()
        })
}

fn read_tokens(path: &Path) -> BTreeMap<String, StoredToken> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write_tokens(path: &Path, tokens: &BTreeMap<String, StoredToken>) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| {
        format!(
            "Could not save the device token in {} ({e}); the next start will need a new pairing code.",
            path.display()
        )
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let text = serde_json::to_string_pretty(tokens).map_err(|e| fail(&e))?;
    // The token lets anyone act as this device, so only the owner may read it.
    sentient_core::home::write_atomically(path, text.as_bytes()).map_err(|e| fail(&e))
}

pub fn load_token(path: &Path, url: &str) -> Option<StoredToken> {
    read_tokens(path)
        .remove(url)
        .filter(|t| !t.token.is_empty())
}

fn save_token(
    path: &Path,
    url: &str,
    token: &str,
    fingerprint: Option<&str>,
) -> Result<(), String> {
    let mut tokens = read_tokens(path);
    tokens.insert(
        url.to_owned(),
        StoredToken {
            token: token.to_owned(),
            fingerprint: fingerprint.map(str::to_owned),
        },
    );
    write_tokens(path, &tokens)
}

fn forget_token(path: &Path, url: &str) -> Result<(), String> {
    let mut tokens = read_tokens(path);
    if tokens.remove(url).is_some() {
        write_tokens(path, &tokens)?;
    }
    Ok(())
}

fn non_empty<'a>(s: &'a str, fallback: &'a str) -> &'a str {
    if s.is_empty() { fallback } else { s }
}

fn shorten(s: &str) -> String {
    let mut short: String = s.chars().take(80).collect();
    if short.len() < s.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_link_is_decoded() {
        let link =
            "sentient://pair?url=wss%3A%2F%2F192.168.1.20%3A7778%2Fws%2Fnode&code=123456&fp=3F:9A";
        let (url, code, fp) = parse_pair_link(link).expect("link");
        assert_eq!(url, "wss://192.168.1.20:7778/ws/node");
        assert_eq!(code.as_deref(), Some("123456"));
        assert_eq!(fp.as_deref(), Some("3F:9A"));

        let (url, code, fp) =
            parse_pair_link("sentient://pair?url=ws%3A%2F%2F127.0.0.1%3A1%2Fws%2Fnode")
                .expect("link");
        assert_eq!(url, "ws://127.0.0.1:1/ws/node");
        assert_eq!((code, fp), (None, None));

        assert!(parse_pair_link("sentient://pair?code=1").is_none());
        assert!(parse_pair_link("https://pair?url=x").is_none());
        assert!(parse_pair_link("not a link").is_none());
    }

    #[test]
    fn link_and_flags_resolve_with_flags_first() {
        let opts = NodeOptions {
            url: "sentient://pair?url=wss%3A%2F%2Fh%3A7778%2Fws%2Fnode&code=111111&fp=AB:CD".into(),
            ..NodeOptions::default()
        };
        let t = Target::resolve(&opts).expect("resolve");
        assert!(t.tls);
        assert_eq!(t.code.as_deref(), Some("111111"));
        assert_eq!(t.fingerprint.as_deref(), Some("abcd"));
        let t = Target::resolve(&NodeOptions {
            code: Some("222222".into()),
            fingerprint: Some("EF".into()),
            ..opts
        })
        .expect("resolve");
        assert_eq!(t.code.as_deref(), Some("222222"));
        assert_eq!(t.fingerprint.as_deref(), Some("ef"));
        assert!(
            Target::resolve(&NodeOptions {
                url: "http://h/ws/node".into(),
                ..NodeOptions::default()
            })
            .is_err()
        );
    }

    #[test]
    fn hello_has_token_or_code_and_capabilities() {
        let h = hello("Test", Some((1.0, 2.0)), Some("tok"), Some("123456"));
        assert_eq!(h["type"], "hello");
        assert_eq!(h["protocol"], 1);
        assert_eq!(h["kind"], "custom");
        assert_eq!(h["token"], "tok");
        assert!(h.get("pair_code").is_none());
        assert_eq!(
            h["capabilities"],
            json!([
                "display.text",
                "notify.show",
                "button.events",
                "location.get"
            ])
        );
        let h = hello("Test", None, None, Some("123456"));
        assert_eq!(h["pair_code"], "123456");
        assert!(h.get("token").is_none());
        assert_eq!(
            h["capabilities"],
            json!(["display.text", "notify.show", "button.events"])
        );
    }

    #[test]
    fn invokes_are_answered() {
        let effects = handle_message(
            r#"{"type":"invoke","id":"a1","capability":"display.text","params":{"text":"Turn left"},"timeout_ms":20000}"#,
            None,
        );
        assert_eq!(
            effects,
            vec![
                Effect::Print("[display] Turn left".into()),
                Effect::Send(json!({"type":"result","id":"a1","ok":true,"data":{"shown":true}})),
            ]
        );
        let effects = handle_message(
            r#"{"type":"invoke","id":"a2","capability":"notify.show","params":{"title":"Hi","text":"there"}}"#,
            None,
        );
        assert_eq!(effects[0], Effect::Print("[notification] Hi: there".into()));
        assert_eq!(
            effects[1],
            Effect::Send(json!({"type":"result","id":"a2","ok":true,"data":{"shown":true}}))
        );
        let effects = handle_message(
            r#"{"type":"invoke","id":"a3","capability":"location.get","params":{}}"#,
            Some((52.5, 13.4)),
        );
        assert_eq!(
            effects,
            vec![Effect::Send(json!({"type":"result","id":"a3","ok":true,
                "data":{"lat":52.5,"lon":13.4,"accuracy_m":10,"label":"fixed location"}}))]
        );
        for (cap, location) in [("location.get", None), ("camera.photo", Some((1.0, 1.0)))] {
            let msg = json!({"type":"invoke","id":"a4","capability":cap,"params":{}}).to_string();
            let effects = handle_message(&msg, location);
            let [Effect::Send(reply)] = effects.as_slice() else {
                panic!("one reply expected: {effects:?}");
            };
            assert_eq!(reply["ok"], false);
            assert_eq!(reply["id"], "a4");
            assert_eq!(reply["error"]["code"], "unsupported");
        }
    }

    #[test]
    fn welcome_stop_state_and_errors() {
        let effects = handle_message(
            r#"{"type":"welcome","protocol":1,"node_id":"9c1e","name":"Glasses","assistant":"Sentient","keepalive_s":30,"token":"Qm9"}"#,
            None,
        );
        assert!(effects.contains(&Effect::Welcome {
            token: Some("Qm9".into()),
            keepalive_s: 30
        }));
        let effects = handle_message(r#"{"type":"welcome","node_id":"x"}"#, None);
        assert!(effects.contains(&Effect::Welcome {
            token: None,
            keepalive_s: 60
        }));

        assert_eq!(
            handle_message(
                r#"{"type":"stop_state","stopped":true,"stopped_at":"t","source":"device"}"#,
                None
            ),
            vec![Effect::Print(
                "Sentient stopped everything (from device)".into()
            )]
        );
        assert_eq!(
            handle_message(r#"{"type":"stop_state","stopped":false}"#, None),
            vec![Effect::Print("Sentient resumed".into())]
        );
        assert_eq!(
            handle_message(
                r#"{"type":"error","code":"bad_token","message":"Pair again."}"#,
                None
            ),
            vec![Effect::Error {
                code: "bad_token".into(),
                message: "Pair again.".into()
            }]
        );
        assert!(handle_message(r#"{"type":"pong","ts":null}"#, None).is_empty());
        assert!(matches!(
            handle_message("not json", None).as_slice(),
            [Effect::Print(_)]
        ));
    }

    #[test]
    fn error_codes_follow_the_protocol() {
        for code in ["bad_code", "rate_limited", "replaced", "pairing_required"] {
            assert_eq!(error_policy(code), ErrorPolicy::Stop, "{code}");
        }
        for code in ["bad_token", "revoked"] {
            assert_eq!(error_policy(code), ErrorPolicy::ForgetToken, "{code}");
        }
        assert!(matches!(
            error_policy("disabled"),
            ErrorPolicy::ReconnectAfter(_)
        ));
        assert_eq!(error_policy("protocol"), ErrorPolicy::Continue);
        assert_eq!(error_policy("unknown_type"), ErrorPolicy::Continue);
    }

    #[test]
    fn keyboard_lines() {
        assert_eq!(
            input_action(""),
            InputAction::Send(json!({"type":"event","event":"button","data":{"action":"press"}}))
        );
        assert_eq!(
            input_action("b 40"),
            InputAction::Send(json!({"type":"state","battery":40}))
        );
        assert!(matches!(input_action("b 400"), InputAction::Help(_)));
        assert_eq!(
            input_action("s"),
            InputAction::Send(json!({"type":"stop_all"}))
        );
        assert_eq!(
            input_action("r"),
            InputAction::Send(json!({"type":"resume"}))
        );
        assert_eq!(input_action("q"), InputAction::Quit);
        assert!(matches!(input_action("hello"), InputAction::Help(_)));
    }

    #[test]
    fn backoff_doubles_to_thirty_seconds_with_jitter() {
        assert_eq!(backoff(0), Duration::ZERO);
        for (failures, base) in [
            (1, 1.0),
            (2, 2.0),
            (3, 4.0),
            (5, 16.0),
            (6, 30.0),
            (40, 30.0),
        ] {
            let secs = backoff(failures).as_secs_f64();
            assert!(
                secs >= base && secs <= base * 1.5 + 1e-9,
                "{failures}: {secs}"
            );
        }
    }

    #[test]
    fn tokens_are_kept_per_url() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("node").join("token.json");
        assert!(load_token(&file, "ws://a").is_none());
        save_token(&file, "ws://a", "t1", Some("ab")).expect("save");
        save_token(&file, "ws://b", "t2", None).expect("save");
        let a = load_token(&file, "ws://a").expect("a");
        assert_eq!(
            (a.token.as_str(), a.fingerprint.as_deref()),
            ("t1", Some("ab"))
        );
        forget_token(&file, "ws://a").expect("forget");
        assert!(load_token(&file, "ws://a").is_none());
        assert_eq!(load_token(&file, "ws://b").expect("b").token, "t2");
    }
}
