//! Host and Origin checks: a local API refuses what no legitimate client sends. A web page on the
//! internet can make a browser send requests to 127.0.0.1 under its own name (DNS rebinding) or
//! open a WebSocket from its own origin; the token still protects every route, and these checks
//! refuse such requests before they reach one.
//!
//! - `Host` must name this computer: a loopback name (`localhost`, `127.0.0.1`, `[::1]`) on the
//!   gateway; on the LAN listener also an IP address or a `.local` (mDNS) name, which is how
//!   devices reach it. A request without `Host` (HTTP/1.0, in-process tests) passes.
//! - `Origin`, when sent, must be the window's own (the Tauri scheme), a page on this computer
//!   (the gateway's URL, a development server on loopback), or the page's own host (the web
//!   device app the LAN listener serves). Browsers always send it on WebSocket upgrades and
//!   cross-site requests.
//!
//! Anything else answers 403 with one sentence. No route sends `Access-Control-Allow-*`, so a
//! foreign page's preflight gets nothing that would let it read an answer.

use std::net::IpAddr;

use axum::extract::Request;
use axum::http::header::{HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Which door a request came through, for the names it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The gateway on loopback: loopback names only.
    Loopback,
    /// The LAN listener: also IP addresses and `.local` names.
    Lan,
}

/// The host part of an authority (`name:port`, `[v6]:port`), lower-cased.
fn host_of(authority: &str) -> String {
    let authority = authority.trim().to_ascii_lowercase();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_owned();
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host.to_owned(),
        _ => authority,
    }
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `host` is a name this door answers to.
pub fn host_allowed(host: &str, names: Names) -> bool {
    is_loopback_name(host)
        || (names == Names::Lan && (host.parse::<IpAddr>().is_ok() || host.ends_with(".local")))
}

/// Whether a page at `origin` may talk to this door, for a request addressed to `host`.
pub fn origin_allowed(origin: &str, host: &str, names: Names) -> bool {
    let origin = origin.trim().to_ascii_lowercase();
    // The desktop window: tauri://localhost (Linux, macOS), http(s)://tauri.localhost (Windows).
    if origin == "tauri://localhost" {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") {
        return false;
    }
    let origin_host = host_of(authority);
    is_loopback_name(&origin_host) || (names == Names::Lan && origin_host == host)
}

/// The middleware: 403 for a foreign `Host` or `Origin`.
pub async fn check(names: Names, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    let host = host.map(|h| host_of(&h));
    if let Some(host) = &host
        && !host_allowed(host, names)
    {
        return ApiError::new(
            403,
            format!("Sentient only answers requests addressed to this computer, not to {host}."),
        )
        .into_response();
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("an unreadable origin");
        let allowed = origin_allowed(origin, host.as_deref().unwrap_or_default(), names);
        if !allowed {
            return ApiError::new(
                403,
                format!("Sentient does not accept requests from pages on {origin}."),
            )
            .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_name_this_computer() {
        for host in [
            "127.0.0.1:8765",
            "localhost:1",
            "[::1]:9",
            "LOCALHOST",
            "127.0.0.1",
        ] {
            assert!(host_allowed(&host_of(host), Names::Loopback), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8765",
            "192.168.1.5:8765",
            "sentient.local",
        ] {
            assert!(!host_allowed(&host_of(host), Names::Loopback), "{host}");
        }
        for host in [
            "192.168.1.5:8766",
            "[fe80::1]:8766",
            "my-laptop.local:8766",
            "localhost",
        ] {
            assert!(host_allowed(&host_of(host), Names::Lan), "{host}");
        }
        assert!(!host_allowed(&host_of("evil.example:8766"), Names::Lan));
    }

    #[test]
    fn origins_are_the_window_this_computer_or_the_page_itself() {
        let ok = [
            "tauri://localhost",
            "http://tauri.localhost",
            "http://127.0.0.1:8765",
            "http://localhost:5173",
        ];
        for origin in ok {
            assert!(
                origin_allowed(origin, "127.0.0.1", Names::Loopback),
                "{origin}"
            );
        }
        for origin in [
            "http://evil.example",
            "null",
            "file://",
            "https://127.0.0.1.evil.example",
        ] {
            assert!(
                !origin_allowed(origin, "127.0.0.1", Names::Loopback),
                "{origin}"
            );
        }
        // The web device app on the LAN listener: its own page.
        assert!(origin_allowed(
            "https://192.168.1.5:8766",
            "192.168.1.5",
            Names::Lan
        ));
        assert!(!origin_allowed(
            "https://192.168.1.9:8766",
            "192.168.1.5",
            Names::Lan
        ));
        assert!(!origin_allowed(
            "https://192.168.1.5:8766",
            "192.168.1.5",
            Names::Loopback
        ));
    }
}
