// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finding a QEMU that can run the emulated chip, and installing one where
//! that is safe to do.
//!
//! A run needs `qemu-system-i386` 10 or later (the plugin API version the
//! plugin is built against), built with TCG plugin support, and the `qboot`
//! firmware, which boots a multiboot kernel about three times faster than
//! SeaBIOS. Debian 12 ships QEMU 7.2; version 10 comes from its backports.
//!
//! Where it is missing, [`ensure()`] installs it as root on Debian and
//! Ubuntu, unless `SCC_NO_INSTALL` ([`NO_INSTALL`]) says not to; [`plan`]
//! decides.

use std::env;
use std::ffi::OsStr;
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

/// The shell that runs the installation, by absolute path: never one found
/// on `PATH`.
pub const SHELL: &str = "/bin/sh";

/// Set to anything but the empty string or `0`, this environment variable
/// keeps xtask from installing QEMU: it fails with the command instead.
pub const NO_INSTALL: &str = "SCC_NO_INSTALL";

/// Debian 12's apt source for its backports, where QEMU 10 is. The
/// installation creates it only if no file of that name exists.
pub const BACKPORTS_SOURCES: &str = "/etc/apt/sources.list.d/bookworm-backports.list";

/// An installation of QEMU: a shell script to run as root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The script, for [`SHELL`] `-c`. It holds no single quote, so that
    /// it can be shown quoted in a command line.
    pub script: String,
    /// An apt source file the script would otherwise have created, which
    /// exists and which it leaves as it is.
    pub kept: Option<&'static str>,
}

impl Install {
    /// The command line that runs the script: `/bin/sh -c '<script>'`.
    pub fn command(&self) -> String {
        format!("{SHELL} -c '{}'", self.script)
    }

    /// What an error adds about a kept apt source file, if there is one.
    fn kept_note(&self) -> String {
        self.kept.map_or_else(String::new, |file| {
            format!(
                "\nThe existing {file} was kept as it is, so apt used what it says: \
                 check that it enables bookworm-backports."
            )
        })
    }
}

/// The shell script that installs a suitable QEMU on the system described
/// by `os_release` (the contents of `/etc/os-release`), if this is a system
/// where xtask knows how. On Debian 12 it creates [`BACKPORTS_SOURCES`]
/// when no such file exists (again checked when it runs); with
/// `sources_exist` it leaves the file to apt as it is.
pub fn install_script(os_release: &str, sources_exist: bool) -> Option<Install> {
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
        let install = apt(" -t bookworm-backports");
        if sources_exist {
            return Some(Install {
                script: install,
                kept: Some(BACKPORTS_SOURCES),
            });
        }
        let suite = "deb http://deb.debian.org/debian bookworm-backports main";
        let sources = BACKPORTS_SOURCES;
        return Some(Install {
            script: format!("[ -e {sources} ] || echo \"{suite}\" > {sources} && {install}"),
            kept: None,
        });
    }
    let debian_like = [id.as_str()]
        .into_iter()
        .chain(like.split_whitespace())
        .any(|name| name == "debian" || name == "ubuntu");
    debian_like.then(|| Install {
        script: apt(""),
        kept: None,
    })
}

/// What [`plan`] decides on.
#[derive(Debug, Clone, Copy)]
pub struct Machine<'a> {
    /// The contents of `/etc/os-release` (empty if it cannot be read).
    pub os_release: &'a str,
    /// Whether a file (or anything else) named [`BACKPORTS_SOURCES`] exists.
    pub sources_exist: bool,
    /// Whether xtask runs as root.
    pub root: bool,
    /// The value of [`NO_INSTALL`], if it is set.
    pub no_install: Option<&'a OsStr>,
}

/// What to do about an unusable QEMU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Run this installation now.
    Install(Install),
    /// Install nothing and fail with this message: the problem and what
    /// the user can do about it.
    Refuse(String),
}

/// Whether `value`, that of [`NO_INSTALL`], forbids installing: set,
/// neither empty nor `0`.
pub fn opted_out(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether to install QEMU on `machine`, where `problem` says what is
/// wrong with the QEMU there: only as root, on a system with a known
/// installation, and unless [`NO_INSTALL`] forbids it. Otherwise the
/// message gives the exact command to run.
pub fn plan(problem: &str, machine: &Machine<'_>) -> Plan {
    let Some(install) = install_script(machine.os_release, machine.sources_exist) else {
        return Plan::Refuse(format!(
            "{problem}.\nInstall QEMU {MIN_MAJOR} or later with TCG plugin support \
             ({BINARY}) and its {BIOS} firmware, then run this again."
        ));
    };
    let kept = install.kept.map_or_else(String::new, |file| {
        format!(
            "\nIt leaves the existing {file} as it is, so apt uses what it says, \
             which must enable bookworm-backports."
        )
    });
    let command = install.command();
    if opted_out(machine.no_install) {
        let sudo = if machine.root { "" } else { "sudo " };
        return Plan::Refuse(format!(
            "{problem}.\n{NO_INSTALL} is set, so xtask does not install QEMU; \
             install it yourself with:\n  {sudo}{command}{kept}"
        ));
    }
    if !machine.root {
        return Plan::Refuse(format!(
            "{problem}.\nInstall it as root with:\n  sudo {command}{kept}"
        ));
    }
    Plan::Install(install)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Whether anything is at `path`: a file, a directory, even a broken
/// symbolic link. A path that cannot be looked at counts as taken.
fn exists(path: &str) -> bool {
    !matches!(fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

/// A usable QEMU: the installed one, or one installed now on Debian or
/// Ubuntu when running as root (see [`plan`]). Otherwise an error with the
/// command that installs it.
pub fn ensure() -> Result<Qemu> {
    let problem = match probe() {
        Ok(qemu) => return Ok(qemu),
        Err(problem) => problem,
    };
    let os_release = fs::read_to_string("/etc/os-release").unwrap_or_default();
    let no_install = env::var_os(NO_INSTALL);
    let machine = Machine {
        os_release: &os_release,
        sources_exist: exists(BACKPORTS_SOURCES),
        root: is_root(),
        no_install: no_install.as_deref(),
    };
    let install = match plan(&problem.to_string(), &machine) {
        Plan::Install(install) => install,
        Plan::Refuse(message) => bail!("{message}"),
    };
    let command = install.command();
    eprintln!("{problem}");
    eprintln!(
        "installing QEMU {MIN_MAJOR} as root ({NO_INSTALL}=1 turns this off) with: {command}"
    );
    if let Some(file) = install.kept {
        eprintln!("keeping the existing {file} as it is");
    }
    let status = Command::new(SHELL)
        .arg("-c")
        .arg(&install.script)
        .status()
        .with_context(|| format!("could not start {SHELL} to install QEMU"))?;
    let note = install.kept_note();
    ensure!(
        status.success(),
        "installing QEMU failed ({status}); the command was: {command}{note}"
    );
    probe().map_err(|problem| anyhow!("{problem}, even after installing it with: {command}{note}"))
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
        let install = install_script(BOOKWORM, false).unwrap();
        assert_eq!(
            install.script,
            "[ -e /etc/apt/sources.list.d/bookworm-backports.list ] || \
             echo \"deb http://deb.debian.org/debian bookworm-backports main\" > \
             /etc/apt/sources.list.d/bookworm-backports.list && apt-get update && \
             DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
             -t bookworm-backports qemu-system-x86 qemu-system-data"
        );
        assert_eq!(install.kept, None);
        // The script nests inside sh -c '...'.
        assert!(!install.script.contains('\''));
        assert_eq!(
            install.command(),
            format!("/bin/sh -c '{}'", install.script)
        );
    }

    #[test]
    fn an_existing_backports_source_is_left_alone() {
        let install = install_script(BOOKWORM, true).unwrap();
        assert_eq!(
            install.script,
            "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
             --no-install-recommends -t bookworm-backports qemu-system-x86 qemu-system-data"
        );
        assert_eq!(install.kept, Some(BACKPORTS_SOURCES));
        assert!(install.kept_note().contains(
            "The existing /etc/apt/sources.list.d/bookworm-backports.list was kept as it is"
        ));
    }

    #[test]
    fn other_debian_like_systems_use_their_own_suite() {
        let trixie = "ID=debian\nVERSION_CODENAME=trixie\n";
        let ubuntu = "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n";
        let mint = "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n";
        for os in [trixie, ubuntu, mint] {
            for sources_exist in [false, true] {
                let install = install_script(os, sources_exist).unwrap();
                assert!(
                    install.script.starts_with("apt-get update && "),
                    "{install:?}"
                );
                assert!(!install.script.contains("backports"), "{install:?}");
                assert_eq!(install.kept, None);
            }
        }
    }

    #[test]
    fn other_systems_get_no_script() {
        assert_eq!(install_script("ID=fedora\nVERSION_ID=40\n", false), None);
        assert_eq!(
            install_script(
                "ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n",
                false
            ),
            None
        );
        assert_eq!(install_script("", false), None);
    }

    fn machine(root: bool, sources_exist: bool, no_install: Option<&str>) -> Machine<'_> {
        Machine {
            os_release: BOOKWORM,
            sources_exist,
            root,
            no_install: no_install.map(OsStr::new),
        }
    }

    const PROBLEM: &str = "qemu-system-i386 is version 7.2.15; version 10 or later is needed";

    #[test]
    fn root_installs_and_keeps_an_existing_source() {
        let Plan::Install(fresh) = plan(PROBLEM, &machine(true, false, None)) else {
            panic!("root on a fresh Debian 12 does not install");
        };
        assert_eq!(fresh, install_script(BOOKWORM, false).unwrap());
        let Plan::Install(kept) = plan(PROBLEM, &machine(true, true, None)) else {
            panic!("root with a backports source does not install");
        };
        assert_eq!(kept, install_script(BOOKWORM, true).unwrap());
        assert!(!kept.script.contains("sources.list.d"));
    }

    #[test]
    fn without_root_the_command_is_given() {
        let fresh = install_script(BOOKWORM, false).unwrap().command();
        assert_eq!(
            plan(PROBLEM, &machine(false, false, None)),
            Plan::Refuse(format!(
                "{PROBLEM}.\nInstall it as root with:\n  sudo {fresh}"
            ))
        );
        let Plan::Refuse(message) = plan(PROBLEM, &machine(false, true, None)) else {
            panic!("installs without root");
        };
        let kept = install_script(BOOKWORM, true).unwrap().command();
        assert!(
            message.contains(&format!(
                "sudo {kept}\nIt leaves the existing {BACKPORTS_SOURCES} as it is"
            )),
            "{message}"
        );
    }

    #[test]
    fn scc_no_install_refuses_with_the_command() {
        let command = install_script(BOOKWORM, false).unwrap().command();
        for value in ["1", "yes", "00"] {
            assert_eq!(
                plan(PROBLEM, &machine(true, false, Some(value))),
                Plan::Refuse(format!(
                    "{PROBLEM}.\nSCC_NO_INSTALL is set, so xtask does not install QEMU; \
                     install it yourself with:\n  {command}"
                )),
                "SCC_NO_INSTALL={value}"
            );
            let Plan::Refuse(message) = plan(PROBLEM, &machine(false, false, Some(value))) else {
                panic!("installs without root");
            };
            assert!(
                message.contains(&format!("\n  sudo {command}")),
                "{message}"
            );
        }
        for value in ["", "0"] {
            assert!(
                matches!(
                    plan(PROBLEM, &machine(true, false, Some(value))),
                    Plan::Install(_)
                ),
                "SCC_NO_INSTALL={value:?} stops the installation"
            );
        }
    }

    #[test]
    fn unknown_systems_are_told_what_to_install() {
        for root in [false, true] {
            let fedora = Machine {
                os_release: "ID=fedora\n",
                sources_exist: false,
                root,
                no_install: None,
            };
            assert_eq!(
                plan(PROBLEM, &fedora),
                Plan::Refuse(format!(
                    "{PROBLEM}.\nInstall QEMU 10 or later with TCG plugin support \
                     (qemu-system-i386) and its qboot.rom firmware, then run this again."
                ))
            );
        }
    }
}
