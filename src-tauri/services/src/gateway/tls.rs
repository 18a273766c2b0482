//! The LAN listener's self-signed certificate (protocol §2). It is made once and kept under
//! `<home>/tls/`, because paired devices pin its SHA-256 fingerprint: a new certificate would
//! make every device refuse the connection until it is paired again.

use std::path::{Path, PathBuf};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

const CERT_FILE: &str = "cert.pem";
const KEY_FILE: &str = "key.pem";

/// The certificate and key the LAN listener serves, with the fingerprint devices pin.
#[derive(Clone)]
pub struct LanCertificate {
    pub cert_pem: String,
    pub key_pem: String,
    pub cert_der: Vec<u8>,
    /// Lowercase hex SHA-256 of `cert_der` (64 characters).
    pub fingerprint: String,
}

impl std::fmt::Debug for LanCertificate {
    // The private key stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanCertificate")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error(
        "Could not use the folder {path} for the LAN certificate ({source}). Check that the home folder is writable."
    )]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "The LAN certificate in {path} cannot be read ({reason}). Delete the tls folder to make a new one; paired devices will then have to be paired again."
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("Could not make the LAN certificate ({0}). Try again; if it keeps failing, report it.")]
    Generate(String),
}

/// Loads the certificate from `tls_dir`, or makes and saves a new one when there is none yet.
pub fn load_or_create(tls_dir: &Path) -> Result<LanCertificate, TlsError> {
    let cert_path = tls_dir.join(CERT_FILE);
    let key_path = tls_dir.join(KEY_FILE);
    if cert_path.exists() && key_path.exists() {
        return load(&cert_path, &key_path);
    }
    let made = generate()?;
    std::fs::create_dir_all(tls_dir).map_err(|source| TlsError::Io {
        path: tls_dir.to_path_buf(),
        source,
    })?;
    // The key goes first so that a crash in between never leaves a certificate without its key.
    write_private(&key_path, made.key_pem.as_bytes())?;
    write_private(&cert_path, made.cert_pem.as_bytes())?;
    Ok(made)
}

pub use sentient_node::fingerprint::{fingerprint_of, normalize_fingerprint};

fn load(cert_path: &Path, key_path: &Path) -> Result<LanCertificate, TlsError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|source| TlsError::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    let cert_pem = read(cert_path)?;
    let key_pem = read(key_path)?;
    let cert_der =
        CertificateDer::from_pem_slice(cert_pem.as_bytes()).map_err(|e| TlsError::Corrupt {
            path: cert_path.to_path_buf(),
            reason: e.to_string(),
        })?;
    PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).map_err(|e| TlsError::Corrupt {
        path: key_path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let cert_der = cert_der.as_ref().to_vec();
    Ok(LanCertificate {
        fingerprint: fingerprint_of(&cert_der),
        cert_pem,
        key_pem,
        cert_der,
    })
}

fn generate() -> Result<LanCertificate, TlsError> {
    let fail = |e: rcgen::Error| TlsError::Generate(e.to_string());
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(fail)?;
    // Devices pin the fingerprint and ignore names, so the names only matter to browsers.
    let mut params = rcgen::CertificateParams::new(vec![
        "localhost".to_owned(),
        "sentient.local".to_owned(),
        "127.0.0.1".to_owned(),
    ])
    .map_err(fail)?;
    let mut dn = rcgen::DistinguishedName::new();
    dn.push(rcgen::DnType::CommonName, "Sentient LAN listener");
    dn.push(rcgen::DnType::OrganizationName, "Sentient");
    params.distinguished_name = dn;
    // Years of validity: the fingerprint has to outlive every pairing.
    params.not_before = rcgen::date_time_ymd(2025, 1, 1);
    params.not_after = rcgen::date_time_ymd(2125, 1, 1);
    let cert = params.self_signed(&key).map_err(fail)?;
    let cert_der = cert.der().as_ref().to_vec();
    Ok(LanCertificate {
        fingerprint: fingerprint_of(&cert_der),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
        cert_der,
    })
}

/// Writes a file only the owner can read (the key must not be world-readable), atomically.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), TlsError> {
    crate::home::write_atomically(path, bytes).map_err(|source| TlsError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn created_once_then_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tls = dir.path().join("tls");
        let first = load_or_create(&tls).expect("create");
        assert!(tls.join(CERT_FILE).exists());
        assert!(tls.join(KEY_FILE).exists());
        let second = load_or_create(&tls).expect("load");
        assert_eq!(first.fingerprint, second.fingerprint);
        assert_eq!(first.cert_der, second.cert_der);
        assert_eq!(first.key_pem, second.key_pem);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(tls.join(KEY_FILE))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A different folder gets a different certificate.
        let other = load_or_create(&dir.path().join("other")).expect("other");
        assert_ne!(other.fingerprint, first.fingerprint);
    }

    #[test]
    fn fingerprint_is_sha256_of_der() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cert = load_or_create(dir.path()).expect("create");
        assert_eq!(cert.fingerprint.len(), 64);
        assert!(
            cert.fingerprint
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        );
        assert_eq!(
            cert.fingerprint,
            hex::encode(Sha256::digest(&cert.cert_der))
        );
        let from_pem = CertificateDer::from_pem_slice(cert.cert_pem.as_bytes()).expect("pem");
        assert_eq!(fingerprint_of(from_pem.as_ref()), cert.fingerprint);
        // rustls accepts the pair, so the listener can serve it.
        let key = PrivateKeyDer::from_pem_slice(cert.key_pem.as_bytes()).expect("key");
        rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(vec![from_pem], key)
        .expect("server config");
    }

    #[test]
    fn corrupt_files_are_reported_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(CERT_FILE), "not a certificate").expect("write");
        std::fs::write(dir.path().join(KEY_FILE), "not a key").expect("write");
        let err = load_or_create(dir.path()).expect_err("corrupt");
        assert!(err.to_string().contains("Delete the tls folder"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(CERT_FILE)).expect("read"),
            "not a certificate"
        );
    }

    #[test]
    fn normalize() {
        assert_eq!(normalize_fingerprint("AB:cd:EF 01"), "abcdef01");
        assert_eq!(normalize_fingerprint(" 3F9A\n"), "3f9a");
        assert_eq!(normalize_fingerprint("abc"), "abc");
    }
}
