//! Whether the computer runs on battery: the local queue holds background model work back
//! while it does (`models.background_on_battery`).

use sentient_core::sync::MutexExt;
use std::fmt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// How long [`SystemPower`] trusts a reading; asking the OS on every dispatch would be wasteful.
const POWER_CACHE: Duration = Duration::from_secs(5);

/// Whether the computer runs on battery. A trait so tests can fake it.
pub trait PowerSource: Send + Sync {
    fn on_battery(&self) -> bool;
}

/// The computer's own power status, cached for a few seconds. Anything that can't be read
/// counts as "not on battery", so an odd machine never has its background work held back.
pub struct SystemPower {
    /// The last reading and when it was taken (wall time: power status is not tokio's business).
    cached: Mutex<Option<(std::time::Instant, bool)>>,
}

impl SystemPower {
    pub fn new() -> Self {
        SystemPower {
            cached: Mutex::new(None),
        }
    }
}

impl Default for SystemPower {
    fn default() -> Self {
        SystemPower::new()
    }
}

impl fmt::Debug for SystemPower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SystemPower").finish_non_exhaustive()
    }
}

impl PowerSource for SystemPower {
    fn on_battery(&self) -> bool {
        // The lock is held while the OS is asked, so callers arriving together share one reading
        // instead of each running `pmset`.
        let mut cached = self.cached.lock_unpoisoned();
        if let Some((at, value)) = *cached
            && at.elapsed() < POWER_CACHE
        {
            return value;
        }
        let value = read_on_battery();
        *cached = Some((std::time::Instant::now(), value));
        value
    }
}

#[cfg(target_os = "linux")]
fn read_on_battery() -> bool {
    linux_on_battery(Path::new("/sys/class/power_supply"))
}

#[cfg(target_os = "macos")]
fn read_on_battery() -> bool {
    // `pmset -g batt` starts with "Now drawing from 'Battery Power'" or "'AC Power'".
    std::process::Command::new("pmset")
        .args(["-g", "batt"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).contains("Battery Power"))
        .unwrap_or(false)
}

/// Windows (and anything else): best effort "not on battery". Windows would need
/// `GetSystemPowerStatus`, an FFI call this workspace denies (`unsafe_code`) or a new
/// dependency; until then background work is never held back there for power.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn read_on_battery() -> bool {
    false
}

/// On battery when a battery says "Discharging" and no mains supply is online.
#[cfg_attr(not(any(target_os = "linux", test)), allow(dead_code))]
fn linux_on_battery(root: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(root) else {
        return false;
    };
    let read = |dir: &Path, name: &str| {
        std::fs::read_to_string(dir.join(name))
            .ok()
            .map(|text| text.trim().to_owned())
    };
    let mut discharging = false;
    for entry in entries.flatten() {
        let dir = entry.path();
        match read(&dir, "type").as_deref() {
            Some("Mains") if read(&dir, "online").as_deref() == Some("1") => return false,
            Some("Battery") if read(&dir, "status").as_deref() == Some("Discharging") => {
                discharging = true;
            }
            _ => {}
        }
    }
    discharging
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_power_supply_is_read() {
        let root =
            std::env::temp_dir().join(format!("sentient-queue-power-{}", std::process::id()));
        let supply = |name: &str, files: &[(&str, &str)]| {
            let dir = root.join(name);
            std::fs::create_dir_all(&dir).expect("mkdir");
            for (file, text) in files {
                std::fs::write(dir.join(file), format!("{text}\n")).expect("write");
            }
        };
        let _ = std::fs::remove_dir_all(&root);
        assert!(!linux_on_battery(&root), "nothing readable: not on battery");

        supply("BAT0", &[("type", "Battery"), ("status", "Discharging")]);
        supply("AC", &[("type", "Mains"), ("online", "0")]);
        assert!(linux_on_battery(&root));

        supply("AC", &[("type", "Mains"), ("online", "1")]);
        assert!(!linux_on_battery(&root), "mains online");

        supply("AC", &[("type", "Mains"), ("online", "0")]);
        supply("BAT0", &[("type", "Battery"), ("status", "Charging")]);
        assert!(!linux_on_battery(&root));

        std::fs::remove_dir_all(&root).expect("cleanup");
    }
}
