// SPDX-License-Identifier: GPL-2.0-or-later
//! One core's memory system at work: the models of [`crate::model`]
//! applied to the run's shared files, as DESIGN.md section 4 describes.
//!
//! # The data
//!
//! - **G**, the chip memory (`chip.mem`): what the chip's memory holds.
//! - **V_c**, one view per core (`view-NN.mem`), laid out like G: what core
//!   c's loads return. QEMU shows the core its view for every cacheable
//!   region (LSM, MPBs), so guest loads and stores run at full speed on it.
//! - **The directory** (`directory.mem`): per 32-byte line of G, the cores
//!   whose caches or write-combine buffer hold the line (bits 0-54), a lock
//!   (bit 55) and the last core that wrote it to memory, plus one (bits
//!   56-63).
//!
//! The invariant: a line of V_c that core c does not hold equals G. QEMU
//! calls the engine after each access of the guest (the bytes are already
//! in V_c); the engine asks [`CoreMemory`] what the caches did and carries
//! out its events:
//!
//! | event | done here |
//! |---|---|
//! | fill | c becomes a holder of the line: others stop updating it in V_c |
//! | write-back | the whole line V_c -> G, then *publish* it |
//! | drop | c stops holding the line (unless an alias or its WCB still does); V_c takes G's bytes again, except those in the WCB |
//! | write-through | the stored bytes -> G, then publish them |
//! | WCB flush | the buffered bytes -> G, publish; then as a drop if c no longer holds the line |
//!
//! *Publish* writes the bytes into the view of every running core that
//! does not hold the line. A holder keeps its stale copy until its cache
//! lets go of the line: that is the non-coherence the guest sees.
//!
//! Publishing a line and refreshing a view from G both hold the line's
//! lock: otherwise a refresh could read G just before a publish and write
//! the older bytes over the newer ones the publish had just put into the
//! view, and two publishes of the same bytes could leave G and a view
//! disagreeing. Becoming a holder needs no lock: a publish either comes
//! before (and updated the view the core then cached) or after (and leaves
//! the cached copy alone); both are what silicon could do.
//!
//! The bytes a store leaves through the WCB or writes through are taken
//! from the store's value as QEMU reports it, not from V_c, so that a
//! publish by another core between the guest's store and this engine's
//! callback cannot take their place.
//!
//! # LUTs
//!
//! Events carry core-physical addresses and are translated through the
//! core's LUT when they are applied, so a line that leaves the cache after
//! a LUT write goes to the new target (thesis 1.3). A LUT write moves the
//! cached lines of the remapped page with it (the cache is tagged with
//! core-physical addresses and keeps its data) and makes QEMU show the new
//! target's view at once. A LUT entry of another core takes effect at that
//! core's next access to the page.
//!
//! # Time
//!
//! With timing on (a quantum given), the engine keeps the core's modelled
//! clock ([`crate::model::latency`]): the plugin tells it how many
//! instructions ran ([`Engine::set_insns`]), and every access adds its
//! latency from where it completed (L1, L2, the WCB or memory, per line
//! touched) and what it reached through the LUT (a tile's MPB, a memory
//! controller, whose queue is shared with the other cores, a register
//! block). Lines a cache or the WCB writes back cost a store each. The
//! clock is kept within a quantum of the other cores' ([`crate::timing`])
//! at sync points: every few thousand instructions ([`Engine::sync_point`])
//! and after accesses once the clock passed the next point. A read of the
//! FPGA bank's global timestamp (low word) latches the clock into this
//! core's copy of the bank, where the guest's next reads find it.
//!
//! # Deliberate differences
//!
//! - Private memory is not modelled: it cannot be shared, and leaving it
//!   out keeps private code fast. It does not compete for cache capacity,
//!   and its accesses cost an L1 hit in modelled time.
//! - Two core-physical aliases of one system line (a tile's MPB and the
//!   own-MPB entry) share the core's one view of it: a store through one is
//!   seen through the other even while both are cached.
//! - Registers (CRBs, FPGA bank) are never cached; their accesses are
//!   counted (test-and-set registers) and watched (LUT writes).

use std::fs::File;
use std::path::{Path, PathBuf};

use chip::{CACHE_LINE, Chip, CoreId, LUT_PAGE_SIZE, LutEntry, MemoryType, Target};

use crate::chipmem::{self, Backing, ChipMemory, Layout};
use crate::model::hierarchy::{Access, Config, CoreMemory, Event, Kind, Outcome};
use crate::model::latency::{Class, CoreClock, Latencies};
use crate::model::lut::Lut;
use crate::model::mesh;
use crate::model::paging::{PageType, Tlb};
use crate::model::tsr::TsrStats;
use crate::report::{CoreReport, STALE_KEPT, StaleRead};
use crate::shm::{self, Mapping};
use crate::timing::{Clocks, State};
use crate::{Error, Result};

const LINE: u64 = CACHE_LINE as u64;
const FULL_LINE: u32 = u32::MAX;
/// Directory word bits naming the cores that hold the line.
const HOLDERS: u64 = (1 << 55) - 1;
/// Directory word bit locking the line while its bytes move between G and
/// the views.
const LOCKED: u64 = 1 << 55;
/// Directory word bits naming the last writer, plus one (0: nobody yet).
const WRITER_SHIFT: u32 = 56;
/// Most cores a directory word can name.
pub const MAX_CORES: u32 = 55;

/// Where QEMU shows one LUT page to the guest, for remapping.
#[derive(Debug, Clone, Copy)]
struct HostPage {
    host: usize,
    /// Bytes QEMU maps there: a LUT page, or less (the own MPB).
    len: usize,
    /// Whether QEMU mapped the page from the core's view (cacheable
    /// regions) rather than from G.
    view: bool,
}

/// One core's memory-system engine.
#[derive(Debug)]
pub struct Engine {
    chip: &'static Chip,
    core: CoreId,
    cores: u32,
    layout: Layout,
    dir: PathBuf,
    g: Mapping,
    g_file: File,
    views: Vec<Mapping>,
    own_view: File,
    directory: Mapping,
    ram: Option<Mapping>,
    memory: CoreMemory,
    tlb: Tlb,
    cr0: u32,
    cr3: u32,
    lut: Lut,
    /// Pairs of LUT entries that reach the same page (the own-MPB entry
    /// and the tile's MPB entry, or a free entry pointed at memory another
    /// entry reaches), kept current on every LUT write so that releasing a
    /// line need not search the whole LUT.
    aliases: Vec<(u8, u8)>,
    /// Offset in G of this core's LUT registers in its tile's CRB.
    lut_registers: u64,
    wcb: [u8; CACHE_LINE],
    check: bool,
    stale_reads: u64,
    stale: Vec<StaleRead>,
    tsr: Vec<TsrStats>,
    host_pages: Option<Vec<Option<HostPage>>>,
    time: Option<Time>,
    /// Instructions executed since reset, as the plugin last said.
    insns: u64,
    /// Instruction and address of the last access, if it was a register
    /// load: a store by the same instruction to the same address next is
    /// the second half of a locked exchange.
    last_register_load: Option<(u32, u32)>,
}

/// The modelled clock and what it needs (timing on).
#[derive(Debug)]
struct Time {
    latencies: Latencies,
    clock: CoreClock,
    clocks: Clocks,
    /// Per line of G, when it was last written (see [`crate::timing`]).
    stamps: Mapping,
    /// Clock at which the next access syncs.
    next_sync: u64,
    /// Address of the last instruction the engine heard of, published at
    /// each sync point so that a run tool can say where a core stopped.
    pc: u32,
}

impl Time {
    /// The core stalls for one access to `target` (or a store of a line
    /// there), as `class` if given, else the target's own class.
    fn charge(&mut self, target: Target, class: Option<Class>) {
        let Some(cost) = self.latencies.target(target) else {
            return;
        };
        let l1 = u64::from(self.latencies.timing().l1_hit);
        let now = self.clock.now();
        if let Some((mc, arrival)) = cost.controller {
            let service = self.latencies.memctl_service();
            let wait = self.clocks.book_controller(mc, now + arrival, service);
            if wait > 0 {
                self.clock.stall(Class::MemctlWait, wait);
            }
        }
        self.clock
            .stall(class.unwrap_or(cost.class), cost.cycles.saturating_sub(l1));
    }

    /// A load read line `s` of G: it completes no earlier than the write
    /// it may have read.
    fn observe(&mut self, s: u64) {
        let written = self.stamps.load(dir_word(s));
        self.clock.idle_until(written);
    }

    /// A write reaches line `s` of G now.
    fn stamp(&self, s: u64) {
        self.stamps.store(dir_word(s), self.clock.now());
    }

    fn sync(&mut self) {
        let now = self.clock.now();
        self.clocks.publish_pc(self.pc);
        self.clocks.keep_within_quantum(now);
        self.next_sync = now + self.clocks.quantum() / 2;
    }
}

/// What the guest did, as a memory callback reports it.
#[derive(Debug, Clone, Copy)]
pub struct GuestAccess {
    /// Load or store.
    pub kind: Kind,
    /// Virtual address.
    pub vaddr: u32,
    /// Core-physical address.
    pub paddr: u32,
    /// Bytes (1, 2, 4 or 8).
    pub len: u32,
    /// The value loaded or stored, little-endian in the low `len` bytes.
    pub value: u64,
    /// Address of the instruction.
    pub insn: u32,
}

impl Engine {
    /// The engine of `core` of a run of `cores` cores of `memory`'s chip,
    /// with every file of the run mapped.
    pub fn new(memory: &ChipMemory, core: CoreId, cores: u32, check: bool) -> Result<Self> {
        Self::with_timing(memory, core, cores, check, None, Config::SCC)
    }

    /// As [`Engine::new`], with modelled time kept within `quantum` core
    /// cycles of the other cores if given, and the caches of `config`.
    pub fn with_timing(
        memory: &ChipMemory,
        core: CoreId,
        cores: u32,
        check: bool,
        quantum: Option<u64>,
        config: Config,
    ) -> Result<Self> {
        let layout = *memory.layout();
        let chip = crate::find_chip(layout.chip().name).expect("the memory is of a known chip");
        if cores > MAX_CORES {
            return Err(Error::Model(format!(
                "the line directory names at most {MAX_CORES} cores, not {cores}"
            )));
        }
        let dir = memory.path().parent().unwrap_or(Path::new(".")).to_owned();
        let open = |path: &Path| {
            File::options()
                .read(true)
                .write(true)
                .open(path)
                .map_err(Error::io(path))
        };
        let map = |path: &Path, len: u64| -> Result<(File, Mapping)> {
            let file = open(path)?;
            let mapping = Mapping::new(&file, len).map_err(Error::io(path))?;
            Ok((file, mapping))
        };
        let (g_file, g) = map(memory.path(), layout.size())?;
        let mut views = Vec::new();
        for c in chip.all_cores().take(cores as usize) {
            views.push(map(&chipmem::view_path(&dir, c), layout.size())?.1);
        }
        let own_view = open(&chipmem::view_path(&dir, core))?;
        let (_, directory) = map(
            &chipmem::directory_path(&dir),
            chipmem::directory_size(layout.size()),
        )?;
        let tile = chip.tile_of(core);
        let lut_registers = layout.crb(tile) + u64::from(chip.crb.lut_entry(chip.z_of(core), 0));
        let time = match quantum {
            None => None,
            Some(quantum) => {
                if cores > crate::timing::MAX_CORES {
                    return Err(Error::Model(format!(
                        "the clocks file holds at most {} cores, not {cores}",
                        crate::timing::MAX_CORES
                    )));
                }
                let path = crate::timing::clocks_path(&dir);
                let (_, clocks) = map(&path, crate::timing::FILE_SIZE)?;
                let path = chipmem::stamps_path(&dir);
                let (_, stamps) = map(&path, chipmem::directory_size(layout.size()))?;
                Some(Time {
                    latencies: Latencies::new(chip, core),
                    clock: CoreClock::new(chip.timing.insn_cycles),
                    clocks: Clocks::new(clocks, core.index() as u32, cores, quantum),
                    stamps,
                    next_sync: quantum / 2,
                    pc: 0,
                })
            }
        };
        let mut engine = Self {
            chip,
            core,
            cores,
            layout,
            dir,
            g,
            g_file,
            views,
            own_view,
            directory,
            ram: None,
            memory: CoreMemory::new(config).map_err(|e| Error::Model(e.to_string()))?,
            tlb: Tlb::new(),
            cr0: 0,
            cr3: 0,
            lut: Lut::new(chip, core),
            aliases: Vec::new(),
            lut_registers,
            wcb: [0; CACHE_LINE],
            check,
            stale_reads: 0,
            stale: Vec::new(),
            tsr: vec![TsrStats::default(); chip.cores() as usize],
            host_pages: None,
            time,
            insns: 0,
            last_register_load: None,
        };
        engine.find_aliases();
        Ok(engine)
    }

    /// The lowest core-physical address the engine cares about: everything
    /// below is private memory. A cheap filter for the hot path.
    pub fn shared_low(chip: &Chip) -> u32 {
        chip.shared_regions()
            .map(|r| r.base)
            .min()
            .unwrap_or(u32::MAX)
    }

    /// One past the highest shared core-physical address.
    pub fn shared_high(chip: &Chip) -> u32 {
        chip.shared_regions()
            .map(|r| r.base.saturating_add(r.size))
            .max()
            .unwrap_or(0)
    }

    fn me(&self) -> usize {
        self.core.index()
    }

    fn stop(&self, reason: impl std::fmt::Display) -> Error {
        Error::Model(format!("core {}: {reason}", self.core.index()))
    }

    /// A load or store the guest made (already done on the view).
    pub fn access(&mut self, a: GuestAccess) -> Result<()> {
        if let Some(time) = &mut self.time {
            time.pc = a.insn;
        }
        let entry = Chip::lut_index(a.paddr);
        self.follow_remote_lut_write(entry)?;
        let t = self.lut.translate(a.paddr).map_err(|e| self.stop(e))?;
        match self.layout.backing(t.target, self.core) {
            Backing::Unbacked => Err(self.stop(format_args!(
                "{:?} at {:#010x} (instruction {:#010x}): LUT entry {entry} targets {:?}, memory the emulator does not share",
                a.kind, a.paddr, a.insn, t.target
            ))),
            Backing::Registers { offset } => {
                // A locked exchange reaches QEMU as a load and a store by
                // one instruction at one address: on silicon, the
                // test-and-set register it stands for is one read, so the
                // store half costs nothing more.
                let exchange_half = a.kind == Kind::Store
                    && self.last_register_load == Some((a.insn, a.paddr));
                self.last_register_load = (a.kind == Kind::Load).then_some((a.insn, a.paddr));
                if let Some(time) = &mut self.time {
                    let s = (offset + u64::from(t.offset)) & !(LINE - 1);
                    match a.kind {
                        Kind::Load => time.observe(s),
                        Kind::Store => time.stamp(s),
                    }
                    if !exchange_half {
                        time.charge(t.target, None);
                    }
                }
                self.register_access(a, t.target, offset + u64::from(t.offset));
                self.count_route(t.target, u64::from(a.len), a.kind == Kind::Load);
                self.after_timed_access();
                Ok(())
            }
            Backing::Memory { .. } => {
                match t.target {
                    Target::Mpb(tile) => self.memory.stats_mut().mpb_bytes[tile.index()] += u64::from(a.len),
                    Target::Dram { controller, .. } => self.memory.stats_mut().mc_bytes[controller] += u64::from(a.len),
                    _ => {}
                }
                let access = self.memory_access(a)?;
                self.count_uncached_parts(&access, t.target);
                if self.time.is_some() {
                    self.time_access(&access, t.target);
                    self.after_timed_access();
                }
                Ok(())
            }
        }
    }

    /// Counts `bytes` at every router between this core's tile and the
    /// router serving `target`: on the reply's route (target to core) if
    /// `inbound`, else on the request's (core to target).
    fn count_route(&mut self, target: Target, bytes: u64, inbound: bool) {
        let Some(there) = mesh::router_of(self.chip, target) else {
            return;
        };
        let here = self.chip.tile_coord(self.chip.tile_of(self.core));
        let (from, to) = if inbound {
            (there, here)
        } else {
            (here, there)
        };
        let width = usize::from(self.chip.mesh_x);
        let counters = &mut self.memory.stats_mut().router_bytes;
        for r in mesh::route(from, to) {
            if let Some(c) = counters.get_mut(usize::from(r.x) + usize::from(r.y) * width) {
                *c += bytes;
            }
        }
    }

    /// Counts the mesh traffic of the parts of `access` that went to
    /// `target` without filling a line: uncached loads and stores written
    /// through (fills, write-backs and WCB flushes are counted as their
    /// events are applied).
    fn count_uncached_parts(&mut self, access: &Access, target: Target) {
        let line_of = |addr: u32| addr & !(CACHE_LINE as u32 - 1);
        for p in access.parts() {
            let filled = access
                .events
                .iter()
                .any(|e| matches!(*e, Event::Fill { line } if line == line_of(p.addr)));
            if p.outcome == Outcome::Memory && !filled {
                self.count_route(target, u64::from(p.len), access.kind == Kind::Load);
            }
        }
    }

    /// Counts the mesh traffic of a line that enters or leaves the caches
    /// (`inbound` for a fill), going to wherever the LUT maps it now.
    fn count_line(&mut self, line: u32, bytes: u64, inbound: bool) {
        if let Ok(t) = self.lut.translate(line) {
            self.count_route(t.target, bytes, inbound);
        }
    }

    /// Adds the latency of `access` (to `target`) to the clock.
    fn time_access(&mut self, access: &Access, target: Target) {
        let mut read = [None; 2];
        if access.kind == Kind::Load {
            for (slot, p) in read.iter_mut().zip(access.parts()) {
                if p.outcome == Outcome::Memory {
                    *slot = self.system_line(p.addr).ok();
                }
            }
        }
        let mut lines = [None; 2];
        for (slot, e) in lines
            .iter_mut()
            .zip(access.events.iter().filter_map(|e| match *e {
                Event::WriteBack { line } => Some(line),
                Event::WcbFlush(f) => Some(f.line),
                _ => None,
            }))
        {
            *slot = self.lut.translate(e).ok().map(|t| t.target);
        }
        let Some(time) = &mut self.time else { return };
        let t = *time.latencies.timing();
        for s in read.into_iter().flatten() {
            time.observe(s);
        }
        for p in access.parts() {
            match p.outcome {
                Outcome::L1 => time.clock.stall(Class::L1, 0),
                Outcome::Wcb => time.clock.stall(Class::Wcb, 0),
                Outcome::L2 => time
                    .clock
                    .stall(Class::L2, u64::from(t.l2_hit.saturating_sub(t.l1_hit))),
                Outcome::Memory => time.charge(target, None),
            }
        }
        for target in lines.into_iter().flatten() {
            time.charge(target, Some(Class::WriteBack));
        }
    }

    /// Syncs with the other cores once the clock passed the next point.
    fn after_timed_access(&mut self) {
        if let Some(time) = &mut self.time
            && time.clock.now() >= time.next_sync
        {
            time.sync();
        }
    }

    /// The core has executed `insns` instructions since reset (never
    /// fewer than said before): reported, and with timing on, the clock's
    /// base.
    pub fn set_insns(&mut self, insns: u64) {
        self.insns = self.insns.max(insns);
        if let Some(time) = &mut self.time {
            time.clock.set_insns(insns);
        }
    }

    /// `insns` of the instructions executed were the emulator's own (the
    /// trap handler of an instruction QEMU does not know): they take no
    /// modelled time. The report still counts them as executed.
    pub fn untimed(&mut self, insns: u64) {
        if let Some(time) = &mut self.time {
            time.clock.untimed(insns);
        }
    }

    /// Modelled core cycles since reset, with timing on.
    pub fn now(&self) -> Option<u64> {
        self.time.as_ref().map(|t| t.clock.now())
    }

    /// A periodic sync point in the block at `pc`: publishes the clock
    /// (and `pc`) and sleeps while it is a quantum ahead of the slowest
    /// running core.
    pub fn sync_point(&mut self, pc: u32) {
        if let Some(time) = &mut self.time {
            time.pc = pc;
            time.sync();
        }
    }

    /// The core halts: it holds nobody back until it resumes.
    pub fn halted(&mut self) {
        if let Some(time) = &mut self.time {
            time.clocks.set_state(State::Halted, time.clock.now());
        }
    }

    /// The core resumes from a halt: time passed for it too, so its clock
    /// moves up to a quantum behind the slowest running core (no further:
    /// what woke it may have happened earlier than the others are now; a
    /// read of data written later moves it on, see [`crate::timing`]).
    pub fn resumed(&mut self) {
        if let Some(time) = &mut self.time {
            if let Some(slowest) = time.clocks.slowest_other() {
                time.clock
                    .idle_until(slowest.saturating_sub(time.clocks.quantum()));
            }
            time.clocks.set_state(State::Running, time.clock.now());
        }
    }

    /// The core's QEMU exits: it holds nobody back any more.
    pub fn finished(&mut self) {
        if let Some(time) = &mut self.time {
            time.clocks.set_state(State::Finished, time.clock.now());
        }
    }

    fn memory_access(&mut self, a: GuestAccess) -> Result<Access> {
        let page = self.page_type(a.vaddr)?;
        let access = match a.kind {
            Kind::Load => self.memory.load(a.paddr, a.len, page.memory_type),
            Kind::Store => self
                .memory
                .store(a.paddr, a.len, page.memory_type, page.write_through),
        };
        let value = a.value.to_le_bytes();
        for e in access.events.iter() {
            self.apply(*e, a.paddr, &value)?;
        }
        if a.kind == Kind::Store {
            for p in access.parts().iter().filter(|p| p.outcome == Outcome::Wcb) {
                let from = (p.addr - a.paddr) as usize;
                let at = (p.addr % CACHE_LINE as u32) as usize;
                self.wcb[at..at + p.len as usize]
                    .copy_from_slice(&value[from..from + p.len as usize]);
                let s = self.system_line(p.addr)?;
                self.directory.fetch_or(dir_word(s), self.bit());
            }
        }
        if a.kind == Kind::Load && self.check {
            self.check_load(&a, &access)?;
        }
        Ok(access)
    }

    fn bit(&self) -> u64 {
        1 << self.me()
    }

    /// The offset in G (and every view) of the line of `paddr`.
    fn system_line(&self, paddr: u32) -> Result<u64> {
        let t = self.lut.translate(paddr).map_err(|e| self.stop(e))?;
        match self.layout.backing(t.target, self.core) {
            Backing::Memory { offset } => Ok((offset + u64::from(t.offset)) & !(LINE - 1)),
            _ => Err(self.stop(format_args!(
                "a cached line at {paddr:#010x} now translates to {:?}, which is not memory",
                t.target
            ))),
        }
    }

    /// Whether this core's caches hold `line` (system line `s`), directly
    /// or through another LUT entry mapping the same page (the own-MPB
    /// alias of the tile's MPB).
    fn cached(&self, line: u32, s: u64) -> bool {
        if self.memory.holds(line) {
            return true;
        }
        let entry = Chip::lut_index(line) as u8;
        let offset = line % LUT_PAGE_SIZE;
        self.aliases
            .iter()
            .filter_map(|&(a, b)| match entry {
                e if e == a => Some(b),
                e if e == b => Some(a),
                _ => None,
            })
            .any(|e| {
                let alias = u32::from(e) * LUT_PAGE_SIZE + offset;
                self.memory.holds(alias) && self.system_line(alias).is_ok_and(|a| a == s)
            })
    }

    /// Recomputes [`Engine::aliases`] from the LUT in force.
    fn find_aliases(&mut self) {
        // Only entries that reach shared memory can alias a cached line
        // (unused entries all hold the same value and reach nothing).
        let memory: Vec<u8> = (0..chip::LUT_ENTRIES)
            .map(|e| e as u8)
            .filter(|&e| {
                let target = self.chip.target_of(self.lut.entry(e));
                matches!(
                    self.layout.backing(target, self.core),
                    Backing::Memory { .. }
                )
            })
            .collect();
        self.aliases.clear();
        for (i, &a) in memory.iter().enumerate() {
            for &b in &memory[i + 1..] {
                if self.lut.entry(a) == self.lut.entry(b) {
                    self.aliases.push((a, b));
                }
            }
        }
    }

    /// The bytes of system line `s` the write-combine buffer holds, under
    /// whichever core-physical alias it was written.
    fn wcb_bytes(&self, s: u64) -> u32 {
        self.memory
            .wcb_held()
            .filter(|f| self.system_line(f.line).is_ok_and(|held| held == s))
            .map_or(0, |f| f.mask)
    }

    fn apply(&mut self, e: Event, paddr: u32, value: &[u8; 8]) -> Result<()> {
        match e {
            Event::Fill { line } => {
                let s = self.system_line(line)?;
                self.directory.fetch_or(dir_word(s), self.bit());
                self.count_line(line, LINE, true);
            }
            Event::WriteBack { line } => {
                let s = self.system_line(line)?;
                self.count_line(line, LINE, false);
                let data = self.views[self.me()].read_line(s);
                self.publish(s, &data, FULL_LINE);
                self.release(line, s, 0);
            }
            Event::Drop { line, keep } => {
                // A clean line whose LUT entry now reaches nothing leaves
                // without a trace, as on silicon: nothing goes on the mesh.
                // (A modified one is a write-back, which must reach memory.)
                if let Ok(s) = self.system_line(line) {
                    self.release(line, s, keep);
                }
            }
            Event::WriteThrough { addr, len } => {
                let line = addr & !(CACHE_LINE as u32 - 1);
                let s = self.system_line(line)?;
                let mut data = [0; CACHE_LINE];
                let at = (addr - line) as usize;
                let from = (addr - paddr) as usize;
                data[at..at + len as usize].copy_from_slice(&value[from..from + len as usize]);
                let mask = (((1u64 << len) - 1) << at) as u32;
                self.publish(s, &data, mask);
            }
            Event::WcbFlush(f) => {
                let s = self.system_line(f.line)?;
                self.count_line(f.line, u64::from(f.mask.count_ones()), false);
                let data = self.wcb;
                self.publish(s, &data, f.mask);
                self.release(f.line, s, 0);
            }
        }
        Ok(())
    }

    /// The bytes `mask` of `data` go to G at line `s` and into the view of
    /// every core that does not hold the line.
    fn publish(&self, s: u64, data: &[u8; CACHE_LINE], mask: u32) {
        let word = dir_word(s);
        self.lock_line(word);
        if let Some(time) = &self.time {
            // Before the bytes: whoever sees them sees when they came.
            time.stamp(s);
        }
        self.g.write_masked(s, data, mask);
        let writer = (self.me() as u64 + 1) << WRITER_SHIFT;
        self.directory.update(word, !(HOLDERS | LOCKED), writer);
        let holders = self.directory.load(word) & HOLDERS;
        for (c, view) in self.views.iter().enumerate() {
            if holders & (1 << c) == 0 {
                view.write_masked(s, data, mask);
            }
        }
        self.directory.fetch_and_not(word, LOCKED);
    }

    /// Takes the lock of the line whose directory word is at `word`. Held
    /// for a few hundred nanoseconds; with more instances than host cores
    /// the holder may be descheduled, so waiting yields.
    fn lock_line(&self, word: u64) {
        let mut spins = 0u32;
        while self.directory.fetch_or(word, LOCKED) & LOCKED != 0 {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Line `paddr` (system line `s`) left this core's caches or WCB. If a
    /// cache (through an alias) still holds it, the view keeps the cached
    /// bytes. Otherwise the view takes G's bytes again, except `keep` and
    /// whatever the WCB still holds, and once nothing holds the line the
    /// core stops being a holder.
    fn release(&self, paddr: u32, s: u64, keep: u32) {
        let line = paddr & !(CACHE_LINE as u32 - 1);
        if self.cached(line, s) {
            return;
        }
        let keep = keep | self.wcb_bytes(s);
        let word = dir_word(s);
        self.lock_line(word);
        if keep == 0 {
            self.directory.fetch_and_not(word, self.bit());
        }
        let data = self.g.read_line(s);
        self.views[self.me()].write_masked(s, &data, !keep);
        self.directory.fetch_and_not(word, LOCKED);
    }

    fn check_load(&mut self, a: &GuestAccess, access: &Access) -> Result<()> {
        let value = a.value.to_le_bytes();
        for p in access.parts() {
            if !matches!(p.outcome, Outcome::L1 | Outcome::L2) {
                continue; // read from memory: fresh by the invariant
            }
            let line = p.addr & !(CACHE_LINE as u32 - 1);
            let dirty = [self.memory.l1().peek(line), self.memory.l2().peek(line)]
                .iter()
                .any(|s| s.is_some_and(|s| s.dirty));
            if dirty {
                continue; // the core's own newer data
            }
            let wcb = self.memory.wcb_mask(line);
            let s = self.system_line(line)?;
            let at = (p.addr - line) as usize;
            let mut memory = [0; CACHE_LINE];
            self.g.read(s, &mut memory);
            let from = (p.addr - a.paddr) as usize;
            let stale = (0..p.len as usize)
                .any(|i| wcb & (1 << (at + i)) == 0 && memory[at + i] != value[from + i]);
            if !stale {
                continue;
            }
            self.stale_reads += 1;
            if self.stale.len() < STALE_KEPT {
                // Memory's bytes where this part was read, the rest as read.
                let mut held = value;
                held[from..from + p.len as usize].copy_from_slice(&memory[at..at + p.len as usize]);
                let writer = (self.directory.load(dir_word(s)) >> WRITER_SHIFT) as u32;
                let t = self.lut.translate(a.paddr).map_err(|e| self.stop(e))?;
                self.stale.push(StaleRead {
                    reader: self.core.index() as u32,
                    paddr: a.paddr,
                    target: describe(self.chip, t.target, t.offset),
                    insn: a.insn,
                    len: a.len,
                    read: a.value,
                    memory: u64::from_le_bytes(held),
                    writer: writer.checked_sub(1),
                });
            }
        }
        Ok(())
    }

    fn page_type(&mut self, vaddr: u32) -> Result<PageType> {
        if self.cr0 & (1 << 31) != 0 && self.ram.is_none() {
            let path = chipmem::ram_path(&self.dir, self.core);
            let file = File::options()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(Error::io(&path))?;
            let len = file.metadata().map_err(Error::io(&path))?.len();
            self.ram = Some(Mapping::new(&file, len).map_err(Error::io(&path))?);
        }
        let ram = &self.ram;
        let read = |pa: u32| match ram {
            Some(ram) if u64::from(pa) + 4 <= ram.len() => ram.load_u32(u64::from(pa)),
            _ => 0,
        };
        let cr0 = self.cr0;
        let cr3 = self.cr3;
        let core = self.core.index();
        self.tlb
            .page_type(cr0, cr3, vaddr, read)
            .map_err(|e| Error::Model(format!("core {core}: {e}")))
    }

    fn register_access(&mut self, a: GuestAccess, target: Target, offset: u64) {
        if target == Target::Fpga {
            let bank = self.layout.fpga(self.core);
            let gtsc = u64::from(self.chip.fpga.gtsc_lo);
            if a.kind == Kind::Load
                && offset == bank + gtsc
                && let Some(now) = self.now()
            {
                // Latched for the guest's next reads of GTSC_HI and GTSC_LO.
                self.g.store_u32(bank + gtsc, now as u32);
                self.g
                    .store_u32(bank + u64::from(self.chip.fpga.gtsc_hi), (now >> 32) as u32);
            }
            return;
        }
        let Target::Crb(tile) = target else { return };
        let chip = self.chip;
        let in_crb = (offset - self.layout.crb(tile)) as u32;
        for core in chip.all_cores().filter(|&c| chip.tile_of(c) == tile) {
            let z = chip.z_of(core);
            if in_crb == chip.crb.lock[usize::from(z)] {
                let stats = &mut self.tsr[core.index()];
                let value = a.value as u8;
                match a.kind {
                    Kind::Load if value == chip.tsr_protocol.free => stats.acquires += 1,
                    Kind::Load => stats.failed += 1,
                    Kind::Store if value == chip.tsr_protocol.free => stats.releases += 1,
                    Kind::Store => return, // the store half of an exchange
                }
                self.memory.stats_mut().tsr_ops += 1;
            }
        }
    }

    /// Notices a write to this core's LUT entry `entry` (by anyone, through
    /// any address) since the last access.
    fn follow_remote_lut_write(&mut self, entry: usize) -> Result<()> {
        let raw = self
            .g
            .load_u32(self.lut_registers + u64::from(chip::CrbLayout::LUT_STRIDE) * entry as u64)
            & LutEntry::MASK;
        if raw != self.lut.entry(entry as u8).encode() {
            self.lut_changed(entry as u8, raw)?;
        }
        Ok(())
    }

    /// Entry `entry` now holds `raw`: cached lines of the page move with
    /// it, and QEMU shows the new target.
    fn lut_changed(&mut self, entry: u8, raw: u32) -> Result<()> {
        let base = u32::from(entry) * LUT_PAGE_SIZE;
        let in_page = |line: u32| line / LUT_PAGE_SIZE == u32::from(entry);
        let mut lines: Vec<u32> = self
            .memory
            .l1()
            .lines()
            .chain(self.memory.l2().lines())
            .map(|v| v.line)
            .filter(|&l| in_page(l))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let old: Vec<(u32, [u8; CACHE_LINE])> = lines
            .iter()
            .filter_map(|&l| {
                let s = self.system_line(l).ok()?;
                Some((l, self.views[self.me()].read_line(s)))
            })
            .collect();
        for &(l, _) in &old {
            if let Ok(s) = self.system_line(l) {
                let word = dir_word(s);
                self.lock_line(word);
                self.directory.fetch_and_not(word, self.bit());
                let fresh = self.g.read_line(s);
                self.views[self.me()].write_masked(s, &fresh, FULL_LINE);
                self.directory.fetch_and_not(word, LOCKED);
            }
        }
        self.lut.write_raw(entry, raw);
        self.find_aliases();
        for (l, data) in old {
            if let Ok(s) = self.system_line(l) {
                self.directory.fetch_or(dir_word(s), self.bit());
                self.views[self.me()].write_masked(s, &data, FULL_LINE);
            }
        }
        self.show(entry, base)
    }

    /// Makes QEMU show the current target of `entry` at its page.
    fn show(&mut self, entry: u8, base: u32) -> Result<()> {
        let Some(page) = self.host_page(entry)? else {
            return Ok(()); // no device there: accesses are reported
        };
        let target = self.lut.translate(base).ok().map(|t| t.target);
        let (file, offset) = match target.map(|t| self.layout.backing(t, self.core)) {
            Some(Backing::Memory { offset }) if page.view => (&self.own_view, offset),
            Some(Backing::Registers { offset }) if !page.view => (&self.g_file, offset),
            Some(Backing::Memory { .. } | Backing::Registers { .. }) => {
                return Err(self.stop(format_args!(
                    "LUT entry {entry} now points at {:?}: the emulator shows memory only at \
                     entries made for memory and registers only at entries made for registers",
                    target.expect("matched a backing")
                )));
            }
            // Nothing there: every access is reported.
            Some(Backing::Unbacked) | None => return Ok(()),
        };
        // SAFETY: `page.host` is QEMU's mapping of this LUT page of guest
        // memory, `page.len` bytes, found in this process's maps; nothing
        // here references it.
        unsafe { shm::remap(page.host, page.len, file, offset) }
            .map_err(|e| self.stop(format_args!("remapping LUT entry {entry}: {e}")))
    }

    /// Where QEMU maps LUT page `entry` in this process, found once in
    /// `/proc/self/maps`.
    fn host_page(&mut self, entry: u8) -> Result<Option<HostPage>> {
        if self.host_pages.is_none() {
            self.host_pages = Some(self.find_host_pages()?);
        }
        Ok(self.host_pages.as_ref().and_then(|p| p[usize::from(entry)]))
    }

    fn find_host_pages(&self) -> Result<Vec<Option<HostPage>>> {
        use std::os::unix::fs::MetadataExt;
        let maps =
            std::fs::read_to_string("/proc/self/maps").map_err(Error::io("/proc/self/maps"))?;
        let id = |f: &File| f.metadata().map(|m| (m.dev(), m.ino()));
        let (vdev, vino) = id(&self.own_view).map_err(Error::io(&self.dir))?;
        let (gdev, gino) = id(&self.g_file).map_err(Error::io(&self.dir))?;
        let view_maps = shm::mappings_of(&maps, vdev, vino);
        let g_maps = shm::mappings_of(&maps, gdev, gino);
        let mut pages = vec![None; chip::LUT_ENTRIES];
        for region in self.chip.shared_regions() {
            let view = region.kind.is_cacheable();
            let offset = self.layout.offset(region.kind, self.core);
            let candidates = if view { &view_maps } else { &g_maps };
            let Some(&(start, _, _)) = candidates
                .iter()
                .find(|&&(s, e, o)| o == offset && e - s == region.size as usize)
            else {
                continue;
            };
            // A region smaller than a LUT page (the own MPB) is one page.
            let len = region.size.min(LUT_PAGE_SIZE);
            for i in 0..region.size.div_ceil(LUT_PAGE_SIZE) {
                let entry = Chip::lut_index(region.base) + i as usize;
                pages[entry] = Some(HostPage {
                    host: start + (i * LUT_PAGE_SIZE) as usize,
                    len: len as usize,
                    view,
                });
            }
        }
        Ok(pages)
    }

    /// A store to a LUT register of this core, seen in the callback of the
    /// store (so that the next access already goes to the new target).
    pub fn after_store(&mut self, paddr: u32) -> Result<()> {
        let t = match self.lut.translate(paddr) {
            Ok(t) => t,
            Err(_) => return Ok(()),
        };
        let Target::Crb(tile) = t.target else {
            return Ok(());
        };
        if tile != self.chip.tile_of(self.core) {
            return Ok(());
        }
        let first = self.chip.crb.lut[usize::from(self.chip.z_of(self.core))];
        let stride = chip::CrbLayout::LUT_STRIDE;
        if t.offset < first || t.offset >= first + chip::LUT_ENTRIES as u32 * stride {
            return Ok(());
        }
        let entry = ((t.offset - first) / stride) as u8;
        // A store through the own-CRB entry lands in the core's private
        // copy of the CRB: the LUT in force lives in the tile's CRB.
        let own = Chip::lut_index(paddr) == usize::from(self.chip.address_map.own_crb);
        let index = u64::from(entry) * u64::from(stride);
        if own {
            let raw = self
                .g
                .load_u32(self.layout.own_crb(self.core) + u64::from(t.offset));
            self.g.store_u32(self.lut_registers + index, raw);
        }
        self.follow_remote_lut_write(usize::from(entry))
    }

    /// CL1INVMB: MPBT lines of L1 dropped.
    pub fn cl1invmb(&mut self) -> Result<()> {
        self.cache_op(|t| t.cl1invmb);
        let mut events = Vec::new();
        self.memory.cl1invmb(|e| events.push(e));
        self.apply_all(&events)
    }

    /// WBINVD: L1 written back and emptied.
    pub fn wbinvd(&mut self) -> Result<()> {
        self.cache_op(|t| t.wbinvd);
        let mut events = Vec::new();
        self.memory.wbinvd(|e| events.push(e));
        self.apply_all(&events)
    }

    /// INVD: L1 emptied.
    pub fn invd(&mut self) -> Result<()> {
        self.cache_op(|t| t.invd);
        let mut events = Vec::new();
        self.memory.invd(|e| events.push(e));
        self.apply_all(&events)
    }

    /// WBINVD, INVD or CL1INVMB: a fixed cost from the timing table
    /// (`cost` of it), write-backs included, the instruction's own cycle
    /// (already counted) taken off.
    fn cache_op(&mut self, cost: impl Fn(&chip::Timing) -> u32) {
        if let Some(time) = &mut self.time {
            let timing = time.latencies.timing();
            let cycles = cost(timing).saturating_sub(timing.insn_cycles);
            time.clock.stall(Class::CacheOp, u64::from(cycles));
        }
        self.after_timed_access();
    }

    fn apply_all(&mut self, events: &[Event]) -> Result<()> {
        for e in events {
            self.apply(*e, 0, &[0; 8])?;
        }
        Ok(())
    }

    /// The guest writes `value` to control register `cr`.
    pub fn write_cr(&mut self, cr: u8, value: u32) {
        match cr {
            0 => {
                if (self.cr0 ^ value) & (1 << 31) != 0 {
                    self.tlb.flush();
                }
                self.cr0 = value;
            }
            3 => {
                self.cr3 = value;
                self.tlb.flush();
            }
            _ => {}
        }
    }

    /// The guest executes `invlpg`: the engine forgets every page type
    /// (it does not decode the operand; a full flush is always safe).
    pub fn invlpg(&mut self) {
        self.tlb.flush();
    }

    /// Everything this core's model counted, for the report file.
    pub fn report(&self) -> CoreReport {
        let mut report = CoreReport::new(self.core.index() as u32, self.check);
        report.stats = *self.memory.stats();
        report.stats.insns = self.insns;
        if let Some(time) = &self.time {
            let s = &mut report.stats;
            s.cycles = time.clock.now();
            s.idle_cycles = time.clock.idle_cycles();
            s.class_cycles = time.clock.class_cycles;
            s.class_count = time.clock.class_count;
            s.quantum_sleeps = time.clocks.sleeps;
        }
        report.tsr = self
            .tsr
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != TsrStats::default())
            .map(|(i, s)| (i as u32, *s))
            .collect();
        report.stale_reads = self.stale_reads;
        report.stale = self.stale.clone();
        report
    }

    /// The run's directory, where the report goes.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Cores in the run.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Memory type of accesses while paging is off (for documentation and tests).
    pub const PAGING_OFF: MemoryType = MemoryType::Dcm;
}

/// Offset of the directory word of the line at offset `s` of G.
fn dir_word(s: u64) -> u64 {
    s / LINE * 8
}

/// A target and offset, for people: "MPB of tile 3 + 0x40".
fn describe(chip: &Chip, target: Target, offset: u32) -> String {
    match target {
        Target::Mpb(tile) => format!("MPB of tile {} + {offset:#x}", tile.index()),
        Target::Dram { controller, page }
            if u32::from(page) == chip.lsm_page_number(controller) =>
        {
            format!("LSM page of memory controller {controller} + {offset:#x}")
        }
        Target::Dram { controller, page } => {
            format!("DRAM page {page} of memory controller {controller} + {offset:#x}")
        }
        Target::Crb(tile) => format!("CRB of tile {} + {offset:#x}", tile.index()),
        Target::Fpga => format!("FPGA bank + {offset:#x}"),
        Target::Nothing => "nothing".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use chip::{PTE_PCD, PTE_PMB, PTE_PWT, SCC};
    use tempfile::TempDir;

    use super::*;

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
        views: Vec<Mapping>,
        g: Mapping,
        mpb0: u64,
    }

    fn core(n: u32) -> CoreId {
        SCC.core(n).unwrap()
    }

    fn rig(flags: u32) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let mut engines = Vec::new();
        let mut views = Vec::new();
        for c in 0..2 {
            let ram = File::options()
                .read(true)
                .write(true)
                .open(chipmem::ram_path(dir.path(), core(c)))
                .unwrap();
            ram.set_len(1 << 20).unwrap();
            let ram = Mapping::new(&ram, 1 << 20).unwrap();
            let pde = PAGE_DIRECTORY + 4 * (MPB0 >> 22);
            ram.store_u32(u64::from(pde), PAGE_TABLE | PRESENT_WRITABLE);
            let pte = PAGE_TABLE + 4 * ((MPB0 >> 12) & 0x3FF);
            ram.store_u32(u64::from(pte), MPB0 | PRESENT_WRITABLE | flags);
            let mut engine = Engine::new(&memory, core(c), 2, true).unwrap();
            engine.write_cr(3, PAGE_DIRECTORY);
            engine.write_cr(0, 1 << 31);
            engines.push(engine);
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
            mpb0: memory.layout().mpb(SCC.tile(0).unwrap()),
            g: Mapping::new(&g, memory.layout().size()).unwrap(),
            _dir: dir,
            engines,
            views,
        }
    }

    impl Rig {
        fn load(&mut self, c: usize, offset: u32) -> u32 {
            let value = self.views[c].load_u32(self.mpb0 + u64::from(offset));
            let access = guest(Kind::Load, offset, value);
            self.engines[c].access(access).unwrap();
            value
        }

        fn store(&mut self, c: usize, offset: u32, value: u32) {
            self.views[c].store_u32(self.mpb0 + u64::from(offset), value);
            self.engines[c]
                .access(guest(Kind::Store, offset, value))
                .unwrap();
        }

        fn memory(&self, offset: u32) -> u32 {
            self.g.load_u32(self.mpb0 + u64::from(offset))
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
    fn the_own_mpb_entry_is_known_as_an_alias_of_its_tiles_mpb() {
        let rig = rig(PTE_PMB);
        let own_mpb = SCC.address_map.own_mpb;
        let tile0 = Chip::lut_index(MPB0) as u8;
        // Core 0 is on tile 0: its own-MPB entry and entry 192 reach one page.
        assert_eq!(rig.engines[0].aliases, [(tile0, own_mpb)]);
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
}
