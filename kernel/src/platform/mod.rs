// SPDX-License-Identifier: MIT OR Apache-2.0
//! The emulated SCC platform: shared regions, paging with SCC memory
//! types, and the core's identity.
//!
//! Under QEMU the chip's shared regions (LSM pages, MPBs, CRBs, FPGA bank;
//! neighbouring pages of one kind grouped) are `ivshmem-plain` PCI devices. The emulator attaches them in
//! the order of `Chip::shared_regions`, so the i-th such device on the bus
//! carries the i-th region; platform init moves each BAR to the region's
//! SCC address and maps it with the memory type SCC software gives it.
//!
//! This module only declares and re-exports its parts, which import one
//! another one way: `init` builds on `scc`, `scc` on `slots` and
//! `regions`, and `init` also on `pci` and `regions`. Built for the host,
//! only the pure `regions` and (for its tests) `slots` are there.

#[cfg(target_arch = "x86")]
mod init;
#[cfg(target_arch = "x86")]
mod pci;
mod regions;
#[cfg(target_arch = "x86")]
pub mod scc;
#[cfg(any(target_arch = "x86", test))]
mod slots;

#[cfg(target_arch = "x86")]
pub use init::{PlatformError, attach_shared_regions, check_chip, identify};
pub use regions::{alias_entry, memory_type, wcb_flush_area_bytes};
#[cfg(target_arch = "x86")]
pub use scc::{ClockRegisters, Platform};
