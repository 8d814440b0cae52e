// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask bench`: how fast the emulator runs, in host time.
//!
//! Host time is never mixed with modeled SCC time: these numbers say what
//! the emulator costs on this machine, as ratios where possible, not what a
//! program would take on the chip.
//!
//! The one set today, `overhead`, runs each program plain (no plugin,
//! coherent shared memory), with the chip model, and with the chip model
//! and its coherence checker, and compares the median host time of each
//! with the plain one. The programs check their own results, so a run that
//! goes fast because it goes wrong does not count: it is listed under the
//! table as failed, and the command fails once the table is written.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use emu::launch::Mode;

use crate::run::{Outcome, RunConfig, boot};
use crate::{build, qemu};

/// Longest a single benchmark run may take: the checker may be slow.
const TIMEOUT: Duration = Duration::from_secs(900);

/// Runs of each measurement, of which the median counts.
const RUNS: usize = 3;

/// The programs and core counts of the `overhead` set: private memory on
/// one core, the MPB ring on two and on all 48.
const OVERHEAD_CASES: [(&str, u32); 3] =
    [("bench-private", 1), ("bench-mpb", 2), ("bench-mpb", 48)];

/// Each case runs in these modes; the first is the baseline of the ratios.
const MODES: [Mode; 3] = [
    Mode::Plain,
    Mode::Modeled { check: false },
    Mode::Modeled { check: true },
];

/// A set of benchmarks, named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// The chip model's host-time overhead against plain QEMU.
    Overhead,
}

impl Suite {
    /// Every set, in the order they are listed.
    pub const ALL: [Suite; 1] = [Suite::Overhead];

    /// The name on the command line, and of the Markdown file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Overhead => "overhead",
        }
    }
}

impl FromStr for Suite {
    type Err = anyhow::Error;

    fn from_str(name: &str) -> Result<Self> {
        match Self::ALL.into_iter().find(|s| s.name() == name) {
            Some(suite) => Ok(suite),
            None => {
                let names: Vec<&str> = Self::ALL.iter().map(|s| s.name()).collect();
                bail!(
                    "unknown benchmark set `{name}`; the sets are: {}",
                    names.join(", ")
                )
            }
        }
    }
}

/// The host seconds of one program on some cores in one mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The program.
    pub program: &'static str,
    /// Cores it ran on.
    pub cores: u32,
    /// With or without the chip model.
    pub mode: Mode,
    /// Host seconds of each successful run, boot to the last core's exit.
    pub seconds: Vec<f64>,
}

impl Measurement {
    /// The median of the runs (of the middle two for an even count).
    pub fn median(&self) -> f64 {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        match s.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => s[n / 2],
            n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
        }
    }
}

/// The name of a mode in the table.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Plain => "plain",
        Mode::Modeled { check: false } => "model",
        Mode::Modeled { check: true } => "model+checker",
    }
}

/// The result of the `overhead` set: one row per program, cores and mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Overhead {
    /// Runs per measurement.
    pub runs: usize,
    /// The measurements, in table order.
    pub rows: Vec<Measurement>,
    /// The runs that failed, one line each: which run and why.
    pub failures: Vec<String>,
}

impl Overhead {
    /// `row`'s median over the median of the plain run of the same program
    /// on the same cores, if there is one.
    pub fn ratio(&self, row: &Measurement) -> Option<f64> {
        let plain = self
            .rows
            .iter()
            .find(|r| r.program == row.program && r.cores == row.cores && r.mode == Mode::Plain)?;
        Some(row.median() / plain.median()).filter(|r| r.is_finite())
    }
}

impl fmt::Display for Overhead {
    /// The table as Markdown, readable as plain text too.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# Host-time overhead of the chip model\n")?;
        writeln!(
            f,
            "Host seconds from boot to the last core's exit, median of {} run(s); \
             ratio to the plain run (no plugin) of the same program on the same cores.\n",
            self.runs
        )?;
        writeln!(f, "| program | cores | mode | host s | ratio to plain |")?;
        writeln!(f, "|---|---:|---|---:|---:|")?;
        for row in &self.rows {
            let ratio = self
                .ratio(row)
                .map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"));
            let seconds = if row.seconds.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.2}", row.median())
            };
            writeln!(
                f,
                "| {} | {} | {} | {seconds} | {ratio} |",
                row.program,
                row.cores,
                mode_name(row.mode),
            )?;
        }
        if !self.failures.is_empty() {
            writeln!(f, "\nFailed runs, not counted:\n")?;
            for failure in &self.failures {
                writeln!(f, "- {failure}")?;
            }
        }
        Ok(())
    }
}

/// The run configuration of one measurement run.
fn config(program: &str, cores: u32, mode: Mode, interrupt: Option<Arc<AtomicBool>>) -> RunConfig {
    let (plain, check_coherence) = match mode {
        Mode::Plain => (true, false),
        Mode::Modeled { check } => (false, check),
    };
    RunConfig {
        program: program.to_owned(),
        cores,
        timeout: TIMEOUT,
        echo: false,
        interrupt,
        check_coherence,
        // Statistics ask for the chip model whatever a run does by default.
        stats: !plain,
        plain,
        ..RunConfig::default()
    }
}

/// Builds, runs the set `suite` (one run per measurement if `quick`),
/// writes its table as Markdown to `target/bench/<set>.md`, and returns
/// the table and the file's path. Progress goes to standard error. A run
/// that fails is recorded in the table and the others go on; an
/// interrupted run ends the benchmark with an error.
pub fn run(
    suite: Suite,
    quick: bool,
    interrupt: Option<Arc<AtomicBool>>,
) -> Result<(Overhead, PathBuf)> {
    let Suite::Overhead = suite;
    let artifacts = build::build(false)?;
    let qemu = qemu::ensure()?;
    let runs = if quick { 1 } else { RUNS };
    let mut rows: Vec<Measurement> = OVERHEAD_CASES
        .iter()
        .flat_map(|&(program, cores)| {
            MODES.map(|mode| Measurement {
                program,
                cores,
                mode,
                seconds: Vec::new(),
            })
        })
        .collect();
    let mut failures = Vec::new();
    // Round by round rather than row by row, so that a slow phase of the
    // host spreads over all rows instead of skewing one.
    for round in 1..=runs {
        for row in &mut rows {
            let config = config(row.program, row.cores, row.mode, interrupt.clone());
            let report = boot(&config, &artifacts, &qemu)?;
            let what = format!(
                "{} on {} core(s), {}, run {round}/{runs}",
                row.program,
                row.cores,
                mode_name(row.mode)
            );
            if report.outcome == Outcome::Interrupted {
                bail!("{what}: {report}");
            }
            if report.mode != row.mode {
                bail!("{what} ran {} instead", mode_name(report.mode));
            }
            if !report.success() {
                eprintln!("{what} failed:\n{report}");
                // The report's first line says which core failed and how;
                // the reason the guest gave is its last serial line.
                let text = report.to_string();
                let first = text.lines().next().unwrap_or_default();
                let reason = match report.outcome {
                    Outcome::CoreFailed { core, .. } => report.serial(core).last(),
                    _ => None,
                };
                let reason = reason.map_or(String::new(), |r| format!(" ({r})"));
                failures.push(format!("{what}: {first}{reason}"));
                continue;
            }
            let seconds = report.elapsed.as_secs_f64();
            let stale = match row.mode {
                Mode::Modeled { check: true } => {
                    format!(", {} stale reads", report.stale_reads())
                }
                _ => String::new(),
            };
            eprintln!("{what}: {seconds:.2} s{stale}");
            row.seconds.push(seconds);
        }
    }
    let table = Overhead {
        runs,
        rows,
        failures,
    };
    let dir = build::target_dir().join("bench");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(format!("{}.md", suite.name()));
    std::fs::write(&path, table.to_string())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((table, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(program: &'static str, cores: u32, mode: Mode, seconds: &[f64]) -> Measurement {
        Measurement {
            program,
            cores,
            mode,
            seconds: seconds.to_vec(),
        }
    }

    #[test]
    fn medians_ignore_the_outliers() {
        let m = |s: &[f64]| row("p", 1, Mode::Plain, s).median();
        assert_eq!(m(&[3.0, 1.0, 100.0]), 3.0);
        assert_eq!(m(&[4.0, 1.0, 2.0, 100.0]), 3.0);
        assert_eq!(m(&[2.5]), 2.5);
        assert!(m(&[]).is_nan());
    }

    #[test]
    fn the_table_gives_ratios_to_the_plain_run_of_the_same_case() {
        let model = Mode::Modeled { check: false };
        let table = Overhead {
            runs: 3,
            rows: vec![
                row("bench-mpb", 2, Mode::Plain, &[2.0, 2.1, 1.9]),
                row("bench-mpb", 2, model, &[6.0, 6.2, 5.8]),
                row("bench-mpb", 48, Mode::Plain, &[10.0, 10.0, 10.0]),
                row(
                    "bench-mpb",
                    48,
                    Mode::Modeled { check: true },
                    &[25.0, 25.0, 25.0],
                ),
                row("bench-private", 1, model, &[1.0, 1.0, 1.0]),
                row("bench-private", 1, Mode::Plain, &[]),
            ],
            failures: vec!["bench-private on 1 core(s), plain, run 1/3: core 0 failed".into()],
        };
        let text = table.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# Host-time overhead of the chip model");
        assert!(lines[2].contains("median of 3 run(s)"), "{text}");
        assert_eq!(
            lines[4],
            "| program | cores | mode | host s | ratio to plain |"
        );
        assert_eq!(lines[6], "| bench-mpb | 2 | plain | 2.00 | 1.00 |");
        assert_eq!(lines[7], "| bench-mpb | 2 | model | 6.00 | 3.00 |");
        assert_eq!(
            lines[9],
            "| bench-mpb | 48 | model+checker | 25.00 | 2.50 |"
        );
        // No successful plain run of that case: no time, no ratio.
        assert_eq!(lines[10], "| bench-private | 1 | model | 1.00 | - |");
        assert_eq!(lines[11], "| bench-private | 1 | plain | - | - |");
        assert_eq!(
            lines[12..],
            [
                "",
                "Failed runs, not counted:",
                "",
                "- bench-private on 1 core(s), plain, run 1/3: core 0 failed"
            ]
        );
    }

    #[test]
    fn sets_are_found_by_name() {
        assert_eq!("overhead".parse::<Suite>().unwrap(), Suite::Overhead);
        let message = "speed".parse::<Suite>().unwrap_err().to_string();
        assert_eq!(
            message,
            "unknown benchmark set `speed`; the sets are: overhead"
        );
    }

    #[test]
    fn runs_ask_for_their_mode() {
        for mode in MODES {
            let c = config("bench-mpb", 2, mode, None);
            assert!(c.check().is_ok(), "{mode:?}");
            assert_eq!(c.mode(), mode);
        }
    }

    #[test]
    fn the_programs_exist() {
        for (program, cores) in OVERHEAD_CASES {
            crate::find_program(program).unwrap();
            crate::check_cores(cores).unwrap();
        }
    }
}
