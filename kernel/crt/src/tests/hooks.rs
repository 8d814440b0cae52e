// SPDX-License-Identifier: MIT OR Apache-2.0
//! The five hooks of `include/crt_hooks.h`, as the tests define them:
//! writes are recorded (and, in a child process, passed to the real
//! descriptors), allocations come from std's allocator and are checked
//! on free, exit ends the child process, and the clock is settable.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::vec::Vec;

/// Serialises the tests: the library's state is global.
static LOCK: Mutex<()> = Mutex::new(());

/// Every `__crt_write` since the last [`take_writes`]: (fd, bytes).
static WRITES: Mutex<Vec<(c_int, Vec<u8>)>> = Mutex::new(Vec::new());

/// Live allocations: address to (size, align).
static LIVE: Mutex<Option<HashMap<usize, (usize, usize)>>> = Mutex::new(None);

/// `__crt_free` calls whose size or alignment did not match the allocation.
static BAD_FREES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// When set, `__crt_alloc` fails.
pub static FAIL_ALLOC: AtomicBool = AtomicBool::new(false);

/// What `__crt_clock_ns` returns.
pub static CLOCK_NS: AtomicU64 = AtomicU64::new(0);

/// The environment variable naming the child test to run.
const CHILD: &str = "CRT_TEST_CHILD";

/// Takes the global test lock and clears the write record.
pub fn lock() -> MutexGuard<'static, ()> {
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    take_writes();
    guard
}

/// The writes since the last call.
pub fn take_writes() -> Vec<(c_int, Vec<u8>)> {
    std::mem::take(&mut *WRITES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The allocations not freed yet, as (size, align).
pub fn live_allocation(addr: usize) -> Option<(usize, usize)> {
    LIVE.lock()
        .unwrap()
        .as_ref()
        .and_then(|m| m.get(&addr).copied())
}

/// The number of live allocations.
pub fn live_count() -> usize {
    LIVE.lock().unwrap().as_ref().map_or(0, HashMap::len)
}

/// Frees whose size or alignment did not match, since the last call.
pub fn take_bad_frees() -> Vec<usize> {
    std::mem::take(&mut *BAD_FREES.lock().unwrap())
}

/// Whether this process is the child running `name`.
pub fn is_child(name: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|v| v == name)
}

/// Runs the test `name` (its full path) in a child process with the
/// child variable set to `name`, and returns what it printed and how it
/// ended.
pub fn run_child(name: &str) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .output()
        .expect("the test binary runs")
}

#[unsafe(no_mangle)]
extern "C" fn __crt_write(fd: c_int, buf: *const c_char, len: usize) {
    // SAFETY: the library passes len readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), len) };
    if std::env::var_os(CHILD).is_some() {
        // SAFETY: writing a valid buffer to an open descriptor.
        unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    }
    WRITES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((fd, bytes.to_vec()));
}

#[unsafe(no_mangle)]
extern "C" fn __crt_alloc(size: usize, align: usize) -> *mut c_void {
    if FAIL_ALLOC.load(Ordering::Relaxed) {
        return std::ptr::null_mut();
    }
    let layout = Layout::from_size_align(size, align).expect("a valid layout from the library");
    // SAFETY: size is never zero (the library adds its header).
    let p = unsafe { std::alloc::alloc(layout) };
    LIVE.lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .insert(p as usize, (size, align));
    p.cast()
}

#[unsafe(no_mangle)]
extern "C" fn __crt_free(ptr: *mut c_void, size: usize, align: usize) {
    let known = LIVE
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .remove(&(ptr as usize));
    match known {
        Some((s, a)) if s == size && a == align => {
            let layout = Layout::from_size_align(size, align).expect("checked above");
            // SAFETY: allocated by __crt_alloc with this layout.
            unsafe { std::alloc::dealloc(ptr.cast(), layout) };
        }
        // Leaked rather than freed with a wrong layout.
        _ => BAD_FREES.lock().unwrap().push(ptr as usize),
    }
}

#[unsafe(no_mangle)]
extern "C" fn __crt_exit(status: c_int) -> ! {
    if std::env::var_os(CHILD).is_some() {
        std::process::exit(status);
    }
    // Only child processes may end the program.
    std::process::abort();
}

#[unsafe(no_mangle)]
extern "C" fn __crt_clock_ns() -> u64 {
    CLOCK_NS.load(Ordering::Relaxed)
}
