// SPDX-License-Identifier: MIT OR Apache-2.0
//! From the boot code to the program: bring-up in order, the command line,
//! and how a core reports failure.

use core::fmt::Write;

use chip::MemoryType;
use chip::args::BootArgs;
use chip::settings::{Declaration, check};

use crate::app::{self, Program};
use crate::arch::x86::boot::BootInfo;
use crate::arch::x86::paging::{AddressSpace, PAGE_SIZE};
use crate::arch::x86::{gdt, idt, timer};
use crate::exit::{ExitCode, exit, fail};
use crate::mm::FrameAllocator;
use crate::platform::{self, Scc};
use crate::{console, mm};

// SAFETY: `programs!`, which every app uses once, defines this function
// with this signature; an image without it does not link.
unsafe extern "Rust" {
    safe fn __scc_app_programs() -> &'static [Program<Scc>];
}

unsafe extern "C" {
    /// First byte after the kernel image (linker.ld).
    static __kernel_end: u8;
}

/// Called by the boot code (`arch::x86::boot`, which names it as a symbol)
/// with the multiboot magic and information pointer.
#[unsafe(no_mangle)]
extern "C" fn kernel_entry(magic: u32, info: *const u8) -> ! {
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
    let args =
        BootArgs::parse(&boot.cmdline).unwrap_or_else(|e| fail(format_args!("command line: {e}")));
    let chip = args.chip();
    let programs = __scc_app_programs();
    let program = app::find(programs, args.program())
        .unwrap_or_else(|unknown| fail(format_args!("command line: unknown program {unknown}")));
    let declaration = &program.declaration;
    check(declaration.settings, args.settings()).unwrap_or_else(|e| {
        fail(format_args!(
            "command line: program {}: {e}",
            declaration.name
        ))
    });

    let mut space = build_address_space(chip, &mut frames, boot.ram_bytes)
        .unwrap_or_else(|e| fail(format_args!("platform: {e}")));
    // SAFETY: private RAM (code, stack, data, page tables, heap frames) and all
    // shared regions are identity-mapped by `build_address_space`.
    unsafe { space.activate() };

    let core = platform::identify(chip).unwrap_or_else(|e| fail(format_args!("platform: {e}")));
    idt::set_core_for_reports(core.index() as u32);
    if core.index() as u32 >= args.cores() {
        fail(format_args!(
            "{core} booted, but the run has only {} cores",
            args.cores()
        ));
    }
    // The program may map more at run time: it gets the space and the frames left.
    // It lives as long as the core runs: programs may keep it (a C
    // program's runtime does, for the calls C makes into it).
    let scc: &'static Scc = alloc::boxed::Box::leak(alloc::boxed::Box::new(Scc::new(
        chip,
        core,
        args.cores(),
        space,
        frames,
        args.trace(),
    )));
    if core.index() == 0 {
        announce(declaration, args.settings());
    }
    match (program.entry)(scc, args.settings()) {
        Ok(()) => {
            scc.finish();
            exit(ExitCode::Success)
        }
        Err(reason) => fail(format_args!("program failed: {}", reason.message())),
    }
}

/// Prints the program's name and help, then each setting's value.
fn announce(declaration: &Declaration<'_>, given: &[(&str, &str)]) {
    crate::println!("program {}: {}", declaration.name, declaration.about);
    for setting in declaration.settings {
        let value = given
            .iter()
            .find(|(name, _)| *name == setting.name)
            .map_or(setting.default, |(_, value)| value);
        crate::println!("setting {}={value} ({})", setting.name, setting.about);
    }
}

/// Identity-maps private RAM (except page 0, so null pointers fault) as
/// DCM, the local APIC uncached, and every shared region with its SCC
/// memory type, once the chip's address map leaves the platform what it
/// needs.
fn build_address_space(
    chip: &'static chip::Chip,
    frames: &mut FrameAllocator,
    ram_bytes: u32,
) -> Result<AddressSpace, platform::PlatformError> {
    platform::check_chip(chip)?;
    let mut space = AddressSpace::new(frames)?;
    space.map_identity(frames, PAGE_SIZE, ram_bytes - PAGE_SIZE, MemoryType::Dcm)?;
    space.map_identity(frames, timer::LOCAL_APIC_BASE, PAGE_SIZE, MemoryType::Ncm)?;
    platform::attach_shared_regions(chip, &mut space, frames)?;
    Ok(space)
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
