// SPDX-License-Identifier: MIT OR Apache-2.0
//! 32-bit x86 (P54C) support: boot, segmentation, exceptions, paging, the
//! switch to the guarded stack and
//! the few instructions the SCC runtime needs. Only the pure part of
//! [`paging`] is built for the host.

#[cfg(target_arch = "x86")]
pub mod boot;
#[cfg(target_arch = "x86")]
pub mod gdt;
#[cfg(target_arch = "x86")]
pub mod idt;
#[cfg(target_arch = "x86")]
pub mod instructions;
pub mod paging;
#[cfg(target_arch = "x86")]
pub mod stack;
#[cfg(target_arch = "x86")]
pub mod timer;
