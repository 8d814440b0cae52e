// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's hardware abstraction on the kernel's [`Platform`], on every chip
//! the kernel boots: each trait maps onto what the platform already does,
//! so rma's algorithms and the kernel's own programs use the same MPB, TSR
//! and cache code. rma stands on the kernel; the kernel knows nothing of
//! rma.

use chip::{Chip, CoreId, MemoryType};
use kernel::Platform;
use kernel::platform::scc::SharedBytes;

use super::{
    CacheControl, Clock, DramPages, Lsm, MapError, Mpb, MpbHalf, SharedDram, Topology, Trace, Tsr,
    Wait, WriteBack,
};

/// The MPB half `half` names, seen from `platform`'s core.
#[inline]
fn mpb_half(platform: &Platform, half: MpbHalf) -> SharedBytes {
    match half {
        MpbHalf::Own => platform.own_mpb(),
        MpbHalf::Of(core) => {
            assert!(
                (core.index() as u32) < platform.cores(),
                "{core} is not part of this run of {} cores",
                platform.cores()
            );
            platform.mpb(core)
        }
    }
}

impl Topology for Platform {
    #[inline]
    fn chip(&self) -> &'static Chip {
        Platform::chip(self)
    }

    #[inline]
    fn core(&self) -> CoreId {
        Platform::core(self)
    }

    #[inline]
    fn cores(&self) -> u32 {
        Platform::cores(self)
    }
}

impl Mpb for Platform {
    #[inline]
    fn mpb_read_u32(&self, half: MpbHalf, offset: u32) -> u32 {
        mpb_half(self, half).read_u32(offset)
    }

    #[inline]
    fn mpb_write_u32(&self, half: MpbHalf, offset: u32, value: u32) {
        mpb_half(self, half).write_u32(offset, value);
    }

    #[inline]
    fn mpb_read(&self, half: MpbHalf, offset: u32, buf: &mut [u8]) {
        mpb_half(self, half).read_bytes(offset, buf);
    }

    #[inline]
    fn mpb_write(&self, half: MpbHalf, offset: u32, data: &[u8]) {
        mpb_half(self, half).write_bytes(offset, data);
    }
}

impl Tsr for Platform {
    #[inline]
    fn tsr_acquire(&self, owner: CoreId) {
        Platform::tsr_acquire(self, owner);
    }

    #[inline]
    fn tsr_release(&self, owner: CoreId) {
        Platform::tsr_release(self, owner);
    }
}

impl CacheControl for Platform {
    #[inline]
    fn invalidate_mpbt(&self) {
        Platform::invalidate_mpbt(self);
    }

    #[inline]
    fn flush_wcb(&self) {
        Platform::flush_wcb(self);
    }
}

impl Wait for Platform {
    #[inline]
    fn wait_for<T>(&self, ready: impl FnMut() -> Option<T>) -> T {
        Platform::wait_for(self, ready)
    }

    #[inline]
    fn read_ordered<T>(&self, read: impl FnOnce() -> T) -> T {
        Platform::read_ordered(self, read)
    }
}

impl Clock for Platform {
    /// The modelled SCC time under the emulator's timing, the time-stamp
    /// counter otherwise ([`Platform::now`]).
    #[inline]
    fn cycles(&self) -> u64 {
        self.now()
    }

    /// Exactly `cycles` of modelled time under the emulator ([`Platform::pause`]).
    #[inline]
    fn pause(&self, cycles: u64) {
        Platform::pause(self, cycles);
    }
}

impl SharedDram for Platform {
    #[inline]
    fn map_shared(&self, slot: u8, pages: DramPages, ty: MemoryType) -> Result<(), MapError> {
        self.map_shared_dram(slot, pages, ty)
    }

    #[inline]
    fn shared_read(&self, slot: u8, offset: u32, buf: &mut [u8]) {
        self.shared_dram(slot, offset, buf.len())
            .read_bytes(offset, buf);
    }

    #[inline]
    fn shared_write(&self, slot: u8, offset: u32, data: &[u8]) {
        self.shared_dram(slot, offset, data.len())
            .write_bytes(offset, data);
    }

    #[inline]
    fn unmap_shared(&self, slot: u8) {
        self.unmap_shared_dram(slot);
    }
}

/// The LSM pages, mapped uncached at boot: every access reaches memory.
/// Page 0 ends in the write-combine flush lines, which are not part of it
/// ([`Platform::lsm`]).
impl Lsm for Platform {
    #[inline]
    fn lsm_read_u32(&self, controller: usize, offset: u32) -> u32 {
        self.lsm(controller).read_u32(offset)
    }

    #[inline]
    fn lsm_write_u32(&self, controller: usize, offset: u32, value: u32) {
        self.lsm(controller).write_u32(offset, value);
    }

    #[inline]
    fn lsm_read(&self, controller: usize, offset: u32, buf: &mut [u8]) {
        self.lsm(controller).read_bytes(offset, buf);
    }

    #[inline]
    fn lsm_write(&self, controller: usize, offset: u32, data: &[u8]) {
        self.lsm(controller).write_bytes(offset, data);
    }
}

impl WriteBack for Platform {
    #[inline]
    fn write_back_l1(&self) {
        Platform::write_back_l1(self);
    }
}

impl Trace for Platform {
    #[inline]
    fn trace(&self, event: chip::trace::Event, bytes: u32) {
        if self.tracing() {
            self.trace_event(event.word(), bytes);
        }
    }
}

impl super::RemoteAtomic for Platform {
    #[inline]
    fn dram_atomics(&self) -> bool {
        self.has_remote_atomics() && self.chip().remote_atomics.is_some_and(|r| r.controllers)
    }

    fn shared_atomic(
        &self,
        slot: u8,
        offset: u32,
        command: super::RauCommand,
        operand: u64,
        compare: u64,
    ) -> Option<u64> {
        if !self.dram_atomics() {
            return None;
        }
        // Checks that the word lies in the mapping (the unit reaches it
        // through the LUT entry, not the page tables).
        self.shared_dram(slot, offset, command.bytes as usize);
        let addr = chip::AddressMap::entry_base(slot) + offset;
        Some(self.remote_atomic(addr, command, operand, compare))
    }
}
