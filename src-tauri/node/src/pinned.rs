//! The device side of TLS pinning (protocol §2): no CA or hostname checks, but the server's
//! certificate must hash to the fingerprint the device stored when it was paired.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, OtherError, SignatureScheme};

use crate::fingerprint::{fingerprint_of, normalize_fingerprint};

/// A client config that trusts exactly the certificate with fingerprint `expected`
/// (any form [`normalize_fingerprint`] accepts). `None` trusts any certificate (`--insecure`).
///
/// Built on the aws-lc-rs provider explicitly, so no process-wide provider is needed.
pub fn client_config(expected: Option<&str>) -> Arc<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = Arc::new(PinnedVerifier {
        expected: expected.map(normalize_fingerprint),
        algorithms: provider.signature_verification_algorithms,
    });
    // Cannot fail: aws-lc-rs has cipher suites for both default versions (TLS 1.2 and 1.3).
    #[allow(clippy::expect_used)]
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("the aws-lc-rs provider supports TLS 1.2 and 1.3");
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Arc::new(config)
}

/// The reason a pinned handshake was refused, shown to the user through rustls' error.
#[derive(Debug)]
struct FingerprintMismatch {
    expected: String,
    actual: String,
}

impl std::fmt::Display for FingerprintMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the server's certificate fingerprint is {} but {} was expected; this is not the paired computer, or its certificate was replaced (pair the device again)",
            self.actual, self.expected
        )
    }
}

impl std::error::Error for FingerprintMismatch {}

#[derive(Debug)]
struct PinnedVerifier {
    /// Normalized; `None` accepts any certificate.
    expected: Option<String>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(expected) = &self.expected else {
            return Ok(ServerCertVerified::assertion());
        };
        let actual = fingerprint_of(end_entity.as_ref());
        if &actual == expected {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(CertificateError::Other(
                OtherError(Arc::new(FingerprintMismatch {
                    expected: expected.clone(),
                    actual,
                })),
            )))
        }
    }

    // Signatures are still checked, so the server must hold the pinned certificate's key.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_both_variants() {
        let pinned = client_config(Some("AB:CD"));
        assert!(pinned.alpn_protocols.is_empty());
        let _insecure = client_config(None);
    }

    #[test]
    fn verifier_compares_normalized_fingerprints() {
        let der = b"not really a certificate but hashing does not care";
        let fp = fingerprint_of(der);
        let upper_with_colons = fp
            .as_bytes()
            .chunks(2)
            .map(|pair| String::from_utf8_lossy(pair).to_uppercase())
            .collect::<Vec<_>>()
            .join(":");
        let algorithms =
            rustls::crypto::aws_lc_rs::default_provider().signature_verification_algorithms;
        let name = ServerName::try_from("localhost").expect("name");
        let cert = CertificateDer::from(der.to_vec());
        let check = |expected: Option<&str>| {
            PinnedVerifier {
                expected: expected.map(normalize_fingerprint),
                algorithms,
            }
            .verify_server_cert(&cert, &[], &name, &[], UnixTime::now())
        };
        assert!(check(Some(&fp)).is_ok());
        assert!(check(Some(&upper_with_colons)).is_ok());
        assert!(check(None).is_ok());
        let err = check(Some(&"0".repeat(64))).expect_err("mismatch");
        // rustls shows the reason in its Debug form, so look for the type name.
        assert!(err.to_string().contains("FingerprintMismatch"), "{err}");
    }
}
