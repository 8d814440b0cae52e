// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the system tests share: booting a run through xtask, the lines the
//! guest programs print, and checks that a run left nothing behind.
//!
//! Each test boots real QEMU instances, so `cargo xtask test` runs them one
//! at a time after building the kernel and the plugin.

use std::path::Path;

use chip::{Chip, CoreId};
pub use xtask::{CoreExit, Mode, Model, Outcome, RunConfig, RunReport, Time, WtReads};

/// The chip the tests boot unless they name one ([`boot_on`]).
pub const CHIP: &Chip = chip::DEFAULT_CHIP;

/// The chips every test of the layers runs on: the default one, and one
/// that differs from it in every dimension the layers depend on.
pub const CHIPS: [&Chip; 2] = [chip::DEFAULT_CHIP, &chip::MESH8X8];

/// The chip model, as a run has it by default, with its coherence checker.
pub const CHECKED: Mode = Mode::Modelled(Model {
    check: true,
    ..Model::DEFAULT
});

/// Boots `program` on `cores` cores, with the chip model and its coherence
/// checker, and returns what happened; panics if the run could not even
/// start (build failure, no QEMU).
pub fn boot(cores: u32, program: &str) -> RunReport {
    boot_on(CHIP, cores, program)
}

/// As [`boot`], on `chip`.
pub fn boot_on(chip: &'static Chip, cores: u32, program: &str) -> RunReport {
    boot_with(&RunConfig {
        mode: CHECKED,
        timeout: timeout_for(cores),
        ..RunConfig::new(cores, program).on(chip)
    })
}

/// Boots the C test program `tests/c/NAME.c` on `cores` cores with `args`
/// after its name in `argv`, under the coherence checker.
pub fn boot_c(cores: u32, name: &str, args: &[&str]) -> RunReport {
    boot_with(&c_config(cores, name, args))
}

/// The run [`boot_c`] boots, for a test that changes more of it.
pub fn c_config(cores: u32, name: &str, args: &[&str]) -> RunConfig {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("c")
        .join(format!("{name}.c"));
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let (app, params) = xtask::app_of(None, vec![file], &args, Vec::new())
        .unwrap_or_else(|e| panic!("the C program {name}: {e:#}"));
    RunConfig {
        mode: CHECKED,
        timeout: timeout_for(cores),
        app,
        params,
        ..RunConfig::new(cores, "main")
    }
}

/// How long a test gives a run of `cores` cores: cores meeting in
/// modelled-time order block on each other, so many cores on a small host
/// take minutes, not seconds (48-core passive-target runs take 75-85 s on
/// an idle 2-core host, and several times that on a loaded one).
pub fn timeout_for(cores: u32) -> std::time::Duration {
    std::time::Duration::from_secs(if cores > 8 { 900 } else { 60 })
}

/// Boots the run `config` describes; panics if it could not even start.
pub fn boot_with(config: &RunConfig) -> RunReport {
    xtask::run(config).unwrap_or_else(|e| {
        panic!(
            "cannot run {} on {} cores of the {}: {e:#}",
            config.program_name(),
            config.cores,
            config.chip.name
        )
    })
}

/// Boots `program` on `cores` cores and expects every core to succeed
/// without a single stale read.
pub fn boot_ok(cores: u32, program: &str) -> RunReport {
    boot_ok_on(CHIP, cores, program)
}

/// As [`boot_ok`], on `chip`.
pub fn boot_ok_on(chip: &'static Chip, cores: u32, program: &str) -> RunReport {
    let report = boot_on(chip, cores, program);
    assert_clean_success(&report, cores);
    report
}

/// Checks that all `cores` cores succeeded, each left its report, and
/// none read stale data: a correct SCC program reads nothing its caches
/// should have let go of.
pub fn assert_clean_success(report: &RunReport, cores: u32) {
    assert!(report.success(), "{}", transcript(report));
    assert_eq!(report.cores.len(), cores as usize);
    assert_no_stale_reads(report);
}

/// Checks that every core left its report and no read anywhere was stale.
pub fn assert_no_stale_reads(report: &RunReport) {
    assert_eq!(
        report.missing_reports(),
        Vec::<u32>::new(),
        "{}",
        transcript(report)
    );
    assert_eq!(
        report.stale_reads(),
        0,
        "{}\n{}",
        report.coherence_summary(),
        transcript(report)
    );
}

/// The whole run, for assertion messages: every core's output and the
/// final report.
pub fn transcript(report: &RunReport) -> String {
    let mut out = String::new();
    for core in &report.cores {
        for line in &core.serial {
            out += &format!("[core {:02}] {line}\n", core.core);
        }
        for line in &core.stderr {
            out += &format!("[core {:02} stderr] {line}\n", core.core);
        }
    }
    out + &report.to_string()
}

/// The line core `core` of `chip` prints about itself, from the chip definition.
pub fn identity_line(chip: &Chip, core: CoreId) -> String {
    let tile = chip.tile_of(core);
    let coord = chip.tile_coord(tile);
    format!(
        "identity core={} tile={} x={} y={} z={}",
        core.index(),
        tile.index(),
        coord.x,
        coord.y,
        chip.z_of(core)
    )
}

/// Core `core`'s serial lines that start with `prefix`.
pub fn lines_starting<'r>(report: &'r RunReport, core: u32, prefix: &str) -> Vec<&'r str> {
    report
        .serial(core)
        .iter()
        .map(String::as_str)
        .filter(|line| line.starts_with(prefix))
        .collect()
}

/// Checks that no core printed a failed check (`check failed: ...`, as
/// the programs' `Checks` print them).
pub fn assert_no_failed_checks(report: &RunReport) {
    for core in 0..report.cores.len() as u32 {
        assert!(
            lines_starting(report, core, "check failed").is_empty(),
            "{}",
            transcript(report)
        );
    }
}

/// Checks that no core printed a failed check, and that core 0 printed
/// `summary` once (the only line starting with its first word and a colon).
pub fn assert_summary(report: &RunReport, summary: &str) {
    assert_no_failed_checks(report);
    let prefix = summary.split(':').next().expect("a summary has a name");
    assert_eq!(
        lines_starting(report, 0, &format!("{prefix}:")),
        [summary],
        "{}",
        transcript(report)
    );
}

/// Checks that every core printed its own identity line, and only once.
pub fn assert_identities(report: &RunReport) {
    for core in report.chip.all_cores().take(report.cores.len()) {
        let n = core.index() as u32;
        assert_eq!(
            lines_starting(report, n, "identity "),
            [identity_line(report.chip, core)],
            "core {n}:\n{}",
            transcript(report)
        );
    }
}

/// Builds the xtask binary and returns its path.
pub fn xtask_binary() -> std::path::PathBuf {
    let mut build = xtask::cargo();
    build.args(["build", "--quiet", "-p", "xtask"]);
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building xtask failed");
    xtask::build::target_dir().join("debug/xtask")
}

/// Processes whose command line mentions `path`.
pub fn processes_using(path: &Path) -> Vec<u32> {
    let needle = path.as_os_str().as_encoded_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.windows(needle.len()).any(|w| w == needle))
        })
        .collect()
}

/// Checks that no QEMU of the run whose chip memory was `chip_memory` is
/// left, and that its private directory is gone.
pub fn assert_cleaned_up(chip_memory: &Path) {
    let dir = chip_memory
        .parent()
        .expect("chip memory lives in a directory");
    assert!(
        dir.starts_with("/dev/shm") || dir.starts_with(std::env::temp_dir()),
        "{} is not a private temporary directory",
        dir.display()
    );
    assert!(!dir.exists(), "{} is still there", dir.display());
    let left = processes_using(chip_memory);
    assert!(left.is_empty(), "QEMU processes left behind: {left:?}");
}

/// Checks that the run failed because of `core` alone, with `exit`: the
/// outcome and report name it, the exit status is non-zero, every other
/// core was stopped rather than ending by itself, and nothing was left.
pub fn assert_failed_because_of(report: &RunReport, core: u32, exit: CoreExit, report_start: &str) {
    let all = transcript(report);
    assert_eq!(report.outcome, Outcome::CoreFailed { core, exit }, "{all}");
    assert_ne!(report.exit_code(), 0);
    assert!(report.to_string().starts_with(report_start), "{all}");
    for other in report.cores.iter().filter(|c| c.core != core) {
        assert_eq!(
            other.exit, None,
            "core {} ended by itself:\n{all}",
            other.core
        );
    }
    assert_cleaned_up(&report.chip_memory);
}

/// Reads `0x<hex>` at the start of `text`, returning the value and the rest.
pub fn hex(text: &str) -> Option<(u32, &str)> {
    let digits = text.strip_prefix("0x")?;
    let end = digits
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(digits.len());
    let value = u32::from_str_radix(&digits[..end], 16).ok()?;
    Some((value, &digits[end..]))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    #[test]
    fn identity_lines_follow_the_chip() {
        let line = |n| identity_line(&chip::SCC, chip::SCC.core(n).unwrap());
        assert_eq!(line(0), "identity core=0 tile=0 x=0 y=0 z=0");
        assert_eq!(line(29), "identity core=29 tile=14 x=2 y=2 z=1");
        assert_eq!(line(47), "identity core=47 tile=23 x=5 y=3 z=1");
        let mesh = &chip::MESH8X8;
        let line = |n| identity_line(mesh, mesh.core(n).unwrap());
        assert_eq!(line(100), "identity core=100 tile=33 x=1 y=4 z=1");
    }

    #[test]
    fn processes_are_found_by_their_command_line() {
        let marker = format!("/nonexistent/marker-{}", std::process::id());
        assert!(processes_using(Path::new(&marker)).is_empty());
        // `; :` keeps the shell from exec'ing sleep, which would drop $0.
        let mut child = Command::new("sh")
            .args(["-c", "sleep 30; :", &marker])
            .spawn()
            .unwrap();
        // Until the child has exec'd the shell, its command line is ours.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let found = loop {
            let found = processes_using(Path::new(&marker));
            if !found.is_empty() || std::time::Instant::now() > deadline {
                break found;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        // The shell's own fork for `sleep` carries the same command line
        // until it execs: found with it or not.
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(found.len() <= 2, "{found:?}");
        child.kill().unwrap();
        child.wait().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !processes_using(Path::new(&marker)).is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "the marker outlived its shell"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// The porting guide, whose examples run as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/porting.md")]
pub struct PortingGuide;

/// The one-sided chapter of the book, whose examples run on rma's host
/// mock as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/one-sided.md")]
pub struct OneSidedChapter;
