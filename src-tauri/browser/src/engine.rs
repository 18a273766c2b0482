//! Which installed browser a profile drives: `browser.engine` (or the profile's own `engine`)
//! names Edge, Chrome or Chromium, and `auto` takes the first installed of those, in that order.
//! chromiumoxide's own detection does not say which browser it found, so the places are ours.

use std::path::{Path, PathBuf};

use sentient_core::config::BrowserEngine;

/// An installed browser Sentient can drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `msedge`, `chrome` or `chromium`, as the status route names it.
    pub engine: &'static str,
    pub path: PathBuf,
}

/// The engines `auto` tries, in order.
const AUTO_ORDER: [BrowserEngine; 3] = [
    BrowserEngine::Msedge,
    BrowserEngine::Chrome,
    BrowserEngine::Chromium,
];

/// The engine a profile's `engine` text names (empty or unknown: the settings' choice).
pub fn engine_for(profile_engine: &str, setting: BrowserEngine) -> BrowserEngine {
    match profile_engine.trim() {
        "auto" => BrowserEngine::Auto,
        "msedge" => BrowserEngine::Msedge,
        "chrome" => BrowserEngine::Chrome,
        "chromium" => BrowserEngine::Chromium,
        _ => setting,
    }
}

/// The installed browser for `engine`, looked up on `PATH` and in the usual install folders;
/// `SENTIENT_BROWSER` (a path) overrides the lookup, for a browser kept somewhere unusual.
pub fn find(engine: BrowserEngine) -> Option<Installed> {
    if let Some(path) = std::env::var_os("SENTIENT_BROWSER").map(PathBuf::from)
        && path.is_file()
    {
        let name = path.to_string_lossy().to_lowercase();
        let engine = if name.contains("edge") {
            "msedge"
        } else if name.contains("chromium") {
            "chromium"
        } else {
            "chrome"
        };
        return Some(Installed { engine, path });
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path_var).collect();
    find_in(engine, &dirs)
}

/// [`find`] over the folders `dirs` (the `PATH`), then the fixed install places.
pub fn find_in(engine: BrowserEngine, dirs: &[PathBuf]) -> Option<Installed> {
    let order: &[BrowserEngine] = match engine {
        BrowserEngine::Auto => &AUTO_ORDER,
        BrowserEngine::Msedge => &[BrowserEngine::Msedge],
        BrowserEngine::Chrome => &[BrowserEngine::Chrome],
        BrowserEngine::Chromium => &[BrowserEngine::Chromium],
    };
    order.iter().find_map(|engine| {
        let (name, commands, places) = candidates(*engine);
        commands
            .iter()
            .find_map(|command| on_path(command, dirs))
            .or_else(|| {
                places
                    .iter()
                    .map(PathBuf::from)
                    .find(|place| place.is_file())
            })
            .map(|path| Installed { engine: name, path })
    })
}

fn on_path(command: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter()
        .map(|dir| dir.join(executable_name(command)))
        .find(|path| is_executable(path))
}

fn executable_name(command: &str) -> String {
    if cfg!(windows) {
        format!("{command}.exe")
    } else {
        command.to_owned()
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// An engine's name, its commands on `PATH` and its fixed install places.
fn candidates(
    engine: BrowserEngine,
) -> (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
) {
    match engine {
        BrowserEngine::Msedge => (
            "msedge",
            &["microsoft-edge", "microsoft-edge-stable", "msedge"],
            &[
                "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
                r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
                r"C:\Program Files\Microsoft\Edge\Application\msedge.exe",
            ],
        ),
        BrowserEngine::Chrome => (
            "chrome",
            &["google-chrome", "google-chrome-stable", "chrome"],
            &[
                "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                r"C:\Program Files\Google\Chrome\Application\chrome.exe",
                r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe",
            ],
        ),
        BrowserEngine::Chromium | BrowserEngine::Auto => (
            "chromium",
            &["chromium", "chromium-browser"],
            &["/Applications/Chromium.app/Contents/MacOS/Chromium"],
        ),
    }
}

/// The plain sentence for a missing browser.
pub fn missing_message(engine: BrowserEngine) -> String {
    match engine {
        BrowserEngine::Auto => "No supported browser is installed. Install Microsoft Edge, Google Chrome or Chromium, then try again.".to_owned(),
        BrowserEngine::Msedge => "Microsoft Edge isn't installed. Install it, or pick another browser in Settings > Browser.".to_owned(),
        BrowserEngine::Chrome => "Google Chrome isn't installed. Install it, or pick another browser in Settings > Browser.".to_owned(),
        BrowserEngine::Chromium => "Chromium isn't installed. Install it, or pick another browser in Settings > Browser.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(executable_name(name));
        std::fs::write(&path, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        path
    }

    #[test]
    fn auto_prefers_edge_then_chrome_then_chromium() {
        let dir = tempfile::tempdir().expect("dir");
        let dirs = vec![dir.path().to_path_buf()];
        let chromium = fake(dir.path(), "chromium");
        assert_eq!(
            find_in(BrowserEngine::Auto, &dirs),
            Some(Installed {
                engine: "chromium",
                path: chromium.clone()
            })
        );
        let chrome = fake(dir.path(), "google-chrome");
        assert_eq!(
            find_in(BrowserEngine::Auto, &dirs).map(|i| i.path),
            Some(chrome)
        );
        let edge = fake(dir.path(), "microsoft-edge");
        assert_eq!(
            find_in(BrowserEngine::Auto, &dirs),
            Some(Installed {
                engine: "msedge",
                path: edge
            })
        );
        // A named engine takes only that one.
        assert_eq!(
            find_in(BrowserEngine::Chromium, &dirs).map(|i| i.path),
            Some(chromium)
        );
    }

    #[test]
    fn a_file_that_is_not_executable_is_no_browser() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join(executable_name("chromium")), "text").expect("write");
        if cfg!(unix) {
            assert_eq!(
                find_in(BrowserEngine::Chromium, &[dir.path().to_path_buf()]),
                None
            );
        }
    }

    #[test]
    fn a_profile_engine_overrides_the_setting() {
        assert_eq!(engine_for("", BrowserEngine::Chrome), BrowserEngine::Chrome);
        assert_eq!(
            engine_for("chromium", BrowserEngine::Chrome),
            BrowserEngine::Chromium
        );
        assert_eq!(
            engine_for("auto", BrowserEngine::Chrome),
            BrowserEngine::Auto
        );
    }
}
