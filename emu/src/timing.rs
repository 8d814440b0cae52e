// SPDX-License-Identifier: GPL-2.0-or-later
//! Modelled time across cores: the run's clocks file, lax synchronisation
//! within a quantum, and the calendars of the resources' queues.
//!
//! Each core's clock ([`crate::model::latency::CoreClock`]) advances with
//! its own instructions (the cycles the P54C takes to issue them,
//! [`crate::model::p54c`]) and accesses (their latencies beyond an L1 hit,
//! DRAM refresh included), at whatever speed its QEMU gets host time. To keep cross-core waits meaningful, no running core may be more
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
//!   time it will resume, a halted or finished core has none. Stores to an
//!   MPB, and to a line of DRAM some core ever polled, order too, before
//!   they reach the other cores' views; they wake the cores waiting on it. Until the access it
//!   ordered is made, a core shows the others the time it ordered at, and
//!   a poll counts as made at its start until it ends (in a wait, or with
//!   [`chip::EmuCall::Done`]): its reads and test-and-set attempts inside
//!   order nothing more. A poll still running 65,536 cycles after it
//!   ordered orders again at its next timed access, and counts as made
//!   then: a long poll (a target applying a 4 KiB message inside its
//!   wait) is ordered step by step, never racing with the others' stores. So a test-and-set register goes to the core that
//!   asks first in modelled time, and a poll sees exactly the writes
//!   ordered before its start, whatever the host did.
//! - **Waiting passes modelled time.** A poll that finds nothing ends in a
//!   wait ([`chip::EmuCall::Wait`]): the core watches the lines the poll
//!   read and blocks, holding nobody back, until a store to one of them
//!   sets its wake time: the first repetition of the poll, at the poll's
//!   own period, at or after the store. The polls it makes in between are
//!   booked in the calendars of the resources they reach: by a core that
//!   needs them booked up to a time no core can wake the waiter before
//!   ([`Clocks::await_booked`]), and by the waiter when it resumes. It
//!   publishes what its polls reach for that.
//! - **Queues are charged once they are known.** A request to a resource
//!   that serves one at a time (a controller's DDR3 channel, a line at a
//!   time with several in flight, an MPB, a register block, and every
//!   mesh link the request and its reply cross) adds itself to the
//!   bucket of its arrival in that resource's calendar
//!   ([`crate::model::queue`]); the bucket's contents are sums, the same
//!   whatever order cores add to them. Its wait is computed and charged to
//!   its core once every other core has booked its requests up to the end
//!   of the bucket ([`Clocks::booked_through`]): at the core's next ordered
//!   access (which charges everything before it), and every 65,536 cycles
//!   of its clock for what every core passed 262,144 cycles earlier. A
//!   sample between two clock reads so holds the queueing of its requests
//!   up to its last ordered access (a lock's test-and-set, a poll's start);
//!   the rest falls into the next sample. The waits of a core's requests
//!   after its last ordered access are never charged: its cycles at exit
//!   leave them
//!   out (a core that finishes does not wait for the others to pass it).
//!   A core about to wait in modelled time or to halt, with requests not
//!   charged yet, computes their waits first, while their buckets'
//!   slots are surely theirs, and they are charged at the same points
//!   once it resumes: the calendars are rings, and while it waits the
//!   others may book a ring later, into those slots, or not, as the host
//!   runs them. It *holds* meanwhile ([`Clocks::hold`]): it waits, holding
//!   nobody back but from its wake time, except that the running cores
//!   stay within a quantum of its requests' last bucket, until every
//!   other core has passed that bucket ([`Clocks::await_final`]; no store
//!   can wake it before then any more) and it has read the loads: usually
//!   at once, the others being past its last requests already. A bucket
//!   read back long after (its core made no timed access, or paused, for
//!   most of a ring) waits nothing ([`queue::readable`]).
//! - **Data carries its time.** Every write that reaches memory (a store
//!   written through, a WCB flush, a write-back, a register write) stamps
//!   its line with the writer's clock and the 4-byte words it wrote
//!   (`stamps.mem`, one word per line of the chip memory: the clock above
//!   eight bits, one per word; written under the line's lock before the
//!   bytes). A read that reaches memory moves the reader's clock up to
//!   the stamp if the last write reached a word it reads: a store to
//!   another word of the line (a lock's word beside the one read) says
//!   nothing of when the words read got their bytes. A poll may find such
//!   a stamp only from a store made inside another core's earlier poll
//!   (which counts as made at that poll's start). Outside polls, reads
//!   and writes are not ordered: a read that finds a stamp of its words
//!   ahead of its clock is counted ([`Clocks::future_reads`]) as a read
//!   the order missed.
//! - **Reads that race are ordered by the program.** A load cannot be
//!   ordered by the emulator (QEMU reports it after its bytes were read),
//!   so a program orders a read that races with other cores' stores
//!   outside any wait by making it a poll that finds what it reads
//!   (`Platform::read_ordered`, rma's `Wait::read_ordered`): a flag read once,
//!   a test for messages, MCS-WP's look at a successor linking in. Reads
//!   of words written only under the test-and-set register they are read
//!   under need nothing: the register orders them.
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
//! ([`crate::chipmem::ChipMemory::create`]), every word accessed atomically.
//! It holds 392 calendars of 256 KiB (98 MiB with the cores' 256 KiB), of
//! which a run touches only those of the resources its chip has: on the
//! SCC 4 controllers, 24 MPBs and register blocks and 76 links, 32
//! MiB at most (the file is sparse, and a calendar's pages fill as
//! modelled time goes round its ring).
//!
//! | offset | what |
//! |---|---|
//! | 0 | how many cores sleep (32 bits) |
//! | 4 | 1 once the run stops its cores ([`stop_waiting`]; 32 bits) |
//! | 256 + 1024·c | core c's clock |
//! | 264 + 1024·c | core c's state: 0 running, 1 halted, 2 finished, 3 waiting, 4 holding (waiting, its hold time pacing the running cores) |
//! | 272 + 1024·c | core c's last instruction address at its last sync point (32 bits) |
//! | 276 + 1024·c | its stack pointer at its last wait (the value its guest stored with [`chip::EmuCall::Wait`]; 32 bits) |
//! | 280 + 1024·c | waiting: when core c resumes (`u64::MAX`: not known yet) |
//! | 288 + 1024·c | waiting: when its last poll began |
//! | 296 + 1024·c | waiting: its poll period |
//! | 304 + 1024·c | sleeping: what it waits for (below): the time above 16 bits (all ones: an explicit wake), then the kind and the core it waits on |
//! | 312 + 1024·c | its futex word (32 bits): bumped to wake it |
//! | 316 + 1024·c | 1 while it sleeps (32 bits) |
//! | 320 + 1024·c | waiting: its polls issued before this time are in the calendars (`u64::MAX`: all it books) |
//! | 328 + 1024·c | 1 while a core books its polls |
//! | 336 + 1024·c | waiting: how many resources its polls reach (at most [`POLL_QUEUES`]) |
//! | 344 + 1024·c | waiting: each of them, its calendar above its arrival cycles: the targets of its poll's first [`POLL_LINES`] lines and the links on their ways |
//! | 1272 + 1024·c | holding: the time it holds the running cores within a quantum of |
//! | 256 + 1024·`MAX_CORES` + 8·(q·`SLOTS` + i) | word i of calendar q ([`crate::model::queue`]): memory controller q, then tile q−8's MPB, then tile q−72's register block, then link q−136 ([`crate::model::mesh::Link::index`]: four per router) |
//!
//! # Sleeping and waking
//!
//! A core that must wait for the others registers what it waits for in
//! its `Wanted` word, looks at the others again, and sleeps on its futex
//! word. It waits for every other core to be past a time of its own (to
//! order; a wait, once its wake time is set), for every other running
//! core's clock to reach a time (the quantum), or for any core's horizon
//! to reach a time (the buckets to be final). The first two name one of
//! the cores not there yet, the closest to it (the last expected to get
//! there): until it gets there the sleeper stays, so only it looks at the
//! sleeper when its horizon moves (a clock published, a state changed).
//! Once there, it names the next core that holds the sleeper back
//! instead (a compare-and-swap of the word, then a look at the core
//! named, in case it passed meanwhile without seeing its name), and wakes
//! the sleeper only when none is left. A store that moves a
//! sleeping waiter's wake time earlier registers the cores it now waits
//! for the same way. So a core sleeps about once per wait however many
//! cores it waits for; woken by every core that passed its time, as
//! before, it slept twelve times per wait on 48 cores, most of the host
//! time of a run on a few host cores (a futex wake and two context
//! switches each).
//!
//! The words are sequentially consistent atomics: a sleeper writes its
//! word before it looks at the horizons, a core writes its horizon before
//! it looks at the words, so one of the two sees the other. A sleeper
//! looks again whenever it wakes (and every 20 ms): a wake is only ever
//! early, and results never depend on when it comes.
//!
//! Every core's time starts at 0 when it enters the booted image (the
//! plugin's `entry=` option): the firmware QEMU runs before (qboot, which
//! the chip does not have) takes no modelled time, since how many
//! instructions its timer loops execute depends on the host. Until then a
//! core holds the others back at 0: a core whose QEMU starts late, or
//! whose firmware takes long, holds the others back until it catches up.
//! Time starts from the same 0 on every core, so what depends on absolute
//! modelled time (the calendars' buckets, the DRAM refresh schedule) is
//! the same in every run.
//!
//! The same program and settings give the same modelled cycles whatever
//! the host load and the quantum: `bench-lock` on 4 cores, alone, beside
//! two busy host processes and with a tenth of the quantum, and every
//! benchmark program at quick scale on 1 to 4 cores, alone and beside two
//! busy processes (`tests/tests/determinism.rs`), and `bench-lock` on 16
//! cores, three runs beside two busy processes and runs at quanta of
//! 10,000 and 1,000 cycles, all gave identical samples.
//!
//! Determinism has a price silicon does not pay: modelled time has no
//! timing noise but DRAM refresh (periodic in modelled time, and only for
//! requests to DRAM), so cores that fall into step stay in step. Two cores
//! spinning on a guarded compare_and_swap without back-off, each attempt
//! coming just after the other's release, kept the test-and-set register
//! from the holder of the lock they spun for, forever (`rma-passive` on 8
//! cores, before its mutex backed off); on silicon the holder's attempts
//! drift against theirs until one gets in. Spins that retry at once
//! should back off by a random time, as `rma-passive`'s mutex and GBH's
//! back-off do.
//!
//! # What stays nondeterministic
//!
//! What the host still decides:
//! - Reads that race with another core's stores and are not ordered (a
//!   plain read outside any wait, of data another core writes without
//!   synchronisation): they see the data or not by host order; those that
//!   see data from the modelled future are counted (`future` in
//!   `--stats`).
//! - A line's stamp keeps only its last write: a write whose stamp a
//!   later write to other words of the line replaced no longer moves a
//!   reader of its words.
//! - The first poll of a line of DRAM: stores to it are not ordered
//!   until some poll has read it, so the first poll may see a store from
//!   after its start, or miss it and wait for it (stores to the MPBs
//!   always order).
//! - An ordered access not made within 65,536 cycles stops holding the
//!   others back, and is not ordered from then on (a poll that runs
//!   longer orders again instead, see above).
//! - A core resuming from a halt (not a wait) books its requests in
//!   buckets the others may have charged already.
//! - Cores further apart than a quarter of a calendar's ring
//!   ([`queue::LEAD`]; a quantum larger than about 170,000 cycles lets
//!   running cores drift that far) may reuse a slot before a core reads
//!   it back.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::model::latency::{self, Queue, Resource};
use crate::model::queue::{self, Load};
use crate::model::variation::Variation;
use crate::shm::Mapping;

/// How many cores sleep (32 bits): publishing looks for sleepers to wake
/// only when there are some.
const SLEEPERS: u64 = 0;
/// Set (32 bits) when the run stops its cores: nobody sleeps any more, so
/// that every QEMU can exit and write its report.
const STOPPING: u64 = 4;
const CORES: u64 = 256;
const PER_CORE: u64 = 1024;
const CALENDARS: u64 = CORES + PER_CORE * MAX_CORES as u64;
/// A wake time not known yet, or no sleeper's wanted time.
const NEVER: u64 = u64::MAX;

/// Most cores the clocks file holds: as many as a chip may have.
pub const MAX_CORES: u32 = chip::MAX_CORES;

/// Bytes of the clocks file.
pub const FILE_SIZE: u64 = CALENDARS + QUEUES * queue::SLOTS * 8;

/// Calendars in the clocks file: one per memory controller, then one per
/// tile's MPB, then one per tile's register block, then one per link
/// ([`latency::QUEUES`]).
const QUEUES: u64 = latency::QUEUES as u64;
const _: () = assert!(CORES + PER_CORE * MAX_CORES as u64 <= CALENDARS);

/// The clocks file of the run in `dir`.
pub fn clocks_path(dir: &Path) -> PathBuf {
    dir.join("clocks.mem")
}

/// The default quantum, in core cycles: defined with the run modes.
pub use chip::DEFAULT_QUANTUM;

/// How long a sleeper waits before it looks again on its own: a safety net
/// only, every move that may release it wakes it or hands it over to the
/// next core it waits for ([`Clocks::sleep_until`]).
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
    /// Waiting, and until it has read back the final loads of its
    /// requests' buckets ([`Clocks::hold`]), holding the running cores
    /// within a quantum of its hold time, as a running core's clock would.
    Holding = 4,
}

impl State {
    fn from_word(word: u64) -> Option<Self> {
        [
            Self::Running,
            Self::Halted,
            Self::Finished,
            Self::Waiting,
            Self::Holding,
        ]
        .into_iter()
        .find(|s| *s as u64 == word)
    }

    /// Whether the core waits in modelled time (holding or not).
    fn waits(word: u64) -> bool {
        word == Self::Waiting as u64 || word == Self::Holding as u64
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
    /// While it waits: when it resumes, `u64::MAX` while no store has set
    /// that yet.
    pub wake: u64,
    /// Its stack pointer at its last wait.
    pub sp: u32,
}

impl CoreTime {
    /// Whether it waits in modelled time for a store to a line it watches
    /// that no core has made yet: only a running core can make one.
    pub fn waits_for_a_store(&self) -> bool {
        self.state == Some(State::Waiting) && self.wake == NEVER
    }
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
    let half = |offset: u64| {
        let at = offset as usize;
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
    };
    Ok((0..cores.min(MAX_CORES))
        .map(|c| CoreTime {
            clock: word(Clocks::at(c, Word::Clock)),
            state: State::from_word(word(Clocks::at(c, Word::State))),
            pc: half(Clocks::at(c, Word::Pc)),
            wake: word(Clocks::at(c, Word::Wake)),
            sp: half(Clocks::at(c, Word::Sp)),
        })
        .collect())
}

/// A word of a core's part of the clocks file (offsets in the module's
/// table, from the core's clock).
#[derive(Debug, Clone, Copy)]
enum Word {
    Clock = 0,
    State = 8,
    /// The address of its last instruction (32 bits), then its stack
    /// pointer at its last wait (32 bits).
    Pc = 16,
    Sp = 20,
    Wake = 24,
    PollStart = 32,
    Period = 40,
    Wanted = 48,
    Futex = 56,
    Sleeping = 60,
    Booked = 64,
    BookingLock = 72,
    PollQueues = 80,
    PollQueue = 88,
    /// Holding: the time it holds the running cores within a quantum of
    /// ([`Clocks::hold`]). The last word of its part, after the
    /// [`POLL_QUEUES`] words from `PollQueue`.
    Held = 1016,
}

const _: () = assert!(Word::PollQueue as u64 + 8 * POLL_QUEUES as u64 <= Word::Held as u64);
const _: () = assert!(Word::Held as u64 + 8 <= PER_CORE);

/// What a sleeping core waits for ([`Clocks::sleep_until`]), as it
/// registers it in its `Wanted` word for the cores that may release it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Until {
    /// Every other core past time `time` of the sleeper
    /// ([`Clocks::ordered`]); core `on` is not ([`Look::past`]).
    Past { time: u64, on: u32 },
    /// Every other running core's clock at `time` at least; core `on`'s
    /// is not ([`Look::reached`]).
    Reached { time: u64, on: u32 },
    /// Some other core's horizon at `time` at least ([`NEVER`]: only an
    /// explicit wake releases the sleeper).
    Any { time: u64 },
}

impl Until {
    /// Bits of the `Wanted` word below the time: the kind, then the core.
    const LOW_BITS: u32 = 16;
    /// Bits of the core's number.
    const CORE_BITS: u32 = 14;
    const _FITS: () = assert!(MAX_CORES <= 1 << Self::CORE_BITS);
    /// The largest time the word holds other than [`NEVER`]'s all ones.
    const TIME_MAX: u64 = (NEVER >> Self::LOW_BITS) - 1;

    /// The time this waits for.
    fn time(self) -> u64 {
        match self {
            Self::Past { time, .. } | Self::Reached { time, .. } | Self::Any { time } => time,
        }
    }

    /// The `Wanted` word: the time above the kind and the core. A time
    /// too large for it is registered lower (never reached by a run of
    /// less than 2^48 cycles; at worst, the sleeper is woken early and
    /// looks again).
    fn word(self) -> u64 {
        let (kind, on) = match self {
            Self::Past { on, .. } => (0, on),
            Self::Reached { on, .. } => (1, on),
            Self::Any { .. } => (2, 0),
        };
        let time = match self.time() {
            NEVER => NEVER >> Self::LOW_BITS,
            t => t.min(Self::TIME_MAX),
        };
        time << Self::LOW_BITS | kind << Self::CORE_BITS | u64::from(on)
    }

    /// What the `Wanted` word `word` registers ([`Until::word`]).
    fn of_word(word: u64) -> Self {
        let time = match word >> Self::LOW_BITS {
            t if t == NEVER >> Self::LOW_BITS => NEVER,
            t => t,
        };
        let on = (word & ((1 << Self::CORE_BITS) - 1)) as u32;
        match (word >> Self::CORE_BITS) & 3 {
            0 => Self::Past { time, on },
            1 => Self::Reached { time, on },
            _ => Self::Any { time },
        }
    }
}

/// Whether core `o`, at horizon `h`, is not past time `t` of core `c`:
/// its horizon is earlier, or the same and it goes first at `t` (ties
/// break as the run's arbitration draws them,
/// [`Variation::goes_first`]).
fn holds_past(h: u64, o: u32, c: u32, t: u64, variation: Variation) -> bool {
    h < t || (h == t && variation.goes_first(t, o, c))
}

/// What core `c` of `cores` waits for to have every other core past its
/// time `t`, each core's horizon as `horizon` gives it: of those not
/// past, the one closest to it (see [`Look`]); `None` if all are past.
fn not_past(
    cores: u32,
    c: u32,
    t: u64,
    variation: Variation,
    horizon: impl Fn(u32) -> u64,
) -> Option<Until> {
    (0..cores)
        .filter(|&o| o != c)
        .map(|o| (horizon(o), o))
        .filter(|&(h, o)| holds_past(h, o, c, t, variation))
        .max()
        .map(|(_, on)| Until::Past { time: t, on })
}

/// What core `c` of `cores` waits for to have every other running core's
/// clock at `t`, each core's clock as `clock` gives it ([`NEVER`]: not
/// running): of those behind, the one closest to it; `None` if none is.
fn not_reached(cores: u32, c: u32, t: u64, clock: impl Fn(u32) -> u64) -> Option<Until> {
    (0..cores)
        .filter(|&o| o != c)
        .map(|o| (clock(o), o))
        .filter(|&(clock, _)| clock < t)
        .max()
        .map(|(_, on)| Until::Reached { time: t, on })
}

/// Every core's horizon ([`Clocks::horizon`]) and, while it runs, clock
/// ([`NEVER`] otherwise), at one look: what holds back each sleeper a core
/// hands over ([`Clocks::hand_over`]), whichever it is.
///
/// Of the cores holding a sleeper back, it names the one closest to its
/// time, not the one furthest behind: cores behind a time pass it in the
/// order of their horizons (the furthest behind runs, the others wait for
/// it in turn), so the closest passes last, and the sleeper is handed over
/// about once in ten times less often (comm on 48 cores: 0.12 M hand-overs
/// against 1.7 M, for 0.34 M sleeps).
struct Look {
    cores: u32,
    variation: Variation,
    horizons: [u64; MAX_CORES as usize],
    clocks: [u64; MAX_CORES as usize],
}

impl Look {
    /// What core `c` waits for to have every other core past its time `t`
    /// ([`Clocks::ordered`]): of those not past, the one closest to it.
    fn past(&self, c: u32, t: u64) -> Option<Until> {
        not_past(self.cores, c, t, self.variation, |o| {
            self.horizons[o as usize]
        })
    }

    /// What core `c` waits for to have every other running core's clock at
    /// `t`: of those behind, the one closest to it.
    fn reached(&self, c: u32, t: u64) -> Option<Until> {
        not_reached(self.cores, c, t, |o| self.clocks[o as usize])
    }

    /// What holds back sleeping core `c`, which registered `until`.
    fn holding_back(&self, c: u32, until: Until) -> Option<Until> {
        match until {
            Until::Past { time, .. } => self.past(c, time),
            Until::Reached { time, .. } => self.reached(c, time),
            Until::Any { .. } => None,
        }
    }
}

/// Lines of a waiting core's poll whose resources are booked for the polls
/// it makes while it waits (the first lines the poll read that reach a
/// resource).
pub const POLL_LINES: usize = 4;

/// Most resources a waiting core's polls reach that are booked: each of
/// [`POLL_LINES`] lines' target and the links on its way there and back,
/// 29 on the 8x8 mesh's longest route (14 hops each way).
pub const POLL_QUEUES: usize = POLL_LINES * 29;

/// Most polls of one wait booked in the calendars: beyond, a longer wait
/// loads no resource and costs no more host time (a bound on the
/// emulator's own work, not a model parameter).
pub const MAX_BOOKED_POLLS: u64 = 4096;

const _: () = assert!(Word::PollQueue as u64 + 8 * POLL_QUEUES as u64 <= PER_CORE);

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
    /// How ties between cores ordering at the same cycle break.
    variation: Variation,
    /// Times this core slept because it was a quantum ahead.
    pub sleeps: u64,
    /// Times this core blocked to order a synchronising access.
    pub order_waits: u64,
    /// Reads outside any poll of words stamped later than the reader's
    /// clock (see the module's rules), counted by the engine.
    pub future_reads: u64,
}

impl Clocks {
    /// Offset of `word` of core `c`.
    fn at(c: u32, word: Word) -> u64 {
        CORES + PER_CORE * u64::from(c) + word as u64
    }

    /// Core `core`'s side of a run of `cores` cores over the mapped clocks
    /// file, keeping within `quantum` cycles of the slowest running core;
    /// requests queue at the resources if `queues`; ties between cores
    /// that order at the same cycle break as `variation` draws them.
    pub fn new(
        map: Mapping,
        core: u32,
        cores: u32,
        quantum: u64,
        queues: bool,
        variation: Variation,
    ) -> Self {
        assert!(cores <= MAX_CORES && core < cores);
        Self {
            map,
            core,
            cores,
            quantum,
            queues,
            variation,
            sleeps: 0,
            order_waits: 0,
            future_reads: 0,
        }
    }

    /// The quantum.
    pub fn quantum(&self) -> u64 {
        self.quantum
    }

    /// Whether requests queue at the resources.
    pub fn queues(&self) -> bool {
        self.queues
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
            Some(State::Waiting | State::Holding) => self.map.load(Self::at(c, Word::Wake)),
            _ => NEVER,
        }
    }

    /// Whether every other core is past time `t` of this core: its
    /// horizon is later, or equal and it goes after this core at `t`.
    pub fn ordered(&self, t: u64) -> bool {
        let me = self.core;
        (0..self.cores)
            .filter(|&o| o != me)
            .all(|o| !holds_past(self.horizon(o), o, me, t, self.variation))
    }

    /// What core `me` waits for to have every other core past its time
    /// `t` ([`Clocks::ordered`]): of those not past, the one closest to
    /// it (see [`Look`]); `None` if every other core is past.
    fn past(&self, me: u32, t: u64) -> Option<Until> {
        not_past(self.cores, me, t, self.variation, |o| self.horizon(o))
    }

    /// What core `me` waits for to have every other running core's clock
    /// at `t`: of those behind, the one closest to it; `None` if none is
    /// behind `t`.
    fn reached(&self, me: u32, t: u64) -> Option<Until> {
        not_reached(self.cores, me, t, |o| self.pacing_clock(o))
    }

    /// Core `c`'s clock if it runs, its hold time if it holds
    /// ([`Clocks::hold`]), [`NEVER`] otherwise.
    fn pacing_clock(&self, c: u32) -> u64 {
        match State::from_word(self.map.load(Self::at(c, Word::State))) {
            Some(State::Running) => self.map.load(Self::at(c, Word::Clock)),
            Some(State::Holding) => self.map.load(Self::at(c, Word::Held)),
            _ => NEVER,
        }
    }

    /// Every core's horizon and, if it runs, clock, at one look.
    fn look(&self) -> Look {
        let mut look = Look {
            cores: self.cores,
            variation: self.variation,
            horizons: [NEVER; MAX_CORES as usize],
            clocks: [NEVER; MAX_CORES as usize],
        };
        for c in 0..self.cores {
            look.horizons[c as usize] = self.horizon(c);
            look.clocks[c as usize] = self.pacing_clock(c);
        }
        look
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
        self.sleep_until(|s| s.past(s.core, now));
        true
    }

    /// Sleeps on this core's futex word while `wanted` gives what holds it
    /// back ([`Until`]); `None` once it may go on. It registers what it
    /// waits for in its `Wanted` word, and the core named there (any core,
    /// for [`Until::Any`]) wakes it once its horizon passes that time, or
    /// names the next core holding it back instead ([`Clocks::hand_over`]).
    fn sleep_until(&self, wanted: impl Fn(&Self) -> Option<Until>) {
        let me = self.core;
        let registered = Self::at(me, Word::Wanted);
        while let Some(until) = wanted(self) {
            if self.stopping() {
                return;
            }
            // Register before looking again, so that a horizon moving
            // after the look sees the sleeper.
            self.map.store(registered, until.word());
            self.map.fetch_add_u32(Self::at(me, Word::Sleeping), 1);
            self.map.fetch_add_u32(SLEEPERS, 1);
            let seq = self.map.load_atomic_u32(Self::at(me, Word::Futex));
            // Asleep only while what is registered (by this core, or since
            // by a core handing over) holds it back: the core named there
            // has not passed the time since it was named, so it will.
            if wanted(self).map(Until::word) == Some(self.map.load(registered)) {
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

    /// This core's horizon moved to `reached`: each sleeper that waits for
    /// it to pass a time at or before `reached` (or for any core to) is
    /// woken, or handed over to the next core it waits for.
    fn wake_sleepers(&self, reached: u64) {
        if self.map.load_atomic_u32(SLEEPERS) == 0 {
            return;
        }
        let mut look = None;
        for c in (0..self.cores).filter(|&c| c != self.core) {
            if self.map.load_atomic_u32(Self::at(c, Word::Sleeping)) == 0 {
                continue;
            }
            let word = self.map.load(Self::at(c, Word::Wanted));
            let until = Until::of_word(word);
            if until.time() > reached || until.time() == NEVER {
                continue;
            }
            match until {
                Until::Any { .. } => self.wake_core(c),
                Until::Past { on, .. } | Until::Reached { on, .. } if on == self.core => {
                    self.hand_over(c, word, &mut look);
                }
                _ => {}
            }
        }
    }

    /// Sleeping core `c` registered `word`, naming this core, which may no
    /// longer hold it back: names the core that does instead, or wakes `c`
    /// if none does, as `look` shows the others (taken once for every
    /// sleeper this core hands over, and again once it proves stale).
    /// Each core named is looked at again after it is named, so that one
    /// passing meanwhile (and not seeing its name) is not waited for.
    /// Gives up if `c` registers anew meanwhile: it looks again itself.
    fn hand_over(&self, c: u32, mut word: u64, look: &mut Option<Look>) {
        loop {
            let next = look
                .get_or_insert_with(|| self.look())
                .holding_back(c, Until::of_word(word));
            let Some(next) = next else {
                self.wake_core(c);
                return;
            };
            let new = next.word();
            if new == word {
                return;
            }
            if self
                .map
                .try_update(Self::at(c, Word::Wanted), &mut |w| {
                    (w == word).then_some(new)
                })
                .is_err()
            {
                return;
            }
            if self.holds_back(c, next) {
                return;
            }
            *look = None;
            word = new;
        }
    }

    /// Whether the core `until` names still holds sleeping core `c` back.
    fn holds_back(&self, c: u32, until: Until) -> bool {
        match until {
            Until::Past { time, on } => holds_past(self.horizon(on), on, c, time, self.variation),
            Until::Reached { time, on } => self.pacing_clock(on) < time,
            Until::Any { .. } => false,
        }
    }

    /// This core is about to wait in modelled time: its last poll began
    /// at `start` and repeats every `period` cycles, and its wake time is
    /// not known yet. Called before it watches its lines, while it still
    /// holds the others back, so that the first store after its poll is
    /// the first to see it watching ([`Clocks::wake_waiter`]).
    /// Each poll reaches `queues` (the first [`POLL_QUEUES`] are booked).
    pub fn prepare_wait(&self, start: u64, period: u64, queues: &[Queue]) {
        let me = self.core;
        let period = period.max(1);
        self.map.store(Self::at(me, Word::PollStart), start);
        self.map.store(Self::at(me, Word::Period), period);
        self.map.store(Self::at(me, Word::Wake), NEVER);
        let queues = &queues[..queues.len().min(POLL_QUEUES)];
        for (i, q) in queues.iter().enumerate() {
            let word = (q.resource.calendar() as u64) << 32 | q.arrival.min(u64::from(u32::MAX));
            self.map
                .store(Self::at(me, Word::PollQueue) + 8 * i as u64, word);
        }
        self.map
            .store(Self::at(me, Word::PollQueues), queues.len() as u64);
        // The poll at `start` is made: the next one is not booked yet
        // (nothing is, without queues).
        let booked = if self.queues { start + period } else { NEVER };
        self.map.store(Self::at(me, Word::Booked), booked);
    }

    /// This core is about to halt (outside the emulator's waits): it will
    /// make no polls, and no store sets its wake time. Called before
    /// [`Clocks::hold`], which a halting core may need as a waiting one
    /// does.
    pub fn prepare_halt(&self) {
        let me = self.core;
        self.map.store(Self::at(me, Word::Wake), NEVER);
        self.map.store(Self::at(me, Word::PollQueues), 0);
        self.map.store(Self::at(me, Word::Booked), NEVER);
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
    /// a tie with a poller that goes first at `at`, whose poll came first),
    /// unless an earlier wake is already set.
    pub fn wake_waiter(&self, c: u32, at: u64, writer: u32) {
        let start = self.map.load(Self::at(c, Word::PollStart));
        let period = self.map.load(Self::at(c, Word::Period)).max(1);
        let mut t = start + at.saturating_sub(start).div_ceil(period).max(1) * period;
        if t == at && self.variation.goes_first(at, c, writer) {
            t += period;
        }
        if self.map.fetch_min(Self::at(c, Word::Wake), t) > t {
            self.wake_set(c);
        }
    }

    /// Core `c`'s wake time moved earlier. If it sleeps waiting for it,
    /// registers for it what it waits for now (the cores to pass its wake
    /// time, [`Clocks::wait_until_woken`]), as it would itself once woken,
    /// or wakes it if no core holds it back. Awake, it looks at its wake
    /// time after it registers and before it sleeps; asleep for anything
    /// else (not waiting), it does not look at it.
    fn wake_set(&self, c: u32) {
        if self.map.load_atomic_u32(Self::at(c, Word::Sleeping)) == 0
            || !State::waits(self.map.load(Self::at(c, Word::State)))
        {
            return;
        }
        let registered = Self::at(c, Word::Wanted);
        let word = self.map.load(registered);
        let wake = self.map.load(Self::at(c, Word::Wake));
        match Until::of_word(word) {
            // Registered for this wake time already.
            Until::Past { time, .. } if time == wake => return,
            Until::Past { time, .. } if time > wake => {}
            Until::Any { time: NEVER } => {}
            _ => return self.wake_core(c),
        }
        let Some(next) = self.past(c, wake) else {
            return self.wake_core(c);
        };
        let new = next.word();
        if self
            .map
            .try_update(registered, &mut |w| (w == word).then_some(new))
            .is_err()
        {
            return self.wake_core(c);
        }
        if !self.holds_back(c, next) {
            self.hand_over(c, new, &mut None);
        }
    }

    /// Blocks this core, waiting, until its wake time is set and every
    /// other core is past it; returns the wake time, or `None` if the run
    /// stops its cores first.
    pub fn wait_until_woken(&self) -> Option<u64> {
        let wake = |s: &Self| s.map.load(Self::at(s.core, Word::Wake));
        self.sleep_until(|s| match wake(s) {
            NEVER => Some(Until::Any { time: NEVER }),
            w => s.past(s.core, w),
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
        self.map.store_atomic_u32(Self::at(self.core, Word::Pc), pc);
    }

    /// Publishes the stack pointer at this core's wait, for a run tool's
    /// backtrace of it.
    pub fn publish_sp(&self, sp: u32) {
        self.map.store_atomic_u32(Self::at(self.core, Word::Sp), sp);
    }

    /// The slowest running core's clock, this core left out; `None` if no
    /// other core runs.
    pub fn slowest_other(&self) -> Option<u64> {
        (0..self.cores)
            .filter(|&c| c != self.core)
            .map(|c| self.pacing_clock(c))
            .filter(|&clock| clock != NEVER)
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
        // More than a quantum ahead of the slowest: until every other
        // running core is at most a quantum behind.
        let ahead = |s: &Self| {
            now.checked_sub(s.quantum)
                .and_then(|t| s.reached(s.core, t))
        };
        if ahead(self).is_none() {
            return;
        }
        self.sleeps += 1;
        self.sleep_until(ahead);
    }

    /// Adds `requests` requests from `cores` more cores (negative: takes
    /// them back) to bucket `k` of `resource`'s calendar
    /// ([`queue::add`]); nothing if requests do not queue.
    pub fn book(&self, resource: Resource, k: u64, requests: i64, cores: i64) {
        if self.queues {
            queue::add(&self.calendar(resource), k, requests, cores);
        }
    }

    /// The loads of bucket `k` of `resource`'s calendar and of the
    /// [`queue::HISTORY`] buckets before it, oldest first: final once
    /// [`Clocks::booked_through`] the end of bucket `k`.
    pub fn loads(&self, resource: Resource, k: u64) -> [Load; queue::HISTORY + 1] {
        let calendar = self.calendar(resource);
        let mut loads = [Load::default(); queue::HISTORY + 1];
        for (i, load) in loads.iter_mut().enumerate() {
            if let Some(b) = (k + i as u64).checked_sub(queue::HISTORY as u64) {
                *load = queue::load(&calendar, b);
            }
        }
        loads
    }

    /// Moves `window`, the loads [`Clocks::loads`] gave for bucket `from`
    /// of `resource`, on to those of bucket `k`, reading only the buckets
    /// it does not hold yet (all of them if `from` is `None`, after `k`, or
    /// more than [`queue::HISTORY`] buckets before it). Final buckets stay
    /// final, so a window read once serves the later requests of the same
    /// resource.
    pub fn advance_loads(
        &self,
        resource: Resource,
        k: u64,
        window: &mut [Load; queue::HISTORY + 1],
        from: Option<u64>,
    ) {
        let Some(shift) = from
            .and_then(|f| k.checked_sub(f))
            .filter(|&d| d <= queue::HISTORY as u64)
        else {
            *window = self.loads(resource, k);
            return;
        };
        let shift = shift as usize;
        if shift == 0 {
            return;
        }
        window.copy_within(shift.., 0);
        let calendar = self.calendar(resource);
        let fresh = queue::HISTORY + 1 - shift;
        for (i, load) in window.iter_mut().enumerate().skip(fresh) {
            *load = (k + i as u64)
                .checked_sub(queue::HISTORY as u64)
                .map_or(Load::default(), |b| queue::load(&calendar, b));
        }
    }

    fn calendar(&self, resource: Resource) -> SharedCalendar<'_> {
        SharedCalendar {
            map: &self.map,
            base: CALENDARS + resource.calendar() as u64 * queue::SLOTS * 8,
        }
    }

    /// Whether core `c` has booked every request it will make that arrives
    /// before `t`: running, its clock has reached `t`; waiting, the polls
    /// it books ahead reach `t` and it does not resume before; halted or
    /// finished, it books nothing more (a halted core's requests after it
    /// resumes go to buckets as they are then).
    fn booked_by(&self, c: u32, t: u64) -> bool {
        match State::from_word(self.map.load(Self::at(c, Word::State))) {
            Some(State::Running) => self.map.load(Self::at(c, Word::Clock)) >= t,
            Some(State::Waiting | State::Holding) => {
                self.map.load(Self::at(c, Word::Booked)) >= t
                    && self.map.load(Self::at(c, Word::Wake)) >= t
            }
            _ => true,
        }
    }

    /// Whether every other core has booked its requests arriving before
    /// `t` (see `Clocks::booked_by`): the buckets before `t` are final.
    pub fn booked_through(&self, t: u64) -> bool {
        (0..self.cores)
            .filter(|&c| c != self.core)
            .all(|c| self.booked_by(c, t))
    }

    /// Publishes `now` and blocks until the buckets before `t` are final
    /// ([`Clocks::booked_through`]), booking the polls of waiting cores
    /// that no core can wake before `t` ([`Clocks::book_polls`]). Returns at
    /// once if the run is stopping its cores.
    pub fn await_booked(&mut self, now: u64, t: u64) {
        self.publish(now);
        let unbooked = |s: &Self| {
            if s.booked_through(t) {
                return None;
            }
            s.book_waiters_polls(t, false);
            (!s.booked_through(t)).then_some(Until::Any { time: t })
        };
        if unbooked(self).is_some() {
            self.order_waits += 1;
            self.sleep_until(unbooked);
        }
    }

    /// Books the polls before `t` of every waiting core (this one too if
    /// `me`) that no core can wake before `t`: it makes them until then.
    /// A waiter qualifies when no other core's horizon is before `t`: with
    /// two or more cores before `t` none does (the horizons are read up to
    /// the second), with one only that core, with none every waiter.
    fn book_waiters_polls(&self, t: u64, me: bool) {
        let mut behind = (0..self.cores).filter(|&o| self.horizon(o) < t);
        let only = match (behind.next(), behind.next()) {
            (_, Some(_)) => return,
            (first, None) => first,
        };
        for c in (0..self.cores).filter(|&c| me || c != self.core) {
            if only.is_none_or(|o| o == c)
                && State::waits(self.map.load(Self::at(c, Word::State)))
                && self.map.load(Self::at(c, Word::Booked)) < t
            {
                self.book_polls(c, t);
            }
        }
    }

    /// This core, about to wait ([`Clocks::prepare_wait`]) with requests
    /// in buckets that end by `t` whose waits are not charged yet, waits
    /// holding the running cores within a quantum of `t` (its clock, for
    /// them), so that none books a request a calendar's ring later, in
    /// their slots, before it has read their loads
    /// ([`Clocks::await_final`]); [`Clocks::release`] ends the hold. It
    /// holds nobody back otherwise: as waiting, from its wake time.
    ///
    /// `t` goes in a word of its own, written before the state, and the
    /// clock keeps the time the core reached: a core that reads the state
    /// still running, and the clock after this, must not take the core to
    /// have booked its requests up to `t`, nor to act no earlier than `t`
    /// (it may resume before, at its wake time).
    pub fn hold(&self, t: u64) {
        let me = self.core;
        let t = t.max(self.map.load(Self::at(me, Word::Clock)));
        self.map.store(Self::at(me, Word::Held), t);
        self.map
            .store(Self::at(me, Word::State), State::Holding as u64);
        self.wake_sleepers(NEVER);
    }

    /// Holding ([`Clocks::hold`]), blocks until the buckets before `t`
    /// are final with this core still waiting at `t`: every other core has
    /// booked its requests before `t` ([`Clocks::booked_through`]), and so
    /// has this one, its polls included. Returns whether they are; not if
    /// a store sets its wake time before `t` (it then resumes so soon
    /// after them that it reads them as a running core does), nor if the
    /// run stops its cores. Once the others are past `t` no store can set
    /// its wake time before `t` any more.
    pub fn await_final(&self, t: u64) -> bool {
        let me = self.core;
        let wake = |s: &Self| s.map.load(Self::at(me, Word::Wake));
        let done = |s: &Self| {
            s.booked_through(t) && s.map.load(Self::at(me, Word::Booked)) >= t && wake(s) >= t
        };
        self.sleep_until(|s| {
            if wake(s) < t || done(s) {
                return None;
            }
            s.book_waiters_polls(t, true);
            if done(s) {
                return None;
            }
            Some(s.past(me, t).unwrap_or(Until::Any { time: t }))
        });
        !self.stopping() && done(self)
    }

    /// The hold ends ([`Clocks::hold`]): the core waits holding nobody
    /// back until its wake time is known.
    pub fn release(&self) {
        self.map
            .store(Self::at(self.core, Word::State), State::Waiting as u64);
        self.wake_sleepers(NEVER);
    }

    /// Books the polls waiting core `c` issues before `t`, up to
    /// [`MAX_BOOKED_POLLS`] in all, if it still waits at `t`: each at the
    /// resources the core published, in the bucket of its arrival (counting
    /// the core once per bucket). One core at a time books a core's polls.
    pub fn book_polls(&self, c: u32, t: u64) {
        let lock = Self::at(c, Word::BookingLock);
        while self
            .map
            .try_update(lock, &mut |w| (w == 0).then_some(1))
            .is_err()
        {
            std::thread::yield_now();
        }
        let booked = self.map.load(Self::at(c, Word::Booked));
        let waits_past = State::waits(self.map.load(Self::at(c, Word::State)))
            && self.map.load(Self::at(c, Word::Wake)) >= t;
        if waits_past && booked < t {
            let start = self.map.load(Self::at(c, Word::PollStart));
            let period = self.map.load(Self::at(c, Word::Period)).max(1);
            let queues: Vec<(Resource, u64)> = (0..self.map.load(Self::at(c, Word::PollQueues)))
                .map(|i| {
                    let word = self.map.load(Self::at(c, Word::PollQueue) + 8 * i);
                    (
                        Resource::from_calendar((word >> 32) as usize),
                        word & u64::from(u32::MAX),
                    )
                })
                .collect();
            // Poll j is issued at start + j·period; those before `booked`
            // are in.
            let first = (booked - start) / period;
            let last = t
                .saturating_sub(start)
                .div_ceil(period)
                .min(MAX_BOOKED_POLLS + 1);
            for j in first..last {
                let at = start + j * period;
                for &(resource, arrival) in &queues {
                    let k = resource.bucket_of(at + arrival);
                    let new_core = resource.bucket_of(at - period + arrival) != k;
                    self.book(resource, k, 1, i64::from(new_core));
                }
            }
            let reach = if last > MAX_BOOKED_POLLS {
                NEVER
            } else {
                start + last.max(first) * period
            };
            self.map.store(Self::at(c, Word::Booked), reach);
        }
        self.map.store(lock, 0);
        // No sleeper needs waking: one that waits for these polls either
        // books them itself or waits for a core behind `t`, whose clock
        // wakes it when it moves.
    }
}

/// One resource's calendar in the clocks file.
struct SharedCalendar<'a> {
    map: &'a Mapping,
    base: u64,
}

impl queue::Calendar for SharedCalendar<'_> {
    fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64> {
        self.map.try_update(self.base + 8 * i, f)
    }

    fn load(&self, i: u64) -> u64 {
        self.map.load(self.base + 8 * i)
    }
}

#[cfg(test)]
mod tests {
    /// The variation the tests run with: ties break as it draws them.
    const TEST_VARIATION: Variation = Variation::new(0);

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
            TEST_VARIATION,
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

    /// Waits (up to 30 s, for a busy host) until core `c` of the run
    /// sleeps registered for `until`.
    fn until_registered(clocks: &Clocks, c: u32, until: Until) {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while clocks.map.load_atomic_u32(Clocks::at(c, Word::Sleeping)) == 0
            || clocks.map.load(Clocks::at(c, Word::Wanted)) != until.word()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "core {c} never slept for {until:?}"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn what_a_sleeper_waits_for_fits_its_word() {
        for until in [
            Until::Past { time: 0, on: 0 },
            Until::Past {
                time: 123_456_789,
                on: MAX_CORES - 1,
            },
            Until::Reached { time: 7, on: 47 },
            Until::Any { time: 99 },
            Until::Any { time: NEVER },
        ] {
            assert_eq!(Until::of_word(until.word()), until);
        }
        // Too late a time is registered earlier, never later.
        let late = Until::of_word(Until::Any { time: NEVER - 1 }.word());
        assert!(late.time() < NEVER - 1);
    }

    #[test]
    fn a_sleeper_waits_on_the_core_closest_to_its_time() {
        let mut look = Look {
            cores: 6,
            variation: TEST_VARIATION,
            horizons: [NEVER; MAX_CORES as usize],
            clocks: [NEVER; MAX_CORES as usize],
        };
        for (c, h) in [(0, 20), (1, 30), (3, 10), (5, 10)] {
            look.horizons[c] = h;
        }
        // Of cores 3 and 5, both at 10, the first at 10 waits for nobody.
        let (first, second) = if TEST_VARIATION.goes_first(10, 3, 5) {
            (3, 5)
        } else {
            (5, 3)
        };
        assert_eq!(
            look.past(second, 10),
            Some(Until::Past {
                time: 10,
                on: first
            })
        );
        assert_eq!(look.past(first, 10), None);
        assert_eq!(look.past(4, 25), Some(Until::Past { time: 25, on: 0 }));
        assert_eq!(look.past(0, 25), Some(Until::Past { time: 25, on: 5 }));
        assert_eq!(look.past(2, 31), Some(Until::Past { time: 31, on: 1 }));
        look.clocks[1] = 30;
        look.clocks[3] = 10;
        assert_eq!(
            look.reached(0, 31),
            Some(Until::Reached { time: 31, on: 1 })
        );
        assert_eq!(
            look.reached(1, 31),
            Some(Until::Reached { time: 31, on: 3 })
        );
        assert_eq!(look.reached(0, 10), None);
        assert_eq!(look.holding_back(0, Until::Any { time: 99 }), None);
    }

    #[test]
    fn an_ordering_core_is_handed_over_to_each_core_behind_it_and_woken_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = clocks(dir.path(), 0, 3, 1000);
        let b = clocks(dir.path(), 1, 3, 1000);
        let c = clocks(dir.path(), 2, 3, 1000);
        b.publish(10);
        c.publish(50);
        let futex = Clocks::at(0, Word::Futex);
        let sleeper = std::thread::spawn(move || {
            assert!(a.order(100));
            a
        });
        // It waits on the core closest to its time.
        until_registered(&b, 0, Until::Past { time: 100, on: 2 });
        let seq = b.map.load_atomic_u32(futex);
        // Core 1 moving does not release it.
        b.publish(60);
        assert_eq!(b.map.load_atomic_u32(futex), seq, "core 2 holds it");
        // Past it, core 2 names core 1 instead of waking it.
        c.publish(200);
        assert_eq!(
            Until::of_word(b.map.load(Clocks::at(0, Word::Wanted))),
            Until::Past { time: 100, on: 1 }
        );
        assert_eq!(b.map.load_atomic_u32(futex), seq, "not woken");
        assert!(!sleeper.is_finished());
        b.publish(99);
        assert_eq!(b.map.load_atomic_u32(futex), seq, "still behind");
        // On a tie, the core the arbitration puts first at 100 goes first.
        b.publish(100);
        if TEST_VARIATION.goes_first(100, 1, 0) {
            assert_eq!(b.map.load_atomic_u32(futex), seq, "core 1 goes first");
            b.publish(101);
        }
        let a = sleeper.join().unwrap();
        assert_eq!(a.order_waits, 1);
    }

    #[test]
    fn a_store_setting_a_sleeping_waiters_wake_time_registers_its_writer() {
        let dir = tempfile::tempdir().unwrap();
        let waiter = clocks(dir.path(), 0, 2, 1000);
        let writer = clocks(dir.path(), 1, 2, 1000);
        writer.publish(100);
        waiter.prepare_wait(100, 10, &[]);
        waiter.begin_wait();
        let futex = Clocks::at(0, Word::Futex);
        let sleeper = std::thread::spawn(move || waiter.wait_until_woken());
        until_registered(&writer, 0, Until::Any { time: NEVER });
        let seq = writer.map.load_atomic_u32(futex);
        // A store at 125 wakes it at its poll of 130: it now waits for the
        // writer to pass 130, asleep.
        writer.wake_waiter(0, 125, 1);
        assert_eq!(
            Until::of_word(writer.map.load(Clocks::at(0, Word::Wanted))),
            Until::Past { time: 130, on: 1 }
        );
        assert_eq!(writer.map.load_atomic_u32(futex), seq, "not woken");
        // An earlier store moves it earlier.
        writer.wake_waiter(0, 112, 1);
        assert_eq!(
            Until::of_word(writer.map.load(Clocks::at(0, Word::Wanted))),
            Until::Past { time: 120, on: 1 }
        );
        writer.publish(119);
        assert!(!sleeper.is_finished());
        writer.publish(121);
        assert_eq!(sleeper.join().unwrap(), Some(120));
    }

    #[test]
    fn a_holding_core_keeps_the_others_within_a_quantum_until_its_buckets_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let holder = clocks(dir.path(), 0, 2, 100);
        let mut runner = clocks(dir.path(), 1, 2, 100);
        holder.publish(400);
        runner.publish(450);
        // Waiting from a poll at 400, with requests in buckets up to 500.
        holder.prepare_wait(400, 10, &[]);
        holder.hold(500);
        // The hold paces the running cores; the clock word keeps 400, so
        // that a core reading the holder still running on the way in takes
        // it to have booked no further than that.
        assert_eq!(runner.pacing_clock(0), 500);
        assert_eq!(holder.map.load(Clocks::at(0, Word::Clock)), 400);
        let ahead = std::thread::spawn(move || {
            runner.keep_within_quantum(700, 700);
            runner
        });
        // 700 is more than a quantum past the hold: it sleeps there.
        until_registered(&holder, 1, Until::Reached { time: 600, on: 0 });
        // Past 500, it made the buckets before 500 final (the holder's
        // polls up to 500 booked too).
        assert!(holder.await_final(500));
        assert_eq!(holder.map.load(Clocks::at(0, Word::Booked)), 500);
        assert!(!ahead.is_finished(), "held until released");
        holder.release();
        assert_eq!(ahead.join().unwrap().sleeps, 1);
    }

    #[test]
    fn a_holding_core_woken_before_its_buckets_end_reads_them_once_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let holder = clocks(dir.path(), 0, 2, 1000);
        let writer = clocks(dir.path(), 1, 2, 1000);
        holder.publish(400);
        writer.publish(300);
        holder.prepare_wait(300, 100, &[]);
        holder.hold(500);
        let waiting = std::thread::spawn(move || holder.await_final(500));
        until_registered(&writer, 0, Until::Past { time: 500, on: 1 });
        // A store at 350 wakes it at its poll of 400, before 500.
        writer.wake_waiter(0, 350, 1);
        writer.publish(401);
        assert!(!waiting.join().unwrap());
    }

    #[test]
    fn a_stopping_run_ends_a_wait_nobody_would_end() {
        let dir = tempfile::tempdir().unwrap();
        let waiter = clocks(dir.path(), 0, 2, 10);
        let _other = clocks(dir.path(), 1, 2, 10);
        waiter.prepare_wait(100, 10, &[]);
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
        b.publish_sp(0x1f_fff0);
        let cores = read_cores(dir.path(), 3).unwrap();
        assert_eq!(
            cores,
            [
                CoreTime {
                    clock: 1234,
                    state: Some(State::Halted),
                    pc: 0x10_2030,
                    wake: 0,
                    sp: 0
                },
                CoreTime {
                    clock: 0,
                    state: Some(State::Running),
                    pc: 0,
                    wake: 0,
                    sp: 0
                },
                CoreTime {
                    clock: 99,
                    state: Some(State::Running),
                    pc: 0xdead_beef,
                    wake: 0,
                    sp: 0x1f_fff0
                },
            ]
        );
        assert!(cores.iter().all(|c| !c.waits_for_a_store()));
        // Core 1 waits with no wake time: only a store can end its wait.
        let c = clocks(dir.path(), 1, 3, 10);
        c.prepare_halt();
        c.begin_wait();
        let waiting = read_cores(dir.path(), 3).unwrap()[1];
        assert_eq!(waiting.state, Some(State::Waiting));
        assert!(waiting.waits_for_a_store());
        // A store sets its wake time: it waits no more for one.
        b.wake_waiter(1, 500, 2);
        let woken = read_cores(dir.path(), 3).unwrap()[1];
        assert!((500..NEVER).contains(&woken.wake), "{woken:?}");
        assert!(!woken.waits_for_a_store());
        assert!(read_cores(&dir.path().join("nosuch"), 3).is_err());
    }

    #[test]
    fn every_core_books_the_same_calendars_and_each_resource_has_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 2, 10);
        let b = clocks(dir.path(), 1, 2, 10);
        let mc = Resource::Controller;
        a.book(mc(2), 7, 1, 1);
        b.book(mc(2), 7, 2, 1);
        b.book(mc(1), 7, 1, 1);
        a.book(Resource::Mpb(2), 7, 1, 1);
        let loads = b.loads(mc(2), 7);
        assert_eq!(
            loads[queue::HISTORY],
            Load {
                requests: 3,
                cores: 2
            }
        );
        assert!(
            loads[..queue::HISTORY]
                .iter()
                .all(|l| *l == Load::default())
        );
        assert_eq!(a.loads(mc(1), 7)[queue::HISTORY].requests, 1);
        assert_eq!(a.loads(Resource::Mpb(2), 7)[queue::HISTORY].requests, 1);
        assert_eq!(a.loads(Resource::Crb(2), 7)[queue::HISTORY].requests, 0);
        // The last link's calendar ends the file, apart from every other.
        let last = Resource::from_calendar(latency::QUEUES - 1);
        b.book(last, 7, 5, 1);
        assert_eq!(a.loads(last, 7)[queue::HISTORY].requests, 5);
        assert_eq!(a.loads(mc(2), 7)[queue::HISTORY].requests, 3);
        // Bucket 7 seen as history of bucket 9.
        assert_eq!(a.loads(mc(2), 9)[queue::HISTORY - 2].requests, 3);
        // A window moved on reads what it lacks, and equals one read anew.
        b.book(mc(2), 12, 4, 1);
        for from in [None, Some(0), Some(7), Some(9), Some(12), Some(13)] {
            for k in [9, 12, 20, 30] {
                let mut window = match from {
                    Some(f) => a.loads(mc(2), f),
                    None => [Load::default(); queue::HISTORY + 1],
                };
                a.advance_loads(mc(2), k, &mut window, from);
                assert_eq!(window, a.loads(mc(2), k), "{from:?} to {k}");
            }
        }
    }

    #[test]
    fn the_calendars_fit_every_resource_and_a_poll_every_link_of_its_way() {
        for i in 0..latency::QUEUES {
            assert_eq!(Resource::from_calendar(i).calendar(), i);
        }
        // 392 calendars of 256 KiB, and 1 KiB per core.
        assert_eq!(FILE_SIZE, 256 + 1024 * 256 + 392 * (256 << 10));
        const { assert!(FILE_SIZE < 100 << 20) };
        for chip in chip::CHIPS {
            let longest = u32::from(chip.mesh_x) + u32::from(chip.mesh_y) - 2;
            let per_line = 1 + 2 * longest as usize;
            assert!(POLL_LINES * per_line <= POLL_QUEUES, "{}", chip.name);
        }
    }

    #[test]
    fn without_queues_nothing_is_booked() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks_queuing(dir.path(), 0, 2, 10, false);
        let link = Resource::Link(crate::model::mesh::Link::from_index(9));
        for resource in [
            Resource::Controller(2),
            Resource::Mpb(2),
            Resource::Crb(2),
            link,
        ] {
            a.book(resource, 3, 1, 1);
            assert_eq!(a.loads(resource, 3)[queue::HISTORY], Load::default());
        }
    }

    #[test]
    fn buckets_are_final_once_running_cores_pass_them_and_waiting_ones_booked_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 3, 1000);
        let b = clocks(dir.path(), 1, 3, 1000);
        let c = clocks(dir.path(), 2, 3, 1000);
        b.publish(500);
        c.publish(800);
        assert!(a.booked_through(500));
        assert!(!a.booked_through(501), "core 1 may still book at 500");
        // Core 1 waits from a poll at 500, every 100 cycles: its polls
        // before 900 booked.
        b.prepare_wait(500, 100, &[]);
        b.begin_wait();
        b.book_polls(1, 900);
        assert!(a.booked_through(800));
        assert!(!a.booked_through(801), "core 2 runs at 800");
        c.publish(2000);
        assert!(a.booked_through(900));
        assert!(!a.booked_through(901), "core 1's polls are booked to 900");
        // Woken at 600, it books nothing from then on but its polls.
        b.wake_waiter(1, 550, 0);
        assert!(a.booked_through(600));
        assert!(!a.booked_through(601), "core 1 runs again from 600");
        c.set_state(State::Finished, 2000);
        b.set_state(State::Halted, 600);
        assert!(
            a.booked_through(u64::MAX),
            "halted and finished cores book nothing"
        );
    }

    /// `waiter` polls tile 3's MPB every 40 cycles from 1000, its request
    /// arriving 10 cycles after issue, and waits: the queue its polls reach.
    fn wait_polling_an_mpb(waiter: &Clocks) -> Queue {
        let queue = Queue {
            resource: Resource::Mpb(3),
            arrival: 10,
            service: 3,
        };
        waiter.prepare_wait(1000, 40, &[queue]);
        waiter.begin_wait();
        queue
    }

    #[test]
    fn a_waiters_polls_are_booked_by_the_core_that_needs_them_each_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = clocks(dir.path(), 0, 2, 1000);
        let b = clocks(dir.path(), 1, 2, 1000);
        let queue = wait_polling_an_mpb(&b);
        let mpb = queue.resource;
        // Core 0 needs the buckets before 1200: polls at 1040..=1160 are
        // booked for core 1, which goes on waiting.
        a.await_booked(1200, 1200);
        assert!(a.booked_through(1200));
        let requests = |k: u64| a.loads(mpb, k)[queue::HISTORY];
        // Buckets of 32 cycles: arrivals 1050, 1090, 1130, 1170.
        assert_eq!(
            requests(1050 / 32),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(
            requests(1090 / 32),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(
            requests(1170 / 32),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(requests(1210 / 32), Load::default(), "not yet");
        // Woken at 1320, it books the rest itself: 1200..=1280, not again
        // those before.
        b.wake_waiter(1, 1300, 0);
        a.publish(5000);
        assert_eq!(b.wait_until_woken(), Some(1320));
        b.book_polls(1, 1320);
        assert_eq!(
            requests(1090 / 32),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(
            requests(1290 / 32),
            Load {
                requests: 1,
                cores: 1
            }
        );
        assert_eq!(
            requests(1330 / 32),
            Load::default(),
            "the poll it makes itself"
        );
        assert_eq!(a.order_waits, 0, "nothing to wait for: core 0 booked them");
    }

    #[test]
    fn a_waiters_polls_are_booked_only_once_no_other_core_can_wake_it_before() {
        let dir = tempfile::tempdir().unwrap();
        let a = clocks(dir.path(), 0, 3, 1000);
        let b = clocks(dir.path(), 1, 3, 1000);
        let c = clocks(dir.path(), 2, 3, 1000);
        let queue = wait_polling_an_mpb(&b);
        let mpb = queue.resource;
        a.publish(1200);
        c.publish(1100);
        let first_poll = |clocks: &Clocks| clocks.loads(mpb, 1050 / 32)[queue::HISTORY];
        // Core 2 may still store before 1200 and wake core 1 then.
        a.book_waiters_polls(1200, false);
        assert_eq!(first_poll(&a), Load::default());
        // Core 2 passed: no core can, and core 0 books core 1's polls.
        c.publish(1300);
        a.book_waiters_polls(1200, false);
        assert_eq!(
            first_poll(&a),
            Load {
                requests: 1,
                cores: 1
            }
        );
        // Booked once, however often asked.
        a.book_waiters_polls(1200, false);
        c.book_waiters_polls(1200, false);
        assert_eq!(first_poll(&c).requests, 1);
    }
}
