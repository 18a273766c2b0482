//! The processes on this computer, for tests that check nothing a run started is left behind.

/// Processes anywhere on this computer whose command line holds `marker` (zombies count as
/// gone). Tests give each process they start a marker nothing else has.
#[cfg(target_os = "linux")]
pub fn alive_with(marker: &str) -> Vec<String> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(line) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&line).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|s| {
                s.rfind(')')
                    .map(|i| s[i + 1..].trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if line.contains(marker) && !zombie {
            alive.push(line);
        }
    }
    alive
}
