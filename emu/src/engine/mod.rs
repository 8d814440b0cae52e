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
//! - **The directory** (`directory.mem`): per 32-byte line of G, a record
//!   (`lines.rs`): a word with a lock (bit 63) and the last core that wrote
//!   the line to memory, plus one (bits 0-31), then one bit per core of the
//!   chip naming the cores whose caches or write-combine buffer hold it.
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
//! instructions ran and how many cycles the core took to issue them
//! ([`Engine::set_insns`], [`crate::model::p54c`]), and every access adds its
//! latency from where it completed (L1, L2, the WCB or memory, per line
//! touched) and what it reached through the LUT (a tile's MPB, a memory
//! controller, whose queue is shared with the other cores, a register
//! block). Lines a cache or the WCB writes back cost a store each. The
//! clock is kept within a quantum of the other cores' ([`crate::timing`])
//! at sync points: every half quantum of issue cycles ([`Engine::sync_point`])
//! and after accesses once the clock passed the next point. A read of the
//! FPGA bank's global timestamp (low word) latches the clock into this
//! core's copy of the bank, where the guest's next reads find it.
//!
//! # Deliberate differences
//!
//! - Private memory goes through the caches' model and its misses reach
//!   the core's memory controller ([`Engine::private_access`]), but its
//!   lines carry no data in the model: only its core reaches it, so it
//!   cannot go stale. A load of the line L1 used last in its set, or a
//!   store to it, changes nothing in the model but that line's modified
//!   state; the plugin counts those without calling the engine, and marks
//!   the line modified in L1's MRU table ([`Engine::share_l1_mru`]).
//! - Two core-physical aliases of one system line (a tile's MPB and the
//!   own-MPB entry) share the core's one view of it: a store through one is
//!   seen through the other even while both are cached.
//! - Registers (CRBs, FPGA bank) are never cached; their accesses are
//!   counted (test-and-set registers) and watched (LUT writes).

//!
//! # Parts
//!
//! The engine composes parts that own their state, each in its file with
//! its tests, and routes the plugin's calls to them:
//!
//! - `Translator` (`translator`): the LUT in force and its aliases, the
//!   TLB with CR0 and CR3, and the line of G an address reaches;
//! - `Registers` (`registers`): where the core's registers are in G,
//!   test-and-set register counts, stores to read-only registers, LUT
//!   write records, the FPGA bank's latches; G is lent to it;
//! - `Checker` (`checker`): the stale reads found, and whether a load's
//!   part is stale;
//! - `Time` (`time`): the modelled clock, its requests queuing at the
//!   shared resources, polls and waits, sync points, the trace;
//! - `SharedLines` (`shared`): G, the views and the directory as this
//!   core moves bytes in them: publish and refresh under the line lock,
//!   holding a line, its last writer;
//! - `Routes` (`traffic`): the XY routes from the core's tile, along
//!   which the bytes of each access are counted per router;
//! - `QemuPages` (`qemu_pages`): where QEMU shows each LUT page in this
//!   process, and the files it remaps there when an entry changes.
//!
//! The engine itself holds the caches' model and the write-combine
//! buffer's bytes: `datapath` applies an access's events, counts their
//! traffic and feeds the parts; `lut` follows LUT writes (cached lines
//! move, QEMU shows the new target); this file holds the engine and its
//! entry points.

mod checker;
mod datapath;
mod lines;
mod lut;
mod qemu_pages;
mod registers;
mod shared;
#[cfg(test)]
mod tests;
mod time;
mod traffic;
mod translator;

use std::fs::File;
use std::path::{Path, PathBuf};

use chip::{CACHE_LINE, Chip, CoreId, EmuCall, MemoryType, Model, Target, WtReads};

use crate::chipmem::{self, Backing, ChipMemory, Layout};
use crate::model::cache::MruLines;
use crate::model::hierarchy::{Config, CoreMemory, Event, InCaches, Kind, Outcome};
use crate::model::paging::PageType;
use crate::report::CoreReport;
use crate::shm::Mapping;
use crate::{Error, Result};
use checker::Checker;
use lines::{CoreSet, LineRecords};
use qemu_pages::QemuPages;
use registers::Registers;
use shared::SharedLines;
use time::Time;
use traffic::Routes;
use translator::Translator;

/// The bytes of a cache line.
const LINE: u64 = CACHE_LINE as u64;

/// Where core `core`'s trace goes in run directory `dir`
/// ([`chip::trace::Record`]s, one after the other).
pub fn trace_path(dir: &Path, core: usize) -> std::path::PathBuf {
    dir.join(format!("core-{core:02}.trace"))
}

/// One core's memory-system engine.
#[derive(Debug)]
pub struct Engine {
    /// The chip the run models.
    chip: &'static Chip,
    /// The core this engine models.
    core: CoreId,
    /// Cores in the run: the views mapped, one per running core.
    cores: u32,
    /// Where each region of the chip lies in G and the views.
    layout: Layout,
    /// The run's directory, where its shared files and reports are.
    dir: PathBuf,
    /// G, the views and the directory: the run's shared memory, moved
    /// line by line under the lines' locks.
    shared: SharedLines,
    /// The caches' and write-combine buffer's model, and its statistics.
    memory: CoreMemory,
    /// The core's routes on the mesh, for counting bytes per router.
    routes: Routes,
    /// Translation: the page types of the guest's page tables (TLB, CR0,
    /// CR3) and the LUT in force, with its aliases.
    translator: Translator,
    /// The bytes in the write-combine buffer, at their offsets in its
    /// line (which bytes are valid, the model of the buffer says).
    wcb: [u8; CACHE_LINE],
    /// The coherence checker: whether it is on and the stale reads it
    /// found.
    checker: Checker,
    /// The registers: where this core's are, the test-and-set register
    /// operations and stores to read-only registers it made, who wrote
    /// each LUT entry.
    registers: Registers,
    /// Where QEMU shows each LUT page, and the files it shows them from.
    qemu_pages: QemuPages,
    /// Modelled time, with timing on.
    time: Option<Time>,
    /// The report as it stood when the program said it was over
    /// ([`chip::EmuCall::Exit`]): what the core runs after is not counted.
    exited: Option<CoreReport>,
    /// Instructions executed since reset, as the plugin last said.
    insns: u64,
    /// [`Engine::shared_low`] of the chip.
    shared_low: u32,
    /// [`Engine::shared_high`] of the chip.
    shared_high: u32,
}

/// What the model does with a page of private memory (outside every
/// shared region), as [`Engine::private_page`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivatePage {
    /// Not DRAM behind a LUT entry (the firmware's ROM, a device): the
    /// chip's caches never see it, and its accesses are not modelled.
    Unmodelled,
    /// The core's private DRAM, mapped with this type, through the
    /// caches' model ([`Engine::private_access`]).
    Modelled(PageType),
}

impl PrivatePage {
    /// A DCM page without PWT: an access found in L1's MRU table
    /// ([`Engine::share_l1_mru`], which marks a store's line modified) changes
    /// nothing else but the counts, so it may skip the model
    /// ([`Engine::count_l1_hits`]).
    pub fn fast(self) -> bool {
        self == PrivatePage::Modelled(PageType::PAGING_OFF)
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
    /// Issue cycles of the instructions after this one in its block, which
    /// the clock counts already (the block's cycles are added when it
    /// starts): a clock read by this access takes them off.
    pub rest: u32,
}

impl Engine {
    /// The engine of `core` of a run of `cores` cores of `memory`'s chip,
    /// with every file of the run mapped.
    pub fn new(memory: &ChipMemory, core: CoreId, cores: u32, check: bool) -> Result<Self> {
        let model = Model {
            check,
            time: chip::Time::Off,
            ..Model::DEFAULT
        };
        Self::with_model(memory, core, cores, model)
    }

    /// As [`Engine::new`], doing as `model` says: its checker, its
    /// MPBT-WT reads and, with modelled time on, the core's clock kept
    /// within the quantum of the other cores' (requests queuing at the
    /// resources if asked).
    pub fn with_model(memory: &ChipMemory, core: CoreId, cores: u32, model: Model) -> Result<Self> {
        let config = Config {
            mpbt_wt_reads_uncached: model.wt_reads == WtReads::Silicon,
            ..Config::SCC
        };
        let layout = *memory.layout();
        let chip = chip::find_chip(layout.chip().name).expect("the memory is of a known chip");
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
        let words = chipmem::record_words(chip);
        let (_, directory) = map(
            &chipmem::directory_path(&dir),
            chipmem::records_size(&layout),
        )?;
        let directory = LineRecords::new(directory, words);
        let (_, lut_writes) = map(
            &chipmem::lut_writes_path(&dir),
            chipmem::lut_writes_size(chip),
        )?;
        let time = match model.time {
            chip::Time::Off => None,
            chip::Time::On {
                quantum,
                queues,
                seed,
            } => {
                let path = crate::timing::clocks_path(&dir);
                let (_, clocks) = map(&path, crate::timing::FILE_SIZE)?;
                let path = chipmem::stamps_path(&dir);
                let (_, stamps) = map(&path, chipmem::stamps_size(layout.size()))?;
                let path = chipmem::watchers_path(&dir);
                let (_, watchers) = map(&path, chipmem::records_size(&layout))?;
                let watchers = LineRecords::new(watchers, words);
                let files = (clocks, stamps, watchers);
                Some(Time::new(
                    chip,
                    core,
                    cores,
                    quantum.get(),
                    queues,
                    seed,
                    files,
                ))
            }
        };
        let qemu_pages = QemuPages::new(chip, core, layout, dir.clone(), (g_file, own_view));
        let translator = Translator::new(chip, core, layout, chipmem::ram_path(&dir, core));
        let engine = Self {
            chip,
            core,
            cores,
            layout,
            dir,
            shared: SharedLines::new(g, views, directory, core.index()),
            memory: CoreMemory::new(config).map_err(|e| Error::Model(e.to_string()))?,
            translator,
            routes: Routes::new(chip, core),
            wcb: [0; CACHE_LINE],
            checker: Checker::new(model.check),
            registers: Registers::new(chip, core, layout, lut_writes),
            qemu_pages,
            time,
            exited: None,
            insns: 0,
            shared_low: Self::shared_low(chip),
            shared_high: Self::shared_high(chip),
        };
        if engine.time.is_some() {
            engine.registers.sign_fpga_bank(engine.shared.g());
        }
        engine.registers.sign_rau(engine.shared.g());
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

    /// Who left entry `entry` of this core's LUT as it is
    /// ([`Registers::lut_writer`]).
    fn lut_writer(&self, entry: usize) -> String {
        let raw = self.translator.lut().entry(entry as u8).encode();
        self.registers.lut_writer(entry, raw)
    }

    fn stop(&self, reason: impl std::fmt::Display) -> Error {
        Error::Model(format!("core {}: {reason}", self.core.index()))
    }

    /// A load or store the guest made (already done on the view).
    pub fn access(&mut self, a: GuestAccess) -> Result<()> {
        if let Some(time) = &mut self.time {
            time.set_pc(a.insn);
        }
        let entry = Chip::lut_index(a.paddr);
        self.follow_remote_lut_write(entry)?;
        let t = self
            .translator
            .lut()
            .translate(a.paddr)
            .map_err(|e| self.stop(format_args!("{e}{}", self.lut_writer(entry))))?;
        match self.layout.backing(t.target, self.core) {
            Backing::Unbacked => Err(self.stop(format_args!(
                "{:?} at {:#010x} (instruction {:#010x}): LUT entry {entry} targets {:?}, memory the emulator does not share{}",
                a.kind, a.paddr, a.insn, t.target, self.lut_writer(entry)
            ))),
            Backing::Registers { offset } => {
                let at = offset + u64::from(t.offset);
                if let Some(reg) = self.registers.rau_register_at(t.target, at) {
                    // The request registers sit in the core's mesh
                    // interface: only the request itself is timed.
                    if a.kind == Kind::Store && reg == chip::RauRegister::Address {
                        self.remote_atomic(a.value as u32)?;
                    }
                    return Ok(());
                }
                if let Some(call) = self
                    .registers
                    .emu_call_at(t.target, offset + u64::from(t.offset))
                {
                    self.emu_call(call, a);
                    return Ok(());
                }
                // A locked exchange reaches QEMU as a load and a store by
                // one instruction at one address: on silicon, the
                // test-and-set register it stands for is one read, so the
                // store half costs nothing more.
                let exchange_half = self.registers.exchange_half(&a, t.target, at);
                let s = at & !(LINE - 1);
                let words = time::words_reached((at - s) as u32, a.len);
                if let Some(time) = &mut self.time {
                    time.register_access(a.kind, a.len, (s, words), t.target, exchange_half);
                }
                if a.kind == Kind::Store && !exchange_half {
                    // The store is already in the register: the guest
                    // ordered it beforehand (EmuCall::Order) if it must be.
                    self.wake_waiters(s, CoreSet::default(), None);
                }
                if a.kind == Kind::Store
                    && let Some(time) = &mut self.time
                {
                    time.ordered_access_done();
                }
                if a.kind == Kind::Store
                    && let Target::Crb(tile) = t.target
                {
                    let own = entry == usize::from(self.chip.address_map.own_crb);
                    self.registers.crb_store(self.shared.g(), a, tile, t.offset, own);
                }
                let now = self.now();
                if self.registers.access(self.shared.g(), a, t.target, at, now) {
                    self.memory.stats_mut().tsr_ops += 1;
                }
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

    /// The guest sent a request to the remote atomic unit
    /// ([`chip::RemoteAtomics`]) for the word at core-physical `addr`, the
    /// operation and operands in its request registers: done on G at
    /// once, under the word's line lock, the old value left in the result
    /// registers; with timing on, ordered as a store to a polled line is,
    /// and charged one transaction to the unit ([`Time::remote_atomic`]).
    /// A request the unit cannot serve stops the core with the reason.
    fn remote_atomic(&mut self, addr: u32) -> Result<()> {
        let chip = self.chip;
        let Some(rau) = chip.remote_atomics else {
            return Err(self.stop("the chip has no remote atomic unit"));
        };
        let (raw, operand, compare) = self.registers.rau_request(self.shared.g());
        let command = chip::RauCommand::decode(raw)
            .and_then(|c| c.check(addr).map(|()| c))
            .map_err(|e| self.stop(e))?;
        let entry = Chip::lut_index(addr);
        self.follow_remote_lut_write(entry)?;
        let t =
            self.translator.lut().translate(addr).map_err(|e| {
                self.stop(format_args!("remote atomic: {e}{}", self.lut_writer(entry)))
            })?;
        let served = match t.target {
            Target::Mpb(_) => rau.mpbs,
            Target::Dram { .. } => rau.controllers,
            _ => false,
        };
        let backed = matches!(
            self.layout.backing(t.target, self.core),
            Backing::Memory { .. }
        );
        if !served || !backed {
            return Err(self.stop(format_args!(
                "remote atomic {} at {addr:#010x}: it reaches {}, where no remote atomic unit                  serves shared memory (units sit at {})",
                command.op.name(),
                describe(chip, t.target, t.offset),
                match (rau.controllers, rau.mpbs) {
                    (true, true) => "the memory controllers and the MPBs",
                    (true, false) => "the memory controllers",
                    _ => "the MPBs",
                }
            )));
        }
        let s = self.system_line(addr)?;
        let at = addr % LINE as u32;
        let bytes = command.bytes;
        let operands = if command.op == chip::AtomicOp::CompareSwap {
            2 * bytes
        } else {
            bytes
        };
        let waiters = match &mut self.time {
            Some(time) => {
                let waiters = time.order_store(s);
                time.observe(s, time::words_reached(at, bytes), t.target);
                time.remote_atomic(t.target, operands, bytes);
                waiters
            }
            None => CoreSet::default(),
        };
        let clock = &self.time;
        let (old, written) = self.shared.atomic(
            s,
            at as usize,
            bytes as usize,
            |old| command.op.apply(old, operand, compare, bytes),
            |mask| {
                if let Some(time) = clock {
                    time.stamp_bytes(s, mask, None);
                }
            },
        );
        if written {
            self.wake_waiters(s, waiters, None);
        }
        if let Some(time) = &mut self.time {
            time.ordered_access_done();
        }
        self.registers.rau_result(self.shared.g(), old);
        let stats = self.memory.stats_mut();
        stats.rau_ops += 1;
        match t.target {
            Target::Mpb(tile) => stats.mpb_bytes[tile.index()] += u64::from(2 * bytes),
            Target::Dram { controller, .. } => stats.mc_bytes[controller] += u64::from(2 * bytes),
            _ => {}
        }
        self.count_route(t.target, u64::from(operands), false);
        self.count_route(t.target, u64::from(bytes), true);
        self.after_timed_access();
        Ok(())
    }

    /// How the model treats the page of `vaddr` (core-physical `paddr`),
    /// which lies outside every shared region
    /// ([`Engine::shared_low`]..[`Engine::shared_high`]).
    pub fn private_page(&mut self, vaddr: u32, paddr: u32) -> Result<PrivatePage> {
        let dram = self.translator.lut().translate(paddr).is_ok_and(|t| {
            matches!(t.target, Target::Dram { .. })
                && self.layout.backing(t.target, self.core) == Backing::Unbacked
        });
        if !dram {
            return Ok(PrivatePage::Unmodelled);
        }
        Ok(PrivatePage::Modelled(self.translator.page_type(vaddr)?))
    }

    /// A load or store to the core's private DRAM, on a page of type
    /// `page` ([`PrivatePage::Modelled`]), already done in QEMU's RAM. It
    /// goes through L1 and L2 like a shared one, and what misses reaches
    /// the core's memory controller, where it queues with everyone's shared
    /// traffic. Private lines carry no data in the model (no other core
    /// reaches them), but they take room in the caches from shared lines,
    /// which then leave as they would on silicon.
    ///
    /// `executed` gives the instructions and issue cycles so far
    /// ([`Engine::set_insns`]); it is asked only if the access reaches
    /// beyond L2 (an L2 hit's stall does not depend on the clock).
    pub fn private_access(
        &mut self,
        a: GuestAccess,
        page: PageType,
        executed: impl FnOnce() -> (u64, u64),
    ) -> Result<()> {
        let access = match self.memory.access_in_caches(
            a.kind,
            a.paddr,
            a.len,
            page.memory_type,
            page.write_through,
        ) {
            InCaches::Yes(outcome) => {
                if outcome == Outcome::L2
                    && self.time.as_ref().is_some_and(|t| t.l2_needs_clock(a.kind))
                {
                    let (insns, cycles) = executed();
                    self.set_insns(insns, cycles);
                }
                if let Some(time) = &mut self.time {
                    time.stall_within(a.kind, outcome);
                }
                return Ok(());
            }
            InCaches::No(access) => access,
        };
        let (insns, cycles) = executed();
        self.set_insns(insns, cycles);
        if let Some(time) = &mut self.time {
            time.set_pc(a.insn);
        }
        let value = a.value.to_le_bytes();
        for e in access.events.iter() {
            self.apply(*e, a.paddr, &value)?;
        }
        let t = self
            .translator
            .lut()
            .translate(a.paddr)
            .map_err(|e| self.stop(e))?;
        self.count_uncached_parts(&access, t.target);
        if self.time.is_some() {
            self.time_access(&access, t.target);
            self.after_timed_access();
        }
        Ok(())
    }

    /// L1 keeps its MRU table, its most recently used line per set, in
    /// `table` from now on, where the plugin's fast path finds it at a
    /// fixed address (see [`PrivatePage::fast`]).
    ///
    /// # Panics
    ///
    /// If `table` was made for another L1 geometry than the model's
    /// ([`crate::model::hierarchy::Config::SCC`]).
    pub fn share_l1_mru(&mut self, table: &'static MruLines) {
        self.memory.share_l1_mru(table);
    }

    /// `loads` and `stores` of fast private pages hit L1's most recently
    /// used line and skipped the model: they count as L1 hits, which cost
    /// no cycles beyond their instructions'.
    pub fn count_l1_hits(&mut self, loads: u64, stores: u64) {
        self.memory.count_l1_hits(loads, stores);
        if let Some(time) = &mut self.time {
            time.count_l1_hits(loads + stores);
        }
    }

    /// The emulator's call register `call` was accessed by `a` (a store
    /// makes the call; see [`EmuCall`]). Calls take no modelled time and
    /// do nothing with timing off.
    fn emu_call(&mut self, call: EmuCall, a: GuestAccess) {
        if call == EmuCall::Exit && a.kind == Kind::Store && self.time.is_some() {
            self.exited = Some(self.report());
            return;
        }
        let Some(time) = &mut self.time else { return };
        time.set_pc(a.insn);
        if a.kind == Kind::Load {
            return;
        }
        if let Some(now) = time.emu_call(call, a.value, a.rest) {
            self.registers.latch_clock(self.shared.g(), now);
        }
        self.after_timed_access();
    }

    /// Syncs with the other cores once the clock passed the next point.
    fn after_timed_access(&mut self) {
        if let Some(time) = &mut self.time {
            time.after_access();
        }
    }

    /// Whether `paddr` lies in the chip's shared regions, as the plugin's
    /// filter sees them: lines outside are private.
    fn shared(&self, paddr: u32) -> bool {
        (self.shared_low..self.shared_high).contains(&paddr)
    }

    /// The core has executed `insns` instructions since reset, which took
    /// it `cycles` core cycles to issue ([`crate::model::p54c`]; neither
    /// fewer than said before): the count is reported, and with timing on,
    /// the cycles are the clock's base.
    pub fn set_insns(&mut self, insns: u64, cycles: u64) {
        self.insns = self.insns.max(insns);
        if let Some(time) = &mut self.time {
            time.set_issued(cycles);
        }
    }

    /// Holds modelled time at 0 until [`Engine::start_time`]: what the
    /// core executes before (the firmware) takes none. Nothing with timing
    /// off.
    pub fn hold_time(&mut self) {
        if let Some(time) = &mut self.time {
            time.hold();
        }
    }

    /// Modelled time starts, if held ([`Engine::hold_time`]): the core
    /// entered the booted image.
    pub fn start_time(&mut self) {
        if let Some(time) = &mut self.time {
            time.start();
        }
    }

    /// `cycles` of the issue cycles so far were the emulator's own
    /// instructions' (the trap handler of an instruction QEMU does not
    /// know): they take no modelled time. The report still counts the
    /// instructions as executed.
    pub fn untimed(&mut self, cycles: u64) {
        if let Some(time) = &mut self.time {
            time.untimed(cycles);
        }
    }

    /// Modelled core cycles since reset, with timing on.
    pub fn now(&self) -> Option<u64> {
        self.time.as_ref().map(Time::now)
    }

    /// A periodic sync point in the block at `pc`: publishes the clock
    /// (and `pc`) and sleeps while it is a quantum ahead of the slowest
    /// running core.
    pub fn sync_point(&mut self, pc: u32) {
        if let Some(time) = &mut self.time {
            time.sync_point(pc);
            let tiles = self.chip.tiles() as usize;
            let controllers = self.chip.memory_controllers.len();
            time.sample_counters(self.memory.stats(), tiles, controllers);
        }
    }

    /// The core halts: once its time has started, it holds nobody back
    /// until it resumes.
    pub fn halted(&mut self) {
        if let Some(time) = &mut self.time {
            time.halted();
        }
    }

    /// The core resumes from a halt: time passed for it too, so its clock
    /// moves up to a quantum behind the slowest running core (no further:
    /// what woke it may have happened earlier than the others are now; a
    /// read of data written later moves it on, see [`crate::timing`]).
    pub fn resumed(&mut self) {
        if let Some(time) = &mut self.time {
            time.resumed();
        }
    }

    /// The core's QEMU exits: it holds nobody back any more.
    pub fn finished(&mut self) {
        if let Some(time) = &mut self.time {
            time.finished();
        }
    }

    /// A store to a LUT register of this core, seen in the callback of the
    /// store (so that the next access already goes to the new target).
    pub fn after_store(&mut self, paddr: u32) -> Result<()> {
        let t = match self.translator.lut().translate(paddr) {
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
        if own {
            let g = self.shared.g();
            let raw = g.load_u32(self.layout.own_crb(self.core) + u64::from(t.offset));
            g.store_u32(self.registers.lut_register(usize::from(entry)), raw);
        }
        self.follow_remote_lut_write(usize::from(entry))
    }

    /// CL1INVMB: MPBT lines of L1 dropped.
    pub fn cl1invmb(&mut self) -> Result<()> {
        self.trace_instant(chip::trace::Op::Cl1invmb);
        self.cache_op(|t| t.cl1invmb);
        let mut events = Vec::new();
        self.memory.cl1invmb(|e| events.push(e));
        self.apply_all(&events)
    }

    /// WBINVD: L1 written back and emptied. A serialising instruction: the
    /// write buffers drain first.
    pub fn wbinvd(&mut self) -> Result<()> {
        self.trace_instant(chip::trace::Op::Wbinvd);
        self.drain_write_buffers();
        self.cache_op(|t| t.wbinvd);
        let mut events = Vec::new();
        self.memory.wbinvd(|e| events.push(e));
        self.apply_all(&events)
    }

    /// INVD: L1 emptied. A serialising instruction: the write buffers
    /// drain first.
    pub fn invd(&mut self) -> Result<()> {
        self.drain_write_buffers();
        self.cache_op(|t| t.invd);
        let mut events = Vec::new();
        self.memory.invd(|e| events.push(e));
        self.apply_all(&events)
    }

    /// The core waits for its buffered writes (before a serialising
    /// instruction; [`chip::Timing::write_buffers`]).
    fn drain_write_buffers(&mut self) {
        if let Some(time) = &mut self.time {
            time.drain();
        }
    }

    /// WBINVD, INVD or CL1INVMB: a fixed cost from the timing table
    /// (`cost` of it), write-backs included, the instruction's own cycle
    /// (already counted: the P54C model issues each in one, not paired)
    /// taken off.
    fn cache_op(&mut self, cost: impl Fn(&chip::Timing) -> u32) {
        if let Some(time) = &mut self.time {
            time.cache_op(cost);
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
        self.translator.write_cr(cr, value);
    }

    /// The guest executes `invlpg`: the engine forgets every page type
    /// (it does not decode the operand; a full flush is always safe).
    pub fn invlpg(&mut self) {
        self.translator.invlpg();
    }

    /// Everything this core's model counted, for the report file.
    pub fn report(&self) -> CoreReport {
        if let Some(report) = &self.exited {
            return report.clone();
        }
        let mut report = CoreReport::new(self.core.index() as u32, self.checker.on());
        report.stats = *self.memory.stats();
        report.stats.insns = self.insns;
        if let Some(time) = &self.time {
            time.report(&mut report.stats);
        }
        self.registers.report(&mut report);
        self.checker.report(&mut report);
        report
    }

    /// The run's directory, where the report goes.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records `op` as a moment of this core's trace, if it is traced.
    fn trace_instant(&mut self, op: chip::trace::Op) {
        if let Some(time) = &mut self.time {
            time.trace_instant(op);
        }
    }

    /// Writes this core's trace, if the guest traced anything, to
    /// [`trace_path`] in the run directory.
    pub fn write_trace(&self) -> std::io::Result<()> {
        let Some(trace) = self.time.as_ref().and_then(Time::records) else {
            return Ok(());
        };
        let bytes: Vec<u8> = trace.iter().flat_map(|r| r.to_bytes()).collect();
        std::fs::write(trace_path(&self.dir, self.core.index()), bytes)
    }

    /// Cores in the run.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Memory type of accesses while paging is off (for documentation and tests).
    pub const PAGING_OFF: MemoryType = MemoryType::Dcm;
}

/// Offset of the stamp of the line at offset `s` of G.
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
