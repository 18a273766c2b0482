//! What a script leaves in its working folder is copied to `files/outputs/<run_id>/`, so the
//! person (and `/api/files`) can reach it after the folder is removed. Only plain files are
//! copied: a link could point anywhere on the computer.

use std::path::{Path, PathBuf};

/// Folders in the working folder that are Sentient's, not the script's.
pub const OWN_FOLDERS: &[&str] = &[".sentient", "__pycache__"];
/// Most entries looked at, so a script that makes a huge tree can't hold the run up.
const MOST_ENTRIES: usize = 10_000;

/// Copies the script's files (at most `max_files`, each at most `max_bytes`) from `workdir`
/// to `<outputs>/<run_id>/`; returns their names relative to the files folder
/// (`outputs/<run_id>/chart.png`), in name order.
pub fn copy_outputs(
    workdir: &Path,
    outputs: &Path,
    run_id: &str,
    max_files: usize,
    max_bytes: u64,
) -> std::io::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    let mut seen = 0;
    while let Some(relative) = folders.pop() {
        for entry in std::fs::read_dir(workdir.join(&relative))? {
            seen += 1;
            if seen > MOST_ENTRIES {
                break;
            }
            let entry = entry?;
            let name = entry.file_name();
            if relative.as_os_str().is_empty()
                && OWN_FOLDERS.iter().any(|own| name.as_os_str() == *own)
            {
                continue;
            }
            // The entry itself, never what a link points at.
            let meta = std::fs::symlink_metadata(entry.path())?;
            let path = relative.join(&name);
            if meta.is_dir() {
                folders.push(path);
            } else if meta.is_file() {
                found.push((path, meta.len()));
            }
        }
    }
    found.sort();
    let target = outputs.join(run_id);
    let mut names = Vec::new();
    for (relative, size) in found {
        if names.len() >= max_files {
            break;
        }
        if size > max_bytes {
            tracing::info!(file = %relative.display(), size, "a script's file was too large to keep");
            continue;
        }
        let to = target.join(&relative);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(workdir.join(&relative), &to)?;
        let shown: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        names.push(format!("outputs/{run_id}/{}", shown.join("/")));
    }
    Ok(names)
}

/// Removes the working folders an earlier session left in `sandbox_root` (a crash or a kill
/// ends a run before it cleans up); returns how many went. A missing root is nothing to do.
pub fn remove_leftovers(sandbox_root: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(sandbox_root) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let is_folder = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        match if is_folder {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        } {
            Ok(()) => removed += 1,
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "a leftover script folder could not be removed");
            }
        }
    }
    if removed > 0 {
        tracing::info!(removed, "removed folders left by earlier script runs");
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_removed_and_a_missing_root_is_nothing_to_do() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("sandbox");
        assert_eq!(remove_leftovers(&root), 0);
        std::fs::create_dir_all(root.join("a/.sentient"))?;
        std::fs::write(root.join("a/.sentient/script.py"), "print(1)")?;
        std::fs::write(root.join("stray.txt"), "x")?;
        assert_eq!(remove_leftovers(&root), 2);
        assert_eq!(std::fs::read_dir(&root)?.count(), 0);
        Ok(())
    }

    #[test]
    fn plain_files_are_copied_and_sentients_own_are_not() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let outputs = dir.path().join("outputs");
        std::fs::create_dir_all(work.join(".sentient"))?;
        std::fs::create_dir_all(work.join("sub"))?;
        std::fs::write(work.join(".sentient/script.py"), "print(1)")?;
        std::fs::write(work.join("chart.png"), [1u8, 2, 3])?;
        std::fs::write(work.join("sub/data.csv"), "a,b")?;
        std::fs::write(work.join("big.bin"), vec![0u8; 2048])?;
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/hostname", work.join("link"))?;

        let names = copy_outputs(&work, &outputs, "r1", 10, 1024)?;
        assert_eq!(names, ["outputs/r1/chart.png", "outputs/r1/sub/data.csv"]);
        assert_eq!(std::fs::read(outputs.join("r1/chart.png"))?, [1u8, 2, 3]);
        assert_eq!(
            std::fs::read_to_string(outputs.join("r1/sub/data.csv"))?,
            "a,b"
        );
        assert!(!outputs.join("r1/link").exists());
        assert!(!outputs.join("r1/big.bin").exists());

        let names = copy_outputs(&work, &outputs, "r2", 1, 1 << 20)?;
        assert_eq!(
            names,
            ["outputs/r2/big.bin"],
            "at most max_files, in name order"
        );
        Ok(())
    }
}
