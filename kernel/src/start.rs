// SPDX-License-Identifier: MIT OR Apache-2.0
//! From the boot code to the program: bring-up in order, the command line,
//! and how a core reports failure.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use crate::arch::x86::boot::BootInfo;
use crate::arch::x86::paging::{AddressSpace, PAGE_SIZE};
use crate::arch::x86::{gdt, idt, timer};
use crate::exit::{ExitCode, exit};
use crate::mm::FrameAllocator;
use crate::platform::{self, Scc};
use crate::programs::catalog::ParamError;
use crate::{console, mm, programs};
use chip::{ARGS_START, Chip, MemoryType};

/// The chip this image runs on.
pub const CHIP: &Chip = &chip::SCC;

unsafe extern "C" {
    /// First byte after the kernel image (linker.ld).
    static __kernel_end: u8;
}

/// Called by the boot code with the multiboot magic and information pointer.
pub extern "C" fn kernel_entry(magic: u32, info: *const u8) -> ! {
    console::init();
    gdt::init();
    idt::init();
    timer::init();

    // SAFETY: paging is still off and these are the loader's EAX and EBX.
    let boot =
        unsafe { BootInfo::read(magic, info) }.unwrap_or_else(|e| fail(format_args!("boot: {e}")));
    let kernel_end = core::ptr::addr_of!(__kernel_end) as u32;
    let mut frames = FrameAllocator::new(kernel_end, boot.ram_bytes);
    // The heap comes first: reporting a bad command line needs it.
    mm::init_heap(&mut frames).unwrap_or_else(|e| fail(format_args!("heap: {e}")));
    let args = Args::parse(&boot.cmdline, CHIP)
        .unwrap_or_else(|e| fail(format_args!("command line: {e}")));

    let mut space = build_address_space(&mut frames, boot.ram_bytes)
        .unwrap_or_else(|e| fail(format_args!("platform: {e}")));
    // SAFETY: private RAM (code, stack, data, page tables, heap frames) and all
    // shared regions are identity-mapped by `build_address_space`.
    unsafe { space.activate() };

    let core = platform::identify(CHIP).unwrap_or_else(|e| fail(format_args!("platform: {e}")));
    idt::set_core_for_reports(core.index() as u32);
    if core.index() as u32 >= args.cores {
        fail(format_args!(
            "{core} booted, but the run has only {} cores",
            args.cores
        ));
    }
    // The program may map more at run time: it gets the space and the frames left.
    let scc = Scc::new(CHIP, core, args.cores, space, frames);
    programs::set_params(args.program, args.params);
    if core.index() == 0 {
        crate::println!("program {}: {}", args.program.name, args.program.about);
        for param in args.program.params {
            crate::println!(
                "setting {}={} ({})",
                param.name,
                programs::param(param.name),
                param.about
            );
        }
    }
    match (args.entry)(&scc) {
        Ok(()) => exit(ExitCode::Success),
        Err(reason) => fail(format_args!("program failed: {reason}")),
    }
}

/// Identity-maps private RAM (except page 0, so null pointers fault) as
/// DCM, the local APIC uncached, and every shared region with its SCC
/// memory type.
fn build_address_space(
    frames: &mut FrameAllocator,
    ram_bytes: u32,
) -> Result<AddressSpace, platform::PlatformError> {
    let mut space = AddressSpace::new(frames)?;
    space.map_identity(frames, PAGE_SIZE, ram_bytes - PAGE_SIZE, MemoryType::Dcm)?;
    space.map_identity(frames, timer::LOCAL_APIC_BASE, PAGE_SIZE, MemoryType::Ncm)?;
    platform::attach_shared_regions(CHIP, &mut space, frames)?;
    Ok(space)
}

/// What the command line (`-append`) asks for.
pub struct Args {
    /// Cores taking part: `0..cores`.
    pub cores: u32,
    /// The program to run.
    pub program: &'static programs::catalog::ProgramInfo,
    /// Its entry point.
    entry: fn(&Scc) -> programs::ProgramResult,
    /// The program's settings given (the rest keep their defaults).
    params: Vec<(&'static str, String)>,
}

impl Args {
    /// Parses `cores=N program=NAME` and the program's settings
    /// `PARAM=VALUE`, each at most once.
    ///
    /// QEMU puts the image's path first, and a path may hold spaces and
    /// `=`; the run tool therefore starts its arguments with
    /// [`ARGS_START`], and only what follows its last occurrence is read.
    /// Without it (a kernel booted by hand), words without `=` are skipped.
    pub fn parse(cmdline: &str, chip: &Chip) -> Result<Self, String> {
        let mut cores = chip.cores();
        let mut program = programs::catalog::DEFAULT_PROGRAM;
        let mut settings = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let args = cmdline
            .rsplit_once(ARGS_START)
            .map_or(cmdline, |(_, args)| args);
        for (key, value) in args.split_whitespace().filter_map(|w| w.split_once('=')) {
            if seen.contains(&key) {
                return Err(format!("{key} is given twice"));
            }
            seen.push(key);
            match key {
                "cores" => {
                    cores = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=chip.cores()).contains(n))
                        .ok_or_else(|| format!("cores={value}: must be 1..={}", chip.cores()))?;
                }
                "program" => program = value,
                _ => settings.push((key, value)),
            }
        }
        let unknown = || format!("unknown program {program}");
        let entry = programs::by_name(program).ok_or_else(unknown)?;
        let program = programs::catalog::find(program).ok_or_else(unknown)?;
        let mut params = Vec::new();
        for (key, value) in settings {
            match program.check_param(key, value) {
                Ok(param) => params.push((param.name, value.to_string())),
                Err(ParamError::Unknown) => {
                    let known: Vec<&str> = program.params.iter().map(|p| p.name).collect();
                    return Err(format!(
                        "unknown setting {key}={value} (known: cores, program{}{})",
                        if known.is_empty() { "" } else { ", " },
                        known.join(", ")
                    ));
                }
                Err(ParamError::BadValue(param)) => {
                    return Err(format!(
                        "{key}={value}: must be one of {}",
                        param.values.join(", ")
                    ));
                }
            }
        }
        Ok(Self {
            cores,
            program,
            entry,
            params,
        })
    }
}

/// Reports a failure of this core and ends its run.
fn fail(reason: core::fmt::Arguments<'_>) -> ! {
    let _ = writeln!(console::emergency_writer(), "FAILED: {reason}");
    exit(ExitCode::Failure)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let _ = writeln!(console::emergency_writer(), "PANIC: {info}");
    exit(ExitCode::Failure)
}

/// Named by the unwind tables of the prebuilt `alloc`; never called with
/// `panic=abort`.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}

/// The prebuilt `alloc` for this target is compiled with unwinding, so its
/// cleanup paths name `_Unwind_Resume`. With `panic=abort` no unwinding ever
/// starts and these paths are dead; if one ran anyway, fail loudly.
#[unsafe(no_mangle)]
extern "C" fn _Unwind_Resume() -> ! {
    fail(format_args!("unwinding is not supported (panic=abort)"))
}
