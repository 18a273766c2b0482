//! Browser sign-ins (contract sections 3 and 5): one loopback listener,
//! `http://127.0.0.1:<port>/oauth/callback` (`integrations.oauth_redirect_port`, 0 = a free
//! port), started at the first sign-in and shared by every app that signs in this way. Each
//! sign-in is a pending `state` with its PKCE (S256) verifier; a forged, expired (15 minutes) or
//! reused `state` is refused, and the page says "You're connected" or "Connection failed".

use sentient_core::sync::MutexExt;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::response::Html;
use axum::routing::get;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use futures::future::BoxFuture;

use crate::ctx::AppCtx;
use crate::error::IntegrationError;

/// How long a sign-in waits for the browser.
pub const SIGN_IN_WINDOW: Duration = Duration::from_secs(15 * 60);

/// A PKCE pair: the verifier kept here, the challenge sent to the provider.
#[derive(Debug, Clone)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    pub fn new() -> Self {
        let bytes: [u8; 32] = rand::random();
        let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        Self {
            challenge: challenge_of(&verifier),
            verifier,
        }
    }
}

impl Default for Pkce {
    fn default() -> Self {
        Self::new()
    }
}

/// A tool server's authorization server endpoints, as discovered (`mcp::sign_in`); here beside
/// [`Pkce`] because a pending sign-in carries them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Metadata {
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The resource to ask tokens for (RFC 8707).
    pub resource: String,
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// The S256 challenge of a verifier: base64url(SHA-256(verifier)), no padding.
pub fn challenge_of(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// A sign-in waiting for its callback.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The app signing in (`gmail`, `gcalendar`, or `mcp:<server>`).
    pub app: String,
    pub verifier: String,
    pub redirect_uri: String,
    pub started: Instant,
    /// A tool server's authorization server, client and address.
    pub metadata: Option<Metadata>,
    pub client_id: Option<String>,
    pub server_url: Option<String>,
}

/// What the browser's return finishes: the app's token exchange and connection, or the
/// app's failure. The service answers for every app that signs in this way.
pub trait SignIns: Send + Sync {
    fn finish<'a>(
        &'a self,
        pending: &'a Pending,
        code: &'a str,
    ) -> BoxFuture<'a, Result<(), IntegrationError>>;
    fn failed<'a>(&'a self, app: &'a str, text: &'a str) -> BoxFuture<'a, ()>;
    /// The person said no on the provider's page: the app goes back as it was, not to Error.
    fn cancelled<'a>(&'a self, app: &'a str) -> BoxFuture<'a, ()>;
}

/// The listener and the sign-ins waiting on it; cheap to clone (the callback holds a copy).
#[derive(Clone)]
pub struct OAuthListener {
    shared: Arc<Shared>,
}

struct Shared {
    apps: AppCtx,
    sign_ins: Weak<dyn SignIns>,
    pending: Mutex<HashMap<String, Pending>>,
    /// The callback address, once listening.
    address: tokio::sync::Mutex<Option<String>>,
}

#[derive(serde::Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

fn page(ok: bool, detail: &str) -> Html<String> {
    let (title, text) = if ok {
        (
            "You're connected",
            "You can close this tab and go back to Sentient.",
        )
    } else {
        ("Connection failed", detail)
    };
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body style=\"font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto\">\
         <h1>{title}</h1><p>{}</p></body></html>",
        html_escape(text)
    ))
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl OAuthListener {
    /// `sign_ins` finishes what the browser brings back (the service, which outlives this).
    pub fn new(apps: AppCtx, sign_ins: Weak<dyn SignIns>) -> Self {
        Self {
            shared: Arc::new(Shared {
                apps,
                sign_ins,
                pending: Mutex::default(),
                address: tokio::sync::Mutex::new(None),
            }),
        }
    }

    fn sign_ins(&self) -> Option<Arc<dyn SignIns>> {
        self.shared.sign_ins.upgrade()
    }

    /// The callback address, starting the listener on first use.
    pub async fn redirect_uri(&self) -> Result<String, IntegrationError> {
        let mut address = self.shared.address.lock().await;
        if let Some(uri) = address.as_ref() {
            return Ok(uri.clone());
        }
        let port = self
            .shared
            .apps
            .config()
            .current()
            .integrations
            .oauth_redirect_port;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| {
                IntegrationError::Invalid(format!(
                    "Port {port} on this computer is busy ({e}), so sign-ins can't come back. Set integrations.oauth_redirect_port to 0 or a free port."
                ))
            })?;
        let bound = listener
            .local_addr()
            .map_err(|e| IntegrationError::Internal(e.to_string()))?
            .port();
        let uri = format!("http://127.0.0.1:{bound}/oauth/callback");
        let app = axum::Router::new()
            .route("/oauth/callback", get(callback))
            .with_state(self.clone());
        let shutdown = self.shared.apps.shutdown().clone();
        tokio::spawn(async move {
            let serving =
                axum::serve(listener, app).with_graceful_shutdown(shutdown.cancelled_owned());
            if let Err(error) = serving.await {
                tracing::warn!(%error, "the sign-in listener stopped");
            }
        });
        tracing::info!(%uri, "sign-in listener started");
        *address = Some(uri.clone());
        Ok(uri)
    }

    /// Records a sign-in; returns its `state`.
    pub fn begin(&self, app: &str, verifier: String, redirect_uri: String) -> String {
        self.begin_with(app, verifier, redirect_uri, None, None, None)
    }

    /// [`OAuthListener::begin`] for a tool server, with what its token exchange needs.
    pub fn begin_with(
        &self,
        app: &str,
        verifier: String,
        redirect_uri: String,
        metadata: Option<Metadata>,
        client_id: Option<String>,
        server_url: Option<String>,
    ) -> String {
        let state = sentient_core::store::new_id();
        let mut pending = self.shared.pending.lock_unpoisoned();
        pending.retain(|_, p| p.started.elapsed() < SIGN_IN_WINDOW);
        pending.insert(
            state.clone(),
            Pending {
                app: app.to_owned(),
                verifier,
                redirect_uri,
                started: Instant::now(),
                metadata,
                client_id,
                server_url,
            },
        );
        state
    }

    /// Takes a pending sign-in once; `None` for a forged, expired or used `state`.
    pub fn take(&self, state: &str) -> Option<Pending> {
        let pending = self.shared.pending.lock_unpoisoned().remove(state)?;
        (pending.started.elapsed() < SIGN_IN_WINDOW).then_some(pending)
    }

    /// Whether a sign-in of `app` waits for the browser.
    pub fn is_pending(&self, app: &str) -> bool {
        self.shared
            .pending
            .lock_unpoisoned()
            .values()
            .any(|p| p.app == app && p.started.elapsed() < SIGN_IN_WINDOW)
    }

    /// Drops the app's waiting sign-ins (a disconnect or a new connect).
    pub fn cancel(&self, app: &str) {
        self.shared
            .pending
            .lock_unpoisoned()
            .retain(|_, p| p.app != app);
    }

    /// Keeps a sign-in's deadline: after [`SIGN_IN_WINDOW`] a still-connecting app turns back.
    pub fn expire_later(&self, app: &str) {
        let listener = self.clone();
        let app = app.to_owned();
        tokio::spawn(async move {
            tokio::time::sleep(SIGN_IN_WINDOW).await;
            if listener.shared.apps.state(&app).status == "connecting"
                && let Some(sign_ins) = listener.sign_ins()
            {
                sign_ins
                    .failed(
                        &app,
                        "The sign-in wasn't finished within 15 minutes. Connect again.",
                    )
                    .await;
            }
        });
    }
}

async fn callback(
    State(listener): State<OAuthListener>,
    Query(query): Query<Callback>,
) -> (axum::http::StatusCode, Html<String>) {
    let bad = |text: &str| (axum::http::StatusCode::BAD_REQUEST, page(false, text));
    let Some(sign_ins) = listener.sign_ins() else {
        return bad("Sentient is closing. Try again after it starts.");
    };
    let Some(state) = query.state.as_deref() else {
        return bad("This sign-in link is not from Sentient.");
    };
    let Some(pending) = listener.take(state) else {
        return bad(
            "This sign-in is not waiting any more (it was used, it expired after 15 minutes, or it is not from Sentient). Connect again from Sentient.",
        );
    };
    if let Some(error) = query.error.as_deref() {
        if error == "access_denied" {
            sign_ins.cancelled(&pending.app).await;
            return bad("The sign-in was cancelled. Nothing was changed.");
        }
        let text = format!("The provider refused the sign-in ({error}).");
        sign_ins.failed(&pending.app, &text).await;
        return bad(&text);
    }
    let Some(code) = query.code.as_deref() else {
        sign_ins
            .failed(&pending.app, "The provider sent no code.")
            .await;
        return bad("The provider sent no code.");
    };
    match sign_ins.finish(&pending, code).await {
        Ok(()) => (axum::http::StatusCode::OK, page(true, "")),
        Err(error) => {
            let text = error.to_string();
            sign_ins.failed(&pending.app, &text).await;
            bad(&text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_s256_of_the_verifier() {
        // RFC 7636, appendix B.
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let pkce = Pkce::new();
        assert_eq!(pkce.verifier.len(), 43);
        assert_eq!(challenge_of(&pkce.verifier), pkce.challenge);
        assert_ne!(Pkce::new().verifier, pkce.verifier);
    }

    #[test]
    fn pages_escape_what_they_show() {
        let Html(text) = page(false, "<script>x</script>");
        assert!(text.contains("Connection failed") && text.contains("&lt;script&gt;"));
        let Html(text) = page(true, "");
        assert!(text.contains("You're connected"));
    }
}
