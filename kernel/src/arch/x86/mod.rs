// SPDX-License-Identifier: MIT OR Apache-2.0
//! 32-bit x86 (P54C) support: boot, segmentation, exceptions, paging and
//! the few instructions the SCC runtime needs.

pub mod boot;
pub mod gdt;
pub mod idt;
pub mod instructions;
pub mod paging;
pub mod timer;
