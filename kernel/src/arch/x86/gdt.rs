// SPDX-License-Identifier: MIT OR Apache-2.0
//! A flat GDT: one ring-0 code and one data segment over all 4 GiB, and
//! two task-state segments (TSS) for the double fault.
//!
//! The loader's GDT lives in memory the kernel does not own, so it is
//! replaced before anything else.
//!
//! The double fault is delivered through a task gate, the 32-bit way to
//! give a handler a stack of its own (the P54C has no interrupt stack
//! table): the CPU saves the interrupted state into the kernel's TSS
//! ([`KERNEL_TSS`], loaded into TR) and loads the double-fault task's TSS
//! ([`DOUBLE_FAULT_TSS`]), whose stack is `DOUBLE_FAULT_STACK_BYTES` in
//! `.bss`. A push into the stack's guard page faults, the page fault's own
//! frame cannot be pushed there either, and the double fault that follows
//! then runs on a good stack and finds the faulting EIP in the kernel's TSS
//! ([`interrupted`]).

use x86::Ring;
use x86::bits32::segmentation::load_cs;
use x86::bits32::task::TaskStateSegment;
use x86::dtables::{DescriptorTablePointer, lgdt};
use x86::segmentation::{
    BuildDescriptor, CodeSegmentType, DataSegmentType, Descriptor, DescriptorBuilder,
    GateDescriptorBuilder, SegmentDescriptorBuilder, SegmentSelector, load_ds, load_es, load_fs,
    load_gs, load_ss,
};
use x86::task::load_tr;

/// Selector of the kernel code segment.
pub const KERNEL_CODE: SegmentSelector = SegmentSelector::new(1, Ring::Ring0);
/// Selector of the kernel data segment.
pub const KERNEL_DATA: SegmentSelector = SegmentSelector::new(2, Ring::Ring0);
/// Selector of the TSS of the kernel's one task, where a task switch saves
/// the state it interrupts.
pub const KERNEL_TSS: SegmentSelector = SegmentSelector::new(3, Ring::Ring0);
/// Selector of the double-fault task's TSS, which the task gate of vector 8
/// names.
pub const DOUBLE_FAULT_TSS: SegmentSelector = SegmentSelector::new(4, Ring::Ring0);

/// Bytes of the double-fault task's stack: its handler formats one report
/// (a few hundred bytes of frames) and ends the core; 16 KiB leaves room
/// for the page-fault report too, should the handler itself fault.
const DOUBLE_FAULT_STACK_BYTES: usize = 16 * 1024;

/// EFLAGS of the double-fault task when it starts: only bit 1, which is
/// reserved and always set. IF is clear, so no interrupt comes in.
const EFLAGS_RESERVED: u32 = 1 << 1;

/// A TSS, aligned so that its 104 bytes never straddle a page boundary
/// (Intel SDM 3A 7.2.1: the CPU may not handle a TSS that does).
#[repr(C, align(128))]
struct AlignedTss(TaskStateSegment);

/// The double-fault task's stack (zeroed, so in `.bss`, not the image).
#[repr(C, align(16))]
struct FaultStack([u8; DOUBLE_FAULT_STACK_BYTES]);

// `static mut`: the CPU writes both segments behind the compiler's back
// (the task switch saves registers and sets busy bits), so they are only
// ever reached through raw pointers, never references.
static mut KERNEL_TASK: AlignedTss = AlignedTss(TaskStateSegment::new());
static mut DOUBLE_FAULT_TASK: AlignedTss = AlignedTss(TaskStateSegment::new());
static mut DOUBLE_FAULT_STACK: FaultStack = FaultStack([0; DOUBLE_FAULT_STACK_BYTES]);

static GDT: spin::Once<[Descriptor; 5]> = spin::Once::new();

fn flat(builder: DescriptorBuilder) -> Descriptor {
    builder
        .present()
        .dpl(Ring::Ring0)
        .limit_granularity_4kb()
        .db()
        .finish()
}

/// The descriptor of the TSS at `task`: available (not busy), its limit
/// the last byte of a 32-bit TSS without I/O bitmap.
fn tss(task: *const AlignedTss) -> Descriptor {
    let limit = core::mem::size_of::<TaskStateSegment>() as u64 - 1;
    <DescriptorBuilder as GateDescriptorBuilder<u32>>::tss_descriptor(task as u64, limit, true)
        .present()
        .dpl(Ring::Ring0)
        .finish()
}

/// Loads the flat GDT, reloads every segment register, and loads TR with
/// the kernel's TSS. The double-fault task starts at `double_fault_entry`
/// (with its error code on its stack) with the kernel's segments.
pub fn init(double_fault_entry: u32) {
    let gdt = GDT.call_once(|| {
        [
            Descriptor::NULL,
            flat(DescriptorBuilder::code_descriptor(
                0,
                0xF_FFFF,
                CodeSegmentType::ExecuteRead,
            )),
            flat(DescriptorBuilder::data_descriptor(
                0,
                0xF_FFFF,
                DataSegmentType::ReadWrite,
            )),
            tss(&raw const KERNEL_TASK),
            tss(&raw const DOUBLE_FAULT_TASK),
        ]
    });
    let task = &raw mut DOUBLE_FAULT_TASK;
    let stack_top = (&raw mut DOUBLE_FAULT_STACK) as u32 + DOUBLE_FAULT_STACK_BYTES as u32;
    // SAFETY: the TSS is only touched here, before any task switch, and
    // through this raw pointer; the fields make a valid ring-0 task on the
    // flat segments, with its own stack and interrupts off. CR3 stays 0
    // until paging is on ([`set_page_directory`]): with paging off, the
    // switch loads it but nothing reads it.
    unsafe {
        let t = &raw mut (*task).0;
        (*t).eip = double_fault_entry;
        (*t).esp = stack_top;
        (*t).eflags = EFLAGS_RESERVED;
        (*t).cs = KERNEL_CODE.bits();
        for segment in [
            &raw mut (*t).ss,
            &raw mut (*t).ds,
            &raw mut (*t).es,
            &raw mut (*t).fs,
            &raw mut (*t).gs,
        ] {
            segment.write(KERNEL_DATA.bits());
        }
        // No I/O permission bitmap: its offset is past the segment's limit.
        (*t).iobp_offset = core::mem::size_of::<TaskStateSegment>() as u16;
    }
    let pointer = DescriptorTablePointer::new_from_slice(gdt);
    // SAFETY: the table is 'static and its descriptors are valid flat
    // segments and TSSs, so every selector loaded below stays usable for
    // the whole run. TR is loaded once, with an available TSS.
    unsafe {
        lgdt(&pointer);
        load_cs(KERNEL_CODE);
        load_ds(KERNEL_DATA);
        load_es(KERNEL_DATA);
        load_fs(KERNEL_DATA);
        load_gs(KERNEL_DATA);
        load_ss(KERNEL_DATA);
        load_tr(KERNEL_TSS);
    }
}

/// Has the double-fault task run with page directory `directory` (CR3),
/// which must be the one in use: a task switch loads CR3 from the new TSS.
pub fn set_page_directory(directory: u32) {
    // SAFETY: a field of a TSS that is not the running task's and that the
    // CPU reads only when it switches to it (unaligned: the TSS is packed).
    // The store stays: the TSS's address escaped into the GDT.
    unsafe { (&raw mut DOUBLE_FAULT_TASK.0.cr3).write_unaligned(directory) };
}

/// What the task switch into the double-fault task saved of the state it
/// interrupted.
#[derive(Debug, Clone, Copy)]
pub struct Interrupted {
    /// The instruction that faulted.
    pub eip: u32,
    /// Its stack pointer.
    pub esp: u32,
    /// Its flags.
    pub eflags: u32,
    /// EAX, EBX, ECX, EDX, ESI, EDI, EBP.
    pub registers: [u32; 7],
}

/// The interrupted state saved in the kernel's TSS; meaningful in the
/// double-fault task only.
pub fn interrupted() -> Interrupted {
    let task = &raw const KERNEL_TASK;
    // SAFETY: the fields of a 'static TSS read through raw pointers
    // (unaligned: the TSS is packed). The CPU wrote them on the task
    // switch, unseen by the compiler, but the TSS's address escaped into
    // the GDT and the handler is entered from assembly, so they are read.
    unsafe {
        let t = &raw const (*task).0;
        let read = |field: *const u32| field.read_unaligned();
        Interrupted {
            eip: read(&raw const (*t).eip),
            esp: read(&raw const (*t).esp),
            eflags: read(&raw const (*t).eflags),
            registers: [
                read(&raw const (*t).eax),
                read(&raw const (*t).ebx),
                read(&raw const (*t).ecx),
                read(&raw const (*t).edx),
                read(&raw const (*t).esi),
                read(&raw const (*t).edi),
                read(&raw const (*t).ebp),
            ],
        }
    }
}
