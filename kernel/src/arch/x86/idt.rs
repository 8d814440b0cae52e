// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exception handling: every CPU exception ends the run with a report that
//! names the core, except #UD on CL1INVMB, which is stepped over.
//!
//! QEMU's Pentium does not know the SCC's CL1INVMB (`0F 0A`) and raises #UD
//! with EIP at the instruction. The chip model's plugin callback, which runs
//! before the fault, invalidates the MPBT lines, so the handler only skips
//! the two bytes. The kernel source stays the same as for silicon.

use core::sync::atomic::{AtomicU32, Ordering};

use x86::Ring;
use x86::dtables::{DescriptorTablePointer, lidt};
use x86::segmentation::{BuildDescriptor, Descriptor, DescriptorBuilder, GateDescriptorBuilder};

use super::gdt::KERNEL_CODE;
use super::instructions::{CL1INVMB_OPCODE, read_cr2};
use super::timer;
use crate::exit::{ExitCode, exit};

/// Vector of the invalid-opcode exception.
const INVALID_OPCODE: u32 = 6;
/// Vector of the page-fault exception.
const PAGE_FAULT: u32 = 14;

/// The core id once known, for reports; `u32::MAX` before identity is read.
static CORE_FOR_REPORTS: AtomicU32 = AtomicU32::new(u32::MAX);

/// Names the core in every later exception report.
pub fn set_core_for_reports(core: u32) {
    CORE_FOR_REPORTS.store(core, Ordering::Relaxed);
}

/// Registers as the common stub saved them, lowest address first.
#[repr(C)]
#[derive(Debug)]
struct ExceptionFrame {
    edi: u32,
    esi: u32,
    ebp: u32,
    esp: u32,
    ebx: u32,
    edx: u32,
    ecx: u32,
    eax: u32,
    vector: u32,
    error_code: u32,
    eip: u32,
    cs: u32,
    eflags: u32,
}

// One stub per exception vector. Vectors without a CPU error code push a 0
// so that every frame has the same shape; all stubs then save the general
// registers and call `exception_handler` with a pointer to the frame.
macro_rules! exception_stubs {
    ($($vector:literal $kind:ident),* $(,)?) => {
        core::arch::global_asm!(
            ".macro stub_no_error vector",
            "exception_stub_\\vector:",
            "    push 0",
            "    push \\vector",
            "    jmp exception_common",
            ".endm",
            ".macro stub_error vector",
            "exception_stub_\\vector:",
            "    push \\vector",
            "    jmp exception_common",
            ".endm",
            ".section .text.exceptions, \"ax\"",
            $(concat!("stub_", stringify!($kind), " ", stringify!($vector)),)*
            "exception_common:",
            "    pushad",
            "    cld",
            "    push esp",
            "    call {handler}",
            "    add esp, 4",
            "    popad",
            "    add esp, 8",
            "    iretd",
            ".section .rodata.exception_stubs, \"a\"",
            ".p2align 2",
            ".global exception_stub_table",
            "exception_stub_table:",
            $(concat!(".long exception_stub_", stringify!($vector)),)*
            handler = sym exception_handler,
        );
    };
}

exception_stubs!(
    0 no_error, 1 no_error, 2 no_error, 3 no_error, 4 no_error, 5 no_error, 6 no_error,
    7 no_error, 8 error, 9 no_error, 10 error, 11 error, 12 error, 13 error, 14 error,
    15 no_error, 16 no_error, 17 error, 18 no_error, 19 no_error, 20 no_error, 21 error,
    22 no_error, 23 no_error, 24 no_error, 25 no_error, 26 no_error, 27 no_error,
    28 no_error, 29 error, 30 error, 31 no_error,
);

unsafe extern "C" {
    /// Entry addresses of the 32 stubs above, by vector.
    static exception_stub_table: [u32; 32];
}

/// Exception vectors, then the wake-up timer.
const VECTORS: usize = 33;
static IDT: spin::Once<[Descriptor; VECTORS]> = spin::Once::new();

/// Installs interrupt gates for the 32 exception vectors and the timer.
pub fn init() {
    const _: () = assert!(timer::TIMER_VECTOR as usize == VECTORS - 1);
    let idt = IDT.call_once(|| {
        // SAFETY: the table is defined above in read-only data, fully initialised.
        let stubs = unsafe { &exception_stub_table };
        core::array::from_fn(|v| {
            let entry = match v {
                0..32 => stubs[v],
                _ => timer::timer_interrupt_stub as *const () as u32,
            };
            DescriptorBuilder::interrupt_descriptor(KERNEL_CODE, entry)
                .present()
                .dpl(Ring::Ring0)
                .finish()
        })
    });
    let pointer = DescriptorTablePointer::new_from_slice(idt);
    // SAFETY: the IDT is 'static and every gate points at a stub that
    // preserves the interrupted state or ends the run.
    unsafe { lidt(&pointer) };
}

fn name(vector: u32) -> &'static str {
    match vector {
        0 => "divide error",
        1 => "debug",
        2 => "non-maskable interrupt",
        3 => "breakpoint",
        4 => "overflow",
        5 => "bound range exceeded",
        6 => "invalid opcode",
        7 => "device not available",
        8 => "double fault",
        10 => "invalid TSS",
        11 => "segment not present",
        12 => "stack-segment fault",
        13 => "general protection fault",
        14 => "page fault",
        16 => "x87 floating-point error",
        17 => "alignment check",
        18 => "machine check",
        _ => "reserved exception",
    }
}

extern "C" fn exception_handler(frame: *mut ExceptionFrame) {
    // SAFETY: the common stub passes a pointer to the frame it just built
    // on this stack; nothing else refers to it while the handler runs.
    let frame = unsafe { &mut *frame };
    if frame.vector == INVALID_OPCODE {
        let at = frame.eip as *const [u8; 2];
        // SAFETY: EIP points at the faulting instruction in mapped kernel code;
        // an opcode is at least 2 bytes long or followed by more code.
        if unsafe { at.read_unaligned() } == CL1INVMB_OPCODE {
            frame.eip += 2;
            return;
        }
    }
    report(frame);
    exit(ExitCode::Failure);
}

fn report(frame: &ExceptionFrame) {
    use core::fmt::Write;
    let mut out = crate::console::emergency_writer();
    let _ = match CORE_FOR_REPORTS.load(Ordering::Relaxed) {
        u32::MAX => write!(out, "EXCEPTION on core ?"),
        core => write!(out, "EXCEPTION on core {core}"),
    };
    let _ = write!(
        out,
        ": {} (vector {}), error code {:#x}, EIP {:#x}",
        name(frame.vector),
        frame.vector,
        frame.error_code,
        frame.eip
    );
    if frame.vector == PAGE_FAULT {
        let _ = write!(out, ", CR2 {:#x}", read_cr2());
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "  eax {:#010x} ebx {:#010x} ecx {:#010x} edx {:#010x} esi {:#010x} edi {:#010x} ebp {:#010x} esp {:#010x} eflags {:#010x}",
        frame.eax,
        frame.ebx,
        frame.ecx,
        frame.edx,
        frame.esi,
        frame.edi,
        frame.ebp,
        frame.esp + 20,
        frame.eflags
    );
}
