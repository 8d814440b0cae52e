// SPDX-License-Identifier: MIT OR Apache-2.0
//! The C library's environment on the kernel: its five hooks
//! (`include/crt_hooks.h`) and the program that runs C's `main`.
//!
//! An image for a C program declares [`run_main`] as its program (with
//! `kernel::programs!`); the kernel calls it with the run's [`Platform`] and
//! the words the command line gave as `args=` ([`Arguments`]), which
//! become `main`'s `argc` and `argv`. Returning from `main` is calling
//! `exit` with its value, as C says: `exit` runs the `atexit` handlers,
//! writes out `stdout` and ends in [`__crt_exit`]. Status 0 ends the core's
//! run as a program that succeeded; any other status fails it, with the
//! status in the report.
//!
//! Output goes to the core's console (stdout and stderr alike: the host
//! prefixes each line with the core), memory comes from the kernel heap,
//! and the clock is the core's own modelled time.

use alloc::alloc::Layout;
use alloc::vec::Vec;
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use chip::settings::{Setting, SettingError, Settings, check, word_list, words};
use kernel::exit::exit as end_run;
use kernel::exit::{ExitCode, fail};
use kernel::{AppResult, Platform};

/// The platform of the program running, for the hooks and for libraries
/// that C calls into (MPI); set by [`run_main`] before `main` starts, from
/// a `&'static Platform`. (`Platform` is not `Sync`, so no safe static holds it;
/// one core runs one thread.)
static PLATFORM: AtomicPtr<Platform> = AtomicPtr::new(core::ptr::null_mut());

/// The core the C program runs on, once [`run_main`] started it.
fn try_platform() -> Option<&'static Platform> {
    // SAFETY: the pointer is null or came from the `&'static Platform` that
    // `run_main` was given, which is never written through.
    unsafe { PLATFORM.load(Ordering::Relaxed).as_ref() }
}

/// The core the C program runs on.
///
/// # Panics
/// Before [`run_main`] started the program: nothing of C runs then.
pub fn platform() -> &'static Platform {
    try_platform().expect("the C program's platform is set before its main runs")
}

/// The arguments of C's `main`: every word of `argv`, `argv[0]` (the
/// program's name) included, as `args=` gives them
/// ([`chip::settings::words`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arguments(pub Vec<Vec<u8>>);

impl Settings for Arguments {
    const LIST: &'static [Setting<'static>] = &[Setting::new(
        "args",
        "main's argv, its program name first (cargo xtask run --c writes the file's name and the words after --)",
        word_list(),
    )];

    fn parse<'a>(given: &[(&'a str, &'a str)]) -> Result<Self, SettingError<'a, 'static>> {
        check(Self::LIST, given)?;
        let text = given.first().map_or(words::NONE, |&(_, value)| value);
        let words = words::decode(text).ok_or(SettingError::BadValue {
            setting: Self::LIST[0],
            value: text,
        })?;
        Ok(Self(words))
    }
}

unsafe extern "C" {
    /// The C program's.
    fn main(argc: c_int, argv: *mut *mut c_char) -> c_int;
    /// The C library's: runs the `atexit` handlers, writes out stdout and
    /// ends in [`__crt_exit`].
    fn exit(status: c_int) -> !;
}

/// Runs C's `main` with `args` as `argc` and `argv`, then `exit` with what
/// it returns: the program of a C image. It returns only if `args` holds
/// more words than an `int` counts.
pub fn run_main(platform: &'static Platform, args: Arguments) -> AppResult {
    PLATFORM.store(core::ptr::from_ref(platform).cast_mut(), Ordering::Relaxed);
    let argc = c_int::try_from(args.0.len()).map_err(|_| "more arguments than an int counts")?;
    // Each word NUL-terminated, then the pointers to them and a null
    // pointer, as C's argv is laid out. They live until the core ends.
    let mut strings: Vec<Vec<u8>> = args.0;
    for word in &mut strings {
        word.push(0);
    }
    let mut argv: Vec<*mut c_char> = strings
        .iter_mut()
        .map(|w| w.as_mut_ptr().cast::<c_char>())
        .collect();
    argv.push(core::ptr::null_mut());
    // SAFETY: `main` is the C program's, called once, as C calls it: argv
    // holds argc NUL-terminated strings and a null pointer, which outlive
    // it (exit never returns, so they are never dropped).
    unsafe {
        let status = main(argc, argv.as_mut_ptr());
        exit(status)
    }
}

/// Whether the program's output so far ends inside a line.
static LINE_OPEN: AtomicBool = AtomicBool::new(false);

/// Ends the program's last line of output if it has not: the kernel's
/// report of how the core ended (`FAILED: ...`) then starts a line of its
/// own, where the run tool looks for it.
pub fn end_line() {
    if LINE_OPEN.swap(false, Ordering::Relaxed) {
        kernel::console::write_bytes(b"\n");
    }
}

/// Writes `len` bytes of `buf` to the console; `fd` (1 or 2) does not
/// matter there.
#[unsafe(no_mangle)]
extern "C" fn __crt_write(_fd: c_int, buf: *const c_char, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: the C library passes a buffer of `len` readable bytes.
    let bytes = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) };
    kernel::console::write_bytes(bytes);
    LINE_OPEN.store(bytes.last() != Some(&b'\n'), Ordering::Relaxed);
}

/// `size` bytes aligned to `align` from the kernel heap, or null.
#[unsafe(no_mangle)]
extern "C" fn __crt_alloc(size: usize, align: usize) -> *mut c_void {
    match Layout::from_size_align(size, align) {
        // SAFETY: the library never asks for zero bytes (crt_hooks.h).
        Ok(layout) if size > 0 => unsafe { alloc::alloc::alloc(layout) }.cast(),
        _ => core::ptr::null_mut(),
    }
}

/// Gives back what [`__crt_alloc`] gave, with the same size and align,
/// after checking the block's guard word: a program that wrote past the
/// end of what malloc gave ends here, with the address and size malloc
/// handed out (the C library's header of `align` bytes comes first).
#[unsafe(no_mangle)]
extern "C" fn __crt_free(ptr: *mut c_void, size: usize, align: usize) {
    // SAFETY: `ptr` is a live block of `size` bytes from `__crt_alloc`.
    if let Err(overrun) = unsafe { kernel::mm::check_guard(ptr.cast(), size) } {
        end_line();
        let user = ptr as usize + align;
        kernel::mm::report_overrun(
            user as u32,
            size - align,
            overrun,
            "was freed (free or realloc)",
        );
    }
    if let Ok(layout) = Layout::from_size_align(size, align) {
        // SAFETY: `ptr` came from `__crt_alloc` with this layout
        // (crt_hooks.h), and the library frees it once.
        unsafe { alloc::alloc::dealloc(ptr.cast(), layout) };
    }
}

/// What a library checks when the program ends with status 0, before the
/// core's run ends as succeeded ([`check_at_success`]).
static SUCCESS_CHECK: spin::Once<fn()> = spin::Once::new();

/// Has `check` run when the program ends with status 0, before the core's
/// run ends as succeeded: it may end the run as failed instead (MPI does
/// for a program that called `MPI_Init` but not `MPI_Finalize`). One check
/// per program: a second call keeps the first.
pub fn check_at_success(check: fn()) {
    SUCCESS_CHECK.call_once(|| check);
}

/// Ends the core's run: status 0 as a program that succeeded, any other
/// as one that failed.
#[unsafe(no_mangle)]
extern "C" fn __crt_exit(status: c_int) -> ! {
    end_line();
    if status == 0 {
        if let Some(check) = SUCCESS_CHECK.get() {
            check();
        }
        finish(ExitCode::Success)
    }
    fail(format_args!("the C program exited with status {status}"))
}

/// Ends the run of every core successfully, wherever the others are
/// (`shmem_global_exit(0)`): the run tool stops them. What the C library
/// holds of stdout must be flushed before.
pub fn end_every_core() -> ! {
    end_line();
    finish(ExitCode::EndsRun)
}

/// Tells the emulator the program is over, then ends the core's run with
/// `code`.
fn finish(code: ExitCode) -> ! {
    if let Some(platform) = try_platform() {
        platform.finish();
    }
    end_run(code)
}

/// Nanoseconds of the core's own modelled time (its cycles at the chip's
/// core clock).
#[unsafe(no_mangle)]
extern "C" fn __crt_clock_ns() -> u64 {
    let platform = platform();
    let mhz = u64::from(platform.chip().timing.core_mhz);
    // Overflows after 10^16 cycles: some 400 days of modelled time.
    platform.now().saturating_mul(1000) / mhz
}

/// `sleep` (`unistd.h`): lets `seconds` seconds of the core's modelled
/// time pass without executing anything ([`Platform::pause`]); returns 0, as
/// no signal ends it early.
#[unsafe(no_mangle)]
extern "C" fn sleep(seconds: core::ffi::c_uint) -> core::ffi::c_uint {
    let platform = platform();
    let cycles = u64::from(seconds) * u64::from(platform.chip().timing.core_mhz) * 1_000_000;
    platform.pause(cycles);
    0
}
