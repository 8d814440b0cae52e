// SPDX-License-Identifier: MIT OR Apache-2.0
//! How a run ended and what every core did: [`RunReport`] and its text.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use chip::Mode;
use emu::report::{self, CoreReport as ModelReport};

use super::CoreExit;
use super::diagnose::Stall;
use crate::CHIP;

/// Serial lines of a failed core shown in its report.
const LAST_LINES: usize = 12;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every core exited successfully.
    Success,
    /// A core ended some other way first; the others were killed.
    CoreFailed {
        /// The core.
        core: u32,
        /// How it ended.
        exit: CoreExit,
    },
    /// The timeout passed with these cores still running.
    TimedOut {
        /// The cores that had not finished.
        unfinished: Vec<u32>,
    },
    /// The run was interrupted (Ctrl-C).
    Interrupted,
    /// Every core exited successfully, but with the statistics or the
    /// coherence checker asked for, these cores wrote no readable report:
    /// what the run says would be incomplete (stale reads uncounted).
    ReportsMissing {
        /// The cores.
        cores: Vec<u32>,
    },
}

/// What one core did.
#[derive(Debug, Clone)]
pub struct CoreReport {
    /// The core.
    pub core: u32,
    /// Its serial output, line by line.
    pub serial: Vec<String>,
    /// What its QEMU wrote to standard error.
    pub stderr: Vec<String>,
    /// How it ended; `None` if it was still running when the run ended.
    pub exit: Option<CoreExit>,
    /// Host time from the start of the run (as [`RunReport::elapsed`])
    /// until its first serial line arrived, if one did.
    pub first_line: Option<Duration>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// How it ended.
    pub outcome: Outcome,
    /// One report per core, in core order.
    pub cores: Vec<CoreReport>,
    /// Host wall time from creating the chip memory until the outcome was
    /// known: for a successful run, the last core's exit.
    pub elapsed: Duration,
    /// Where the chip memory was (removed by now, unless kept).
    pub chip_memory: PathBuf,
    /// Where the run directory was kept (`RunConfig::keep_run_dir`).
    pub kept: Option<PathBuf>,
    /// With or without the chip model, and what it did.
    pub mode: Mode,
    /// The chip model's report of each core, in core order: `None` for a
    /// core that wrote none (a plain run, or a core stopped before its exit).
    pub reports: Vec<Option<ModelReport>>,
    /// Report files that could not be read, each naming the file and what
    /// is wrong with it.
    pub report_errors: Vec<String>,
    /// After a timeout with modelled time: the core(s) that held the
    /// others back.
    pub stall: Option<Stall>,
    /// What the host says of a failure (memory or room that ran out),
    /// printed after it.
    pub notes: Vec<String>,
}

impl RunReport {
    /// Whether every core exited successfully.
    pub fn success(&self) -> bool {
        self.outcome == Outcome::Success
    }

    /// Core `core`'s serial lines.
    pub fn serial(&self, core: u32) -> &[String] {
        &self.cores[core as usize].serial
    }

    /// Stale reads the coherence checker counted, over every core that
    /// reported.
    pub fn stale_reads(&self) -> u64 {
        self.reports.iter().flatten().map(|r| r.stale_reads).sum()
    }

    /// The cores of a modeled run that wrote no report.
    pub fn missing_reports(&self) -> Vec<u32> {
        if self.mode == Mode::Plain {
            return Vec::new();
        }
        missing_in(&self.reports)
    }

    /// The chip model's statistics tables ([`report::stats_table_for`]),
    /// with a line naming the cores that did not report.
    pub fn stats_table(&self) -> String {
        let reports: Vec<ModelReport> = self.reports.iter().flatten().cloned().collect();
        let mut text = report::stats_table_for(&CHIP, &reports).to_string();
        text += &self.missing_line();
        text
    }

    /// What the coherence checker found ([`report::coherence_summary`]),
    /// with a line naming the cores that did not report.
    pub fn coherence_summary(&self) -> String {
        let reports: Vec<ModelReport> = self.reports.iter().flatten().cloned().collect();
        let mut text = report::coherence_summary(&reports).to_string();
        text += &self.missing_line();
        text
    }

    fn missing_line(&self) -> String {
        let missing = self.missing_reports();
        if missing.is_empty() {
            return String::new();
        }
        let list: Vec<String> = missing.iter().map(u32::to_string).collect();
        format!(
            "no report from core(s) {}: stopped before their exit, or their report was unreadable\n",
            list.join(", ")
        )
    }

    /// The process exit status this outcome stands for: 0 for success,
    /// 130 (as after SIGINT) when interrupted, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self.outcome {
            Outcome::Success => 0,
            Outcome::Interrupted => 130,
            _ => 1,
        }
    }
}

impl fmt::Display for RunReport {
    /// The final words of a run: one line on success, otherwise what ended
    /// it and the output that tells why.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = self.elapsed.as_secs_f64();
        let cores = self.cores.len();
        match &self.outcome {
            Outcome::Success => write!(
                f,
                "all {cores} cores exited successfully in {seconds:.2} s (host time, build excluded)"
            ),
            Outcome::CoreFailed { core, exit } => {
                writeln!(f, "core {core} failed: {exit}")?;
                let report = &self.cores[*core as usize];
                let first = report.serial.len().saturating_sub(LAST_LINES);
                if report.serial.is_empty() {
                    writeln!(f, "core {core} printed nothing on its serial port")?;
                } else {
                    writeln!(f, "last serial lines of core {core}:")?;
                }
                for line in &report.serial[first..] {
                    writeln!(f, "  [core {core:02}] {line}")?;
                }
                if !report.stderr.is_empty() {
                    writeln!(f, "QEMU's messages for core {core}:")?;
                    for line in &report.stderr {
                        writeln!(f, "  {line}")?;
                    }
                }
                for note in &self.notes {
                    writeln!(f, "{note}")?;
                }
                write!(
                    f,
                    "run failed after {seconds:.2} s: the other cores were stopped"
                )
            }
            Outcome::TimedOut { unfinished } => {
                let list: Vec<String> = unfinished.iter().map(u32::to_string).collect();
                writeln!(
                    f,
                    "timed out after {seconds:.2} s: {} of {cores} cores had not finished: {}",
                    unfinished.len(),
                    list.join(", ")
                )?;
                for &core in unfinished {
                    let last = self.cores[core as usize].serial.last();
                    let last = last.map_or("(no output)", String::as_str);
                    writeln!(f, "  [core {core:02}] last line: {last}")?;
                }
                if let Some(stall) = &self.stall {
                    writeln!(f, "{stall}")?;
                }
                write!(f, "all cores were stopped")
            }
            Outcome::Interrupted => write!(
                f,
                "interrupted after {seconds:.2} s: all cores were stopped"
            ),
            Outcome::ReportsMissing { cores } => {
                let list: Vec<String> = cores.iter().map(u32::to_string).collect();
                writeln!(
                    f,
                    "every core exited successfully, but core(s) {} wrote no readable report \
                     of the chip model: the statistics and stale-read counts would be incomplete",
                    list.join(", ")
                )?;
                for error in &self.report_errors {
                    writeln!(f, "  {error}")?;
                }
                write!(f, "run failed after {seconds:.2} s")
            }
        }
    }
}

/// The cores whose report is missing from `reports` (in core order).
fn missing_in(reports: &[Option<ModelReport>]) -> Vec<u32> {
    (0u32..)
        .zip(reports)
        .filter(|(_, r)| r.is_none())
        .map(|(core, _)| core)
        .collect()
}

/// The outcome once the reports are read: when they are `needed` (the
/// statistics or the checker were asked for), a run whose cores all
/// succeeded fails if any of them left no readable report.
pub(super) fn require_reports(
    outcome: Outcome,
    reports: &[Option<ModelReport>],
    needed: bool,
) -> Outcome {
    let missing = missing_in(reports);
    match outcome {
        Outcome::Success if needed && !missing.is_empty() => {
            Outcome::ReportsMissing { cores: missing }
        }
        outcome => outcome,
    }
}

/// The chip model's report of each of `cores` cores from the run directory
/// `dir`, and the errors of those that could not be read. A plain run has
/// none.
pub(super) fn read_reports(
    dir: &std::path::Path,
    cores: u32,
    mode: Mode,
) -> (Vec<Option<ModelReport>>, Vec<String>) {
    let mut errors = Vec::new();
    let reports = (0..cores)
        .map(|core| match mode {
            Mode::Plain => None,
            Mode::Modelled(_) => ModelReport::read(dir, core).unwrap_or_else(|e| {
                errors.push(e.to_string());
                None
            }),
        })
        .collect();
    (reports, errors)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use chip::Model;

    use super::*;

    /// The chip model with its coherence checker.
    const CHECKED: Mode = Mode::Modelled(Model {
        check: true,
        ..Model::DEFAULT
    });

    fn report(outcome: Outcome, serial: &[&[&str]]) -> RunReport {
        RunReport {
            kept: None,
            outcome,
            cores: (0u32..)
                .zip(serial)
                .map(|(core, lines)| CoreReport {
                    core,
                    serial: lines.iter().map(|l| l.to_string()).collect(),
                    stderr: Vec::new(),
                    exit: None,
                    first_line: None,
                })
                .collect(),
            elapsed: Duration::from_millis(4310),
            chip_memory: PathBuf::from("/dev/shm/x/chip.mem"),
            mode: Mode::Plain,
            reports: vec![None; serial.len()],
            report_errors: Vec::new(),
            stall: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn reports_name_the_core_and_the_reason() {
        let ok = report(Outcome::Success, &[&[], &[]]);
        assert_eq!(
            ok.to_string(),
            "all 2 cores exited successfully in 4.31 s (host time, build excluded)"
        );
        assert_eq!(ok.exit_code(), 0);

        let mut failed = report(
            Outcome::CoreFailed {
                core: 1,
                exit: CoreExit::QemuError { status: 1 },
            },
            &[&["hello"], &["boot", "EXCEPTION on core 1"]],
        );
        failed.cores[1].stderr = vec!["emu: unknown option `x`".into()];
        let text = failed.to_string();
        assert!(
            text.starts_with("core 1 failed: QEMU failed with exit status 1\n"),
            "{text}"
        );
        assert!(text.contains("  [core 01] EXCEPTION on core 1\n"), "{text}");
        assert!(text.contains("  emu: unknown option `x`\n"), "{text}");
        assert!(!text.contains("hello"), "{text}");
        assert_eq!(failed.exit_code(), 1);

        let timed_out = report(
            Outcome::TimedOut {
                unfinished: vec![0, 1],
            },
            &[&[], &["waiting"]],
        );
        let text = timed_out.to_string();
        assert!(
            text.contains("2 of 2 cores had not finished: 0, 1"),
            "{text}"
        );
        assert!(text.contains("[core 01] last line: waiting"), "{text}");

        let interrupted = report(Outcome::Interrupted, &[&[]]);
        assert!(interrupted.to_string().starts_with("interrupted"));
        assert_eq!(interrupted.exit_code(), 130);
    }

    fn errors_again(dir: &Path) -> Vec<String> {
        read_reports(dir, 4, CHECKED).1
    }

    #[test]
    fn model_reports_are_read_from_the_run_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut one = ModelReport::new(1, true);
        one.stale_reads = 3;
        one.write(dir.path()).unwrap();
        let mut three = ModelReport::new(3, true);
        three.stale_reads = 2;
        three.write(dir.path()).unwrap();
        std::fs::write(ModelReport::path(dir.path(), 2), "garbage\n").unwrap();

        let (reports, errors) = read_reports(dir.path(), 4, CHECKED);
        assert_eq!(reports, [None, Some(one), None, Some(three)]);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].contains("core-02.report, line 1: expected `scc-core-report 4`"),
            "{}",
            errors[0]
        );
        let (plain, errors) = read_reports(dir.path(), 4, Mode::Plain);
        assert_eq!(plain, [None, None, None, None]);
        assert!(errors.is_empty());

        let mut run = report(Outcome::Success, &[&[], &[], &[], &[]]);
        run.mode = CHECKED;
        run.reports = reports;
        assert_eq!(run.stale_reads(), 5);
        assert_eq!(run.missing_reports(), [0, 2]);
        let summary = run.coherence_summary();
        assert!(
            summary.starts_with("coherence checker: 5 stale reads (core 1: 3, core 3: 2)\n"),
            "{summary}"
        );
        assert!(summary.ends_with("no report from core(s) 0, 2: stopped before their exit, or their report was unreadable\n"), "{summary}");
        assert!(run.stats_table().starts_with("memory accesses per core"));
        // Stale reads alone do not fail a run.
        assert_eq!(run.exit_code(), 0);

        // A core that exited but left no report fails a run that needs it.
        assert_eq!(
            require_reports(Outcome::Success, &run.reports, true),
            Outcome::ReportsMissing { cores: vec![0, 2] }
        );
        assert_eq!(
            require_reports(Outcome::Success, &run.reports, false),
            Outcome::Success
        );
        let failed = Outcome::CoreFailed {
            core: 1,
            exit: CoreExit::GuestFailure,
        };
        assert_eq!(require_reports(failed.clone(), &run.reports, true), failed);
        run.outcome = require_reports(Outcome::Success, &run.reports, true);
        run.report_errors = errors_again(dir.path());
        let text = run.to_string();
        assert!(
            text.starts_with(
                "every core exited successfully, but core(s) 0, 2 wrote no readable report"
            ),
            "{text}"
        );
        assert!(text.contains("core-02.report, line 1"), "{text}");
        assert_eq!(run.exit_code(), 1);
    }
}
