// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finding a QEMU that can run the emulated chip, and installing one where
//! that is safe to do.
//!
//! A run needs `qemu-system-i386` 10 or later (the plugin API version the
//! plugin is built against), built with TCG plugin support, and the `qboot`
//! firmware, which boots a multiboot kernel about three times faster than
//! SeaBIOS. Debian 12 ships QEMU 7.2; version 10 comes from its backports.

use std::fmt;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail, ensure};

/// The emulator binary, looked up on `PATH`.
pub const BINARY: &str = "qemu-system-i386";

/// Oldest major version that works.
pub const MIN_MAJOR: u32 = 10;

/// The firmware file.
pub const BIOS: &str = "qboot.rom";

/// A QEMU version number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    /// Major.
    pub major: u32,
    /// Minor.
    pub minor: u32,
    /// Micro.
    pub micro: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.micro)
    }
}

/// The version in the output of `qemu-system-i386 --version`, whose first
/// line reads `QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2...)`.
pub fn parse_version(output: &str) -> Option<Version> {
    let first = output.lines().next()?;
    let (_, rest) = first.split_once("version ")?;
    let number = rest.split_whitespace().next()?;
    let mut parts = number.split('.').map(str::parse::<u32>);
    let major = parts.next()?.ok()?;
    let minor = parts.next().unwrap_or(Ok(0)).ok()?;
    let micro = parts.next().unwrap_or(Ok(0)).ok()?;
    Some(Version {
        major,
        minor,
        micro,
    })
}

/// A usable QEMU.
#[derive(Debug, Clone)]
pub struct Qemu {
    /// The binary to run.
    pub binary: PathBuf,
    /// Its version.
    pub version: Version,
    /// The `qboot` firmware it ships.
    pub bios: PathBuf,
}

/// Why the QEMU on this machine cannot be used.
#[derive(Debug)]
enum Problem {
    Missing,
    TooOld(Version),
    Unreadable(String),
    NoPlugins(Version),
    NoQboot(Vec<PathBuf>),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => write!(f, "{BINARY} is not installed (not found on PATH)"),
            Self::TooOld(v) => write!(
                f,
                "{BINARY} is version {v}; version {MIN_MAJOR} or later is needed"
            ),
            Self::Unreadable(out) => write!(f, "cannot read the version of {BINARY} from {out:?}"),
            Self::NoPlugins(v) => write!(
                f,
                "{BINARY} {v} was built without TCG plugin support (no -plugin option)"
            ),
            Self::NoQboot(dirs) => write!(
                f,
                "{BIOS} is not in QEMU's firmware directories ({}); it comes with qemu-system-data",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Runs `qemu-system-i386 <args>` and returns its standard output.
fn query(args: &[&str]) -> Result<String, Problem> {
    match Command::new(BINARY).args(args).output() {
        Ok(out) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Problem::Missing),
        Err(e) => Err(Problem::Unreadable(e.to_string())),
    }
}

/// Looks at the installed QEMU.
fn probe() -> Result<Qemu, Problem> {
    let output = query(&["--version"])?;
    let version = parse_version(&output).ok_or_else(|| Problem::Unreadable(output.clone()))?;
    if version.major < MIN_MAJOR {
        return Err(Problem::TooOld(version));
    }
    if !has_plugin_option(&query(&["-help"])?) {
        return Err(Problem::NoPlugins(version));
    }
    let dirs: Vec<PathBuf> = query(&["-L", "help"])?
        .lines()
        .map(|l| PathBuf::from(l.trim()))
        .collect();
    let bios = dirs
        .iter()
        .map(|d| d.join(BIOS))
        .find(|p| p.is_file())
        .ok_or(Problem::NoQboot(dirs))?;
    Ok(Qemu {
        binary: PathBuf::from(BINARY),
        version,
        bios,
    })
}

/// Whether `qemu-system-i386 -help` lists the `-plugin` option, which only
/// a QEMU built with plugin support has.
fn has_plugin_option(help: &str) -> bool {
    help.lines().any(|l| l.starts_with("-plugin "))
}

/// The shell script that installs a suitable QEMU on the system described
/// by `os_release` (the contents of `/etc/os-release`), if this is a system
/// where xtask knows how.
pub fn install_script(os_release: &str) -> Option<String> {
    let field = |name: &str| {
        os_release.lines().find_map(|line| {
            let value = line.strip_prefix(name)?.strip_prefix('=')?;
            Some(value.trim_matches('"').to_owned())
        })
    };
    let id = field("ID").unwrap_or_default();
    let like = field("ID_LIKE").unwrap_or_default();
    let apt = |from: &str| {
        format!(
            "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
             --no-install-recommends{from} qemu-system-x86 qemu-system-data"
        )
    };
    if id == "debian" && field("VERSION_CODENAME").as_deref() == Some("bookworm") {
        let sources = "/etc/apt/sources.list.d/bookworm-backports.list";
        let suite = "deb http://deb.debian.org/debian bookworm-backports main";
        return Some(format!(
            "echo \"{suite}\" > {sources} && {}",
            apt(" -t bookworm-backports")
        ));
    }
    let debian_like = [id.as_str()]
        .into_iter()
        .chain(like.split_whitespace())
        .any(|name| name == "debian" || name == "ubuntu");
    debian_like.then(|| apt(""))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A usable QEMU: the installed one, or one installed now on Debian or
/// Ubuntu when running as root. Otherwise an error with the command that
/// installs it.
pub fn ensure() -> Result<Qemu> {
    let problem = match probe() {
        Ok(qemu) => return Ok(qemu),
        Err(problem) => problem,
    };
    let os_release = fs::read_to_string("/etc/os-release").unwrap_or_default();
    let Some(script) = install_script(&os_release) else {
        bail!(
            "{problem}.\nInstall QEMU {MIN_MAJOR} or later with TCG plugin support \
             ({BINARY}) and its {BIOS} firmware, then run this again."
        );
    };
    if !is_root() {
        bail!("{problem}.\nInstall it with:\n  sudo sh -c '{script}'");
    }
    eprintln!("{problem}: installing it with: {script}");
    let status = Command::new("sh")
        .args(["-c", &script])
        .status()
        .context("could not start sh to install QEMU")?;
    ensure!(
        status.success(),
        "installing QEMU failed ({status}); the command was: {script}"
    );
    probe().map_err(|problem| anyhow!("{problem}, even after installing it with: {script}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32, micro: u32) -> Version {
        Version {
            major,
            minor,
            micro,
        }
    }

    #[test]
    fn versions_are_read_from_the_first_line() {
        let debian = "QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\n\
                      Copyright (c) 2003-2025 Fabrice Bellard and the QEMU Project developers\n";
        assert_eq!(parse_version(debian), Some(v(10, 0, 2)));
        assert_eq!(
            parse_version("QEMU emulator version 7.2.15 (Debian 1:7.2+dfsg-7+deb12u13)"),
            Some(v(7, 2, 15))
        );
        assert_eq!(
            parse_version("QEMU emulator version 10.1.50"),
            Some(v(10, 1, 50))
        );
        assert_eq!(parse_version("QEMU emulator version 11"), Some(v(11, 0, 0)));
        assert_eq!(parse_version("qemu-system-i386: command not found"), None);
        assert_eq!(parse_version("QEMU emulator version x.y"), None);
        assert_eq!(parse_version(""), None);
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(v(10, 0, 0) > v(9, 2, 99));
        assert!(v(10, 0, 10) > v(10, 0, 9));
        assert!(v(9, 2, 0).major < MIN_MAJOR && v(10, 0, 2).major >= MIN_MAJOR);
    }

    #[test]
    fn plugin_support_shows_in_the_help() {
        let with = "-icount [shift=N|auto]\n-plugin [file=]<file>[,<argname>=<argvalue>]\n                load a plugin\n";
        assert!(has_plugin_option(with));
        assert!(!has_plugin_option(
            "-icount [shift=N|auto]\n-trace [[enable=]<pattern>]\n"
        ));
    }

    const BOOKWORM: &str = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n\
                            VERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\nID=debian\n";

    #[test]
    fn debian_12_installs_from_backports() {
        let script = install_script(BOOKWORM).unwrap();
        assert_eq!(
            script,
            "echo \"deb http://deb.debian.org/debian bookworm-backports main\" > \
             /etc/apt/sources.list.d/bookworm-backports.list && apt-get update && \
             DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
             -t bookworm-backports qemu-system-x86 qemu-system-data"
        );
        // The script nests inside sudo sh -c '...'.
        assert!(!script.contains('\''));
    }

    #[test]
    fn other_debian_like_systems_use_their_own_suite() {
        let trixie = "ID=debian\nVERSION_CODENAME=trixie\n";
        let ubuntu = "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n";
        let mint = "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n";
        for os in [trixie, ubuntu, mint] {
            let script = install_script(os).unwrap();
            assert!(script.starts_with("apt-get update && "), "{script}");
            assert!(!script.contains("backports"), "{script}");
        }
    }

    #[test]
    fn other_systems_get_no_script() {
        assert_eq!(install_script("ID=fedora\nVERSION_ID=40\n"), None);
        assert_eq!(
            install_script("ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n"),
            None
        );
        assert_eq!(install_script(""), None);
    }
}
