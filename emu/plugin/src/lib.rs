// SPDX-License-Identifier: GPL-2.0-or-later
//! The QEMU TCG plugin that loads the SCC chip model into one core's QEMU.
//!
//! This file is the whole FFI surface: QEMU's entry symbols and callbacks,
//! turned into safe calls to [`emu::engine::Engine`] as early as possible.
//! The plugin refuses to load (so QEMU refuses to start) unless it runs
//! under system emulation with options that name a real core of a known
//! chip and that chip's memory file; the reason goes to standard error as
//! `emu: <reason>`, which the run tool shows. Nothing may unwind into
//! QEMU's C frames, so every entry point catches panics.
//!
//! What it registers:
//! - a memory callback on every load and store (one for loads, one for
//!   stores, so neither asks QEMU which it is). Private memory goes through
//!   the caches' model too ([`Engine::private_access`]), but a load of the
//!   line L1 used last in its set, or a store to it, only counts as an L1
//!   hit (a store to a clean line also marks it modified in the table,
//!   which the cache takes in later): such an access is counted, before any
//!   lock is taken, by looking the line up in L1's MRU table, which the
//!   engine keeps in a `static` of the plugin ([`Engine::share_l1_mru`]).
//!   After the first access to a virtual page, the
//!   callback knows its physical page and how the model treats it without
//!   asking QEMU or the engine again;
//! - execution callbacks, chosen at translation by opcode, on CL1INVMB
//!   (`0F 0A`, before its #UD), WBINVD, INVD, `invlpg` and `mov` to CR0 or
//!   CR3 (reading the source register: the callback runs before the write);
//! - inline adds of each translation block's instruction count, and of
//!   the cycles the P54C takes to issue the block ([`emu::model::p54c`],
//!   computed once at translation), to per-vCPU counters (no callback):
//!   the report says how many instructions the core executed, and the
//!   cycles are the base of its modelled clock. A REP string instruction,
//!   which QEMU may run many iterations of in one execution of its block,
//!   adds each iteration's cycles in its memory callback, on the access
//!   every iteration makes (`RepAccess`): the count follows the guest's
//!   accesses, not how QEMU splits the iterations;
//! - with timing on (`quantum=` given): a conditional callback, run when
//!   the issue cycles since the last one reach the sync interval, that
//!   hands the counts to the engine and keeps the core within the quantum
//!   of the others; idle and resume callbacks, so a halted core holds
//!   nobody back;
//! - with `entry=` given, an execution callback on the block at the
//!   booted image's entry point, where modelled time starts: the
//!   firmware's instructions (their issue cycles, REP iterations
//!   included) before take none;
//! - an exit callback that writes the core's report into the run's
//!   directory.
//!
//! When the model cannot go on (an access through a LUT entry that reaches
//! nothing), the plugin writes the report, prints the reason and ends QEMU
//! with `emu::launch::MODEL_STOP_STATUS`: the run tool names the core and
//! shows the reason.
//!
//! The fast path's caches of translations (private pages, virtual lines)
//! are plain types of their own, tested on the host (module `fast`).

mod fast;

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use fast::{CACHE_LINE, PAGE_OFFSET, PageFlags, PrivatePages, VirtualLines};

use emu::engine::{Engine, GuestAccess, PrivatePage};
use emu::model::cache::MruLines;
use emu::model::hierarchy::{Config, Kind};
use emu::model::p54c;
use emu::options::PluginSetup;
use qemu_plugin_sys::{
    GArray, GByteArray, QEMU_PLUGIN_VERSION, qemu_info_t, qemu_plugin_cb_flags, qemu_plugin_cond,
    qemu_plugin_get_hwaddr, qemu_plugin_get_registers, qemu_plugin_hwaddr_is_io,
    qemu_plugin_hwaddr_phys_addr, qemu_plugin_id_t, qemu_plugin_insn, qemu_plugin_insn_data,
    qemu_plugin_insn_size, qemu_plugin_insn_vaddr, qemu_plugin_mem_get_value, qemu_plugin_mem_rw,
    qemu_plugin_mem_size_shift, qemu_plugin_mem_value_type, qemu_plugin_meminfo_t, qemu_plugin_op,
    qemu_plugin_read_register, qemu_plugin_reg_descriptor, qemu_plugin_register,
    qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_idle_cb,
    qemu_plugin_register_vcpu_init_cb, qemu_plugin_register_vcpu_insn_exec_cb,
    qemu_plugin_register_vcpu_mem_cb, qemu_plugin_register_vcpu_resume_cb,
    qemu_plugin_register_vcpu_tb_exec_cb, qemu_plugin_register_vcpu_tb_exec_cond_cb,
    qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu, qemu_plugin_register_vcpu_tb_trans_cb,
    qemu_plugin_scoreboard_new, qemu_plugin_tb, qemu_plugin_tb_get_insn, qemu_plugin_tb_n_insns,
    qemu_plugin_tb_vaddr, qemu_plugin_u64, qemu_plugin_u64_add, qemu_plugin_u64_get,
    qemu_plugin_u64_set,
};

/// The plugin API version this plugin was built against; QEMU refuses a
/// plugin whose version it does not support.
#[unsafe(no_mangle)]
pub static qemu_plugin_version: c_int = QEMU_PLUGIN_VERSION as c_int;

// glib, linked into QEMU: the byte array register reads fill.
unsafe extern "C" {
    fn g_byte_array_new() -> *mut GByteArray;
    fn g_byte_array_free(array: *mut GByteArray, free_segment: c_int) -> *mut u8;
    fn g_array_free(array: *mut GArray, free_segment: c_int) -> *mut c_char;
}

/// Everything the callbacks share.
struct Plugin {
    /// The engine, used by the vCPU thread's callbacks and, at exit, by
    /// whichever thread exits. A spin lock: it is never held for long,
    /// almost never wanted by two threads at once, and taking it costs one
    /// atomic operation (releasing it, a plain store).
    engine: spin::Mutex<Engine>,
    /// Lowest core-physical address of the chip's shared regions
    /// ([`Engine::shared_low`]): with `high`, the fast filter.
    low: u32,
    /// One past the highest ([`Engine::shared_high`]).
    high: u32,
    /// QEMU's handles of eax, ecx, edx, ebx, esp, ebp, esi, edi (in the
    /// order of the x86 register encoding), found when the vCPU starts.
    gprs: OnceLock<[usize; 8]>,
    /// The per-vCPU count of instructions since reset.
    insns: Budget,
    /// The per-vCPU count of the cycles the core took to issue its
    /// instructions since the last sync point (with timing off: since
    /// reset), REP iterations included ([`rep_memory`] adds them).
    budget: Budget,
    /// With timing on: how many issue cycles make a sync interval.
    interval: Option<u64>,
    /// The booted image's entry point, where modelled time starts (from
    /// reset if the options name none).
    entry: Option<u64>,
}

/// A scoreboard entry of QEMU's: a handle used only through QEMU's
/// scoreboard functions.
#[derive(Clone, Copy)]
struct Budget(qemu_plugin_u64);

// SAFETY: the handle names a scoreboard QEMU owns and never frees while
// the plugin is loaded; it is only passed to QEMU's scoreboard functions,
// which may be called from any vCPU thread.
unsafe impl Send for Budget {}
// SAFETY: as for Send; the handle itself is never written after install.
unsafe impl Sync for Budget {}

/// Issue cycles counted before the last sync point (the budget holds the
/// ones since). Only the one vCPU thread uses it.
static CYCLES_BEFORE: AtomicU64 = AtomicU64::new(0);

/// Instructions executed since reset, and the cycles the core took to
/// issue them, read in a vCPU callback.
fn executed(plugin: &Plugin, vcpu: c_uint) -> (u64, u64) {
    // SAFETY: valid entries of a live scoreboard; `vcpu` is the calling
    // vCPU (or, at exit, the machine's only one).
    let (insns, since) = unsafe {
        (
            qemu_plugin_u64_get(plugin.insns.0, vcpu),
            qemu_plugin_u64_get(plugin.budget.0, vcpu),
        )
    };
    (insns, CYCLES_BEFORE.load(Ordering::Relaxed) + since)
}

static PLUGIN: OnceLock<Plugin> = OnceLock::new();

/// The engine's L1 MRU table ([`Engine::share_l1_mru`]): private accesses
/// found there skip the engine ([`fast_hit`]). A `static`, so that the
/// fast path reaches an entry without following a pointer.
static L1_MRU: MruLines = MruLines::new(Config::SCC.l1);

/// Virtual pages known to hold private memory ([`PrivatePages`]).
/// Forgotten whenever the guest could change its mappings (CR0 and CR3
/// writes, `invlpg`), as a TLB is. Only the one vCPU thread uses it.
static PRIVATE_PAGES: PrivatePages = PrivatePages::new();

/// Forgets every private page's translation, and with them the virtual
/// lines.
fn forget_private_pages() {
    PRIVATE_PAGES.forget();
    VIRTUAL_LINES.forget();
}

/// The physical line of each virtual line of a fast private page that
/// the fast path ([`fast_hit`]) looks for, one per set of L1
/// ([`VirtualLines`]). Set whenever a private access to a fast page was
/// handled while [`FAST_ON`]; forgotten with [`PRIVATE_PAGES`], and when
/// [`FAST_ON`] goes off. Whether the line is L1's most recently used one
/// the fast path asks [`L1_MRU`]. Only the one vCPU thread uses it.
static VIRTUAL_LINES: L1Lines = L1Lines::new();

/// [`VirtualLines`] with one slot per set of the model's L1.
type L1Lines = VirtualLines<{ Config::SCC.l1.sets() }>;

/// Whether private memory is modelled yet: from the booted image's entry
/// point on (from reset if the options name none). The firmware before it
/// runs a number of instructions that depends on host timing (it waits on
/// timers): had its private accesses filled the caches, the image would
/// start from caches that differ run to run. On the SCC there is no such
/// firmware; the image starts with empty caches.
static PRIVATE_MODELLED: AtomicBool = AtomicBool::new(false);

/// Whether the fast path ([`fast_hit`]) may count private accesses: once
/// they are modelled ([`PRIVATE_MODELLED`]) and while no CL1INVMB trap is
/// pending (whose handler's accesses are not the core's; [`private`] sorts
/// them out). Kept in one word so that the fast path reads one.
static FAST_ON: AtomicBool = AtomicBool::new(false);

/// Sets [`FAST_ON`] from what it depends on, after either changed.
fn update_fast_on() {
    let on = PRIVATE_MODELLED.load(Ordering::Relaxed) && !TRAP.pending();
    let was = FAST_ON.swap(on, Ordering::Relaxed);
    if was && !on {
        VIRTUAL_LINES.forget();
    }
}

/// Loads and stores of private memory that hit L1's MRU table since the
/// engine last counted them ([`Engine::count_l1_hits`]). Only the one vCPU
/// thread adds to them.
static FAST_LOADS: AtomicU64 = AtomicU64::new(0);
static FAST_STORES: AtomicU64 = AtomicU64::new(0);

/// Hands the fast-path hits counted so far to the engine.
fn count_fast_hits(engine: &mut Engine) {
    let loads = FAST_LOADS.swap(0, Ordering::Relaxed);
    let stores = FAST_STORES.swap(0, Ordering::Relaxed);
    if loads + stores > 0 {
        engine.count_l1_hits(loads, stores);
    }
}

/// Called by QEMU once, before the guest starts. Returns 0 to load, any
/// other value to refuse (QEMU then exits with an error).
///
/// # Safety
///
/// QEMU passes a valid `info` and `argc` valid NUL-terminated strings in
/// `argv`, all alive for the duration of the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn qemu_plugin_install(
    id: qemu_plugin_id_t,
    info: *const qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    // SAFETY: QEMU passes a valid `info` and `argc` strings in `argv`,
    // alive for the duration of this call.
    let outcome = panic::catch_unwind(|| unsafe { install(info, argc, argv) });
    let refusal = match outcome {
        Ok(Ok(plugin)) => {
            if PLUGIN.set(plugin).is_err() {
                "the plugin was loaded twice".to_owned()
            } else {
                // SAFETY: `id` is ours; the callbacks are `extern "C"`
                // functions that never unwind.
                unsafe {
                    qemu_plugin_register_vcpu_init_cb(id, Some(vcpu_init));
                    qemu_plugin_register_vcpu_tb_trans_cb(id, Some(translate));
                    qemu_plugin_register_vcpu_idle_cb(id, Some(vcpu_idle));
                    qemu_plugin_register_vcpu_resume_cb(id, Some(vcpu_resume));
                    qemu_plugin_register_atexit_cb(id, Some(at_exit), std::ptr::null_mut());
                }
                return 0;
            }
        }
        Ok(Err(reason)) => reason,
        Err(_) => "internal error while loading the plugin".to_owned(),
    };
    // Not eprintln!: it panics when stderr is gone, and this frame must not.
    let _ = writeln!(io::stderr(), "emu: {refusal}");
    -1
}

/// Reads what QEMU passed, checks it and builds the engine.
///
/// # Safety
///
/// `info` is null or valid, and `argv` holds `argc` valid NUL-terminated
/// strings (or is null), all alive for the duration of the call.
unsafe fn install(
    info: *const qemu_info_t,
    argc: c_int,
    argv: *const *mut c_char,
) -> Result<Plugin, String> {
    // SAFETY: the caller guarantees `info` is null or valid.
    let info = unsafe { info.as_ref() };
    if !info.is_some_and(|info| info.system_emulation) {
        return Err("the SCC model needs system emulation (qemu-system-i386)".to_owned());
    }
    let count = usize::try_from(argc).unwrap_or(0);
    let raw: &[*mut c_char] = if argv.is_null() || count == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `argc` valid pointers in `argv`.
        unsafe { std::slice::from_raw_parts(argv, count) }
    };
    let args = raw.iter().map(|&arg| {
        // SAFETY: the caller guarantees each is a valid NUL-terminated string.
        let arg = unsafe { CStr::from_ptr(arg) };
        arg.to_string_lossy()
    });
    let PluginSetup { options, memory } = PluginSetup::parse(args).map_err(|e| e.to_string())?;
    let model = options.model();
    let mut engine = Engine::with_model(&memory, options.core(), options.cores(), model)
        .map_err(|e| e.to_string())?;
    engine.share_l1_mru(&L1_MRU);
    if options.entry().is_some() {
        engine.hold_time();
    } else {
        PRIVATE_MODELLED.store(true, Ordering::Relaxed);
        update_fast_on();
    }
    // SAFETY: a new scoreboard of two u64 per vCPU, owned by QEMU.
    let score = unsafe { qemu_plugin_scoreboard_new(2 * std::mem::size_of::<u64>()) };
    let insns = Budget(qemu_plugin_u64 { score, offset: 0 });
    let budget = Budget(qemu_plugin_u64 {
        score,
        offset: std::mem::size_of::<u64>(),
    });
    let interval = model
        .time
        .quantum()
        .map(|quantum| (quantum.get() / 2).max(MIN_SYNC_CYCLES));
    Ok(Plugin {
        engine: spin::Mutex::new(engine),
        low: Engine::shared_low(options.chip()),
        high: Engine::shared_high(options.chip()),
        gprs: OnceLock::new(),
        insns,
        budget,
        interval,
        entry: options.entry().map(u64::from),
    })
}

/// Runs `f` on the engine; on a model error or a panic, ends QEMU with the
/// reason (after writing the report).
fn with_engine(f: impl FnOnce(&mut Engine) -> emu::Result<()>) {
    let Some(plugin) = PLUGIN.get() else { return };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut engine = plugin.engine.lock();
        f(&mut engine).map_err(|e| e.to_string())
    }));
    let reason = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(reason)) => reason,
        Err(_) => "internal error in the chip model".to_owned(),
    };
    write_report(plugin);
    let _ = writeln!(io::stderr(), "emu: {reason}");
    std::process::exit(emu::launch::MODEL_STOP_STATUS);
}

/// Fewest issue cycles between two sync points, whatever the quantum: a
/// callback per few hundred instructions is the most worth paying.
const MIN_SYNC_CYCLES: u64 = 256;

fn write_report(plugin: &Plugin) {
    // The machine has one vCPU, number 0.
    let (insns, cycles) = executed(plugin, 0);
    // At exit from another thread the vCPU may still be in a callback
    // (one waiting for other cores can take long): wait without spinning.
    let mut engine = loop {
        match plugin.engine.try_lock() {
            Some(engine) => break engine,
            None => std::thread::sleep(std::time::Duration::from_millis(1)),
        }
    };
    engine.set_insns(insns, cycles);
    count_fast_hits(&mut engine);
    engine.finished();
    if let Err(e) = engine.report().write(engine.dir()) {
        let _ = writeln!(io::stderr(), "emu: writing the report: {e}");
    }
    if let Err(e) = engine.write_trace() {
        let _ = writeln!(io::stderr(), "emu: writing the trace: {e}");
    }
}

/// The vCPU halts: with timing on, it stops holding the others back.
unsafe extern "C" fn vcpu_idle(_id: qemu_plugin_id_t, vcpu: c_uint) {
    let Some(plugin) = PLUGIN.get() else { return };
    if plugin.interval.is_none() {
        return;
    }
    let (insns, cycles) = executed(plugin, vcpu);
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        engine.halted();
        Ok(())
    });
}

/// The vCPU resumes: its clock catches up with the others'.
unsafe extern "C" fn vcpu_resume(_id: qemu_plugin_id_t, _vcpu: c_uint) {
    let Some(plugin) = PLUGIN.get() else { return };
    if plugin.interval.is_none() {
        return;
    }
    with_engine(|engine| {
        engine.resumed();
        Ok(())
    });
}

/// A sync point, every sync interval of issue cycles (timing on), in the
/// block whose address is the user data.
unsafe extern "C" fn on_sync(vcpu: c_uint, data: *mut c_void) {
    let Some(plugin) = PLUGIN.get() else { return };
    let budget = plugin.budget;
    // SAFETY: a valid entry of a live scoreboard; `vcpu` is the calling vCPU.
    let since = unsafe { qemu_plugin_u64_get(budget.0, vcpu) };
    // SAFETY: as above.
    unsafe { qemu_plugin_u64_set(budget.0, vcpu, 0) };
    CYCLES_BEFORE.fetch_add(since, Ordering::Relaxed);
    let (insns, cycles) = executed(plugin, vcpu);
    if TRAP.in_handler(insns) {
        // The handler's instructions are taken off the clock when it
        // returns: a clock published now would run ahead of the core's,
        // and another core could go past a time this core still acts at.
        return;
    }
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        count_fast_hits(engine);
        engine.sync_point(data as usize as u32);
        Ok(())
    });
}

unsafe extern "C" fn at_exit(_id: qemu_plugin_id_t, _data: *mut c_void) {
    let _ = panic::catch_unwind(|| {
        if let Some(plugin) = PLUGIN.get() {
            write_report(plugin);
        }
    });
}

/// Finds the handles of the general-purpose registers, readable only in
/// vCPU context.
unsafe extern "C" fn vcpu_init(_id: qemu_plugin_id_t, _vcpu: c_uint) {
    let _ = panic::catch_unwind(|| {
        let Some(plugin) = PLUGIN.get() else { return };
        // SAFETY: called in vCPU context, as the API requires; QEMU returns
        // a GArray of descriptors that we own and free below.
        let array = unsafe { qemu_plugin_get_registers() };
        if array.is_null() {
            return;
        }
        // SAFETY: a valid GArray of `len` descriptors (checked non-null).
        let descriptors = unsafe {
            std::slice::from_raw_parts(
                (*array).data.cast::<qemu_plugin_reg_descriptor>(),
                (*array).len as usize,
            )
        };
        let names = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"];
        let mut handles = [0usize; 8];
        for d in descriptors {
            // SAFETY: QEMU gives each descriptor a NUL-terminated name.
            let name = unsafe { CStr::from_ptr(d.name) }.to_string_lossy();
            if let Some(i) = names.iter().position(|n| *n == name) {
                handles[i] = d.handle as usize;
            }
        }
        // SAFETY: frees the array QEMU handed us, with its elements.
        unsafe { g_array_free(array, 1) };
        if handles.iter().all(|&h| h != 0) {
            let _ = plugin.gprs.set(handles);
        }
    });
}

/// What an instruction does that the model must hear of before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Special {
    Cl1invmb,
    Wbinvd,
    Invd,
    Invlpg,
    /// `mov crN, reg`: control register, source register number.
    MovToCr(u8, u8),
}

/// Decodes the instructions the model cares about from their bytes.
fn special(bytes: &[u8]) -> Option<Special> {
    const PREFIXES: [u8; 11] = [
        0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0, 0xF2, 0xF3,
    ];
    let start = bytes.iter().position(|b| !PREFIXES.contains(b))?;
    match bytes.get(start..)? {
        [0x0F, 0x0A, ..] => Some(Special::Cl1invmb),
        [0x0F, 0x09, ..] => Some(Special::Wbinvd),
        [0x0F, 0x08, ..] => Some(Special::Invd),
        [0x0F, 0x01, modrm, ..] if (modrm >> 3) & 7 == 7 && modrm >> 6 != 3 => {
            Some(Special::Invlpg)
        }
        [0x0F, 0x22, modrm, ..] => Some(Special::MovToCr((modrm >> 3) & 7, modrm & 7)),
        _ => None,
    }
}

unsafe extern "C" fn translate(_id: qemu_plugin_id_t, tb: *mut qemu_plugin_tb) {
    let _ = panic::catch_unwind(|| {
        // SAFETY: QEMU passes a valid block for the duration of the call.
        let n = unsafe { qemu_plugin_tb_n_insns(tb) };
        // SAFETY: `tb` is being translated.
        let start = unsafe { qemu_plugin_tb_vaddr(tb) };
        if TRAP.is_resume_site(start) {
            // Registered before the block's instruction count is added, so
            // the callback sees the count up to the trap handler's end.
            // SAFETY: `tb` is being translated; `on_trap_return` never
            // unwinds, and its user data is the block's address.
            unsafe {
                qemu_plugin_register_vcpu_tb_exec_cb(
                    tb,
                    Some(on_trap_return),
                    qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                    start as usize as *mut c_void,
                );
            }
        }
        if PLUGIN.get().and_then(|p| p.entry) == Some(start) {
            // Registered before the block's counts are added, so the
            // callback sees the counts of the firmware's instructions.
            // SAFETY: `tb` is being translated; `on_entry` never unwinds.
            unsafe {
                qemu_plugin_register_vcpu_tb_exec_cb(
                    tb,
                    Some(on_entry),
                    qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                    std::ptr::null_mut(),
                );
            }
        }
        let insns: Vec<_> = (0..n)
            .map(|i| {
                // SAFETY: `i` is below the block's instruction count.
                let insn = unsafe { qemu_plugin_tb_get_insn(tb, i) };
                let mut bytes = [0u8; 16];
                // SAFETY: `insn` is valid during translation; QEMU writes
                // at most `bytes.len()` bytes.
                let len =
                    unsafe { qemu_plugin_insn_data(insn, bytes.as_mut_ptr().cast(), bytes.len()) };
                (insn, bytes, len.min(bytes.len()))
            })
            .collect();
        let (cost, issued) =
            p54c::block_schedule(insns.iter().map(|(_, bytes, len)| &bytes[..*len]));
        // What each instruction's clock read takes off the block's cycles,
        // which the block adds when it starts: those of the instructions
        // issued after it. None in a block with a REP string instruction,
        // whose iterations are counted as they run.
        let rest = |i: usize| {
            if cost.rep_iteration > 0 {
                0
            } else {
                u16::try_from(cost.cycles - issued[i]).unwrap_or(u16::MAX)
            }
        };
        if let Some(plugin) = PLUGIN.get() {
            // A REP string instruction's iterations are charged per access
            // (`rep_memory`), none here: QEMU runs as many in one
            // execution of the block as the count says, zero included.
            let cycles = cost.cycles.saturating_sub(cost.rep_iteration);
            // SAFETY: `tb` is being translated; the entries are a live
            // scoreboard's.
            unsafe {
                qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
                    tb,
                    qemu_plugin_op::QEMU_PLUGIN_INLINE_ADD_U64,
                    plugin.insns.0,
                    n as u64,
                );
                qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
                    tb,
                    qemu_plugin_op::QEMU_PLUGIN_INLINE_ADD_U64,
                    plugin.budget.0,
                    u64::from(cycles),
                );
            }
        }
        if let Some((budget, interval)) =
            PLUGIN.get().and_then(|p| p.interval.map(|i| (p.budget, i)))
        {
            let pc = start;
            // SAFETY: `tb` is being translated; the entry is a live
            // scoreboard's; `on_sync` never unwinds, and its user data is
            // the block's address, not a pointer.
            unsafe {
                qemu_plugin_register_vcpu_tb_exec_cond_cb(
                    tb,
                    Some(on_sync),
                    qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                    qemu_plugin_cond::QEMU_PLUGIN_COND_GE,
                    budget.0,
                    interval,
                    pc as usize as *mut c_void,
                );
            }
        }
        for (i, (insn, bytes, len)) in insns.iter().enumerate() {
            // SAFETY: `insn` is an instruction of the block being
            // translated.
            unsafe { instrument(*insn, &bytes[..*len], rest(i)) };
        }
    });
}

/// Registers the callbacks of one instruction, whose bytes are `bytes`,
/// and after which its block issues `rest` more cycles.
///
/// # Safety
///
/// `insn` is an instruction of the block being translated.
unsafe fn instrument(insn: *mut qemu_plugin_insn, bytes: &[u8], rest: u16) {
    // SAFETY: valid during translation (caller).
    let vaddr = unsafe { qemu_plugin_insn_vaddr(insn) };
    let (callbacks, data): ([MemCallback; 2], usize) = match RepAccess::of(bytes) {
        Some(rep) => ([on_rep_load, on_rep_store], rep.pack(vaddr as u32)),
        None => (
            [on_load, on_store],
            Site::pack(vaddr as u32, rest, p54c::access_bytes(bytes)),
        ),
    };
    for (callback, rw) in callbacks.into_iter().zip([
        qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_R,
        qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_W,
    ]) {
        // SAFETY: as above; the callback never unwinds, and its user data
        // is a plain number (the instruction address, and for a REP string
        // instruction its cycles per access), not a pointer.
        unsafe {
            qemu_plugin_register_vcpu_mem_cb(
                insn,
                Some(callback),
                qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                rw,
                data as *mut c_void,
            );
        }
    }
    let Some(special) = special(bytes) else {
        return;
    };
    let (callback, flags, data): (unsafe extern "C" fn(c_uint, *mut c_void), _, usize) =
        match special {
            Special::MovToCr(cr, gpr) => (
                on_mov_to_cr,
                qemu_plugin_cb_flags::QEMU_PLUGIN_CB_R_REGS,
                usize::from(cr) << 8 | usize::from(gpr),
            ),
            Special::Cl1invmb => {
                // SAFETY: valid during translation (caller).
                let resume = vaddr + unsafe { qemu_plugin_insn_size(insn) } as u64;
                TRAP.add_resume_site(resume);
                (
                    on_cl1invmb,
                    qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                    resume as usize,
                )
            }
            other => (
                on_cache_instruction,
                qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
                other.tag(),
            ),
        };
    // SAFETY: as for the memory callback; the user data is a plain number.
    unsafe {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, Some(callback), flags, data as *mut c_void)
    };
}

/// Numbers for the cache instructions in callback user data.
impl Special {
    fn from_tag(tag: usize) -> Option<Special> {
        [
            Special::Cl1invmb,
            Special::Wbinvd,
            Special::Invd,
            Special::Invlpg,
        ]
        .into_iter()
        .find(|s| s.tag() == tag)
    }

    fn tag(self) -> usize {
        match self {
            Special::Cl1invmb => 1,
            Special::Wbinvd => 2,
            Special::Invd => 3,
            Special::Invlpg => 4,
            Special::MovToCr(..) => 5,
        }
    }
}

/// CL1INVMB, whose next instruction is at the address in the user data:
/// the model invalidates, and the trap QEMU then raises (it does not know
/// the instruction) is timed from here until the guest's handler returns
/// there.
unsafe extern "C" fn on_cl1invmb(vcpu: c_uint, data: *mut c_void) {
    let (insns, cycles) = PLUGIN.get().map_or((0, 0), |p| executed(p, vcpu));
    TRAP.enter(data as usize as u64, insns, cycles);
    update_fast_on();
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        cache_instruction(engine, Special::Cl1invmb)
    });
}

/// The block at the booted image's entry point: modelled time starts, the
/// firmware's instructions before it taking none.
unsafe extern "C" fn on_entry(vcpu: c_uint, _data: *mut c_void) {
    let Some(plugin) = PLUGIN.get() else { return };
    let (insns, cycles) = executed(plugin, vcpu);
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        engine.start_time();
        Ok(())
    });
    PRIVATE_MODELLED.store(true, Ordering::Relaxed);
    update_fast_on();
}

/// A block that starts just after a CL1INVMB: if the guest returns there
/// from the trap, the handler's instructions took no time on silicon.
unsafe extern "C" fn on_trap_return(vcpu: c_uint, data: *mut c_void) {
    let Some(plugin) = PLUGIN.get() else { return };
    let (insns, cycles) = executed(plugin, vcpu);
    let left = TRAP.leave(data as usize as u64, insns, cycles);
    update_fast_on();
    if let Some(handler) = left {
        with_engine(|engine| {
            engine.set_insns(insns, cycles);
            engine.untimed(handler);
            Ok(())
        });
    }
}

/// The trap QEMU raises on CL1INVMB, which silicon executes in place: the
/// instructions of the guest's handler, from the CL1INVMB until the guest
/// is back at the next instruction, take no modelled time (their issue
/// cycles are taken off). Only the one vCPU thread uses it.
struct Trap {
    /// Addresses just after a CL1INVMB translated so far.
    resume_sites: Mutex<std::collections::BTreeSet<u64>>,
    /// Where the pending trap returns to (`NONE`: none pending).
    resume: AtomicU64,
    /// Instructions counted when it was raised.
    from: AtomicU64,
    /// Issue cycles counted when it was raised.
    from_cycles: AtomicU64,
}

const NONE: u64 = u64::MAX;

/// Most instructions a trap handler for CL1INVMB takes (the kernel's takes
/// 31); more, and the return was not seen where it happened.
const MAX_TRAP_INSNS: u64 = 1000;

static TRAP: Trap = Trap {
    resume_sites: Mutex::new(std::collections::BTreeSet::new()),
    resume: AtomicU64::new(NONE),
    from: AtomicU64::new(0),
    from_cycles: AtomicU64::new(0),
};

impl Trap {
    fn add_resume_site(&self, at: u64) {
        self.sites().insert(at);
    }

    fn is_resume_site(&self, at: u64) -> bool {
        self.sites().contains(&at)
    }

    fn sites(&self) -> std::sync::MutexGuard<'_, std::collections::BTreeSet<u64>> {
        self.resume_sites.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn enter(&self, resume: u64, insns: u64, cycles: u64) {
        self.from.store(insns, Ordering::Relaxed);
        self.from_cycles.store(cycles, Ordering::Relaxed);
        self.resume.store(resume, Ordering::Relaxed);
    }

    /// Whether a trap is pending (cheap; [`Trap::in_handler`] says more).
    fn pending(&self) -> bool {
        self.resume.load(Ordering::Relaxed) != NONE
    }

    /// Whether, with `insns` counted, the guest is in the handler of a
    /// pending trap (at most [`MAX_TRAP_INSNS`] after it was raised).
    fn in_handler(&self, insns: u64) -> bool {
        self.resume.load(Ordering::Relaxed) != NONE
            && insns.saturating_sub(self.from.load(Ordering::Relaxed)) <= MAX_TRAP_INSNS
    }

    /// Back at `at` with `insns` counted, issued in `cycles`: the issue
    /// cycles of the handler, if a trap was pending there. More than
    /// [`MAX_TRAP_INSNS`] instructions are not a handler's (the return was
    /// missed, and this is a later pass over the same address): they are
    /// dropped, and the trap's cost stays charged.
    fn leave(&self, at: u64, insns: u64, cycles: u64) -> Option<u64> {
        if self.resume.load(Ordering::Relaxed) != at {
            return None;
        }
        self.resume.store(NONE, Ordering::Relaxed);
        let handler = insns.saturating_sub(self.from.load(Ordering::Relaxed));
        (handler <= MAX_TRAP_INSNS)
            .then(|| cycles.saturating_sub(self.from_cycles.load(Ordering::Relaxed)))
    }
}

unsafe extern "C" fn on_cache_instruction(vcpu: c_uint, data: *mut c_void) {
    let Some(special) = Special::from_tag(data as usize) else {
        return;
    };
    if special == Special::Invlpg {
        forget_private_pages();
    }
    let (insns, cycles) = PLUGIN.get().map_or((0, 0), |p| executed(p, vcpu));
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        cache_instruction(engine, special)
    });
}

fn cache_instruction(engine: &mut Engine, special: Special) -> emu::Result<()> {
    match special {
        Special::Cl1invmb => engine.cl1invmb(),
        Special::Wbinvd => engine.wbinvd(),
        Special::Invd => engine.invd(),
        Special::Invlpg => {
            engine.invlpg();
            Ok(())
        }
        Special::MovToCr(..) => Ok(()),
    }
}

unsafe extern "C" fn on_mov_to_cr(_vcpu: c_uint, data: *mut c_void) {
    forget_private_pages();
    let data = data as usize;
    let (cr, gpr) = ((data >> 8) as u8, data & 7);
    let Some(value) = PLUGIN
        .get()
        .and_then(|p| p.gprs.get())
        .and_then(|gprs| read_register(gprs[gpr]))
    else {
        return;
    };
    with_engine(|engine| {
        engine.write_cr(cr, value);
        Ok(())
    });
}

/// The low 32 bits of a register, read in a callback registered with
/// register access.
fn read_register(handle: usize) -> Option<u32> {
    // SAFETY: glib allocates an empty byte array, freed below.
    let buf = unsafe { g_byte_array_new() };
    // SAFETY: `handle` came from qemu_plugin_get_registers; we are in a
    // callback registered with QEMU_PLUGIN_CB_R_REGS.
    let n = unsafe { qemu_plugin_read_register(handle as *mut qemu_plugin_register, buf) };
    let value = if n >= 4 {
        let mut word = [0u8; 4];
        // SAFETY: the array holds `n` >= 4 bytes.
        unsafe { std::ptr::copy_nonoverlapping((*buf).data, word.as_mut_ptr(), 4) };
        Some(u32::from_le_bytes(word))
    } else {
        None
    };
    // SAFETY: frees the array allocated above, with its data.
    unsafe { g_byte_array_free(buf, 1) };
    value
}

/// A memory callback as QEMU calls it.
type MemCallback = unsafe extern "C" fn(c_uint, qemu_plugin_meminfo_t, u64, *mut c_void);

/// What a REP string instruction's accesses add to the issue cycles: QEMU
/// may run many of its iterations in one execution of its block, so each
/// iteration's cycles ([`p54c::BlockCost::rep_iteration`]) are added in its
/// memory callback, on the accesses one of each iteration makes. The count
/// so depends only on the guest's accesses, never on how many executions
/// of the block QEMU split the iterations into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RepAccess {
    /// Cycles added per counted access.
    cycles: u16,
    /// Whether loads count (else stores do).
    loads: bool,
}

impl RepAccess {
    /// The REP string instruction `bytes` is, if it is one the model
    /// charges per iteration: MOVS and STOS count their stores, LODS and
    /// SCAS their loads, CMPS its two loads (half an iteration each,
    /// rounded up).
    fn of(bytes: &[u8]) -> Option<Self> {
        const PREFIXES: [u8; 11] = [
            0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0, 0xF2, 0xF3,
        ];
        let start = bytes.iter().position(|b| !PREFIXES.contains(b))?;
        let (loads, per_iteration) = match bytes[start] {
            0xA4 | 0xA5 | 0xAA | 0xAB => (false, 1),
            0xAC..=0xAF => (true, 1),
            0xA6 | 0xA7 => (true, 2),
            _ => return None,
        };
        let iteration = p54c::block_cost([bytes]).rep_iteration;
        (iteration > 0).then(|| Self {
            cycles: u16::try_from(iteration.div_ceil(per_iteration)).unwrap_or(u16::MAX),
            loads,
        })
    }

    /// The callback's user data: the instruction's address in the low 32
    /// bits, then the cycles, then whether loads count.
    fn pack(self, vaddr: u32) -> usize {
        (u64::from(vaddr) | u64::from(self.cycles) << 32 | u64::from(self.loads) << 48) as usize
    }

    /// The instruction address and what an access adds, from user data.
    fn unpack(data: usize) -> (u32, Self) {
        let data = data as u64;
        (
            data as u32,
            Self {
                cycles: (data >> 32) as u16,
                loads: data >> 48 & 1 != 0,
            },
        )
    }
}

/// Where a memory access is, as a plain instruction's callback gets it in
/// its user data: the instruction's address in the low 32 bits, the issue
/// cycles of the instructions after it in its block above (the block adds
/// all its cycles when it starts; a clock read by the instruction must not
/// see those), and above them, from the size of its largest access if
/// known at translation ([`p54c::access_bytes`]), the offsets in a line at
/// which an access surely stays in it ([`Site::ends_in_line_below`]) and
/// whether the size was known.
struct Site;

impl Site {
    const LIMIT_SHIFT: u32 = 48;
    const KNOWN: u64 = 1 << 56;

    fn pack(vaddr: u32, rest: u16, bytes: Option<u8>) -> usize {
        let (limit, known) = match bytes {
            Some(bytes) => (in_line_below(u32::from(bytes)), Self::KNOWN),
            // At most 16 bytes: if it starts in the first half of a line.
            None => (CACHE_LINE / 2 + 1, 0),
        };
        (u64::from(vaddr) | u64::from(rest) << 32 | u64::from(limit) << Self::LIMIT_SHIFT | known)
            as usize
    }

    /// The instruction's address and the cycles after it.
    fn unpack(data: usize) -> (u32, u16) {
        let data = data as u64;
        (data as u32, (data >> 32) as u16)
    }

    /// An access of the instruction that starts at an offset in its line
    /// below this stays in the line.
    fn ends_in_line_below(data: usize) -> u32 {
        (data as u64 >> Self::LIMIT_SHIFT) as u32 & 0xff
    }

    /// Whether the size of the instruction's accesses was known at
    /// translation (else [`not_fast`] asks QEMU).
    fn size_known(data: usize) -> bool {
        data as u64 & Self::KNOWN != 0
    }
}

/// An access of `bytes` that starts at an offset in its line below this
/// stays in the line (0: none does).
fn in_line_below(bytes: u32) -> u32 {
    (CACHE_LINE + 1).saturating_sub(bytes)
}

/// A load of a REP string instruction: adds its share of the iteration's
/// issue cycles ([`RepAccess`]) if loads count, then is a load like any.
unsafe extern "C" fn on_rep_load(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: *mut c_void,
) {
    // SAFETY: as QEMU called this callback.
    unsafe { rep_memory(vcpu, info, vaddr, data as usize, false) }
}

/// A store of a REP string instruction: as [`on_rep_load`].
unsafe extern "C" fn on_rep_store(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: *mut c_void,
) {
    // SAFETY: as QEMU called this callback.
    unsafe { rep_memory(vcpu, info, vaddr, data as usize, true) }
}

/// # Safety
///
/// As a memory callback's arguments, `data` its user data.
unsafe fn rep_memory(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: usize,
    store: bool,
) {
    let (insn, rep) = RepAccess::unpack(data);
    if store != rep.loads
        && let Some(plugin) = PLUGIN.get()
    {
        // SAFETY: a valid entry of a live scoreboard; `vcpu` is the
        // calling vCPU.
        unsafe { qemu_plugin_u64_add(plugin.budget.0, vcpu, u64::from(rep.cycles)) };
    }
    // SAFETY: as the caller's.
    unsafe {
        memory(
            vcpu,
            info,
            vaddr,
            insn,
            0,
            store,
            PRIVATE_PAGES.known(vaddr),
        )
    };
}

unsafe extern "C" fn on_load(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: *mut c_void,
) {
    if fast_hit(vaddr, Site::ends_in_line_below(data as usize), false) {
        return;
    }
    // SAFETY: as QEMU called this callback.
    unsafe { not_fast(vcpu, info, vaddr, data as usize, false) }
}

unsafe extern "C" fn on_store(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: *mut c_void,
) {
    if fast_hit(vaddr, Site::ends_in_line_below(data as usize), true) {
        return;
    }
    // SAFETY: as QEMU called this callback.
    unsafe { not_fast(vcpu, info, vaddr, data as usize, true) }
}

/// The fast path, for most private accesses: whether this load (or with
/// `store`, store) is to a line [`VIRTUAL_LINES`] knows, starts in it at
/// an offset below `limit` (so stays in it, [`Site::ends_in_line_below`]),
/// and is to L1's most recently used line of its set
/// ([`MruLines::hit_in_set`]).
/// If so it is counted as an L1 hit and the callback is done, without a
/// lock, the engine or QEMU.
///
/// It calls nothing, so that the callbacks around it save no registers
/// when it answers.
#[inline(always)]
fn fast_hit(vaddr: u64, limit: u32, store: bool) -> bool {
    let vaddr = vaddr as u32;
    let Some(pline) = VIRTUAL_LINES.known(vaddr) else {
        return false;
    };
    if vaddr % CACHE_LINE >= limit {
        return false;
    }
    count_hit(L1_MRU.hit_in_set(L1Lines::set(vaddr), pline, store), store)
}

/// Counts a fast hit ([`FAST_LOADS`], [`FAST_STORES`]) if `hit`; returns
/// `hit`.
#[inline(always)]
fn count_hit(hit: bool, store: bool) -> bool {
    if hit {
        let hits = if store { &FAST_STORES } else { &FAST_LOADS };
        hits.store(hits.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
    hit
}

/// The fast path's second chance, for an access whose line
/// [`VIRTUAL_LINES`] does not know: as [`fast_hit`], with the page's
/// translation `known` ([`PrivatePages::known`]: a fast private page,
/// [`PrivatePage::fast`], while [`FAST_ON`]). The line is then remembered.
#[inline(always)]
fn page_hit(vaddr: u64, known: u32, limit: u32, store: bool) -> bool {
    if !PageFlags::of(known).fast() || !FAST_ON.load(Ordering::Relaxed) {
        return false;
    }
    let paddr = known & !PAGE_OFFSET | vaddr as u32 & PAGE_OFFSET;
    if paddr % CACHE_LINE < limit && count_hit(L1_MRU.hit(paddr, store), store) {
        VIRTUAL_LINES.remember(vaddr as u32, paddr);
        return true;
    }
    false
}

/// A load (or with `store`, store) that [`fast_hit`] did not take, with
/// its callback's user data `data` ([`Site`]): [`page_hit`] (with the size
/// QEMU gives if translation did not know it), else [`memory`].
///
/// # Safety
///
/// As a memory callback's arguments, during it.
#[inline(never)]
unsafe fn not_fast(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    data: usize,
    store: bool,
) {
    let limit = if Site::size_known(data) {
        Site::ends_in_line_below(data)
    } else {
        // SAFETY: `info` is valid during the callback (caller).
        in_line_below(1u32 << unsafe { qemu_plugin_mem_size_shift(info) })
    };
    let known = PRIVATE_PAGES.known(vaddr);
    if let Some(known) = known
        && page_hit(vaddr, known, limit, store)
    {
        return;
    }
    let (insn, rest) = Site::unpack(data);
    // SAFETY: as the caller's.
    unsafe { memory(vcpu, info, vaddr, insn, rest, store, known) }
}

/// One load or store of the instruction at `insn`, already done by QEMU,
/// after which its block issues `rest` more cycles ([`Site`]), that the
/// fast path did not take; `known` is what [`PRIVATE_PAGES`] says of its
/// page.
///
/// # Safety
///
/// `info` and `vaddr` are a memory callback's, during it.
#[inline(never)]
unsafe fn memory(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    insn: u32,
    rest: u16,
    store: bool,
    known: Option<u32>,
) {
    if let Some(known) = known {
        // SAFETY: as the caller's.
        unsafe { private(vcpu, info, vaddr, insn, store, known) };
        return;
    }
    let Some(plugin) = PLUGIN.get() else { return };
    // SAFETY: `info` is valid during the callback.
    let hw = unsafe { qemu_plugin_get_hwaddr(info, vaddr) };
    if hw.is_null() {
        return;
    }
    // SAFETY: `hw` is valid during the callback (checked non-null).
    let paddr = unsafe { qemu_plugin_hwaddr_phys_addr(hw) };
    if paddr < u64::from(plugin.low) || paddr >= u64::from(plugin.high) {
        let frame = paddr as u32 & !PAGE_OFFSET;
        let mut kind = PrivatePage::Unmodelled;
        // SAFETY: `hw` is valid during the callback (checked non-null).
        if !unsafe { qemu_plugin_hwaddr_is_io(hw) } {
            with_engine(|engine| {
                kind = engine.private_page(vaddr as u32, frame)?;
                Ok(())
            });
        }
        let known = PRIVATE_PAGES.remember(vaddr, frame, kind);
        // SAFETY: as the caller's.
        unsafe { private(vcpu, info, vaddr, insn, store, known) };
        return;
    }
    // SAFETY: `info` is valid during the callback.
    let (shift, value) = unsafe {
        (
            qemu_plugin_mem_size_shift(info),
            qemu_plugin_mem_get_value(info),
        )
    };
    // SAFETY: the union member read is the one `type_` names.
    let value = unsafe {
        match value.type_ {
            qemu_plugin_mem_value_type::QEMU_PLUGIN_MEM_VALUE_U8 => u64::from(value.data.u8_),
            qemu_plugin_mem_value_type::QEMU_PLUGIN_MEM_VALUE_U16 => u64::from(value.data.u16_),
            qemu_plugin_mem_value_type::QEMU_PLUGIN_MEM_VALUE_U32 => u64::from(value.data.u32_),
            qemu_plugin_mem_value_type::QEMU_PLUGIN_MEM_VALUE_U64 => value.data.u64_,
            qemu_plugin_mem_value_type::QEMU_PLUGIN_MEM_VALUE_U128 => value.data.u128_.low,
        }
    };
    let access = GuestAccess {
        kind: if store { Kind::Store } else { Kind::Load },
        vaddr: vaddr as u32,
        paddr: paddr as u32,
        len: (1u32 << shift).min(8),
        value,
        insn,
        rest: u32::from(rest),
    };
    let (insns, cycles) = executed(plugin, vcpu);
    with_engine(|engine| {
        engine.set_insns(insns, cycles);
        // Counted before, so that a report the access makes (the exit
        // call's) has them.
        count_fast_hits(engine);
        engine.access(access)?;
        if store {
            engine.after_store(access.paddr)?;
        }
        Ok(())
    });
}

/// An access to a private page whose slot in [`PRIVATE_PAGES`] says
/// `known` (its low half), which the fast path did not take: the engine's
/// model does (an access the MRU table would find gives the same there).
///
/// # Safety
///
/// As [`memory`]'s.
#[inline(always)]
unsafe fn private(
    vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    insn: u32,
    store: bool,
    known: u32,
) {
    let flags = PageFlags::of(known);
    if !flags.modelled() || !PRIVATE_MODELLED.load(Ordering::Relaxed) {
        return;
    }
    let Some(plugin) = PLUGIN.get() else { return };
    if TRAP.pending() && TRAP.in_handler(executed(plugin, vcpu).0) {
        // The CL1INVMB trap handler's stack and data: silicon runs no
        // handler, so they neither take time nor room in the caches.
        return;
    }
    let paddr = known & !PAGE_OFFSET | vaddr as u32 & PAGE_OFFSET;
    // SAFETY: `info` is valid during the callback.
    let len = 1u32 << unsafe { qemu_plugin_mem_size_shift(info) };
    let access = GuestAccess {
        kind: if store { Kind::Store } else { Kind::Load },
        vaddr: vaddr as u32,
        paddr,
        len: len.min(8),
        value: 0,
        insn,
        rest: 0,
    };
    with_engine(|engine| {
        engine.private_access(access, flags.page_type(), || executed(plugin, vcpu))
    });
    if flags.fast() && FAST_ON.load(Ordering::Relaxed) {
        VIRTUAL_LINES.remember(vaddr as u32, paddr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_the_model_hears_of_are_decoded() {
        assert_eq!(special(&[0x0F, 0x0A]), Some(Special::Cl1invmb));
        assert_eq!(special(&[0x0F, 0x09]), Some(Special::Wbinvd));
        assert_eq!(special(&[0x0F, 0x08]), Some(Special::Invd));
        // invlpg [eax]: 0F 01 /7 with a memory operand.
        assert_eq!(special(&[0x0F, 0x01, 0x38]), Some(Special::Invlpg));
        // 0F 01 F8 (mod 3) is not invlpg.
        assert_eq!(special(&[0x0F, 0x01, 0xF8]), None);
        // mov cr3, eax = 0F 22 D8; mov cr0, ecx = 0F 22 C1.
        assert_eq!(special(&[0x0F, 0x22, 0xD8]), Some(Special::MovToCr(3, 0)));
        assert_eq!(special(&[0x0F, 0x22, 0xC1]), Some(Special::MovToCr(0, 1)));
        // Prefixes are skipped; ordinary instructions are not special.
        assert_eq!(special(&[0x3E, 0x0F, 0x0A]), Some(Special::Cl1invmb));
        assert_eq!(special(&[0x89, 0x08]), None);
        assert_eq!(special(&[]), None);
        for s in [
            Special::Cl1invmb,
            Special::Wbinvd,
            Special::Invd,
            Special::Invlpg,
        ] {
            assert_eq!(Special::from_tag(s.tag()), Some(s));
        }
    }

    /// The only test that uses the fast path's statics.
    #[test]
    fn the_fast_path_finds_a_remembered_line_only_while_l1_used_it_last() {
        let dir = tempfile::tempdir().unwrap();
        let memory = emu::chipmem::ChipMemory::create(dir.path(), &chip::SCC, 1).unwrap();
        let mut engine = Engine::new(&memory, chip::SCC.core(0).unwrap(), 1, false).unwrap();
        engine.share_l1_mru(&L1_MRU);
        PRIVATE_MODELLED.store(true, Ordering::Relaxed);
        update_fast_on();
        // Paging off: private DRAM at its physical address, DCM.
        let line = 0x0010_0040;
        let PrivatePage::Modelled(page) = engine.private_page(line, line).unwrap() else {
            panic!("private DRAM is modelled");
        };
        let mut load = |paddr: u32| {
            let access = GuestAccess {
                kind: Kind::Load,
                vaddr: paddr,
                paddr,
                len: 4,
                value: 0,
                insn: 0,
                rest: 0,
            };
            engine.private_access(access, page, || (0, 0)).unwrap();
        };
        let four_bytes = in_line_below(4);
        load(line);
        assert!(
            !fast_hit(u64::from(line), four_bytes, false),
            "not remembered"
        );
        VIRTUAL_LINES.remember(line + 4, line + 4);
        assert!(fast_hit(u64::from(line + 8), four_bytes, false));
        assert!(fast_hit(u64::from(line + 28), four_bytes, true));
        // An access that would leave the line is not the fast path's.
        assert!(!fast_hit(u64::from(line + 29), four_bytes, false));
        // Another line of the same set of L1 (128 sets of 32 bytes) is
        // used last: the remembered one is not found, until used again.
        load(line + 4096);
        assert!(!fast_hit(u64::from(line), four_bytes, false));
        load(line);
        assert!(fast_hit(u64::from(line), four_bytes, false));
        // Forgotten with the pages' translations, and when the fast path
        // goes off (a CL1INVMB trap pending).
        forget_private_pages();
        assert!(!fast_hit(u64::from(line), four_bytes, false));
        VIRTUAL_LINES.remember(line, line);
        PRIVATE_MODELLED.store(false, Ordering::Relaxed);
        update_fast_on();
        assert!(!fast_hit(u64::from(line), four_bytes, false));
        // The hits found were counted.
        assert_eq!(FAST_LOADS.load(Ordering::Relaxed), 2);
        assert_eq!(FAST_STORES.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_site_says_where_in_a_line_its_accesses_stay_in_it() {
        let site = |bytes| Site::pack(0x0010_2345, 7, bytes);
        assert_eq!(Site::unpack(site(Some(4))), (0x0010_2345, 7));
        // 4 bytes from offset 28 end at the line's last byte; from 29 not.
        assert_eq!(Site::ends_in_line_below(site(Some(4))), 29);
        assert_eq!(Site::ends_in_line_below(site(Some(32))), 1);
        assert_eq!(Site::ends_in_line_below(site(Some(64))), 0);
        assert!(Site::size_known(site(Some(1))));
        // Of a size not known: up to 16 bytes, so from the first half.
        assert_eq!(Site::ends_in_line_below(site(None)), 17);
        assert!(!Site::size_known(site(None)));
        assert_eq!(in_line_below(8), 25);
    }

    #[test]
    fn rep_string_instructions_count_one_access_per_iteration() {
        // rep movsb: its store, 1 cycle (PSR 3 + n); rep stosd likewise.
        let movs = RepAccess::of(&[0xF3, 0xA4]).unwrap();
        assert_eq!((movs.cycles, movs.loads), (1, false));
        assert!(!RepAccess::of(&[0xF3, 0xAB]).unwrap().loads);
        // repe cmpsb: two loads per 4-cycle iteration; repne scasb: one.
        let cmps = RepAccess::of(&[0xF3, 0xA6]).unwrap();
        assert_eq!((cmps.cycles, cmps.loads), (2, true));
        let scas = RepAccess::of(&[0xF2, 0xAE]).unwrap();
        assert_eq!((scas.cycles, scas.loads), (4, true));
        // Without REP, or not a string instruction: charged with the block.
        assert_eq!(RepAccess::of(&[0xA4]), None);
        assert_eq!(RepAccess::of(&[0xF3, 0x90]), None); // pause
        assert_eq!(RepAccess::of(&[0xF2, 0x0F, 0x10, 0xC1]), None); // SSE2 movsd
        assert_eq!(RepAccess::of(&[]), None);
        // The user data carries the address and the charge.
        let data = movs.pack(0xFFFF_FFF0);
        assert_eq!(RepAccess::unpack(data), (0xFFFF_FFF0, movs));
        assert_eq!(RepAccess::unpack(cmps.pack(7)), (7, cmps));
    }
}
