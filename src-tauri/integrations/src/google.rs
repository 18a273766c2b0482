//! Google sign-in for Gmail and Calendar: one Desktop OAuth client shared by both, stored once
//! in the keychain (`google:client`), a sign-in per app (`<app>:oauth`: access token, refresh
//! token, expiry), tokens refreshed 60 s before they expire and once after a 401.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ctx::AppCtx;
use crate::error::IntegrationError;
use crate::oauth::{OAuthListener, Pending, Pkce};
use crate::state::AppState;
use crate::wire::ConnectAnswer;

const CLIENT_ENTRY: &str = "google:client";
/// Tokens are refreshed this long before they expire.
const REFRESH_EARLY: i64 = 60;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Client {
    client_id: String,
    client_secret: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Tokens {
    access_token: String,
    refresh_token: Option<String>,
    expires_at: DateTime<Utc>,
}

fn tokens_entry(app: &str) -> String {
    format!("{app}:oauth")
}

fn scope(app: &str) -> &'static str {
    match app {
        "gcalendar" => "https://www.googleapis.com/auth/calendar",
        _ => "https://www.googleapis.com/auth/gmail.modify",
    }
}

/// The client built into this copy of Sentient: whoever packages it sets
/// `SENTIENT_GOOGLE_CLIENT_ID` and `SENTIENT_GOOGLE_CLIENT_SECRET` when building, so a person
/// only signs in.
fn built_in_client() -> Option<Client> {
    client_from(
        option_env!("SENTIENT_GOOGLE_CLIENT_ID"),
        option_env!("SENTIENT_GOOGLE_CLIENT_SECRET"),
    )
}

fn client_from(id: Option<&str>, secret: Option<&str>) -> Option<Client> {
    let (id, secret) = (id?.trim(), secret?.trim());
    (!id.is_empty() && !secret.is_empty()).then(|| Client {
        client_id: id.to_owned(),
        client_secret: secret.to_owned(),
    })
}

/// Whether this copy has a client built in.
pub fn has_built_in_client() -> bool {
    built_in_client().is_some()
}

/// The setup steps when a client is built in: nothing to make, only a sign-in.
pub const BUILT_IN_STEPS: &str = "1. Press Connect and sign in with your Google account in the browser.\n2. Allow Sentient the access it asks for.\n\nAn OAuth client of your own can be entered instead; most people don't need one.";

/// Whether a client is there, saved or built in (the setup fields turn optional).
pub async fn has_client(apps: &AppCtx) -> bool {
    built_in_client().is_some()
        || matches!(apps.secrets().read_entry(CLIENT_ENTRY).await, Ok(Some(_)))
}

/// The saved client (the person's own wins), else the built-in one.
async fn client(apps: &AppCtx) -> Result<Client, IntegrationError> {
    let text = apps.secrets().read_entry(CLIENT_ENTRY).await?;
    text.and_then(|t| serde_json::from_str(&t).ok())
        .or_else(built_in_client)
        .ok_or_else(|| {
            IntegrationError::Invalid(
                "Enter your Google OAuth client ID and secret first.".to_owned(),
            )
        })
}

/// Checks a pasted client ID and secret by their form; the sentence names the setup step
/// to go back to.
pub fn check_client_format(id: &str, secret: &str) -> Result<(), IntegrationError> {
    let step = |text: &str| Err(IntegrationError::Invalid(text.to_owned()));
    const ID_END: &str = ".apps.googleusercontent.com";
    if id.is_empty() || secret.is_empty() {
        return step("Step 4: enter both the client ID and the client secret.");
    }
    if secret.ends_with(ID_END) && !id.ends_with(ID_END) {
        return step(
            "Step 4: the client ID and the secret are swapped; the ID is the one ending in .apps.googleusercontent.com.",
        );
    }
    let (number, rest) = id.split_once('-').unwrap_or(("", id));
    let id_ok = rest.strip_suffix(ID_END).is_some_and(|middle| {
        !middle.is_empty() && middle.chars().all(|c| c.is_ascii_alphanumeric())
    }) && !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit());
    if !id_ok {
        return step(
            "Step 4: that isn't a Google client ID. It looks like 123456789012-abc123.apps.googleusercontent.com; copy it from your Desktop app client under Credentials.",
        );
    }
    let secret_ok = (20..=64).contains(&secret.len())
        && secret
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !secret_ok {
        return step(
            "Step 4: that isn't a Google client secret. It usually starts with GOCSPX-; copy it from the same client (Download JSON also shows it).",
        );
    }
    Ok(())
}

/// A test sign-in with the pasted client: a made-up code is sent to Google's token endpoint,
/// which refuses the code (the client is fine) or the client itself (it isn't).
async fn try_client(apps: &AppCtx, client: &Client) -> Result<(), IntegrationError> {
    let response = crate::ctx::http_client()
        .post(&apps.endpoints().google_token)
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", "sentient-client-check"),
            ("client_id", client.client_id.as_str()),
            ("client_secret", client.client_secret.as_str()),
            ("redirect_uri", "http://127.0.0.1"),
            ("code_verifier", "sentient-client-check-sentient-client-check-00"),
        ])
        .send()
        .await
        .map_err(|_| {
            IntegrationError::Service(
                "Google couldn't be reached to check the client. Check the connection and try again."
                    .to_owned(),
            )
        })?;
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let said = body.get("error").and_then(Value::as_str).unwrap_or("");
    let text = match said {
        // The code was refused, so the client was accepted.
        "invalid_grant" => return Ok(()),
        "invalid_client" => {
            "Step 4: Google doesn't know this client ID and secret together. Copy both again from the same Desktop app client."
        }
        "deleted_client" => {
            "Step 3: this OAuth client was deleted in Google Cloud Console. Create a new one of type Desktop app."
        }
        "unauthorized_client" | "redirect_uri_mismatch" => {
            "Step 3: this client isn't of type Desktop app. Create an OAuth client ID of type Desktop app and paste that one."
        }
        "" => "Google's answer to the test sign-in wasn't understood. Try again in a moment.",
        other => {
            return Err(IntegrationError::Invalid(format!(
                "Google refused the test sign-in ({other}). Check steps 3 and 4."
            )));
        }
    };
    Err(IntegrationError::Invalid(text.to_owned()))
}

/// Saves the client from the fields (when given) and starts the browser sign-in.
pub async fn start_sign_in(
    apps: &AppCtx,
    oauth: &OAuthListener,
    app: &str,
    fields: &Map<String, Value>,
) -> Result<ConnectAnswer, IntegrationError> {
    let text = |k: &str| {
        fields
            .get(k)
            .and_then(Value::as_str)
            .map_or("", str::trim)
            .to_owned()
    };
    let (id, secret) = (text("client_id"), text("client_secret"));
    if !id.is_empty() || !secret.is_empty() {
        check_client_format(&id, &secret)?;
        let pasted = Client {
            client_id: id,
            client_secret: secret,
        };
        try_client(apps, &pasted).await?;
        let saved = serde_json::to_string(&pasted)
            .map_err(|e| IntegrationError::Internal(e.to_string()))?;
        apps.secrets().write_entry(CLIENT_ENTRY, &saved).await?;
    }
    let client = client(apps).await?;
    let redirect_uri = oauth.redirect_uri().await?;
    let pkce = Pkce::new();
    oauth.cancel(app);
    let state = oauth.begin(app, pkce.verifier, redirect_uri.clone());
    let mut url = reqwest::Url::parse(&apps.endpoints().google_auth)
        .map_err(|e| IntegrationError::Internal(e.to_string()))?;
    url.query_pairs_mut()
        .append_pair("client_id", &client.client_id)
        .append_pair("redirect_uri", &redirect_uri)
        .append_pair("response_type", "code")
        .append_pair("scope", scope(app))
        .append_pair("code_challenge", &pkce.challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", &state)
        .append_pair("access_type", "offline")
        .append_pair("prompt", "consent");
    oauth.expire_later(app);
    Ok(ConnectAnswer::SignIn {
        auth_url: url.to_string(),
        state,
        user_code: None,
    })
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    refresh_token: Option<String>,
    expires_in: Option<i64>,
}

async fn token_request(
    apps: &AppCtx,
    form: &[(&str, &str)],
) -> Result<TokenAnswer, IntegrationError> {
    let response = crate::ctx::http_client()
        .post(&apps.endpoints().google_token)
        .form(form)
        .send()
        .await
        .map_err(|_| {
            IntegrationError::Service(
                "Google couldn't be reached. Check the connection and try again.".to_owned(),
            )
        })?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        let said = body.get("error").and_then(Value::as_str).unwrap_or("");
        return Err(IntegrationError::Invalid(match said {
            "invalid_grant" => {
                "Google didn't accept the sign-in any more. Connect again.".to_owned()
            }
            "invalid_client" => {
                "Google didn't accept the OAuth client. Check its ID and secret.".to_owned()
            }
            _ => format!("Google refused the sign-in ({said})."),
        }));
    }
    serde_json::from_value(body)
        .map_err(|_| IntegrationError::Service("Google's answer wasn't understood.".to_owned()))
}

/// The callback's code of a Gmail or Calendar sign-in: exchanged for tokens and saved; the
/// app then counts as connected.
pub async fn finish_sign_in(
    apps: &AppCtx,
    pending: &Pending,
    code: &str,
) -> Result<(), IntegrationError> {
    let client = client(apps).await?;
    let answer = token_request(
        apps,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", &client.client_id),
            ("client_secret", &client.client_secret),
            ("redirect_uri", &pending.redirect_uri),
            ("code_verifier", &pending.verifier),
        ],
    )
    .await?;
    let tokens = Tokens {
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: apps.clock().now()
            + chrono::Duration::seconds(answer.expires_in.unwrap_or(3600)),
    };
    save_tokens(apps, &pending.app, &tokens).await?;
    let account = match account_of(apps, &pending.app).await {
        Ok(account) => Some(account),
        // The sign-in worked but the project can't use the API yet.
        Err(error) if api_turned_off(&error) => {
            apps.secrets()
                .delete_entry(&tokens_entry(&pending.app))
                .await?;
            return Err(IntegrationError::Invalid(format!(
                "Step 2: the {} API is off in your Google Cloud project. Turn it on under APIs & Services > Library, wait a minute, then connect again.",
                name(&pending.app)
            )));
        }
        Err(_) => None,
    };
    apps.set_state(&pending.app, AppState::connected(account))
        .await;
    Ok(())
}

async fn save_tokens(apps: &AppCtx, app: &str, tokens: &Tokens) -> Result<(), IntegrationError> {
    let text =
        serde_json::to_string(tokens).map_err(|e| IntegrationError::Internal(e.to_string()))?;
    apps.secrets()
        .write_entry(&tokens_entry(app), &text)
        .await?;
    Ok(())
}

/// The app's access token, refreshed when it expires within a minute (or `force`).
async fn access_token(apps: &AppCtx, app: &str, force: bool) -> Result<String, IntegrationError> {
    let text = apps.secrets().read_entry(&tokens_entry(app)).await?;
    let mut tokens: Tokens = text
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| {
            IntegrationError::Invalid(format!(
                "{} isn't connected. Connect it in Integrations.",
                name(app)
            ))
        })?;
    let now = apps.clock().now();
    if force || tokens.expires_at - chrono::Duration::seconds(REFRESH_EARLY) <= now {
        let Some(refresh) = tokens.refresh_token.clone() else {
            return Err(IntegrationError::Invalid(format!(
                "The {} sign-in expired. Connect it again.",
                name(app)
            )));
        };
        let client = client(apps).await?;
        let answer = token_request(
            apps,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &refresh),
                ("client_id", &client.client_id),
                ("client_secret", &client.client_secret),
            ],
        )
        .await?;
        tokens.access_token = answer.access_token;
        if answer.refresh_token.is_some() {
            tokens.refresh_token = answer.refresh_token;
        }
        tokens.expires_at = now + chrono::Duration::seconds(answer.expires_in.unwrap_or(3600));
        save_tokens(apps, app, &tokens).await?;
    }
    Ok(tokens.access_token)
}

fn name(app: &str) -> &'static str {
    if app == "gcalendar" {
        "Google Calendar"
    } else {
        "Gmail"
    }
}

/// A Google API call with the app's token; a 401 refreshes once and tries again. Answers the
/// status and the JSON body (`Null` when empty).
pub async fn call(
    apps: &AppCtx,
    app: &str,
    method: reqwest::Method,
    url: &str,
    query: &[(&str, String)],
    body: Option<&Value>,
) -> Result<(u16, Value), IntegrationError> {
    let mut forced = false;
    loop {
        let token = access_token(apps, app, forced).await?;
        let mut request = crate::ctx::http_client()
            .request(method.clone(), url)
            .bearer_auth(&token)
            .query(query);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|_| {
            IntegrationError::Service(format!(
                "{} couldn't be reached. Try again in a moment.",
                name(app)
            ))
        })?;
        let status = response.status().as_u16();
        if status == 401 && !forced {
            forced = true;
            continue;
        }
        let value = response.json().await.unwrap_or(Value::Null);
        return Ok((status, value));
    }
}

/// [`call`] that turns every non-2xx answer into a plain error.
pub async fn call_ok(
    apps: &AppCtx,
    app: &str,
    method: reqwest::Method,
    url: &str,
    query: &[(&str, String)],
    body: Option<&Value>,
) -> Result<Value, IntegrationError> {
    let (status, value) = call(apps, app, method, url, query, body).await?;
    if (200..300).contains(&status) {
        return Ok(value);
    }
    let said = value
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Err(IntegrationError::Service(match status {
        401 => format!(
            "{} didn't accept the sign-in any more. Connect it again.",
            name(app)
        ),
        403 => format!("{} refused: {said}", name(app)),
        404 => format!("{} found nothing with that id.", name(app)),
        429 => format!("{} asks to slow down. Try again in a minute.", name(app)),
        _ => format!("{} answered {status}: {said}", name(app)),
    }))
}

/// The signed-in account's address.
async fn account_of(apps: &AppCtx, app: &str) -> Result<String, IntegrationError> {
    let endpoints = &apps.endpoints();
    let value = if app == "gcalendar" {
        let url = format!("{}/users/me/calendarList/primary", endpoints.calendar);
        call_ok(apps, app, reqwest::Method::GET, &url, &[], None).await?
    } else {
        let url = format!("{}/users/me/profile", endpoints.gmail);
        call_ok(apps, app, reqwest::Method::GET, &url, &[], None).await?
    };
    value
        .get("emailAddress")
        .or_else(|| value.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            IntegrationError::Service("Google didn't say which account this is.".to_owned())
        })
}

/// Google's 403 for a project that hasn't turned the API on.
fn api_turned_off(error: &IntegrationError) -> bool {
    let text = error.to_string();
    [
        "has not been used in project",
        "is disabled",
        "SERVICE_DISABLED",
        "accessNotConfigured",
    ]
    .iter()
    .any(|cue| text.contains(cue))
}

/// Checks the sign-in with one cheap call.
pub async fn test(apps: &AppCtx, app: &str) -> Result<String, IntegrationError> {
    let account = account_of(apps, app).await?;
    Ok(format!("Connected to {} as {account}.", name(app)))
}

/// Deletes the app's tokens (the shared client stays for the other app).
pub async fn forget(
    apps: &AppCtx,
    oauth: &OAuthListener,
    app: &str,
) -> Result<(), IntegrationError> {
    oauth.cancel(app);
    apps.secrets().delete_entry(&tokens_entry(app)).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_values_are_checked_and_the_sentence_names_the_step() {
        let id = "123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com";
        let secret = "GOCSPX-abcdefghijklmnopqrstuvwxyz01";
        assert!(check_client_format(id, secret).is_ok());
        let said = |id: &str, secret: &str| {
            check_client_format(id, secret)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(said(secret, id).contains("swapped"));
        assert!(said("my-project", secret).starts_with("Step 4: that isn't a Google client ID"));
        assert!(said("abc-x.apps.googleusercontent.com", secret).contains("client ID"));
        assert!(said(id, "GOCSPX-short").starts_with("Step 4: that isn't a Google client secret"));
        assert!(said(id, "GOCSPX-abcdefghijklmnop qrstuvwxyz01").contains("client secret"));
        assert!(said(id, "").contains("both"));
    }

    #[test]
    fn a_built_in_client_needs_both_values() {
        assert!(client_from(Some("1-a.apps.googleusercontent.com"), Some("s")).is_some());
        assert!(client_from(Some("1-a.apps.googleusercontent.com"), Some(" ")).is_none());
        assert!(client_from(None, Some("s")).is_none());
        assert!(api_turned_off(&IntegrationError::Service(
            "Gmail refused: Gmail API has not been used in project 1 before or it is disabled."
                .to_owned()
        )));
    }
}
