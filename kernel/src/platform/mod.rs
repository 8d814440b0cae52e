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
//! another one way: `init` and `hal` build on `scc`, `scc` on `slots` and
//! `regions`, and `init` also on `pci` and `regions`.

mod hal;
mod init;
mod pci;
mod regions;
pub mod scc;
mod slots;

pub use init::{PlatformError, attach_shared_regions, identify};
pub use regions::{memory_type, wcb_flush_area_bytes};
pub use scc::{ClockRegisters, Scc};
