// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exception handling: every CPU exception ends the run with a report that
//! names the core, except #UD on CL1INVMB, which is stepped over.
//!
//! Every report line starts `EXCEPTION on core N: ` and gives the
//! faulting instruction as `EIP 0x...`, which the run tool looks up in the
//! image. A fault in the guard page below the stack is reported as a
//! stack overflow: as a page fault when its frame could still be pushed,
//! otherwise as the double fault that follows, which runs as a task of its
//! own on its own stack (`gdt`) and takes the EIP from the state the task
//! switch saved. A write to a read-only page (code and read-only data,
//! with CR0.WP set) is a page fault that says so.
//!
//! QEMU's Pentium does not know the SCC's CL1INVMB (`0F 0A`) and raises #UD
//! with EIP at the instruction. The chip model's plugin callback, which runs
//! before the fault, invalidates the MPBT lines, so the handler only skips
//! the two bytes. The kernel source stays the same as for silicon.

use core::fmt::Write;
use core::sync::atomic::{AtomicU32, Ordering};

use x86::Ring;
use x86::dtables::{DescriptorTablePointer, lidt};
use x86::segmentation::{
    BuildDescriptor, Descriptor, DescriptorBuilder, GateDescriptorBuilder,
    TaskGateDescriptorBuilder,
};

use super::gdt::{self, DOUBLE_FAULT_TSS, KERNEL_CODE};
use super::instructions::{CL1INVMB_OPCODE, read_cr2};
use super::timer;
use crate::exit::{ExitCode, exit};

/// Vector of the invalid-opcode exception.
const INVALID_OPCODE: u32 = 6;
/// Vector of the double-fault exception.
const DOUBLE_FAULT: usize = 8;
/// Vector of the page-fault exception.
const PAGE_FAULT: u32 = 14;
/// Page-fault error code bit 0: the page was present (a protection fault).
const PF_PRESENT: u32 = 1 << 0;
/// Page-fault error code bit 1: the access was a write.
const PF_WRITE: u32 = 1 << 1;

/// Bytes in a page (the guard page is one).
const PAGE_BYTES: u32 = 4096;

/// The guard page below the stack (its first byte), 0 before there is one.
static STACK_GUARD: AtomicU32 = AtomicU32::new(0);
/// Bytes of the stack above the guard page, for reports.
static STACK_BYTES: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" {
    /// First byte of the image (linker.ld): its code comes first.
    static __kernel_start: u8;
    /// First byte after the code and read-only data (linker.ld).
    static __ro_end: u8;
}

/// The core id once known, for reports; `u32::MAX` before identity is read.
static CORE_FOR_REPORTS: AtomicU32 = AtomicU32::new(u32::MAX);

/// Names the core in every later exception report.
pub fn set_core_for_reports(core: u32) {
    CORE_FOR_REPORTS.store(core, Ordering::Relaxed);
}

/// Names the guard page at `guard` below a stack of `stack_bytes` in
/// every later report of a fault there.
pub fn set_stack_guard(guard: u32, stack_bytes: u32) {
    STACK_BYTES.store(stack_bytes, Ordering::Relaxed);
    STACK_GUARD.store(guard, Ordering::Relaxed);
}

/// Whether `addr` lies in the guard page below the stack.
fn in_guard(addr: u32) -> bool {
    let guard = STACK_GUARD.load(Ordering::Relaxed);
    guard != 0 && addr.wrapping_sub(guard) < PAGE_BYTES
}

/// Whether `addr` lies in the image's code or read-only data.
fn in_read_only_image(addr: u32) -> bool {
    let start = core::ptr::addr_of!(__kernel_start) as u32;
    let end = core::ptr::addr_of!(__ro_end) as u32;
    (start..end).contains(&addr)
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

// Where the double-fault task starts, on its own stack, with the CPU's
// error code (always 0) pushed there; the handler never returns.
core::arch::global_asm!(
    ".section .text.exceptions, \"ax\"",
    ".global double_fault_task_entry",
    "double_fault_task_entry:",
    "    cld",
    "    call {handler}",
    "2:",
    "    hlt",
    "    jmp 2b",
    handler = sym double_fault_handler,
);

unsafe extern "C" {
    /// The double-fault task's first instruction (above).
    fn double_fault_task_entry();
}

/// Where the double-fault task starts ([`gdt::init`] puts it in its TSS).
pub fn double_fault_entry() -> u32 {
    double_fault_task_entry as *const () as u32
}

/// Exception vectors, then the wake-up timer.
const VECTORS: usize = 33;
static IDT: spin::Once<[Descriptor; VECTORS]> = spin::Once::new();

/// Installs interrupt gates for the exception vectors and the timer, and
/// a task gate to the double-fault task for vector 8.
pub fn init() {
    const _: () = assert!(timer::TIMER_VECTOR as usize == VECTORS - 1);
    let idt = IDT.call_once(|| {
        // SAFETY: the table is defined above in read-only data, fully initialised.
        let stubs = unsafe { &exception_stub_table };
        core::array::from_fn(|v| {
            if v == DOUBLE_FAULT {
                return DescriptorBuilder::task_gate_descriptor(DOUBLE_FAULT_TSS)
                    .present()
                    .dpl(Ring::Ring0)
                    .finish();
            }
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

/// Starts a report line: `EXCEPTION on core N: `.
fn report_start(out: &mut impl core::fmt::Write) {
    let _ = match CORE_FOR_REPORTS.load(Ordering::Relaxed) {
        u32::MAX => write!(out, "EXCEPTION on core ?: "),
        core => write!(out, "EXCEPTION on core {core}: "),
    };
}

/// The line under a stack overflow: how big the stack is and how to get more.
fn stack_advice(out: &mut impl core::fmt::Write) {
    let guard = STACK_GUARD.load(Ordering::Relaxed);
    let bytes = STACK_BYTES.load(Ordering::Relaxed);
    let _ = writeln!(
        out,
        "  the stack ({} KiB at {:#x}..{:#x}) is full: a run gets a larger one with --stack-kib",
        bytes / 1024,
        guard + PAGE_BYTES,
        guard + PAGE_BYTES + bytes
    );
}

fn report(frame: &ExceptionFrame) {
    let mut out = crate::console::emergency_writer();
    report_start(&mut out);
    let cr2 = read_cr2();
    let page_fault = frame.vector == PAGE_FAULT;
    if page_fault && in_guard(cr2) {
        let _ = write!(out, "stack overflow: ");
    }
    let _ = write!(
        out,
        "{} (vector {}), error code {:#x}, EIP {:#x}",
        name(frame.vector),
        frame.vector,
        frame.error_code,
        frame.eip
    );
    if page_fault {
        let _ = write!(out, ", CR2 {cr2:#x}");
        if frame.error_code & (PF_PRESENT | PF_WRITE) == PF_PRESENT | PF_WRITE {
            let _ = write!(
                out,
                ": a write to read-only {}",
                if in_read_only_image(cr2) {
                    "code/data (.text, .rodata)"
                } else {
                    "memory"
                }
            );
        } else if in_guard(cr2) {
            let _ = write!(out, ": in the guard page below the stack");
        }
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
    if page_fault && in_guard(cr2) {
        stack_advice(&mut out);
    }
}

/// The double-fault task: reports what the kernel's task was doing, from
/// the state the task switch saved, and ends the core.
extern "C" fn double_fault_handler() -> ! {
    let saved = gdt::interrupted();
    let cr2 = read_cr2();
    let overflow = in_guard(cr2) || in_guard(saved.esp);
    let mut out = crate::console::emergency_writer();
    report_start(&mut out);
    if overflow {
        let _ = write!(out, "stack overflow: ");
    }
    let _ = write!(
        out,
        "double fault (vector 8), EIP {:#x}, ESP {:#x}, CR2 {cr2:#x}",
        saved.eip, saved.esp
    );
    if overflow {
        let _ = write!(out, ": no room below the stack for a fault's frame");
    }
    let _ = writeln!(out);
    let [eax, ebx, ecx, edx, esi, edi, ebp] = saved.registers;
    let _ = writeln!(
        out,
        "  eax {eax:#010x} ebx {ebx:#010x} ecx {ecx:#010x} edx {edx:#010x} esi {esi:#010x} edi {edi:#010x} ebp {ebp:#010x} esp {:#010x} eflags {:#010x}",
        saved.esp, saved.eflags
    );
    if overflow {
        stack_advice(&mut out);
    }
    exit(ExitCode::Failure)
}
