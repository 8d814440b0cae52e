// SPDX-License-Identifier: MIT OR Apache-2.0
//! Booting a chip: one QEMU per core, watched until all succeed or one
//! does not.
//!
//! A run creates the chip memory in a private directory, starts one QEMU
//! per core, prints every serial line as it arrives, and ends as soon as
//! the outcome is known: every core exited successfully, or one core
//! failed, or the time ran out, or the user interrupted. Whatever the
//! outcome, every instance is killed and waited for, and the directory is
//! removed, before [`boot`] returns: both are owned by guards whose `Drop`
//! does the cleanup, so an error or a panic half-way cleans up too.
//!
//! With the chip model (the plugin), each core that reaches its exit leaves
//! a report in the directory ([`emu::report`]); they are read after the
//! instances are gone and before the directory is.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chip::CoreId;
use emu::chipmem::ChipMemory;
use emu::launch::{self, GUEST_FAILURE, GUEST_SUCCESS, Launch, Mode};
use emu::report::{self, CoreReport as ModelReport};
use tempfile::TempDir;

use crate::build::Artifacts;
use crate::programs::{DEFAULT_PROGRAM, check_cores, check_param, find_program};
use crate::qemu::Qemu;
use crate::{CHIP, build, qemu};

/// How often the watcher looks at exit statuses, the clock and the
/// interrupt flag when no output arrives.
const POLL: Duration = Duration::from_millis(20);

/// Longest wait, after the instances are stopped, for their last output.
const DRAIN: Duration = Duration::from_secs(2);

/// Longest wait for stopped instances to exit on SIGTERM before they are
/// killed.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Serial lines of a failed core shown in its report.
const LAST_LINES: usize = 12;

/// Whether a run with no flag asking for or against the chip model loads
/// it: it does, since the model is what makes the emulator an SCC; `plain`
/// turns it off (coherent shared memory at plain QEMU's speed).
const MODELED_BY_DEFAULT: bool = true;

/// What to run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Cores to boot: cores `0..cores` of the chip.
    pub cores: u32,
    /// The program every core runs.
    pub program: String,
    /// Its settings, `(name, value)`: those not given keep the catalog's
    /// defaults.
    pub params: Vec<(String, String)>,
    /// Longest the run may take, build excluded.
    pub timeout: Duration,
    /// Print every serial line as `[core NN] <line>` while the run goes on.
    pub echo: bool,
    /// When set (by a signal handler, say), the run stops as interrupted.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Turn on the chip model's coherence checker: every core counts the
    /// reads that return data other than memory holds, and reports them.
    pub check_coherence: bool,
    /// Run the chip model so that every core reports its statistics
    /// ([`RunReport::stats_table`]).
    pub stats: bool,
    /// Run without the chip model (no plugin), on coherent shared memory:
    /// plain QEMU, the baseline of overhead measurements. Excludes the two
    /// flags above.
    pub plain: bool,
    /// With the chip model: modelled SCC time, each core kept within this
    /// many core cycles of the slowest running core (`emu::timing`); `None`
    /// turns timing off (no clocks, the global timestamp reads 0).
    pub quantum: Option<u64>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            cores: CHIP.cores(),
            program: DEFAULT_PROGRAM.to_owned(),
            params: Vec::new(),
            timeout: Duration::from_secs(60),
            echo: true,
            interrupt: None,
            check_coherence: false,
            stats: false,
            plain: false,
            quantum: Some(emu::timing::DEFAULT_QUANTUM),
        }
    }
}

impl RunConfig {
    /// `program` on `cores` cores, with the default timeout and no echo.
    pub fn new(cores: u32, program: &str) -> Self {
        Self {
            cores,
            program: program.to_owned(),
            echo: false,
            ..Self::default()
        }
    }

    /// Checks the core count, the program name, and that the flags agree.
    pub fn check(&self) -> Result<()> {
        check_cores(self.cores)?;
        let program = find_program(&self.program)?;
        for (name, value) in &self.params {
            check_param(program, name, value)?;
        }
        if self.plain && (self.check_coherence || self.stats) {
            bail!(
                "a plain run has no chip model, so it has no coherence checker and no statistics: \
                 --plain cannot be combined with --check-coherence or --stats"
            );
        }
        Ok(())
    }

    /// With or without the chip model, and whether its checker is on.
    pub fn mode(&self) -> Mode {
        let modeled = !self.plain && (self.check_coherence || self.stats || MODELED_BY_DEFAULT);
        if modeled {
            Mode::Modeled {
                check: self.check_coherence,
            }
        } else {
            Mode::Plain
        }
    }

    fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::SeqCst))
    }
}

/// How one core's QEMU ended, from its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreExit {
    /// The guest reported success through the exit port.
    Success,
    /// The guest reported failure through the exit port.
    GuestFailure,
    /// The guest reset the machine without reporting (a triple fault, for
    /// one); `-no-reboot` turns the reset into QEMU exiting with 0.
    Reset,
    /// QEMU died from a signal.
    Crashed {
        /// The signal number.
        signal: i32,
    },
    /// The chip model stopped the core: the guest did something the chip
    /// would not let it do unnoticed (the plugin's reason is on stderr).
    StoppedByModel,
    /// QEMU itself failed, e.g. a bad option or the plugin refusing to load.
    QemuError {
        /// Its exit status.
        status: i32,
    },
}

impl CoreExit {
    /// The one place that says what a QEMU exit status means.
    pub fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) if code == launch::exit_status(GUEST_SUCCESS) => Self::Success,
            (Some(code), _) if code == launch::exit_status(GUEST_FAILURE) => Self::GuestFailure,
            (Some(0), _) => Self::Reset,
            (Some(launch::MODEL_STOP_STATUS), _) => Self::StoppedByModel,
            (Some(status), _) => Self::QemuError { status },
            (None, Some(signal)) => Self::Crashed { signal },
            (None, None) => unreachable!("a Unix exit status has a code or a signal"),
        }
    }
}

impl fmt::Display for CoreExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Success => f.write_str("exited successfully"),
            Self::GuestFailure => f.write_str("the guest reported failure"),
            Self::Reset => f.write_str(
                "the guest reset the machine without reporting a result (a triple fault?)",
            ),
            Self::Crashed { signal } => {
                write!(f, "QEMU crashed: killed by {}", signal_name(signal))
            }
            Self::StoppedByModel => f.write_str("the chip model stopped it (its reason is below)"),
            Self::QemuError { status } => write!(f, "QEMU failed with exit status {status}"),
        }
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => return format!("signal {signal}"),
    };
    format!("{name} (signal {signal})")
}

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
    /// Where the chip memory was (removed by now).
    pub chip_memory: PathBuf,
    /// With or without the chip model.
    pub mode: Mode,
    /// The chip model's report of each core, in core order: `None` for a
    /// core that wrote none (a plain run, or a core stopped before its exit).
    pub reports: Vec<Option<ModelReport>>,
    /// Report files that could not be read, each naming the file and what
    /// is wrong with it (the run's outcome does not change).
    pub report_errors: Vec<String>,
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
        (0u32..)
            .zip(&self.reports)
            .filter(|(_, r)| r.is_none())
            .map(|(core, _)| core)
            .collect()
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
                write!(f, "all cores were stopped")
            }
            Outcome::Interrupted => write!(
                f,
                "interrupted after {seconds:.2} s: all cores were stopped"
            ),
        }
    }
}

/// Checks `config`, builds, finds QEMU, and boots the chip.
pub fn run(config: &RunConfig) -> Result<RunReport> {
    config.check()?;
    let artifacts = build::build(!config.echo)?;
    let qemu = qemu::ensure()?;
    boot(config, &artifacts, &qemu)
}

/// Boots `config.cores` cores from already built `artifacts`.
pub fn boot(config: &RunConfig, artifacts: &Artifacts, qemu: &Qemu) -> Result<RunReport> {
    config.check()?;
    let start = Instant::now();
    let orphans = remove_orphaned_dirs();
    if config.echo && orphans > 0 {
        println!("removed the chip memory left by {orphans} killed run(s)");
    }
    // Declared before the instances so that it is dropped (removed) after
    // they are killed.
    let dir = private_dir()?;
    let memory = ChipMemory::create(dir.path(), &CHIP, config.cores)?;
    let mode = config.mode();
    let launch = Launch {
        chip: &CHIP,
        cores: config.cores,
        program: &config.program,
        params: &config.params,
        kernel: &artifacts.kernel,
        plugin: &artifacts.plugin,
        bios: &qemu.bios,
        mem: memory.path(),
        memory_mib: launch::DEFAULT_MEMORY_MIB,
        mode,
        quantum: config.quantum,
    };
    if config.echo {
        let model = match mode {
            Mode::Plain => "without the chip model",
            Mode::Modeled { check: false } => "with the chip model",
            Mode::Modeled { check: true } => "with the chip model and its coherence checker",
        };
        println!(
            "booting {} cores {model}, program {}, chip memory {}",
            config.cores,
            config.program,
            memory.path().display()
        );
    }

    let (events, inbox) = mpsc::channel();
    let mut fleet = Fleet::default();
    fleet.start = Some(start);
    for core in CHIP.all_cores().take(config.cores as usize) {
        fleet.spawn(qemu, &launch, core, &events)?;
    }
    drop(events);
    let outcome = fleet.watch(&inbox, config, start + config.timeout);
    let elapsed = start.elapsed();
    fleet.stop();
    fleet.drain(&inbox, config.echo);
    // Every instance is gone, so every report that will come is complete;
    // the directory is still there.
    let (reports, report_errors) = read_reports(dir.path(), config.cores, mode);
    Ok(RunReport {
        outcome,
        cores: fleet.reports(),
        elapsed,
        chip_memory: memory.path().to_owned(),
        mode,
        reports,
        report_errors,
    })
}

/// The chip model's report of each of `cores` cores from the run directory
/// `dir`, and the errors of those that could not be read. A plain run has
/// none.
fn read_reports(
    dir: &std::path::Path,
    cores: u32,
    mode: Mode,
) -> (Vec<Option<ModelReport>>, Vec<String>) {
    let mut errors = Vec::new();
    let reports = (0..cores)
        .map(|core| match mode {
            Mode::Plain => None,
            Mode::Modeled { .. } => ModelReport::read(dir, core).unwrap_or_else(|e| {
                errors.push(e.to_string());
                None
            }),
        })
        .collect();
    (reports, errors)
}

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
fn private_dir() -> Result<TempDir> {
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
fn remove_orphaned_dirs() -> usize {
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

/// Which output of a QEMU a line came from.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Serial,
    Stderr,
}

/// What the reader threads tell the watcher.
#[derive(Debug)]
enum Event {
    Line {
        core: usize,
        stream: Stream,
        text: String,
    },
    Closed {
        core: usize,
    },
}

/// One core's QEMU and what it did.
#[derive(Debug)]
struct Instance {
    child: Child,
    /// Set once the process is reaped.
    status: Option<ExitStatus>,
    /// Output streams not yet at end of file.
    open_streams: usize,
    /// Killed by the run because the outcome was known without it.
    stopped: bool,
    serial: Vec<String>,
    stderr: Vec<String>,
    first_line: Option<Duration>,
}

impl Instance {
    /// Exited by itself, and every line it printed has arrived.
    fn finished(&self) -> Option<CoreExit> {
        match self.status {
            Some(status) if self.open_streams == 0 && !self.stopped => {
                Some(CoreExit::from_status(status))
            }
            _ => None,
        }
    }
}

/// The QEMU instances of a run. Dropping it kills and reaps every one
/// still running.
#[derive(Debug, Default)]
struct Fleet {
    instances: Vec<Instance>,
    /// When the run started, for the time of each core's first line.
    start: Option<Instant>,
}

impl Fleet {
    fn spawn(
        &mut self,
        qemu: &Qemu,
        launch: &Launch<'_>,
        core: CoreId,
        events: &Sender<Event>,
    ) -> Result<()> {
        let mut command = Command::new(&qemu.binary);
        command
            .args(launch.args(core))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a Ctrl-C in the terminal reaches only
            // xtask, which then stops the instances itself, rather than
            // every QEMU deciding on its own how to die.
            .process_group(0);
        let parent = std::process::id();
        // SAFETY: the closure runs in the child between fork and exec; it
        // only calls async-signal-safe functions and does not allocate.
        unsafe {
            command.pre_exec(move || die_with_parent(parent));
        }
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start {}", qemu.binary.display()))?;
        let index = core.index();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        forward(index, Stream::Serial, stdout, events.clone());
        forward(index, Stream::Stderr, stderr, events.clone());
        self.instances.push(Instance {
            child,
            status: None,
            open_streams: 2,
            stopped: false,
            serial: Vec::new(),
            stderr: Vec::new(),
            first_line: None,
        });
        Ok(())
    }

    /// Follows the run until its outcome is known.
    fn watch(&mut self, inbox: &Receiver<Event>, config: &RunConfig, deadline: Instant) -> Outcome {
        loop {
            if config.interrupted() {
                return Outcome::Interrupted;
            }
            let now = Instant::now();
            if now >= deadline {
                return Outcome::TimedOut {
                    unfinished: self.unfinished(),
                };
            }
            let wait = POLL.min(deadline - now);
            match inbox.recv_timeout(wait) {
                Ok(event) => self.record(event, config.echo),
                Err(RecvTimeoutError::Timeout) => {}
                // Every stream is closed: only exit statuses are left to see.
                Err(RecvTimeoutError::Disconnected) => thread::sleep(wait),
            }
            if let Some(outcome) = self.judge() {
                return outcome;
            }
        }
    }

    fn record(&mut self, event: Event, echo: bool) {
        match event {
            Event::Line { core, stream, text } => {
                let instance = &mut self.instances[core];
                if echo {
                    // The only printer while the run goes on, so lines never interleave.
                    let mut out = io::stdout().lock();
                    let _ = match stream {
                        Stream::Serial => writeln!(out, "[core {core:02}] {text}"),
                        Stream::Stderr => writeln!(out, "[core {core:02} stderr] {text}"),
                    };
                }
                if matches!(stream, Stream::Serial) && instance.first_line.is_none() {
                    instance.first_line = self.start.map(|s| s.elapsed());
                }
                match stream {
                    Stream::Serial => instance.serial.push(text),
                    Stream::Stderr => instance.stderr.push(text),
                }
            }
            Event::Closed { core } => self.instances[core].open_streams -= 1,
        }
    }

    /// Reaps what has exited; the outcome if that decides the run.
    fn judge(&mut self) -> Option<Outcome> {
        for instance in &mut self.instances {
            if instance.status.is_none() {
                instance.status = instance.child.try_wait().ok().flatten();
            }
        }
        let mut all_succeeded = true;
        for (core, instance) in self.instances.iter().enumerate() {
            match instance.finished() {
                Some(CoreExit::Success) => {}
                Some(exit) => {
                    let core = core as u32;
                    return Some(Outcome::CoreFailed { core, exit });
                }
                None => all_succeeded = false,
            }
        }
        all_succeeded.then_some(Outcome::Success)
    }

    fn unfinished(&self) -> Vec<u32> {
        (0u32..)
            .zip(&self.instances)
            .filter(|(_, instance)| instance.finished().is_none())
            .map(|(core, _)| core)
            .collect()
    }

    /// Stops and reaps every instance still running: first with SIGTERM,
    /// on which QEMU exits cleanly and the chip model writes its report
    /// (so a hung program's stale reads are still counted), then, after
    /// [`STOP_GRACE`], with SIGKILL.
    fn stop(&mut self) {
        for instance in &mut self.instances {
            if instance.status.is_none() {
                let pid = instance.child.id() as libc::pid_t;
                // SAFETY: `kill` has no memory effects; `pid` is our child,
                // not yet reaped, so it cannot name another process.
                instance.stopped = unsafe { libc::kill(pid, libc::SIGTERM) } == 0;
            }
        }
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            let mut running = 0;
            for instance in &mut self.instances {
                if instance.status.is_none() {
                    match instance.child.try_wait() {
                        Ok(Some(status)) => instance.status = Some(status),
                        Ok(None) => running += 1,
                        Err(_) => {}
                    }
                }
            }
            if running == 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for instance in &mut self.instances {
            if instance.status.is_none() {
                instance.stopped |= instance.child.kill().is_ok();
                instance.status = instance.child.wait().ok();
            }
        }
    }

    /// Records the lines that were still on their way when the outcome was
    /// decided: they belong in the report. Every stream ends once its QEMU
    /// is gone, so this returns quickly; the bound only guards against a
    /// reader that never finishes.
    fn drain(&mut self, inbox: &Receiver<Event>, echo: bool) {
        let deadline = Instant::now() + DRAIN;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match inbox.recv_timeout(left) {
                Ok(event) => self.record(event, echo),
                Err(_) => break,
            }
        }
    }

    fn reports(&mut self) -> Vec<CoreReport> {
        (0u32..)
            .zip(&mut self.instances)
            .map(|(core, instance)| CoreReport {
                core,
                serial: std::mem::take(&mut instance.serial),
                stderr: std::mem::take(&mut instance.stderr),
                exit: instance.finished(),
                first_line: instance.first_line,
            })
            .collect()
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.stop();
    }
}

/// In a freshly forked child: ask the kernel to SIGKILL it when xtask dies,
/// so that no instance outlives a killed xtask.
///
/// The signal is tied to the thread that forked, so instances must be
/// spawned by the thread that watches them (as [`boot`] does).
fn die_with_parent(parent: u32) -> io::Result<()> {
    // SAFETY: PR_SET_PDEATHSIG only sets an attribute of the calling process.
    let set = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
    if set != 0 {
        return Err(io::Error::last_os_error());
    }
    // If xtask died before the attribute was set, no signal will come.
    // SAFETY: getppid has no preconditions and cannot fail.
    let now = unsafe { libc::getppid() };
    if u32::try_from(now) != Ok(parent) {
        return Err(io::Error::from_raw_os_error(libc::ESRCH));
    }
    Ok(())
}

/// Sends the lines of one output stream of core `core` to the watcher,
/// then `Closed` at end of file.
fn forward(core: usize, stream: Stream, output: impl Read + Send + 'static, events: Sender<Event>) {
    thread::spawn(move || {
        let mut reader = BufReader::new(output);
        let mut line = Vec::new();
        // Serial output is bytes: a guest may print anything, so lines are
        // split on '\n' and decoded leniently.
        while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']).to_owned();
            line.clear();
            if events.send(Event::Line { core, stream, text }).is_err() {
                return;
            }
        }
        let _ = events.send(Event::Closed { core });
    });
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn exit_statuses_map_to_what_the_core_did() {
        assert_eq!(CoreExit::from_status(exited(33)), CoreExit::Success);
        assert_eq!(CoreExit::from_status(exited(35)), CoreExit::GuestFailure);
        assert_eq!(CoreExit::from_status(exited(0)), CoreExit::Reset);
        assert_eq!(
            CoreExit::from_status(exited(1)),
            CoreExit::QemuError { status: 1 }
        );
        assert_eq!(
            CoreExit::from_status(exited(launch::MODEL_STOP_STATUS)),
            CoreExit::StoppedByModel
        );
        assert_eq!(
            CoreExit::from_status(ExitStatus::from_raw(libc::SIGSEGV)),
            CoreExit::Crashed {
                signal: libc::SIGSEGV
            }
        );
        assert_eq!(
            CoreExit::Crashed { signal: 11 }.to_string(),
            "QEMU crashed: killed by SIGSEGV (signal 11)"
        );
    }

    fn report(outcome: Outcome, serial: &[&[&str]]) -> RunReport {
        RunReport {
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

    #[test]
    fn configurations_are_checked() {
        assert!(RunConfig::default().check().is_ok());
        assert!(RunConfig::new(0, "ring").check().is_err());
        assert!(RunConfig::new(8, "nosuch").check().is_err());
        for (check_coherence, stats) in [(true, false), (false, true), (true, true)] {
            let config = RunConfig {
                plain: true,
                check_coherence,
                stats,
                ..RunConfig::default()
            };
            let message = config.check().unwrap_err().to_string();
            assert!(
                message.contains("--plain cannot be combined with --check-coherence or --stats"),
                "{message}"
            );
        }
    }

    #[test]
    fn the_flags_choose_the_mode() {
        let config = |plain, check_coherence, stats| RunConfig {
            plain,
            check_coherence,
            stats,
            ..RunConfig::default()
        };
        assert_eq!(config(true, false, false).mode(), Mode::Plain);
        assert_eq!(
            config(false, true, false).mode(),
            Mode::Modeled { check: true }
        );
        assert_eq!(
            config(false, false, true).mode(),
            Mode::Modeled { check: false }
        );
        let default = if MODELED_BY_DEFAULT {
            Mode::Modeled { check: false }
        } else {
            Mode::Plain
        };
        assert_eq!(config(false, false, false).mode(), default);
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

        let (reports, errors) = read_reports(dir.path(), 4, Mode::Modeled { check: true });
        assert_eq!(reports, [None, Some(one), None, Some(three)]);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].contains("core-02.report, line 1: expected `scc-core-report 2`"),
            "{}",
            errors[0]
        );
        let (plain, errors) = read_reports(dir.path(), 4, Mode::Plain);
        assert_eq!(plain, [None, None, None, None]);
        assert!(errors.is_empty());

        let mut run = report(Outcome::Success, &[&[], &[], &[], &[]]);
        run.mode = Mode::Modeled { check: true };
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
    }

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
