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
//! Two rules carry time from core to core:
//!
//! - **Data carries its time.** Every write that reaches memory (a store
//!   written through, a WCB flush, a write-back, a register write) stamps
//!   its line with the writer's clock (`stamps.mem`, one word per line of
//!   the chip memory, written under the line's lock before the bytes). A
//!   read that reaches memory moves the reader's clock up to the line's
//!   stamp: a core that polls a flag sees it no earlier, in modelled time,
//!   than it was written, however host scheduling ordered the two.
//! - **Halting passes time.** A core that wakes from a halt moves its clock
//!   up to a quantum behind the slowest running core: the others' time
//!   passed for it too, and it must not hold them all back; it goes no
//!   further, since what it waits for may have happened earlier, and the
//!   stamp of what it then reads moves it on.
//!
//! Both count as the core's idle cycles in the statistics.
//!
//! # The clocks file
//!
//! `clocks.mem` in the run's directory, created zeroed with the chip memory
//! ([`crate::chipmem::ChipMemory::create`]), every word accessed atomically:
//!
//! | offset | what |
//! |---|---|
//! | 0 | sequence number (32 bits): bumped when a clock that others wait for moves; sleepers wait on it |
//! | 4 | number of sleepers (32 bits) |
//! | 256 + 32·c | core c's clock (core cycles) |
//! | 264 + 32·c | core c's state: 0 running, 1 halted, 2 finished |
//! | 272 + 32·c | core c's last instruction address at its last sync point |
//! | 4096 + 8·(q·`SLOTS` + i) | word i of calendar q ([`crate::model::memctl`]): memory controller q, then tile q−8's MPB, then tile q−72's register block |
//!
//! Every core starts running at time 0, as on silicon after reset: a core
//! whose QEMU starts late holds the others back until it catches up.
//!
//! # What stays nondeterministic
//!
//! Within a quantum, the order in which cores act depends on host
//! scheduling: which of two cores reaches a shared line or a controller
//! first, how many polls a waiting core makes before the data arrives
//! (each poll costs its instructions and accesses, and a halt between
//! polls lasts host time, after which the core's clock moves as above),
//! and how long a request queues at a controller behind requests of cores
//! up to a quantum ahead. A core that works alone measures the same
//! modelled time on every run (the `timing` program reads the table back
//! exactly); programs whose cores wait for each other vary by the polls
//! and halts around each wait, bounded by about a quantum per wait.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::model::latency::Resource;
use crate::model::memctl;
use crate::model::stats::{MAX_CONTROLLERS, MAX_TILES};
use crate::shm::Mapping;

const SEQUENCE: u64 = 0;
const SLEEPERS: u64 = 4;
const CORES: u64 = 256;
const PER_CORE: u64 = 32;
const CALENDARS: u64 = 4096;

/// Most cores the clocks file holds.
pub const MAX_CORES: u32 = 64;

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

/// The default quantum, in core cycles (about 188 µs at 533 MHz): on the
/// 48-core MPB ring it models the same cycles as quanta a hundred times
/// smaller (within about 1 %) at a fraction of their host time (`cargo
/// xtask bench quantum`, README).
pub const DEFAULT_QUANTUM: u64 = 100_000;

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
}

impl State {
    fn from_word(word: u64) -> Option<Self> {
        [Self::Running, Self::Halted, Self::Finished]
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
            clock: word(Clocks::clock_at(c)),
            state: State::from_word(word(Clocks::state_at(c))),
            pc: word(Clocks::pc_at(c)) as u32,
        })
        .collect())
}

/// One core's side of the run's shared clocks.
#[derive(Debug)]
pub struct Clocks {
    map: Mapping,
    core: u32,
    cores: u32,
    quantum: u64,
    /// Times this core slept because it was a quantum ahead.
    pub sleeps: u64,
}

impl Clocks {
    /// Core `core`'s side of a run of `cores` cores over the mapped clocks
    /// file, keeping within `quantum` cycles of the slowest running core.
    pub fn new(map: Mapping, core: u32, cores: u32, quantum: u64) -> Self {
        assert!(cores <= MAX_CORES && core < cores);
        Self {
            map,
            core,
            cores,
            quantum,
            sleeps: 0,
        }
    }

    /// The quantum.
    pub fn quantum(&self) -> u64 {
        self.quantum
    }

    fn clock_at(c: u32) -> u64 {
        CORES + PER_CORE * u64::from(c)
    }

    fn state_at(c: u32) -> u64 {
        Self::clock_at(c) + 8
    }

    fn pc_at(c: u32) -> u64 {
        Self::clock_at(c) + 16
    }

    /// Publishes the address of the instruction this core last executed,
    /// for a run tool to name where a core stopped.
    pub fn publish_pc(&self, pc: u32) {
        self.map.store(Self::pc_at(self.core), u64::from(pc));
    }

    /// The slowest running core's clock, this core left out; `None` if no
    /// other core runs.
    pub fn slowest_other(&self) -> Option<u64> {
        (0..self.cores)
            .filter(|&c| c != self.core)
            .filter(|&c| self.map.load(Self::state_at(c)) == State::Running as u64)
            .map(|c| self.map.load(Self::clock_at(c)))
            .min()
    }

    /// Publishes this core's clock `now`, waking sleepers if there are any.
    pub fn publish(&self, now: u64) {
        self.map.store(Self::clock_at(self.core), now);
        self.wake();
    }

    fn wake(&self) {
        if self.map.load_atomic_u32(SLEEPERS) != 0 {
            self.map.fetch_add_u32(SEQUENCE, 1);
            self.map.futex_wake(SEQUENCE);
        }
    }

    /// Sets this core's state (publishing `now` with it).
    pub fn set_state(&self, state: State, now: u64) {
        self.map.store(Self::clock_at(self.core), now);
        self.map.store(Self::state_at(self.core), state as u64);
        self.wake();
    }

    /// Publishes `now` and sleeps while it is more than a quantum ahead of
    /// the slowest other running core.
    pub fn keep_within_quantum(&mut self, now: u64) {
        self.publish(now);
        let ahead = |s: &Self| s.slowest_other().is_some_and(|min| now > min + s.quantum);
        if !ahead(self) {
            return;
        }
        self.sleeps += 1;
        loop {
            // Register as a sleeper before looking, so that a clock moving
            // after the look sees the sleeper and bumps the sequence.
            self.map.fetch_add_u32(SLEEPERS, 1);
            let seq = self.map.load_atomic_u32(SEQUENCE);
            let still = ahead(self);
            if still {
                self.map.futex_wait(SEQUENCE, seq, NAP);
            }
            self.map.fetch_sub_u32(SLEEPERS, 1);
            if !still {
                return;
            }
        }
    }

    /// Books one request on `resource`, arriving at `arrival` and served
    /// in `service` cycles: returns the cycles it waits for the resource
    /// (in its calendar, [`memctl::book_in`]).
    pub fn book(&self, resource: Resource, arrival: u64, service: u64) -> u64 {
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
        )
    }

    #[test]
    fn a_core_a_quantum_ahead_sleeps_until_the_slowest_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let slow = clocks(dir.path(), 0, 2, 100);
        let mut fast = clocks(dir.path(), 1, 2, 100);
        fast.keep_within_quantum(100); // exactly a quantum ahead: goes on
        assert_eq!(fast.sleeps, 0);
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let sleeper = std::thread::spawn(move || {
            fast.keep_within_quantum(500);
            flag.store(true, Ordering::SeqCst);
            fast.sleeps
        });
        // On a busy host the thread may start late: wait until it has
        // registered as a sleeper rather than for a fixed time.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while slow.map.load_atomic_u32(SLEEPERS) == 0 {
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
    fn halted_and_finished_cores_hold_nobody_back() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 3, 10);
        let b = clocks(dir.path(), 1, 3, 10);
        let mut c = clocks(dir.path(), 2, 3, 10);
        a.set_state(State::Halted, 0);
        b.set_state(State::Finished, 5);
        assert_eq!(c.slowest_other(), None);
        c.keep_within_quantum(1_000_000);
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
}
