//! The DNS look-ups mail discovery needs (RFC 6186 SRV records, and MX to recognise a provider
//! behind a custom domain), behind [`MailDns`] so tests answer from a table. [`SystemDns`] asks
//! the computer's resolvers (`/etc/resolv.conf`) over UDP; no resolver crate is available
//! offline, and these two record types are all it reads.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures::future::BoxFuture;

/// One SRV record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrvRecord {
    pub priority: u16,
    pub weight: u16,
    pub port: u16,
    /// The host, without the final dot; "" (".") says the service isn't offered.
    pub target: String,
}

/// The look-ups discovery makes. A failure is an empty answer: discovery then moves on.
pub trait MailDns: Send + Sync {
    fn srv<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Vec<SrvRecord>>;
    /// The mail exchangers' host names, most preferred first.
    fn mx<'a>(&'a self, domain: &'a str) -> BoxFuture<'a, Vec<String>>;
}

const TYPE_MX: u16 = 15;
const TYPE_SRV: u16 = 33;
/// How long one server may take to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// Asks the computer's name servers: those of `/etc/resolv.conf`, read at each look-up (a
/// laptop changes networks). None (Windows, or no file) means the SRV and MX steps find nothing.
#[derive(Debug, Clone, Default)]
pub struct SystemDns {
    /// Fixed servers instead (a name server on loopback in tests).
    servers: Option<Vec<SocketAddr>>,
}

impl SystemDns {
    pub fn with_servers(servers: Vec<SocketAddr>) -> Self {
        Self {
            servers: Some(servers),
        }
    }

    fn servers(&self) -> Vec<SocketAddr> {
        self.servers.clone().unwrap_or_else(|| {
            name_servers(&std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default())
        })
    }

    async fn ask(&self, name: &str, kind: u16) -> Vec<Record> {
        let Some(query) = query(name, kind) else {
            return Vec::new();
        };
        // The first two servers at most: discovery must not wait long on a broken resolver.
        for server in self.servers().iter().take(2) {
            let bind: SocketAddr = if server.is_ipv6() {
                "[::]:0".parse().unwrap_or(*server)
            } else {
                "0.0.0.0:0".parse().unwrap_or(*server)
            };
            let Ok(socket) = tokio::net::UdpSocket::bind(bind).await else {
                continue;
            };
            if socket.send_to(&query.bytes, server).await.is_err() {
                continue;
            }
            let mut buffer = vec![0u8; 4096];
            let answer = tokio::time::timeout(ANSWER_TIMEOUT, async {
                loop {
                    let (len, from) = socket.recv_from(&mut buffer).await?;
                    // Only the asked server's answer to this query counts.
                    if from == *server && len >= 2 && buffer[..2] == query.id.to_be_bytes() {
                        return Ok::<_, std::io::Error>(buffer[..len].to_vec());
                    }
                }
            })
            .await;
            if let Ok(Ok(message)) = answer
                && let Some(records) = parse_answer(&message, kind)
            {
                return records;
            }
        }
        Vec::new()
    }
}

impl MailDns for SystemDns {
    fn srv<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Vec<SrvRecord>> {
        Box::pin(async move {
            self.ask(name, TYPE_SRV)
                .await
                .into_iter()
                .filter_map(|r| match r {
                    Record::Srv(srv) => Some(srv),
                    Record::Mx(..) => None,
                })
                .collect()
        })
    }

    fn mx<'a>(&'a self, domain: &'a str) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async move {
            let mut found: Vec<(u16, String)> = self
                .ask(domain, TYPE_MX)
                .await
                .into_iter()
                .filter_map(|r| match r {
                    Record::Mx(preference, host) => Some((preference, host)),
                    Record::Srv(_) => None,
                })
                .collect();
            found.sort();
            found.into_iter().map(|(_, host)| host).collect()
        })
    }
}

/// The `nameserver` lines of a resolv.conf.
pub fn name_servers(text: &str) -> Vec<SocketAddr> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("nameserver"))
        .filter_map(|rest| {
            // A zone index (fe80::1%eth0) can't be given to a plain IpAddr.
            let address = rest.trim().split('%').next()?;
            address.parse::<IpAddr>().ok()
        })
        .map(|ip| SocketAddr::new(ip, 53))
        .collect()
}

struct Query {
    id: u16,
    bytes: Vec<u8>,
}

/// A recursive query for one name and type; `None` for a name DNS can't carry.
fn query(name: &str, kind: u16) -> Option<Query> {
    let id: u16 = rand::random();
    let mut bytes = Vec::with_capacity(64);
    bytes.extend_from_slice(&id.to_be_bytes());
    // Recursion desired; one question.
    bytes.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.trim_end_matches('.').split('.') {
        if label.is_empty() || label.len() > 63 {
            return None;
        }
        bytes.push(u8::try_from(label.len()).ok()?);
        bytes.extend_from_slice(label.as_bytes());
    }
    bytes.push(0);
    bytes.extend_from_slice(&kind.to_be_bytes());
    bytes.extend_from_slice(&1u16.to_be_bytes());
    Some(Query { id, bytes })
}

#[derive(Debug, PartialEq, Eq)]
enum Record {
    Srv(SrvRecord),
    Mx(u16, String),
}

fn u16_at(message: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([
        *message.get(at)?,
        *message.get(at + 1)?,
    ]))
}

/// A name at `at`, following compression pointers; returns the name and where it ended.
fn name_at(message: &[u8], mut at: usize) -> Option<(String, usize)> {
    let mut labels: Vec<String> = Vec::new();
    let mut end = None;
    // Pointers may only point backwards, but a bound keeps a hostile loop finite.
    for _ in 0..128 {
        let len = *message.get(at)?;
        match len {
            0 => {
                return Some((labels.join("."), end.unwrap_or(at + 1)));
            }
            l if l & 0xC0 == 0xC0 => {
                let pointer = usize::from(u16_at(message, at)? & 0x3FFF);
                end.get_or_insert(at + 2);
                at = pointer;
            }
            l => {
                let l = usize::from(l);
                let label = message.get(at + 1..at + 1 + l)?;
                labels.push(String::from_utf8_lossy(label).into_owned());
                at += 1 + l;
            }
        }
    }
    None
}

/// The answer records of type `kind`; `None` for a message that isn't a usable answer
/// (truncated, a server failure), `Some(empty)` when the name has none.
fn parse_answer(message: &[u8], kind: u16) -> Option<Vec<Record>> {
    let flags = u16_at(message, 2)?;
    let truncated = flags & 0x0200 != 0;
    let rcode = flags & 0x000F;
    if flags & 0x8000 == 0 || truncated {
        return None;
    }
    match rcode {
        0 => {}
        // No such name.
        3 => return Some(Vec::new()),
        _ => return None,
    }
    let questions = u16_at(message, 4)?;
    let answers = u16_at(message, 6)?;
    let mut at = 12;
    for _ in 0..questions {
        let (_, end) = name_at(message, at)?;
        at = end + 4;
    }
    let mut records = Vec::new();
    for _ in 0..answers {
        let (_, end) = name_at(message, at)?;
        let record_type = u16_at(message, end)?;
        let length = usize::from(u16_at(message, end + 8)?);
        let data = end + 10;
        message.get(data..data + length)?;
        if record_type == kind && kind == TYPE_SRV {
            records.push(Record::Srv(SrvRecord {
                priority: u16_at(message, data)?,
                weight: u16_at(message, data + 2)?,
                port: u16_at(message, data + 4)?,
                target: name_at(message, data + 6)?.0,
            }));
        } else if record_type == kind && kind == TYPE_MX {
            records.push(Record::Mx(
                u16_at(message, data)?,
                name_at(message, data + 2)?.0,
            ));
        }
        at = data + length;
    }
    Some(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name server on loopback that answers every query with `answers` (type, rdata) under
    /// the asked name, as a real server does (the question echoed, the name compressed).
    async fn name_server(answers: Vec<(u16, Vec<u8>)>) -> SocketAddr {
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = socket.local_addr().expect("address");
        tokio::spawn(async move {
            let mut buffer = [0u8; 512];
            while let Ok((len, from)) = socket.recv_from(&mut buffer).await {
                let asked = &buffer[..len];
                let mut reply = asked[..2].to_vec();
                reply.extend_from_slice(&[0x81, 0x80, 0, 1]);
                reply.extend_from_slice(&u16::try_from(answers.len()).expect("n").to_be_bytes());
                reply.extend_from_slice(&[0, 0, 0, 0]);
                reply.extend_from_slice(&asked[12..]);
                for (kind, data) in &answers {
                    // A pointer to the question's name at offset 12.
                    reply.extend_from_slice(&[0xC0, 12]);
                    reply.extend_from_slice(&kind.to_be_bytes());
                    reply.extend_from_slice(&[0, 1, 0, 0, 1, 0]);
                    reply.extend_from_slice(&u16::try_from(data.len()).expect("n").to_be_bytes());
                    reply.extend_from_slice(data);
                }
                let _ = socket.send_to(&reply, from).await;
            }
        });
        address
    }

    fn encoded(name: &str) -> Vec<u8> {
        let mut bytes = Vec::new();
        for label in name.split('.') {
            bytes.push(u8::try_from(label.len()).expect("label"));
            bytes.extend_from_slice(label.as_bytes());
        }
        bytes.push(0);
        bytes
    }

    #[tokio::test]
    async fn srv_and_mx_records_come_from_a_real_exchange_with_a_name_server() {
        let mut srv = vec![0, 5, 0, 10, 3, 225];
        srv.extend(encoded("imap.example.net"));
        let mut mx = vec![0, 20];
        mx.extend(encoded("mx2.example.net"));
        let server = name_server(vec![(TYPE_SRV, srv), (TYPE_MX, mx)]).await;
        let dns = SystemDns::with_servers(vec![server]);
        assert_eq!(
            dns.srv("_imaps._tcp.example.net").await,
            [SrvRecord {
                priority: 5,
                weight: 10,
                port: 993,
                target: "imap.example.net".to_owned()
            }]
        );
        assert_eq!(dns.mx("example.net").await, ["mx2.example.net"]);
    }

    #[tokio::test]
    async fn a_silent_server_or_a_bad_name_finds_nothing() {
        let silent = tokio::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let dns = SystemDns::with_servers(vec![silent.local_addr().expect("address")]);
        assert!(dns.srv("_imaps._tcp.example.net").await.is_empty());
        assert!(query("a..b", TYPE_MX).is_none());
        assert!(query(&"x".repeat(64), TYPE_MX).is_none());
    }

    #[test]
    fn name_servers_are_read_from_resolv_conf() {
        let text = "# comment\nnameserver 127.0.0.53\noptions edns0\nnameserver fe80::1%eth0\nnameserver bogus\n";
        assert_eq!(
            name_servers(text),
            [
                "127.0.0.53:53".parse::<SocketAddr>().expect("v4"),
                "[fe80::1]:53".parse().expect("v6")
            ]
        );
    }

    #[test]
    fn a_pointer_loop_is_refused() {
        let mut message = vec![0u8; 12];
        message.extend_from_slice(&[0xC0, 12]);
        assert!(name_at(&message, 12).is_none());
    }
}
