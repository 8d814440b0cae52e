// SPDX-License-Identifier: MIT OR Apache-2.0
//! The QEMU instances of a run: started, watched until the outcome is
//! known, stopped and reaped.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use chip::CoreId;
use emu::launch::Launch;

use super::diagnose::{Progress, Stall};
use super::{CoreExit, CoreReport, Outcome, RunConfig};
use crate::qemu::Qemu;

/// How often the watcher looks at exit statuses, the clock and the
/// interrupt flag when no output arrives.
const POLL: Duration = Duration::from_millis(20);

/// How often the watcher reads the cores' modelled clocks.
const SAMPLE: Duration = Duration::from_millis(100);

/// What QEMU prints on standard error when it exits on a signal
/// (`qemu-system-i386: terminating on signal 15 from pid N (xtask)`).
const STOP_FAREWELL: &str = "terminating on signal";

/// Longest wait, after the instances are stopped, for their last output.
const DRAIN: Duration = Duration::from_secs(2);

/// Longest wait for stopped instances to exit on SIGTERM before they are
/// killed.
const STOP_GRACE: Duration = Duration::from_secs(2);

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
#[derive(Debug)]
pub(super) struct Fleet {
    instances: Vec<Instance>,
    /// When the run started, for the time of each core's first line.
    start: Instant,
    /// Where the reader threads send what they read; dropped once every
    /// instance has started, so that the inbox disconnects when the last
    /// stream closes.
    events: Option<Sender<Event>>,
    inbox: Receiver<Event>,
    /// Each core's modelled clock as the watcher last saw it.
    progress: Progress,
}

impl Fleet {
    /// No instances yet, for a run that started at `start`.
    pub(super) fn new(start: Instant) -> Self {
        let (events, inbox) = mpsc::channel();
        Self {
            instances: Vec::new(),
            start,
            events: Some(events),
            inbox,
            progress: Progress::default(),
        }
    }

    /// Starts core `core`'s QEMU.
    pub(super) fn spawn(&mut self, qemu: &Qemu, launch: &Launch<'_>, core: CoreId) -> Result<()> {
        let events = self
            .events
            .as_ref()
            .expect("instances start before the fleet is watched");
        let mut command = Command::new(&qemu.binary);
        command
            .args(launch.args(core))
            .current_dir(launch.dir())
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

    /// Follows the run until its outcome is known: all succeeded, one
    /// failed, `deadline` passed (`None`: never), or the run was
    /// interrupted. With `clocks` (the run directory of a run with
    /// modelled time), it follows each core's progress for [`Self::stall`].
    pub(super) fn watch(
        &mut self,
        config: &RunConfig,
        deadline: Option<Instant>,
        clocks: Option<&Path>,
    ) -> Outcome {
        self.events = None;
        let mut sampled: Option<Instant> = None;
        loop {
            if config.interrupted() {
                return Outcome::Interrupted;
            }
            let now = Instant::now();
            if let Some(dir) = clocks
                && sampled.is_none_or(|at| now - at >= SAMPLE)
            {
                self.progress.sample(dir, config.cores, now);
                sampled = Some(now);
                let unfinished = self.unfinished();
                if self.progress.deadlocked(&unfinished, now) {
                    return Outcome::Deadlock { cores: unfinished };
                }
            }
            let left = deadline.map(|d| d.saturating_duration_since(now));
            if left == Some(Duration::ZERO) {
                return Outcome::TimedOut {
                    unfinished: self.unfinished(),
                };
            }
            let wait = left.map_or(POLL, |left| POLL.min(left));
            match self.inbox.recv_timeout(wait) {
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

    /// Which cores held the run back, as the last samples of the clocks
    /// show (`None` without modelled time).
    pub(super) fn stall(&self) -> Option<Stall> {
        self.progress.stall(&self.unfinished(), Instant::now())
    }

    fn record(&mut self, event: Event, echo: bool) {
        match event {
            Event::Line { core, stream, text } => {
                let instance = &mut self.instances[core];
                // QEMU's farewell when the run stopped it: expected, not news.
                if instance.stopped
                    && matches!(stream, Stream::Stderr)
                    && text.contains(STOP_FAREWELL)
                {
                    return;
                }
                if echo {
                    // The only printer while the run goes on, so lines never interleave.
                    let mut out = io::stdout().lock();
                    let _ = match stream {
                        Stream::Serial => writeln!(out, "[core {core:02}] {text}"),
                        Stream::Stderr => writeln!(out, "[core {core:02} stderr] {text}"),
                    };
                }
                if matches!(stream, Stream::Serial) && instance.first_line.is_none() {
                    instance.first_line = Some(self.start.elapsed());
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
                Some(CoreExit::EndedRun) => {
                    return Some(Outcome::Ended { core: core as u32 });
                }
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
    pub(super) fn stop(&mut self) {
        for instance in &mut self.instances {
            // One that exited by itself keeps its own exit, not "stopped".
            if instance.status.is_none() {
                instance.status = instance.child.try_wait().ok().flatten();
            }
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
    pub(super) fn drain(&mut self, echo: bool) {
        let deadline = Instant::now() + DRAIN;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.inbox.recv_timeout(left) {
                Ok(event) => self.record(event, echo),
                Err(_) => break,
            }
        }
    }

    pub(super) fn reports(&mut self) -> Vec<CoreReport> {
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
