//! Signing in to a remote tool server (the MCP authorization spec, contract section 5): the
//! server's protected resource metadata (RFC 9728) names its authorization server, whose
//! metadata (RFC 8414) gives the endpoints; Sentient registers itself as a public client
//! (RFC 7591, `client_name: "Sentient"`) when it has no registration for this address and
//! redirect, then signs in with PKCE (S256) and the `resource` parameter (RFC 8707) through the
//! shared loopback listener. Tokens (`mcp:<name>:oauth`) record the server URL and the token
//! endpoint, so a refresh after a restart goes to the right place; the registration
//! (`mcp:<name>:client`) is kept across sign-outs.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ctx::AppCtx;
use crate::error::IntegrationError;
pub use crate::oauth::Metadata;
use crate::oauth::{OAuthListener, Pending, Pkce};

/// How long discovery and registration may take in all.
pub const DISCOVERY_LIMIT: Duration = Duration::from_secs(30);
/// Tokens are refreshed this long before they expire.
const REFRESH_EARLY: i64 = 60;

/// The pending sign-in's app name for server `name`.
pub fn pending_app(name: &str) -> String {
    format!("mcp:{name}")
}

fn oauth_entry(name: &str) -> String {
    format!("mcp:{name}:oauth")
}

fn client_entry(name: &str) -> String {
    format!("mcp:{name}:client")
}

/// A stored sign-in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The server URL the sign-in was made for.
    #[serde(default)]
    pub server_url: Option<String>,
    #[serde(default)]
    pub metadata: Option<Metadata>,
}

/// A stored client registration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Registration {
    pub client_id: String,
    pub redirect_uri: String,
    #[serde(default)]
    pub server_url: Option<String>,
}

fn invalid(text: &str) -> IntegrationError {
    IntegrationError::Invalid(text.to_owned())
}

async fn get_json(url: &str) -> Option<Value> {
    let response = crate::ctx::http_client()
        .get(url)
        .header("Accept", "application/json")
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.json().await.ok()
}

/// `https://host/.well-known/<kind>/path` and `https://host/.well-known/<kind>`.
fn well_known(url: &reqwest::Url, kind: &str) -> Vec<String> {
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{origin}/.well-known/{kind}{path}"));
    }
    out.push(format!("{origin}/.well-known/{kind}"));
    out
}

/// The `resource_metadata` URL in a 401's `WWW-Authenticate`, if the server gives one.
async fn challenge_metadata(server_url: &str) -> (bool, Option<String>) {
    let probe = crate::ctx::http_client()
        .post(server_url)
        .header("Accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "Sentient", "version": env!("CARGO_PKG_VERSION")}}}),
        )
        .send()
        .await;
    let Ok(response) = probe else {
        return (false, None);
    };
    let asked = response.status().as_u16() == 401;
    let url = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .and_then(|h| {
            let at = h.find("resource_metadata=")?;
            let rest = &h[at + "resource_metadata=".len()..];
            let rest = rest.trim_start_matches('"');
            Some(rest.split(['"', ',']).next().unwrap_or_default().to_owned())
        });
    (asked, url)
}

/// Finds the authorization server of `server_url`.
pub async fn discover(server_url: &str) -> Result<Metadata, IntegrationError> {
    let url = reqwest::Url::parse(server_url)
        .map_err(|_| invalid("The server's address isn't valid."))?;
    let (asked, from_challenge) = challenge_metadata(server_url).await;
    let mut candidates: Vec<String> = from_challenge.into_iter().collect();
    candidates.extend(well_known(&url, "oauth-protected-resource"));
    let mut resource_meta = None;
    for candidate in candidates {
        if let Some(found) = get_json(&candidate).await {
            resource_meta = Some(found);
            break;
        }
    }
    let Some(resource_meta) = resource_meta else {
        return Err(invalid(if asked {
            "This server asks for a sign-in but doesn't say where; it doesn't support signing in from Sentient."
        } else {
            "This server didn't ask for a sign-in, so there is nothing to sign in to."
        }));
    };
    let issuer = resource_meta
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|l| l.first())
        .and_then(Value::as_str)
        .ok_or_else(|| {
            invalid("This server doesn't name where to sign in, so Sentient can't sign in to it.")
        })?;
    let issuer_url = reqwest::Url::parse(issuer)
        .map_err(|_| invalid("This server names a sign-in address that isn't valid."))?;
    let mut meta = None;
    for candidate in well_known(&issuer_url, "oauth-authorization-server")
        .into_iter()
        .chain(well_known(&issuer_url, "openid-configuration"))
    {
        if let Some(found) = get_json(&candidate).await {
            meta = Some(found);
            break;
        }
    }
    let meta = meta.ok_or_else(|| {
        invalid("The server's sign-in service describes nothing, so Sentient can't sign in to it.")
    })?;
    let text = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_owned);
    let (Some(authorization_endpoint), Some(token_endpoint)) =
        (text("authorization_endpoint"), text("token_endpoint"))
    else {
        return Err(invalid(
            "The server's sign-in service is missing its endpoints.",
        ));
    };
    Ok(Metadata {
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: text("registration_endpoint"),
        resource: resource_meta
            .get("resource")
            .and_then(Value::as_str)
            .unwrap_or(server_url)
            .to_owned(),
        scopes: resource_meta
            .get("scopes_supported")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

async fn read<T: for<'de> Deserialize<'de>>(apps: &AppCtx, entry: &str) -> Option<T> {
    let text = apps.secrets().read_entry(entry).await.ok()??;
    serde_json::from_str(&text).ok()
}

async fn write<T: Serialize>(
    apps: &AppCtx,
    entry: &str,
    value: &T,
) -> Result<(), IntegrationError> {
    let text =
        serde_json::to_string(value).map_err(|e| IntegrationError::Internal(e.to_string()))?;
    apps.secrets().write_entry(entry, &text).await?;
    Ok(())
}

/// The registration for this server and redirect, registering when there is none.
async fn registration(
    apps: &AppCtx,
    name: &str,
    server_url: &str,
    redirect_uri: &str,
    meta: &Metadata,
) -> Result<Registration, IntegrationError> {
    if let Some(saved) = read::<Registration>(apps, &client_entry(name)).await
        && saved.redirect_uri == redirect_uri
        && saved.server_url.as_deref() == Some(server_url)
    {
        return Ok(saved);
    }
    let Some(endpoint) = &meta.registration_endpoint else {
        return Err(invalid(
            "This server's sign-in service doesn't let apps register, so Sentient can't sign in to it.",
        ));
    };
    let response = crate::ctx::http_client()
        .post(endpoint)
        .json(&json!({
            "client_name": "Sentient",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }))
        .send()
        .await
        .map_err(|_| invalid("The server's sign-in service didn't answer."))?;
    if !response.status().is_success() {
        return Err(invalid(
            "The server's sign-in service refused to register Sentient.",
        ));
    }
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let client_id = body
        .get("client_id")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("The server's sign-in service gave no client id."))?;
    let registration = Registration {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        server_url: Some(server_url.to_owned()),
    };
    write(apps, &client_entry(name), &registration).await?;
    Ok(registration)
}

/// Starts a browser sign-in: `(auth_url, state)`.
pub async fn start(
    apps: &AppCtx,
    oauth: &OAuthListener,
    name: &str,
    server_url: &str,
) -> Result<(String, String), IntegrationError> {
    let work = async {
        let meta = discover(server_url).await?;
        let redirect_uri = oauth.redirect_uri().await?;
        let registration = registration(apps, name, server_url, &redirect_uri, &meta).await?;
        Ok::<_, IntegrationError>((meta, redirect_uri, registration))
    };
    let (meta, redirect_uri, registration) = tokio::time::timeout(DISCOVERY_LIMIT, work)
        .await
        .map_err(|_| {
        invalid("The server's sign-in service didn't answer within 30 seconds.")
    })??;
    let pkce = Pkce::new();
    let app = pending_app(name);
    oauth.cancel(&app);
    let state = oauth.begin_with(
        &app,
        pkce.verifier,
        redirect_uri.clone(),
        Some(meta.clone()),
        Some(registration.client_id.clone()),
        Some(server_url.to_owned()),
    );
    let mut url = reqwest::Url::parse(&meta.authorization_endpoint)
        .map_err(|_| invalid("The server's sign-in address isn't valid."))?;
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &registration.client_id)
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", &meta.resource);
        if !meta.scopes.is_empty() {
            query.append_pair("scope", &meta.scopes.join(" "));
        }
    }
    Ok((url.to_string(), state))
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    refresh_token: Option<String>,
    expires_in: Option<i64>,
}

async fn token_request(
    endpoint: &str,
    form: &[(&str, &str)],
) -> Result<TokenAnswer, IntegrationError> {
    let response = crate::ctx::http_client()
        .post(endpoint)
        .header("Accept", "application/json")
        .form(form)
        .send()
        .await
        .map_err(|_| invalid("The server's sign-in service didn't answer."))?;
    if !response.status().is_success() {
        return Err(invalid(
            "The server's sign-in service didn't accept the sign-in. Sign in again.",
        ));
    }
    response.json().await.map_err(|_| {
        invalid("The server's sign-in service gave an answer Sentient didn't understand.")
    })
}

/// The callback's code: exchanged for tokens and stored.
pub async fn finish(
    apps: &AppCtx,
    name: &str,
    pending: &Pending,
    code: &str,
) -> Result<(), IntegrationError> {
    let (Some(meta), Some(client_id)) = (pending.metadata.clone(), pending.client_id.clone())
    else {
        return Err(IntegrationError::Internal(
            "a tool server sign-in without its metadata".to_owned(),
        ));
    };
    let answer = token_request(
        &meta.token_endpoint,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", &client_id),
            ("redirect_uri", &pending.redirect_uri),
            ("code_verifier", &pending.verifier),
            ("resource", &meta.resource),
        ],
    )
    .await?;
    let now = apps.clock().now();
    let tokens = Tokens {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: answer
            .expires_in
            .map(|s| now + chrono::Duration::seconds(s)),
        server_url: pending.server_url.clone(),
        metadata: Some(meta),
    };
    write(apps, &oauth_entry(name), &tokens).await
}

/// The bearer token for `server_url`: refreshed when it expires within a minute or `force`;
/// `None` when there is no usable sign-in.
pub async fn bearer(apps: &AppCtx, name: &str, server_url: &str, force: bool) -> Option<String> {
    let mut tokens: Tokens = read(apps, &oauth_entry(name)).await?;
    if tokens
        .server_url
        .as_deref()
        .is_some_and(|u| u != server_url)
    {
        return None;
    }
    let now = apps.clock().now();
    let due = tokens
        .expires_at
        .is_some_and(|at| at - chrono::Duration::seconds(REFRESH_EARLY) <= now);
    if !force && !due {
        return Some(tokens.access_token);
    }
    let refresh = tokens.refresh_token.clone()?;
    let meta = match tokens.metadata.clone() {
        Some(meta) => meta,
        None => discover(server_url).await.ok()?,
    };
    let client: Registration = read(apps, &client_entry(name)).await?;
    let answer = token_request(
        &meta.token_endpoint,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("client_id", &client.client_id),
            ("resource", &meta.resource),
        ],
    )
    .await
    .ok()?;
    tokens.access_token = answer.access_token;
    if answer.refresh_token.is_some() {
        tokens.refresh_token = answer.refresh_token;
    }
    tokens.expires_at = answer
        .expires_in
        .map(|s| now + chrono::Duration::seconds(s));
    tokens.metadata = Some(meta);
    tokens.server_url = Some(server_url.to_owned());
    write(apps, &oauth_entry(name), &tokens).await.ok()?;
    Some(tokens.access_token)
}

/// Whether a sign-in is stored.
pub async fn is_signed_in(apps: &AppCtx, name: &str) -> bool {
    read::<Tokens>(apps, &oauth_entry(name)).await.is_some()
}

/// Keeps or drops a stored sign-in when a remote server is (re)added at `new_url`: kept for the
/// same URL, dropped for another; a record without its URL is dropped only when this setup had
/// the server at another URL.
pub async fn settle_on_add(
    apps: &AppCtx,
    name: &str,
    new_url: &str,
    previous_url: Option<&str>,
) -> Result<(), IntegrationError> {
    let stored: Option<Tokens> = read(apps, &oauth_entry(name)).await;
    let registration: Option<Registration> = read(apps, &client_entry(name)).await;
    let recorded = stored
        .as_ref()
        .and_then(|t| t.server_url.clone())
        .or_else(|| registration.as_ref().and_then(|r| r.server_url.clone()));
    let drop = match recorded {
        Some(url) => url != new_url,
        None => previous_url.is_some_and(|p| !p.is_empty() && p != new_url),
    };
    if drop {
        apps.secrets().delete_entry(&oauth_entry(name)).await?;
        apps.secrets().delete_entry(&client_entry(name)).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_addresses_keep_the_path_first() {
        let url = reqwest::Url::parse("https://mcp.example.com/tools/mcp").expect("url");
        assert_eq!(
            well_known(&url, "oauth-protected-resource"),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource"
            ]
        );
        let root = reqwest::Url::parse("https://auth.example.com").expect("url");
        assert_eq!(
            well_known(&root, "oauth-authorization-server"),
            ["https://auth.example.com/.well-known/oauth-authorization-server"]
        );
    }
}
