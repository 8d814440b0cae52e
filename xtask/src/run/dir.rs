// SPDX-License-Identifier: MIT OR Apache-2.0
//! The run directory: where the chip memory lives while a run goes on.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use tempfile::TempDir;

/// Start of every run directory's name; the pid of the xtask that made it
/// follows, so that a later run can tell a directory whose owner was
/// killed (SIGKILL leaves no chance to clean up) from one still in use.
const DIR_PREFIX: &str = "scc-run-";

/// Where run directories are made: in memory when possible.
fn dir_parents() -> [PathBuf; 2] {
    [PathBuf::from("/dev/shm"), std::env::temp_dir()]
}

/// A directory only this user can enter, in memory (`/dev/shm`) when
/// possible so the chip memory never touches a disk. Removed on drop.
pub(super) fn private_dir() -> Result<TempDir> {
    let prefix = format!("{DIR_PREFIX}{}-", std::process::id());
    let builder = {
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix)
            .permissions(std::fs::Permissions::from_mode(0o700));
        b
    };
    let [memory, disk] = dir_parents();
    builder
        .tempdir_in(memory)
        .or_else(|_| builder.tempdir_in(disk))
        .context("cannot create a directory for the chip memory")
}

/// Removes the run directories whose xtask no longer exists; returns how
/// many. A directory whose pid was reused by another process stays: that
/// errs on the safe side.
pub(super) fn remove_orphaned_dirs() -> usize {
    dir_parents()
        .iter()
        .map(|parent| remove_orphaned_dirs_in(parent))
        .sum()
}

fn remove_orphaned_dirs_in(parent: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    let owner = |name: &str| -> Option<u32> {
        name.strip_prefix(DIR_PREFIX)?
            .split('-')
            .next()?
            .parse()
            .ok()
    };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let pid = name.to_str().and_then(owner);
            pid.is_some_and(|pid| !PathBuf::from(format!("/proc/{pid}")).exists())
        })
        .filter(|entry| std::fs::remove_dir_all(entry.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;

    use super::*;

    #[test]
    fn directories_of_killed_runs_are_removed_and_live_ones_kept() {
        let parent = tempfile::tempdir().unwrap();
        let mut child = Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let orphan = parent.path().join(format!("{DIR_PREFIX}{dead}-abc"));
        let live = parent
            .path()
            .join(format!("{DIR_PREFIX}{}-def", std::process::id()));
        let other = parent.path().join("scc-run-notapid-x");
        for dir in [&orphan, &live, &other] {
            std::fs::create_dir(dir).unwrap();
        }
        std::fs::write(orphan.join("chip.mem"), b"left behind").unwrap();
        assert_eq!(remove_orphaned_dirs_in(parent.path()), 1);
        assert!(!orphan.exists());
        assert!(live.exists() && other.exists());
    }

    #[test]
    fn the_private_directory_is_removed_on_drop() {
        let dir = private_dir().unwrap();
        let path = dir.path().to_owned();
        let mode = std::fs::metadata(&path).unwrap().permissions();
        assert_eq!(mode.mode() & 0o777, 0o700);
        drop(dir);
        assert!(!path.exists());
    }
}
