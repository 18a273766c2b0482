//! A server's secret values: env values (local programs) in the keychain entry `mcp:<name>`,
//! header values (remote servers) in `mcp:<name>:headers`, each a JSON object. Only their
//! names are in Settings. Also the checks a new server or new values must pass.

use std::collections::BTreeMap;

use serde::Deserialize;

use sentient_core::config::{McpAuth, McpServerConfig, McpTransport};

use crate::ctx::AppCtx;
use crate::error::IntegrationError;

/// `POST /api/integrations/mcp`.
#[derive(Debug, Clone, Default, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMcpServer {
    pub name: String,
    pub transport: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub auth: Option<String>,
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub access: Option<String>,
}

/// A server's values as read from the keychain.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    pub env: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
}

/// A new server, checked: its settings and the values to save.
#[derive(Debug, Clone)]
pub struct Checked {
    pub config: McpServerConfig,
    pub env: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
}

fn env_entry(name: &str) -> String {
    format!("mcp:{name}")
}

fn headers_entry(name: &str) -> String {
    format!("mcp:{name}:headers")
}

/// Whether `url` is plain `http://` to somewhere other than this computer (header values
/// would cross the network unencrypted).
pub fn is_plain_remote(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    if parsed.scheme() != "http" {
        return false;
    }
    match parsed.host() {
        Some(url::Host::Domain(d)) => !d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => !ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => !ip.is_loopback(),
        None => true,
    }
}

fn check_value(key: &str, value: &str) -> Result<(), IntegrationError> {
    if value.contains(['\n', '\r']) {
        return Err(IntegrationError::Invalid(format!(
            "The value of {key} has a line break; paste it on one line."
        )));
    }
    Ok(())
}

fn check_header(name: &str, value: &str) -> Result<(), IntegrationError> {
    check_value(name, value)?;
    if http::HeaderName::try_from(name).is_err() {
        return Err(IntegrationError::Invalid(format!(
            "\"{name}\" isn't a valid header name."
        )));
    }
    if http::HeaderValue::try_from(value).is_err() {
        return Err(IntegrationError::Invalid(format!(
            "The value of the header {name} isn't valid."
        )));
    }
    Ok(())
}

fn check_env_name(name: &str) -> Result<(), IntegrationError> {
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(IntegrationError::Invalid(format!(
            "\"{name}\" isn't a valid setting name: use letters, digits and _."
        )))
    }
}

/// Checks a new server; every failure is the route's 400 with a plain sentence.
pub fn check_new(request: &NewMcpServer) -> Result<Checked, IntegrationError> {
    let invalid = |s: &str| IntegrationError::Invalid(s.to_owned());
    let transport = match request.transport.as_str() {
        "stdio" => McpTransport::Stdio,
        "http" => McpTransport::Http,
        _ => return Err(invalid("transport must be \"stdio\" or \"http\".")),
    };
    let headers = request.headers.clone().unwrap_or_default();
    let env = request.env.clone().unwrap_or_default();
    let auth = match request.auth.as_deref() {
        None => {
            if headers.is_empty() {
                McpAuth::None
            } else {
                McpAuth::Headers
            }
        }
        Some("none") => McpAuth::None,
        Some("headers") => McpAuth::Headers,
        Some("oauth") => McpAuth::Oauth,
        Some(_) => return Err(invalid("auth must be \"none\", \"headers\" or \"oauth\".")),
    };
    let mut config = McpServerConfig {
        transport,
        enabled: request.enabled.unwrap_or(true),
        auth,
        ..McpServerConfig::default()
    };
    match transport {
        McpTransport::Stdio => {
            let command = request
                .command
                .as_deref()
                .map(str::trim)
                .unwrap_or_default();
            if command.is_empty() {
                return Err(invalid("Give the command that starts the server."));
            }
            if !headers.is_empty() || auth != McpAuth::None {
                return Err(invalid(
                    "A program on this computer takes settings (env), not headers or a sign-in.",
                ));
            }
            if request.url.as_deref().is_some_and(|u| !u.trim().is_empty()) {
                return Err(invalid("A program on this computer has no web address."));
            }
            config.command = command.to_owned();
            config.args = request.args.clone().unwrap_or_default();
            for (name, value) in &env {
                check_env_name(name)?;
                check_value(name, value)?;
                if value.contains('\0') {
                    return Err(invalid("A setting's value can't hold a NUL character."));
                }
            }
            config.env_keys = env.keys().cloned().collect();
        }
        McpTransport::Http => {
            let url = request.url.as_deref().map(str::trim).unwrap_or_default();
            let parsed = reqwest::Url::parse(url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if parsed.is_none() {
                return Err(invalid(
                    "Give the server's web address, starting with https://.",
                ));
            }
            if request
                .command
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty())
                || !env.is_empty()
            {
                return Err(invalid(
                    "A server at a web address takes headers, not a command or env settings.",
                ));
            }
            if auth == McpAuth::Headers && headers.is_empty() {
                return Err(invalid("Add at least one header, or choose no sign-in."));
            }
            for (name, value) in &headers {
                check_header(name, value)?;
            }
            if !headers.is_empty() && is_plain_remote(url) {
                return Err(invalid(
                    "Header values are only sent over https:// (or to this computer), so they can't be read on the way.",
                ));
            }
            config.url = url.to_owned();
            config.header_keys = headers.keys().cloned().collect();
        }
    }
    Ok(Checked {
        config,
        env,
        headers,
    })
}

async fn read_map(apps: &AppCtx, entry: &str) -> BTreeMap<String, String> {
    match apps.secrets().read_entry(entry).await {
        Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_default(),
        Ok(None) => BTreeMap::new(),
        Err(error) => {
            tracing::warn!(%error, "a tool server's values could not be read from the keychain");
            BTreeMap::new()
        }
    }
}

async fn write_map(
    apps: &AppCtx,
    entry: &str,
    map: &BTreeMap<String, String>,
) -> Result<(), IntegrationError> {
    let secrets = &apps.secrets();
    if map.is_empty() {
        // Nothing to keep: without a usable keychain nothing can be stored there either.
        forget(apps, entry).await;
    } else {
        let text =
            serde_json::to_string(map).map_err(|e| IntegrationError::Internal(e.to_string()))?;
        secrets.write_entry(entry, &text).await?;
    }
    Ok(())
}

/// The server's values from the keychain.
pub async fn load(apps: &AppCtx, name: &str) -> Secrets {
    Secrets {
        env: read_map(apps, &env_entry(name)).await,
        headers: read_map(apps, &headers_entry(name)).await,
    }
}

/// The keys that have no value yet (never the values).
pub fn missing(config: &McpServerConfig, secrets: &Secrets) -> Vec<String> {
    let (keys, values) = match config.transport {
        McpTransport::Stdio => (&config.env_keys, &secrets.env),
        McpTransport::Http => (&config.header_keys, &secrets.headers),
    };
    keys.iter()
        .filter(|k| values.get(*k).is_none_or(|v| v.trim().is_empty()))
        .cloned()
        .collect()
}

/// Saves a new server's values: env for a program, headers for a remote server (headers not
/// given are deleted). A program's server keeps an earlier sign-in of a remote namesake.
pub async fn save(apps: &AppCtx, name: &str, checked: &Checked) -> Result<(), IntegrationError> {
    match checked.config.transport {
        McpTransport::Stdio => write_map(apps, &env_entry(name), &checked.env).await,
        McpTransport::Http => write_map(apps, &headers_entry(name), &checked.headers).await,
    }
}

/// Merges new values into the server's entry (a blank value keeps the saved one). Returns
/// whether a remote server with no sign-in now sends headers.
pub async fn fill(
    apps: &AppCtx,
    name: &str,
    config: &McpServerConfig,
    values: &BTreeMap<String, String>,
) -> Result<bool, IntegrationError> {
    let (keys, entry) = match config.transport {
        McpTransport::Stdio => (&config.env_keys, env_entry(name)),
        McpTransport::Http => (&config.header_keys, headers_entry(name)),
    };
    for (key, value) in values {
        if !keys.contains(key) {
            return Err(IntegrationError::Invalid(format!(
                "This server doesn't use a value called {key}."
            )));
        }
        check_value(key, value)?;
        if config.transport == McpTransport::Http {
            if !value.trim().is_empty() {
                check_header(key, value.trim())?;
            }
            if is_plain_remote(&config.url) {
                return Err(IntegrationError::Invalid(
                    "Header values are only sent over https:// (or to this computer), so they can't be read on the way.".to_owned(),
                ));
            }
        }
    }
    let mut saved = read_map(apps, &entry).await;
    let mut added = false;
    for (key, value) in values {
        let value = value.trim();
        if !value.is_empty() {
            saved.insert(key.clone(), value.to_owned());
            added = true;
        }
    }
    write_map(apps, &entry, &saved).await?;
    Ok(added && config.transport == McpTransport::Http && config.auth == McpAuth::None)
}

/// Deletes an entry; a keychain that can't be reached holds nothing of ours, so that is logged,
/// not refused (a server without values works on a computer without a keychain).
async fn forget(apps: &AppCtx, entry: &str) {
    if let Err(error) = apps.secrets().delete_entry(entry).await {
        tracing::warn!(%error, entry, "a tool server's keychain entry could not be removed");
    }
}

/// Deletes every keychain entry of a server.
pub async fn delete_all(apps: &AppCtx, name: &str) -> Result<(), IntegrationError> {
    for entry in [
        env_entry(name),
        headers_entry(name),
        format!("mcp:{name}:oauth"),
        format!("mcp:{name}:client"),
    ] {
        forget(apps, &entry).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(transport: &str) -> NewMcpServer {
        NewMcpServer {
            name: "s".into(),
            transport: transport.into(),
            ..NewMcpServer::default()
        }
    }

    #[test]
    fn plain_http_to_another_computer_is_told_apart_from_loopback() {
        assert!(is_plain_remote("http://example.com/mcp"));
        assert!(is_plain_remote("http://127.example.com/mcp"));
        assert!(!is_plain_remote("http://localhost:3000/mcp"));
        assert!(!is_plain_remote("http://127.0.0.1:3000/mcp"));
        assert!(!is_plain_remote("http://[::1]:3000/mcp"));
        assert!(!is_plain_remote("https://example.com/mcp"));
    }

    #[test]
    fn new_servers_are_checked() {
        let mut s = server("stdio");
        assert!(check_new(&s).is_err(), "a program needs its command");
        s.command = Some("npx".into());
        s.headers = Some(BTreeMap::from([("Authorization".into(), "x".into())]));
        assert!(check_new(&s).is_err(), "a program takes no headers");
        s.headers = None;
        s.env = Some(BTreeMap::from([("API_KEY".into(), "k".into())]));
        let checked = check_new(&s).expect("ok");
        assert_eq!(checked.config.env_keys, ["API_KEY"]);
        s.env = Some(BTreeMap::from([("BAD KEY".into(), "k".into())]));
        assert!(check_new(&s).is_err());

        let mut h = server("http");
        assert!(check_new(&h).is_err(), "a remote server needs its address");
        h.url = Some("https://mcp.example.com/mcp".into());
        h.auth = Some("headers".into());
        assert!(check_new(&h).is_err(), "headers auth needs headers");
        h.headers = Some(BTreeMap::from([(
            "Authorization".into(),
            "Bearer a\nb".into(),
        )]));
        assert!(check_new(&h).is_err(), "no line breaks");
        h.headers = Some(BTreeMap::from([(
            "Authorization".into(),
            "Bearer ab".into(),
        )]));
        let checked = check_new(&h).expect("ok");
        assert_eq!(checked.config.auth, McpAuth::Headers);
        h.url = Some("http://mcp.example.com/mcp".into());
        assert!(
            check_new(&h).is_err(),
            "no header values over plain http to elsewhere"
        );
        h.url = Some("http://127.0.0.1:9/mcp".into());
        assert!(check_new(&h).is_ok());
        assert!(check_new(&server("ftp")).is_err());
    }

    #[test]
    fn missing_values_are_named_not_shown() {
        let config = McpServerConfig {
            env_keys: vec!["A".into(), "B".into()],
            ..McpServerConfig::default()
        };
        let secrets = Secrets {
            env: BTreeMap::from([("A".into(), "x".into()), ("B".into(), " ".into())]),
            headers: BTreeMap::new(),
        };
        assert_eq!(missing(&config, &secrets), ["B"]);
    }
}
