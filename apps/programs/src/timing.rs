// SPDX-License-Identifier: MIT OR Apache-2.0
//! The emulator's timing model, measured from inside: each core times
//! single accesses with the global timestamp and checks that it reads back
//! the latencies of the chip's timing table (`chip::Timing`).
//!
//! Every core measures an L1 hit, an L2 hit, CL1INVMB, WBINVD, a read of
//! its own cycle counter, a load from and a store to its own
//! tile's MPB and the MPB of one tile at each distance it has (1 to 8 hops
//! from tile (0,0)), and a store to its own tile's MPB alone.
//! Core 0 then measures DRAM behind each memory controller, stores to
//! DRAM behind its nearest one (alone, one more before a load, a third in
//! a row with both write buffers full), a write-combine buffer flush, and
//! a test-and-set register round trip (acquire, release), while the others
//! wait: no other core's requests queue at a controller. Last, core 0
//! makes each one-sided call `calls` times on the next core's part of a
//! window (MPBT-WT, GBH locks): an 8-byte put, get and accumulate inside
//! an exclusive lock epoch, an exclusive and a shared lock/unlock pair, a
//! fence, and a post/start/complete/wait round with itself as the only
//! origin and target; it prints the last one's cycles of each, then makes
//! the call named by `extra` once more. `cargo xtask bench calibrate`
//! takes each call's instructions and accesses from the difference
//! between a run with an extra call and one without.
//!
//! A store costs the core nothing while a write buffer is free
//! (`chip::Timing::write_buffers`): a store alone is timed on the core's
//! own clock, which does not wait for it, and reads as an L1 hit; a
//! store's access is read as what one store more adds to a load that
//! waits for all of them.
//!
//! A sample is the time between two timestamp reads around one access,
//! minus the same around an access to private memory (an L1 hit, which the
//! instruction's own cycle covers): the cycles the access stalled the
//! core. The minimum of [`SAMPLES`] samples is taken, so a sample that
//! crossed a controller's queue or an interrupt does not count. The
//! program fails if a latency differs from the table: a clock read sees
//! the cycles its block issued up to the reading instruction, not the
//! whole block's, so what reaches no mesh reads back exactly. Each mesh
//! round trip also crosses from the core's clock to the mesh's and back,
//! which adds 0 or 1 cycle by the clocks' phase (`emu::model::variation`,
//! drawn from the run's seed): a reading may be one cycle more per round
//! trip it timed, and one less per round trip in what it subtracts
//! (`Reading::crossed`, `Reading::subtracted`). Last, every core reads DRAM behind controller 0
//! at once and reports what a read then costs between two clock reads,
//! printed, not checked: the controller's queueing is charged at the
//! core's next ordered access, after the second clock read. Without the emulator's timing the timestamp
//! reads 0 and the program says so and fails.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::arch::asm;

use chip::{MemoryType, TileCoord};

use kernel::chip::settings::{Choice, choice, integer};
use kernel::platform::Platform;
use rma::comm::Group;
use rma::{AccumulateOp, Assert, LockScheme, LockType, Rma, RmaError, Window, WindowOptions};

use crate::support::osc::fail;

/// Samples per measurement; the smallest counts.
const SAMPLES: u32 = 16;
/// Where in its controller's LSM page each core's DCM lines lie (below
/// rma's part of the page, `rma::hal::LSM_RMA`), 32 KiB per core.
const DCM_AREA: u32 = 0x0040_0000;
const DCM_STRIDE: u32 = 0x8000;
/// Reads of the contention phase.
const LOADED_READS: u32 = 64;
/// L1 set stride: lines this far apart share an L1 set (128 sets of 32
/// bytes) but not an L2 set (2048 sets).
const L1_WAY_STRIDE: u32 = 4096;
/// Where in each core's DCM area the store measurements' page lies (past
/// the five L1-way lines' pages).
const STORE_AREA: u32 = 6 * L1_WAY_STRIDE;
/// Bytes of a cache line.
const LINE: u32 = chip::CACHE_LINE as u32;

/// Core cycles between the two timestamp reads around one load of `ptr`.
#[inline(never)]
fn timed_load(platform: &Platform, ptr: *const u32) -> u64 {
    let t0 = platform.global_timestamp();
    // SAFETY: callers pass a mapped, aligned word (private or shared).
    unsafe { ptr.read_volatile() };
    platform.global_timestamp() - t0
}

/// Core cycles between two reads of the core's own clock around one store
/// to `ptr`. The own clock is read as RDTSC is, without a bus access, so
/// it does not wait for the write buffers: a store that leaves the core
/// shows only what it cost the core (the global timestamp, an FPGA
/// register, would wait for the store to complete first).
#[inline(never)]
fn timed_store(platform: &Platform, ptr: *mut u32) -> u64 {
    let t0 = platform.now();
    // SAFETY: callers pass a mapped, aligned word no one else uses.
    unsafe { ptr.write_volatile(0x5ca1_ab1e) };
    platform.now() - t0
}

/// Core cycles on the core's own clock ([`timed_store`]) around `stores`
/// stores, the `i`th to the word `i * stride` bytes past `store`, and a
/// load of `load` after them, which waits until every buffered store has
/// completed. Each store more adds its whole access to the load's wait,
/// wherever it issued: the buffered stores go out one after the other
/// from the first, and the load ends after the last. So the difference
/// between `stores` and `stores + 1` is one store's access, whatever the
/// code around them costs (the buffers must be empty before: a load
/// beforehand empties them).
#[inline(never)]
fn timed_stores_then_load(
    platform: &Platform,
    store: *mut u32,
    stride: usize,
    stores: usize,
    load: *const u32,
) -> u64 {
    let t0 = platform.now();
    for i in 0..stores {
        // SAFETY: callers pass `stores` mapped, aligned words `stride`
        // bytes apart that no one else uses.
        unsafe {
            store
                .cast::<u8>()
                .wrapping_add(i * stride)
                .cast::<u32>()
                .write_volatile(i as u32)
        };
    }
    // SAFETY: callers pass a mapped, aligned word.
    unsafe { load.read_volatile() };
    platform.now() - t0
}

/// Core cycles between the two timestamp reads around an exchange and a
/// store of the byte at `ptr`: a test-and-set register's acquire and
/// release on the emulator.
#[inline(never)]
fn timed_exchange(platform: &Platform, ptr: *mut u8, taken: u8, free: u8) -> u64 {
    let t0 = platform.global_timestamp();
    let mut old = taken;
    // SAFETY: callers pass a mapped byte (private, or the core's own TSR
    // in its uncached CRB mapping); xchg with memory is atomic.
    unsafe {
        asm!("xchg byte ptr [{p}], {old}", p = in(reg) ptr, old = inout(reg_byte) old, options(nostack, preserves_flags));
        ptr.write_volatile(free);
    }
    let _ = old;
    platform.global_timestamp() - t0
}

/// What [`timed_cache_op`] times: the instruction once, or twice in a row.
#[derive(Clone, Copy)]
enum CacheOp {
    Cl1invmb,
    Wbinvd,
}

/// Core cycles between two reads of the global timestamp around one
/// instruction, `$op`. One asm block, whose only memory accesses are the
/// timestamp's low word, read twice each time (the first read latches the
/// clock, the second returns it), through an address held in a register:
/// nothing the instruction does to the caches changes what the code around
/// it costs (a WBINVD empties L1 of the stack and of the `Platform` the
/// timestamp's address would otherwise be loaded from). The low words
/// suffice: a sample is far shorter than their wrap.
macro_rules! timed_instruction {
    ($lo:expr, $op:literal) => {{
        let (t0, t1): (u32, u32);
        // SAFETY: `$lo` is the FPGA bank's timestamp register,
        // identity-mapped uncached for the whole run (platform init);
        // reading it has no other effect. `$op` is a cache instruction or
        // a no-op, which cannot break memory safety; the block is not
        // `nomem`, so no access moves across it.
        unsafe {
            asm!(
                "mov {t0}, dword ptr [{lo}]",
                "mov {t0}, dword ptr [{lo}]",
                $op,
                "mov {t1}, dword ptr [{lo}]",
                "mov {t1}, dword ptr [{lo}]",
                lo = in(reg) $lo,
                t0 = out(reg) t0,
                t1 = out(reg) t1,
                options(nostack, preserves_flags),
            )
        };
        u64::from(t1.wrapping_sub(t0))
    }};
}

/// Core cycles between the two timestamp reads around the instruction
/// `op`, or around two of it with `twice` ([`timed_instruction`]).
#[inline(never)]
fn timed_cache_op(platform: &Platform, op: CacheOp, twice: bool) -> u64 {
    let chip = platform.chip();
    let lo = (chip.fpga_base() + chip.fpga.gtsc_lo) as *const u32;
    // CL1INVMB is 0F 0A, as `kernel::arch::x86::instructions::cl1invmb`.
    match (op, twice) {
        (CacheOp::Cl1invmb, false) => timed_instruction!(lo, ".byte 0x0f, 0x0a"),
        (CacheOp::Cl1invmb, true) => timed_instruction!(lo, ".byte 0x0f, 0x0a, 0x0f, 0x0a"),
        (CacheOp::Wbinvd, false) => timed_instruction!(lo, "wbinvd"),
        (CacheOp::Wbinvd, true) => timed_instruction!(lo, "wbinvd\nwbinvd"),
    }
}

/// Core cycles between the two timestamp reads around the clock read's
/// three moves (`ClockRegisters::read`: a store, then two loads) on the
/// words at `latch`, `lo` and `hi`: the core's own clock registers, or
/// private words, where the same instructions cost only their issue.
#[inline(never)]
fn timed_clock_read(platform: &Platform, (latch, lo, hi): (usize, usize, usize)) -> u64 {
    let t0 = platform.global_timestamp();
    // SAFETY: callers pass the emulator's clock registers (modelled time,
    // checked by the caller), identity-mapped uncached, or mapped private
    // words; the values read are dropped.
    unsafe {
        asm!(
            "mov dword ptr [{latch}], 0",
            "mov {low}, dword ptr [{lo}]",
            "mov {high}, dword ptr [{hi}]",
            latch = in(reg) latch, lo = in(reg) lo, hi = in(reg) hi,
            low = out(reg) _, high = out(reg) _,
            options(nostack, preserves_flags)
        )
    };
    platform.global_timestamp() - t0
}

/// The smallest of [`SAMPLES`] samples of `sample`, each after `before`.
fn least(mut before: impl FnMut(), mut sample: impl FnMut() -> u64) -> u64 {
    (0..SAMPLES)
        .map(|_| {
            before();
            sample()
        })
        .min()
        .unwrap_or(0)
}

/// One measured latency and what the table says.
struct Reading {
    what: String,
    measured: u64,
    expected: u64,
    /// Mesh round trips in what was timed: each crosses from the core's
    /// clock to the mesh's and back, which adds 0 or 1 cycle
    /// (`emu::model::variation`), so each may add one to `measured`.
    crossed: u64,
    /// Mesh round trips in what was subtracted from it: each may take
    /// one off.
    subtracted: u64,
}

impl Reading {
    /// A reading of what involves no mesh round trip: exact.
    fn exact(what: String, measured: u64, expected: u64) -> Self {
        Self {
            what,
            measured,
            expected,
            crossed: 0,
            subtracted: 0,
        }
    }

    /// Whether the measurement is the table's, give or take the clocks'
    /// crossings.
    fn matches(&self) -> bool {
        chip::reads_back(self.measured, self.expected, self.crossed, self.subtracted)
    }
}

/// The one-sided calls core 0 times, as `extra` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// No call (the setting's default).
    None,
    /// An 8-byte put (one `u64`) inside an exclusive lock epoch.
    Put,
    /// An 8-byte get inside an exclusive lock epoch.
    Get,
    /// An 8-byte accumulate (sum of one `u64`) inside an exclusive lock epoch.
    Accumulate,
    /// An exclusive lock/unlock pair.
    LockExclusive,
    /// A shared lock/unlock pair.
    LockShared,
    /// A fence.
    Fence,
    /// Post, start, complete and wait, the core its own origin and target.
    Pscw,
}

impl Choice for Call {
    const ALL: &'static [Self] = &[
        Self::None,
        Self::Put,
        Self::Get,
        Self::Accumulate,
        Self::LockExclusive,
        Self::LockShared,
        Self::Fence,
        Self::Pscw,
    ];
    const NAMES: &'static [&'static str] = &[
        "none",
        "put",
        "get",
        "accumulate",
        "lock-exclusive",
        "lock-shared",
        "fence",
        "pscw",
    ];
}

kernel::chip::settings! {
    /// timing's settings.
    pub struct Settings {
        /// times core 0 makes each one-sided call last (the last one's cycles are printed)
        calls: u32 = integer(1..=1000, "8"),
        /// a call core 0 makes once more after the timed ones, untimed: put, get, accumulate, lock-exclusive, lock-shared, fence, pscw or none
        extra: Call = choice::<Call>("none"),
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    if platform.global_timestamp() == 0 {
        return Err(
            "the global timestamp reads 0: this program needs the emulator's timing".into(),
        );
    }
    let chip = platform.chip();
    let t = chip.timing;
    let l1 = u64::from(t.l1_hit);
    let me = platform.core();
    let here = chip.tile_coord(chip.tile_of(me));
    let routers = |to: TileCoord| chip.hops(here, to) + 1;

    let mut private = [0u32; 8];
    let base_ptr = private.as_ptr();
    let baseline = least(|| {}, || timed_load(platform, base_ptr));
    let store_ptr = private.as_mut_ptr().wrapping_add(4);
    // Neither cache allocates on a store: the word's line is loaded before
    // each sample, so that the baseline store hits L1 wherever the line
    // lies (the word need not share a line with the loaded one).
    let load = |p: *const u32| {
        // SAFETY: callers pass a mapped, aligned word: of this function's
        // private arrays or of the DCM alias mapped below.
        unsafe { p.read_volatile() };
    };
    let store_baseline = least(|| load(store_ptr), || timed_store(platform, store_ptr));
    let store_latency = |m: u64| m.saturating_sub(store_baseline) + l1;
    // An access's latency: its stall beyond the baseline plus the L1 hit
    // the baseline's own access costs.
    let latency = |m: u64| m.saturating_sub(baseline) + l1;
    let mut readings = Vec::new();

    // L1: a DCM line read twice.
    let mc = chip.controller_of(chip.tile_of(me));
    let dcm_phys = chip.lsm_base(mc) + DCM_AREA + me.index() as u32 * DCM_STRIDE;
    let dcm = platform
        .map_alias(dcm_phys, 5 * L1_WAY_STRIDE, MemoryType::Dcm)
        .map_err(|e| format!("mapping DCM lines: {e:?}"))?;
    let line = |i: u32| dcm.as_ptr().wrapping_add((i * L1_WAY_STRIDE) as usize) as *const u32;
    let m = least(|| load(line(0)), || timed_load(platform, line(0)));
    readings.push(Reading::exact("L1 hit".into(), latency(m), l1));
    // L2: five lines in one 4-way L1 set: each read evicts from L1 the
    // line read five reads later, which L2 still holds.
    let m = least(
        || (1..5).for_each(|i| load(line(i))),
        || timed_load(platform, line(0)),
    );
    readings.push(Reading::exact(
        "L2 hit".into(),
        latency(m),
        u64::from(t.l2_hit),
    ));

    // Cache instructions, their own cycle included: two in a row timed
    // against one, so that the code around them is the same in both (a
    // baseline of fewer instructions would pair differently with the
    // timestamp reads). WBINVD on an L1 the previous one left clean.
    let cache_op = |op, before: fn()| {
        let once = least(before, || timed_cache_op(platform, op, false));
        let twice = least(before, || timed_cache_op(platform, op, true));
        twice.saturating_sub(once)
    };
    readings.push(Reading::exact(
        "CL1INVMB".into(),
        cache_op(CacheOp::Cl1invmb, || {}),
        u64::from(t.cl1invmb),
    ));
    readings.push(Reading::exact(
        "WBINVD (clean L1)".into(),
        cache_op(CacheOp::Wbinvd, kernel::arch::x86::instructions::wbinvd),
        u64::from(t.wbinvd),
    ));

    // The core's own clock: three moves charged as one RDTSC, timed
    // against the same moves on private words (the same code, so the same
    // issue cycles), to which their issue cycles are added back.
    let clock = platform.clock_registers().addresses();
    let mut words = [0u32; 3];
    let word = words.as_mut_ptr();
    let private = (
        word as usize,
        word.wrapping_add(1) as usize,
        word.wrapping_add(2) as usize,
    );
    // The words' lines in L1 first, as for the store baseline.
    let base = least(
        || (0..3).for_each(|i| load(word.wrapping_add(i))),
        || timed_clock_read(platform, private),
    );
    let m = least(|| {}, || timed_clock_read(platform, clock));
    readings.push(Reading::exact(
        "clock read (own cycles)".into(),
        m.saturating_sub(base) + t.clock_read_issue(),
        u64::from(t.clock_read),
    ));

    // MPBs, uncached: the own tile, then one tile at each distance.
    let mut distances: Vec<(u32, chip::TileId)> = Vec::new();
    for tile in chip.all_tiles() {
        let d = chip.hops(here, chip.tile_coord(tile));
        if !distances.iter().any(|(seen, _)| *seen == d) {
            distances.push((d, tile));
        }
    }
    distances.sort_unstable();
    for (d, tile) in distances {
        let phys = chip.mpb_base(tile);
        let alias = platform
            .map_alias(phys, chip.mpb_bytes_per_tile, MemoryType::Ncm)
            .map_err(|e| format!("mapping the MPB of tile {}: {e:?}", tile.index()))?;
        let ptr = alias.as_ptr() as *const u32;
        let m = least(|| {}, || timed_load(platform, ptr));
        readings.push(Reading {
            what: format!("MPB {d} hops (tile {})", tile.index()),
            measured: latency(m),
            expected: t.mpb_access(routers(chip.tile_coord(tile))),
            crossed: 1,
            subtracted: 0,
        });
        // A word of the lines rma leaves to programs (`rma::comm::layout`)
        // in the half of this core's place on its tile, a word per tile:
        // uncached, and never read for its value.
        let half = u32::from(chip.z_of(me)) * chip.mpb_bytes_per_core();
        let offset = half + 4 * (chip.tile_of(me).index() as u32 % 32);
        let word = alias
            .as_ptr()
            .cast::<u32>()
            .wrapping_add(offset as usize / 4);
        // One store more before a load: its whole access (a store costs
        // the core nothing while a write buffer is free).
        let chain = |stores| {
            least(
                || load(ptr),
                || timed_stores_then_load(platform, word, 0, stores, word.cast_const()),
            )
        };
        readings.push(Reading {
            what: format!("MPB store {d} hops (tile {})", tile.index()),
            measured: chain(2).saturating_sub(chain(1)) + l1,
            expected: t.mpb_access(routers(chip.tile_coord(tile))),
            crossed: 3,
            subtracted: 2,
        });
        if d == 0 {
            let m = least(|| load(ptr), || timed_store(platform, word));
            readings.push(Reading::exact(
                "MPB store alone (own tile, write buffer)".into(),
                store_latency(m),
                l1,
            ));
        }
    }

    let mut comm = crate::support::communicator(platform)?;
    comm.barrier();
    if me.index() == 0 {
        // DRAM, uncached, behind each controller, nearest first.
        let mut controllers: Vec<usize> = (0..chip.memory_controllers.len()).collect();
        controllers.sort_by_key(|&m| (routers(chip.memory_controllers[m].port.tile), m));
        for m in controllers {
            let port = chip.memory_controllers[m].port.tile;
            let ptr = platform.lsm(m).as_ptr() as *const u32;
            let measured = least(|| {}, || timed_load(platform, ptr.wrapping_add(64)));
            readings.push(Reading {
                what: format!("DRAM controller {m} ({} hops)", routers(port) - 1),
                measured: latency(measured),
                expected: t.dram_access(routers(port)),
                crossed: 1,
                subtracted: 0,
            });
        }
        // Stores to DRAM behind the nearest controller, uncached, to this
        // core's lines: alone (a write buffer takes it), each one more
        // before a load (its whole access), and a third in a row, which
        // waits for a free buffer (its whole access all the same: the
        // load after it waits for the same last store).
        let port = chip.memory_controllers[mc].port.tile;
        let hops = routers(port) - 1;
        let ncm = platform
            .map_alias(dcm_phys + STORE_AREA, L1_WAY_STRIDE, MemoryType::Ncm)
            .map_err(|e| format!("mapping uncached DRAM lines: {e:?}"))?;
        let word = ncm.as_ptr().cast::<u32>();
        let m = least(|| load(word), || timed_store(platform, word));
        readings.push(Reading::exact(
            format!("DRAM store alone, controller {mc} ({hops} hops, write buffer)"),
            store_latency(m),
            l1,
        ));
        let chain = |stores| {
            least(
                || load(word),
                || timed_stores_then_load(platform, word, 0, stores, word.cast_const()),
            )
        };
        let (one, two, three) = (chain(1), chain(2), chain(3));
        readings.push(Reading {
            what: format!("DRAM store then load, controller {mc} ({hops} hops): one store more"),
            measured: two.saturating_sub(one) + l1,
            expected: t.dram_access(routers(port)),
            crossed: 3,
            subtracted: 2,
        });
        readings.push(Reading {
            what: format!(
                "DRAM stores in a row, controller {mc} ({hops} hops): the third, buffers full"
            ),
            measured: three.saturating_sub(two) + l1,
            expected: t.dram_access(routers(port)),
            crossed: 4,
            subtracted: 3,
        });
        // WCB flushes: stores to successive lines of an NCM-WCB alias of
        // the same DRAM; each store to a new line writes the buffered one
        // out, a line to the controller. Before each sample the WCB is
        // flushed (leaving its dummy line, which the first store writes
        // out) and a load empties the write buffers.
        let wcb = platform
            .map_alias(dcm_phys + STORE_AREA, L1_WAY_STRIDE, MemoryType::NcmWcb)
            .map_err(|e| format!("mapping write-combined DRAM lines: {e:?}"))?;
        let lines = |n| {
            least(
                || {
                    platform.flush_wcb();
                    load(word);
                },
                || {
                    timed_stores_then_load(
                        platform,
                        wcb.as_ptr().cast(),
                        LINE as usize,
                        n,
                        word.cast_const(),
                    )
                },
            )
        };
        readings.push(Reading {
            what: format!("WCB flush, controller {mc} ({hops} hops): one line more"),
            measured: lines(3).saturating_sub(lines(2)) + l1,
            expected: t.dram_access(routers(port)),
            crossed: 4,
            subtracted: 3,
        });

        // A TSR round trip: the acquire (on silicon one read; here an
        // exchange, whose store half costs nothing more) and the release.
        let p = chip.tsr_protocol;
        let mut byte = [p.free; 4];
        let private = byte.as_mut_ptr();
        let base = least(|| {}, || timed_exchange(platform, private, p.taken, p.free));
        let tsr = chip.tsr_addr(me) as *mut u8;
        let m = least(|| {}, || timed_exchange(platform, tsr, p.taken, p.free));
        readings.push(Reading {
            what: "TSR round trip (acquire and release)".into(),
            measured: m.saturating_sub(base) + 2 * l1,
            expected: 2 * t.mpb_access(routers(here)),
            crossed: 2,
            subtracted: 0,
        });
    }
    comm.barrier();

    // Contention, reported, not checked: every core at once reads DRAM
    // behind controller 0 (its queueing is charged at the next ordered
    // access, after the second clock read).
    let lsm = platform.lsm(0).as_ptr() as *const u32;
    let mine = lsm.wrapping_add(16 * me.index());
    let t0 = platform.global_timestamp();
    for _ in 0..LOADED_READS {
        // SAFETY: a word of LSM page 0, mapped uncached for the whole run.
        unsafe { mine.read_volatile() };
    }
    let per_read = (platform.global_timestamp() - t0) / u64::from(LOADED_READS);
    comm.barrier();
    let timed_calls = calls(platform, comm, &settings)?;

    let mut wrong = Vec::new();
    for r in &readings {
        kernel::println!(
            "latency {}: measured {} expected {} cycles (clock crossings +{} -{})",
            r.what,
            r.measured,
            r.expected,
            r.crossed,
            r.subtracted
        );
        if !r.matches() {
            wrong.push(format!(
                "{} ({} instead of {})",
                r.what, r.measured, r.expected
            ));
        }
    }
    kernel::println!(
        "DRAM behind controller 0 read by {} cores at once: {per_read} cycles per read and loop step (alone: {})",
        platform.cores(),
        t.dram_access(routers(chip.memory_controllers[0].port.tile))
    );
    for (what, cycles) in &timed_calls {
        kernel::println!(
            "call {what}: {cycles} cycles, the last of {}",
            settings.calls
        );
    }
    if wrong.is_empty() {
        kernel::println!("timing self-check passed: {} latencies", readings.len());
        Ok(())
    } else {
        Err(format!("latencies off the table: {}", wrong.join(", ")))
    }
}

/// One timed call: what it is and its cycles on core 0's clock.
type Timed = (String, u64);

/// Core 0 makes each one-sided call `settings.calls` times on the next
/// core's part of a window (itself on one core), then `settings.extra`
/// once more, while the others take part in the fences only: each
/// call's name and the last one's cycles (with one clock read), none on
/// the other cores.
fn calls(
    platform: &Platform,
    comm: rma::comm::Comm<'_, Platform>,
    settings: &Settings,
) -> Result<Vec<Timed>, String> {
    let mut rma = Rma::new(comm).map_err(|e| format!("rma: {e}"))?;
    let win = rma
        .allocate::<u64>(2, WindowOptions::new().lock_scheme(LockScheme::Gbh))
        .map_err(fail("allocating a window"))?;
    let (n, me) = (rma.size(), rma.rank());
    let target = (me + 1) % n;
    let own = Group::world(n, me)
        .and_then(|w| w.incl(&[me]))
        .map_err(fail("the group of this core"))?;
    let mut calls = Calls {
        platform,
        rma: &mut rma,
        win,
        target,
        own: &own,
        round: 0,
    };
    // A fence is collective: every core makes it, the others nothing else.
    let mine = |call: Call| me == 0 || call == Call::Fence;
    let mut timed = Vec::new();
    for &call in Call::ALL[1..].iter().filter(|&&c| mine(c)) {
        timed.extend(calls.make(call, settings.calls, settings.extra == call)?);
    }
    if me != 0 {
        timed.clear();
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the window"))?;
    Ok(timed)
}

/// What [`calls`] makes its calls with.
struct Calls<'a, 'h> {
    platform: &'a Platform,
    rma: &'a mut Rma<'h, Platform>,
    win: Window<u64>,
    target: u32,
    /// Core 0 alone, origin and target of the PSCW round.
    own: &'a Group,
    /// Calls made so far: what puts write and the checks expect.
    round: u64,
}

/// Makes `call` `times` times, timing each, then once more untimed if
/// `extra`: the last timed one's cycles (with one clock read).
fn repeat(
    platform: &Platform,
    times: u32,
    extra: bool,
    call: &mut dyn FnMut() -> Result<(), RmaError>,
) -> Result<u64, String> {
    let mut cycles = 0;
    for _ in 0..times {
        let (result, c) = crate::bench::timed(platform, &mut *call);
        result.map_err(fail("a timed call"))?;
        cycles = c;
    }
    if extra {
        call().map_err(fail("the extra call"))?;
    }
    Ok(cycles)
}

impl Calls<'_, '_> {
    /// Makes `call` `times` times in one epoch (a fence or a PSCW round
    /// per time), then once more untimed if `extra`, and checks its data:
    /// what was timed and the last time's cycles.
    fn make(&mut self, call: Call, times: u32, extra: bool) -> Result<Vec<Timed>, String> {
        let (platform, win, target, own) = (self.platform, self.win, self.target, self.own);
        self.round += 1;
        let value = 0x5ca1_ab1e_0000_0000 | self.round;
        let rma = &mut *self.rma;
        let on = |what: &str| format!("{what} (GBH, MPBT-WT, on core {target}'s window)");
        Ok(match call {
            Call::None => Vec::new(),
            Call::Put | Call::Get | Call::Accumulate => {
                rma.lock(win, LockType::Exclusive, target, Assert::NONE)
                    .map_err(fail("lock"))?;
                rma.put(win, target, 0, &[value]).map_err(fail("put"))?;
                let mut got = [0];
                let (what, cycles, at, add) = match call {
                    Call::Put => {
                        let cycles =
                            repeat(platform, times, extra, &mut || rma.put(win, target, 1, &[value]))?;
                        ("put 8 B", cycles, 1, 0)
                    }
                    Call::Get => {
                        let cycles =
                            repeat(platform, times, extra, &mut || rma.get(win, target, 0, &mut got))?;
                        ("get 8 B", cycles, 0, 0)
                    }
                    _ => {
                        let cycles = repeat(platform, times, extra, &mut || {
                            rma.accumulate(win, target, 0, &[1], AccumulateOp::Sum)
                        })?;
                        (
                            "accumulate 8 B (sum)",
                            cycles,
                            0,
                            u64::from(times + u32::from(extra)),
                        )
                    }
                };
                rma.get(win, target, at, &mut got).map_err(fail("get"))?;
                rma.unlock(win, target).map_err(fail("unlock"))?;
                if got[0] != value + add {
                    return Err(format!(
                        "{what}: the window holds {:#x}, not {:#x}",
                        got[0],
                        value + add
                    ));
                }
                alloc::vec![(on(what), cycles)]
            }
            Call::LockExclusive | Call::LockShared => {
                let (kind, what) = if call == Call::LockExclusive {
                    (LockType::Exclusive, "exclusive")
                } else {
                    (LockType::Shared, "shared")
                };
                let cycles = repeat(platform, times, extra, &mut || {
                    rma.lock(win, kind, target, Assert::NONE)?;
                    rma.unlock(win, target)
                })?;
                alloc::vec![(on(&format!("lock/unlock pair, {what}")), cycles)]
            }
            Call::Fence => {
                let cycles = repeat(platform, times, extra, &mut || rma.fence(win, Assert::NONE))?;
                rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
                alloc::vec![(on("fence"), cycles)]
            }
            Call::Pscw => {
                let mut cycles = [0; 4];
                for time in 0..times + u32::from(extra) {
                    let mut parts = [0; 4];
                    // The extra round untimed, as `repeat`'s extra call.
                    let mut part = |k: usize, f: &mut dyn FnMut() -> Result<(), RmaError>| {
                        if time == times {
                            return f().map_err(fail("the extra PSCW call"));
                        }
                        let (result, c) = crate::bench::timed(platform, f);
                        parts[k] = c;
                        result.map_err(fail("a PSCW call"))
                    };
                    part(0, &mut || rma.post(win, own, Assert::NONE))?;
                    part(1, &mut || rma.start(win, own, Assert::NONE))?;
                    part(2, &mut || rma.complete(win))?;
                    part(3, &mut || rma.wait(win))?;
                    if time < times {
                        cycles = parts;
                    }
                }
                let own =
                    |what: &str| format!("{what} (MPBT-WT, core 0 its own origin and target)");
                ["post", "start", "complete", "wait"]
                    .iter()
                    .zip(cycles)
                    .map(|(what, c)| (own(what), c))
                    .collect()
            }
        })
    }
}
