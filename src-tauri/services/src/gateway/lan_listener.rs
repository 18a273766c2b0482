//! The LAN listener runtime: serves a router the caller builds over TLS with the self-signed
//! certificate, on `nodes.lan_port`. It can be started, restarted and stopped while the engine runs.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use tokio::task::JoinHandle;

use super::tls::LanCertificate;

/// How long open connections get to finish when the listener stops.
const GRACE: Duration = Duration::from_secs(2);
/// How long `stop` waits for the port to be free again before giving up quietly.
const PORT_FREE_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, thiserror::Error)]
pub enum LanError {
    #[error(
        "Port {port} is busy, so devices on the network cannot connect. Choose another nodes.lan_port in Settings."
    )]
    PortBusy { port: u16 },
    #[error(
        "Could not listen on {addr} for devices on the network ({source}). Check the address, or choose another nodes.lan_port in Settings."
    )]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "The LAN certificate could not be loaded ({0}). Delete the tls folder in the home folder to make a new one; paired devices will then have to be paired again."
    )]
    Certificate(String),
}

struct Running {
    addr: SocketAddr,
    handle: Handle<SocketAddr>,
    task: JoinHandle<std::io::Result<()>>,
}

/// The LAN listener. Clones share the same server.
#[derive(Clone, Default)]
pub struct LanListener {
    running: Arc<Mutex<Option<Running>>>,
    /// Serializes start and stop so two callers never race on the port.
    ops: Arc<tokio::sync::Mutex<()>>,
}

impl LanListener {
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `app` over TLS on `bind` (port 0 picks a free port) and returns the bound address.
    /// A listener that is already running is stopped first.
    pub async fn start(
        &self,
        bind: SocketAddr,
        app: axum::Router,
        cert: &LanCertificate,
    ) -> Result<SocketAddr, LanError> {
        let _op = self.ops.lock().await;
        self.stop_locked().await;

        let config = RustlsConfig::from_pem(
            cert.cert_pem.clone().into_bytes(),
            cert.key_pem.clone().into_bytes(),
        )
        .await
        .map_err(|e| LanError::Certificate(e.to_string()))?;

        // Binding here (not inside axum-server) reports a busy port to the caller and gives the
        // real port when 0 was asked for.
        let listener = std::net::TcpListener::bind(bind).map_err(|source| {
            if source.kind() == std::io::ErrorKind::AddrInUse {
                LanError::PortBusy { port: bind.port() }
            } else {
                LanError::Bind { addr: bind, source }
            }
        })?;
        let addr = listener
            .local_addr()
            .map_err(|source| LanError::Bind { addr: bind, source })?;
        let handle: Handle<SocketAddr> = Handle::new();
        let server = axum_server::from_tcp_rustls(listener, config)
            .map_err(|source| LanError::Bind { addr: bind, source })?
            .handle(handle.clone());
        let task = tokio::spawn(async move {
            let served = server
                .serve(app.into_make_service_with_connect_info::<SocketAddr>())
                .await;
            if let Err(e) = &served {
                tracing::warn!(error = %e, "the LAN listener stopped with an error");
            }
            served
        });
        tracing::info!(%addr, "LAN listener started");
        if let Ok(mut running) = self.running.lock() {
            *running = Some(Running { addr, handle, task });
        }
        Ok(addr)
    }

    /// Stops the listener: open connections get a short grace period, then the port is free.
    pub async fn stop(&self) {
        let _op = self.ops.lock().await;
        self.stop_locked().await;
    }

    /// The bound address while the listener runs.
    pub fn running_addr(&self) -> Option<SocketAddr> {
        let running = self.running.lock().ok()?;
        running
            .as_ref()
            .filter(|r| !r.task.is_finished())
            .map(|r| r.addr)
    }

    async fn stop_locked(&self) {
        let taken = self.running.lock().ok().and_then(|mut r| r.take());
        let Some(Running {
            addr,
            handle,
            mut task,
        }) = taken
        else {
            return;
        };
        handle.graceful_shutdown(Some(GRACE));
        if tokio::time::timeout(GRACE + Duration::from_secs(1), &mut task)
            .await
            .is_err()
        {
            handle.shutdown();
            task.abort();
            let _ = task.await;
        }
        wait_until_free(addr).await;
        tracing::info!(%addr, "LAN listener stopped");
    }
}

/// Waits until `addr` can be bound again (the listening socket is closed asynchronously).
async fn wait_until_free(addr: SocketAddr) {
    let deadline = tokio::time::Instant::now() + PORT_FREE_WAIT;
    loop {
        if std::net::TcpListener::bind(addr).is_ok() {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(%addr, "the LAN listener's port is still in use after stopping");
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// This computer's IPv4 addresses that devices on the network can reach: no loopback, no
/// link-local, private ranges first. May be empty (then callers fall back to 127.0.0.1).
pub fn lan_ipv4s() -> Vec<Ipv4Addr> {
    let mut ips: Vec<Ipv4Addr> = if_addrs::get_if_addrs()
        .unwrap_or_default()
        .into_iter()
        .filter(|i| i.is_oper_up() || i.oper_status == if_addrs::IfOperStatus::Unknown)
        .filter_map(|i| match i.ip() {
            std::net::IpAddr::V4(ip) => Some(ip),
            std::net::IpAddr::V6(_) => None,
        })
        .filter(|ip| usable(*ip))
        .collect();
    ips.sort_by_key(|ip| (rank(*ip), ip.octets()));
    ips.dedup();
    ips
}

fn usable(ip: Ipv4Addr) -> bool {
    !(ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_broadcast())
}

/// Home networks first (192.168/16, then 10/8, then 172.16/12), then anything else.
fn rank(ip: Ipv4Addr) -> u8 {
    match ip.octets() {
        [192, 168, ..] => 0,
        [10, ..] => 1,
        [172, b, ..] if (16..32).contains(&b) => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gateway::tls;
    use axum::routing::get;
    use sentient_node::pinned;

    fn router() -> axum::Router {
        axum::Router::new()
            .route("/ping", get(|| async { "pong" }))
            .route(
                "/who",
                get(
                    |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<SocketAddr>| async move {
                        peer.ip().to_string()
                    },
                ),
            )
    }

    fn client(fp: &str) -> reqwest::Client {
        reqwest::Client::builder()
            .use_preconfigured_tls((*pinned::client_config(Some(fp))).clone())
            .timeout(Duration::from_secs(10))
            .build()
            .expect("client")
    }

    async fn get_text(
        client: &reqwest::Client,
        addr: SocketAddr,
        path: &str,
    ) -> reqwest::Result<String> {
        client
            .get(format!("https://127.0.0.1:{}{path}", addr.port()))
            .send()
            .await?
            .error_for_status()?
            .text()
            .await
    }

    #[tokio::test]
    async fn serves_pinned_tls_restarts_and_stops() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cert = tls::load_or_create(dir.path()).expect("cert");
        let lan = LanListener::new();
        assert!(lan.running_addr().is_none());
        let addr = lan
            .start("127.0.0.1:0".parse().expect("addr"), router(), &cert)
            .await
            .expect("start");
        assert_ne!(addr.port(), 0);
        assert_eq!(lan.running_addr(), Some(addr));

        let good = client(&cert.fingerprint.to_uppercase());
        assert_eq!(get_text(&good, addr, "/ping").await.expect("ping"), "pong");
        assert_eq!(
            get_text(&good, addr, "/who").await.expect("who"),
            "127.0.0.1"
        );

        let bad = client(&"0".repeat(64));
        assert!(get_text(&bad, addr, "/ping").await.is_err());

        // A busy port is reported in words the user can act on.
        let other = LanListener::new();
        let err = other.start(addr, router(), &cert).await.expect_err("busy");
        assert!(matches!(err, LanError::PortBusy { .. }), "{err}");
        assert!(err.to_string().contains("nodes.lan_port"), "{err}");

        // Starting again on the same port stops the old server first.
        let again = lan.start(addr, router(), &cert).await.expect("restart");
        assert_eq!(again, addr);
        assert_eq!(
            get_text(&client(&cert.fingerprint), addr, "/ping")
                .await
                .expect("ping"),
            "pong"
        );

        lan.stop().await;
        assert!(lan.running_addr().is_none());
        assert!(tokio::net::TcpStream::connect(addr).await.is_err());
        // Stopping twice is harmless.
        lan.stop().await;
    }

    #[test]
    fn lan_addresses_are_reachable_kinds() {
        for ip in lan_ipv4s() {
            assert!(usable(ip), "{ip}");
        }
        let mut ips = [
            Ipv4Addr::new(8, 8, 8, 8),
            Ipv4Addr::new(172, 20, 0, 1),
            Ipv4Addr::new(10, 0, 0, 2),
            Ipv4Addr::new(192, 168, 1, 20),
        ];
        ips.sort_by_key(|ip| (rank(*ip), ip.octets()));
        assert_eq!(ips[0], Ipv4Addr::new(192, 168, 1, 20));
        assert_eq!(ips[3], Ipv4Addr::new(8, 8, 8, 8));
        assert!(!usable(Ipv4Addr::new(169, 254, 1, 1)));
        assert!(!usable(Ipv4Addr::LOCALHOST));
    }
}
