//! Programs on this computer, for the areas that start them (scripts, commands): finding one on
//! the PATH, and a child's output pipe as one type, so a reader serves stdout and stderr alike.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A child's stdout or stderr.
pub type ChildOutput = Box<dyn tokio::io::AsyncRead + Unpin + Send>;

/// The first program called `name` (or `name.exe` on Windows) in the PATH's folders.
pub fn on_path(name: &str) -> Option<PathBuf> {
    on_path_in(name, None)
}

/// The first program called `name` in the folders of `path` (a PATH value; the engine's PATH
/// when `None`).
pub fn on_path_in(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let path = match path {
        Some(path) => path.to_owned(),
        None => std::env::var_os("PATH")?,
    };
    std::env::split_paths(&path).find_map(|dir| {
        let names = if cfg!(windows) {
            vec![format!("{name}.exe"), name.to_owned()]
        } else {
            vec![name.to_owned()]
        };
        names
            .into_iter()
            .map(|n| dir.join(n))
            .find(|candidate| is_program(candidate))
    })
}

fn is_program(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_not_found_and_a_present_one_is() {
        assert!(on_path("sentient-no-such-program-here").is_none());
        let empty = std::env::temp_dir().join("sentient-programs-no-such-folder");
        assert!(on_path_in("sh", Some(empty.as_os_str())).is_none());
        #[cfg(unix)]
        assert!(on_path_in("sh", Some(OsStr::new("/bin:/usr/bin"))).is_some());
    }
}
