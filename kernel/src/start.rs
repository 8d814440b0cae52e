// SPDX-License-Identifier: MIT OR Apache-2.0
//! From the boot code to the program: bring-up in order, the command line,
//! and how a core reports failure.

use core::fmt::Write;

use chip::MemoryType;
use chip::args::BootArgs;
use chip::settings::{Declaration, check, check_cores};

use crate::app::{self, Program};
use crate::arch::x86::boot::BootInfo;
use crate::arch::x86::paging::{Access, AddressSpace, PAGE_SIZE};
use crate::arch::x86::{gdt, idt, stack, timer};
use crate::exit::{ExitCode, exit, fail};
use crate::mm::FrameAllocator;
use crate::platform::{self, Platform};
use crate::{console, mm};

// SAFETY: `programs!`, which every app uses once, defines this function
// with this signature; an image without it does not link.
unsafe extern "Rust" {
    safe fn __scc_app_programs() -> &'static [Program<Platform>];
}

unsafe extern "C" {
    /// First byte of the kernel image, its code (linker.ld).
    static __kernel_start: u8;
    /// First byte after the code and read-only data (linker.ld).
    static __ro_end: u8;
    /// First byte after the kernel image (linker.ld).
    static __kernel_end: u8;
}

/// The stack the program runs on: whole frames of private RAM, with the
/// frame below them left unmapped as a guard page.
#[derive(Debug, Clone, Copy)]
struct GuardedStack {
    /// The guard page's address.
    guard: u32,
    /// Bytes of the stack above it.
    bytes: u32,
}

impl GuardedStack {
    /// Takes a guard frame and `kib` KiB of frames above it (not zeroed: a
    /// stack needs no clearing, and clearing would be thousands of modelled
    /// stores at every boot).
    fn take(frames: &mut FrameAllocator, kib: u32) -> Option<Self> {
        let bytes = kib * 1024;
        let guard = frames.take(1 + bytes / PAGE_SIZE)?;
        Some(Self { guard, bytes })
    }

    /// The first byte above the stack, where it starts.
    fn top(self) -> u32 {
        self.guard + PAGE_SIZE + self.bytes
    }
}

/// Called by the boot code (`arch::x86::boot`, which names it as a symbol)
/// with the multiboot magic and information pointer.
#[unsafe(no_mangle)]
extern "C" fn kernel_entry(magic: u32, info: *const u8) -> ! {
    console::init();
    gdt::init(idt::double_fault_entry());
    idt::init();
    timer::init();

    // SAFETY: paging is still off and these are the loader's EAX and EBX.
    let boot =
        unsafe { BootInfo::read(magic, info) }.unwrap_or_else(|e| fail(format_args!("boot: {e}")));
    let kernel_end = core::ptr::addr_of!(__kernel_end) as u32;
    let mut frames = FrameAllocator::new(kernel_end, boot.ram_bytes);
    // The heap comes first: reporting a bad command line needs it.
    mm::init_heap(&mut frames, boot.ram_bytes).unwrap_or_else(|e| fail(format_args!("heap: {e}")));
    let args =
        BootArgs::parse(&boot.cmdline).unwrap_or_else(|e| fail(format_args!("command line: {e}")));
    let chip = args.chip();
    let programs = __scc_app_programs();
    let program = app::find(programs, args.program())
        .unwrap_or_else(|unknown| fail(format_args!("command line: unknown program {unknown}")));
    let declaration = &program.declaration;
    check(declaration.settings, args.settings())
        .and_then(|()| check_cores(declaration.settings, args.settings(), args.cores()))
        .unwrap_or_else(|e| {
            fail(format_args!(
                "command line: program {}: {e}",
                declaration.name
            ))
        });

    let stack = GuardedStack::take(&mut frames, args.stack_kib()).unwrap_or_else(|| {
        fail(format_args!(
            "stack: not enough RAM for a stack of {} KiB",
            args.stack_kib()
        ))
    });
    let mut space = build_address_space(chip, &mut frames, boot.ram_bytes, stack)
        .unwrap_or_else(|e| fail(format_args!("platform: {e}")));
    // SAFETY: private RAM (code, both stacks, data, page tables, heap frames)
    // and all shared regions are identity-mapped by `build_address_space`;
    // only the guard page and page 0 are not, and nothing uses them.
    unsafe { space.activate() };
    idt::set_stack_guard(stack.guard, stack.bytes);
    // SAFETY: the stack's frames are mapped, writable and the stack's
    // alone, with the unmapped guard page below; the boot stack, which
    // `args` borrows from, stays mapped and is never unwound.
    unsafe { stack::run_on(stack.top(), move || run(args, program, space, frames)) }
}

/// The rest of the bring-up, on the guarded stack: identity, then the
/// program.
fn run(
    args: BootArgs<'_>,
    program: &'static Program<Platform>,
    space: AddressSpace,
    frames: FrameAllocator,
) -> ! {
    let chip = args.chip();
    let declaration = &program.declaration;

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
    let platform: &'static Platform =
        alloc::boxed::Box::leak(alloc::boxed::Box::new(Platform::new(
            chip,
            core,
            args.cores(),
            space,
            frames,
            (args.trace(), args.stats()),
        )));
    if core.index() == 0 {
        announce(declaration, args.settings());
    }
    match (program.entry)(platform, args.settings()) {
        Ok(()) => {
            platform.finish();
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

/// Identity-maps private RAM as DCM, except page 0 (so null pointers
/// fault) and the stack's guard page (so an overflow faults), with code
/// and read-only data read-only; the local APIC uncached; and every shared
/// region with its SCC memory type, once the chip's address map leaves
/// the platform what it needs.
fn build_address_space(
    chip: &'static chip::Chip,
    frames: &mut FrameAllocator,
    ram_bytes: u32,
    stack: GuardedStack,
) -> Result<AddressSpace, platform::PlatformError> {
    platform::check_chip(chip)?;
    let mut space = AddressSpace::new(frames)?;
    space.map_identity(frames, PAGE_SIZE, ram_bytes - PAGE_SIZE, MemoryType::Dcm)?;
    space.unmap(stack.guard, PAGE_SIZE)?;
    let ro_start = core::ptr::addr_of!(__kernel_start) as u32;
    let ro_end = core::ptr::addr_of!(__ro_end) as u32;
    space.set_access(ro_start, ro_end - ro_start, Access::ReadOnly)?;
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
