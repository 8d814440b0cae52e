// SPDX-License-Identifier: GPL-2.0-or-later
//! The QEMU TCG plugin that loads the SCC chip model into one core's QEMU.
//!
//! This file is the whole FFI surface: QEMU's two entry symbols, turned
//! into safe calls to `emu` as early as possible. The plugin refuses to
//! load (so QEMU refuses to start) unless it runs under system emulation
//! with options that name a real core of a known chip and that chip's
//! memory file; the reason goes to standard error as `emu: <reason>`, which
//! the run tool shows. Nothing may unwind into QEMU's C frames, so the
//! install function catches panics and turns them into a refusal too.
//!
//! The chip's memory system is not modelled yet: once the options are
//! valid the plugin registers nothing, and the guest runs coherently on the
//! shared memory the command line gives it.

use std::ffi::{CStr, c_char, c_int};
use std::io::{self, Write};
use std::panic;

use emu::options::PluginOptions;
use qemu_plugin_sys::{QEMU_PLUGIN_VERSION, qemu_info_t, qemu_plugin_id_t};

/// The plugin API version this plugin was built against; QEMU refuses a
/// plugin whose version it does not support.
#[unsafe(no_mangle)]
pub static qemu_plugin_version: c_int = QEMU_PLUGIN_VERSION as c_int;

/// Called by QEMU once, before the guest starts. Returns 0 to load, any
/// other value to refuse (QEMU then exits with an error).
///
/// # Safety
///
/// QEMU passes a valid `info` and `argc` valid NUL-terminated strings in
/// `argv`, all alive for the duration of the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn qemu_plugin_install(
    _id: qemu_plugin_id_t,
    info: *const qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    // SAFETY: QEMU passes a valid `info` and `argc` strings in `argv`,
    // alive for the duration of this call.
    let outcome = panic::catch_unwind(|| unsafe { install(info, argc, argv) });
    let refusal = match outcome {
        Ok(Ok(_options)) => return 0,
        Ok(Err(reason)) => reason,
        Err(_) => "internal error while loading the plugin".to_owned(),
    };
    // Not eprintln!: it panics when stderr is gone, and this frame must not.
    let _ = writeln!(io::stderr(), "emu: {refusal}");
    -1
}

/// Reads what QEMU passed and checks it.
///
/// # Safety
///
/// `info` is null or valid, and `argv` holds `argc` valid NUL-terminated
/// strings (or is null), all alive for the duration of the call.
unsafe fn install(
    info: *const qemu_info_t,
    argc: c_int,
    argv: *const *mut c_char,
) -> Result<PluginOptions, String> {
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
    PluginOptions::parse(args).map_err(|e| e.to_string())
}
