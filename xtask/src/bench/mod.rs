// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask bench`: the benchmark suite.
//!
//! Every experiment is an entry of the registry ([`experiments::REGISTRY`]):
//! a name, a title, a short text saying what it shows, and either the
//! kernel programs it runs (whose result lines become tables, CSV and
//! plots by themselves) or a host-side measurement (how fast the emulator
//! runs, the routers' traffic). `cargo xtask bench [SET...] [--quick]` runs
//! the named experiments (`all`, the default, runs every one), and writes
//! under `target/bench/`:
//!
//! - `<experiment>.txt`: its text tables in the OSU micro-benchmarks'
//!   layout (also printed on standard output): for a result-line
//!   experiment, one two-column table per setting (each combination of
//!   the keys other than the x key), a `# OSU MPI-style <title> Test
//!   (<experiment>)` line, one `# <key>: <value>` line per key of the
//!   setting, then `# Size  Latency (us)` (or `Bandwidth (MB/s)`,
//!   `Speedup`, ..., with the x key's own name first for other x keys) and
//!   rows as OSU prints `%-10d%20.2f`; a host experiment's tables keep
//!   their columns;
//! - `<experiment>.csv`: the summary, one row per measurement; a missing
//!   value is an empty cell;
//! - `<experiment>-samples.csv`: every sample, one row each, before any
//!   statistic ([`samples`]): the experiment, every key, `bytes`/`ops`,
//!   the sample (`cycles`; host experiments say what theirs are), the
//!   run it came from (numbered as the report lists the experiment's runs)
//!   and the core that printed it;
//! - `<experiment>*.svg`: its plots, each series with its own colour,
//!   marker and dash pattern, base-2 axes read as 1K, 1M, and a speedup
//!   plot with the ideal speedup;
//! - `report.md`: everything tied together: command line, date, host, git
//!   commit, and per experiment its summary tables, plots, what it shows,
//!   its numbered runs and what failed.
//! - `runs/<ID>.json` and `logs/<ID>.log`: each run's result and serial
//!   log ([`jobs`] names the runs, [`results`] says when a result is
//!   complete); the tables are made from these files ([`suite`]), so
//!   `--resume`, `--only-failed` and `--collect` make the same tables as
//!   one whole run.
//!
//! Modelled SCC time (core cycles of the chip, shown in µs at
//! `chip.timing.core_mhz`, 533 MHz on the SCC) and host time (seconds on
//! this machine) are never mixed: each section keeps them apart.
//!
//! A run that fails (a core failed, a program's data check failed), a
//! result line that does not parse, or an experiment without results is
//! listed in the report and on standard error, and makes the command exit
//! with status 1 once everything else is written.
//!
//! # The result-line protocol
//!
//! A benchmark program prints its results on its serial console, one line
//! per measurement or part of one:
//!
//! ```text
//! BENCH <experiment> <key>=<value> ... [bytes=<n>] [ops=<n>] cycles=<c1>,<c2>,...
//! ```
//!
//! - A line is a result line if it starts with `BENCH`; such a line that
//!   does not parse as below is an error naming the core, the serial line
//!   number and the line (never skipped silently).
//! - Words are separated by spaces. `<experiment>` (letters, digits, `-`,
//!   `_`, `.`) names the experiment, e.g. `put-latency`.
//! - `<key>=<value>`: the dimensions of the measurement, e.g. `size=1024
//!   epoch=fence`; keys as experiment names, values non-empty without
//!   spaces or commas; no key twice.
//! - `bytes=` (bytes moved per sample, for bandwidth) and `ops=`
//!   (operations per sample, for rates) are measures, not dimensions:
//!   unsigned decimal numbers, equal on every line of one measurement.
//! - `cycles=` comes last: one or more samples in modelled SCC core cycles,
//!   comma-separated unsigned decimals.
//! - The samples of every line with the same experiment and the same keys
//!   (in any order) are pooled, across lines and cores, as the
//!   passive-target paper pools all processes' samples; then the median
//!   and quartiles are taken ([`stats`] defines the quantiles). A core may
//!   split its samples over several lines; keep each under 4000 characters.
//!
//! Derived values: latency µs = cycles / `core_mhz`; bandwidth MB/s
//! (10^6 bytes per second) = `bytes` / latency µs; rate Mops/s = `ops` /
//! latency µs; total rate Mops/s = `ops` × the cores that gave samples /
//! latency µs (each sample one core's whole run, all cores at once: the
//! rate of all processes together, e.g. GUPS); speedup = the median at the smallest x of the same series /
//! the median. Bandwidth bands use the quartiles of the latency (Q3 gives
//! the lower edge).
//!
//! # Adding an experiment
//!
//! Once a program prints result lines, one entry in
//! [`experiments::REGISTRY`] makes it an experiment:
//!
//! ```ignore
//! Experiment {
//!     name: "put-latency",
//!     title: "Put latency per message size",
//!     about: "Latency of MPI_Put plus synchronisation for 1 B to 1 MiB, per epoch type.",
//!     kind: Kind::Lines {
//!         runs: &[Run {
//!             program: "bench-put",
//!             memory_mib: None,
//!             cores: &[2],
//!             quick_cores: &[2],
//!             params: &[("reps", "1000")],
//!             quick_params: &[("reps", "50")],
//!         }],
//!         view: View {
//!             x: "size",
//!             table: Measure::Latency,
//!             x_label: "message size (bytes)",
//!             x_scale: Scale::Log(2.0),
//!             plots: &[
//!                 Plot { suffix: "", measure: Measure::Latency, y_scale: Scale::Log(10.0), only: &[] },
//!                 Plot { suffix: "-bw", measure: Measure::Bandwidth, y_scale: Scale::Linear, only: &[] },
//!             ],
//!         },
//!     },
//! },
//! ```
//!
//! Its summary then has one row per measurement (the keys, the number of
//! samples, median cycles, median/Q1/Q3 µs, and bandwidth or rate when the
//! lines give `bytes=`/`ops=`), its text one table of `table` against `x`
//! per setting, and each plot one series per setting (the keys fixed by
//! `only` excepted).

pub mod calibrate;
pub mod csv;
pub mod experiments;
pub mod host;
pub mod irregular;
pub mod jobs;
pub mod model;
pub mod nas_ft;
pub mod progress;
pub mod protocol;
pub mod report;
pub mod results;
pub mod samples;
pub mod stats;
pub mod suite;
pub mod svg;
pub mod table;
pub mod usage;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};

use crate::build::{self, Artifacts};
use crate::programs::Catalog;
use crate::qemu::Qemu;
use crate::run::{HostLoad, Outcome, RunConfig, RunReport, boot};
pub use experiments::REGISTRY;
pub use host::{Overhead, Suite};
use protocol::{Pool, Row};
use samples::RawSample;
use stats::Summary;
pub use suite::{Options, Rerun, collect, list_runs, run_one, run_suite};
pub use svg::Scale;
use table::{Table, num};

/// Longest a single benchmark run may take.
pub const TIMEOUT: Duration = Duration::from_secs(900);

/// One experiment of the suite.
#[derive(Debug)]
pub struct Experiment {
    /// Its name on the command line and of its files.
    pub name: &'static str,
    /// The title of its section.
    pub title: &'static str,
    /// What it shows, in a sentence or two, for the report.
    pub about: &'static str,
    /// How it is measured.
    pub kind: Kind,
}

/// How an experiment is measured.
#[derive(Debug)]
pub enum Kind {
    /// Kernel programs print result lines (see the module docs).
    Lines {
        /// The runs.
        runs: &'static [Run],
        /// How the pooled rows become tables and plots.
        view: View,
    },
    /// A measurement on the host side, written in Rust.
    Host(fn(&mut Ctx<'_>) -> Result<Section>),
}

/// The runs of one program.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The program: one the built-in image declares ([`check_programs`]),
    /// or a C program of [`C_PROGRAMS`], whose arguments are the `args`
    /// setting's words separated by commas (`("args", "S,two-sided")`).
    pub program: &'static str,
    /// MiB of each core's RAM (`cargo xtask run --memory-mib`); `None`:
    /// the default.
    pub memory_mib: Option<u32>,
    /// Core counts, one run each.
    pub cores: &'static [u32],
    /// Core counts with `--quick`.
    pub quick_cores: &'static [u32],
    /// Program settings (`--param`).
    pub params: &'static [(&'static str, &'static str)],
    /// Program settings with `--quick`, instead of `params`.
    pub quick_params: &'static [(&'static str, &'static str)],
}

/// How an experiment's rows are shown.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// The key on the x axis of the plots and in the first column of the
    /// text tables (numeric values).
    pub x: &'static str,
    /// What the text tables show against `x`, one table per setting.
    pub table: Measure,
    /// The x axis's label.
    pub x_label: &'static str,
    /// The x axis's scale.
    pub x_scale: Scale,
    /// The plots, one file each.
    pub plots: &'static [Plot],
}

/// One plot of an experiment.
#[derive(Debug, Clone, Copy)]
pub struct Plot {
    /// The file is `<experiment><suffix>.svg`.
    pub suffix: &'static str,
    /// What the y axis shows.
    pub measure: Measure,
    /// The y axis's scale.
    pub y_scale: Scale,
    /// Only the rows with these values of these keys; a row without one of
    /// the keys (a baseline without that dimension) is shown too.
    pub only: &'static [(&'static str, &'static str)],
}

/// A quantity derived from the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Median µs with Q1-Q3.
    Latency,
    /// `bytes=` per µs, MB/s.
    Bandwidth,
    /// `ops=` per µs, Mops/s.
    Rate,
    /// `ops=` times the cores that gave samples per µs, Mops/s: the rate of
    /// all processes together, when each sample is one core's whole run
    /// and the cores ran at the same time.
    TotalRate,
    /// The median at the series' smallest x over the median.
    Speedup,
    /// The median over the median at the series' smallest x: normalised
    /// execution time.
    Normalised,
}

impl Measure {
    fn label(self) -> &'static str {
        match self {
            Self::Latency => "latency (µs, modelled SCC time)",
            Self::Bandwidth => "bandwidth (MB/s, modelled SCC time)",
            Self::Rate => "rate (Mops/s, modelled SCC time)",
            Self::TotalRate => "total rate (Mops/s of all processes, modelled SCC time)",
            Self::Speedup => "speedup",
            Self::Normalised => "time over the time at the smallest x",
        }
    }

    /// The second column's name in the text tables, as OSU names it.
    fn column(self) -> &'static str {
        match self {
            Self::Latency => "Latency (us)",
            Self::Bandwidth => "Bandwidth (MB/s)",
            Self::Rate => "Rate (Mops/s)",
            Self::TotalRate => "Total rate (Mops/s)",
            Self::Speedup => "Speedup",
            Self::Normalised => "Normalised time",
        }
    }
}

/// What an experiment produced.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    /// Its experiment's name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// What it shows.
    pub about: String,
    /// Tables in modelled SCC time.
    pub modeled: Vec<Table>,
    /// Tables in host time.
    pub host: Vec<Table>,
    /// Its text tables in OSU's two-column layout, one per setting; if
    /// there are none, the text shows `modeled` and `host`.
    pub osu: Vec<Table>,
    /// Its CSV file's content (the summary), if any.
    pub csv: Option<String>,
    /// Every sample it took, for `<experiment>-samples.csv`.
    pub samples: Vec<RawSample>,
    /// Its plots: file name and SVG.
    pub svgs: Vec<(String, String)>,
    /// The runs made, one line each with their host time; a sample's run
    /// is its number in this list, from 1.
    pub runs: Vec<String>,
    /// Further remarks for the report.
    pub notes: Vec<String>,
    /// What went wrong, one line each.
    pub failures: Vec<String>,
    /// Host seconds the experiment took.
    pub seconds: f64,
}

impl Section {
    /// Records the run `what` that gave `report`: its line with its host
    /// time (its number is then [`Section::last_run`]), and a failure if it
    /// did not succeed. Whether it succeeded.
    pub fn record(&mut self, what: &str, report: &RunReport) -> bool {
        let time = host_time(report.elapsed.as_secs_f64(), Some(report.load));
        self.runs.push(format!("{what}: {time}"));
        if !report.success() {
            self.failures.push(failure(what, report));
        }
        report.success()
    }

    /// The number of the last run recorded, from 1.
    pub fn last_run(&self) -> usize {
        self.runs.len()
    }

    fn new(e: &Experiment) -> Self {
        Self {
            name: e.name.to_owned(),
            title: e.title.to_owned(),
            about: e.about.to_owned(),
            ..Self::default()
        }
    }

    /// Every text table, a blank line between two: the OSU tables if
    /// there are any, else the others, modelled first.
    pub fn text(&self) -> String {
        let tables = if self.osu.is_empty() {
            self.modeled.iter().chain(&self.host).collect::<Vec<_>>()
        } else {
            self.osu.iter().collect()
        };
        let tables: Vec<String> = tables.into_iter().map(Table::to_string).collect();
        tables.join("\n")
    }

    /// The name of its raw-sample file.
    pub fn samples_file(&self) -> String {
        format!("{}-samples.csv", self.name)
    }
}

/// What experiments use to run programs.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// One run per measurement, fewer and smaller cases.
    pub quick: bool,
    /// Where the experiments' files go.
    pub out: &'a Path,
    artifacts: &'a Artifacts,
    qemu: &'a Qemu,
    interrupt: Option<Arc<AtomicBool>>,
    /// The job's serial log, to which every run appends.
    log: Option<PathBuf>,
    progress: &'a progress::Progress,
}

impl Ctx<'_> {
    /// Boots `config` (its interrupt flag set to the suite's) and appends
    /// every core's serial lines and how the run ended to the job's log;
    /// an interrupted run is an error.
    pub fn boot(&self, mut config: RunConfig) -> Result<RunReport> {
        config.interrupt = self.interrupt.clone();
        let what = format!(
            "{} on {} core(s){}",
            config.program_name(),
            config.cores,
            if config.mode == chip::Mode::Plain {
                ", plain"
            } else {
                ""
            }
        );
        self.progress.note(&format!("bench: {what}"));
        let report = boot(&config, self.artifacts, self.qemu)?;
        if let Some(log) = &self.log {
            append_log(log, &what, &report)?;
        }
        if report.outcome == Outcome::Interrupted {
            bail!(
                "{} on {} cores: {report}",
                config.program_name(),
                config.cores
            );
        }
        Ok(report)
    }

    /// The interrupt flag, for the host sets.
    pub fn interrupt(&self) -> Option<Arc<AtomicBool>> {
        self.interrupt.clone()
    }
}

/// A run's host time as its line in a report's run list says it, with
/// the host's load where it was recorded: `2.00 s host (load average ...)`.
pub fn host_time(seconds: f64, load: Option<HostLoad>) -> String {
    match load {
        Some(load) => format!("{seconds:.2} s host ({load})"),
        None => format!("{seconds:.2} s host"),
    }
}

/// Why a run failed, in one line: what ended it and the failed core's
/// last serial line.
pub fn failure(what: &str, report: &RunReport) -> String {
    let text = report.to_string();
    let first = text.lines().next().unwrap_or_default();
    let reason = match report.outcome {
        Outcome::CoreFailed { core, .. } => report.serial(core).last(),
        _ => None,
    };
    let reason = reason.map_or(String::new(), |r| format!(" ({r})"));
    format!("{what}: {first}{reason}")
}

/// Appends run `what`'s serial lines, `[core NN] <line>`, and how it
/// ended to the log `log`.
fn append_log(log: &Path, what: &str, report: &RunReport) -> Result<()> {
    use std::io::Write as _;
    let mut text = format!("=== {what}\n");
    for c in &report.cores {
        for line in &c.serial {
            text += &format!("[core {:02}] {line}\n", c.core);
        }
    }
    text += &format!("{report}\n\n");
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", log.display()))
}

/// The experiments `names` stand for, in registry order; `all` is every
/// one. An unknown name is an error listing the known ones.
pub fn select(names: &[String]) -> Result<Vec<&'static Experiment>> {
    let mut chosen: Vec<&'static Experiment> = Vec::new();
    for name in names {
        if name == "all" {
            chosen.extend(REGISTRY.iter());
            continue;
        }
        match REGISTRY.iter().find(|e| e.name == name) {
            Some(e) => chosen.push(e),
            None => bail!(
                "unknown benchmark set `{name}`; the sets are: all, {}",
                known().join(", ")
            ),
        }
    }
    if names.is_empty() {
        chosen.extend(REGISTRY.iter());
    }
    let mut seen = Vec::new();
    chosen.retain(|e| {
        let new = !seen.contains(&e.name);
        seen.push(e.name);
        new
    });
    Ok(chosen)
}

/// The names of every registered experiment.
pub fn known() -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.name).collect()
}

/// What a suite run produced.
#[derive(Debug)]
pub struct SuiteOutcome {
    /// One section per experiment.
    pub sections: Vec<Section>,
    /// Where `report.md` is.
    pub report: std::path::PathBuf,
}

impl SuiteOutcome {
    /// Every failure of every section.
    pub fn failures(&self) -> Vec<String> {
        self.sections
            .iter()
            .flat_map(|s| s.failures.iter().map(move |f| format!("{}: {f}", s.name)))
            .collect()
    }
}

/// Where a suite run writes: the directory of tables, CSV files and
/// plots, and the report, which links to them relatively.
#[derive(Debug, Clone)]
pub struct Output {
    /// The directory of every experiment's files.
    pub dir: PathBuf,
    /// The Markdown report.
    pub report: PathBuf,
}

impl Output {
    /// `dir` defaults to `target/bench`, `report` to `dir/report.md`.
    ///
    /// Checked here, before anything is built or run, so that a suite run
    /// is not lost at its end: an error if the report is an existing
    /// directory, if `dir` exists and is not a directory, if `dir` or the
    /// report's directory cannot be created (a part of its path is not a
    /// directory) or written in, if the report exists and cannot be
    /// written, or if `dir` is not the report's directory or below it, as
    /// the report's links could not reach it. Nothing is created.
    pub fn new(dir: Option<PathBuf>, report: Option<PathBuf>) -> Result<Self> {
        let dir = dir.unwrap_or_else(|| build::target_dir().join("bench"));
        let report = report.unwrap_or_else(|| dir.join("report.md"));
        let output = Self { dir, report };
        output.check()?;
        output.link_prefix()?;
        Ok(output)
    }

    /// The checks of [`Output::new`] on the file system.
    fn check(&self) -> Result<()> {
        let (dir, report) = (&self.dir, &self.report);
        if report.is_dir() {
            bail!(
                "the report {0} is a directory: --report takes a file name, such as {0}/report.md",
                report.display()
            );
        }
        if dir.exists() && !dir.is_dir() {
            bail!(
                "the output directory {} (--out) exists and is not a directory",
                dir.display()
            );
        }
        let verb = if dir.exists() {
            "written in"
        } else {
            "created"
        };
        writable_dir(
            dir,
            &format!(
                "the output directory {} (--out) cannot be {verb}",
                dir.display()
            ),
        )?;
        let what = format!("the report {} cannot be written", report.display());
        let parent = report.parent().filter(|p| !p.as_os_str().is_empty());
        writable_dir(parent.unwrap_or(Path::new(".")), &what)?;
        if report.exists() {
            writable(report).with_context(|| what.clone())?;
        }
        Ok(())
    }

    /// What the report puts before a file name to link to it: the
    /// directory relative to the report's, each part percent-encoded
    /// ([`report::link_target`]) and followed by `/`, or nothing.
    pub fn link_prefix(&self) -> Result<String> {
        let absolute = |p: &Path| {
            std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()))
        };
        let dir = absolute(&self.dir)?;
        let report = absolute(&self.report)?;
        let base = report.parent().unwrap_or(Path::new("/"));
        let relative = dir.strip_prefix(base).map_err(|_| {
            anyhow::anyhow!(
                "--out {} is not in or below the directory of --report {}: the report links to its files relatively",
                self.dir.display(),
                self.report.display()
            )
        })?;
        Ok(relative
            .components()
            .map(|c| format!("{}/", report::link_target(c.as_os_str().as_encoded_bytes())))
            .collect())
    }
}

/// Checks that `dir` is a directory this process can create files in, or
/// that it can be made one: its nearest existing ancestor (or itself) must
/// be a directory this process can write in. `what` begins the error.
fn writable_dir(dir: &Path, what: &str) -> Result<()> {
    let absolute =
        std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    for ancestor in absolute.ancestors() {
        match std::fs::symlink_metadata(ancestor) {
            // Not there, or below a file: the ancestor that is there tells.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                continue;
            }
            Err(e) => bail!("{what}: cannot look at {}: {e}", ancestor.display()),
            Ok(_) => {}
        }
        let meta = std::fs::metadata(ancestor)
            .with_context(|| format!("{what}: cannot follow {}", ancestor.display()))?;
        if !meta.is_dir() {
            bail!("{what}: {} is not a directory", ancestor.display());
        }
        return writable(ancestor)
            .with_context(|| format!("{what}: cannot create files in {}", ancestor.display()));
    }
    // The root directory exists: the loop has returned.
    bail!("{what}: no part of {} exists", absolute.display())
}

/// Whether this process (its effective user and groups) may write `path`,
/// and enter it if it is a directory.
fn writable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    let mode = if path.is_dir() {
        libc::W_OK | libc::X_OK
    } else {
        libc::W_OK
    };
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call,
    // which only reads it.
    let result =
        unsafe { libc::faccessat(libc::AT_FDCWD, c_path.as_ptr(), mode, libc::AT_EACCESS) };
    if result == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A C program the suite runs (built with `libmpi.a` as `cargo xtask
/// run --c` builds it), by the name runs give it.
#[derive(Debug)]
pub struct CProgram {
    /// The name in [`Run::program`].
    pub name: &'static str,
    /// Its source files, relative to the workspace.
    pub files: &'static [&'static str],
}

/// The C programs the suite runs.
pub const C_PROGRAMS: &[CProgram] = &[CProgram {
    name: "nas-ft",
    files: &["apps/nas-ft/ft.c"],
}];

impl CProgram {
    /// The C program called `name`, if one is.
    pub fn find(name: &str) -> Option<&'static Self> {
        C_PROGRAMS.iter().find(|c| c.name == name)
    }

    /// Its files as paths in this workspace.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .map(|f| build::workspace_root().join(f))
            .collect()
    }

    /// Its arguments (after `argv[0]`), from a run's settings: the words
    /// of `args`, the only setting a C program takes.
    pub fn arguments(&self, params: &[(String, String)]) -> Result<Vec<String>> {
        match params {
            [] => Ok(Vec::new()),
            [(key, words)] if key == "args" => Ok(words.split(',').map(str::to_owned).collect()),
            _ => bail!(
                "{}: a C program takes only the setting `args` (its arguments, comma-separated)",
                self.name
            ),
        }
    }

    /// `run`'s settings for it: `argv` as [`crate::programs::argv_param`]
    /// gives it, its name the first file's stem.
    pub fn run_params(&self, params: &[(String, String)]) -> Result<Vec<(String, String)>> {
        let stem = Path::new(self.files[0])
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(self.name);
        Ok(vec![crate::programs::argv_param(
            stem,
            &self.arguments(params)?,
        )?])
    }
}

/// Checks that every run of every experiment names a program of the
/// image in `catalog` with settings it takes, or a C program of
/// [`C_PROGRAMS`] whose files exist, at both scales: a typo stops the
/// suite before anything runs.
pub fn check_programs(catalog: &Catalog) -> Result<()> {
    for e in REGISTRY {
        if let Kind::Lines { runs, .. } = &e.kind {
            for run in *runs {
                if let Some(c) = CProgram::find(run.program) {
                    for path in c.paths() {
                        ensure!(
                            path.is_file(),
                            "experiment {}: {} has no file {}",
                            e.name,
                            c.name,
                            path.display()
                        );
                    }
                    for params in [run.params, run.quick_params] {
                        let params: Vec<(String, String)> = params
                            .iter()
                            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                            .collect();
                        c.arguments(&params)
                            .with_context(|| format!("experiment {}", e.name))?;
                    }
                    continue;
                }
                for (params, cores) in
                    [(run.params, run.cores), (run.quick_params, run.quick_cores)]
                {
                    let params: Vec<(String, String)> = params
                        .iter()
                        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                        .collect();
                    // The chip is the run's, not the program's setting.
                    let (chip, params) = jobs::split_chip(&params);
                    let chip = match chip {
                        Some(name) => chip::find_chip(name).with_context(|| {
                            format!(
                                "experiment {}: unknown chip {name} (known chips: {})",
                                e.name,
                                chip::chip_names()
                            )
                        })?,
                        None => chip::DEFAULT_CHIP,
                    };
                    for &n in cores {
                        crate::check_cores(chip, n)
                            .with_context(|| format!("experiment {}", e.name))?;
                        catalog
                            .check(Some(run.program), &params, n)
                            .with_context(|| format!("experiment {}", e.name))?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn interrupted(flag: &Option<Arc<AtomicBool>>) -> bool {
    flag.as_ref()
        .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
}

/// A key's value as a sort key: numbers by value, before words.
fn sort_token(v: &str) -> (u8, f64, String) {
    match v.parse::<f64>() {
        Ok(n) => (0, n, String::new()),
        Err(_) => (1, 0.0, v.to_owned()),
    }
}

/// The keys of `rows`, in the order they first appear.
fn key_names(rows: &[&Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        for (k, _) in &r.keys {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    names
}

/// The pooled rows of experiment `e` as tables, CSV, raw samples and
/// plots, at `mhz` core cycles per µs; no rows, or errors in the pool, are
/// failures.
pub fn lines_section(e: &Experiment, view: &View, pool: &Pool, mhz: f64) -> Section {
    let mut section = Section::new(e);
    section.failures.extend(pool.errors.iter().cloned());
    let mut rows = pool.rows(e.name);
    if rows.is_empty() {
        section
            .failures
            .push(format!("no `BENCH {}` result line", e.name));
        return section;
    }
    let keys = key_names(&rows);
    // Sorted by the other keys, then by x.
    let order: Vec<&String> = keys
        .iter()
        .filter(|k| k.as_str() != view.x)
        .chain(keys.iter().filter(|k| k.as_str() == view.x))
        .collect();
    rows.sort_by(|a, b| {
        let ta = order.iter().map(|k| sort_token(a.key(k).unwrap_or("")));
        let tb = order.iter().map(|k| sort_token(b.key(k).unwrap_or("")));
        ta.zip(tb)
            .map(|(x, y)| {
                x.0.cmp(&y.0)
                    .then(x.1.total_cmp(&y.1))
                    .then_with(|| x.2.cmp(&y.2))
            })
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    section
        .modeled
        .push(summary_table(e, view, &keys, &rows, mhz));
    let summary = &section.modeled[0];
    section.csv = Some(csv::write(&summary.header, &summary.rows));
    section.samples = raw_samples(&keys, &rows);
    section.osu = osu_tables(e, view, &rows, mhz);
    for plot in view.plots {
        let svg = svg::line_plot(&line_plot(e, view, plot, &rows, mhz));
        section
            .svgs
            .push((format!("{}{}.svg", e.name, plot.suffix), svg));
    }
    section
}

/// One row per measurement: its keys, the number of samples and cores,
/// median cycles, median/Q1/Q3 µs, and bandwidth or rate when the lines
/// give `bytes=`/`ops=`; a missing value is an empty cell.
fn summary_table(e: &Experiment, view: &View, keys: &[String], rows: &[&Row], mhz: f64) -> Table {
    let bytes = rows.iter().any(|r| r.extra("bytes").is_some());
    let ops = rows.iter().any(|r| r.extra("ops").is_some());
    let total = ops && view.plots.iter().any(|p| p.measure == Measure::TotalRate);
    let seeded = rows.iter().any(|r| r.cycles_per_seed().len() > 1);
    let mut header: Vec<String> = keys.to_vec();
    header.extend(
        [
            "samples",
            "cores",
            "median (cycles)",
            "latency (us)",
            "Q1 (us)",
            "Q3 (us)",
        ]
        .map(String::from),
    );
    if bytes {
        header.push("bytes".into());
        header.push("bandwidth (MB/s)".into());
    }
    if ops {
        header.push("ops".into());
        header.push("rate (Mops/s)".into());
    }
    if total {
        header.push("total rate (Mops/s)".into());
    }
    if seeded {
        header.push("seeds".into());
        header.push("seed spread (%)".into());
    }
    let mut table = Table::new(e.title, &[]);
    table.header = header;
    table.notes = vec![
        format!(
            "modelled SCC time at {mhz} MHz; samples pooled over lines and cores; median, quartiles (type 7)"
        ),
        "MB/s = 10^6 bytes per second".to_owned(),
    ];
    if seeded {
        table.notes.push(
            "samples pooled over the runs' seeds of the chip's variation too; seed spread = \
             largest median of one seed's samples / smallest - 1"
                .to_owned(),
        );
    }
    for r in rows {
        let Some(c) = Summary::of_u64(&r.cycles()) else {
            continue;
        };
        let us = c.scaled(mhz);
        let mut row: Vec<String> = keys
            .iter()
            .map(|k| r.key(k).unwrap_or_default().to_owned())
            .collect();
        row.extend([
            c.n.to_string(),
            r.cores.len().to_string(),
            num(c.median, 0),
            num(us.median, 3),
            num(us.q1, 3),
            num(us.q3, 3),
        ]);
        let per = |name: &str| match r.extra(name) {
            Some(v) => [v.to_string(), num(v as f64 / us.median, 2)],
            None => [String::new(), String::new()],
        };
        if bytes {
            row.extend(per("bytes"));
        }
        if ops {
            row.extend(per("ops"));
        }
        if total {
            row.push(match r.extra("ops") {
                Some(v) => num(total_ops(v, r) / us.median, 2),
                None => String::new(),
            });
        }
        if seeded {
            let (seeds, spread) = seed_spread(r);
            row.push(seeds.to_string());
            row.push(spread.map_or_else(String::new, |s| num(100.0 * s, 2)));
        }
        table.rows.push(row);
    }
    table
}

/// How many seeds of the chip's variation `row`'s samples come from, and
/// the spread of their medians: the largest over the smallest, minus one
/// (`None` with fewer than two seeds, or a median of 0).
fn seed_spread(row: &Row) -> (usize, Option<f64>) {
    let medians: Vec<f64> = row
        .cycles_per_seed()
        .iter()
        .filter_map(|(_, cycles)| Summary::of_u64(cycles).map(|s| s.median))
        .collect();
    let (low, high) = medians
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &m| (l.min(m), h.max(m)));
    let spread = (medians.len() > 1 && low > 0.0).then(|| high / low - 1.0);
    (medians.len(), spread)
}

/// Every sample of `rows`, row by row, with the keys `keys`, the row's
/// `bytes=`/`ops=` and the run and core that printed it.
fn raw_samples(keys: &[String], rows: &[&Row]) -> Vec<RawSample> {
    let mut out = Vec::new();
    for r in rows {
        // Every key, empty where the row has none, so that the columns
        // keep the summary's order.
        let keys: Vec<(String, String)> = keys
            .iter()
            .map(|k| (k.clone(), r.key(k).unwrap_or_default().to_owned()))
            .collect();
        let extras = protocol::EXTRA_FIELDS
            .iter()
            .filter_map(|&name| r.extra(name).map(|v| (name.to_owned(), v.to_string())));
        let extras: Vec<(String, String)> = extras.collect();
        for s in &r.samples {
            let mut values = extras.clone();
            values.push(("cycles".to_owned(), s.cycles.to_string()));
            out.push(RawSample {
                keys: keys.clone(),
                values,
                run: s.run,
                core: Some(s.core),
            });
        }
    }
    out
}

/// `ops` operations per sample of `r` on all the cores that gave them.
fn total_ops(ops: u64, r: &Row) -> f64 {
    ops as f64 * r.cores.len() as f64
}

/// The rows of one setting: one combination of the values of the keys
/// other than x (and than those a plot fixes).
#[derive(Debug)]
struct Setting<'a> {
    /// Those keys and values, in the order of its first row.
    keys: Vec<(String, String)>,
    /// Its rows with a numeric x, by x.
    rows: Vec<(f64, &'a Row)>,
}

impl Setting<'_> {
    /// `key=value ...`, or `None` for a setting without keys.
    fn name(&self) -> Option<String> {
        let parts: Vec<String> = self.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// `rows` (those that `only` leaves: a row without one of its keys too)
/// by setting, in the order the settings first appear.
fn settings<'a>(rows: &[&'a Row], x: &str, only: &[(&str, &str)]) -> Vec<Setting<'a>> {
    let mut out: Vec<Setting<'a>> = Vec::new();
    let sorted = |keys: &[(String, String)]| {
        let mut keys = keys.to_vec();
        keys.sort();
        keys
    };
    for &r in rows {
        if only
            .iter()
            .any(|(k, v)| r.key(k).is_some_and(|have| have != *v))
        {
            continue;
        }
        let Some(xv) = r.key(x).and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        let keys: Vec<(String, String)> = r
            .keys
            .iter()
            .filter(|(k, _)| k != x && !only.iter().any(|(o, _)| o == k))
            .cloned()
            .collect();
        let id = sorted(&keys);
        match out.iter_mut().find(|s| sorted(&s.keys) == id) {
            Some(s) => s.rows.push((xv, r)),
            None => out.push(Setting {
                keys,
                rows: vec![(xv, r)],
            }),
        }
    }
    for s in &mut out {
        s.rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// `measure` at each row of `setting` that has it, with its Q1-Q3 band;
/// speedup and normalised time against the setting's smallest x.
fn points<'a>(setting: &Setting<'a>, measure: Measure, mhz: f64) -> Vec<(&'a Row, svg::Point)> {
    let mut points = Vec::new();
    for &(x, r) in &setting.rows {
        let Some(us) = Summary::of_u64(&r.cycles()).map(|s| s.scaled(mhz)) else {
            continue;
        };
        let point = match measure {
            Measure::Latency | Measure::Speedup | Measure::Normalised => Some(svg::Point {
                x,
                y: us.median,
                lo: Some(us.q1),
                hi: Some(us.q3),
            }),
            Measure::Bandwidth | Measure::Rate | Measure::TotalRate => {
                let name = if measure == Measure::Bandwidth {
                    "bytes"
                } else {
                    "ops"
                };
                r.extra(name).map(|v| {
                    let v = if measure == Measure::TotalRate {
                        total_ops(v, r)
                    } else {
                        v as f64
                    };
                    svg::Point {
                        x,
                        y: v / us.median,
                        lo: Some(v / us.q3),
                        hi: Some(v / us.q1),
                    }
                })
            }
        };
        points.extend(point.map(|p| (r, p)));
    }
    let Some(base) = points.first().map(|(_, p)| p.y) else {
        return points;
    };
    for (_, p) in &mut points {
        let (y, lo, hi) = (p.y, p.lo, p.hi);
        match measure {
            Measure::Speedup => {
                p.y = base / y;
                p.lo = hi.map(|h| base / h);
                p.hi = lo.map(|l| base / l);
            }
            Measure::Normalised => {
                p.y = y / base;
                p.lo = lo.map(|l| l / base);
                p.hi = hi.map(|h| h / base);
            }
            _ => {}
        }
    }
    points
}

/// The text tables: per setting, `view.table` against x in OSU's
/// two-column layout, the setting's keys one `# key: value` line each.
fn osu_tables(e: &Experiment, view: &View, rows: &[&Row], mhz: f64) -> Vec<Table> {
    let mut first = view.x.to_owned();
    if let Some(c) = first.get_mut(..1) {
        c.make_ascii_uppercase();
    }
    let title = format!("{} Test ({})", e.title, e.name);
    let mut tables = Vec::new();
    for setting in settings(rows, view.x, &[]) {
        let points = points(&setting, view.table, mhz);
        if points.is_empty() {
            continue;
        }
        let mut t = Table::new(title.clone(), &[&first, view.table.column()]);
        t.notes = setting
            .keys
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        t.notes.push(format!(
            "median of the samples pooled over lines and cores; modelled SCC time at {mhz} MHz"
        ));
        t.rows = points
            .iter()
            .map(|(r, p)| vec![r.key(view.x).unwrap_or_default().to_owned(), num(p.y, 2)])
            .collect();
        tables.push(t);
    }
    tables
}

/// One plot: one series per setting; a speedup plot also has the ideal
/// speedup, x over the smallest x, as its reference line.
fn line_plot(e: &Experiment, view: &View, plot: &Plot, rows: &[&Row], mhz: f64) -> svg::LinePlot {
    let series: Vec<svg::Series> = settings(rows, view.x, plot.only)
        .iter()
        .map(|s| svg::Series {
            name: s.name().unwrap_or_else(|| e.name.to_owned()),
            points: points(s, plot.measure, mhz)
                .into_iter()
                .map(|(_, p)| p)
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let reference = (plot.measure == Measure::Speedup)
        .then(|| ideal_speedup(&series))
        .flatten();
    let only: Vec<String> = plot.only.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let title = if only.is_empty() {
        e.title.to_owned()
    } else {
        format!("{} ({})", e.title, only.join(", "))
    };
    svg::LinePlot {
        title,
        x_label: view.x_label.to_owned(),
        y_label: plot.measure.label().to_owned(),
        x_scale: view.x_scale,
        y_scale: plot.y_scale,
        series,
        reference,
    }
}

/// The ideal speedup at every x of `series`: x over the smallest x (p
/// processes against one: p), if that is positive.
fn ideal_speedup(series: &[svg::Series]) -> Option<svg::Series> {
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let base = *xs.first().filter(|&&b| b > 0.0)?;
    Some(svg::Series {
        name: "ideal".to_owned(),
        points: xs
            .iter()
            .map(|&x| svg::Point {
                x,
                y: x / base,
                lo: None,
                hi: None,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_c_program_takes_its_arguments_from_the_args_setting() {
        let ft = CProgram::find("nas-ft").unwrap();
        let args = |words: &str| vec![("args".to_owned(), words.to_owned())];
        assert_eq!(
            ft.arguments(&args("S,two-sided")).unwrap(),
            ["S", "two-sided"]
        );
        assert_eq!(ft.arguments(&[]).unwrap(), Vec::<String>::new());
        assert_eq!(
            ft.run_params(&args("W,pscw-dcm,keep-going")).unwrap(),
            [crate::programs::argv_param(
                "ft",
                &["W".into(), "pscw-dcm".into(), "keep-going".into()]
            )
            .unwrap()]
        );
        let e = ft
            .arguments(&[("class".to_owned(), "S".to_owned())])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "nas-ft: a C program takes only the setting `args` (its arguments, comma-separated)"
        );
        assert!(CProgram::find("bench-put").is_none());
        assert!(ft.paths().iter().all(|p| p.is_file()));
    }

    const SYNTHETIC: Experiment = Experiment {
        name: "put-latency",
        title: "Put latency",
        about: "Synthetic.",
        kind: Kind::Lines {
            runs: &[],
            view: VIEW,
        },
    };
    const VIEW: View = View {
        x: "size",
        table: Measure::Latency,
        x_label: "message size (bytes)",
        x_scale: Scale::Log(2.0),
        plots: &[
            Plot {
                suffix: "",
                measure: Measure::Latency,
                y_scale: Scale::Log(10.0),
                only: &[],
            },
            Plot {
                suffix: "-bw",
                measure: Measure::Bandwidth,
                y_scale: Scale::Linear,
                only: &[("epoch", "fence")],
            },
            Plot {
                suffix: "-speedup",
                measure: Measure::Speedup,
                y_scale: Scale::Linear,
                only: &[],
            },
        ],
    };

    #[test]
    fn synthetic_lines_become_tables_csv_samples_plots_and_a_report() {
        let mut pool = Pool::default();
        pool.add_serial(
            1,
            0,
            &[
                "BENCH put-latency size=1024 epoch=fence bytes=1024 cycles=533,1066".into(),
                "BENCH put-latency size=8 epoch=fence bytes=8 cycles=533".into(),
                "BENCH put-latency size=8 epoch=pscw bytes=8 cycles=1066".into(),
                "BENCH other x=1 cycles=5".into(),
            ],
        );
        pool.add_serial(
            1,
            1,
            &["BENCH put-latency epoch=fence size=1024 bytes=1024 cycles=1599".into()],
        );
        // A baseline without `epoch`, from a second run.
        pool.add_serial(
            2,
            0,
            &["BENCH put-latency size=8 variant=two-sided bytes=8 cycles=2132".into()],
        );
        let s = lines_section(&SYNTHETIC, &VIEW, &pool, 533.0);
        assert!(s.failures.is_empty(), "{:?}", s.failures);

        // The summary: sorted by the other keys (missing first), then size
        // numerically; a missing cell is empty in CSV, `-` in Markdown.
        let csv = s.csv.as_deref().unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines,
            [
                "size,epoch,variant,samples,cores,median (cycles),latency (us),Q1 (us),Q3 (us),bytes,bandwidth (MB/s)",
                "8,,two-sided,1,1,2132,4.000,4.000,4.000,8,2.00",
                "8,fence,,1,1,533,1.000,1.000,1.000,8,8.00",
                "1024,fence,,3,2,1066,2.000,1.500,2.500,1024,512.00",
                "8,pscw,,1,1,1066,2.000,2.000,2.000,8,4.00",
            ]
        );

        // Every sample, with its keys, bytes, run and core.
        let samples = samples::write(&s.name, &s.samples);
        assert_eq!(
            samples.lines().collect::<Vec<_>>(),
            [
                "experiment,size,epoch,variant,bytes,cycles,run,core",
                "put-latency,8,,two-sided,8,2132,2,0",
                "put-latency,8,fence,,8,533,1,0",
                "put-latency,1024,fence,,1024,533,1,0",
                "put-latency,1024,fence,,1024,1066,1,0",
                "put-latency,1024,fence,,1024,1599,1,1",
                "put-latency,8,pscw,,8,1066,1,0",
            ]
        );
        assert_eq!(s.samples_file(), "put-latency-samples.csv");

        let names: Vec<&str> = s.svgs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "put-latency.svg",
                "put-latency-bw.svg",
                "put-latency-speedup.svg"
            ]
        );
        assert!(s.svgs[0].1.contains(">epoch=fence<") && s.svgs[0].1.contains(">epoch=pscw<"));
        // The bandwidth plot takes only fence rows and the baseline without
        // an epoch: fence's series is named after the experiment.
        let bw = &s.svgs[1].1;
        assert!(bw.contains(">put-latency<") && bw.contains(">variant=two-sided<"));
        assert!(!bw.contains("pscw"));
        assert!(!s.svgs[0].1.contains(">ideal<"));
        assert!(s.svgs[2].1.contains(">ideal<"));

        let info = report::RunInfo {
            command: "cargo xtask bench put-latency".into(),
            quick: true,
            date: "2026-01-01 00:00:00 UTC".into(),
            host: "test host".into(),
            commit: "abc".into(),
            qemu: "10.0.0".into(),
        };
        let md = report::markdown(&info, std::slice::from_ref(&s), "");
        assert!(md.contains("## Put latency (`put-latency`)"), "{md}");
        assert!(md.contains("![put-latency.svg](put-latency.svg)"), "{md}");
        assert!(md.contains("| 8 | fence | - | 1 | 1 | 533 |"), "{md}");
        assert!(
            md.contains("`put-latency-samples.csv` (every sample)"),
            "{md}"
        );
        assert!(md.contains("Synthetic."));
    }

    /// One table of OSU output as a reader of it sees it: its `#` lines
    /// and its rows of numbers.
    #[derive(Debug, PartialEq)]
    struct OsuTable {
        comments: Vec<String>,
        rows: Vec<(u64, f64)>,
    }

    /// Reads OSU output: tables apart at blank lines, `#` lines, then rows
    /// of a whole number and a decimal one.
    fn parse_osu(text: &str) -> Vec<OsuTable> {
        text.split("\n\n")
            .map(|block| {
                let mut t = OsuTable {
                    comments: vec![],
                    rows: vec![],
                };
                for line in block.lines() {
                    if line.starts_with('#') {
                        assert!(t.rows.is_empty(), "a # line after the rows: {line}");
                        t.comments.push(line.to_owned());
                    } else {
                        let cells: Vec<&str> = line.split_whitespace().collect();
                        assert_eq!(cells.len(), 2, "{line}");
                        t.rows
                            .push((cells[0].parse().unwrap(), cells[1].parse().unwrap()));
                    }
                }
                t
            })
            .collect()
    }

    #[test]
    fn the_text_is_one_osu_table_per_setting() {
        let mut pool = Pool::default();
        pool.add_serial(
            1,
            0,
            &[
                "BENCH put-latency size=1024 epoch=fence type=mpbt-wt bytes=1024 cycles=1066".into(),
                "BENCH put-latency size=1 epoch=fence type=mpbt-wt bytes=1 cycles=533".into(),
                "BENCH put-latency size=1048576 epoch=fence type=mpbt-wt bytes=1048576 cycles=533000".into(),
                "BENCH put-latency size=1 variant=two-sided bytes=1 cycles=1599".into(),
            ],
        );
        let s = lines_section(&SYNTHETIC, &VIEW, &pool, 533.0);
        let text = s.text();
        let tables = parse_osu(&text);
        assert_eq!(tables.len(), 2, "{text}");
        let header = format!("{:<10}{:>20}", "# Size", "Latency (us)");
        // The baseline without an epoch sorts first.
        assert_eq!(tables[0].comments[1], "# variant: two-sided");
        assert_eq!(tables[0].comments[3], header);
        assert_eq!(tables[0].rows, [(1, 3.0)]);
        assert_eq!(
            tables[1],
            OsuTable {
                comments: vec![
                    "# OSU MPI-style Put latency Test (put-latency)".into(),
                    "# epoch: fence".into(),
                    "# type: mpbt-wt".into(),
                    "# median of the samples pooled over lines and cores; modelled SCC time at 533 MHz"
                        .into(),
                    header,
                ],
                rows: vec![(1, 1.0), (1024, 2.0), (1_048_576, 1000.0)],
            }
        );
        // As OSU prints its rows: `%-10d%20.2f`.
        assert!(
            text.contains(&format!("\n{:<10}{:>20.2}\n", 1024, 2.0)),
            "{text}"
        );

        // A non-size experiment: its own first column.
        const PROCS: View = View {
            x: "procs",
            table: Measure::Speedup,
            x_label: "processes",
            x_scale: Scale::Linear,
            plots: &[],
        };
        let mut pool = Pool::default();
        pool.add_serial(1, 0, &["BENCH put-latency procs=1 cycles=4264".into()]);
        pool.add_serial(2, 0, &["BENCH put-latency procs=4 cycles=1066".into()]);
        let s = lines_section(&SYNTHETIC, &PROCS, &pool, 533.0);
        let tables = parse_osu(&s.text());
        assert_eq!(tables.len(), 1);
        assert_eq!(
            tables[0].comments.last().unwrap(),
            &format!("{:<10}{:>20}", "# Procs", "Speedup")
        );
        assert_eq!(tables[0].rows, [(1, 1.0), (4, 4.0)]);
    }

    #[test]
    fn samples_pool_over_seeds_and_the_summary_shows_their_spread() {
        let mut pool = Pool::default();
        pool.seed_run(2, 1);
        pool.seed_run(3, 2);
        for (run, cycles) in [(1, "100,100"), (2, "110,110"), (3, "120,120")] {
            pool.add_serial(
                run,
                0,
                &[format!("BENCH put-latency size=1 cycles={cycles}")],
            );
        }
        let one_seed = |size| format!("BENCH put-latency size={size} cycles=50");
        pool.add_serial(1, 0, &[one_seed(2)]);
        let s = lines_section(&SYNTHETIC, &VIEW, &pool, 533.0);
        let summary = &s.modeled[0];
        let at = |name: &str| summary.header.iter().position(|h| h == name).unwrap();
        let (seeds, spread, median) = (at("seeds"), at("seed spread (%)"), at("median (cycles)"));
        // Pooled: the median of all six samples; spread 120 / 100 - 1.
        assert_eq!(summary.rows[0][median], "110");
        assert_eq!(summary.rows[0][seeds], "3");
        assert_eq!(summary.rows[0][spread], "20.00");
        // One seed: no spread.
        assert_eq!(summary.rows[1][seeds], "1");
        assert_eq!(summary.rows[1][spread], "");
        assert!(summary.notes.iter().any(|n| n.contains("seed spread")));
        // A single seed has no such columns.
        let mut pool = Pool::default();
        pool.add_serial(1, 0, &[one_seed(2)]);
        let s = lines_section(&SYNTHETIC, &VIEW, &pool, 533.0);
        assert!(!s.modeled[0].header.iter().any(|h| h.starts_with("seed")));
    }

    #[test]
    fn a_speedup_plot_has_the_ideal_line() {
        let mut pool = Pool::default();
        pool.add_serial(1, 0, &["BENCH put-latency procs=1 cycles=8528".into()]);
        pool.add_serial(2, 0, &["BENCH put-latency procs=2 cycles=5330".into()]);
        pool.add_serial(3, 0, &["BENCH put-latency procs=8 cycles=2132".into()]);
        let rows = pool.rows("put-latency");
        let plot = Plot {
            suffix: "",
            measure: Measure::Speedup,
            y_scale: Scale::Linear,
            only: &[],
        };
        let view = View { x: "procs", ..VIEW };
        let p = line_plot(&SYNTHETIC, &view, &plot, &rows, 533.0);
        let ideal = p.reference.expect("an ideal line");
        assert_eq!(ideal.name, "ideal");
        let line: Vec<(f64, f64)> = ideal.points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(line, [(1.0, 1.0), (2.0, 2.0), (8.0, 8.0)]);
        let measured: Vec<f64> = p.series[0].points.iter().map(|p| p.y).collect();
        assert_eq!(measured, [1.0, 1.6, 4.0]);
        let latency = Plot {
            measure: Measure::Latency,
            ..plot
        };
        assert!(
            line_plot(&SYNTHETIC, &view, &latency, &rows, 533.0)
                .reference
                .is_none()
        );
    }

    #[test]
    fn the_total_rate_counts_every_core_that_gave_samples() {
        const VIEW: View = View {
            x: "procs",
            table: Measure::TotalRate,
            x_label: "processes",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        };
        const GUPS: Experiment = Experiment {
            name: "random-access",
            title: "RandomAccess",
            about: "Synthetic.",
            kind: Kind::Lines {
                runs: &[],
                view: VIEW,
            },
        };
        let mut pool = Pool::default();
        // Two processes of 1066 updates each, in 1066 and 3198 cycles at
        // 533 MHz: the median is 2132 cycles, 4 µs, so 533 Mops/s for both.
        pool.add_serial(
            1,
            0,
            &["BENCH random-access procs=2 ops=1066 cycles=1066".into()],
        );
        pool.add_serial(
            1,
            1,
            &["BENCH random-access procs=2 ops=1066 cycles=3198".into()],
        );
        pool.add_serial(
            2,
            0,
            &["BENCH random-access procs=1 ops=1066 cycles=1066".into()],
        );
        let s = lines_section(&GUPS, &VIEW, &pool, 533.0);
        assert!(s.failures.is_empty(), "{:?}", s.failures);
        let csv = s.csv.as_deref().unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[0].ends_with(",ops,rate (Mops/s),total rate (Mops/s)"),
            "{csv}"
        );
        assert!(lines[1].ends_with(",1066,533.00,533.00"), "{csv}");
        assert!(lines[2].ends_with(",1066,266.50,533.00"), "{csv}");
        assert!(s.svgs[0].1.contains("total rate (Mops/s of all processes"));
    }

    #[test]
    fn speedup_and_normalised_time_divide_by_the_smallest_x() {
        let row = |k: &str, cycles: u64| Row {
            experiment: "overlap".into(),
            keys: vec![("origins".into(), k.into())],
            extras: vec![],
            samples: vec![protocol::Sample {
                cycles,
                run: 1,
                core: 0,
                seed: chip::DEFAULT_SEED,
            }],
            cores: vec![0],
        };
        let rows = [row("0", 1066), row("8", 4264)];
        let rows: Vec<&Row> = rows.iter().collect();
        let ys = |measure| {
            let plot = Plot {
                suffix: "",
                measure,
                y_scale: Scale::Linear,
                only: &[],
            };
            let view = View {
                x: "origins",
                ..VIEW
            };
            line_plot(&SYNTHETIC, &view, &plot, &rows, 533.0).series[0]
                .points
                .iter()
                .map(|p| p.y)
                .collect::<Vec<f64>>()
        };
        assert_eq!(ys(Measure::Latency), [2.0, 8.0]);
        assert_eq!(ys(Measure::Speedup), [1.0, 0.25]);
        assert_eq!(ys(Measure::Normalised), [1.0, 4.0]);
    }

    #[test]
    fn failures_are_kept_and_no_lines_is_one() {
        let mut pool = Pool::default();
        pool.add_serial(1, 4, &["BENCH put-latency size=1 cycles=".into()]);
        let s = lines_section(&SYNTHETIC, &VIEW, &pool, 533.0);
        assert_eq!(s.failures.len(), 2);
        assert!(s.failures[0].starts_with("core 4, serial line 1: "));
        assert_eq!(s.failures[1], "no `BENCH put-latency` result line");
    }

    #[test]
    fn sets_are_found_by_name() {
        let names = |v: &[&str]| {
            select(&v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
                .map(|e| e.iter().map(|e| e.name).collect::<Vec<_>>())
        };
        assert_eq!(names(&[]).unwrap(), known());
        assert_eq!(names(&["all"]).unwrap(), known());
        assert_eq!(
            names(&["quantum", "overhead", "quantum"]).unwrap(),
            ["quantum", "overhead"]
        );
        let message = names(&["speed"]).unwrap_err().to_string();
        assert!(
            message.starts_with("unknown benchmark set `speed`; the sets are: all, "),
            "{message}"
        );
        assert!(message.contains("emulator-speed") && message.contains("mesh-heatmap"));
    }

    #[test]
    fn the_registry_has_unique_names_and_core_counts_that_fit() {
        let mut seen = Vec::new();
        for e in REGISTRY {
            assert!(!seen.contains(&e.name), "{} twice", e.name);
            seen.push(e.name);
            if let Kind::Lines { runs, .. } = &e.kind {
                for run in *runs {
                    for &c in run.cores.iter().chain(run.quick_cores) {
                        crate::check_cores(chip::DEFAULT_CHIP, c).unwrap();
                    }
                }
            }
        }
    }
    #[test]
    fn the_report_links_to_its_files_relatively() {
        let at = |dir: &str, report: Option<&str>| {
            let dir = PathBuf::from(dir);
            let report = report.map_or_else(|| dir.join("report.md"), PathBuf::from);
            Output { dir, report }.link_prefix()
        };
        assert_eq!(at("target/bench", None).unwrap(), "");
        assert_eq!(
            at("docs/results", Some("docs/results.md")).unwrap(),
            "results/"
        );
        assert_eq!(at("/a/b/c", Some("/a/r.md")).unwrap(), "b/c/");
        // Link targets cannot hold spaces, parentheses, ...
        assert_eq!(
            at("/a/my results (1)/é#2", Some("/a/r.md")).unwrap(),
            "my%20results%20%281%29/%C3%A9%232/"
        );
        let e = at("target/bench", Some("docs/results.md")).unwrap_err();
        assert!(e.to_string().contains("is not in or below"), "{e}");
    }

    #[test]
    fn outputs_that_cannot_be_written_are_refused_up_front() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, file) = (tmp.path().join("a dir"), tmp.path().join("a file"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(&file, "").unwrap();
        let new = |out: &Path, report: Option<&Path>| {
            Output::new(Some(out.to_owned()), report.map(Path::to_owned)).map_err(|e| e.to_string())
        };
        let e = new(tmp.path(), Some(&dir)).unwrap_err();
        assert_eq!(
            e,
            format!(
                "the report {0} is a directory: --report takes a file name, such as {0}/report.md",
                dir.display()
            )
        );
        let e = new(&file, None).unwrap_err();
        assert_eq!(
            e,
            format!(
                "the output directory {} (--out) exists and is not a directory",
                file.display()
            )
        );
        let e = new(&file.join("sub"), None).unwrap_err();
        assert_eq!(
            e,
            format!(
                "the output directory {} (--out) cannot be created: {} is not a directory",
                file.join("sub").display(),
                file.display()
            )
        );
        let e = new(&dir, Some(&file.join("r.md"))).unwrap_err();
        assert_eq!(
            e,
            format!(
                "the report {} cannot be written: {} is not a directory",
                file.join("r.md").display(),
                file.display()
            )
        );

        // Directories that do not exist yet are fine, and are not created here.
        let fresh = dir.join("new dir").join("deeper");
        let output = new(&fresh, Some(&dir.join("report.md"))).unwrap();
        assert_eq!(output.dir, fresh);
        assert!(!dir.join("new dir").exists());
        // An existing report file is overwritten later.
        let existing = dir.join("old.md");
        std::fs::write(&existing, "old").unwrap();
        new(&dir, Some(&existing)).unwrap();
    }
}
