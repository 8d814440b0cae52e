// SPDX-License-Identifier: GPL-2.0-or-later
//! Pure models of the SCC memory system: no QEMU, no files, no FFI.
//!
//! The plugin owns the data (global memory G and one view V_c per core, see
//! DESIGN.md section 4); these models decide what happens to it:
//!
//! - [`cache`]: a set-associative tag model (valid, dirty, MPBT per line);
//! - [`wcb`]: the 32-byte write-combine buffer;
//! - [`hierarchy`]: one core's L1, L2 and WCB, turning each load, store,
//!   CL1INVMB, WBINVD and INVD into an outcome per level and a short list of
//!   events the plugin carries out on the data (the protocol is in the
//!   module's docs);
//! - [`lut`]: one core's live LUT, translating core-physical addresses when
//!   the plugin moves data;
//! - [`paging`]: the memory type of an access, from the guest's page tables,
//!   with a TLB that CR3 writes and `invlpg` flush;
//! - [`tsr`]: the test-and-set registers and their statistics;
//! - [`stats`]: per-core counters and their table;
//! - [`mesh`]: XY routes and the routers a request crosses;
//! - [`backpressure`]: a busy register block's requests backing up into
//!   its router and holding up the other requests that pass it;
//! - [`queue`]: resources serving one request at a time (or, a memory
//!   controller, a line at a time), queued the same whatever order the
//!   host runs the cores in;
//! - [`dram`]: the DDR3 channel behind a memory controller, its banks and
//!   bus, and the rate at which it serves lines;
//! - [`write_buffer`]: the P54C's write buffers, where stores that leave
//!   the core wait while it goes on;
//! - [`latency`]: the cost of each access class and one core's modelled
//!   clock (parameters from [`chip::Timing`]), and the DRAM's refresh;
//! - [`variation`]: what differs between two boots of the chip (clock
//!   phases, release from reset, arbitration), drawn from the run's seed;
//! - [`p54c`]: the cycles a P54C core takes to issue a block of
//!   instructions (U/V pairing, multi-cycle instructions, address
//!   generation interlocks), every memory operand an L1 hit: the base of
//!   the core's clock.
//!
//! Everything is allocated at construction; the per-access paths do not
//! allocate. The tests include a data-carrying reference of the same
//! semantics, run against the models plus an executor that applies their
//! events the way the plugin will.

pub mod backpressure;
pub mod cache;
pub mod dram;
pub mod hierarchy;
pub mod latency;
pub mod lut;
pub mod mesh;
pub mod p54c;
pub mod paging;
pub mod queue;
pub mod stats;
pub mod tsr;
pub mod variation;
pub mod wcb;
pub mod write_buffer;

#[cfg(test)]
mod datapath;
