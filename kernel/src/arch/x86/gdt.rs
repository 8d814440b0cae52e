// SPDX-License-Identifier: MIT OR Apache-2.0
//! A flat GDT: one ring-0 code and one data segment over all 4 GiB.
//!
//! The loader's GDT lives in memory the kernel does not own, so it is
//! replaced before anything else.

use x86::Ring;
use x86::bits32::segmentation::load_cs;
use x86::dtables::{DescriptorTablePointer, lgdt};
use x86::segmentation::{
    BuildDescriptor, CodeSegmentType, DataSegmentType, Descriptor, DescriptorBuilder,
    SegmentDescriptorBuilder, SegmentSelector, load_ds, load_es, load_fs, load_gs, load_ss,
};

/// Selector of the kernel code segment.
pub const KERNEL_CODE: SegmentSelector = SegmentSelector::new(1, Ring::Ring0);
/// Selector of the kernel data segment.
pub const KERNEL_DATA: SegmentSelector = SegmentSelector::new(2, Ring::Ring0);

static GDT: spin::Once<[Descriptor; 3]> = spin::Once::new();

fn flat(builder: DescriptorBuilder) -> Descriptor {
    builder
        .present()
        .dpl(Ring::Ring0)
        .limit_granularity_4kb()
        .db()
        .finish()
}

/// Loads the flat GDT and reloads every segment register.
pub fn init() {
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
        ]
    });
    let pointer = DescriptorTablePointer::new_from_slice(gdt);
    // SAFETY: the table is 'static and its descriptors are valid flat
    // segments, so every selector loaded below stays usable for the whole run.
    unsafe {
        lgdt(&pointer);
        load_cs(KERNEL_CODE);
        load_ds(KERNEL_DATA);
        load_es(KERNEL_DATA);
        load_fs(KERNEL_DATA);
        load_gs(KERNEL_DATA);
        load_ss(KERNEL_DATA);
    }
}
