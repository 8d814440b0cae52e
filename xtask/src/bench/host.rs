// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `overhead` and `quantum` sets: how fast the emulator runs, in host
//! time.
//!
//! Host time is never mixed with modeled SCC time: these numbers say what
//! the emulator costs on this machine, as ratios where possible, not what a
//! program would take on the chip.
//!
//! Two sets:
//!
//! - `overhead` runs each program plain (no plugin, coherent shared
//!   memory), with the chip model and no timing, with the chip model and
//!   modelled time (the default quantum), and with the chip model and its
//!   coherence checker, and compares the median host time of each with the
//!   plain one: the ratio of `model+timing` to `model` is what timing costs;
//! - `quantum` runs the MPB ring on 48 cores with modelled time for
//!   several quanta: host time (speed) against the modelled cycles of the
//!   slowest core, their spread over the runs (reproducibility) and their
//!   difference from the smallest quantum's (accuracy).
//!
//! The programs check their own results, so a run that goes fast because
//! it goes wrong does not count: it is listed under the table as failed,
//! and the command fails once the table is written.

use std::fmt;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result, bail};
use chip::{Mode, Model, Time, WtReads};

use super::TIMEOUT;
use super::samples::RawSample;
use super::stats::Summary;
use crate::run::{Outcome, RunConfig, boot};
use crate::{build, qemu};

/// Runs of each measurement, of which the median counts.
const RUNS: usize = 3;

/// The programs and core counts of the `overhead` set: private memory on
/// one core, the MPB ring on two and on all 48.
const OVERHEAD_CASES: [(&str, u32); 3] =
    [("bench-private", 1), ("bench-mpb", 2), ("bench-mpb", 48)];

/// The chip model without modelled time.
pub(super) const UNTIMED: Model = Model {
    time: Time::Off,
    ..Model::DEFAULT
};

/// The chip model with modelled time within `quantum` core cycles, and
/// queues.
pub(super) const fn timed(quantum: u64) -> Mode {
    let quantum = NonZeroU64::new(quantum).expect("a quantum of at least 1");
    Mode::Modelled(Model {
        time: Time::On {
            quantum,
            queues: true,
            seed: chip::DEFAULT_SEED,
        },
        ..UNTIMED
    })
}

/// Each case of `overhead` runs in these modes; the first is the baseline
/// of the ratios.
const MODES: [Mode; 4] = [
    Mode::Plain,
    Mode::Modelled(UNTIMED),
    timed(emu::timing::DEFAULT_QUANTUM),
    Mode::Modelled(Model {
        check: true,
        ..UNTIMED
    }),
];

/// The case and the quanta of the `quantum` set.
const QUANTUM_CASE: (&str, u32) = ("bench-mpb", 48);
const QUANTA: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// A set of benchmarks, named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// The chip model's host-time overhead against plain QEMU.
    Overhead,
    /// Speed, reproducibility and accuracy of modelled time per quantum.
    Quantum,
}

impl Suite {
    /// Every set, in the order they are listed.
    pub const ALL: [Suite; 2] = [Suite::Overhead, Suite::Quantum];

    /// The name on the command line, and of the Markdown file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Overhead => "overhead",
            Self::Quantum => "quantum",
        }
    }

    /// The title of its table.
    pub fn title(self) -> &'static str {
        match self {
            Self::Overhead => "Host-time overhead of the chip model",
            Self::Quantum => "Modelled time: speed and accuracy per quantum",
        }
    }

    /// Its rows, before any run.
    fn rows(self) -> Vec<Measurement> {
        let row = |program, cores, mode| Measurement {
            program,
            cores,
            mode,
            seconds: Vec::new(),
            cycles: Vec::new(),
            runs: Vec::new(),
        };
        match self {
            Self::Overhead => OVERHEAD_CASES
                .iter()
                .flat_map(|&(program, cores)| MODES.map(|mode| row(program, cores, mode)))
                .collect(),
            Self::Quantum => {
                let (program, cores) = QUANTUM_CASE;
                [Mode::Plain, Mode::Modelled(UNTIMED)]
                    .into_iter()
                    .chain(QUANTA.map(timed))
                    .map(|mode| row(program, cores, mode))
                    .collect()
            }
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
    /// With or without the chip model, with modelled time within which
    /// quantum or none.
    pub mode: Mode,
    /// Host seconds of each successful run, boot to the last core's exit.
    pub seconds: Vec<f64>,
    /// With timing: modelled cycles of the slowest core at its exit, per
    /// successful run.
    pub cycles: Vec<u64>,
    /// The number of each successful run in [`Overhead::log`], from 1, in
    /// the order of `seconds`.
    pub runs: Vec<usize>,
}

/// The median of `values` (of the middle two for an even count), NaN for
/// none.
fn median(values: &[f64]) -> f64 {
    Summary::of(values.iter().copied()).map_or(f64::NAN, |s| s.median)
}

impl Measurement {
    /// The median of the runs' host seconds.
    pub fn median(&self) -> f64 {
        median(&self.seconds)
    }

    /// The median of the runs' modelled cycles, if any.
    pub fn median_cycles(&self) -> Option<f64> {
        let c: Vec<f64> = self.cycles.iter().map(|&c| c as f64).collect();
        Some(median(&c)).filter(|m| m.is_finite())
    }

    /// (largest - smallest) / median of the modelled cycles, in percent.
    pub fn spread(&self) -> Option<f64> {
        let (min, max) = (self.cycles.iter().min()?, self.cycles.iter().max()?);
        Some((max - min) as f64 / self.median_cycles()? * 100.0)
    }

    fn name(&self) -> String {
        mode_name(self.mode)
    }
}

/// The name of a mode in the table.
pub fn mode_name(mode: Mode) -> String {
    let Some(model) = mode.model() else {
        return "plain".to_owned();
    };
    let mut name = if model.check {
        "model+checker"
    } else {
        "model"
    }
    .to_owned();
    if let Time::On {
        quantum,
        queues,
        seed,
    } = model.time
    {
        name.push_str(&format!("+timing Q={quantum}"));
        if !queues {
            name.push_str(" without queues");
        }
        if seed != chip::DEFAULT_SEED {
            name.push_str(&format!(" seed {seed}"));
        }
    }
    if model.wt_reads == WtReads::Ideal {
        name.push_str(", ideal MPBT-WT reads");
    }
    name
}

/// The result of a set: one row per program, cores, mode and quantum.
#[derive(Debug, Clone, PartialEq)]
pub struct Overhead {
    /// The set measured.
    pub suite: Suite,
    /// Runs per measurement.
    pub runs: usize,
    /// The measurements, in table order.
    pub rows: Vec<Measurement>,
    /// The runs that failed, one line each: which run and why.
    pub failures: Vec<String>,
    /// Every run made, in order, one line each with its host time.
    pub log: Vec<String>,
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

    /// How far `row`'s modelled cycles lie from those of the timed row of
    /// the same case with the smallest quantum, in percent.
    pub fn deviation(&self, row: &Measurement) -> Option<f64> {
        let reference = self
            .rows
            .iter()
            .filter(|r| r.program == row.program && r.cores == row.cores)
            .filter(|r| r.mode.quantum().is_some() && r.median_cycles().is_some())
            .min_by_key(|r| r.mode.quantum())?;
        let (c, r) = (row.median_cycles()?, reference.median_cycles()?);
        Some((c - r) / r * 100.0)
    }
}

impl Overhead {
    /// Every successful run's host seconds (and modelled cycles, with
    /// timing), one sample each.
    pub fn samples(&self) -> Vec<RawSample> {
        let mut out = Vec::new();
        for row in &self.rows {
            for (i, (&seconds, &run)) in row.seconds.iter().zip(&row.runs).enumerate() {
                let mut values = vec![("host s".to_owned(), seconds.to_string())];
                if let Some(c) = row.cycles.get(i) {
                    values.push(("modelled cycles".to_owned(), c.to_string()));
                }
                out.push(RawSample {
                    keys: vec![
                        ("program".to_owned(), row.program.to_owned()),
                        ("cores".to_owned(), row.cores.to_string()),
                        ("mode".to_owned(), row.name()),
                    ],
                    values,
                    run,
                    core: None,
                });
            }
        }
        out
    }

    /// The table in the suite's text format.
    pub fn table(&self) -> super::table::Table {
        let mut t = super::table::Table::new(
            format!("{} (host time)", self.suite.title()),
            &[
                "program",
                "cores",
                "mode",
                "host s",
                "ratio to plain",
                "modelled Mcycles",
                "spread %",
                "vs smallest Q %",
            ],
        );
        t.notes.push(format!(
            "host seconds from boot to the last core's exit, median of {} run(s)",
            self.runs
        ));
        let missing = String::new;
        for row in &self.rows {
            let seconds = if row.seconds.is_empty() {
                missing()
            } else {
                format!("{:.2}", row.median())
            };
            t.rows.push(vec![
                row.program.to_owned(),
                row.cores.to_string(),
                row.name(),
                seconds,
                self.ratio(row).map_or_else(missing, |r| format!("{r:.2}")),
                row.median_cycles()
                    .map_or_else(missing, |c| format!("{:.3}", c / 1e6)),
                row.spread().map_or_else(missing, |s| format!("{s:.2}")),
                self.deviation(row)
                    .map_or_else(missing, |d| format!("{d:+.2}")),
            ]);
        }
        t
    }
}

impl fmt::Display for Overhead {
    /// The table as Markdown, readable as plain text too.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# {}\n", self.suite.title())?;
        writeln!(
            f,
            "Host seconds from boot to the last core's exit, median of {} run(s); \
             ratio to the plain run (no plugin) of the same program on the same cores. \
             With timing: the slowest core's modelled cycles at exit (median), their spread \
             over the runs, and their difference from the smallest quantum's.\n",
            self.runs
        )?;
        writeln!(
            f,
            "| program | cores | mode | host s | ratio to plain | modelled Mcycles | spread | vs smallest Q |"
        )?;
        writeln!(f, "|---|---:|---|---:|---:|---:|---:|---:|")?;
        let dash = || "-".to_owned();
        for row in &self.rows {
            let ratio = self.ratio(row).map_or_else(dash, |r| format!("{r:.2}"));
            let seconds = if row.seconds.is_empty() {
                dash()
            } else {
                format!("{:.2}", row.median())
            };
            let cycles = row
                .median_cycles()
                .map_or_else(dash, |c| format!("{:.3}", c / 1e6));
            let spread = row.spread().map_or_else(dash, |s| format!("{s:.2} %"));
            let deviation = self
                .deviation(row)
                .map_or_else(dash, |d| format!("{d:+.2} %"));
            writeln!(
                f,
                "| {} | {} | {} | {seconds} | {ratio} | {cycles} | {spread} | {deviation} |",
                row.program,
                row.cores,
                row.name(),
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
pub(crate) fn config(
    program: &str,
    cores: u32,
    mode: Mode,
    interrupt: Option<Arc<AtomicBool>>,
) -> RunConfig {
    RunConfig {
        timeout: TIMEOUT,
        interrupt,
        mode,
        // Every modelled run reports its instructions and cycles.
        stats: mode != Mode::Plain,
        ..RunConfig::new(cores, program)
    }
}

/// Builds, runs the set `suite` (one run per measurement if `quick`),
/// writes its table as Markdown to `<dir>/<set>.md`, and returns the
/// table and the file's path. Progress goes to standard error. A run
/// that fails is recorded in the table and the others go on; an
/// interrupted run ends the benchmark with an error.
pub fn run(
    suite: Suite,
    quick: bool,
    dir: &Path,
    interrupt: Option<Arc<AtomicBool>>,
) -> Result<(Overhead, PathBuf)> {
    let artifacts = build::build(false)?;
    let qemu = qemu::ensure()?;
    let runs = if quick { 1 } else { RUNS };
    let mut rows = suite.rows();
    let mut failures = Vec::new();
    let mut log = Vec::new();
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
                row.name()
            );
            if report.outcome == Outcome::Interrupted {
                bail!("{what}: {report}");
            }
            if report.mode != row.mode {
                bail!("{what} ran {} instead", mode_name(report.mode));
            }
            let time = super::host_time(report.elapsed.as_secs_f64(), Some(report.load));
            log.push(format!("{what}: {time}"));
            if !report.success() {
                eprintln!("{what} failed:\n{report}");
                failures.push(super::failure(&what, &report));
                continue;
            }
            let seconds = report.elapsed.as_secs_f64();
            let stale = match row.mode.model() {
                Some(model) if model.check => format!(", {} stale reads", report.stale_reads()),
                _ => String::new(),
            };
            let cycles = report
                .reports
                .iter()
                .flatten()
                .map(|r| r.stats.cycles)
                .max()
                .filter(|_| row.mode.quantum().is_some());
            let modelled = cycles.map_or(String::new(), |c| format!(", {c} modelled cycles"));
            eprintln!("{what}: {seconds:.2} s{stale}{modelled}");
            row.seconds.push(seconds);
            row.cycles.extend(cycles);
            row.runs.push(log.len());
        }
    }
    let table = Overhead {
        suite,
        runs,
        rows,
        failures,
        log,
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
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
            cycles: Vec::new(),
            runs: (1..=seconds.len()).collect(),
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
        let model = Mode::Modelled(UNTIMED);
        let table = Overhead {
            suite: Suite::Overhead,
            runs: 3,
            rows: vec![
                row("bench-mpb", 2, Mode::Plain, &[2.0, 2.1, 1.9]),
                row("bench-mpb", 2, model, &[6.0, 6.2, 5.8]),
                row("bench-mpb", 48, Mode::Plain, &[10.0, 10.0, 10.0]),
                row(
                    "bench-mpb",
                    48,
                    Mode::Modelled(Model {
                        check: true,
                        ..UNTIMED
                    }),
                    &[25.0, 25.0, 25.0],
                ),
                row("bench-private", 1, model, &[1.0, 1.0, 1.0]),
                row("bench-private", 1, Mode::Plain, &[]),
            ],
            failures: vec!["bench-private on 1 core(s), plain, run 1/3: core 0 failed".into()],
            log: vec![],
        };
        let text = table.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# Host-time overhead of the chip model");
        assert!(lines[2].contains("median of 3 run(s)"), "{text}");
        assert_eq!(
            lines[4],
            "| program | cores | mode | host s | ratio to plain | modelled Mcycles | spread | vs smallest Q |"
        );
        assert_eq!(
            lines[6],
            "| bench-mpb | 2 | plain | 2.00 | 1.00 | - | - | - |"
        );
        assert_eq!(
            lines[7],
            "| bench-mpb | 2 | model | 6.00 | 3.00 | - | - | - |"
        );
        assert_eq!(
            lines[9],
            "| bench-mpb | 48 | model+checker | 25.00 | 2.50 | - | - | - |"
        );
        // No successful plain run of that case: no time, no ratio.
        assert_eq!(
            lines[10],
            "| bench-private | 1 | model | 1.00 | - | - | - | - |"
        );
        assert_eq!(
            lines[11],
            "| bench-private | 1 | plain | - | - | - | - | - |"
        );
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
    fn timed_rows_show_their_cycles_spread_and_deviation() {
        let at = |q, cycles: &[u64]| Measurement {
            cycles: cycles.to_vec(),
            ..row("bench-mpb", 48, timed(q), &[4.0])
        };
        let table = Overhead {
            suite: Suite::Quantum,
            runs: 2,
            rows: vec![
                row("bench-mpb", 48, Mode::Plain, &[2.0]),
                at(1000, &[1_000_000, 1_000_000]),
                at(100_000, &[1_010_000, 1_030_000]),
            ],
            failures: vec![],
            log: vec![],
        };
        let text = table.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[7],
            "| bench-mpb | 48 | model+timing Q=1000 | 4.00 | 2.00 | 1.000 | 0.00 % | +0.00 % |"
        );
        assert_eq!(
            lines[8],
            "| bench-mpb | 48 | model+timing Q=100000 | 4.00 | 2.00 | 1.020 | 1.96 % | +2.00 % |"
        );
    }

    #[test]
    fn every_successful_run_is_a_sample() {
        let mut timed_row = row("bench-mpb", 48, timed(1000), &[4.0, 5.0]);
        timed_row.cycles = vec![100, 110];
        timed_row.runs = vec![2, 4];
        let table = Overhead {
            suite: Suite::Quantum,
            runs: 2,
            rows: vec![row("bench-mpb", 48, Mode::Plain, &[2.0]), timed_row],
            failures: vec![],
            log: vec![String::new(); 4],
        };
        let csv = crate::bench::samples::write("quantum", &table.samples());
        assert_eq!(
            csv,
            "experiment,program,cores,mode,host s,modelled cycles,run\n\
             quantum,bench-mpb,48,plain,2,,1\n\
             quantum,bench-mpb,48,model+timing Q=1000,4,100,2\n\
             quantum,bench-mpb,48,model+timing Q=1000,5,110,4\n"
        );
        let summary = table.table();
        assert_eq!(summary.rows[0][5], "", "no cycles: an empty cell");
    }

    #[test]
    fn sets_are_found_by_name() {
        assert_eq!("overhead".parse::<Suite>().unwrap(), Suite::Overhead);
        assert_eq!("quantum".parse::<Suite>().unwrap(), Suite::Quantum);
        let message = "speed".parse::<Suite>().unwrap_err().to_string();
        assert_eq!(
            message,
            "unknown benchmark set `speed`; the sets are: overhead, quantum"
        );
    }

    #[test]
    fn runs_ask_for_their_mode() {
        for suite in Suite::ALL {
            for row in suite.rows() {
                let c = config(row.program, row.cores, row.mode, None);
                assert!(c.check().is_ok(), "{row:?}");
                assert_eq!(c.mode, row.mode);
            }
        }
    }

    #[test]
    fn the_core_counts_fit_the_chip() {
        for (_, cores) in OVERHEAD_CASES {
            crate::check_cores(chip::DEFAULT_CHIP, cores).unwrap();
        }
    }
}
