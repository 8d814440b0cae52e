// SPDX-License-Identifier: MIT OR Apache-2.0
//! How a run ended and what every core did: [`RunReport`] and its text.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use chip::Mode;
use emu::report::{self, CoreReport as ModelReport};

use super::CoreExit;
use super::diagnose::Stall;
use super::symbols::{CodeMap, code_addresses};

/// Serial lines of a failed core shown in its report.
const LAST_LINES: usize = 12;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every core exited successfully.
    Success,
    /// A core ended the run of every core successfully
    /// (`shmem_global_exit(0)`); the others were stopped where they were.
    Ended {
        /// The core.
        core: u32,
    },
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
    /// These cores, every one not finished, waited in modelled time for a
    /// store that only a running core could make, and none ran: a
    /// deadlock, ended as soon as it was seen.
    Deadlock {
        /// The cores that waited.
        cores: Vec<u32>,
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

impl Outcome {
    /// Whether the run succeeded: [`Outcome::Success`] or
    /// [`Outcome::Ended`].
    pub fn succeeded(&self) -> bool {
        matches!(self, Self::Success | Self::Ended { .. })
    }
}

/// The host's load average over the last minute (`/proc/loadavg`) when a
/// run started and when it ended: what its host time must be read with.
/// `None` where the host does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostLoad {
    /// At the start.
    pub start: Option<f64>,
    /// At the end.
    pub end: Option<f64>,
}

impl HostLoad {
    /// The host's load average over the last minute, if it says.
    pub fn now() -> Option<f64> {
        let text = std::fs::read_to_string("/proc/loadavg").ok()?;
        text.split_whitespace().next()?.parse().ok()
    }

    /// The load of something that started at load `start` ([`HostLoad::now`])
    /// and ends now.
    pub fn ending_now(start: Option<f64>) -> Self {
        Self {
            start,
            end: Self::now(),
        }
    }
}

impl fmt::Display for HostLoad {
    /// `load average 5.20 at the start, 7.10 at the end`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show =
            |load: Option<f64>| load.map_or_else(|| "unknown".to_owned(), |l| format!("{l:.2}"));
        write!(
            f,
            "load average {} at the start, {} at the end",
            show(self.start),
            show(self.end)
        )
    }
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
    /// The chip emulated.
    pub chip: &'static chip::Chip,
    /// How it ended.
    pub outcome: Outcome,
    /// One report per core, in core order.
    pub cores: Vec<CoreReport>,
    /// Host wall time from creating the chip memory until the outcome was
    /// known: for a successful run, the last core's exit.
    pub elapsed: Duration,
    /// The host's load when the run started and ended.
    pub load: HostLoad,
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
    /// Outputs asked for (`--trace`, `--stats-json`) that could not be
    /// written, each naming the file and why: they fail the run
    /// ([`RunReport::exit_code`]).
    pub output_errors: Vec<String>,
    /// After a timeout with modelled time: the core(s) that held the
    /// others back.
    pub stall: Option<Stall>,
    /// What the host says of a failure (memory or room that ran out),
    /// printed after it.
    pub notes: Vec<String>,
    /// Where the code addresses this report prints lie in the image: the
    /// instructions of stale reads, the EIP of exceptions and of stalled
    /// cores, the instructions the chip model names when it stops a core.
    pub code: CodeMap,
}

impl RunReport {
    /// Whether the run succeeded: every core exited successfully, or one
    /// ended the run of all successfully.
    pub fn success(&self) -> bool {
        self.outcome.succeeded()
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
        let mut text = report::stats_table_for(self.chip, &reports).to_string();
        text += &self.missing_line();
        text += &self.guest_stats();
        text
    }

    /// The statistics layers in the guest reported themselves (`STATS`
    /// lines, [`chip::stats`]): one table per name, a row per core and
    /// row name, a column per key (empty where a row has no such key); a
    /// line that does not read as one is named. Empty if no core wrote
    /// one.
    pub fn guest_stats(&self) -> String {
        let mut tables: Vec<(&str, Vec<(u32, chip::stats::Row<'_>)>)> = Vec::new();
        let mut bad = Vec::new();
        for c in &self.cores {
            for line in &c.serial {
                match chip::stats::Row::parse(line) {
                    None => {}
                    Some(Err(word)) => bad.push(format!(
                        "core {}: a statistics line with `{word}` in it: {line}",
                        c.core
                    )),
                    Some(Ok(row)) => match tables.iter_mut().find(|(t, _)| *t == row.table) {
                        Some((_, rows)) => rows.push((c.core, row)),
                        None => tables.push((row.table, vec![(c.core, row)])),
                    },
                }
            }
        }
        let mut text = String::new();
        for (table, rows) in tables {
            let mut keys: Vec<&str> = Vec::new();
            for (_, row) in &rows {
                for (k, _) in &row.values {
                    if !keys.contains(k) {
                        keys.push(k);
                    }
                }
            }
            let mut cells: Vec<Vec<String>> = vec![
                ["core", table]
                    .into_iter()
                    .chain(keys.iter().copied())
                    .map(str::to_owned)
                    .collect(),
            ];
            for (core, row) in &rows {
                let mut line = vec![core.to_string(), row.row.to_owned()];
                line.extend(keys.iter().map(|k| {
                    row.values
                        .iter()
                        .find(|(key, _)| key == k)
                        .map_or(String::new(), |(_, v)| v.to_string())
                }));
                cells.push(line);
            }
            let widths: Vec<usize> = (0..cells[0].len())
                .map(|i| cells.iter().map(|r| r[i].len()).max().unwrap_or(0))
                .collect();
            text += &format!("\nstatistics the guest's `{table}` layer kept, per core:\n");
            for r in &cells {
                let line: Vec<String> = r
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(i, (cell, w))| {
                        if i == 1 {
                            format!("{cell:<w$}")
                        } else {
                            format!("{cell:>w$}")
                        }
                    })
                    .collect();
                text += line.join("  ").trim_end();
                text.push('\n');
            }
        }
        for b in bad {
            text += &format!("warning: {b}\n");
        }
        text
    }

    /// What the coherence checker found ([`report::coherence_summary`]),
    /// with where each stale read's instruction lies in the image, and a
    /// line naming the cores that did not report.
    pub fn coherence_summary(&self) -> String {
        let reports: Vec<ModelReport> = self.reports.iter().flatten().cloned().collect();
        let code = |insn: u32| self.code.lines(u64::from(insn));
        let mut text = report::coherence_summary_with(&reports, &code).to_string();
        text += &self.missing_line();
        text
    }

    /// Warnings of the chip model that do not fail a run: each distinct
    /// store to a read-only register, with its core, once
    /// ([`emu::report::ReadOnlyWrite::warning`]), and the stores not kept.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for r in self.reports.iter().flatten() {
            warnings.extend(r.read_only.iter().map(|w| w.warning(r.core)));
            let kept: u64 = r.read_only.iter().map(|w| w.count).sum();
            if r.read_only_writes > kept {
                warnings.push(format!(
                    "warning: core {} wrote read-only registers {} more times, elsewhere",
                    r.core,
                    r.read_only_writes - kept
                ));
            }
        }
        warnings
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

    /// The process exit status this outcome stands for: 0 for success
    /// with every output asked for written, 130 (as after SIGINT) when
    /// interrupted, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self.outcome {
            _ if self.outcome.succeeded() && self.output_errors.is_empty() => 0,
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
        for warning in self.warnings() {
            writeln!(f, "{warning}")?;
            write_places(f, &self.code, "  ", &warning)?;
        }
        match &self.outcome {
            Outcome::Success => write!(
                f,
                "all {cores} cores exited successfully in {seconds:.2} s (host time, build excluded; host {})",
                self.load
            ),
            Outcome::Ended { core } => write!(
                f,
                "core {core} ended the run of all {cores} cores successfully after {seconds:.2} s \
                 (host time, build excluded; host {}); the others were stopped where they were",
                self.load
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
                    write_places(f, &self.code, SERIAL_INDENT, line)?;
                }
                if !report.stderr.is_empty() {
                    writeln!(f, "QEMU's messages for core {core}:")?;
                    for line in &report.stderr {
                        writeln!(f, "  {line}")?;
                        write_places(f, &self.code, "    ", line)?;
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
                self.write_last_lines(f, unfinished)?;
                if let Some(stall) = &self.stall {
                    writeln!(f, "{}", stall.with_code(&self.code))?;
                }
                write!(f, "all cores were stopped")
            }
            Outcome::Deadlock { cores: waiting } => {
                let list: Vec<String> = waiting.iter().map(u32::to_string).collect();
                writeln!(
                    f,
                    "deadlock after {seconds:.2} s: {} of {cores} cores had not finished, and \
                     each of them waits in modelled time for a store that no core can make: {}",
                    waiting.len(),
                    list.join(", ")
                )?;
                self.write_last_lines(f, waiting)?;
                if let Some(stall) = &self.stall {
                    for w in &stall.waits {
                        writeln!(f, "{}", w.with_code(&self.code))?;
                    }
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

impl RunReport {
    /// Each of `cores`' last serial line, with the places of the code
    /// addresses in it.
    fn write_last_lines(&self, f: &mut fmt::Formatter<'_>, cores: &[u32]) -> fmt::Result {
        for &core in cores {
            let last = self.cores[core as usize].serial.last();
            let last = last.map_or("(no output)", String::as_str);
            writeln!(f, "  [core {core:02}] last line: {last}")?;
            write_places(f, &self.code, SERIAL_INDENT, last)?;
        }
        Ok(())
    }
}

/// Indent of the lines under a serial line `  [core NN] ...`: under its text.
const SERIAL_INDENT: &str = "            ";

/// Writes, under a printed `line` of guest or QEMU output, where each code
/// address in it lies ([`code_addresses`]), indented by `indent`: the
/// address, then the lines of its place. An address the image does not
/// know gets nothing: the line shows it raw.
fn write_places(
    f: &mut fmt::Formatter<'_>,
    code: &CodeMap,
    indent: &str,
    line: &str,
) -> fmt::Result {
    for address in code_addresses(line) {
        for (i, text) in code.lines(address).iter().enumerate() {
            if i == 0 {
                writeln!(f, "{indent}{address:#010x} {text}")?;
            } else {
                writeln!(f, "{indent}{text}")?;
            }
        }
    }
    Ok(())
}

/// Every code address the report of a run prints: the instructions of the
/// kept stale reads and stores to read-only registers, the EIP of the
/// cores holding a stalled run back, and the addresses in the cores'
/// output ([`code_addresses`]), each once.
pub(super) fn printed_code_addresses(
    cores: &[CoreReport],
    reports: &[Option<ModelReport>],
    stall: Option<&Stall>,
) -> Vec<u64> {
    let stale = reports.iter().flatten().flat_map(|r| &r.stale);
    let output = cores.iter().flat_map(|c| c.serial.iter().chain(&c.stderr));
    let read_only = reports.iter().flatten().flat_map(|r| &r.read_only);
    let mut addresses: Vec<u64> = stale
        .map(|s| u64::from(s.insn))
        .chain(read_only.map(|w| u64::from(w.insn)))
        .chain(
            stall
                .iter()
                .flat_map(|s| &s.holding)
                .map(|h| u64::from(h.pc)),
        )
        .chain(
            stall
                .iter()
                .flat_map(|s| &s.waits)
                .flat_map(|w| std::iter::once(w.pc).chain(w.calls.iter().copied()))
                .map(u64::from),
        )
        .chain(output.flat_map(|line| code_addresses(line)))
        .collect();
    addresses.sort_unstable();
    addresses.dedup();
    addresses
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
    use emu::report::StaleRead;

    use super::super::Holder;
    use super::super::symbols::{Frame, Place};
    use super::*;

    /// The chip model with its coherence checker.
    const CHECKED: Mode = Mode::Modelled(Model {
        check: true,
        ..Model::DEFAULT
    });

    fn report(outcome: Outcome, serial: &[&[&str]]) -> RunReport {
        RunReport {
            chip: &chip::SCC,
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
            load: HostLoad {
                start: Some(1.5),
                end: None,
            },
            chip_memory: PathBuf::from("/dev/shm/x/chip.mem"),
            mode: Mode::Plain,
            reports: vec![None; serial.len()],
            report_errors: Vec::new(),
            output_errors: Vec::new(),
            stall: None,
            notes: Vec::new(),
            code: CodeMap::default(),
        }
    }

    #[test]
    fn reports_name_the_core_and_the_reason() {
        let ok = report(Outcome::Success, &[&[], &[]]);
        assert_eq!(
            ok.to_string(),
            "all 2 cores exited successfully in 4.31 s (host time, build excluded; \
             host load average 1.50 at the start, unknown at the end)"
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

    #[test]
    fn stores_to_read_only_registers_are_warnings_before_the_outcome() {
        let mut run = report(Outcome::Success, &[&[], &[]]);
        let mut model = ModelReport::new(1, true);
        model.read_only = vec![emu::report::ReadOnlyWrite {
            register: "MYTILEID of its own CRB".into(),
            insn: 0x0010_2345,
            count: 2,
        }];
        model.read_only_writes = 5;
        run.reports = vec![Some(ModelReport::new(0, true)), Some(model)];
        let text = run.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..2],
            [
                "warning: core 1 wrote read-only register MYTILEID of its own CRB 2 times, at \
                 instruction 0x00102345: the chip ignores such stores, and so did the emulator",
                "warning: core 1 wrote read-only registers 3 more times, elsewhere",
            ],
            "{text}"
        );
        assert!(
            lines[2].starts_with("all 2 cores exited successfully"),
            "{text}"
        );
        assert_eq!(run.exit_code(), 0);
        assert_eq!(
            printed_code_addresses(&run.cores, &run.reports, None),
            [0x0010_2345]
        );
    }

    /// A place of one function without inlining, or of `read_u32`
    /// inlined into `run`.
    fn place(inlined: bool) -> Place {
        let frame = |function: &str, file: &str, line| Frame {
            function: Some(function.to_owned()),
            file: Some(file.to_owned()),
            line: Some(line),
        };
        let mut frames = vec![frame(
            "programs::page_fault::run",
            "apps/programs/src/page_fault.rs",
            17,
        )];
        if inlined {
            frames.insert(
                0,
                frame(
                    "kernel::SharedBytes::read_u32",
                    "kernel/src/platform/scc.rs",
                    69,
                ),
            );
        }
        Place { frames }
    }

    #[test]
    fn code_addresses_in_a_failure_are_followed_by_where_they_lie() {
        let mut failed = report(
            Outcome::CoreFailed {
                core: 1,
                exit: CoreExit::GuestFailure,
            },
            &[
                &[],
                &[
                    "EXCEPTION on core 1: page fault (vector 14), error code 0x0, EIP 0x13fa01, CR2 0xbf000000",
                    "  eax 0x00000000",
                    "EXCEPTION on core 1: page fault (vector 14), error code 0x0, EIP 0x99, CR2 0x0",
                ],
            ],
        );
        failed.cores[1].stderr =
            vec!["emu: core 1: Load at 0x96000000 (instruction 0x00102345): LUT entry 150".into()];
        failed.code = [(0x13fa01, place(false)), (0x102345, place(true))]
            .into_iter()
            .collect();
        let text = failed.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1..8],
            [
                "last serial lines of core 1:",
                "  [core 01] EXCEPTION on core 1: page fault (vector 14), error code 0x0, EIP 0x13fa01, CR2 0xbf000000",
                "            0x0013fa01 at programs::page_fault::run (apps/programs/src/page_fault.rs:17)",
                "  [core 01]   eax 0x00000000",
                // Unknown to the image: raw, as the guest printed it.
                "  [core 01] EXCEPTION on core 1: page fault (vector 14), error code 0x0, EIP 0x99, CR2 0x0",
                "QEMU's messages for core 1:",
                "  emu: core 1: Load at 0x96000000 (instruction 0x00102345): LUT entry 150",
            ],
            "{text}"
        );
        assert_eq!(
            lines[8..10],
            [
                "    0x00102345 at kernel::SharedBytes::read_u32 (kernel/src/platform/scc.rs:69)",
                "      inlined into programs::page_fault::run (apps/programs/src/page_fault.rs:17)",
            ],
            "{text}"
        );
    }

    #[test]
    fn an_output_that_could_not_be_written_fails_a_successful_run() {
        let mut run = report(Outcome::Success, &[&[]]);
        assert_eq!(run.exit_code(), 0);
        run.output_errors = vec!["--stats-json /x/s.json: cannot write it".into()];
        assert_eq!(run.exit_code(), 1);
    }

    #[test]
    fn a_timeout_shows_where_the_holding_core_was() {
        let mut timed_out = report(
            Outcome::TimedOut {
                unfinished: vec![0, 1],
            },
            &[&[], &["looping"]],
        );
        timed_out.stall = Some(Stall {
            holding: vec![Holder {
                core: 1,
                clock: 100,
                still_for: Duration::from_secs(3),
                pc: 0x13fa01,
            }],
            waiting: vec![0],
            waits: Vec::new(),
        });
        timed_out.code = [(0x13fa01, place(false))].into_iter().collect();
        let text = timed_out.to_string();
        assert!(
            text.contains(
                "at EIP 0x0013fa01 at its last sync point\n  at programs::page_fault::run (apps/programs/src/page_fault.rs:17)\ncore(s) 0 wait for it"
            ),
            "{text}"
        );
    }

    #[test]
    fn every_printed_code_address_is_looked_up_once() {
        let mut run = report(Outcome::Success, &[&["EIP 0x30 and EIP 0x10"], &[]]);
        run.cores[1].stderr = vec!["(instruction 0x20)".into()];
        let mut model = ModelReport::new(1, true);
        let stale = StaleRead {
            reader: 1,
            paddr: 0xC000_0040,
            target: "MPB of tile 0 + 0x40".into(),
            insn: 0x20,
            len: 4,
            read: 0,
            memory: 7,
            writer: Some(0),
        };
        model.stale = vec![
            stale.clone(),
            StaleRead {
                insn: 0x40,
                ..stale
            },
        ];
        model.stale_reads = 2;
        let stall = Stall {
            holding: vec![Holder {
                core: 0,
                clock: 1,
                still_for: Duration::ZERO,
                pc: 0x50,
            }],
            waiting: vec![1],
            waits: Vec::new(),
        };
        assert_eq!(
            printed_code_addresses(&run.cores, &[None, Some(model)], Some(&stall)),
            [0x10, 0x20, 0x30, 0x40, 0x50]
        );
        assert_eq!(printed_code_addresses(&run.cores[1..], &[], None), [0x20]);
    }

    #[test]
    fn the_coherence_summary_shows_where_each_stale_read_was() {
        let mut model = ModelReport::new(1, true);
        let stale = StaleRead {
            reader: 1,
            paddr: 0xC000_0040,
            target: "MPB of tile 0 + 0x40".into(),
            insn: 0x0010_2345,
            len: 4,
            read: 0,
            memory: 7,
            writer: Some(0),
        };
        model.stale = vec![stale; 3];
        model.stale_reads = 3;
        let mut run = report(Outcome::Success, &[&[], &[]]);
        run.mode = CHECKED;
        run.reports = vec![Some(ModelReport::new(0, true)), Some(model)];
        run.code = [(0x0010_2345, place(true))].into_iter().collect();
        assert_eq!(
            run.coherence_summary(),
            "coherence checker: 3 stale reads (core 1: 3)\n\
             core 1 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 0 (3 times)\n\
             \x20 at kernel::SharedBytes::read_u32 (kernel/src/platform/scc.rs:69)\n\
             \x20   inlined into programs::page_fault::run (apps/programs/src/page_fault.rs:17)\n"
        );
    }

    #[test]
    fn the_guests_statistics_lines_become_one_table_per_name() {
        let run = report(
            Outcome::Success,
            &[
                &[
                    "hello",
                    "STATS dsm sync_read calls=3 cycles=120",
                    "STATS dsm consistency invalidations=2",
                ],
                &[
                    "STATS dsm sync_read calls=5 cycles=2000",
                    "STATS dsm x calls=y",
                ],
            ],
        );
        assert_eq!(
            run.guest_stats(),
            "\nstatistics the guest's `dsm` layer kept, per core:\n\
             core  dsm          calls  cycles  invalidations\n\
             \x20  0  sync_read        3     120\n\
             \x20  0  consistency                             2\n\
             \x20  1  sync_read        5    2000\n\
             warning: core 1: a statistics line with `calls=y` in it: STATS dsm x calls=y\n"
        );
        assert_eq!(report(Outcome::Success, &[&["no stats"]]).guest_stats(), "");
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
            errors[0].contains("core-02.report, line 1: expected value"),
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
