// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared regions: memory every core reaches, allocated collectively,
//! spread over the cores' shared DRAM by a [`Distribution`] and mapped
//! with the memory type that gives the requested [`Attribute`] (or the
//! nearest the chip can keep consistent, returned as [`Granted`]).
//!
//! A region is a window of rma (one part per rank, of the bytes the
//! distribution puts there), kept in a passive access epoch for its whole
//! life, so reads, writes and atomics need no synchronisation call: what
//! makes them visible is the [`consistency`](crate::consistency) service.

use chip::MemoryType;
use rma::hal::RmaHal;
use rma::{Accumulable, AccumulateOp, Assert, LocalMapping, Window, WindowOptions};

use crate::{Dsm, DsmError, LINE};

/// How a region's bytes are spread over the cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// All on the core of this rank.
    OnCore(u32),
    /// In equal consecutive blocks, one per rank in rank order (each block
    /// rounded up to whole lines): rank `r` holds bytes `r * block ..`.
    /// A region of `n * s` bytes on `n` ranks gives every rank the same
    /// `s`-byte part at the same offset: a symmetric heap.
    Block,
    /// Line `i` on rank `i mod n`.
    Cyclic,
    /// Line `i` on the rank a fixed permutation of the lines gives
    /// (spreading strided accesses that a cyclic distribution would send
    /// to one core): line `i` goes where line `(i * a) mod L` goes
    /// cyclically, for `L` lines and an `a` prime to `L`.
    Hashed,
}

/// How a core caches a region (HAMSTER's coherency attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// Every access goes to memory (NCM): no sync is needed for
    /// coherence, only for ordering.
    Uncached,
    /// Loads uncached, stores gathered in the write-combine buffer (NCM
    /// with the WCB): `sync_write` flushes it.
    WriteCombined,
    /// Cached in L1 only, write-through (MPBT-WT): `sync_write` flushes
    /// the write-combine buffer, `sync_read` invalidates the lines.
    L1Only,
    /// Cached, write-back. On the SCC, L2 cannot be invalidated by
    /// software, so a region is never cached there: the grant is L1
    /// write-back (MPBT-WB), whose `sync_write` writes L1 back.
    Cached,
}

impl Attribute {
    /// The attribute's name.
    pub const fn name(self) -> &'static str {
        match self {
            Attribute::Uncached => "uncached",
            Attribute::WriteCombined => "write-combined",
            Attribute::L1Only => "cached in L1 only",
            Attribute::Cached => "cached",
        }
    }
}

/// What a region got for the attribute it asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Granted {
    /// The attribute that holds.
    pub attribute: Attribute,
    /// The memory type every core maps the region with.
    pub memory_type: MemoryType,
    /// Whether lines may sit in L2 (never: see [`Attribute::Cached`]).
    pub l2: bool,
}

impl Granted {
    /// What `requested` is granted.
    pub const fn of(requested: Attribute) -> Granted {
        let memory_type = match requested {
            Attribute::Uncached => MemoryType::Ncm,
            Attribute::WriteCombined => MemoryType::NcmWcb,
            Attribute::L1Only => MemoryType::MpbtWt,
            Attribute::Cached => MemoryType::MpbtWb,
        };
        Granted {
            attribute: requested,
            memory_type,
            l2: false,
        }
    }
}

/// A region's handle: the same on every core for the same collective
/// allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Region(pub u32);

/// A region as this core keeps it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RegionState {
    pub window: Window<u8>,
    pub size: u32,
    pub distribution: Distribution,
    pub granted: Granted,
    /// Bytes of each rank's part.
    pub part: u32,
    /// Lines of the region (cyclic and hashed).
    pub lines: u32,
    /// The hashed distribution's multiplier.
    pub multiplier: u32,
}

impl RegionState {
    /// Where byte `offset` lies: the rank, the byte in its part, and the
    /// bytes from there that lie on, consecutively, in the same part.
    pub fn locate(&self, ranks: u32, offset: u32) -> (u32, u32, u32) {
        match self.distribution {
            Distribution::OnCore(rank) => (rank, offset, self.size - offset),
            Distribution::Block => {
                let rank = offset / self.part;
                let within = offset % self.part;
                let run = (self.part - within).min(self.size - offset);
                (rank, within, run)
            }
            Distribution::Cyclic | Distribution::Hashed => {
                let line = offset / LINE;
                let line = if self.distribution == Distribution::Hashed {
                    ((u64::from(line) * u64::from(self.multiplier)) % u64::from(self.lines)) as u32
                } else {
                    line
                };
                let within = offset % LINE;
                let run = (LINE - within).min(self.size - offset);
                (line % ranks, (line / ranks) * LINE + within, run)
            }
        }
    }
}

/// Greatest common divisor.
const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// A multiplier prime to `lines` near the golden ratio of 2^32 (1 for
/// one line).
fn multiplier(lines: u32) -> u32 {
    if lines <= 1 {
        return 1;
    }
    let mut a = 0x9E37_79B1_u32 % lines;
    while a == 0 || gcd(u64::from(a), u64::from(lines)) != 1 {
        a = (a + 1) % lines;
    }
    a
}

impl<'h, H: RmaHal> Dsm<'h, H> {
    /// Allocates a region of `size` bytes, collectively: every core calls
    /// it with the same arguments. The region starts zeroed, and its
    /// handle is the same everywhere.
    ///
    /// Return values: the handle and the attribute granted;
    ///`Err(Distribution)` for [`Distribution::OnCore`] of a rank outside
    /// the run; `Err(Rma(NoMemory))` if a core's shared DRAM has no room
    /// for its part.
    pub fn alloc(
        &mut self,
        size: u32,
        distribution: Distribution,
        attribute: Attribute,
    ) -> Result<(Region, Granted), DsmError> {
        self.alloc_as(size, distribution, attribute, true)
    }

    /// [`Dsm::alloc`] without zeroing the region: for a region whose
    /// bytes are all written before they are read (an allocator's arena
    /// that hands out zeroed blocks itself), saving the stores of a
    /// zeroing pass.
    ///
    /// Return values: as [`Dsm::alloc`].
    pub fn alloc_unzeroed(
        &mut self,
        size: u32,
        distribution: Distribution,
        attribute: Attribute,
    ) -> Result<(Region, Granted), DsmError> {
        self.alloc_as(size, distribution, attribute, false)
    }

    /// [`Dsm::alloc`], zeroing the region if `zero`.
    fn alloc_as(
        &mut self,
        size: u32,
        distribution: Distribution,
        attribute: Attribute,
        zero: bool,
    ) -> Result<(Region, Granted), DsmError> {
        let start = self.now();
        let n = self.size();
        let me = self.rank();
        if let Distribution::OnCore(rank) = distribution
            && rank >= n
        {
            return Err(DsmError::Distribution { rank, size: n });
        }
        let lines = size.div_ceil(LINE);
        let part = match distribution {
            Distribution::OnCore(_) => size,
            Distribution::Block => size.div_ceil(n).div_ceil(LINE).max(1) * LINE,
            Distribution::Cyclic | Distribution::Hashed => lines.div_ceil(n) * LINE,
        };
        let mine = match distribution {
            Distribution::OnCore(rank) if rank != me => 0,
            _ => part,
        };
        let granted = Granted::of(attribute);
        let options = WindowOptions::new()
            .memory_type(granted.memory_type)
            .disp_unit(1);
        let window = self.rma.allocate::<u8>(mine, options)?;
        if zero && mine > 0 {
            self.rma
                .local_write(window, 0, &alloc::vec![0u8; mine as usize])?;
        }
        self.rma.lock_all(window, Assert::NONE)?;
        // Zeroes everywhere before anyone writes.
        self.rma.sync(window)?;
        self.rma.comm().barrier();
        let id = self.regions.len() as u32;
        self.regions.push(Some(RegionState {
            window,
            size,
            distribution,
            granted,
            part,
            lines,
            multiplier: multiplier(lines),
        }));
        self.stats.alloc.record(start, self.now());
        Ok((Region(id), granted))
    }

    /// Frees `region`, collectively.
    ///
    /// Return values: `Err(UnknownRegion)`.
    pub fn free(&mut self, region: Region) -> Result<(), DsmError> {
        let state = self.region(region)?;
        self.rma.unlock_all(state.window)?;
        self.rma.free(state.window)?;
        self.regions[region.0 as usize] = None;
        Ok(())
    }

    /// The region's state.
    pub(crate) fn region(&self, region: Region) -> Result<RegionState, DsmError> {
        self.regions
            .get(region.0 as usize)
            .copied()
            .flatten()
            .ok_or(DsmError::UnknownRegion(region.0))
    }

    /// The region's bytes and what it was granted.
    ///
    /// Return values: `Err(UnknownRegion)`.
    pub fn region_info(&self, region: Region) -> Result<(u32, Granted), DsmError> {
        let r = self.region(region)?;
        Ok((r.size, r.granted))
    }

    /// Where byte `offset` of `region` lies: the rank and the byte of its
    /// part.
    ///
    /// Return values: `Err(Range)` past the end.
    pub fn locate(&self, region: Region, offset: u32) -> Result<(u32, u32), DsmError> {
        let r = self.region(region)?;
        check_range("locate", &r, offset, 1)?;
        let (rank, at, _) = r.locate(self.size(), offset);
        Ok((rank, at))
    }

    /// Maps this core's part of `region` for good, for loads and stores by
    /// address (with the region's memory type): the LUT entry and the
    /// byte in its page where the part starts.
    ///
    /// Return values: `Err(UnknownRegion)`; `Err(Rma(NoMemory))` if no
    /// LUT entry is left to pin.
    pub fn map_local(&mut self, region: Region) -> Result<LocalMapping, DsmError> {
        let r = self.region(region)?;
        let me = self.rank();
        Ok(self.rma.pin_part(r.window, me)?)
    }

    /// Writes `data` into `region` from byte `offset`, on whichever cores
    /// hold those bytes. Visible to others after this core's
    /// [`Dsm::sync_write`] of a scope covering the region.
    ///
    /// Return values: `Err(UnknownRegion)`; `Err(Range)`.
    pub fn write(&mut self, region: Region, offset: u32, data: &[u8]) -> Result<(), DsmError> {
        let start = self.now();
        let r = self.region(region)?;
        check_range("write", &r, offset, data.len())?;
        let mut done = 0usize;
        while done < data.len() {
            let (rank, at, run) = r.locate(self.size(), offset + done as u32);
            let take = (run as usize).min(data.len() - done);
            self.rma.put(r.window, rank, at, &data[done..done + take])?;
            done += take;
        }
        self.stats.write.record(start, self.now());
        Ok(())
    }

    /// Reads `region` from byte `offset` into `buf`: what was in memory
    /// when the read ran, for lines this core has not cached; a cached
    /// line is as fresh as this core's last [`Dsm::sync_read`].
    ///
    /// Return values: as [`Dsm::write`].
    pub fn read(&mut self, region: Region, offset: u32, buf: &mut [u8]) -> Result<(), DsmError> {
        let start = self.now();
        let r = self.region(region)?;
        check_range("read", &r, offset, buf.len())?;
        let mut done = 0usize;
        while done < buf.len() {
            let (rank, at, run) = r.locate(self.size(), offset + done as u32);
            let take = (run as usize).min(buf.len() - done);
            self.rma
                .get(r.window, rank, at, &mut buf[done..done + take])?;
            done += take;
        }
        self.stats.read.record(start, self.now());
        Ok(())
    }

    /// Replaces the element at byte `offset` of `region` with `old op
    /// value` atomically (under its holder's test-and-set register) and
    /// returns `old`. [`AccumulateOp::NoOp`] reads, `Replace` swaps.
    ///
    /// Return values: as [`Dsm::write`], plus `Err(Unaligned)`.
    pub fn atomic<T: Accumulable>(
        &mut self,
        region: Region,
        offset: u32,
        value: T,
        op: AccumulateOp,
    ) -> Result<T, DsmError> {
        let start = self.now();
        let (window, rank, at) = self.element::<T>("atomic", region, offset)?;
        let old = self.rma.fetch_and_op(window, rank, at, value, op)?;
        self.stats.atomic.record(start, self.now());
        Ok(old)
    }

    /// Stores `value` at byte `offset` of `region` if the element there
    /// equals `compare`, atomically; returns the element as it was.
    ///
    /// Return values: as [`Dsm::atomic`].
    pub fn compare_swap<T: Accumulable>(
        &mut self,
        region: Region,
        offset: u32,
        compare: T,
        value: T,
    ) -> Result<T, DsmError> {
        let start = self.now();
        let (window, rank, at) = self.element::<T>("compare_swap", region, offset)?;
        let old = self
            .rma
            .compare_and_swap(window, rank, at, value, compare)?;
        self.stats.atomic.record(start, self.now());
        Ok(old)
    }

    /// The window (as one of `T`), rank and byte of the element of `T` at
    /// `offset`.
    fn element<T: Accumulable>(
        &self,
        call: &'static str,
        region: Region,
        offset: u32,
    ) -> Result<(Window<T>, u32, u32), DsmError> {
        let r = self.region(region)?;
        check_range(call, &r, offset, T::BYTES)?;
        if !offset.is_multiple_of(T::BYTES as u32) {
            return Err(DsmError::Unaligned {
                call,
                offset,
                size: T::BYTES as u32,
            });
        }
        let (rank, at, _) = r.locate(self.size(), offset);
        Ok((r.window.retype::<T>(), rank, at))
    }
}

/// `Err(Range)` unless `len` bytes from `offset` lie in the region.
fn check_range(
    call: &'static str,
    r: &RegionState,
    offset: u32,
    len: usize,
) -> Result<(), DsmError> {
    if u64::from(offset) + len as u64 > u64::from(r.size) {
        return Err(DsmError::Range {
            call,
            offset: offset.into(),
            len: len as u64,
            size: r.size.into(),
        });
    }
    Ok(())
}
