// SPDX-License-Identifier: GPL-2.0-or-later
//! The engine on two cores, with the test playing both guests.

use chip::{EmuCall, LutEntry, PTE_PCD, PTE_PMB, PTE_PWT, SCC};
use tempfile::TempDir;

use super::*;
use crate::model::latency::{Class, Latencies};
use crate::model::variation::Variation;

/// Tile 0's MPB, as every core addresses it.
const MPB0: u32 = 0xC000_0000;
const PAGE_DIRECTORY: u32 = 0x1000;
const PAGE_TABLE: u32 = 0x2000;
const PRESENT_WRITABLE: u32 = 0b11;

/// Two cores whose guests see the first page of tile 0's MPB with the
/// page-table bits `flags`. The test plays both guests: a load reads
/// the core's view where QEMU would, a store writes it, and then the
/// engine hears of the access, as from QEMU's memory callback.
struct Rig {
    _dir: TempDir,
    engines: Vec<Engine>,
    /// Each guest's RAM, where its page tables are.
    rams: Vec<Mapping>,
    views: Vec<Mapping>,
    g: Mapping,
    /// Offset in G of the rig's page.
    page0: u64,
    /// Core-physical (and virtual) address of the rig's page: tile 0's MPB,
    /// or the LSM page of controller 0 ([`rig_in_dram`]).
    base: u32,
}

fn core(n: u32) -> CoreId {
    SCC.core(n).unwrap()
}

fn rig(flags: u32) -> Rig {
    rig_timed(flags, None)
}

/// As [`rig`], with modelled time kept within `quantum` if given.
/// The cycle at which core `c` of a timed rig leaves reset.
fn release(c: u32) -> u64 {
    Variation::new(chip::DEFAULT_SEED).reset_release(&SCC.timing, c)
}

/// What crossing between the clocks adds to core `c`'s access to
/// `target`, its mesh access `access` (from 0), in a timed rig.
fn crossing(c: u32, target: Target, access: u64) -> u64 {
    let own = Latencies::new(&SCC, core(c), Variation::new(chip::DEFAULT_SEED));
    own.crossing(
        &own.target(target).unwrap(),
        crate::model::variation::MeshAccess::Counted(access),
    )
}

fn rig_timed(flags: u32, quantum: Option<u64>) -> Rig {
    rig_on(&SCC, 2, [0, 1], flags, quantum)
}

/// As [`rig_timed`] with modelled time, its page uncached DRAM (the LSM
/// page of controller 0) rather than an MPB: stores to an MPB always
/// order, stores to DRAM only once some poll read their line.
fn rig_in_dram() -> Rig {
    let mut rig = rig_timed(PTE_PCD, Some(100_000));
    let layout = crate::chipmem::Layout::new(&SCC);
    let base = SCC.lsm_base(0);
    for ram in &rig.rams {
        map_page(ram, base, PTE_PCD);
    }
    rig.base = base;
    rig.page0 = layout.lsm(0);
    rig
}

/// As [`rig_timed`], in a run of `run` cores of `chip`, the test playing
/// cores `players` (engines 0 and 1).
fn rig_on(
    chip: &'static Chip,
    run: u32,
    players: [u32; 2],
    flags: u32,
    quantum: Option<u64>,
) -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let memory = ChipMemory::create(dir.path(), chip, run).unwrap();
    let base = chip.mpb_base(chip.tile(0).unwrap());
    let core = |n: u32| chip.core(n).unwrap();
    let mut engines = Vec::new();
    let mut rams = Vec::new();
    let mut views = Vec::new();
    for c in players {
        let ram = File::options()
            .read(true)
            .write(true)
            .open(chipmem::ram_path(dir.path(), core(c)))
            .unwrap();
        ram.set_len(1 << 20).unwrap();
        let ram = Mapping::new(&ram, 1 << 20).unwrap();
        map_page(&ram, base, flags);
        let time = quantum.map_or(chip::Time::Off, |q| chip::Time::On {
            quantum: std::num::NonZeroU64::new(q).unwrap(),
            queues: true,
            seed: chip::DEFAULT_SEED,
        });
        let model = chip::Model {
            check: true,
            time,
            ..chip::Model::DEFAULT
        };
        let mut engine = Engine::with_model(&memory, core(c), run, model).unwrap();
        engine.write_cr(3, PAGE_DIRECTORY);
        engine.write_cr(0, 1 << 31);
        engines.push(engine);
        rams.push(ram);
        let view = File::options()
            .read(true)
            .write(true)
            .open(chipmem::view_path(dir.path(), core(c)))
            .unwrap();
        views.push(Mapping::new(&view, memory.layout().size()).unwrap());
    }
    let g = File::options()
        .read(true)
        .write(true)
        .open(memory.path())
        .unwrap();
    Rig {
        page0: memory.layout().mpb(chip.tile(0).unwrap()),
        base,
        g: Mapping::new(&g, memory.layout().size()).unwrap(),
        _dir: dir,
        engines,
        rams,
        views,
    }
}

/// Maps the page at `base` to itself, with `flags`, in the page tables in
/// a guest's `ram`.
fn map_page(ram: &Mapping, base: u32, flags: u32) {
    let pde = PAGE_DIRECTORY + 4 * (base >> 22);
    ram.store_u32(u64::from(pde), PAGE_TABLE | PRESENT_WRITABLE);
    ram.store_u32(u64::from(pte_of(base)), base | PRESENT_WRITABLE | flags);
}

/// Where in a guest's RAM the rig's page-table entry of `vaddr` is.
fn pte_of(vaddr: u32) -> u32 {
    PAGE_TABLE + 4 * ((vaddr >> 12) & 0x3FF)
}

impl Rig {
    fn load(&mut self, c: usize, offset: u32) -> u32 {
        let value = self.views[c].load_u32(self.page0 + u64::from(offset));
        let access = self.guest(Kind::Load, offset, value);
        self.engines[c].access(access).unwrap();
        value
    }

    fn store(&mut self, c: usize, offset: u32, value: u32) {
        self.views[c].store_u32(self.page0 + u64::from(offset), value);
        let access = self.guest(Kind::Store, offset, value);
        self.engines[c].access(access).unwrap();
    }

    /// Guest `c` rewrites the entry of the MPB's first page with `flags`
    /// (without telling its TLB).
    fn set_page_flags(&self, c: usize, flags: u32) {
        let entry = self.base | PRESENT_WRITABLE | flags;
        self.rams[c].store_u32(u64::from(pte_of(self.base)), entry);
    }

    fn memory(&self, offset: u32) -> u32 {
        self.g.load_u32(self.page0 + u64::from(offset))
    }

    /// `guest`'s access at `offset` into tile 0's MPB of the rig's chip.
    fn guest(&self, kind: Kind, offset: u32, value: u32) -> GuestAccess {
        GuestAccess {
            vaddr: self.base + offset,
            paddr: self.base + offset,
            ..guest(kind, offset, value)
        }
    }
}

fn guest(kind: Kind, offset: u32, value: u32) -> GuestAccess {
    GuestAccess {
        kind,
        vaddr: MPB0 + offset,
        paddr: MPB0 + offset,
        len: 4,
        value: u64::from(value),
        insn: 0x0010_0000 + offset,
        rest: 0,
    }
}

#[test]
fn mpbt_wt_loads_read_memory_as_on_silicon() {
    let mut rig = rig(PTE_PMB | PTE_PWT);
    assert_eq!(rig.load(1, 0x100), 0); // not cached: read from memory
    rig.store(0, 0x100, 7);
    rig.store(0, 0x200, 1); // flushes core 0's write-combine buffer
    assert_eq!(rig.load(1, 0x100), 7, "core 1 reads memory again");
    assert_eq!(rig.engines[1].report().stale_reads, 0);
}

#[test]
fn a_cached_mpbt_line_stays_stale_until_cl1invmb() {
    let mut rig = rig(PTE_PMB);
    assert_eq!(rig.load(1, 0x100), 0); // core 1 caches the line
    rig.store(0, 0x100, 7); // into core 0's write-combine buffer
    assert_eq!(rig.memory(0x100), 0, "the WCB holds the store");
    rig.store(0, 0x200, 1); // another line: the buffer is flushed
    assert_eq!(rig.memory(0x100), 7);
    assert_eq!(rig.load(1, 0x100), 0, "core 1 still reads its cached line");
    let report = rig.engines[1].report();
    assert_eq!(report.stale_reads, 1);
    let stale = &report.stale[0];
    assert_eq!(
        (stale.paddr, stale.read, stale.memory),
        (MPB0 + 0x100, 0, 7)
    );
    assert_eq!(
        (stale.writer, stale.target.as_str()),
        (Some(0), "MPB of tile 0 + 0x100")
    );
    rig.engines[1].cl1invmb().unwrap();
    assert_eq!(rig.load(1, 0x100), 7, "CL1INVMB dropped the stale line");
    assert_eq!(rig.engines[1].report().stale_reads, 1);
}

/// Core 1 knows the MPB's first page as MPBT-WB, its guest makes it
/// uncached (NCM) and tells its TLB with `drop_old_type`. Its next reads
/// reach memory: without the TLB's flush, the first would fill a line
/// under the old type and the second would read that line.
fn remapped_uncached(drop_old_type: impl FnOnce(&mut Engine)) {
    let mut rig = rig(PTE_PMB);
    assert_eq!(rig.load(1, 0x100), 0); // the page's type is in the TLB
    rig.engines[1].cl1invmb().unwrap();
    rig.set_page_flags(1, PTE_PCD);
    drop_old_type(&mut rig.engines[1]);
    assert_eq!(rig.load(1, 0x100), 0);
    rig.store(0, 0x100, 7); // into core 0's write-combine buffer
    rig.store(0, 0x200, 1); // another line: the buffer is flushed
    assert_eq!(rig.load(1, 0x100), 7, "the uncached read reaches memory");
    assert_eq!(rig.engines[1].report().stale_reads, 0);
}

#[test]
fn a_page_made_uncached_is_read_from_memory_after_invlpg() {
    remapped_uncached(|engine| engine.invlpg());
}

#[test]
fn a_page_made_uncached_is_read_from_memory_after_a_cr3_write() {
    remapped_uncached(|engine| engine.write_cr(3, PAGE_DIRECTORY));
}

#[test]
fn a_page_made_uncached_is_read_from_memory_after_paging_goes_off_and_on() {
    remapped_uncached(|engine| {
        engine.write_cr(0, 0);
        engine.write_cr(0, 1 << 31);
    });
}

#[test]
fn modified_mpbt_data_is_lost_by_cl1invmb_and_published_by_wbinvd() {
    let mut rig = rig(PTE_PMB); // MPBT-WB: a store hit stays in L1
    assert_eq!(rig.load(0, 0x40), 0);
    rig.store(0, 0x40, 5);
    assert_eq!(rig.load(1, 0x40), 0);
    rig.engines[0].cl1invmb().unwrap();
    assert_eq!(rig.load(0, 0x40), 0, "the modification was dropped");
    rig.store(0, 0x40, 6);
    rig.engines[0].wbinvd().unwrap();
    assert_eq!(rig.memory(0x40), 6, "WBINVD wrote the line back");
    rig.engines[1].cl1invmb().unwrap();
    assert_eq!(rig.load(1, 0x40), 6);
}

#[test]
fn cores_past_the_first_directory_word_keep_their_stale_lines() {
    // 130 cores of the 8x8 chip: core 129's holder bit is in the
    // directory's third word of cores, core 64's in its second.
    let mut rig = rig_on(&chip::MESH8X8, 130, [129, 64], PTE_PMB, None);
    assert_eq!(rig.load(0, 0x100), 0); // core 129 caches the line
    rig.store(1, 0x100, 7);
    rig.store(1, 0x200, 1); // flushes core 64's write-combine buffer
    assert_eq!(rig.memory(0x100), 7);
    assert_eq!(
        rig.load(0, 0x100),
        0,
        "core 129 still reads its cached line"
    );
    let report = rig.engines[0].report();
    assert_eq!(report.stale_reads, 1);
    assert_eq!(report.stale[0].writer, Some(64));
    rig.engines[0].cl1invmb().unwrap();
    assert_eq!(rig.load(0, 0x100), 7, "CL1INVMB dropped the stale line");
    // Core 64 never cached the line: the store reached its view at once.
    assert_eq!(rig.load(1, 0x100), 7);
}

#[test]
fn a_cached_line_whose_lut_entry_is_cleared_is_dropped_if_clean_and_refused_if_modified() {
    let mut rig = rig(PTE_PMB);
    let entry = Chip::lut_index(MPB0) as u8;
    assert_eq!(rig.load(1, 0x100), 0); // a clean MPBT line
    rig.engines[1]
        .lut_changed(entry, LutEntry::UNUSED.encode())
        .unwrap();
    rig.engines[1]
        .cl1invmb()
        .expect("a clean line leaves without a trace");

    assert_eq!(rig.load(0, 0x100), 0);
    rig.store(0, 0x100, 9); // a store hit: modified in L1
    rig.engines[0]
        .lut_changed(entry, LutEntry::UNUSED.encode())
        .unwrap();
    let message = rig.engines[0].wbinvd().unwrap_err().to_string();
    assert!(message.starts_with("core 0: "), "{message}");
    assert!(message.contains("LUT entry 192"), "{message}");
}

#[test]
fn a_store_across_a_line_boundary_through_the_wcb_reaches_memory_whole() {
    // An 8-byte store 4 bytes before a line's end (a double at a 4-byte
    // boundary): its first part goes into the WCB, its second part's write
    // flushes that line out, and the fence's flush the second line.
    let mut rig = rig(PTE_PMB | PTE_PWT);
    let value = 0x1122_3344_5566_7788u64;
    rig.views[0].store_u32(rig.page0 + 0x1c, value as u32);
    rig.views[0].store_u32(rig.page0 + 0x20, (value >> 32) as u32);
    let access = GuestAccess {
        len: 8,
        value,
        ..rig.guest(Kind::Store, 0x1c, 0)
    };
    rig.engines[0].access(access).unwrap();
    assert_eq!(
        rig.memory(0x1c),
        value as u32,
        "the first line's part left with the flush"
    );
    rig.store(0, 0x200, 1); // another line: the buffer is flushed
    assert_eq!(
        rig.memory(0x20),
        (value >> 32) as u32,
        "the second line's part"
    );
    assert_eq!(rig.load(1, 0x1c), value as u32);
    assert_eq!(rig.load(1, 0x20), (value >> 32) as u32);
}

#[test]
fn uncached_stores_reach_every_view_at_once() {
    let mut rig = rig(PTE_PCD);
    for value in 1..50 {
        rig.store(0, 0x80, value);
        assert_eq!(rig.load(1, 0x80), value);
        assert_eq!(rig.memory(0x80), value);
    }
    assert_eq!(rig.engines[1].report().stale_reads, 0);
}

/// A store to an emulator call register of `call`'s (the call itself).
fn emu_call(call: EmuCall) -> GuestAccess {
    GuestAccess {
        kind: Kind::Store,
        vaddr: 0,
        paddr: 0,
        len: 4,
        value: 0,
        insn: 0x0010_1000 + call as u32,
        rest: 0,
    }
}

#[test]
fn a_store_between_a_polls_read_and_its_callback_still_ends_the_wait() {
    // A line of DRAM no poll read before: its first store is not ordered.
    let mut rig = rig_in_dram();
    // Core 0 is ahead in modelled time, and halted while core 1 polls.
    rig.engines[0].set_insns(1000, 1000);
    rig.engines[0].halted();
    rig.engines[1].emu_call(EmuCall::Poll, emu_call(EmuCall::Poll));
    // Core 1's poll reads the flag; before its engine hears of the load
    // (QEMU calls it after the bytes were read), core 0 sets the flag.
    let seen = rig.views[1].load_u32(rig.page0 + 0x40);
    rig.engines[0].resumed();
    rig.store(0, 0x40, 7);
    let set_at = rig.engines[0].now().unwrap();
    let load = rig.guest(Kind::Load, 0x40, seen);
    rig.engines[1].access(load).unwrap();
    assert_eq!(seen, 0, "the poll found nothing");
    // The poll waits: it must resume, at its first period after the store.
    let mut waiter = rig.engines.pop().unwrap();
    let waiting = std::thread::spawn(move || {
        waiter.emu_call(EmuCall::Wait, emu_call(EmuCall::Wait));
        waiter.now().unwrap()
    });
    rig.engines[0].finished();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !waiting.is_finished() {
        if std::time::Instant::now() > deadline {
            crate::timing::stop_waiting(rig._dir.path()).unwrap();
            panic!("the wait never ended: the store was lost");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let resumed = waiting.join().unwrap();
    assert!(
        resumed >= set_at,
        "resumed at {resumed}, the store came at {set_at}"
    );
    assert_eq!(rig.views[1].load_u32(rig.page0 + 0x40), 7);
}

#[test]
fn a_poll_longer_than_a_hold_orders_again_and_holds_the_others_back_throughout() {
    let mut rig = rig_timed(PTE_PCD, Some(1_000_000));
    // Core 0 holds nobody back; core 1 polls from cycle 100.
    rig.engines[0].halted();
    rig.engines[1].set_insns(100, 100);
    rig.engines[1].emu_call(EmuCall::Poll, emu_call(EmuCall::Poll));
    let start = rig.engines[1].now().unwrap();
    rig.load(1, 0x40);
    // Far past the hold without a timed access (the poll computes): the
    // others still see the core at the poll's start.
    let long = start + (1 << 16) + 5000;
    rig.engines[1].set_insns(200, long);
    rig.engines[1].sync_point(0x0010_0000);
    let past = |rig: &Rig, t: u64| rig.engines[0].time.as_ref().unwrap().clocks().ordered(t);
    assert!(
        !past(&rig, start + 1),
        "the poll holds the others at {start}"
    );
    // Its next timed access orders again: from there its accesses count as
    // made at the clock it ordered at.
    rig.load(1, 0x44);
    let renewed = rig.engines[1].now().unwrap();
    assert!(renewed >= long);
    assert!(past(&rig, start + 1));
    assert!(
        !past(&rig, renewed + 1),
        "the poll holds the others at {renewed}"
    );
    // Over, it shows its clock again.
    rig.engines[1].emu_call(EmuCall::Done, emu_call(EmuCall::Done));
    rig.engines[1].set_insns(300, long + 20_000);
    rig.engines[1].sync_point(0x0010_0000);
    assert!(past(&rig, renewed + 1));
}

#[test]
fn a_read_waits_for_a_later_write_to_its_words_only() {
    let mut rig = rig_in_dram();
    // Core 0 is ahead in modelled time; the line is one nobody polls.
    rig.engines[0].set_insns(5000, 5000);
    rig.engines[1].set_insns(10, 10);
    rig.store(0, 0x40, 7);
    let written = rig.engines[0].now().unwrap();
    // Another word of the line: its bytes are not the later write's.
    rig.load(1, 0x44);
    let before = rig.engines[1].now().unwrap();
    assert!(before < written, "{before} moved to the write at {written}");
    assert_eq!(rig.engines[1].report().stats.future_reads, 0);
    // The written word: the read completes no earlier than the write.
    assert_eq!(rig.load(1, 0x40), 7);
    let after = rig.engines[1].now().unwrap();
    assert!(
        after >= written,
        "{after} read what was written at {written}"
    );
    assert_eq!(rig.engines[1].report().stats.future_reads, 1);
}

#[test]
fn a_held_clock_starts_at_the_entry() {
    let mut rig = rig_timed(PTE_PCD, Some(100_000));
    rig.engines[0].hold_time();
    rig.engines[0].set_insns(40_000, 52_000); // the firmware
    assert_eq!(rig.engines[0].now(), Some(0));
    rig.engines[0].start_time();
    // 100 instructions issued in 130 cycles.
    rig.engines[0].set_insns(40_100, 52_130);
    assert_eq!(rig.engines[0].now(), Some(release(0) + 130));
    // What the core executed before counts as executed all the same.
    assert_eq!(rig.engines[0].report().stats.insns, 40_100);
}

#[test]
fn mesh_traffic_is_counted_at_every_router_of_its_xy_route() {
    let dir = tempfile::tempdir().unwrap();
    let memory = ChipMemory::create(dir.path(), &SCC, 1).unwrap();
    // Paging off: DCM, so a load fills a whole line.
    let mut engine = Engine::new(&memory, core(0), 1, false).unwrap();
    let tile = |n| SCC.tile(n).unwrap();
    let at = |paddr, kind| GuestAccess {
        kind,
        vaddr: paddr,
        paddr,
        len: 4,
        value: 0,
        insn: 0x0010_0000,
        rest: 0,
    };
    // Core 0 sits on tile 0 at (0,0); tile 5 is (5,0): routers 0..=5.
    engine
        .access(at(SCC.mpb_base(tile(5)) + 0x40, Kind::Load))
        .unwrap();
    let bytes = engine.report().stats.router_bytes;
    let expected: Vec<u64> = (0..24).map(|r| if r <= 5 { LINE } else { 0 }).collect();
    assert_eq!(bytes[..24], expected[..]);
    assert!(bytes[24..].iter().all(|&b| b == 0));
    // A second load of the line hits L1: nothing crosses the mesh.
    engine
        .access(at(SCC.mpb_base(tile(5)) + 0x44, Kind::Load))
        .unwrap();
    assert_eq!(engine.report().stats.router_bytes, bytes);
    // A register store to tile 23 at (5,3): x first along row 0, then
    // up column 5: routers 0..=5, 11, 17, 23.
    engine
        .access(at(SCC.crb_base(tile(23)) + 0x100, Kind::Store))
        .unwrap();
    let after = engine.report().stats.router_bytes;
    for r in 0..24 {
        let more = if r <= 5 || [11, 17, 23].contains(&r) {
            4
        } else {
            0
        };
        assert_eq!(after[r], bytes[r] + more, "router {r}");
    }
}

#[test]
fn a_lut_entry_that_reaches_nothing_stops_the_core_with_its_name() {
    let mut rig = rig(PTE_PCD);
    let access = GuestAccess {
        paddr: 0x8C00_0000, // entry 140, free at boot
        vaddr: 0x8C00_0000,
        ..guest(Kind::Load, 0, 0)
    };
    let message = rig.engines[1].access(access).unwrap_err().to_string();
    assert!(message.starts_with("core 1: "), "{message}");
    assert!(message.contains("LUT entry 140"), "{message}");
}

#[test]
fn what_a_core_runs_after_its_exit_call_is_not_counted() {
    let mut rig = rig_timed(PTE_PCD, Some(100_000));
    let engine = &mut rig.engines[0];
    engine.set_insns(1000, 1200);
    engine.emu_call(EmuCall::Exit, emu_call(EmuCall::Exit));
    let at_exit = engine.report();
    assert_eq!(
        (at_exit.stats.insns, at_exit.stats.cycles),
        (1000, release(0) + 1200)
    );
    // QEMU stops the core a little later: the instructions it runs
    // meanwhile (as many as the host schedules) change nothing.
    engine.set_insns(1011, 1220);
    engine.access(guest(Kind::Load, 0x40, 0)).unwrap();
    assert_eq!(engine.report(), at_exit);
    // Without the call, they count.
    let other = &mut rig.engines[1];
    other.set_insns(1000, 1200);
    other.set_insns(1011, 1220);
    assert_eq!(other.report().stats.insns, 1011);
}

#[test]
fn an_uncached_store_waits_in_a_write_buffer_and_a_load_after_it_waits_for_it() {
    let mut rig = rig_timed(PTE_PCD, Some(100_000));
    let t = SCC.timing;
    // Cores 0 and 1 sit on tile 0: its MPB is one router away.
    let mpb = t.mpb_access(1) - u64::from(t.l1_hit);
    let target = Target::Mpb(SCC.tile(0).unwrap());
    let own = Latencies::new(&SCC, core(0), Variation::new(chip::DEFAULT_SEED));
    let arrival = own.target(target).unwrap().queue.unwrap().arrival;
    // Core 0 far ahead of core 1, whatever their release from reset. Core
    // 1 halted meanwhile holds nobody back: core 0's MPB store orders at
    // once.
    rig.engines[1].halted();
    rig.engines[0].set_insns(1000, 1000);
    rig.store(0, 0x40, 7);
    // The store costs the core nothing: a write buffer takes it.
    let issued = release(0) + 1000;
    assert_eq!(rig.engines[0].now(), Some(issued));
    assert_eq!(rig.memory(0x40), 7, "its bytes are in memory");
    // Another core sees it only once it reached the MPB.
    rig.engines[1].resumed();
    rig.engines[1].set_insns(10, 10);
    assert_eq!(rig.load(1, 0x40), 7);
    let seen = issued + arrival;
    assert_eq!(
        rig.engines[1].now(),
        Some(seen + mpb + crossing(1, target, 0))
    );
    // A load of another word waits until the store completed, then makes
    // its own access: what the store cost before it was buffered.
    rig.engines[0].set_insns(1001, 1001);
    assert_eq!(rig.load(0, 0x80), 0);
    let completed = issued + mpb + crossing(0, target, 0);
    assert_eq!(
        rig.engines[0].now(),
        Some(completed + mpb + crossing(0, target, 1))
    );
    let stats = rig.engines[0].report().stats;
    assert_eq!(stats.class_count[Class::Buffered as usize], 1);
    assert_eq!(
        stats.class_cycles[Class::BufferWait as usize],
        completed - (issued + 1)
    );
}

#[test]
fn a_third_store_in_a_row_waits_for_the_first_to_complete() {
    let mut rig = rig_timed(PTE_PCD, Some(100_000));
    let t = SCC.timing;
    let mpb = t.mpb_access(1) - u64::from(t.l1_hit);
    // Core 1 halted holds nobody back: core 0's MPB stores order at once.
    rig.engines[1].halted();
    for (i, offset) in [0x40, 0x44, 0x48].into_iter().enumerate() {
        let issued = 100 + i as u64;
        rig.engines[0].set_insns(issued, issued);
        rig.store(0, offset, offset);
    }
    // Each write keeps the bus for an access, one after the other.
    let target = Target::Mpb(SCC.tile(0).unwrap());
    let done = |start: u64, access| start + mpb + crossing(0, target, access);
    let first = done(release(0) + 100, 0);
    let second = done(first, 1);
    let third = done(second, 2);
    // Two buffers: the third store waits until the first completes.
    assert_eq!(rig.engines[0].now(), Some(first));
    // The last goes out once the second completed, and a WBINVD waits
    // for it.
    assert!(second < third);
    rig.engines[0].wbinvd().unwrap();
    assert_eq!(
        rig.engines[0].now(),
        Some(third + u64::from(t.wbinvd - t.insn_cycles))
    );
    assert_eq!(
        [0x40, 0x44, 0x48].map(|o| rig.memory(o)),
        [0x40, 0x44, 0x48]
    );
}

#[test]
fn the_clocks_crossing_is_charged_apart_from_the_access() {
    // Core 47, on tile 23, loads from tile 0's MPB across the mesh.
    let mut rig = rig_on(&SCC, 48, [47, 46], PTE_PCD, Some(100_000));
    let t = SCC.timing;
    let mpb = t.mpb_access(9) - u64::from(t.l1_hit);
    let target = Target::Mpb(SCC.tile(0).unwrap());
    let loads = 16;
    for i in 0..loads {
        rig.engines[0].set_insns(100 + i, 100 + i);
        assert_eq!(rig.load(0, 0x40 + 4 * i as u32), 0);
    }
    let crossings: Vec<u64> = (0..loads).map(|k| crossing(47, target, k)).collect();
    // At this distance the reply's wait for the core's clock crosses
    // into a core cycle more for some phases at least, or the test
    // proves nothing.
    assert!(crossings.contains(&1), "{crossings:?}");
    let stats = rig.engines[0].report().stats;
    assert_eq!(stats.class_count[Class::MpbRemote as usize], loads);
    assert_eq!(stats.class_cycles[Class::MpbRemote as usize], loads * mpb);
    let crossed = crossings.iter().filter(|&&c| c > 0).count() as u64;
    assert_eq!(stats.class_count[Class::Crossing as usize], crossed);
    assert_eq!(
        stats.class_cycles[Class::Crossing as usize],
        crossings.iter().sum::<u64>()
    );
}

/// The remote atomic unit of the 8x8 chip, as the guest reaches it.
mod remote_atomics {
    use chip::{AtomicOp, MESH8X8, RauCommand, RauRegister, RemoteAtomics};

    use super::*;

    const UNIT: RemoteAtomics = MESH8X8.remote_atomics.unwrap();

    /// Two cores of a run of `run` cores of the 8x8 chip, the test
    /// playing cores `players`, the rig's page the LSM page of controller
    /// 0 (uncached DRAM), with modelled time if `quantum` is given.
    fn dram_rig(run: u32, players: [u32; 2], quantum: Option<u64>) -> Rig {
        let mut rig = rig_on(&MESH8X8, run, players, PTE_PCD, quantum);
        let base = MESH8X8.lsm_base(0);
        for ram in &rig.rams {
            map_page(ram, base, PTE_PCD);
        }
        rig.base = base;
        rig.page0 = crate::chipmem::Layout::new(&MESH8X8).lsm(0);
        rig
    }

    /// The guest of `engine` stores `value` to its request register
    /// `reg`, where QEMU would (its copy of the system bank in `g`), and
    /// the engine hears of it.
    fn store_register(
        engine: &mut Engine,
        g: &Mapping,
        reg: RauRegister,
        value: u32,
    ) -> Result<()> {
        let offset = UNIT.registers + reg as u32;
        g.store_u32(engine.layout.fpga(engine.core) + u64::from(offset), value);
        let paddr = MESH8X8.fpga_base() + offset;
        engine.access(GuestAccess {
            kind: Kind::Store,
            vaddr: paddr,
            paddr,
            len: 4,
            value: u64::from(value),
            insn: 0x0020_0000 + offset,
            rest: 0,
        })
    }

    /// The guest of `engine` asks the unit for `op` on the `bytes`-byte
    /// word at `addr`, and reads the old value back.
    fn ask(
        engine: &mut Engine,
        g: &Mapping,
        (op, bytes): (AtomicOp, u32),
        addr: u32,
        operand: u64,
        compare: u64,
    ) -> Result<u64> {
        use RauRegister::*;
        store_register(engine, g, OperandLo, operand as u32)?;
        store_register(engine, g, OperandHi, (operand >> 32) as u32)?;
        store_register(engine, g, CompareLo, compare as u32)?;
        store_register(engine, g, CompareHi, (compare >> 32) as u32)?;
        store_register(engine, g, Command, RauCommand { op, bytes }.encode())?;
        store_register(engine, g, Address, addr)?;
        let result = engine.layout.fpga(engine.core) + u64::from(UNIT.registers);
        let lo = g.load_u32(result + ResultLo as u64);
        let hi = g.load_u32(result + ResultHi as u64);
        Ok(u64::from(lo) | u64::from(hi) << 32)
    }

    /// [`ask`] by guest `c` of `rig`.
    fn request(
        rig: &mut Rig,
        c: usize,
        op: (AtomicOp, u32),
        addr: u32,
        operand: u64,
        compare: u64,
    ) -> Result<u64> {
        ask(&mut rig.engines[c], &rig.g, op, addr, operand, compare)
    }

    fn present(rig: &Rig, c: usize) -> u32 {
        let engine = &rig.engines[c];
        let at = engine.layout.fpga(engine.core)
            + u64::from(UNIT.registers + RauRegister::Present as u32);
        rig.g.load_u32(at)
    }

    #[test]
    fn each_operation_changes_memory_and_every_view_and_returns_the_old_value() {
        let mut rig = dram_rig(2, [0, 1], None);
        assert_eq!(present(&rig, 0), chip::RAU_PRESENT);
        let word = rig.base + 0x40;
        let add = (AtomicOp::FetchAdd, 4);
        assert_eq!(request(&mut rig, 0, add, word, 5, 0).unwrap(), 0);
        assert_eq!(request(&mut rig, 1, add, word, 7, 0).unwrap(), 5);
        assert_eq!(rig.memory(0x40), 12);
        assert_eq!(rig.load(0, 0x40), 12, "core 0's view has the unit's write");
        let cas = (AtomicOp::CompareSwap, 4);
        assert_eq!(request(&mut rig, 1, cas, word, 99, 11).unwrap(), 12);
        assert_eq!(
            rig.memory(0x40),
            12,
            "a compare-swap that fails writes nothing"
        );
        assert_eq!(request(&mut rig, 1, cas, word, 99, 12).unwrap(), 12);
        assert_eq!(rig.load(0, 0x40), 99);
        let swap = (AtomicOp::Swap, 4);
        assert_eq!(request(&mut rig, 0, swap, word, 3, 0).unwrap(), 99);
        assert_eq!(rig.memory(0x40), 3);
        // Eight bytes: the carry reaches the high word; the next word of
        // the line is left alone.
        let wide = rig.base + 0x48;
        rig.store(0, 0x48, u32::MAX);
        rig.store(0, 0x50, 0xAAAA);
        let add8 = (AtomicOp::FetchAdd, 8);
        assert_eq!(request(&mut rig, 1, add8, wide, 1, 0).unwrap(), 0xFFFF_FFFF);
        assert_eq!((rig.memory(0x48), rig.memory(0x4C)), (0, 1));
        assert_eq!(rig.memory(0x50), 0xAAAA);
        let cas8 = (AtomicOp::CompareSwap, 8);
        let old = request(&mut rig, 0, cas8, wide, 7 << 32 | 9, 1 << 32).unwrap();
        assert_eq!(old, 1 << 32);
        assert_eq!((rig.memory(0x48), rig.memory(0x4C)), (9, 7));
        let counts = [0, 1].map(|c| rig.engines[c].report().stats.rau_ops);
        assert_eq!(counts, [3, 4]);
        for c in 0..2 {
            assert_eq!(rig.engines[c].report().stale_reads, 0);
        }
    }

    #[test]
    fn a_core_holding_the_line_reads_it_stale_and_the_checker_names_the_units_user() {
        let mut rig = rig_on(&MESH8X8, 2, [0, 1], PTE_PMB, None);
        // Core 1 caches the line of tile 0's MPB (MPBT), core 0 adds to
        // its first word through the MPB's unit.
        assert_eq!(rig.load(1, 0x100), 0);
        let add = (AtomicOp::FetchAdd, 4);
        let word = rig.base + 0x100;
        assert_eq!(request(&mut rig, 0, add, word, 4, 0).unwrap(), 0);
        assert_eq!(rig.memory(0x100), 4);
        assert_eq!(rig.load(1, 0x100), 0, "core 1 still reads its cached line");
        let report = rig.engines[1].report();
        assert_eq!(report.stale_reads, 1);
        assert_eq!(report.stale[0].writer, Some(0));
        rig.engines[1].cl1invmb().unwrap();
        assert_eq!(rig.load(1, 0x100), 4);
    }

    #[test]
    fn operations_of_two_cores_at_once_lose_no_update() {
        let mut rig = dram_rig(2, [0, 1], None);
        let word = rig.base + 0x80;
        let per_core = 2_000u64;
        let g = &rig.g;
        let olds: Vec<u64> = std::thread::scope(|scope| {
            let threads: Vec<_> = rig
                .engines
                .iter_mut()
                .map(|engine| {
                    scope.spawn(move || {
                        (0..per_core)
                            .map(|_| ask(engine, g, (AtomicOp::FetchAdd, 8), word, 1, 0).unwrap())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .collect()
        });
        assert_eq!(
            (rig.memory(0x80), rig.memory(0x84)),
            (2 * per_core as u32, 0)
        );
        // Every old value was seen once: no two operations overlapped.
        let mut seen = olds;
        seen.sort_unstable();
        assert_eq!(seen, (0..2 * per_core).collect::<Vec<_>>());
    }

    #[test]
    fn an_operation_costs_one_transaction_to_the_unit_and_is_counted() {
        let mut rig = dram_rig(2, [0, 1], Some(100_000));
        let t = MESH8X8.timing;
        rig.engines[1].halted();
        rig.engines[0].set_insns(100, 100);
        let ops = 8;
        for i in 0..ops {
            let add = (AtomicOp::FetchAdd, 4);
            let word = rig.base + 0x40;
            assert_eq!(request(&mut rig, 0, add, word, 1, 0).unwrap(), i);
        }
        // Core 0 sits on tile (0,0); controller 0 on router (1,0): two
        // routers.
        let routers = crate::model::mesh::routers(
            &MESH8X8,
            MESH8X8.tile_coord(MESH8X8.tile_of(core(0))),
            MESH8X8.memory_controllers[0].port.tile,
        );
        assert_eq!(routers, 2);
        let each = UNIT.controller_access(&t, routers) - u64::from(t.l1_hit);
        let stats = rig.engines[0].report().stats;
        assert_eq!(stats.rau_ops, ops);
        assert_eq!(stats.class_count[Class::Atomic as usize], ops);
        assert_eq!(stats.class_cycles[Class::Atomic as usize], ops * each);
        // More than a plain DRAM access by the service and the write.
        assert!(each > t.dram_access(routers));
        // Nothing else was charged: the registers cost no access.
        assert_eq!(stats.class_count[Class::Fpga as usize], 0);
        assert_eq!(stats.class_count[Class::Dram as usize], 0);
        assert_eq!(stats.mc_bytes[0], ops * 8);
    }

    #[test]
    fn the_unit_keeps_its_controller_busy_for_two_accesses_and_its_service() {
        let own = Latencies::new(&MESH8X8, core(0), Variation::new(chip::DEFAULT_SEED));
        let dram = Target::Dram {
            controller: 0,
            page: 0,
        };
        let plain = own.target(dram).unwrap().queue.unwrap();
        let unit = own.atomic(dram).unwrap().queue.unwrap();
        assert_eq!(unit.resource, plain.resource);
        assert_eq!(unit.arrival, plain.arrival);
        let service = MESH8X8
            .timing
            .mesh_to_core(u64::from(UNIT.service_mesh_cycles));
        assert_eq!(unit.service, 2 * plain.service + service);
        let mpb = Target::Mpb(MESH8X8.tile(5).unwrap());
        let (plain, unit) = (own.target(mpb).unwrap(), own.atomic(mpb).unwrap());
        assert_eq!(
            unit.queue.unwrap().service,
            2 * plain.queue.unwrap().service + service
        );
        assert!(unit.cycles > plain.cycles);
        // Its reply leaves after the write: later on every link back.
        for (p, u) in plain.hops.iter().zip(unit.hops) {
            assert_eq!(p.link, u.link);
            assert!(if p.request {
                u.arrival == p.arrival
            } else {
                u.arrival > p.arrival
            });
        }
        // The SCC has no unit.
        let scc = Latencies::new(&SCC, core(0), Variation::new(chip::DEFAULT_SEED));
        assert!(scc.atomic(dram).is_none());
    }

    #[test]
    fn a_request_the_unit_cannot_serve_stops_the_core_with_the_reason() {
        let mut rig = dram_rig(2, [0, 1], None);
        let add = (AtomicOp::FetchAdd, 8);
        let unaligned = rig.base + 4;
        let message = request(&mut rig, 0, add, unaligned, 1, 0)
            .unwrap_err()
            .to_string();
        assert!(message.contains("aligned"), "{message}");
        // A register block is no memory a unit serves.
        let crb = MESH8X8.crb_base(MESH8X8.tile(0).unwrap());
        let message = request(&mut rig, 0, (AtomicOp::Swap, 4), crb, 1, 0)
            .unwrap_err()
            .to_string();
        assert!(message.contains("no remote atomic unit"), "{message}");
        assert!(message.contains("CRB of tile 0"), "{message}");
        let engine = &mut rig.engines[0];
        store_register(engine, &rig.g, RauRegister::Command, 0x0905).unwrap();
        let message = store_register(engine, &rig.g, RauRegister::Address, rig.base)
            .unwrap_err()
            .to_string();
        assert!(message.contains("command 0x905"), "{message}");
    }
}
