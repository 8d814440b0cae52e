// SPDX-License-Identifier: MIT OR Apache-2.0
//! The OpenSHMEM routines C calls, over the dsm services, on the kernel.
//!
//! One core runs one PE, so the library's state is one value per core
//! ([`STATE`]), borrowed for the length of a routine. A routine given
//! bad arguments (an address that is not symmetric, a PE outside the
//! run, a routine called before `shmem_init`) ends the core's run with a
//! report naming the routine and what was wrong, as OpenSHMEM leaves
//! errors to the implementation.
//!
//! The consistency model, in dsm's terms (the heap is one region, cached
//! in L1 only, in one scope):
//! - a put, `p` or atomic is delivered to the target's memory when it
//!   returns (the write-combine buffer is flushed after it), so a flag
//!   written after data never overtakes it;
//! - `shmem_quiet` and `shmem_fence` release: `sync_write` of the heap's
//!   scope, which advances its timestamp;
//! - `shmem_barrier_all` = `sync_write`, barrier, `sync_read`;
//!   `shmem_sync_all` = barrier, `sync_read`: a PE's plain loads after it
//!   see what others put and then released with `shmem_quiet`, and the
//!   invalidation is skipped when nobody released into the heap since
//!   this PE's last one;
//! - `shmem_wait_until` and `shmem_test` invalidate before every read of
//!   the variable (the put that sets it is not released);
//! - a get reads the target's memory (rma drops lines an earlier get left).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::ffi::{c_char, c_int, c_void};

use dsm::{Attribute, Distribution, Dsm, Region, Scope};
use kernel::Platform;
use rma::comm::Comm;
use rma::{Accumulable, AccumulateOp, Rma};

use dsm::heap::Heap;
/// Bytes of each PE's symmetric heap (the end of it holds the teams'
/// barrier table and exchange area).
const HEAP_BYTES: u32 = 8 << 20;

/// Each PE's heap starts at an address aligned to this, so that
/// `shmem_align` gives addresses aligned up to it, at the same offset on
/// every PE.
const HEAP_ALIGN: u32 = 4 << 20;

mod collectives;
mod contexts;
mod routines;
mod unsupported;

/// What an initialised PE holds.
struct State {
    dsm: Dsm<'static, Platform>,
    /// The symmetric heap and variables: a region of `n * block`, in blocks.
    heap: Region,
    /// The scope of the heap.
    scope: Scope,
    /// Where this PE's part of the heap is mapped.
    base: *mut u8,
    /// The program's global and static variables (`.symmetric`, which
    /// `shmem_init` moved onto the PE's block after the heap): where they
    /// start, and their bytes.
    data: *mut u8,
    data_len: usize,
    /// Bytes of each PE's block of the region: up to [`HEAP_ALIGN`]
    /// bytes before an aligned address, the heap, then the variables.
    block: u32,
    /// Where each PE's heap starts in its block.
    starts: Vec<u32>,
    /// Offsets of the blocks `shmem_malloc` gave out.
    alloc: Heap,
    /// The teams this PE made (handle `k + 2` is entry `k`), `None` once
    /// destroyed.
    teams: Vec<Option<collectives::TeamDef>>,
    /// The contexts this PE made (handle `k + 2` is entry `k`): the team
    /// of each, `None` once destroyed.
    contexts: Vec<Option<collectives::Team>>,
    /// The run's PEs.
    n: u32,
    /// This PE.
    me: u32,
}

/// The library's state on this core.
#[allow(clippy::large_enum_variant)] // one value per core, in a static
enum Phase {
    Before,
    Running(State),
    Finalized,
}

/// [`Phase`] in a static.
struct Global(RefCell<Phase>);

// SAFETY: each core runs one thread, and no interrupt handler calls into
// the library, so the cell is never reached from two threads.
unsafe impl Sync for Global {}

/// The library's state on this core.
static STATE: Global = Global(RefCell::new(Phase::Before));

/// A routine's failure: what was wrong, without the routine's name.
type Outcome<T> = Result<T, String>;

/// Ends this core's run as failed with `report`, after what the program
/// wrote to stdout and the C library still holds.
fn fail(report: core::fmt::Arguments<'_>) -> ! {
    flush_output();
    kernel::exit::fail(report)
}

/// Writes out what the program wrote to stdout and the C library still
/// holds, and ends its last line.
fn flush_output() {
    unsafe extern "C" {
        fn fflush(stream: *mut c_void) -> c_int;
    }
    // SAFETY: the C library's fflush; a null stream is every stream.
    unsafe { fflush(core::ptr::null_mut()) };
    crt::end_line();
}

/// Runs `body` on the state of an initialised PE; a failure ends the run
/// with a report naming `routine`.
fn with<R>(routine: &str, body: impl FnOnce(&mut State) -> Outcome<R>) -> R {
    let Ok(mut phase) = STATE.0.try_borrow_mut() else {
        fail(format_args!(
            "{routine}: called from inside another OpenSHMEM routine"
        ))
    };
    let outcome = match &mut *phase {
        Phase::Before => Err(String::from("called before shmem_init")),
        Phase::Finalized => Err(String::from("called after shmem_finalize")),
        Phase::Running(state) => body(state),
    };
    drop(phase);
    outcome.unwrap_or_else(|e| fail(format_args!("{routine}: {e}")))
}

impl State {
    /// `Err` unless `pe` is a PE of the run.
    fn pe(&self, pe: c_int) -> Outcome<u32> {
        u32::try_from(pe)
            .ok()
            .filter(|p| *p < self.n)
            .ok_or_else(|| format!("PE {pe} is not in the run (PEs 0 to {})", self.n - 1))
    }

    /// The block offset of `len` bytes at `addr`, which must lie in this
    /// PE's symmetric heap or among the program's variables (`what` names
    /// the argument in the error).
    fn offset(&self, addr: *const c_void, len: usize, what: &str) -> Outcome<u32> {
        // Nothing is moved: any address will do (NULL too).
        if len == 0 {
            return Ok(0);
        }
        let at = addr as usize;
        let inside = |start: usize, bytes: usize| {
            (at >= start && at - start <= bytes && bytes - (at - start) >= len).then(|| at - start)
        };
        if let Some(offset) = inside(self.base as usize, HEAP_BYTES as usize) {
            return Ok(offset as u32);
        }
        if let Some(offset) = inside(self.data as usize, self.data_len) {
            return Ok(HEAP_BYTES + offset as u32);
        }
        Err(format!(
            "{what} {addr:p} ({len} bytes) is not a symmetric object: it is outside the \
             symmetric heap ({:p} to {:p}) and the program's global and static variables \
             ({:p} to {:p})",
            self.base,
            self.base.wrapping_add(HEAP_BYTES as usize),
            self.data,
            self.data.wrapping_add(self.data_len)
        ))
    }

    /// The region offset of block offset `offset` on `pe`.
    fn at(&self, pe: u32, offset: u32) -> u32 {
        pe * self.block + self.starts[pe as usize] + offset
    }

    /// Writes `data` at heap offset `offset` of `pe` and pushes it to
    /// memory.
    fn put(&mut self, pe: u32, offset: u32, data: &[u8]) -> Outcome<()> {
        if data.is_empty() {
            return Ok(());
        }
        let at = self.at(pe, offset);
        self.dsm
            .write(self.heap, at, data)
            .map_err(|e| format!("{e}"))?;
        self.dsm.rma().hal().flush_wcb();
        Ok(())
    }

    /// Reads heap offset `offset` of `pe` into `buf`.
    fn get(&mut self, pe: u32, offset: u32, buf: &mut [u8]) -> Outcome<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let at = self.at(pe, offset);
        self.dsm
            .read(self.heap, at, buf)
            .map_err(|e| format!("{e}"))
    }

    /// `old op value` on the element at heap offset `offset` of `pe`.
    fn atomic<T: Accumulable>(
        &mut self,
        pe: u32,
        offset: u32,
        value: T,
        op: AccumulateOp,
    ) -> Outcome<T> {
        let at = self.at(pe, offset);
        let old = self
            .dsm
            .atomic(self.heap, at, value, op)
            .map_err(|e| format!("{e}"))?;
        Ok(old)
    }

    /// Compare-and-swap of the element at heap offset `offset` of `pe`.
    fn compare_swap<T: Accumulable>(
        &mut self,
        pe: u32,
        offset: u32,
        compare: T,
        value: T,
    ) -> Outcome<T> {
        let at = self.at(pe, offset);
        self.dsm
            .compare_swap(self.heap, at, compare, value)
            .map_err(|e| format!("{e}"))
    }

    /// Release: what this PE wrote into the heap is visible everywhere.
    fn quiet(&mut self) -> Outcome<()> {
        self.dsm.sync_write(self.scope).map_err(|e| format!("{e}"))
    }

    /// Every PE arrives, then this PE's next loads see what was released.
    fn sync_all(&mut self) -> Outcome<()> {
        self.dsm.barrier();
        self.dsm.sync_read(self.scope).map_err(|e| format!("{e}"))
    }

    /// quiet, then sync_all.
    fn barrier_all(&mut self) -> Outcome<()> {
        self.quiet()?;
        self.sync_all()
    }

    /// Waits until `ready` holds of the element at `addr` of this PE's
    /// heap, reading it fresh (after an invalidation) each time.
    fn wait<T: Copy>(&mut self, addr: *const T, mut ready: impl FnMut(T) -> bool) -> Outcome<T> {
        self.offset(addr.cast(), core::mem::size_of::<T>(), "ivar")?;
        let hal = self.dsm.rma().hal();
        let dsm = &mut self.dsm;
        Ok(hal.wait_for(|| {
            dsm.invalidate();
            // SAFETY: `addr` lies in this PE's mapped heap (checked
            // above); volatile, as other cores change it.
            let v = unsafe { addr.read_volatile() };
            ready(v).then_some(v)
        }))
    }

    /// The element at `addr` of this PE's heap, read fresh.
    fn read_fresh<T: Copy>(&mut self, addr: *const T) -> Outcome<T> {
        self.offset(addr.cast(), core::mem::size_of::<T>(), "ivar")?;
        self.dsm.invalidate();
        // SAFETY: as in `wait`.
        Ok(unsafe { addr.read_volatile() })
    }
}

/// `len` bytes at `ptr`, which C says it may read.
///
/// # Safety
/// `ptr` must be readable for `len` bytes, or `len` 0.
unsafe fn bytes<'a>(ptr: *const c_void, len: usize, what: &str) -> Outcome<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(format!("{what} is NULL with {len} bytes"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast(), len) })
}

/// `len` bytes at `ptr`, which C says it may write.
///
/// # Safety
/// `ptr` must be writable for `len` bytes, or `len` 0.
unsafe fn bytes_mut<'a>(ptr: *mut c_void, len: usize, what: &str) -> Outcome<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(format!("{what} is NULL with {len} bytes"));
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr.cast(), len) })
}

/// `shmem_init`: makes this core a PE of the run and maps its symmetric
/// heap; collective over the run's cores.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_init() {
    let Ok(mut phase) = STATE.0.try_borrow_mut() else {
        fail(format_args!(
            "shmem_init: called from inside another OpenSHMEM routine"
        ))
    };
    match &*phase {
        Phase::Running(_) => fail(format_args!("shmem_init: called twice")),
        Phase::Finalized => fail(format_args!("shmem_init: called after shmem_finalize")),
        Phase::Before => {}
    }
    let platform: &'static Platform = crt::platform();
    let start = || -> Outcome<State> {
        let rma = Comm::new(platform)
            .and_then(Rma::new)
            .map_err(|e| format!("{e}"))?;
        let mut dsm = Dsm::new(rma).map_err(|e| format!("{e}"))?;
        let n = dsm.size();
        let me = dsm.rank();
        let (data, data_len) = program_variables();
        let block = u32::try_from(data_len)
            .ok()
            .and_then(|len| (HEAP_ALIGN + HEAP_BYTES).checked_add(len))
            .filter(|block| block.checked_mul(n).is_some())
            .ok_or_else(|| {
                format!("the program's variables ({data_len} bytes) do not fit in shared memory")
            })?;
        let (heap, _) = dsm
            .alloc_unzeroed(n * block, Distribution::Block, Attribute::L1Only)
            .map_err(|e| {
                format!(
                    "the symmetric heap ({HEAP_BYTES} bytes per PE) and the program's \
                     variables ({data_len} bytes): {e}"
                )
            })?;
        let scope = dsm.scope(&[heap]).map_err(|e| format!("{e}"))?;
        let mapping = dsm.map_local(heap).map_err(|e| format!("{e}"))?;
        let bytes = platform.shared_dram(mapping.slot, mapping.offset, mapping.len as usize);
        let part = bytes.as_ptr().wrapping_add(mapping.offset as usize);
        // The heap from the first aligned address of the block; every PE
        // learns where every other's starts.
        let start = (part as u32).next_multiple_of(HEAP_ALIGN) - part as u32;
        let base = part.wrapping_add(start as usize);
        let mut all = vec![0u8; 4 * n as usize];
        dsm.rma()
            .comm()
            .allgather(&start.to_le_bytes(), &mut all)
            .map_err(|e| format!("{e}"))?;
        let starts: Vec<u32> = all
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // The variables' pages onto this PE's block, after the heap; then
        // every PE's are there before anyone reaches another's.
        platform
            .move_to_shared_dram(
                data as u32,
                data_len as u32,
                mapping.slot,
                mapping.offset + start + HEAP_BYTES,
            )
            .map_err(|e| format!("moving the program's variables to shared memory: {e}"))?;
        // The teams' area at the end of the heap starts zeroed.
        let area = collectives::TEAM_AREA;
        dsm.write(
            heap,
            me * block + start + HEAP_BYTES - area,
            &vec![0u8; area as usize],
        )
        .map_err(|e| format!("{e}"))?;
        dsm.rma().hal().flush_wcb();
        dsm.sync_write(scope).map_err(|e| format!("{e}"))?;
        dsm.barrier();
        Ok(State {
            dsm,
            heap,
            scope,
            base,
            data,
            data_len,
            block,
            starts,
            alloc: Heap::new(HEAP_BYTES - collectives::TEAM_AREA),
            teams: Vec::new(),
            contexts: Vec::new(),
            n,
            me,
        })
    };
    match start() {
        Ok(state) => {
            crt::check_at_success(finalized_at_exit);
            *phase = Phase::Running(state);
        }
        Err(e) => {
            drop(phase);
            fail(format_args!("shmem_init: {e}"))
        }
    }
}

/// The program's global and static variables: the section `.symmetric`
/// that `rma/shmem/symmetric.ld` gathers (whole pages), its start and
/// bytes.
fn program_variables() -> (*mut u8, usize) {
    unsafe extern "C" {
        static mut __symmetric_start: u8;
        static mut __symmetric_end: u8;
    }
    let start = &raw mut __symmetric_start;
    let end = &raw mut __symmetric_end;
    (start, end as usize - start as usize)
}

/// `shmem_init_thread`: `shmem_init`; a PE is one thread
/// (`SHMEM_THREAD_SINGLE`).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_init_thread(_requested: c_int, provided: *mut c_int) -> c_int {
    shmem_init();
    if !provided.is_null() {
        // SAFETY: C passes a pointer to its int.
        unsafe { provided.write(0) };
    }
    0
}

/// `shmem_query_thread`: `SHMEM_THREAD_SINGLE`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_query_thread(provided: *mut c_int) {
    with("shmem_query_thread", |_| {
        if provided.is_null() {
            return Err(String::from("provided is NULL"));
        }
        // SAFETY: C passes a pointer to its int.
        unsafe { provided.write(0) };
        Ok(())
    })
}

/// A program that called `shmem_init` must call `shmem_finalize` before
/// it ends with status 0.
fn finalized_at_exit() {
    if matches!(&*STATE.0.borrow(), Phase::Running(_)) {
        fail(format_args!(
            "the program ended without calling shmem_finalize after shmem_init"
        ))
    }
}

/// `shmem_finalize`: a barrier over every PE, then the end of OpenSHMEM
/// on this PE. When the run asked for statistics (`cargo xtask run
/// --stats`), this PE's services' statistics go out as `STATS dsm` lines
/// ([`dsm::Stats::lines`]), which the run tool shows beside the chip
/// model's tables.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_finalize() {
    with("shmem_finalize", |s| {
        s.barrier_all()?;
        if crt::platform().stats_requested() {
            crt::end_line();
            for line in s.dsm.stats().lines() {
                kernel::println!("{line}");
            }
        }
        Ok(())
    });
    *STATE.0.borrow_mut() = Phase::Finalized;
}

/// `shmemx_print_stats`: prints this PE's statistics of the services
/// under OpenSHMEM (calls, cycles, lock waits, cache actions, skipped
/// invalidations), one line each, prefixed `shmem stats:`.
#[unsafe(no_mangle)]
pub extern "C" fn shmemx_print_stats() {
    with("shmemx_print_stats", |s| {
        crt::end_line();
        for line in format!("{}", s.dsm.stats()).lines() {
            kernel::println!("shmem stats: {line}");
        }
        Ok(())
    })
}

/// `shmemx_enforce_consistency`: collectively turns the consistency
/// actions of the library on (`on` not 0, as it starts) or off, for an
/// incoherent run whose time against an enforced one is the consistency
/// overhead (dsm's [`Enforcement`](dsm::Enforcement)). Off, the
/// releases and acquires of quiet, fence, barriers, locks and waits
/// do nothing; results stay right only where no load can be stale
/// (MPBT-WT loads read uncached, the chip model's default). Every PE
/// calls it: a barrier before and after, and turned on again, each PE
/// invalidates at once.
#[unsafe(no_mangle)]
pub extern "C" fn shmemx_enforce_consistency(on: c_int) {
    with("shmemx_enforce_consistency", |s| {
        s.barrier_all()?;
        let enforcement = if on != 0 {
            dsm::Enforcement::On
        } else {
            dsm::Enforcement::Off
        };
        s.dsm.set_enforcement(enforcement);
        s.dsm.invalidate();
        s.dsm.barrier();
        Ok(())
    })
}

/// `shmem_global_exit`: ends the run of every PE, wherever the others
/// are. With `status` 0 the run succeeds (the run tool stops the other
/// cores and says which PE ended it); with any other it fails naming the
/// status.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_global_exit(status: c_int) -> ! {
    if status != 0 {
        fail(format_args!("shmem_global_exit with status {status}"))
    }
    flush_output();
    crt::end_every_core()
}

/// `shmem_my_pe`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_my_pe() -> c_int {
    with("shmem_my_pe", |s| Ok(s.me as c_int))
}

/// `shmem_n_pes`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_n_pes() -> c_int {
    with("shmem_n_pes", |s| Ok(s.n as c_int))
}

/// `shmem_pe_accessible`: every PE of the run.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_pe_accessible(pe: c_int) -> c_int {
    with("shmem_pe_accessible", |s| Ok(c_int::from(s.pe(pe).is_ok())))
}

/// `shmem_addr_accessible`: whether `addr` is in the symmetric heap (and
/// `pe` in the run).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_addr_accessible(addr: *const c_void, pe: c_int) -> c_int {
    with("shmem_addr_accessible", |s| {
        Ok(c_int::from(
            s.pe(pe).is_ok() && s.offset(addr, 1, "addr").is_ok(),
        ))
    })
}

/// `shmem_ptr`: `dest` itself on this PE; NULL for any other PE, whose
/// heap is not mapped by address (puts and gets reach it).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ptr(dest: *const c_void, pe: c_int) -> *mut c_void {
    with("shmem_ptr", |s| {
        let pe = s.pe(pe)?;
        s.offset(dest, 1, "dest")?;
        Ok(if pe == s.me {
            dest.cast_mut()
        } else {
            core::ptr::null_mut()
        })
    })
}

/// `shmem_info_get_version`: 1.5.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_info_get_version(major: *mut c_int, minor: *mut c_int) {
    if major.is_null() || minor.is_null() {
        fail(format_args!("shmem_info_get_version: a NULL argument"))
    }
    // SAFETY: C passes pointers to its ints.
    unsafe {
        major.write(1);
        minor.write(5);
    }
}

/// The vendor string of `shmem_info_get_name`.
const NAME: &[u8] = b"OpenSHMEM on the emulated SCC (dsm over rma)\0";

/// `shmem_info_get_name`: at most `SHMEM_MAX_NAME_LEN` (64) bytes with
/// the NUL.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_info_get_name(name: *mut c_char) {
    if name.is_null() {
        fail(format_args!("shmem_info_get_name: name is NULL"))
    }
    // SAFETY: OpenSHMEM says `name` has room for SHMEM_MAX_NAME_LEN bytes,
    // more than NAME's.
    unsafe { core::ptr::copy_nonoverlapping(NAME.as_ptr(), name.cast(), NAME.len()) };
}

/// `shmem_wtime`: this core's modelled time in seconds.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_wtime() -> f64 {
    let platform = crt::platform();
    platform.now() as f64 / (f64::from(platform.chip().timing.core_mhz) * 1e6)
}

/// Allocates `size` bytes aligned to `align` of the symmetric heap,
/// collectively, zeroed if `zero`; NULL for 0 bytes.
fn allocate(routine: &str, size: usize, align: usize, zero: bool) -> *mut c_void {
    with(routine, |s| {
        s.barrier_all()?;
        if size == 0 {
            return Ok(core::ptr::null_mut());
        }
        if align > HEAP_ALIGN as usize {
            return Err(format!(
                "alignment {align} is above the {HEAP_ALIGN} bytes every PE's heap is aligned to"
            ));
        }
        let at = s
            .alloc
            .alloc(size as u64, align as u64)
            .map_err(|e| format!("{e}"))?;
        if zero {
            let zeros = vec![0u8; size];
            let me = s.me;
            s.put(me, at, &zeros)?;
        }
        s.barrier_all()?;
        Ok(s.base.wrapping_add(at as usize).cast())
    })
}

/// `shmem_malloc`: collective; the same offset on every PE.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_malloc(size: usize) -> *mut c_void {
    allocate("shmem_malloc", size, 1, false)
}

/// `shmem_malloc_with_hints`: `shmem_malloc`; the hints (how the memory
/// will be used) are advisory, and every block serves every use here.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_malloc_with_hints(size: usize, _hints: core::ffi::c_long) -> *mut c_void {
    allocate("shmem_malloc_with_hints", size, 1, false)
}

/// `shmem_calloc`: `shmem_malloc` of `count * size` bytes, zeroed.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_calloc(count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        Some(bytes) => allocate("shmem_calloc", bytes, 1, true),
        None => fail(format_args!(
            "shmem_calloc: {count} elements of {size} bytes overflow"
        )),
    }
}

/// `shmem_align`: `shmem_malloc` aligned to `alignment` (a power of two).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_align(alignment: usize, size: usize) -> *mut c_void {
    allocate("shmem_align", size, alignment, false)
}

/// `shmem_free`: collective; NULL does nothing but the barrier.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_free(ptr: *mut c_void) {
    with("shmem_free", |s| {
        s.barrier_all()?;
        if !ptr.is_null() {
            let at = s.offset(ptr, 1, "ptr")?;
            s.alloc.free(at).map_err(|e| format!("{e}"))?;
        }
        Ok(())
    })
}

/// `shmem_realloc`: a new block of `size` bytes holding the old one's
/// bytes (as many as fit), the old one freed; collective.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    if ptr.is_null() {
        return shmem_malloc(size);
    }
    let old = with("shmem_realloc", |s| {
        let at = s.offset(ptr, 1, "ptr")?;
        s.alloc
            .block(at)
            .ok_or_else(|| format!("ptr {ptr:p} is not a block shmem_malloc gave"))
    });
    let new = allocate("shmem_realloc", size, 1, false);
    with("shmem_realloc", |s| {
        let keep = (old as usize).min(size);
        if keep > 0 {
            let (from, to) = (s.offset(ptr, keep, "ptr")?, s.offset(new, keep, "new")?);
            let mut tmp = vec![0u8; keep];
            let me = s.me;
            s.get(me, from, &mut tmp)?;
            s.put(me, to, &tmp)?;
        }
        Ok(())
    });
    shmem_free(ptr);
    new
}
