//! The private key file: where secrets live on a computer with no keychain, once the person
//! chose "Keep keys in a private file on this computer" (docs/SECURITY.md, "Where keys live").
//!
//! One JSON file in the home, the owner's only (0600), replaced whole on every change. Every
//! entry, names included, is inside one AES-256-GCM box whose key is derived with HKDF-SHA256
//! from this computer's machine id and a random salt; salt and nonce are new on every write.
//! It keeps the keys out of backups, synced folders and a copied home; it does not keep them
//! from a program running as the same person on the same computer (see SECURITY.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use aws_lc_rs::hkdf::{HKDF_SHA256, Salt};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

/// The file's name in the home.
pub const FILE_NAME: &str = "secrets.enc";

/// What the file says it is, and the version of its layout.
const FORMAT: &str = "sentient-secrets";
const VERSION: u32 = 1;
/// Binds the derived key and the box to this layout, so neither is reused for anything else.
const KDF_INFO: &[u8] = b"sentient secrets file v1";
const AAD: &[u8] = b"sentient-secrets/1";
const SALT_LEN: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum SecretFileError {
    /// No machine id to bind the key to.
    #[error("this computer has no machine id")]
    NoMachineId,
    /// The box did not open: another computer's file, or changed since it was written.
    #[error("the private key file can't be opened on this computer")]
    WontOpen,
    /// Not a file this version wrote.
    #[error("the private key file is not in a form Sentient knows")]
    BadFormat,
    #[error("the private key file could not be read or written: {0}")]
    Io(#[from] std::io::Error),
    #[error("the private key file could not be sealed")]
    Crypto,
}

/// The file as stored: everything but the header is ciphertext.
#[derive(Serialize, Deserialize)]
struct Envelope {
    format: String,
    version: u32,
    cipher: String,
    kdf: String,
    salt: String,
    nonce: String,
    data: String,
}

/// The entries, by name. Values are wiped from memory when dropped.
pub type Entries = BTreeMap<String, Zeroizing<String>>;

/// The key file at one path, locked to one machine secret.
#[derive(Clone)]
pub struct SecretFile {
    path: PathBuf,
    machine: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for SecretFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SecretFile {
    /// The file at `path`, its key bound to `machine` (this computer's id in the product).
    pub fn new(path: impl Into<PathBuf>, machine: &[u8]) -> Self {
        Self {
            path: path.into(),
            machine: Zeroizing::new(machine.to_vec()),
        }
    }

    /// The file at `path`, bound to this computer's machine id.
    pub fn on_this_computer(path: impl Into<PathBuf>) -> Result<Self, SecretFileError> {
        let id = machine_id().ok_or(SecretFileError::NoMachineId)?;
        Ok(Self::new(path, id.as_bytes()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.path.is_file()
    }

    /// Every entry; none when the file is not there.
    pub fn read(&self) -> Result<Entries, SecretFileError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Entries::new()),
            Err(err) => return Err(err.into()),
        };
        let envelope: Envelope =
            serde_json::from_slice(&bytes).map_err(|_| SecretFileError::BadFormat)?;
        if envelope.format != FORMAT || envelope.version != VERSION {
            return Err(SecretFileError::BadFormat);
        }
        let salt = hex::decode(&envelope.salt).map_err(|_| SecretFileError::BadFormat)?;
        let nonce: [u8; NONCE_LEN] = hex::decode(&envelope.nonce)
            .ok()
            .and_then(|n| n.try_into().ok())
            .ok_or(SecretFileError::BadFormat)?;
        let mut data =
            Zeroizing::new(hex::decode(&envelope.data).map_err(|_| SecretFileError::BadFormat)?);
        let key = self.key(&salt)?;
        let plain = key
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(AAD),
                &mut data,
            )
            .map_err(|_| SecretFileError::WontOpen)?;
        serde_json::from_slice(plain).map_err(|_| SecretFileError::BadFormat)
    }

    /// Replaces the file with `entries`, atomically and the owner's only. A fresh salt (so a
    /// fresh key) and nonce each time, so no key ever seals twice with one nonce.
    pub fn write(&self, entries: &Entries) -> Result<(), SecretFileError> {
        let mut salt = [0u8; SALT_LEN];
        let mut nonce = [0u8; NONCE_LEN];
        aws_lc_rs::rand::fill(&mut salt).map_err(|_| SecretFileError::Crypto)?;
        aws_lc_rs::rand::fill(&mut nonce).map_err(|_| SecretFileError::Crypto)?;
        let mut data =
            Zeroizing::new(serde_json::to_vec(entries).map_err(|_| SecretFileError::Crypto)?);
        self.key(&salt)?
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(AAD),
                &mut *data,
            )
            .map_err(|_| SecretFileError::Crypto)?;
        let envelope = Envelope {
            format: FORMAT.to_owned(),
            version: VERSION,
            cipher: "AES-256-GCM".to_owned(),
            kdf: "HKDF-SHA256(machine id, salt)".to_owned(),
            salt: hex::encode(salt),
            nonce: hex::encode(nonce),
            data: hex::encode(&*data),
        };
        let bytes = serde_json::to_vec_pretty(&envelope).map_err(|_| SecretFileError::Crypto)?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // The temporary file is created 0600 and renamed over the old one.
        crate::home::write_atomically(&self.path, &bytes)?;
        restrict(&self.path)?;
        Ok(())
    }

    /// Removes the file; a missing one is fine.
    pub fn remove(&self) -> Result<(), SecretFileError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    fn key(&self, salt: &[u8]) -> Result<LessSafeKey, SecretFileError> {
        let prk = Salt::new(HKDF_SHA256, salt).extract(&self.machine);
        let okm = prk
            .expand(&[KDF_INFO], &AES_256_GCM)
            .map_err(|_| SecretFileError::Crypto)?;
        Ok(LessSafeKey::new(UnboundKey::from(okm)))
    }
}

/// Makes sure the file is the owner's only, whatever made it.
fn restrict(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// This computer's id: systemd's (or D-Bus's) machine id on Linux and the BSDs, the hardware
/// UUID on macOS, the MachineGuid on Windows. `None` when there is none to read.
pub fn machine_id() -> Option<String> {
    let usable = |s: String| Some(s.trim().to_owned()).filter(|s| s.len() >= 16);
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("ioreg")
            .args(["-rd1", "-c", "IOPlatformExpertDevice"])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find(|l| l.contains("IOPlatformUUID"))?;
        return usable(line.rsplit('"').nth(1)?.to_owned());
    }
    #[cfg(windows)]
    {
        let out = std::process::Command::new("reg")
            .args([
                "query",
                r"HKLM\SOFTWARE\Microsoft\Cryptography",
                "/v",
                "MachineGuid",
            ])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find(|l| l.contains("MachineGuid"))?;
        return usable(line.split_whitespace().last()?.to_owned());
    }
    #[allow(unreachable_code)]
    ["/etc/machine-id", "/var/lib/dbus/machine-id", "/etc/hostid"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .find_map(usable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(&str, &str)]) -> Entries {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Zeroizing::new((*v).to_owned())))
            .collect()
    }

    fn contains(haystack: &[u8], needle: &str) -> bool {
        haystack
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }

    #[test]
    fn round_trip_keeps_names_and_values_out_of_the_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = SecretFile::new(dir.path().join(FILE_NAME), b"machine-one-0123456789");
        assert!(!file.exists());
        assert!(file.read().expect("missing is empty").is_empty());
        let saved = entries(&[("anthropic", "sk-ant-plain-value"), ("github", "ghp_123")]);
        file.write(&saved).expect("write");
        assert_eq!(file.read().expect("read"), saved);
        let bytes = std::fs::read(file.path()).expect("bytes");
        for plain in ["sk-ant-plain-value", "ghp_123", "anthropic", "github"] {
            assert!(!contains(&bytes, plain), "{plain} is in the file");
            // Nor in the hex the envelope's fields are written in.
            assert!(
                !contains(&bytes, &hex::encode(plain)),
                "{plain} is in the file as hex"
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn every_write_seals_anew() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = SecretFile::new(dir.path().join(FILE_NAME), b"machine-one-0123456789");
        let saved = entries(&[("openai", "sk-same")]);
        file.write(&saved).expect("write");
        let first = std::fs::read(file.path()).expect("bytes");
        file.write(&saved).expect("write");
        let second = std::fs::read(file.path()).expect("bytes");
        assert_ne!(first, second, "same entries, new salt and nonce");
        assert_eq!(file.read().expect("read"), saved);
    }

    #[test]
    fn another_computer_or_a_changed_byte_cannot_open_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        SecretFile::new(&path, b"machine-one-0123456789")
            .write(&entries(&[("openai", "sk-mine")]))
            .expect("write");
        let elsewhere = SecretFile::new(&path, b"machine-two-0123456789");
        assert!(matches!(elsewhere.read(), Err(SecretFileError::WontOpen)));

        let mut envelope: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("bytes")).expect("json");
        let data = envelope["data"].as_str().expect("data").to_owned();
        let flipped = if data.starts_with('0') { "1" } else { "0" };
        envelope["data"] = format!("{flipped}{}", &data[1..]).into();
        std::fs::write(&path, envelope.to_string()).expect("tamper");
        let home = SecretFile::new(&path, b"machine-one-0123456789");
        assert!(matches!(home.read(), Err(SecretFileError::WontOpen)));

        std::fs::write(&path, b"sk-not-json").expect("garbage");
        assert!(matches!(home.read(), Err(SecretFileError::BadFormat)));
        home.remove().expect("remove");
        home.remove().expect("removing twice is fine");
        assert!(!home.exists());
    }

    #[test]
    fn this_computer_has_an_id_where_linux_keeps_one() {
        if Path::new("/etc/machine-id").is_file() {
            let id = machine_id().expect("an id");
            assert!(id.len() >= 16 && !id.contains('\n'));
        }
    }
}
