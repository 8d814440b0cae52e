// SPDX-License-Identifier: MIT OR Apache-2.0
//! The SCC as one core sees it: its identity, the MPBs, the test-and-set
//! registers, LUTs and the cache-control idioms SCC code relies on.

use core::arch::asm;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use chip::{
    AddressMap, CACHE_LINE, Chip, CoreId, EMU_SIGNATURE, EmuCall, LUT_PAGE_SIZE, LutEntry,
    MemoryType, Target,
};
use spin::Mutex;
use volatile::VolatilePtr;

use crate::arch::x86::instructions::{cl1invmb, rdtsc, wbinvd};
use crate::arch::x86::paging::{AddressSpace, MapError, PAGE_SIZE};
use crate::arch::x86::timer;
use crate::mm::FrameAllocator;
use chip::{DramPages, MapError as SharedMapError};

use super::regions::wcb_flush_area_bytes;

/// The SCC core's L2: 256 KiB (thesis 1.2).
const L2_BYTES: usize = 256 * 1024;
/// What [`Platform::write_back_l2`] loads: twice L2.
const L2_SWEEP_BYTES: usize = 2 * L2_BYTES;
/// Private memory [`Platform::write_back_l2`] loads to empty L2 (never written:
/// `static mut` only so that it lies in `.bss`, not in the image).
static mut L2_SWEEP: [u8; L2_SWEEP_BYTES] = [0; L2_SWEEP_BYTES];
use super::slots::Slots;

/// First pause of a waiting core, in microseconds.
const FIRST_PAUSE_US: u32 = 20;
/// Longest pause: bounds how late a waiting core notices the change.
const LONGEST_PAUSE_US: u32 = 2000;

/// A range of shared memory (MPB or DRAM), accessed only with volatile
/// loads and stores through raw pointers: never through Rust references,
/// because other cores change it behind the compiler's back.
#[derive(Debug, Clone, Copy)]
pub struct SharedBytes {
    base: *mut u8,
    len: u32,
}

impl SharedBytes {
    fn word(self, offset: u32) -> *mut u32 {
        assert!(
            offset.is_multiple_of(4) && offset.checked_add(4).is_some_and(|end| end <= self.len),
            "shared word at {offset:#x} outside {} bytes or unaligned",
            self.len
        );
        self.base.wrapping_add(offset as usize).cast()
    }

    /// The first byte, for code that times single accesses (only through
    /// raw pointers, volatile).
    pub fn as_ptr(self) -> *mut u8 {
        self.base
    }

    /// Loads the 32-bit word at `offset` (aligned, inside the range).
    #[inline]
    pub fn read_u32(self, offset: u32) -> u32 {
        // SAFETY: `word` checked bounds and alignment; the range is mapped for
        // the whole run and only accessed volatile.
        unsafe { self.word(offset).read_volatile() }
    }

    /// Stores the 32-bit word at `offset` (aligned, inside the range).
    #[inline]
    pub fn write_u32(self, offset: u32, value: u32) {
        // SAFETY: as for `read_u32`.
        unsafe { self.word(offset).write_volatile(value) }
    }

    /// Checks that `len` bytes from `offset` lie inside the range.
    fn check_bytes(self, offset: u32, len: usize) {
        assert!(
            (offset as usize)
                .checked_add(len)
                .is_some_and(|end| end <= self.len as usize),
            "shared bytes {offset:#x}+{len} outside {} bytes",
            self.len
        );
    }

    /// The bytes before the first word boundary at or after `offset`, at
    /// most `len`: copies go byte by byte up to there, then word by word.
    /// (Every range starts on a word boundary: an MPB, an LSM page, a
    /// DRAM page.)
    fn head(offset: u32, len: usize) -> usize {
        ((offset.wrapping_neg() % 4) as usize).min(len)
    }

    /// Copies `buf.len()` bytes from `offset` into `buf`: single bytes up
    /// to a word boundary, then whole words, then the remaining bytes. One
    /// bounds check for the whole copy keeps the word loop to a load and a
    /// store, since a core's copy loop is what the modelled time charges.
    #[inline]
    pub fn read_bytes(self, offset: u32, buf: &mut [u8]) {
        self.check_bytes(offset, buf.len());
        let (head, rest) = buf.split_at_mut(Self::head(offset, buf.len()));
        let mut words = rest.chunks_exact_mut(4);
        let mut at = self.base.wrapping_add(offset as usize);
        for b in head {
            // SAFETY: inside the range (checked above); volatile as all
            // shared accesses.
            *b = unsafe { at.read_volatile() };
            at = at.wrapping_add(1);
        }
        for w in &mut words {
            // SAFETY: inside the range, and aligned: the head brought `at`
            // to a word boundary.
            let word = unsafe { at.cast::<u32>().read_volatile() };
            w.copy_from_slice(&word.to_le_bytes());
            at = at.wrapping_add(4);
        }
        for b in words.into_remainder() {
            // SAFETY: inside the range (checked above).
            *b = unsafe { at.read_volatile() };
            at = at.wrapping_add(1);
        }
    }

    /// Copies `data` to `offset`, in the same pieces as `read_bytes`.
    #[inline]
    pub fn write_bytes(self, offset: u32, data: &[u8]) {
        self.check_bytes(offset, data.len());
        let (head, rest) = data.split_at(Self::head(offset, data.len()));
        let words = rest.chunks_exact(4);
        let tail = words.remainder();
        let mut at = self.base.wrapping_add(offset as usize);
        for &b in head {
            // SAFETY: inside the range (checked above); volatile as all
            // shared accesses.
            unsafe { at.write_volatile(b) };
            at = at.wrapping_add(1);
        }
        for w in words {
            let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            // SAFETY: inside the range, and aligned: the head brought `at`
            // to a word boundary.
            unsafe { at.cast::<u32>().write_volatile(word) };
            at = at.wrapping_add(4);
        }
        for &b in tail {
            // SAFETY: inside the range (checked above).
            unsafe { at.write_volatile(b) };
            at = at.wrapping_add(1);
        }
    }
}

/// What mapping at run time needs.
#[derive(Debug)]
struct Mappings {
    /// The active address space.
    space: AddressSpace,
    /// The frames left after boot, for page tables.
    frames: FrameAllocator,
    /// Next free virtual address of the alias window.
    next_alias: u32,
    /// One past the alias window's last address.
    alias_end: u32,
    /// Shareable DRAM mapped through the free LUT entries.
    slots: Slots,
}

/// The bytes of one LUT entry's mapping that the page tables map all of,
/// readable without [`Platform`]'s lock: `start..end`, offsets from the
/// mapping's first byte, empty (`end` 0) until an access maps a page.
/// Only the owning core writes it, under the lock, so an access whose
/// range lies inside needs neither the lock nor a look at the pages.
#[derive(Debug)]
struct Ready {
    start: AtomicU32,
    end: AtomicU32,
}

impl Ready {
    /// Nothing mapped yet.
    const fn empty() -> Self {
        Self {
            start: AtomicU32::new(0),
            end: AtomicU32::new(0),
        }
    }

    /// Whether `len` bytes from `offset` lie inside.
    fn covers(&self, offset: u32, len: usize) -> bool {
        let (start, end) = (
            self.start.load(Ordering::Relaxed),
            self.end.load(Ordering::Relaxed),
        );
        offset >= start && u64::from(offset) + len as u64 <= u64::from(end)
    }

    /// Takes in `start..end`, just mapped: the union if the two touch,
    /// else the larger of the two.
    fn extend(&self, start: u32, end: u32) {
        let (s, e) = (
            self.start.load(Ordering::Relaxed),
            self.end.load(Ordering::Relaxed),
        );
        let touches = e != 0 && start <= e && s <= end;
        let (start, end) = if touches {
            (start.min(s), end.max(e))
        } else if e == 0 || end - start > e - s {
            (start, end)
        } else {
            (s, e)
        };
        self.start.store(start, Ordering::Relaxed);
        self.end.store(end, Ordering::Relaxed);
    }

    /// Empty again (the mapping is gone).
    fn clear(&self) {
        self.end.store(0, Ordering::Relaxed);
        self.start.store(0, Ordering::Relaxed);
    }
}

/// This core's view of the chip it runs on, whichever chip the run
/// emulates (the SCC, `mesh8x8`): its identity, the MPBs, shared DRAM,
/// test-and-set registers, LUT entries, cache idioms and waits. The
/// kernel hands each program one. rma, which stands on the kernel,
/// implements its hardware interface for it.
#[derive(Debug)]
pub struct Platform {
    chip: &'static Chip,
    core: CoreId,
    cores: u32,
    mappings: Mutex<Mappings>,
    /// Per LUT entry, the bytes of the mapping it starts that the page
    /// tables map all of ([`Platform::shared_dram`]'s path without the lock).
    ready: [Ready; 256],
    /// Whether the emulator models time and answers its calls
    /// ([`EmuCall`]): then waits, test-and-set registers and the clock
    /// go through them.
    modelled: bool,
    /// Whether calls are traced (rma's `hal::Trace` asks [`Self::tracing`]): asked for on
    /// the command line, and only under modelled time.
    tracing: bool,
    /// Whether the run asked for statistics (`stats=on` on the command
    /// line, `cargo xtask run --stats`).
    stats: bool,
    /// Whether the chip's remote atomic unit answers its request registers
    /// ([`chip::RemoteAtomics`]): the booted chip has one and the registers
    /// read [`chip::RAU_PRESENT`]. Without the emulator's model (a plain
    /// run), nothing answers them.
    remote_atomics: bool,
    /// Whether a poll of a wait is open in the emulator (between its
    /// `Poll` and its `Wait` or `Done` call): [`Platform::read_ordered`] reads
    /// inside it as they are. A wait inside a wait's `ready` closes it.
    polling: AtomicBool,
}

impl Platform {
    /// The platform of `core`, in a run of `cores` cores (0..cores), with
    /// the active address space and the frames left for mapping more.
    pub(crate) fn new(
        chip: &'static Chip,
        core: CoreId,
        cores: u32,
        space: AddressSpace,
        frames: FrameAllocator,
        (trace, stats): (bool, bool),
    ) -> Self {
        let alias = super::alias_entry(chip, crate::arch::x86::timer::LOCAL_APIC_BASE)
            .expect("platform::check_chip passed at boot");
        let mappings = Mappings {
            space,
            frames,
            next_alias: AddressMap::entry_base(alias),
            alias_end: AddressMap::entry_base(alias).saturating_add(LUT_PAGE_SIZE),
            slots: Slots::new(chip.address_map.shareable),
        };
        let modelled = !cfg!(feature = "silicon") && {
            let at = (chip.fpga_base() + chip.fpga.emu_call(EmuCall::Signature)) as *const u32;
            // SAFETY: the FPGA bank is identity-mapped uncached for the
            // whole run (platform init); a read has no side effect.
            unsafe { at.read_volatile() == EMU_SIGNATURE }
        };
        let remote_atomics = chip.remote_atomics.is_some_and(|rau| {
            let at = chip.fpga_base() + rau.registers + chip::RauRegister::Present as u32;
            // SAFETY: as for the signature: the request block lies in the
            // FPGA bank (`Chip::validate`); a read has no side effect.
            unsafe { (at as *const u32).read_volatile() == chip::RAU_PRESENT }
        });
        let platform = Self {
            chip,
            core,
            cores,
            mappings: Mutex::new(mappings),
            ready: [const { Ready::empty() }; 256],
            remote_atomics,
            modelled,
            tracing: trace && modelled,
            stats,
            polling: AtomicBool::new(false),
        };
        if platform.tracing {
            let first =
                chip::trace::Event::bare(chip::trace::Op::Tracing, chip::trace::Phase::Instant);
            platform.trace_event(first.word(), 0);
        }
        platform
    }

    /// Whether rma's calls are traced.
    #[inline]
    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// Whether the run asked for statistics: layers that keep their own
    /// print them at the end as `STATS` lines ([`chip::stats`]).
    pub fn stats_requested(&self) -> bool {
        self.stats
    }

    /// Records a trace event with the emulator: its argument, then its
    /// word (`chip::trace`). Tracing only: callers ask [`Self::tracing`]
    /// first.
    #[inline]
    pub fn trace_event(&self, word: u32, arg: u32) {
        self.emu_call(EmuCall::TraceArg, arg);
        self.emu_call(EmuCall::Trace, word);
    }

    /// Whether the booted chip has a remote atomic unit that answers
    /// ([`Platform::remote_atomic`]): never on the SCC, and not in a plain
    /// run, where no model serves the request registers.
    #[inline]
    pub fn has_remote_atomics(&self) -> bool {
        self.remote_atomics
    }

    /// Has the chip's remote atomic unit do `command` on the word at
    /// core-physical `addr` with `operand` (and `compare`, for a
    /// compare-swap), and returns the word's old value. The unit does it
    /// where the word lives, in one transaction: no other core's operation
    /// on the word comes between its read and its write. The word must lie
    /// in memory a unit serves (`chip::RemoteAtomics`: the shared DRAM
    /// behind the controllers, the MPBs), aligned to its width; a request
    /// the unit cannot serve stops the core with the reason.
    ///
    /// The request is ordered after the other cores' earlier accesses, as
    /// a test-and-set register's is ([`Platform::order`]). It orders
    /// nothing of this core's own: a caller whose earlier writes to the
    /// word's line sit in the write-combine buffer flushes them first.
    ///
    /// # Panics
    /// If the unit does not answer ([`Platform::has_remote_atomics`]).
    pub fn remote_atomic(
        &self,
        addr: u32,
        command: chip::RauCommand,
        operand: u64,
        compare: u64,
    ) -> u64 {
        use chip::RauRegister::*;
        let rau = self
            .chip
            .remote_atomics
            .filter(|_| self.remote_atomics)
            .unwrap_or_else(|| panic!("{}: no remote atomic unit answers", self.chip.name));
        let block = self.chip.fpga_base() + rau.registers;
        let register = |reg: chip::RauRegister| (block + reg as u32) as *mut u32;
        // SAFETY: the request block lies in the FPGA bank, identity-mapped
        // uncached for the whole run, and is this core's own
        // (`chip::RemoteAtomics::registers`); its registers are aligned
        // words, and stores to them have no effect beyond the request.
        unsafe {
            register(OperandLo).write_volatile(operand as u32);
            register(OperandHi).write_volatile((operand >> 32) as u32);
            if command.op == chip::AtomicOp::CompareSwap {
                register(CompareLo).write_volatile(compare as u32);
                register(CompareHi).write_volatile((compare >> 32) as u32);
            }
            register(Command).write_volatile(command.encode());
        }
        self.order();
        // SAFETY: as above; the store of the address sends the request.
        let (lo, hi) = unsafe {
            register(Address).write_volatile(addr);
            (
                register(ResultLo).read_volatile(),
                register(ResultHi).read_volatile(),
            )
        };
        u64::from(lo) | u64::from(hi) << 32
    }

    /// Makes the emulator call `call` with `value` (modelled time only).
    fn emu_call(&self, call: EmuCall, value: u32) {
        debug_assert!(self.modelled);
        let at = (self.chip.fpga_base() + self.chip.fpga.emu_call(call)) as *mut u32;
        // SAFETY: the FPGA bank is identity-mapped uncached for the whole
        // run; under the emulator these offsets are its call registers.
        unsafe { at.write_volatile(value) };
    }

    /// Under modelled time, tells the emulator that this core's program is
    /// over ([`EmuCall::Exit`]), so that what the core executes while QEMU
    /// stops it is not counted; nothing on silicon.
    pub fn finish(&self) {
        if self.modelled {
            self.emu_call(EmuCall::Exit, 0);
        }
    }

    /// Under modelled time, orders what this core does next after every
    /// other core's earlier accesses ([`EmuCall::Order`]); nothing on
    /// silicon, whose accesses meet in time by themselves.
    pub fn order(&self) {
        if self.modelled {
            self.emu_call(EmuCall::Order, 0);
        }
    }

    /// Lets `cycles` core cycles pass: under modelled time exactly that
    /// many, without executing anything; otherwise by waiting for the
    /// clock ([`Platform::wait_for`]).
    #[inline]
    pub fn pause(&self, cycles: u64) {
        if self.modelled {
            let mut left = cycles;
            while left > 0 {
                let step = left.min(u64::from(u32::MAX));
                self.emu_call(EmuCall::Pause, step as u32);
                left -= step;
            }
        } else {
            let start = self.now();
            self.wait_for(|| (self.now().saturating_sub(start) >= cycles).then_some(()));
        }
    }

    /// The chip definition.
    #[inline]
    pub fn chip(&self) -> &'static Chip {
        self.chip
    }

    /// This core.
    #[inline]
    pub fn core(&self) -> CoreId {
        self.core
    }

    /// How many cores take part in this run: cores `0..cores()`.
    #[inline]
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// The core numbered `n` of this run.
    pub fn participant(&self, n: u32) -> CoreId {
        assert!(
            n < self.cores,
            "core {n} is not part of a run of {} cores",
            self.cores
        );
        self.chip
            .core(n)
            .expect("run size checked against the chip at boot")
    }

    /// `core`'s half of its tile's MPB, through that tile's LUT entry.
    #[inline]
    pub fn mpb(&self, core: CoreId) -> SharedBytes {
        SharedBytes {
            base: self.chip.core_mpb_base(core) as *mut u8,
            len: self.chip.mpb_bytes_per_core(),
        }
    }

    /// This core's half of its own tile's MPB, through the own-MPB entry.
    #[inline]
    pub fn own_mpb(&self) -> SharedBytes {
        let z = u32::from(self.chip.z_of(self.core));
        SharedBytes {
            base: (self.chip.own_mpb_base() + z * self.chip.mpb_bytes_per_core()) as *mut u8,
            len: self.chip.mpb_bytes_per_core(),
        }
    }

    /// The legacy shared memory page at controller `mc` (uncached), without
    /// the write-combine flush lines at the end of page 0.
    #[inline]
    pub fn lsm(&self, mc: usize) -> SharedBytes {
        let reserved = if mc == 0 {
            wcb_flush_area_bytes(self.chip)
        } else {
            0
        };
        SharedBytes {
            base: self.chip.lsm_base(mc) as *mut u8,
            len: LUT_PAGE_SIZE - reserved,
        }
    }

    /// Polls `ready` until it returns a value, pausing between polls.
    ///
    /// The pauses halt the core on a one-shot timer, starting short and
    /// doubling up to `LONGEST_PAUSE_US`: a waiting core gives its host
    /// CPU to the cores it waits for (see [`timer`]). What `ready` reads
    /// decides the coherence actions it needs (e.g. CL1INVMB before MPB reads).
    pub fn wait_for<T>(&self, mut ready: impl FnMut() -> Option<T>) -> T {
        loop {
            if let Some(value) = self.wait_at_most(u32::MAX, &mut ready) {
                return value;
            }
        }
    }

    /// As [`Platform::wait_for`], but gives up after `polls` polls, returning
    /// `None`: for waits that may never end, e.g. on a line a program
    /// deliberately reads without invalidating it.
    pub fn wait_at_most<T>(&self, polls: u32, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
        if self.modelled {
            // Each poll is ordered among the cores as a whole, and a poll
            // that finds nothing waits in modelled time for what it read
            // to change (EmuCall::Poll, EmuCall::Wait, EmuCall::Done).
            let mut found = None;
            for poll in 0..polls {
                self.poll_call(EmuCall::Poll);
                found = ready();
                if found.is_some() || poll + 1 == polls {
                    break;
                }
                self.poll_call(EmuCall::Wait);
            }
            self.poll_call(EmuCall::Done);
            return found;
        }
        let mut pause = FIRST_PAUSE_US;
        for poll in 0..polls {
            if let Some(value) = ready() {
                return Some(value);
            }
            if poll + 1 < polls {
                timer::halt_for(pause);
                pause = (pause * 2).min(LONGEST_PAUSE_US);
            }
        }
        None
    }

    /// Runs `read`, whose loads race with other cores' stores (a flag read
    /// once, a test for messages), as one poll that finds what it reads:
    /// under modelled time the loads then take their place among the other
    /// cores' accesses by modelled time, as on silicon, instead of seeing
    /// whatever the host had run. Inside a wait's `ready` they are part of
    /// its poll already, unless a wait in `ready` before them ended it. On
    /// silicon it only calls `read`.
    pub fn read_ordered<T>(&self, read: impl FnOnce() -> T) -> T {
        if !self.modelled || self.polling.load(Ordering::Relaxed) {
            return read();
        }
        self.poll_call(EmuCall::Poll);
        let value = read();
        self.poll_call(EmuCall::Done);
        value
    }

    /// Makes the emulator call `call` of a poll (`Poll`, `Wait` or `Done`),
    /// keeping [`Platform::polling`] up to date. It stores the stack pointer:
    /// at a wait the emulator publishes it, and the run tool unwinds the
    /// stack from there to name the calls a deadlocked core waits in. One
    /// store of a register, as a store of 0 would be: the same instructions.
    fn poll_call(&self, call: EmuCall) {
        self.polling.store(call == EmuCall::Poll, Ordering::Relaxed);
        debug_assert!(self.modelled);
        let (bank, offset) = (self.chip.fpga_base(), self.chip.fpga.emu_call(call));
        // SAFETY: as in `emu_call`: the FPGA bank is identity-mapped
        // uncached for the whole run, and under the emulator this offset in
        // it is a call register; the instruction stores ESP there and
        // touches nothing else.
        unsafe {
            asm!(
                "mov dword ptr [{bank} + {offset}], esp",
                bank = in(reg) bank,
                offset = in(reg) offset,
                options(nostack, preserves_flags)
            )
        };
    }

    /// Takes `owner`'s test-and-set register, waiting until it is free.
    ///
    /// On silicon reading a free TSR takes it. Under QEMU a read cannot have
    /// a side effect, so the emulator's protocol (`chip::TsrProtocol`) takes
    /// it with an atomic exchange instead.
    #[inline]
    pub fn tsr_acquire(&self, owner: CoreId) {
        self.wait_for(|| self.tsr_try_acquire(owner).then_some(()));
    }

    /// Tries once to take `owner`'s test-and-set register; true if taken.
    pub fn tsr_try_acquire(&self, owner: CoreId) -> bool {
        let tsr = self.chip.tsr_addr(owner) as *mut u8;
        let protocol = self.chip.tsr_protocol;
        self.order();
        // SAFETY: the TSR is a byte register in an uncached CRB mapping;
        // xchg with memory is atomic across instances.
        let old = unsafe { exchange_byte(tsr, protocol.taken) };
        old == protocol.free
    }

    /// Releases `owner`'s test-and-set register (the caller must hold it).
    #[inline]
    pub fn tsr_release(&self, owner: CoreId) {
        let tsr = self.chip.tsr_addr(owner) as *mut u8;
        self.order();
        // SAFETY: as in `tsr_acquire`. Silicon ignores the value written;
        // the emulator needs `free`.
        unsafe { tsr.write_volatile(self.chip.tsr_protocol.free) };
    }

    /// Entry `index` of `core`'s LUT, read through its tile's CRB.
    pub fn lut_entry(&self, core: CoreId, index: usize) -> LutEntry {
        LutEntry::decode(read_register(self.chip.lut_entry_addr(core, index)))
    }

    /// Points entry `index` of this core's own LUT at `entry`, through its
    /// tile's CRB. The next access through the entry reaches the new target.
    ///
    /// # Panics
    /// If `index` is not one of the entries the chip's map leaves free
    /// (`shareable`): the others reach the kernel's own memory and the
    /// chip's regions. If `entry` reaches a core's private DRAM (shared
    /// accesses would reach a kernel's own data) or registers (which have
    /// their own entries).
    pub fn set_lut_entry(&self, index: usize, entry: LutEntry) {
        let free = self.chip.address_map.shareable;
        assert!(
            u8::try_from(index).is_ok_and(|i| free.contains(i)),
            "LUT entry {index} is not free to remap (free: {}..={})",
            free.first,
            free.last
        );
        // Each controller numbers its cores' private pages first, then LSM.
        let target = self.chip.target_of(entry);
        let shareable = match target {
            Target::Mpb(_) | Target::Nothing => true,
            Target::Dram { controller, page } => {
                u32::from(page) >= self.chip.lsm_page_number(controller)
            }
            Target::Crb(_) | Target::Fpga => false,
        };
        assert!(
            shareable,
            "LUT entry {index} may not reach {target:?}: only MPBs and shared DRAM"
        );
        write_register(self.chip.lut_entry_addr(self.core, index), entry.encode());
    }

    /// Maps `len` bytes at core-physical `phys` inside entries the chip's
    /// map leaves free (`shareable`), at the same virtual address with
    /// memory type `ty`: memory a program routes there by writing its LUT
    /// ([`Platform::set_lut_entry`]).
    ///
    /// # Panics
    /// If the range is empty or leaves the free entries.
    pub fn map_free_entry(
        &self,
        phys: u32,
        len: u32,
        ty: MemoryType,
    ) -> Result<SharedBytes, MapError> {
        let free = self.chip.address_map.shareable;
        let last = phys.checked_add(len.wrapping_sub(1));
        let inside = |addr: u32| free.contains(Chip::lut_index(addr) as u8);
        assert!(
            len > 0 && last.is_some_and(|last| inside(phys) && inside(last)),
            "{phys:#010x}+{len:#x} is not inside the free LUT entries"
        );
        let mut m = self.mappings.lock();
        let Mappings { space, frames, .. } = &mut *m;
        space.map(frames, phys, phys, len, ty)?;
        Ok(SharedBytes {
            base: phys as *mut u8,
            len,
        })
    }

    /// Maps `len` bytes (whole pages) of an MPB or LSM page at core-physical
    /// `phys` a second time, at fresh virtual addresses, with memory type
    /// `ty`: an alias, e.g. an uncached view of a line that the MPB's own
    /// mapping caches. Aliases stay for the rest of the run.
    ///
    /// # Panics
    /// If the range lies outside one MPB or LSM page (an alias of private
    /// memory would let shared-memory accesses reach the kernel's own
    /// data), or the alias window is full.
    pub fn map_alias(&self, phys: u32, len: u32, ty: MemoryType) -> Result<SharedBytes, MapError> {
        let end = phys.checked_add(len);
        let shared = self
            .chip
            .shared_regions()
            .filter(|region| region.kind.is_cacheable())
            .flat_map(|region| region.parts(self.chip))
            .any(|part| part.base <= phys && end.is_some_and(|end| end <= part.base + part.bytes));
        assert!(
            shared,
            "{phys:#010x}+{len:#x} is not inside one MPB or LSM page"
        );
        let mut m = self.mappings.lock();
        let virt = m.next_alias;
        let window_end = m.alias_end;
        let next = virt
            .checked_add(len.next_multiple_of(PAGE_SIZE))
            .filter(|&next| next <= window_end);
        let next = next.expect("the alias window is full");
        let Mappings { space, frames, .. } = &mut *m;
        space.map(frames, virt, phys, len, ty)?;
        m.next_alias = next;
        Ok(SharedBytes {
            base: virt as *mut u8,
            len,
        })
    }

    /// Points the free LUT entries `slot..slot + pages.count` at `pages`
    /// and records a mapping of them with type `ty`, whose 4 KiB pages
    /// [`Platform::shared_dram`] maps as accesses reach them. The page tables
    /// for all of it are taken now, so no access runs out of frames.
    ///
    /// Entries a program pointed somewhere by hand ([`Platform::set_lut_entry`])
    /// count as in use.
    #[inline]
    pub fn map_shared_dram(
        &self,
        slot: u8,
        pages: DramPages,
        ty: MemoryType,
    ) -> Result<(), SharedMapError> {
        let chip = self.chip;
        let mut m = self.mappings.lock();
        let entries = m
            .slots
            .indices(slot, pages.count)
            .ok_or(SharedMapError::NotFree {
                slot,
                count: pages.count,
            })?;
        // Shareable DRAM: the controller's LSM page and the POPSHM pages after it.
        let shareable = pages.controller < chip.memory_controllers.len() && {
            let lsm = chip.lsm_page_number(pages.controller);
            let first = u32::from(pages.first);
            pages.count > 0
                && first >= lsm
                && first + pages.count <= lsm + chip.shared_dram_pages(pages.controller)
        };
        if !shareable {
            return Err(SharedMapError::NotShareable(pages));
        }
        let by_hand = |k: u32| {
            let entry = slot + k as u8;
            chip.target_of(self.lut_entry(self.core, entry.into())) != Target::Nothing
        };
        let taken = m.slots.first_taken(entries).or_else(|| {
            (0..pages.count)
                .find(|&k| by_hand(k))
                .map(|k| slot + k as u8)
        });
        if let Some(slot) = taken {
            return Err(SharedMapError::InUse { slot });
        }
        let Mappings { space, frames, .. } = &mut *m;
        space
            .reserve_tables(
                frames,
                AddressMap::entry_base(slot),
                pages.count * LUT_PAGE_SIZE,
            )
            .map_err(|e| match e {
                MapError::OutOfFrames => SharedMapError::NoMemory,
                other => unreachable!("a range of whole LUT pages: {other}"),
            })?;
        let port = chip.memory_controllers[pages.controller].port;
        for k in 0..pages.count {
            let entry = LutEntry::new(port, pages.first + k as u16);
            self.set_lut_entry(usize::from(slot) + k as usize, entry);
        }
        m.slots.insert(slot, pages, ty);
        Ok(())
    }

    /// The mapping of shareable DRAM that starts at `slot`, with the pages
    /// holding `len` bytes from `offset` mapped: [`SharedBytes`] over the
    /// mapping's first bytes, offsets from its first byte, at least up to
    /// `offset + len`.
    ///
    /// Once the pages are mapped, a range inside what earlier calls mapped
    /// takes neither the lock nor a look at the pages: two loads and a
    /// comparison.
    ///
    /// # Panics
    /// If `slot` starts no mapping, or the range runs past it.
    #[inline]
    pub fn shared_dram(&self, slot: u8, offset: u32, len: usize) -> SharedBytes {
        let base = AddressMap::entry_base(slot) as *mut u8;
        let ready = &self.ready[usize::from(slot)];
        if ready.covers(offset, len) {
            return SharedBytes {
                base,
                len: ready.end.load(Ordering::Relaxed),
            };
        }
        let mut m = self.mappings.lock();
        let Mappings {
            space,
            frames,
            slots,
            ..
        } = &mut *m;
        let core = self.core;
        let mapping = slots
            .get_mut(slot)
            .unwrap_or_else(|| panic!("{core}: LUT entry {slot} starts no mapping"));
        let bytes = mapping.bytes();
        assert!(
            u64::from(offset) + len as u64 <= u64::from(bytes),
            "{core}: {offset:#x}+{len} runs past the {bytes} bytes mapped at LUT entry {slot}"
        );
        if len > 0 {
            let last = offset + (len as u32 - 1);
            let pages = offset / PAGE_SIZE..=last / PAGE_SIZE;
            for page in pages.clone() {
                if !mapping.is_mapped(page) {
                    let at = base as u32 + page * PAGE_SIZE;
                    space
                        .map(frames, at, at, PAGE_SIZE, mapping.ty)
                        .unwrap_or_else(|e| panic!("mapping LUT entry {slot}'s page: {e}"));
                    mapping.set_mapped(page);
                }
            }
            ready.extend(
                pages.start() * PAGE_SIZE,
                (last / PAGE_SIZE + 1) * PAGE_SIZE,
            );
        }
        SharedBytes { base, len: bytes }
    }

    /// Removes the mapping that starts at `slot`: its pages leave the page
    /// tables (and the TLB) and its LUT entries reach nothing again.
    ///
    /// # Panics
    /// If `slot` starts no mapping.
    #[inline]
    pub fn unmap_shared_dram(&self, slot: u8) {
        let mut m = self.mappings.lock();
        let core = self.core;
        self.ready[usize::from(slot)].clear();
        let mapping = m
            .slots
            .remove(slot)
            .unwrap_or_else(|| panic!("{core}: LUT entry {slot} starts no mapping"));
        if mapping.ty == MemoryType::Dcm {
            // Its modified lines may sit in L2, which would write them back
            // through the entry once it points elsewhere (or nowhere).
            self.write_back_l2();
        }
        let base = AddressMap::entry_base(slot);
        for page in mapping.mapped_pages() {
            m.space
                .unmap(base + page * PAGE_SIZE, PAGE_SIZE)
                .expect("a mapped page is page-aligned");
        }
        for k in 0..mapping.pages.count {
            self.set_lut_entry(usize::from(slot) + k as usize, LutEntry::UNUSED);
        }
    }

    /// Moves the private pages `[virt, virt + len)` (whole pages) onto the
    /// `len` bytes at `offset` (page-aligned) of the shareable DRAM mapping
    /// at `slot`: their bytes are copied there, then the pages reach those
    /// bytes, with the mapping's memory type. Loads and stores at the
    /// same addresses go to shared memory from then on, where other cores
    /// reach them through the same mapping. The copy's stores may still
    /// sit in the write-combine buffer: the caller flushes it.
    ///
    /// # Panics
    /// If `slot` starts no mapping, or the range runs past it.
    pub fn move_to_shared_dram(
        &self,
        virt: u32,
        len: u32,
        slot: u8,
        offset: u32,
    ) -> Result<(), MapError> {
        if len == 0 {
            return Ok(());
        }
        let target = self.shared_dram(slot, offset, len as usize);
        let phys = target.base as u32 + offset;
        if !virt.is_multiple_of(PAGE_SIZE)
            || !len.is_multiple_of(PAGE_SIZE)
            || !phys.is_multiple_of(PAGE_SIZE)
        {
            return Err(MapError::BadRange { start: phys, len });
        }
        let ty = self
            .shared_dram_page_type(slot, offset)
            .expect("shared_dram mapped the pages");
        let mut m = self.mappings.lock();
        let mut pages = (virt..virt + len).step_by(PAGE_SIZE as usize);
        if let Some(page) = pages.find(|&page| m.space.translate(page).is_none()) {
            return Err(MapError::NotMapped(page));
        }
        // SAFETY: `virt` is `len` bytes of mapped memory (checked above)
        // and `phys` as many bytes of the mapping, which `shared_dram` just
        // mapped; they do not overlap (the page tables map `phys` to
        // itself, `virt` to other frames until the remap below).
        unsafe {
            core::ptr::copy_nonoverlapping(virt as *const u8, phys as *mut u8, len as usize);
        }
        m.space.remap(virt, phys, len, ty)
    }

    /// The memory type of the page holding byte `offset` of the mapping at
    /// `slot`, if the page tables map it yet.
    pub fn shared_dram_page_type(&self, slot: u8, offset: u32) -> Option<MemoryType> {
        let m = self.mappings.lock();
        let (_, ty) = m.space.translate(AddressMap::entry_base(slot) + offset)?;
        Some(ty)
    }

    /// Writes every modified line of L1 and L2 back to memory, through the
    /// LUT entries in force. The SCC has no instruction that flushes L2:
    /// after a WBINVD (L1 into L2), this loads private memory of twice L2's
    /// size a line at a time, which takes every way of every L2 set from
    /// whatever it held (twice, so that a replacement order other than LRU
    /// empties it too). Needed before an entry through which DCM lines were
    /// cached changes.
    pub fn write_back_l2(&self) {
        wbinvd();
        let sweep = core::ptr::addr_of!(L2_SWEEP).cast::<u8>();
        for line in (0..L2_SWEEP_BYTES).step_by(CACHE_LINE) {
            // SAFETY: inside the static, which nothing writes.
            unsafe { sweep.add(line).read_volatile() };
        }
    }

    /// Writes back and invalidates this core's L1 (WBINVD). On the SCC it
    /// does not reach L2: a modified MPBT line goes to memory, a modified
    /// DCM line only to L2, which nothing but an eviction empties.
    #[inline]
    pub fn write_back_l1(&self) {
        wbinvd();
    }

    /// Drops every MPBT line from L1, so the next reads of MPB data fetch
    /// what other cores wrote (and an unflushed local write is lost).
    #[inline]
    pub fn invalidate_mpbt(&self) {
        cl1invmb();
    }

    /// The FPGA bank's global timestamp: on the emulator with timing on,
    /// the reading core's modelled SCC time in core cycles, 0 without it.
    ///
    /// A read of GTSC_LO latches the time into both registers, so the
    /// guest reads GTSC_LO (the latch), then GTSC_HI and GTSC_LO, and gets
    /// one consistent 64-bit value: the time of the latching read.
    pub fn global_timestamp(&self) -> u64 {
        let bank = self.chip.fpga_base();
        let lo = (bank + self.chip.fpga.gtsc_lo) as *const u32;
        let hi = (bank + self.chip.fpga.gtsc_hi) as *const u32;
        // SAFETY: the FPGA bank is identity-mapped uncached for the whole
        // run (platform init); these are its timestamp registers.
        unsafe {
            lo.read_volatile();
            let high = hi.read_volatile();
            u64::from(high) << 32 | u64::from(lo.read_volatile())
        }
    }

    /// The emulator's clock latch and latched words (modelled time only).
    pub fn clock_registers(&self) -> ClockRegisters {
        let bank = self.chip.fpga_base();
        let at = |call| (bank + self.chip.fpga.emu_call(call)) as usize;
        ClockRegisters {
            latch: at(EmuCall::ClockLatch),
            lo: at(EmuCall::ClockLo),
            hi: at(EmuCall::ClockHi),
        }
    }

    /// This core's clock in core cycles, for measurements: its own
    /// modelled cycles at the cost of RDTSC under the emulator's timing
    /// (the FPGA's global timestamp, [`Platform::global_timestamp`], stays
    /// available at its own cost), else the
    /// time-stamp counter (silicon, where the timestamp counts FPGA
    /// cycles, is built with the `silicon` feature; the emulator without
    /// timing reads a timestamp of 0 and falls back to host time).
    #[inline]
    pub fn now(&self) -> u64 {
        if cfg!(feature = "silicon") {
            return rdtsc();
        }
        if self.modelled {
            // The core's own modelled cycles, at what the P54C's RDTSC
            // costs (`chip::Timing::clock_read`).
            return self.clock_registers().read();
        }
        match self.global_timestamp() {
            0 => rdtsc(),
            t => t,
        }
    }

    /// Whether [`Platform::now`] counts modelled core cycles (the emulator's
    /// timing is on), rather than a time-stamp counter that runs in host
    /// time under QEMU.
    pub fn clock_is_modelled(&self) -> bool {
        !cfg!(feature = "silicon") && self.modelled
    }

    /// Pushes this core's write-combine buffer out to memory: a write to a
    /// different line flushes it, so write to a dummy line of this core's own
    /// in MPBT-typed LSM that no one reads (thesis 4.3.3).
    #[inline]
    pub fn flush_wcb(&self) {
        let area = wcb_flush_area_bytes(self.chip);
        let line = self.chip.lsm_base(0) + LUT_PAGE_SIZE - area
            + self.core.index() as u32 * chip::CACHE_LINE as u32;
        // SAFETY: the line lies in the flush area mapped MPBT-WB at boot and
        // belongs to this core alone.
        unsafe { (line as *mut u32).write_volatile(0) };
    }
}

/// Addresses of the emulator's clock latch and latched words
/// ([`EmuCall::ClockLatch`]), identity-mapped in the FPGA bank.
#[derive(Debug, Clone, Copy)]
pub struct ClockRegisters {
    latch: usize,
    lo: usize,
    hi: usize,
}

impl ClockRegisters {
    /// The latch's, the low word's and the high word's addresses.
    pub fn addresses(self) -> (usize, usize, usize) {
        (self.latch, self.lo, self.hi)
    }
    /// The core's own modelled cycles: exactly three instructions (the
    /// latch and two reads, simple moves the P54C issues in two cycles),
    /// which the emulator charges as one RDTSC
    /// (`chip::Timing::clock_read_issue`).
    pub fn read(self) -> u64 {
        let (low, high): (u32, u32);
        // SAFETY: under modelled time (the only case a `ClockRegisters` is
        // used) these are the emulator's registers in the FPGA bank,
        // identity-mapped uncached for the whole run.
        unsafe {
            asm!(
                "mov dword ptr [{latch}], 0",
                "mov {low}, dword ptr [{lo}]",
                "mov {high}, dword ptr [{hi}]",
                latch = in(reg) self.latch,
                lo = in(reg) self.lo,
                hi = in(reg) self.hi,
                low = out(reg) low,
                high = out(reg) high,
                options(nostack, preserves_flags)
            )
        };
        u64::from(high) << 32 | u64::from(low)
    }
}

/// Reads the 32-bit configuration register at core-physical `address`.
///
/// Only for registers of a CRB, which platform init maps uncached for the
/// whole run: MYTILEID, LUT entries.
pub(super) fn read_register(address: u32) -> u32 {
    assert!(
        address.is_multiple_of(4),
        "register {address:#010x} unaligned"
    );
    let pointer = NonNull::new(address as *mut u32).expect("CRBs are not at address 0");
    // SAFETY: CRB registers are aligned words in an uncached mapping that
    // stays for the whole run; reading them has no side effect.
    unsafe { VolatilePtr::new_read_only(pointer) }.read()
}

/// Writes the 32-bit configuration register at core-physical `address`.
///
/// Only for registers of a CRB (LUT entries), which platform init maps
/// uncached for the whole run.
fn write_register(address: u32, value: u32) {
    assert!(
        address.is_multiple_of(4),
        "register {address:#010x} unaligned"
    );
    let pointer = NonNull::new(address as *mut u32).expect("CRBs are not at address 0");
    // SAFETY: as in `read_register`; the callers check which registers they
    // write.
    unsafe { VolatilePtr::new(pointer) }.write(value);
}

/// Atomically swaps `value` into the byte at `addr`, returning the old value.
///
/// # Safety
/// `addr` must be mapped and valid for byte reads and writes.
unsafe fn exchange_byte(addr: *mut u8, value: u8) -> u8 {
    let mut old = value;
    // SAFETY: the caller guarantees `addr`; xchg with a memory operand is
    // implicitly locked.
    unsafe {
        asm!("xchg byte ptr [{addr}], {old}", addr = in(reg) addr, old = inout(reg_byte) old, options(nostack, preserves_flags))
    };
    old
}
