//! The mDNS / DNS-SD announcement of the LAN listener (protocol §1, Discovery), so devices on
//! the network find the computer without typing an address.

use std::net::{IpAddr, Ipv4Addr};

use mdns_sd::{IfKind, ServiceDaemon, ServiceInfo};

/// The DNS-SD service type devices browse for.
pub const SERVICE_TYPE: &str = "_sentient._tcp.local.";
/// The node socket path announced in TXT `path`.
pub const NODE_PATH: &str = "/ws/node";

/// A running announcement. Stopping it (or dropping it) sends the goodbye and ends the daemon.
pub struct Announcement {
    daemon: Option<ServiceDaemon>,
    fullname: String,
}

impl std::fmt::Debug for Announcement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Announcement")
            .field("fullname", &self.fullname)
            .finish_non_exhaustive()
    }
}

impl Announcement {
    /// Announces the LAN listener on `port` with the addresses `ips` (see `lan::lan_ipv4s`),
    /// on the network interfaces those addresses belong to. Loopback is not announced.
    pub fn announce(
        port: u16,
        fingerprint: &str,
        version: &str,
        ips: &[Ipv4Addr],
    ) -> Result<Announcement, String> {
        if ips.is_empty() {
            return Err(
                "This computer has no network address to announce, so devices cannot discover it. Connect to a network, or enter the address on the device."
                    .to_owned(),
            );
        }
        Self::start(mdns_sd::MDNS_PORT, port, fingerprint, version, ips, false)
    }

    /// Like [`Announcement::announce`], but also announces 127.0.0.1 on the loopback interface,
    /// for tests and for machines without a network (a browser on the same computer finds it).
    pub fn announce_including_loopback(
        port: u16,
        fingerprint: &str,
        version: &str,
        ips: &[Ipv4Addr],
    ) -> Result<Announcement, String> {
        Self::start(mdns_sd::MDNS_PORT, port, fingerprint, version, ips, true)
    }

    /// The announced instance's full name, e.g. `Sentient on desk._sentient._tcp.local.`.
    pub fn fullname(&self) -> &str {
        &self.fullname
    }

    /// Withdraws the announcement and shuts the daemon down.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn start(
        mdns_port: u16,
        port: u16,
        fingerprint: &str,
        version: &str,
        ips: &[Ipv4Addr],
        loopback: bool,
    ) -> Result<Announcement, String> {
        let fail = |e: mdns_sd::Error| {
            format!(
                "Could not announce Sentient on the network ({e}). Devices can still connect by address; turn off nodes.mdns_enabled in Settings to stop trying."
            )
        };
        let mut addrs: Vec<IpAddr> = ips.iter().copied().map(IpAddr::V4).collect();
        if loopback && !ips.contains(&Ipv4Addr::LOCALHOST) {
            addrs.push(IpAddr::V4(Ipv4Addr::LOCALHOST));
        }
        let instance = format!("Sentient on {}", host_display_name());
        // Our own host name (not `<host>.local.`), so we never fight the OS responder over it.
        let host_name = format!("sentient-{}.local.", host_label());
        let port_text = port.to_string();
        let properties = [
            ("version", version),
            ("protocol", "1"),
            ("fingerprint", fingerprint),
            ("port", port_text.as_str()),
            ("path", NODE_PATH),
            ("tls", "1"),
        ];
        let mut info = ServiceInfo::new(
            SERVICE_TYPE,
            &instance,
            &host_name,
            addrs.as_slice(),
            port,
            &properties[..],
        )
        .map_err(fail)?;
        // The protocol announces IPv4 A records only.
        info.set_interfaces(vec![IfKind::IPv4]);
        let fullname = info.get_fullname().to_owned();

        let daemon = ServiceDaemon::new_with_port(mdns_port).map_err(fail)?;
        let configured = daemon.disable_interface(IfKind::IPv6).and_then(|()| {
            if loopback {
                daemon.enable_interface(IfKind::LoopbackV4)
            } else {
                daemon.disable_interface(IfKind::LoopbackV4)
            }
        });
        if let Err(e) = configured.and_then(|()| daemon.register(info)) {
            let _ = daemon.shutdown();
            return Err(fail(e));
        }
        tracing::info!(%fullname, port, "announced on mDNS");
        Ok(Announcement {
            daemon: Some(daemon),
            fullname,
        })
    }

    fn shutdown(&mut self) {
        if let Some(daemon) = self.daemon.take() {
            // The daemon handles commands in order, so the goodbye goes out before it stops;
            // nothing here waits, which keeps drop cheap inside async code.
            let _ = daemon.unregister(&self.fullname);
            let _ = daemon.shutdown();
        }
    }
}

impl Drop for Announcement {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// This computer's host name without its domain (`Desk`, not `Desk.lan`), as people read it.
fn host_display_name() -> String {
    let raw = gethostname::gethostname().to_string_lossy().into_owned();
    let first = raw.split('.').next().unwrap_or_default().trim();
    if first.is_empty() {
        "this computer".to_owned()
    } else {
        first.chars().take(40).collect()
    }
}

/// [`host_display_name`] made DNS-safe, for the A records' host name.
fn host_label() -> String {
    let mut label: String = host_display_name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    label = label.trim_matches('-').chars().take(40).collect();
    if label.is_empty() {
        "computer".to_owned()
    } else {
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn host_label_is_dns_safe() {
        let label = host_label();
        assert!(!label.is_empty());
        assert!(
            label
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{label}"
        );
    }

    #[test]
    fn production_needs_an_address() {
        let err = Announcement::announce(7778, "ab", "1.0", &[]).expect_err("no ips");
        assert!(err.contains("no network address"), "{err}");
    }

    /// Announces on a private mDNS port (away from the OS responder and other test runs) and
    /// browses for it with a second daemon, as a device would.
    fn browse_own_announcement(mdns_port: u16, ips: &[Ipv4Addr]) {
        let fp = "3f".repeat(32);
        let announcement =
            Announcement::start(mdns_port, 47_778, &fp, "9.9.9-test", ips, true).expect("announce");
        let fullname = announcement.fullname().to_owned();
        assert!(fullname.starts_with("Sentient on "), "{fullname}");

        let browser = ServiceDaemon::new_with_port(mdns_port).expect("browser");
        let _ = browser.enable_interface(IfKind::LoopbackV4);
        let events = browser.browse(SERVICE_TYPE).expect("browse");
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen = None;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match events.recv_timeout(left) {
                Ok(mdns_sd::ServiceEvent::ServiceResolved(service))
                    if service.get_fullname() == fullname =>
                {
                    seen = Some(service);
                    break;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let _ = browser.shutdown();
        announcement.stop();

        let service = seen.expect("the announcement was resolved within 10 s");
        assert_eq!(service.get_port(), 47_778);
        let txt = |key: &str| service.get_property_val_str(key).map(str::to_owned);
        assert_eq!(txt("version").as_deref(), Some("9.9.9-test"));
        assert_eq!(txt("protocol").as_deref(), Some("1"));
        assert_eq!(txt("fingerprint").as_deref(), Some(fp.as_str()));
        assert_eq!(txt("port").as_deref(), Some("47778"));
        assert_eq!(txt("path").as_deref(), Some("/ws/node"));
        assert_eq!(txt("tls").as_deref(), Some("1"));
        assert!(!service.get_addresses_v4().is_empty());
    }

    fn private_port(offset: u16) -> u16 {
        20_000 + (std::process::id() % 10_000) as u16 * 2 + offset
    }

    #[test]
    fn browser_sees_the_announcement_on_loopback_only() {
        browse_own_announcement(private_port(0), &[]);
    }

    #[test]
    fn browser_sees_the_announcement_with_lan_addresses() {
        browse_own_announcement(private_port(1), &crate::gateway::lan_listener::lan_ipv4s());
    }
}
