// SPDX-License-Identifier: GPL-2.0-or-later
//! Modelled time across cores: the run's clocks file, lax synchronisation
//! within a quantum, and the memory controllers' queues.
//!
//! Each core's clock ([`crate::model::latency::CoreClock`]) advances with
//! its own instructions and accesses, at whatever speed its QEMU gets host
//! time. To keep cross-core waits meaningful, no running core may be more
//! than a quantum Q ahead of the slowest running core: a core that gets
//! there sleeps on a futex until the slowest catches up. Halted cores (the
//! kernel halts between polls) and finished ones hold nobody back. Blocking,
//! not spinning: 48 instances share a few host cores, and a spinning core
//! would take host time from the one it waits for.
//!
//! Three rules carry time from core to core:
//!
//! - **Cores meet in modelled-time order.** A guest tells the emulator
//!   which of its accesses synchronise ([`chip::EmuCall`]): before a
//!   test-and-set register is taken or released, and at the start of each
//!   poll of a wait, the core *orders*: it goes on only once every other
//!   core's *horizon* has passed its clock (ties broken by core number).
//!   A running core's horizon is its published clock, a waiting core's the
//!   time it will resume, a halted or finished core has none. Stores to a
//!   line some core ever polled order too, before they reach the other
//!   cores' views; they wake the cores waiting on it. Until the access it
//!   ordered is made, a core shows the others the time it ordered at, and
//!   a poll counts as made at its start until it ends (in a wait, or with
//!   [`chip::EmuCall::Done`]): its reads and test-and-set attempts inside
//!   order nothing more. So a test-and-set register goes to the core that
//!   asks first in modelled time, and a poll sees exactly the writes
//!   ordered before its start, whatever the host did.
//! - **Waiting passes modelled time.** A poll that finds nothing ends in a
//!   wait ([`chip::EmuCall::Wait`]): the core watches the lines the poll
//!   read and blocks, holding nobody back, until a store to one of them
//!   sets its wake time: the first repetition of the poll, at the poll's
//!   own period, at or after the store. The polls it would have made in
//!   between are charged to the resources they would have reached.
//! - **Data carries its time.** Every write that reaches memory (a store
//!   written through, a WCB flush, a write-back, a register write) stamps
//!   its line with the writer's clock (`stamps.mem`, one word per line of
//!   the chip memory, written under the line's lock before the bytes). A
//!   read that reaches memory moves the reader's clock up to the line's
//!   stamp. For lines nobody watches, reads and writes are not ordered:
//!   a read that finds a stamp ahead of its clock is counted
//!   ([`Clocks::future_reads`]) as a read the order missed.
//!
//! Between those points, no running core may be more than a quantum Q
//! ahead of the slowest running core: a core that gets there sleeps on a
//! futex until the slowest catches up. Sleeping, never spinning: 48
//! instances share a few host cores, and a spinning core would take host
//! time from the one it waits for. A core that wakes from a halt (`hlt`
//! outside the emulator's waits) moves its clock up to a quantum behind the
//! slowest running core.
//!
//! # The clocks file
//!
//! `clocks.mem` in the run's directory, created zeroed with the chip memory
//! ([`crate::chipmem::ChipMemory::create`]), every word accessed atomically:
//!
//! | offset | what |
//! |---|---|
//! | 0 | how many cores sleep (32 bits) |
//! | 4 | 1 once the run stops its cores ([`stop_waiting`]; 32 bits) |
//! | 256 + 64·c | core c's clock |
//! | 264 + 64·c | core c's state: 0 running, 1 halted, 2 finished, 3 waiting |
//! | 272 + 64·c | core c's last instruction address at its last sync point |
//! | 280 + 64·c | waiting: when core c resumes (`u64::MAX`: not known yet) |
//! | 288 + 64·c | waiting: when its last poll began |
//! | 296 + 64·c | waiting: its poll period |
//! | 304 + 64·c | sleeping: the time it waits for the others to reach (`u64::MAX`: an explicit wake) |
//! | 312 + 64·c | its futex word (32 bits): bumped to wake it |
//! | 316 + 64·c | 1 while it sleeps (32 bits) |
//! | 8192 + 8·(q·`SLOTS` + i) | word i of calendar q ([`crate::model::memctl`]): memory controller q, then tile q−8's MPB, then tile q−72's register block |
//!
//! Every core starts running at time 0, as on silicon after reset: a core
//! whose QEMU starts late holds the others back until it catches up.
//!
//! # What stays nondeterministic
//!
//! - Queues: requests book a resource's calendar in host order, so which
//!   of two requests close in modelled time waits for the other depends
//!   on host scheduling (bounded by the quantum). The polls a wait skips
//!   are booked when it ends, after requests the others made meanwhile.
//!   A run without queues (`queues=off`: every resource serves at once)
//!   leaves this out, and with it the contention the queues model.
//! - Lines nobody polls: a plain read of data another core writes
//!   without synchronisation sees it or not by host order; such reads of
//!   data from the modelled future are counted.
//! - The first poll of a line: stores to it are not ordered until some
//!   poll has read it, so the first poll may see a store from after its
//!   start, or miss it and wait for it.
//! - A poll, or an ordered access, not over within half a quantum stops
//!   holding the others back, and is not ordered from then on.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::model::latency::Resource;
use crate::model::memctl;
use crate::model::stats::{MAX_CONTROLLERS, MAX_TILES};
use crate::shm::Mapping;

/// How many cores sleep (32 bits): publishing looks for sleepers to wake
/// only when there are some.
const SLEEPERS: u64 = 0;
/// Set (32 bits) when the run stops its cores: nobody sleeps any more, so
/// that every QEMU can exit and write its report.
const STOPPING: u64 = 4;
const CORES: u64 = 256;
const PER_CORE: u64 = 64;
const CALENDARS: u64 = CORES + PER_CORE * MAX_CORES as u64;
/// A wake time not known yet, or no sleeper's wanted time.
const NEVER: u64 = u64::MAX;

/// Most cores the clocks file holds: as many as a chip may have.
pub const MAX_CORES: u32 = chip::MAX_CORES;

/// Bytes of the clocks file.
pub const FILE_SIZE: u64 = CALENDARS + QUEUES * memctl::SLOTS * 8;

/// Calendars in the clocks file: one per memory controller, then one per
/// tile's MPB, then one per tile's register block.
const QUEUES: u64 = (MAX_CONTROLLERS + 2 * MAX_TILES) as u64;
const _: () = assert!(CORES + PER_CORE * MAX_CORES as u64 <= CALENDARS);

/// The clocks file of the run in `dir`.
pub fn clocks_path(dir: &Path) -> PathBuf {
    dir.join("clocks.mem")
}

/// The default quantum, in core cycles: defined with the run modes.
pub use chip::DEFAULT_QUANTUM;

/// How long a sleeper waits before it looks again on its own: a safety net
/// only, every clock move that may release it wakes it.
const NAP: Duration = Duration::from_millis(20);

/// A core's state in the clocks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Executing: its clock holds the others back.
    Running = 0,
    /// Halted until an interrupt: it holds nobody back.
    Halted = 1,
    /// Its QEMU has exited (or is about to).
    Finished = 2,
    /// Waiting in modelled time for a watched line to change: it holds
    /// others back only from the time it resumes, once that is known.
    Waiting = 3,
}

impl State {
    fn from_word(word: u64) -> Option<Self> {
        [Self::Running, Self::Halted, Self::Finished, Self::Waiting]
            .into_iter()
            .find(|s| *s as u64 == word)
    }
}

/// What the clocks file says of one core, as a run tool reads it from
/// outside ([`read_cores`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreTime {
    /// Its clock at its last sync point or state change (core cycles).
    pub clock: u64,
    /// Its state; `None` for a word no state has (a damaged file).
    pub state: Option<State>,
    /// Address of the last instruction it published (at a sync point).
    pub pc: u32,
}

/// The clock, state and last published instruction of cores `0..cores`
/// from the clocks file in `dir`. The words are read while the cores go
/// on, each one whole: a snapshot for diagnosis, not a consistent cut.
pub fn read_cores(dir: &Path, cores: u32) -> std::io::Result<Vec<CoreTime>> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(clocks_path(dir))?;
    let mut bytes = vec![0u8; CALENDARS as usize];
    file.read_exact_at(&mut bytes, 0)?;
    let word = |offset: u64| {
        let at = offset as usize;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    Ok((0..cores.min(MAX_CORES))
        .map(|c| CoreTime {
            clock: word(Clocks::at(c, Word::Clock)),
            state: State::from_word(word(Clocks::at(c, Word::State))),
            pc: word(Clocks::at(c, Word::Pc)) as u32,
        })
        .collect())
}

/// A word of a core's part of the clocks file (offsets in the module's
/// table, from the core's clock).
#[derive(Debug, Clone, Copy)]
enum Word {
    Clock = 0,
    State = 8,
    Pc = 16,
    Wake = 24,
    PollStart = 32,
    Period = 40,
    Wanted = 48,
    Futex = 56,
    Sleeping = 60,
}

/// Tells the cores of the run in `dir` that the run is stopping them: a
/// core asleep or waiting in modelled time goes on at once, so that its
/// QEMU can exit on the signal that follows and write its report.
pub fn stop_waiting(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::options()
        .write(true)
        .open(clocks_path(dir))?;
    file.write_all_at(&1u32.to_le_bytes(), STOPPING)
}

/// One core's side of the run's shared clocks.
#[derive(Debug)]
pub struct Clocks {
    map: Mapping,
    core: u32,
    cores: u32,
    quantum: u64,
    /// Whether requests queue at the resources ([`Clocks::book`]).
    queues: bool,
    /// Times this core slept because it was a quantum ahead.
    pub sleeps: u64,
    /// Times this core blocked to order a synchronising access.
    pub order_waits: u64,
    /// Reads of a line stamped later than the reader's clock (see the
    /// module's rules), counted by the engine.
    pub future_reads: u64,
}

impl Clocks {
    /// Offset of `word` of core `c`.
    fn at(c: u32, word: Word) -> u64 {
        CORES + PER_CORE * u64::from(c) + word as u64
    }

    /// Core `core`'s side of a run of `cores` cores over the mapped clocks
    /// file, keeping within `quantum` cycles of the slowest running core;
    /// requests queue at the resources if `queues`.
    pub fn new(map: Mapping, core: u32, cores: u32, quantum: u64, queues: bool) -> Self {
        assert!(cores <= MAX_CORES && core < cores);
        Self {
            map,
            core,
            cores,
            quantum,
            queues,
            sleeps: 0,
            order_waits: 0,
            future_reads: 0,
        }
    }

    /// The quantum.
    pub fn quantum(&self) -> u64 {
        self.quantum
    }

    /// This core's number.
    pub fn core(&self) -> u32 {
        self.core
    }

    /// The earliest modelled time at which core `c` can still act: its
    /// clock while it runs, its wake time while it waits, never once it
    /// has halted or finished.
    fn horizon(&self, c: u32) -> u64 {
        match State::from_word(self.map.load(Self::at(c, Word::State))) {
            Some(State::Running) => self.map.load(Self::at(c, Word::Clock)),
            Some(State::Waiting) => self.map.load(Self::at(c, Word::Wake)),
            _ => NEVER,
        }
    }

    /// Whether every other core is past time `t` of this core: its
    /// horizon is later, or equal and its number higher.
    pub fn ordered(&self, t: u64) -> bool {
        (0..self.cores).filter(|&c| c != self.core).all(|c| {
            let h = self.horizon(c);
            h > t || (h == t && c > self.core)
        })
    }

    /// Publishes `now` and blocks until every other core is past it
    /// ([`Clocks::ordered`]): whatever this core does next comes after
    /// everything the others did before `now`, and before everything they
    /// do after. Returns whether it blocked.
    pub fn order(&mut self, now: u64) -> bool {
        self.publish(now);
        if self.ordered(now) {
            return false;
        }
        self.order_waits += 1;
        self.sleep_until(|s| (!s.ordered(now)).then_some(now));
        true
    }

    /// Sleeps on this core's futex word while `wanted` gives the time the
    /// other cores must reach for it to go on ([`NEVER`]: only an explicit
    /// wake releases it); `None` once it may go on. A core whose clock or
    /// state passes that time wakes it.
    fn sleep_until(&self, wanted: impl Fn(&Self) -> Option<u64>) {
        let me = self.core;
        while let Some(time) = wanted(self) {
            if self.stopping() {
                return;
            }
            // Register before looking again, so that a clock moving after
            // the look sees the sleeper and bumps its word.
            self.map.store(Self::at(me, Word::Wanted), time);
            self.map.fetch_add_u32(Self::at(me, Word::Sleeping), 1);
            self.map.fetch_add_u32(SLEEPERS, 1);
            let seq = self.map.load_atomic_u32(Self::at(me, Word::Futex));
            // Asleep only while waiting for what was registered.
            if wanted(self) == Some(time) {
                self.map.futex_wait(Self::at(me, Word::Futex), seq, NAP);
            }
            self.map.fetch_sub_u32(SLEEPERS, 1);
            self.map.fetch_sub_u32(Self::at(me, Word::Sleeping), 1);
        }
    }

    fn wake_core(&self, c: u32) {
        self.map.fetch_add_u32(Self::at(c, Word::Futex), 1);
        self.map.futex_wake(Self::at(c, Word::Futex));
    }

    /// Wakes every other sleeping core that waits for the others to reach
    /// a time at or before `reached` (this core's new horizon).
    fn wake_sleepers(&self, reached: u64) {
        if self.map.load_atomic_u32(SLEEPERS) == 0 {
            return;
        }
        for c in (0..self.cores).filter(|&c| c != self.core) {
            let wanted = self.map.load(Self::at(c, Word::Wanted));
            if self.map.load_atomic_u32(Self::at(c, Word::Sleeping)) != 0
                && wanted <= reached
                && wanted != NEVER
            {
                self.wake_core(c);
            }
        }
    }

    /// This core is about to wait in modelled time: its last poll began
    /// at `start` and repeats every `period` cycles, and its wake time is
    /// not known yet. Called before it watches its lines, while it still
    /// holds the others back, so that the first store after its poll is
    /// the first to see it watching ([`Clocks::wake_waiter`]).
    pub fn prepare_wait(&self, start: u64, period: u64) {
        self.map.store(Self::at(self.core, Word::PollStart), start);
        self.map
            .store(Self::at(self.core, Word::Period), period.max(1));
        self.map.store(Self::at(self.core, Word::Wake), NEVER);
    }

    /// This core waits, watching its lines ([`Clocks::prepare_wait`]):
    /// until a store to one of them sets its wake time it holds nobody
    /// back.
    pub fn begin_wait(&self) {
        self.map
            .store(Self::at(self.core, Word::State), State::Waiting as u64);
        self.wake_sleepers(NEVER);
    }

    /// Core `c`, waiting, saw a watched line written at `at` by core
    /// `writer`: it resumes at its first poll at or after `at` (after, on
    /// a tie with a lower-numbered poller, whose poll came first), unless
    /// an earlier wake is already set.
    pub fn wake_waiter(&self, c: u32, at: u64, writer: u32) {
        let start = self.map.load(Self::at(c, Word::PollStart));
        let period = self.map.load(Self::at(c, Word::Period)).max(1);
        let mut t = start + at.saturating_sub(start).div_ceil(period).max(1) * period;
        if t == at && c < writer {
            t += period;
        }
        self.map.fetch_min(Self::at(c, Word::Wake), t);
        self.wake_core(c);
    }

    /// Blocks this core, waiting, until its wake time is set and every
    /// other core is past it; returns the wake time, or `None` if the run
    /// stops its cores first.
    pub fn wait_until_woken(&self) -> Option<u64> {
        let wake = |s: &Self| s.map.load(Self::at(s.core, Word::Wake));
        self.sleep_until(|s| match wake(s) {
            NEVER => Some(NEVER),
            w => (!s.ordered(w)).then_some(w),
        });
        Some(wake(self)).filter(|&w| w != NEVER && !self.stopping())
    }

    /// Whether the run is stopping its cores ([`stop_waiting`]).
    fn stopping(&self) -> bool {
        self.map.load_atomic_u32(STOPPING) != 0
    }

    /// The wait ends: the core runs again from `now`.
    pub fn end_wait(&self, now: u64) {
        self.set_state(State::Running, now);
    }

    /// Publishes the address of the instruction this core last executed,
    /// for a run tool to name where a core stopped.
    pub fn publish_pc(&self, pc: u32) {
        self.map.store(Self::at(self.core, Word::Pc), u64::from(pc));
    }

    /// The slowest running core's clock, this core left out; `None` if no
    /// other core runs.
    pub fn slowest_other(&self) -> Option<u64> {
        (0..self.cores)
            .filter(|&c| c != self.core)
            .filter(|&c| self.map.load(Self::at(c, Word::State)) == State::Running as u64)
            .map(|c| self.map.load(Self::at(c, Word::Clock)))
            .min()
    }

    /// Publishes this core's clock `now`, waking the sleepers that wait
    /// for a time it reached.
    pub fn publish(&self, now: u64) {
        self.map.store(Self::at(self.core, Word::Clock), now);
        self.wake_sleepers(now);
    }

    /// Sets this core's state (publishing `now` with it).
    pub fn set_state(&self, state: State, now: u64) {
        self.map.store(Self::at(self.core, Word::Clock), now);
        self.map
            .store(Self::at(self.core, Word::State), state as u64);
        self.wake_sleepers(if state == State::Running { now } else { NEVER });
    }

    /// Publishes `shown` (this core's clock `now`, or an earlier time it
    /// still acts at) and sleeps while `now` is more than a quantum ahead
    /// of the slowest other running core.
    pub fn keep_within_quantum(&mut self, now: u64, shown: u64) {
        self.publish(shown);
        let ahead = |s: &Self| s.slowest_other().is_some_and(|min| now > min + s.quantum);
        if !ahead(self) {
            return;
        }
        self.sleeps += 1;
        let wanted = now - self.quantum;
        self.sleep_until(|s| ahead(s).then_some(wanted));
    }

    /// Books one request on `resource`, arriving at `arrival` and served
    /// in `service` cycles: returns the cycles it waits for the resource
    /// (in its calendar, [`memctl::book_in`]); none if requests do not
    /// queue.
    pub fn book(&self, resource: Resource, arrival: u64, service: u64) -> u64 {
        if !self.queues {
            return 0;
        }
        let calendar = SharedCalendar {
            map: &self.map,
            base: CALENDARS + resource.calendar() as u64 * memctl::SLOTS * 8,
        };
        memctl::book_in(&calendar, arrival, service, resource.bucket())
    }
}

/// One resource's calendar in the clocks file.
struct SharedCalendar<'a> {
    map: &'a Mapping,
    base: u64,
}

impl memctl::Calendar for SharedCalendar<'_> {
    fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64> {
        self.map.try_update(self.base + 8 * i, f)
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    fn clocks(dir: &Path, core: u32, cores: u32, quantum: u64) -> Clocks {
        clocks_queuing(dir, core, cores, quantum, true)
    }

    fn clocks_queuing(dir: &Path, core: u32, cores: u32, quantum: u64, queues: bool) -> Clocks {
        let path = clocks_path(dir);
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .unwrap();
        file.set_len(FILE_SIZE).unwrap();
        Clocks::new(
            Mapping::new(&file, FILE_SIZE).unwrap(),
            core,
            cores,
            quantum,
            queues,
        )
    }

    #[test]
    fn a_core_a_quantum_ahead_sleeps_until_the_slowest_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let slow = clocks(dir.path(), 0, 2, 100);
        let mut fast = clocks(dir.path(), 1, 2, 100);
        fast.keep_within_quantum(100, 100); // exactly a quantum ahead: goes on
        assert_eq!(fast.sleeps, 0);
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let sleeper = std::thread::spawn(move || {
            fast.keep_within_quantum(500, 500);
            flag.store(true, Ordering::SeqCst);
            fast.sleeps
        });
        // On a busy host the thread may start late: wait until it has
        // registered as a sleeper rather than for a fixed time.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while slow.map.load_atomic_u32(Clocks::at(1, Word::Sleeping)) == 0 {
            assert!(!done.load(Ordering::SeqCst), "400 cycles ahead must sleep");
            assert!(
                std::time::Instant::now() < deadline,
                "the core ahead never slept"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        slow.publish(300);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!done.load(Ordering::SeqCst), "still 200 ahead");
        slow.publish(400);
        assert_eq!(sleeper.join().unwrap(), 1);
    }

    #[test]
    fn a_stopping_run_ends_a_wait_nobody_would_end() {
        let dir = tempfile::tempdir().unwrap();
        let waiter = clocks(dir.path(), 0, 2, 10);
        let _other = clocks(dir.path(), 1, 2, 10);
        waiter.prepare_wait(100, 10);
        waiter.begin_wait();
        let sleeper = std::thread::spawn(move || waiter.wait_until_woken());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!sleeper.is_finished(), "nobody set its wake time");
        stop_waiting(dir.path()).unwrap();
        assert_eq!(sleeper.join().unwrap(), None);
    }

    #[test]
    fn halted_and_finished_cores_hold_nobody_back() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 3, 10);
        let b = clocks(dir.path(), 1, 3, 10);
        let mut c = clocks(dir.path(), 2, 3, 10);
        a.set_state(State::Halted, 0);
        b.set_state(State::Finished, 5);
        assert_eq!(c.slowest_other(), None);
        c.keep_within_quantum(1_000_000, 1_000_000);
        assert_eq!(c.sleeps, 0);
        a.set_state(State::Running, 999_995);
        assert_eq!(c.slowest_other(), Some(999_995));
    }

    #[test]
    fn a_run_tool_reads_every_cores_clock_state_and_last_instruction() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 3, 10);
        let b = clocks(dir.path(), 2, 3, 10);
        a.set_state(State::Halted, 1234);
        a.publish_pc(0x10_2030);
        b.publish(99);
        b.publish_pc(0xdead_beef);
        let cores = read_cores(dir.path(), 3).unwrap();
        assert_eq!(
            cores,
            [
                CoreTime {
                    clock: 1234,
                    state: Some(State::Halted),
                    pc: 0x10_2030
                },
                CoreTime {
                    clock: 0,
                    state: Some(State::Running),
                    pc: 0
                },
                CoreTime {
                    clock: 99,
                    state: Some(State::Running),
                    pc: 0xdead_beef
                },
            ]
        );
        assert!(read_cores(&dir.path().join("nosuch"), 3).is_err());
    }

    #[test]
    fn controllers_queue_requests_from_every_core() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 2, 10);
        let b = clocks(dir.path(), 1, 2, 10);
        let mc = Resource::Controller;
        assert_eq!(a.book(mc(2), 100, 31), 0);
        assert_eq!(b.book(mc(2), 110, 31), 21);
        assert_eq!(b.book(mc(1), 110, 31), 0, "another controller");
        assert_eq!(a.book(mc(2), 1000, 31), 0);
        // Each tile's MPB and register block has a calendar of its own.
        assert_eq!(a.book(Resource::Mpb(2), 100, 3), 0);
        assert_eq!(b.book(Resource::Mpb(2), 101, 3), 2);
        assert_eq!(b.book(Resource::Crb(2), 101, 3), 0, "the register block");
        assert_eq!(b.book(Resource::Mpb(3), 101, 3), 0, "another tile");
    }

    #[test]
    fn without_queues_every_resource_serves_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks_queuing(dir.path(), 0, 2, 10, false);
        let b = clocks_queuing(dir.path(), 1, 2, 10, false);
        for resource in [Resource::Controller(2), Resource::Mpb(2), Resource::Crb(2)] {
            assert_eq!(a.book(resource, 100, 31), 0);
            assert_eq!(b.book(resource, 101, 31), 0, "{resource:?}");
        }
    }
}
