//! GitHub (contract section 5): a personal access token checked with `GET /user`, or, when
//! `integrations.github_oauth_client_id` is set and no token is given, the device flow (the
//! person types a code at github.com/login/device). The token lives in the keychain entry
//! `github`, which Settings > Secrets lists.

pub mod tools;

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::ctx::AppCtx;
use crate::error::IntegrationError;
use crate::state::AppState;
use crate::wire::ConnectAnswer;

/// The keychain entry of the token.
pub const SECRET: &str = "github";

/// The token, from the keychain.
pub async fn token(apps: &AppCtx) -> Result<String, IntegrationError> {
    apps.secrets().get(SECRET).await?.ok_or_else(|| {
        IntegrationError::Invalid("GitHub isn't connected. Connect it in Integrations.".to_owned())
    })
}

/// One REST call with the token; a plain sentence for each way it can fail.
pub async fn request(
    apps: &AppCtx,
    method: reqwest::Method,
    path: &str,
    query: &[(&str, String)],
    body: Option<Value>,
) -> Result<Value, IntegrationError> {
    let token = token(apps).await?;
    call(apps, &token, method, path, query, body).await
}

async fn call(
    apps: &AppCtx,
    token: &str,
    method: reqwest::Method,
    path: &str,
    query: &[(&str, String)],
    body: Option<Value>,
) -> Result<Value, IntegrationError> {
    let base = apps.endpoints().github_api.trim_end_matches('/');
    let mut builder = crate::ctx::http_client()
        .request(method, format!("{base}{path}"))
        .bearer_auth(token)
        .header("Accept", "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
        .query(query);
    if let Some(body) = body {
        builder = builder.json(&body);
    }
    let response = builder.send().await.map_err(|e| {
        IntegrationError::Service(format!("GitHub couldn't be reached: {}", short(&e)))
    })?;
    let status = response.status();
    let value: Value = response.json().await.unwrap_or(Value::Null);
    if status.is_success() {
        return Ok(value);
    }
    let said = value.get("message").and_then(Value::as_str).unwrap_or("");
    Err(IntegrationError::Service(match status.as_u16() {
        401 => "GitHub didn't accept the token. Create a new one and connect again.".to_owned(),
        403 if said.to_lowercase().contains("rate limit") => {
            "GitHub's request limit is reached for now. Try again in a few minutes.".to_owned()
        }
        403 => format!("The token isn't allowed to do that on GitHub ({said})."),
        404 => "GitHub found no such repository or issue, or the token can't see it.".to_owned(),
        422 => format!("GitHub refused the request: {said}"),
        code => format!("GitHub answered {code}: {said}"),
    }))
}

fn short(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "it didn't answer in time".to_owned()
    } else if error.is_connect() {
        "no connection".to_owned()
    } else {
        "the request failed".to_owned()
    }
}

/// Checks the token and returns the account's login.
async fn login_of(apps: &AppCtx, token: &str) -> Result<String, IntegrationError> {
    let user = call(apps, token, reqwest::Method::GET, "/user", &[], None)
        .await
        .map_err(|e| match e {
            IntegrationError::Service(text) => IntegrationError::Invalid(text),
            other => other,
        })?;
    Ok(user
        .get("login")
        .and_then(Value::as_str)
        .unwrap_or("GitHub")
        .to_owned())
}

/// Connects with a token, or starts the device flow.
pub async fn connect(
    apps: &AppCtx,
    fields: &Map<String, Value>,
) -> Result<Option<String>, IntegrationError> {
    let token = fields
        .get("token")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
    if token.is_empty() {
        return Err(IntegrationError::Invalid(
            "Paste a GitHub personal access token.".to_owned(),
        ));
    }
    if token.contains(char::is_whitespace) {
        return Err(IntegrationError::Invalid(
            "A GitHub token has no spaces; copy it again.".to_owned(),
        ));
    }
    let login = login_of(apps, token).await?;
    apps.secrets().put(SECRET, token).await?;
    Ok(Some(login))
}

/// Whether a connect should start the device flow instead (a client id is set, no token given).
pub fn wants_device_flow(apps: &AppCtx, fields: &Map<String, Value>) -> bool {
    let client_id = &apps.config().current().integrations.github_oauth_client_id;
    let token_given = fields
        .get("token")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty());
    !client_id.trim().is_empty() && !token_given
}

#[derive(Deserialize)]
struct DeviceCode {
    device_code: String,
    user_code: String,
    verification_uri: String,
    #[serde(default)]
    interval: Option<u64>,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// Starts GitHub's device flow: the answer names the code to type; the token arrives in the
/// background and the app turns connected (`integration.updated`).
pub async fn start_device_flow(apps: &AppCtx) -> Result<ConnectAnswer, IntegrationError> {
    let client_id = apps
        .config()
        .current()
        .integrations
        .github_oauth_client_id
        .trim()
        .to_owned();
    let web = apps.endpoints().github_web.trim_end_matches('/').to_owned();
    let response = crate::ctx::http_client()
        .post(format!("{web}/login/device/code"))
        .header("Accept", "application/json")
        .form(&[("client_id", client_id.as_str()), ("scope", "repo")])
        .send()
        .await
        .map_err(|e| {
            IntegrationError::Invalid(format!("GitHub couldn't be reached: {}", short(&e)))
        })?;
    if !response.status().is_success() {
        return Err(IntegrationError::Invalid(
            "GitHub refused to start the sign-in. Check integrations.github_oauth_client_id."
                .to_owned(),
        ));
    }
    let code: DeviceCode = response.json().await.map_err(|_| {
        IntegrationError::Invalid("GitHub's answer to the sign-in wasn't understood.".to_owned())
    })?;
    let state = sentient_core::store::new_id();
    let answer = ConnectAnswer::SignIn {
        auth_url: code.verification_uri.clone(),
        state,
        user_code: Some(code.user_code.clone()),
    };
    let apps = apps.clone();
    tokio::spawn(async move {
        let outcome = poll_device_flow(&apps, &web, &client_id, &code).await;
        match outcome {
            Ok(token) => match login_of(&apps, &token).await {
                Ok(login) => {
                    if let Err(error) = apps.secrets().put(SECRET, &token).await {
                        apps.set_state("github", AppState::failed(error.to_string(), None))
                            .await;
                        return;
                    }
                    apps.set_state("github", AppState::connected(Some(login)))
                        .await;
                }
                Err(error) => {
                    apps.set_state("github", AppState::failed(error.to_string(), None))
                        .await;
                }
            },
            Err(error) => {
                if apps.state("github").status == "connecting" {
                    apps.set_state("github", AppState::failed(error.to_string(), None))
                        .await;
                }
            }
        }
    });
    Ok(answer)
}

/// Polls for the token at the interval GitHub asks, slowing down when told to.
async fn poll_device_flow(
    apps: &AppCtx,
    web: &str,
    client_id: &str,
    code: &DeviceCode,
) -> Result<String, IntegrationError> {
    let mut interval = Duration::from_secs(code.interval.unwrap_or(5).max(1));
    let deadline =
        tokio::time::Instant::now() + Duration::from_secs(code.expires_in.unwrap_or(900).min(900));
    let shutdown = apps.shutdown().clone();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return Err(IntegrationError::Invalid("Sentient was closed during the sign-in.".to_owned())),
            () = tokio::time::sleep(interval) => {}
        }
        // A disconnect (or the window's Cancel) ends the wait.
        if apps.state("github").status != "connecting" {
            return Err(IntegrationError::Invalid(
                "The GitHub sign-in was cancelled.".to_owned(),
            ));
        }
        if tokio::time::Instant::now() > deadline {
            return Err(IntegrationError::Invalid(
                "The GitHub sign-in code expired. Connect again to get a new one.".to_owned(),
            ));
        }
        let response = crate::ctx::http_client()
            .post(format!("{web}/login/oauth/access_token"))
            .header("Accept", "application/json")
            .form(&[
                ("client_id", client_id),
                ("device_code", code.device_code.as_str()),
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ])
            .send()
            .await;
        let Ok(response) = response else { continue };
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        if let Some(token) = answer.get("access_token").and_then(Value::as_str) {
            return Ok(token.to_owned());
        }
        match answer.get("error").and_then(Value::as_str) {
            Some("authorization_pending") | None => {}
            Some("slow_down") => {
                let asked = answer.get("interval").and_then(Value::as_u64);
                interval = asked.map_or(interval + Duration::from_secs(5), Duration::from_secs);
            }
            Some("expired_token") => {
                return Err(IntegrationError::Invalid(
                    "The GitHub sign-in code expired. Connect again to get a new one.".to_owned(),
                ));
            }
            Some("access_denied") => {
                return Err(IntegrationError::Invalid(
                    "The GitHub sign-in was cancelled.".to_owned(),
                ));
            }
            Some(other) => {
                return Err(IntegrationError::Invalid(format!(
                    "GitHub refused the sign-in ({other})."
                )));
            }
        }
    }
}

/// Checks the saved token.
pub async fn test(apps: &AppCtx) -> Result<String, IntegrationError> {
    let token = token(apps).await?;
    let login = login_of(apps, &token).await?;
    Ok(format!("Connected to GitHub as {login}."))
}

/// Deletes the token (disconnect).
pub async fn forget(apps: &AppCtx) -> Result<(), IntegrationError> {
    apps.secrets().delete(SECRET).await?;
    Ok(())
}

/// The item shape of an issue or pull request.
pub fn issue_item(issue: &Value) -> Value {
    let text = |k: &str| issue.get(k).and_then(Value::as_str).unwrap_or_default();
    let repo = text("repository_url")
        .rsplit("/repos/")
        .next()
        .unwrap_or_default()
        .to_owned();
    json!({
        "repo": repo,
        "number": issue.get("number"),
        "title": text("title"),
        "state": text("state"),
        "author": issue.pointer("/user/login"),
        "labels": issue.get("labels").and_then(Value::as_array).map(|l| {
            l.iter().filter_map(|x| x.get("name").and_then(Value::as_str)).collect::<Vec<_>>()
        }).unwrap_or_default(),
        "comments": issue.get("comments"),
        "is_pull_request": issue.get("pull_request").is_some(),
        "created_at": text("created_at"),
        "updated_at": text("updated_at"),
        "url": text("html_url"),
        "body": text("body").chars().take(4000).collect::<String>(),
    })
}
