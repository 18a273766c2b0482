//! Runs the LAN listener and its mDNS announcement as `nodes.lan_enabled`, `nodes.lan_port`
//! and `nodes.mdns_enabled` say, starting and stopping them live when the settings change.

use sentient_core::sync::MutexExt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Mutex;

use super::lan_listener::{self as lan, LanListener};
use super::mdns::Announcement;
use super::tls;
use crate::Services;
use crate::config::NodesConfig;
use crate::devices::model::LanStatus;

#[derive(Debug, Default)]
struct State {
    /// The port the listener runs on and the fingerprint it serves.
    running: Option<(SocketAddr, String)>,
    announcement: Option<Announcement>,
    error: Option<String>,
    /// The settings last applied: (lan_enabled, lan_port, mdns_enabled).
    applied: Option<(bool, u16, bool)>,
}

pub struct LanRuntime {
    tls_dir: PathBuf,
    listener: LanListener,
    state: Mutex<State>,
    /// One change at a time, so a quick on-off-on never races on the port.
    change: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for LanRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanRuntime")
            .field("tls_dir", &self.tls_dir)
            .finish_non_exhaustive()
    }
}

/// This computer's LAN addresses, or loopback when it has none (so the links still work here).
fn addresses() -> Vec<Ipv4Addr> {
    let ips = lan::lan_ipv4s();
    if ips.is_empty() {
        vec![Ipv4Addr::LOCALHOST]
    } else {
        ips
    }
}

impl LanRuntime {
    pub fn new(tls_dir: PathBuf) -> Self {
        Self {
            tls_dir,
            listener: LanListener::new(),
            state: Mutex::new(State::default()),
            change: tokio::sync::Mutex::new(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    pub fn status(&self, settings: &NodesConfig) -> LanStatus {
        let state = self.lock();
        let running = state
            .running
            .as_ref()
            .filter(|_| self.listener.running_addr().is_some());
        let port = running.map_or(settings.lan_port, |(addr, _)| addr.port());
        let (urls, web_urls) = if running.is_some() {
            addresses()
                .into_iter()
                .map(|ip| {
                    (
                        format!("wss://{ip}:{port}/ws/node"),
                        format!("https://{ip}:{port}/node/"),
                    )
                })
                .unzip()
        } else {
            (Vec::new(), Vec::new())
        };
        LanStatus {
            enabled: settings.lan_enabled,
            running: running.is_some(),
            port,
            urls,
            web_urls,
            fingerprint: running.map(|(_, fp)| fp.clone()),
            mdns: running.is_some() && state.announcement.is_some(),
            error: state.error.clone(),
        }
    }

    /// Brings the listener and the announcement in line with `settings`.
    pub async fn apply(&self, services: &Services, settings: &NodesConfig) {
        let _one = self.change.lock().await;
        let on = settings.enabled && settings.lan_enabled;
        let wanted = (on, settings.lan_port, settings.mdns_enabled);
        let previous = self.lock().applied;
        let running = self.listener.running_addr().is_some();
        if previous == Some(wanted) && (!on || running) {
            return;
        }
        // The announcement is cheap to redo; the listener restarts only when it must, because
        // restarting it disconnects every device on the network.
        if let Some(announcement) = self.lock().announcement.take() {
            announcement.stop();
        }
        let listener_changed = previous.map(|(was_on, port, _)| (was_on, port))
            != Some((on, settings.lan_port))
            || (on && !running);
        if listener_changed {
            self.listener.stop().await;
            services.devices().close_door(crate::devices::Door::Lan);
            let mut state = self.lock();
            state.running = None;
            state.error = None;
        }
        self.lock().applied = Some(wanted);
        if !on {
            tracing::info!("the LAN listener is off");
            return;
        }
        let cert = match tls::load_or_create(&self.tls_dir) {
            Ok(cert) => cert,
            Err(error) => {
                tracing::error!(%error, "the LAN certificate could not be made");
                self.lock().error = Some(error.to_string());
                return;
            }
        };
        if listener_changed {
            let bind = SocketAddr::from((Ipv4Addr::UNSPECIFIED, settings.lan_port));
            let app = crate::gateway::lan::router(services.clone());
            match self.listener.start(bind, app, &cert).await {
                Ok(addr) => self.lock().running = Some((addr, cert.fingerprint.clone())),
                Err(error) => {
                    tracing::error!(%error, "the LAN listener could not start");
                    self.lock().error = Some(error.to_string());
                    return;
                }
            }
        }
        let port = self.lock().running.as_ref().map(|(addr, _)| addr.port());
        self.lock().error = None;
        if let (true, Some(port)) = (settings.mdns_enabled, port) {
            match Announcement::announce(
                port,
                &cert.fingerprint,
                services.version(),
                &lan::lan_ipv4s(),
            ) {
                Ok(announcement) => self.lock().announcement = Some(announcement),
                Err(error) => {
                    tracing::warn!(%error, "the LAN listener could not be announced");
                    self.lock().error = Some(error);
                }
            }
        }
    }

    /// Stops the listener and the announcement (shutdown).
    pub async fn stop(&self) {
        let _one = self.change.lock().await;
        if let Some(announcement) = self.lock().announcement.take() {
            announcement.stop();
        }
        self.listener.stop().await;
        let mut state = self.lock();
        state.running = None;
        state.applied = None;
    }
}

/// Applies the settings now and whenever they change.
pub fn follow_settings(services: &Services) {
    let follower = services.clone();
    services.follow_config(true, move |current| {
        let services = follower.clone();
        async move { services.lan().apply(&services, &current.nodes).await }
    });
}
