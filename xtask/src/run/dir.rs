// SPDX-License-Identifier: MIT OR Apache-2.0
//! The run directory: where the chip memory lives while a run goes on.
//!
//! Each run makes one directory only its user can enter, in memory
//! (`/dev/shm`) when that has room, so the chip memory never touches a
//! disk. The run holds an exclusive `flock` on the directory for as long as
//! it lives, and removes the directory, still holding the lock, when it
//! ends. A run killed with SIGKILL cannot clean up, so every run first
//! sweeps the directories nobody holds: the lock, not a process id, says
//! whether a run is alive, so runs in other PID namespaces (containers,
//! `unshare --pid`) that share `/dev/shm` never remove each other's memory.
//!
//! A directory is created under a temporary name, locked, and only then
//! renamed to its final name, so a sweep never sees a final name whose lock
//! is not yet held.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail};

/// Start of every run directory's name; a random suffix follows.
pub(super) const DIR_PREFIX: &str = "scc-chip-";

/// Start of the name of a directory kept after its run
/// ([`RunDir::keep`]): no sweep removes it.
pub(super) const KEPT_PREFIX: &str = "scc-kept-";

/// Start of a directory's name while it is being made, before its lock is
/// held.
const NEW_PREFIX: &str = ".scc-chip-new-";

/// How old an unlocked directory still under its temporary name must be
/// before a sweep removes it: a run renames its directory within
/// microseconds, so only one that died in between is this old.
const NEW_GRACE: Duration = Duration::from_secs(60);

/// One mebibyte.
const MIB: u64 = 1 << 20;

/// A run's directory, locked while this value lives; removed on drop.
#[derive(Debug)]
pub(super) struct RunDir {
    path: PathBuf,
    /// Whether dropping the value removes the directory: false once kept.
    remove: bool,
    /// The open directory holding the lock. Opened with close-on-exec, so
    /// QEMU instances never hold it.
    _lock: File,
}

impl RunDir {
    /// A new locked directory in `parent`, mode 0700.
    pub(super) fn create_in(parent: &Path) -> Result<Self> {
        let fresh = tempfile::Builder::new()
            .prefix(NEW_PREFIX)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)
            .with_context(|| format!("cannot create a run directory in {}", parent.display()))?;
        let lock = open_dir(fresh.path())
            .with_context(|| format!("cannot open {}", fresh.path().display()))?;
        if !try_lock(&lock).with_context(|| format!("cannot lock {}", fresh.path().display()))? {
            bail!("{} is locked by another run", fresh.path().display());
        }
        let name = fresh
            .path()
            .file_name()
            .expect("a temporary directory has a name");
        let suffix = &name.as_bytes()[NEW_PREFIX.len()..];
        let path = parent.join(std::ffi::OsStr::from_bytes(
            &[DIR_PREFIX.as_bytes(), suffix].concat(),
        ));
        rename_no_replace(fresh.path(), &path).with_context(|| {
            format!(
                "cannot rename {} to {}",
                fresh.path().display(),
                path.display()
            )
        })?;
        // Renamed: the temporary name is gone, this value owns the directory.
        let _ = fresh.keep();
        Ok(Self {
            path,
            remove: true,
            _lock: lock,
        })
    }

    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory after the run, renamed so that no later run's
    /// sweep takes it (`scc-kept-` instead of `scc-chip-`), and returns
    /// where it is now. Removing it is the user's job.
    pub(super) fn keep(mut self) -> Result<PathBuf> {
        let name = self.path.file_name().expect("a run directory has a name");
        let suffix = &name.as_bytes()[DIR_PREFIX.len()..];
        let kept = self.path.with_file_name(std::ffi::OsStr::from_bytes(
            &[KEPT_PREFIX.as_bytes(), suffix].concat(),
        ));
        rename_no_replace(&self.path, &kept).with_context(|| {
            format!(
                "cannot rename {} to {}",
                self.path.display(),
                kept.display()
            )
        })?;
        // Renamed while locked: no sweep saw it unlocked under a name it
        // takes. The lock goes with the value.
        self.remove = false;
        Ok(kept)
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        // Still locked: no sweep can take it half-removed.
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// `path` opened as a directory, without following a symbolic link.
fn open_dir(path: &Path) -> io::Result<File> {
    File::options()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(path)
}

/// Takes an exclusive `flock` on `file` without waiting: `Ok(false)` if
/// another open file holds one.
fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock only reads the descriptor, which `file` keeps open.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    match io::Error::last_os_error() {
        e if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(false),
        e => Err(e),
    }
}

/// Renames `from` to `to`, failing if `to` exists (on a file system or
/// kernel without `RENAME_NOREPLACE`, a plain rename: the random suffix
/// alone then keeps names apart).
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    let (from_path, to_path) = (from, to);
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both are valid NUL-terminated strings that outlive the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    match io::Error::last_os_error() {
        _ if done == 0 => Ok(()),
        e if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) => {
            std::fs::rename(from_path, to_path)
        }
        e => Err(e),
    }
}

/// Removes, from every place run directories are made, the directories no
/// live run holds; returns how many.
pub(super) fn remove_dead_dirs(parents: &[PathBuf]) -> usize {
    parents
        .iter()
        .map(|parent| remove_dead_dirs_in(parent))
        .sum()
}

/// Removes the run directories in `parent` whose lock nobody holds. Only
/// this user's directories, never a symbolic link, never one whose lock is
/// held (or cannot be tested).
pub(super) fn remove_dead_dirs_in(parent: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.as_bytes();
            let Ok(meta) = entry.metadata() else {
                return false;
            };
            let new = name.starts_with(NEW_PREFIX.as_bytes());
            let ours = meta.is_dir() && meta.uid() == me;
            let old_enough = || {
                meta.modified()
                    .ok()
                    .and_then(|m| SystemTime::now().duration_since(m).ok())
                    .is_some_and(|age| age >= NEW_GRACE)
            };
            ours && (name.starts_with(DIR_PREFIX.as_bytes()) || (new && old_enough()))
        })
        .filter(|entry| {
            let Ok(dir) = open_dir(&entry.path()) else {
                return false;
            };
            // Locked by us now, so no run can be using it; removed before
            // the lock goes with `dir`.
            try_lock(&dir).unwrap_or(false) && std::fs::remove_dir_all(entry.path()).is_ok()
        })
        .count()
}

/// Where run directories are made, in order of preference: `asked` alone
/// if given, else memory (`/dev/shm`) and then the temporary directory.
pub(super) fn candidates(asked: Option<&Path>) -> Vec<PathBuf> {
    match asked {
        Some(dir) => vec![dir.to_owned()],
        None => vec![PathBuf::from("/dev/shm"), std::env::temp_dir()],
    }
}

/// `path` as a C string for a system call.
fn c_path(path: &Path) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

/// Bytes free for this user in the file system holding `dir`.
pub(super) fn free_bytes(dir: &Path) -> io::Result<u64> {
    let path = c_path(dir)?;
    // SAFETY: an all-zero statvfs is a valid value to be overwritten.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a valid NUL-terminated string and `stat` a valid
    // place for the result; both outlive the call.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// The first of `candidates` whose file system has `need` bytes free,
/// given each one's free bytes (`None`: it cannot be used, e.g. it does not
/// exist); otherwise an error saying how much is needed, what each place
/// has and how to get more.
pub(super) fn choose(candidates: &[(PathBuf, Option<u64>)], need: u64) -> Result<&Path> {
    if let Some((dir, _)) = candidates
        .iter()
        .find(|(_, free)| free.is_some_and(|f| f >= need))
    {
        return Ok(dir);
    }
    let places: Vec<String> = candidates
        .iter()
        .map(|(dir, free)| match free {
            Some(free) => format!("{} has {} MiB free", dir.display(), free / MIB),
            None => format!("{} cannot be used", dir.display()),
        })
        .collect();
    let shm = candidates
        .iter()
        .any(|(dir, _)| dir == Path::new("/dev/shm"));
    let how = if shm {
        "Give /dev/shm more room (`mount -o remount,size=2G /dev/shm`; in Docker, \
         `--shm-size=2g`), or point --run-dir (or TMPDIR) at a file system with room"
    } else {
        "Point --run-dir at a file system with room"
    };
    bail!(
        "not enough room for the chip memory: this run may need {} MiB, but {}. {how}",
        need.div_ceil(MIB),
        places.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_run_directory_is_private_locked_and_removed_on_drop() {
        let parent = tempfile::tempdir().unwrap();
        let dir = RunDir::create_in(parent.path()).unwrap();
        let path = dir.path().to_owned();
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(DIR_PREFIX), "{name}");
        let mode = std::fs::metadata(&path).unwrap().permissions();
        assert_eq!(mode.mode() & 0o777, 0o700);
        // Another open file description cannot take the lock.
        assert!(!try_lock(&open_dir(&path).unwrap()).unwrap());
        assert_eq!(remove_dead_dirs_in(parent.path()), 0);
        assert!(path.exists());
        // Only the final name is left.
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn a_kept_directory_outlives_its_run_and_every_sweep() {
        let parent = tempfile::tempdir().unwrap();
        let dir = RunDir::create_in(parent.path()).unwrap();
        std::fs::write(dir.path().join("core-00.report"), b"report").unwrap();
        let kept = dir.keep().unwrap();
        let name = kept.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(KEPT_PREFIX), "{name}");
        assert_eq!(remove_dead_dirs_in(parent.path()), 0);
        assert_eq!(
            std::fs::read(kept.join("core-00.report")).unwrap(),
            b"report"
        );
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
    }

    #[test]
    fn directories_nobody_holds_are_removed_and_held_ones_kept() {
        let parent = tempfile::tempdir().unwrap();
        let live = RunDir::create_in(parent.path()).unwrap();
        std::fs::write(live.path().join("chip.mem"), b"in use").unwrap();
        // A run killed before it could clean up: its lock went with it.
        let dead = parent.path().join(format!("{DIR_PREFIX}killed"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("chip.mem"), b"left behind").unwrap();
        // Young directories under the temporary name may be a run's in the
        // making; other names and symbolic links are never touched.
        let young = parent.path().join(format!("{NEW_PREFIX}young"));
        let other = parent.path().join("scc-run-1-x");
        for d in [&young, &other] {
            std::fs::create_dir(d).unwrap();
        }
        let link = parent.path().join(format!("{DIR_PREFIX}link"));
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert_eq!(remove_dead_dirs_in(parent.path()), 1);
        assert!(!dead.exists());
        assert!(live.path().join("chip.mem").exists());
        assert!(young.exists() && other.exists() && link.exists());
    }

    #[test]
    fn the_first_place_with_room_is_chosen_and_none_is_a_clear_error() {
        let shm = PathBuf::from("/dev/shm");
        let tmp = PathBuf::from("/tmp");
        let both = [(shm.clone(), Some(64 * MIB)), (tmp.clone(), Some(10 << 30))];
        assert_eq!(choose(&both, 32 * MIB).unwrap(), shm);
        assert_eq!(choose(&both, 100 * MIB).unwrap(), tmp);
        let none = [(shm, Some(64 * MIB)), (tmp, None)];
        let message = choose(&none, 100 * MIB).unwrap_err().to_string();
        assert!(
            message.starts_with(
                "not enough room for the chip memory: this run may need 100 MiB, \
                 but /dev/shm has 64 MiB free and /tmp cannot be used."
            ),
            "{message}"
        );
        assert!(message.contains("--shm-size"), "{message}");
        let asked = [(PathBuf::from("/mnt/small"), Some(MIB))];
        let message = choose(&asked, 100 * MIB).unwrap_err().to_string();
        assert!(
            message.ends_with("Point --run-dir at a file system with room"),
            "{message}"
        );
    }

    #[test]
    fn free_space_is_read_from_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_bytes(dir.path()).unwrap() > 0);
        assert!(free_bytes(&dir.path().join("nosuch")).is_err());
    }
}
