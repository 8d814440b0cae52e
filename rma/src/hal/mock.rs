// SPDX-License-Identifier: MIT OR Apache-2.0
//! A host stand-in for the chip: `n` cores as `n` threads.
//!
//! The MPBs are shared arrays of atomic words and the test-and-set
//! registers atomic flags, so the real rma algorithms run unchanged under
//! `cargo test` (with the `mock` feature outside rma's own tests). Every
//! MPB access is an acquire load or a release store: the mock is coherent
//! and orders every access, which is what a correct protocol needs from the
//! hardware at most. The cache operations therefore do nothing; a missing
//! CL1INVMB or flush shows only on the emulator, whose chip model keeps
//! the caches as non-coherent as the SCC's.
//!
//! A waiting thread spins briefly, then sleeps until a write lands in its
//! own MPB half (where every rma protocol polls) or a short timeout passes
//! (for other conditions, such as a TSR becoming free): 48 threads then
//! share a few host CPUs without starving the one they wait for.
//!
//! The shareable DRAM (each controller's LSM page and the POPSHM pages
//! after it) is host memory of the same kind, allocated in 64 KiB pieces
//! when first touched. Mappings through free LUT entries are kept per core
//! and checked as the SCC kernel checks them; their memory type is
//! recorded but, the memory being coherent, changes nothing. A write to
//! the LSM or the shareable DRAM wakes every sleeping core.
//!
//! A core that panics makes every other core's next wait panic too, and a
//! wait that sees no progress for [`WAIT_LIMIT`] panics naming its core, so
//! a broken protocol fails a test instead of hanging it.
//!
//! [`Mock::run_watching`] waits as the emulator's modelled time does: a
//! poll that finds nothing sleeps until a store reaches one of the MPB
//! lines it read (the first [`MAX_WATCHED`] of them), so a wait whose last
//! poll did not read the line its wakening depends on hangs, and panics
//! after [`WATCH_LIMIT`] naming the lines it waits on.
#![forbid(unsafe_code)]

extern crate std;

use std::boxed::Box;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};
use std::vec::Vec;

use chip::{Chip, CoreId, LUT_ENTRIES, LUT_PAGE_SIZE, MemoryType};

use super::{
    CacheControl, Clock, DramPages, Lsm, MapError, Mpb, MpbHalf, SharedDram, Topology, Tsr, Wait,
    WriteBack,
};

/// How long one wait may go without its condition becoming true.
pub const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// How long a wait of [`Mock::run_watching`] may sleep without a store to
/// a line it watches.
pub const WATCH_LIMIT: Duration = Duration::from_secs(10);

/// Most MPB lines one poll watches (as the emulator's): a poll reading
/// more watches its first.
pub const MAX_WATCHED: usize = 64;

/// Bytes of an MPB line, the unit a poll watches.
const LINE: usize = 32;

/// Polls a waiting thread makes before it starts sleeping between polls.
const SPIN_POLLS: u32 = 64;
/// Longest sleep between polls when nothing wakes the thread.
const SLEEP: Duration = Duration::from_micros(200);

/// The MPB lines a poll read (line numbers across every core's half),
/// each with its store count before the read.
type Watched = Vec<(usize, u32)>;

/// What all threads of one run share.
#[derive(Debug)]
struct Shared {
    /// The chip the mock pretends to be.
    chip: &'static Chip,
    cores: u32,
    /// Words of each core's MPB half, core after core.
    mpb: Vec<AtomicU32>,
    /// `true` while taken.
    tsr: Vec<AtomicBool>,
    /// Set when a core panicked.
    failed: AtomicBool,
    start: Instant,
    /// One per core: wakes it when its MPB half is written.
    doorbells: Vec<Doorbell>,
    /// The shareable DRAM behind each controller.
    dram: Vec<Dram>,
    /// Each core's mappings, by LUT entry.
    mappings: Vec<Mutex<Mappings>>,
    /// Whether waits sleep until a line they read is written
    /// ([`Mock::run_watching`]).
    watching: bool,
    /// Stores to each MPB line, line after line of every core's half
    /// (counted only when `watching`).
    stores: Vec<AtomicU32>,
    /// Per core, the poll in progress of a watching wait: the lines it
    /// read, each with its store count before the read.
    polls: Vec<Mutex<Option<Watched>>>,
    /// Per controller, its remote atomic unit on a chip that has one
    /// there: it does one operation at a time.
    units: Vec<Mutex<()>>,
}

/// Bytes of DRAM allocated at once.
const PIECE: u32 = 64 * 1024;

/// The shareable DRAM of one controller: its LSM page and the POPSHM
/// pages after it, as words allocated a piece at a time.
#[derive(Debug)]
struct Dram {
    /// Page number of the first page (the LSM page).
    first_page: u32,
    pages: u32,
    pieces: Vec<OnceLock<Box<[AtomicU32]>>>,
}

impl Dram {
    fn new(chip: &Chip, controller: usize) -> Self {
        let pages = chip.shared_dram_pages(controller);
        let pieces = (u64::from(pages) * u64::from(LUT_PAGE_SIZE) / u64::from(PIECE)) as usize;
        Self {
            first_page: chip.lsm_page_number(controller),
            pages,
            pieces: (0..pieces).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Whether `pages` lie inside.
    fn holds(&self, first: u16, count: u32) -> bool {
        let first = u32::from(first);
        count > 0 && first >= self.first_page && first + count <= self.first_page + self.pages
    }

    /// The word holding byte `at` (counted from the LSM page's start).
    fn word(&self, at: u64) -> &AtomicU32 {
        let piece = (at / u64::from(PIECE)) as usize;
        let words =
            self.pieces[piece].get_or_init(|| (0..PIECE / 4).map(|_| AtomicU32::new(0)).collect());
        &words[(at % u64::from(PIECE)) as usize / 4]
    }

    fn read(&self, at: u64, buf: &mut [u8]) {
        read_words(at, buf, |byte| self.word(byte));
    }

    fn write(&self, at: u64, data: &[u8]) {
        write_words(at, data, |byte| self.word(byte));
    }
}

/// One core's mappings of shareable DRAM.
#[derive(Debug)]
struct Mappings {
    /// For each LUT entry that starts a mapping: what it maps.
    starts: [Option<(DramPages, MemoryType)>; LUT_ENTRIES],
    /// Entries some mapping occupies.
    taken: [bool; LUT_ENTRIES],
}

/// An event count: writers ring it, a sleeping owner wakes up.
#[derive(Debug, Default)]
struct Doorbell {
    rings: AtomicU32,
    sleeping: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Doorbell {
    fn ring(&self) {
        self.rings.fetch_add(1, Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }

    /// Sleeps until the bell rang after `seen` was read, or [`SLEEP`] passed.
    fn sleep(&self, seen: u32) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if self.rings.load(Ordering::SeqCst) == seen {
            let _ = self
                .wake
                .wait_timeout(guard, SLEEP)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// One core of a mock chip: the [`Hal`](super::Hal) a thread runs on.
#[derive(Debug, Clone)]
pub struct Mock {
    shared: Arc<Shared>,
    core: CoreId,
    /// Test-and-set registers this core took (shared by its clones).
    tsr_acquires: Arc<AtomicU64>,
    /// Operations this core had the remote atomic units do.
    remote_atomics: Arc<AtomicU64>,
}

impl Mock {
    /// Runs `program` on `cores` threads, one per core `0..cores` of
    /// [`chip::DEFAULT_CHIP`], and returns each one's result in core order.
    ///
    /// # Panics
    /// If `cores` is 0 or more than the chip has, or (with its message)
    /// if any core panicked.
    pub fn run<T: Send>(cores: u32, program: impl Fn(&Mock) -> T + Sync) -> Vec<T> {
        Self::run_on(chip::DEFAULT_CHIP, cores, program)
    }

    /// As [`Mock::run`], but a wait's poll that finds nothing sleeps until
    /// a store reaches one of the MPB lines it read, as under the
    /// emulator's modelled time (see the [module doc](self)).
    ///
    /// # Panics
    /// As [`Mock::run`]; also if a wait sleeps [`WATCH_LIMIT`] without a
    /// store to the lines it watches.
    pub fn run_watching<T: Send>(cores: u32, program: impl Fn(&Mock) -> T + Sync) -> Vec<T> {
        Self::start(chip::DEFAULT_CHIP, cores, true, program)
    }

    /// As [`Mock::run`], on cores of `chip`.
    ///
    /// # Panics
    /// As [`Mock::run`].
    pub fn run_on<T: Send>(
        chip: &'static Chip,
        cores: u32,
        program: impl Fn(&Mock) -> T + Sync,
    ) -> Vec<T> {
        Self::start(chip, cores, false, program)
    }

    fn start<T: Send>(
        chip: &'static Chip,
        cores: u32,
        watching: bool,
        program: impl Fn(&Mock) -> T + Sync,
    ) -> Vec<T> {
        let chip_cores = chip.cores();
        assert!(
            (1..=chip_cores).contains(&cores),
            "a mock run needs 1..={chip_cores} cores, not {cores}"
        );
        let words = (chip.mpb_bytes_per_core() / 4) as usize;
        let shared = Arc::new(Shared {
            chip,
            cores,
            mpb: (0..words * chip_cores as usize)
                .map(|_| AtomicU32::new(0))
                .collect(),
            tsr: (0..chip_cores).map(|_| AtomicBool::new(false)).collect(),
            failed: AtomicBool::new(false),
            start: Instant::now(),
            doorbells: (0..cores).map(|_| Doorbell::default()).collect(),
            dram: (0..chip.memory_controllers.len())
                .map(|mc| Dram::new(chip, mc))
                .collect(),
            mappings: (0..cores)
                .map(|_| {
                    Mutex::new(Mappings {
                        starts: [None; LUT_ENTRIES],
                        taken: [false; LUT_ENTRIES],
                    })
                })
                .collect(),
            watching,
            stores: (0..words * 4 * chip_cores as usize / LINE)
                .map(|_| AtomicU32::new(0))
                .collect(),
            polls: (0..cores).map(|_| Mutex::new(None)).collect(),
            units: (0..chip.memory_controllers.len())
                .map(|_| Mutex::new(()))
                .collect(),
        });
        let program = &program;
        std::thread::scope(|scope| {
            let threads: Vec<_> = chip
                .all_cores()
                .take(cores as usize)
                .map(|core| {
                    let hal = Mock {
                        shared: shared.clone(),
                        core,
                        tsr_acquires: Arc::new(AtomicU64::new(0)),
                        remote_atomics: Arc::new(AtomicU64::new(0)),
                    };
                    std::thread::Builder::new()
                        .name(std::format!("mock core {}", core.index()))
                        .spawn_scoped(scope, move || {
                            catch_unwind(AssertUnwindSafe(|| program(&hal))).inspect_err(|_| {
                                hal.shared.failed.store(true, Ordering::SeqCst);
                            })
                        })
                        .expect("spawning a mock core")
                })
                .collect();
            let results: Vec<_> = threads
                .into_iter()
                .map(|t| t.join().expect("mock cores catch their panics"))
                .collect();
            // The first panic is the cause; the others followed from it.
            let mut out = Vec::with_capacity(results.len());
            let mut first_panic = None;
            for result in results {
                match result {
                    Ok(value) => out.push(value),
                    Err(panic) => {
                        first_panic.get_or_insert(panic);
                    }
                }
            }
            if let Some(panic) = first_panic {
                resume_unwind(panic);
            }
            out
        })
    }

    fn half_core(&self, half: MpbHalf) -> usize {
        let core = match half {
            MpbHalf::Own => self.core,
            MpbHalf::Of(core) => core,
        };
        assert!(
            (core.index() as u32) < self.shared.cores,
            "{core} is not part of this run of {} cores",
            self.shared.cores
        );
        core.index()
    }

    fn half_base(&self, half: MpbHalf) -> usize {
        self.half_core(half) * self.shared.chip.mpb_bytes_per_core() as usize
    }

    fn check_range(&self, offset: u32, len: usize) {
        let bytes = self.shared.chip.mpb_bytes_per_core();
        assert!(
            offset as usize + len <= bytes as usize,
            "MPB range {offset:#x}+{len} runs past {bytes} bytes"
        );
    }

    fn word(&self, byte: usize) -> &AtomicU32 {
        &self.shared.mpb[byte / 4]
    }

    /// The poll in progress of this core's watching wait.
    fn poll(&self) -> std::sync::MutexGuard<'_, Option<Watched>> {
        self.shared.polls[self.core.index()]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// A read of `len` bytes at byte `base` of the MPBs is about to
    /// happen: a watching poll in progress watches its lines.
    fn watch(&self, base: usize, len: usize) {
        if !self.shared.watching {
            return;
        }
        let mut poll = self.poll();
        let Some(lines) = poll.as_mut() else {
            return;
        };
        for line in base / LINE..(base + len.max(1)).div_ceil(LINE) {
            if lines.len() < MAX_WATCHED && !lines.iter().any(|&(l, _)| l == line) {
                lines.push((line, self.shared.stores[line].load(Ordering::SeqCst)));
            }
        }
    }

    /// A store of `len` bytes at byte `base` of the MPBs was made.
    fn stored(&self, base: usize, len: usize) {
        if self.shared.watching {
            for line in base / LINE..(base + len.max(1)).div_ceil(LINE) {
                self.shared.stores[line].fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// Whether a store reached one of `lines` since it was read.
    fn any_stored(&self, lines: &[(usize, u32)]) -> bool {
        lines
            .iter()
            .any(|&(line, seen)| self.shared.stores[line].load(Ordering::SeqCst) != seen)
    }

    /// `lines` named as `core+offset` of the MPB halves.
    fn describe(&self, lines: &[(usize, u32)]) -> std::string::String {
        let per_core = self.shared.chip.mpb_bytes_per_core() as usize / LINE;
        let named: Vec<_> = lines
            .iter()
            .map(|&(line, _)| std::format!("{}+{:#x}", line / per_core, line % per_core * LINE))
            .collect();
        named.join(" ")
    }

    /// Wakes every sleeping core: shared DRAM changed.
    fn ring_all(&self) {
        self.shared.doorbells.iter().for_each(Doorbell::ring);
    }

    /// The memory type of the mapping at `slot`, if one starts there.
    pub fn mapping_type(&self, slot: u8) -> Option<MemoryType> {
        self.mappings().starts[slot as usize].map(|(_, ty)| ty)
    }

    /// How many LUT entries this core has mapped.
    pub fn mapped_entries(&self) -> usize {
        self.mappings().taken.iter().filter(|&&t| t).count()
    }

    /// Test-and-set registers this core took so far.
    pub fn tsr_acquires(&self) -> u64 {
        self.tsr_acquires.load(Ordering::Relaxed)
    }

    /// Operations this core had the remote atomic units do so far
    /// ([`super::RemoteAtomic`]).
    pub fn remote_atomics(&self) -> u64 {
        self.remote_atomics.load(Ordering::Relaxed)
    }

    fn mappings(&self) -> std::sync::MutexGuard<'_, Mappings> {
        self.shared.mappings[self.core.index()]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The controller and byte (from its LSM page) of `len` bytes at
    /// `offset` of the mapping at `slot`.
    fn through(&self, slot: u8, offset: u32, len: usize) -> (usize, u64) {
        let (pages, _) = self.mappings().starts[slot as usize]
            .unwrap_or_else(|| panic!("{}: LUT entry {slot} starts no mapping", self.core));
        assert!(
            u64::from(offset) + len as u64 <= pages.bytes(),
            "{}: {offset:#x}+{len} runs past the {} bytes mapped at LUT entry {slot}",
            self.core,
            pages.bytes()
        );
        let dram = &self.shared.dram[pages.controller];
        let page = u64::from(u32::from(pages.first) - dram.first_page);
        (
            pages.controller,
            page * u64::from(LUT_PAGE_SIZE) + u64::from(offset),
        )
    }

    fn lsm_check(&self, controller: usize, offset: u32, len: usize) {
        assert!(
            controller < self.shared.chip.memory_controllers.len(),
            "there is no memory controller {controller}"
        );
        assert!(
            u64::from(offset) + len as u64 <= u64::from(LUT_PAGE_SIZE),
            "LSM range {offset:#x}+{len} runs past the page"
        );
    }
}

impl Topology for Mock {
    fn chip(&self) -> &'static Chip {
        self.shared.chip
    }

    fn core(&self) -> CoreId {
        self.core
    }

    fn cores(&self) -> u32 {
        self.shared.cores
    }
}

impl Mpb for Mock {
    fn mpb_read_u32(&self, half: MpbHalf, offset: u32) -> u32 {
        assert!(
            offset.is_multiple_of(4),
            "MPB word at {offset:#x} unaligned"
        );
        self.check_range(offset, 4);
        let at = self.half_base(half) + offset as usize;
        self.watch(at, 4);
        self.word(at).load(Ordering::Acquire)
    }

    fn mpb_write_u32(&self, half: MpbHalf, offset: u32, value: u32) {
        assert!(
            offset.is_multiple_of(4),
            "MPB word at {offset:#x} unaligned"
        );
        self.check_range(offset, 4);
        let at = self.half_base(half) + offset as usize;
        self.word(at).store(value, Ordering::Release);
        self.stored(at, 4);
        self.shared.doorbells[self.half_core(half)].ring();
    }

    fn mpb_read(&self, half: MpbHalf, offset: u32, buf: &mut [u8]) {
        self.check_range(offset, buf.len());
        let base = (self.half_base(half) + offset as usize) as u64;
        self.watch(base as usize, buf.len());
        read_words(base, buf, |byte| self.word(byte as usize));
    }

    fn mpb_write(&self, half: MpbHalf, offset: u32, data: &[u8]) {
        self.check_range(offset, data.len());
        let base = (self.half_base(half) + offset as usize) as u64;
        write_words(base, data, |byte| self.word(byte as usize));
        self.stored(base as usize, data.len());
        self.shared.doorbells[self.half_core(half)].ring();
    }
}

impl Tsr for Mock {
    /// Also panics once another core panicked, even if the register is
    /// free: a lock loop that retries without waiting (GBH best effort)
    /// would otherwise spin forever on a lock the panicked core holds.
    fn tsr_acquire(&self, owner: CoreId) {
        assert!(
            !self.shared.failed.load(Ordering::Relaxed),
            "{} stops taking TSRs: another core panicked",
            self.core
        );
        let tsr = &self.shared.tsr[owner.index()];
        self.wait_for(|| {
            tsr.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .ok()
                .map(drop)
        });
        self.tsr_acquires.fetch_add(1, Ordering::Relaxed);
    }

    fn tsr_release(&self, owner: CoreId) {
        let was_taken = self.shared.tsr[owner.index()].swap(false, Ordering::AcqRel);
        assert!(was_taken, "{} released the free TSR of {owner}", self.core);
    }
}

impl CacheControl for Mock {
    /// Nothing to drop: the mock's memory is coherent.
    fn invalidate_mpbt(&self) {}

    /// Nothing to push: every store is visible when it returns.
    fn flush_wcb(&self) {}
}

impl SharedDram for Mock {
    fn map_shared(&self, slot: u8, pages: DramPages, ty: MemoryType) -> Result<(), MapError> {
        let free = self.shared.chip.address_map.shareable;
        let last = u32::from(slot) + pages.count.max(1) - 1;
        if !free.contains(slot) || last > u32::from(free.last) {
            return Err(MapError::NotFree {
                slot,
                count: pages.count,
            });
        }
        let holds = self
            .shared
            .dram
            .get(pages.controller)
            .is_some_and(|d| d.holds(pages.first, pages.count));
        if !holds {
            return Err(MapError::NotShareable(pages));
        }
        let mut m = self.mappings();
        let entries = slot as usize..=last as usize;
        if let Some(taken) = entries.clone().find(|&e| m.taken[e]) {
            return Err(MapError::InUse { slot: taken as u8 });
        }
        m.taken[entries].iter_mut().for_each(|t| *t = true);
        m.starts[slot as usize] = Some((pages, ty));
        Ok(())
    }

    fn shared_read(&self, slot: u8, offset: u32, buf: &mut [u8]) {
        let (mc, at) = self.through(slot, offset, buf.len());
        self.shared.dram[mc].read(at, buf);
    }

    fn shared_write(&self, slot: u8, offset: u32, data: &[u8]) {
        let (mc, at) = self.through(slot, offset, data.len());
        self.shared.dram[mc].write(at, data);
        self.ring_all();
    }

    fn unmap_shared(&self, slot: u8) {
        let mut m = self.mappings();
        let (pages, _) = m.starts[slot as usize]
            .take()
            .unwrap_or_else(|| panic!("{}: LUT entry {slot} starts no mapping", self.core));
        let first = slot as usize;
        m.taken[first..first + pages.count as usize]
            .iter_mut()
            .for_each(|t| *t = false);
    }
}

impl Lsm for Mock {
    fn lsm_read_u32(&self, controller: usize, offset: u32) -> u32 {
        assert!(
            offset.is_multiple_of(4),
            "LSM word at {offset:#x} unaligned"
        );
        self.lsm_check(controller, offset, 4);
        self.shared.dram[controller]
            .word(u64::from(offset))
            .load(Ordering::SeqCst)
    }

    fn lsm_write_u32(&self, controller: usize, offset: u32, value: u32) {
        assert!(
            offset.is_multiple_of(4),
            "LSM word at {offset:#x} unaligned"
        );
        self.lsm_check(controller, offset, 4);
        self.shared.dram[controller]
            .word(u64::from(offset))
            .store(value, Ordering::SeqCst);
        self.ring_all();
    }

    fn lsm_read(&self, controller: usize, offset: u32, buf: &mut [u8]) {
        self.lsm_check(controller, offset, buf.len());
        self.shared.dram[controller].read(u64::from(offset), buf);
    }

    fn lsm_write(&self, controller: usize, offset: u32, data: &[u8]) {
        self.lsm_check(controller, offset, data.len());
        self.shared.dram[controller].write(u64::from(offset), data);
        self.ring_all();
    }
}

impl super::Trace for Mock {}

/// The chip's remote atomic units at the controllers, if it has them
/// ([`chip::RemoteAtomics`]): each does one operation at a time, under
/// its lock, on the mock's DRAM words.
impl super::RemoteAtomic for Mock {
    fn dram_atomics(&self) -> bool {
        self.shared
            .chip
            .remote_atomics
            .is_some_and(|r| r.controllers)
    }

    fn shared_atomic(
        &self,
        slot: u8,
        offset: u32,
        command: super::RauCommand,
        operand: u64,
        compare: u64,
    ) -> Option<u64> {
        if !self.dram_atomics() {
            return None;
        }
        let bytes = command.bytes as usize;
        assert!(
            offset.is_multiple_of(command.bytes),
            "{}: remote atomic on {bytes} bytes at {offset:#x} unaligned",
            self.core
        );
        let (mc, at) = self.through(slot, offset, bytes);
        let dram = &self.shared.dram[mc];
        let _unit = self.shared.units[mc]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut old = [0; 8];
        dram.read(at, &mut old[..bytes]);
        let old = u64::from_le_bytes(old);
        if let Some(new) = command.op.apply(old, operand, compare, command.bytes) {
            dram.write(at, &new.to_le_bytes()[..bytes]);
        }
        self.remote_atomics.fetch_add(1, Ordering::Relaxed);
        drop(_unit);
        self.ring_all();
        Some(old)
    }
}

impl WriteBack for Mock {
    /// Nothing to write back: the mock's memory is coherent.
    fn write_back_l1(&self) {}
}

impl Wait for Mock {
    /// Spins a little (yielding the host CPU), then sleeps between polls
    /// until its MPB half is written or a short timeout passes.
    fn wait_for<T>(&self, mut ready: impl FnMut() -> Option<T>) -> T {
        // A wait inside a watching poll is part of that poll.
        if self.shared.watching && self.poll().is_none() {
            return self.wait_watching(ready);
        }
        let start = Instant::now();
        let doorbell = &self.shared.doorbells[self.core.index()];
        let mut polls = 0u32;
        loop {
            let seen = doorbell.rings.load(Ordering::SeqCst);
            if let Some(value) = ready() {
                doorbell.sleeping.store(false, Ordering::SeqCst);
                return value;
            }
            assert!(
                !self.shared.failed.load(Ordering::Relaxed),
                "{} stops waiting: another core panicked",
                self.core
            );
            assert!(
                start.elapsed() < WAIT_LIMIT,
                "{} waited {WAIT_LIMIT:?} without progress",
                self.core
            );
            polls = polls.saturating_add(1);
            if polls < SPIN_POLLS {
                std::thread::yield_now();
            } else {
                // Announce the sleep before the next poll, so a write after
                // that poll rings for a sleeper.
                if !doorbell.sleeping.swap(true, Ordering::SeqCst) {
                    continue;
                }
                doorbell.sleep(seen);
            }
        }
    }
}

impl Mock {
    /// [`Wait::wait_for`] of [`Mock::run_watching`]: after a poll that
    /// found nothing, sleeps until a store reaches a line the poll read
    /// (a poll that read no MPB line sleeps as [`Mock::run`]'s waits do).
    fn wait_watching<T>(&self, mut ready: impl FnMut() -> Option<T>) -> T {
        let start = Instant::now();
        let doorbell = &self.shared.doorbells[self.core.index()];
        loop {
            let seen = doorbell.rings.load(Ordering::SeqCst);
            *self.poll() = Some(Vec::new());
            let found = ready();
            let lines = self.poll().take().unwrap_or_default();
            if let Some(value) = found {
                return value;
            }
            let asleep = Instant::now();
            while !self.any_stored(&lines) {
                assert!(
                    !self.shared.failed.load(Ordering::Relaxed),
                    "{} stops waiting: another core panicked",
                    self.core
                );
                if lines.is_empty() {
                    assert!(
                        start.elapsed() < WAIT_LIMIT,
                        "{} waited {WAIT_LIMIT:?} without progress",
                        self.core
                    );
                    doorbell.sleep(seen);
                    break;
                }
                assert!(
                    asleep.elapsed() < WATCH_LIMIT,
                    "{} waited {WATCH_LIMIT:?} for a store to the MPB lines its last poll read \
                     (core+offset): {}",
                    self.core,
                    self.describe(&lines)
                );
                doorbell.sleep(doorbell.rings.load(Ordering::SeqCst));
            }
        }
    }
}

impl Clock for Mock {
    /// Nanoseconds since the run started.
    fn cycles(&self) -> u64 {
        self.shared.start.elapsed().as_nanos() as u64
    }
}

/// Reads `buf.len()` bytes from byte `at` of memory kept as atomic words
/// (`word` gives the word holding a byte), a word at a time.
fn read_words<'a>(at: u64, buf: &mut [u8], word: impl Fn(u64) -> &'a AtomicU32) {
    let mut done = 0;
    while done < buf.len() {
        let byte = at + done as u64;
        let bytes = word(byte).load(Ordering::Acquire).to_le_bytes();
        let first = (byte % 4) as usize;
        let n = (4 - first).min(buf.len() - done);
        buf[done..done + n].copy_from_slice(&bytes[first..first + n]);
        done += n;
    }
}

/// Writes `data` at byte `at` of memory kept as atomic words. Part of a
/// word is merged in atomically: the other bytes keep whatever they hold,
/// even if another core writes them at the same time.
fn write_words<'a>(at: u64, data: &[u8], word: impl Fn(u64) -> &'a AtomicU32) {
    let mut done = 0;
    while done < data.len() {
        let byte = at + done as u64;
        let first = (byte % 4) as usize;
        let n = (4 - first).min(data.len() - done);
        let word = word(byte);
        if n == 4 {
            let value = u32::from_le_bytes(data[done..done + 4].try_into().expect("4 bytes"));
            word.store(value, Ordering::Release);
        } else {
            let _ = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                let mut bytes = old.to_le_bytes();
                bytes[first..first + n].copy_from_slice(&data[done..done + n]);
                Some(u32::from_le_bytes(bytes))
            });
        }
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_core_sees_its_own_identity() {
        let seen = Mock::run(3, |hal| (hal.core().index(), hal.rank(), hal.cores()));
        assert_eq!(seen, [(0, 0, 3), (1, 1, 3), (2, 2, 3)]);
    }

    #[test]
    fn bytes_and_words_round_trip_at_any_alignment() {
        Mock::run(2, |hal| {
            let other = hal.participant(1 - hal.rank());
            if hal.rank() == 0 {
                let data: Vec<u8> = (0..37).map(|i| i as u8 + 1).collect();
                hal.mpb_write(MpbHalf::Of(other), 3, &data);
                hal.mpb_write_u32(MpbHalf::Of(other), 64, 0xDEAD_BEEF);
            } else {
                let v = hal.wait_for(|| {
                    let v = hal.mpb_read_u32(MpbHalf::Own, 64);
                    (v != 0).then_some(v)
                });
                assert_eq!(v, 0xDEAD_BEEF);
                let mut buf = [0u8; 39];
                hal.mpb_read(MpbHalf::Of(hal.core()), 2, &mut buf);
                assert_eq!(buf[0], 0, "byte before the write");
                assert_eq!(buf[38], 0, "byte after the write");
                assert!(
                    buf[1..38]
                        .iter()
                        .enumerate()
                        .all(|(i, &b)| b == i as u8 + 1)
                );
            }
        });
    }

    #[test]
    fn a_tsr_excludes_other_cores() {
        let counter = AtomicU32::new(0);
        let inside = AtomicBool::new(false);
        Mock::run(8, |hal| {
            let owner = hal.participant(0);
            for _ in 0..200 {
                hal.tsr_acquire(owner);
                assert!(!inside.swap(true, Ordering::SeqCst), "two cores inside");
                counter.fetch_add(1, Ordering::Relaxed);
                inside.store(false, Ordering::SeqCst);
                hal.tsr_release(owner);
            }
        });
        assert_eq!(counter.load(Ordering::Relaxed), 1600);
    }

    #[test]
    fn shareable_dram_is_shared_through_mappings_and_the_lsm() {
        Mock::run(2, |hal| {
            let other = hal.participant(1 - hal.rank());
            let theirs = DramPages::popshm(hal.chip(), other);
            let mine = hal.popshm();
            assert_eq!(mine, DramPages::popshm(hal.chip(), hal.core()));
            // Map the second page of the other core's POPSHM at 140, ours at 132.
            let page = DramPages {
                first: theirs.first + 1,
                count: 1,
                ..theirs
            };
            hal.map_shared(140, page, MemoryType::MpbtWt).unwrap();
            hal.map_shared(132, mine, MemoryType::Ncm).unwrap();
            assert_eq!(hal.mapping_type(132), Some(MemoryType::Ncm));
            assert_eq!(hal.mapped_entries(), 5);
            let data: Vec<u8> = (0..99).map(|i| i as u8 ^ hal.rank() as u8).collect();
            hal.shared_write(140, 7, &data);
            hal.lsm_write_u32(mine.controller, 0x40 + 4 * hal.rank(), 1);
            hal.wait_for(|| {
                (hal.lsm_read_u32(theirs.controller, 0x40 + 4 * other.index() as u32) == 1)
                    .then_some(())
            });
            let mut seen = [0u8; 101];
            hal.shared_read(132, LUT_PAGE_SIZE + 6, &mut seen);
            assert_eq!(seen[0], 0);
            assert_eq!(seen[100], 0);
            let expected: Vec<u8> = (0..99).map(|i| i as u8 ^ other.index() as u8).collect();
            assert_eq!(&seen[1..100], &expected[..]);
            hal.lsm_write(mine.controller, 0x103, &[9]);
            let mut byte = [0];
            hal.lsm_read(mine.controller, 0x103, &mut byte);
            assert_eq!(byte, [9]);
            hal.unmap_shared(140);
            hal.unmap_shared(132);
            assert_eq!(hal.mapped_entries(), 0);
        });
    }

    #[test]
    fn bad_mappings_are_refused_with_the_reason() {
        Mock::run(1, |hal| {
            let mine = hal.popshm();
            assert_eq!(
                hal.map_shared(131, mine, MemoryType::MpbtWt),
                Err(MapError::NotFree {
                    slot: 131,
                    count: 4
                })
            );
            assert_eq!(
                hal.map_shared(188, mine, MemoryType::MpbtWt),
                Err(MapError::NotFree {
                    slot: 188,
                    count: 4
                })
            );
            let private = DramPages { first: 0, ..mine };
            assert_eq!(
                hal.map_shared(132, private, MemoryType::MpbtWt),
                Err(MapError::NotShareable(private))
            );
            hal.map_shared(132, mine, MemoryType::MpbtWt).unwrap();
            assert_eq!(
                hal.map_shared(135, mine, MemoryType::MpbtWt),
                Err(MapError::InUse { slot: 135 })
            );
            assert!(MapError::InUse { slot: 135 }.to_string().contains("135"));
        });
    }

    #[test]
    #[should_panic(expected = "runs past the 16777216 bytes mapped at LUT entry 150")]
    fn accesses_past_a_mapping_are_refused() {
        Mock::run(1, |hal| {
            let one = DramPages {
                count: 1,
                ..hal.popshm()
            };
            hal.map_shared(150, one, MemoryType::MpbtWt).unwrap();
            hal.shared_write(150, LUT_PAGE_SIZE - 2, &[0; 4]);
        });
    }

    #[test]
    #[should_panic(expected = "rank 3 is not part of a run of 3 cores")]
    fn ranks_outside_the_run_are_refused() {
        Mock::run(3, |hal| {
            hal.participant(3);
        });
    }

    #[test]
    #[should_panic(expected = "MPB range")]
    fn accesses_past_the_half_are_refused() {
        Mock::run(1, |hal| hal.mpb_write(MpbHalf::Own, 8190, &[0; 4]));
    }
}
