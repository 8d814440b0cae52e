// SPDX-License-Identifier: MIT OR Apache-2.0
//! Dynamic windows (`MPI_Win_create_dynamic`): windows made without
//! memory, to which each rank attaches memory from [`Rma::alloc_mem`] and
//! detaches it again, locally and as often as it likes ([`Rma::attach`],
//! [`Rma::detach`], `MPI_Win_attach` and `MPI_Win_detach`).
//!
//! A dynamic window's displacements are addresses (displacement unit 1):
//! by default the offset of a byte in its rank's POPSHM, as
//! [`Rma::address`] gives it for memory from `alloc_mem`; memory attached
//! with [`Rma::attach_at`] is reached at addresses of the owner's choosing
//! instead (the program's own, for `MPI_Get_address`, which may be asked
//! for before the attach). The window's base (`MPI_BOTTOM`, its
//! `MPI_WIN_BASE`) is address 0. An access with address `a` inside
//! attached memory reaches the bytes it stands for in the target's
//! POPSHM through the same LUT mappings, memory types and coherence
//! actions as an access to any other window; epochs work as for any
//! window.
//!
//! What is checked, and where:
//! - every access: the bytes its addresses stand for lie inside the
//!   target's POPSHM, else `Err(Range)`;
//! - an access to this core's own part: its bytes lie inside one memory
//!   this core attached to the window, else `Err(Unattached)`;
//! - an access to another rank's part: its bytes lie inside one memory the
//!   target lists in its attachment table, as this core last read it,
//!   else `Err(Unattached)`.
//!
//! Each rank publishes the memory it attached (offset and bytes) in an
//! attachment table of the window database, at the controller of its
//! record ([`super::database`]), changing it at each attach and detach
//! under a sequence number. An origin keeps a copy of each target's table
//! and reads the table again at its first access to that target after a
//! call that opens an epoch of the window (fence, start, lock, lock_all;
//! in a start epoch after the access waited for the target's post), and
//! whenever an access falls outside its copy: as one poll, which reads
//! only the sequence number when the table has not changed. So memory
//! attached before the origin could know its address is always found, and
//! further accesses in the epoch read nothing more than other windows'
//! do. Memory detached since the origin's last read may still pass: MPI
//! makes accessing it erroneous, and only synchronisation, which the
//! program must provide, keeps a target from detaching memory under an
//! access anyway. An access may span memories attached one after the
//! other when they also lie one after the other in the POPSHM (memory
//! from consecutive `alloc_mem` calls, such as the public copies of two
//! halves of an array); one spanning a gap in either is refused.
#![forbid(unsafe_code)]

use alloc::vec::Vec;

use super::database::{self, Record, Region, TableRead};
use super::{Flavor, Memory, Rma, Window, WindowOptions, WindowState};
use crate::RmaError;
use crate::comm::{Comm, Element};
use crate::hal::RmaHal;

/// A dynamic window's attachments, as one core keeps them.
#[derive(Debug)]
pub(crate) struct Dynamic {
    /// Where this core's attachment table lies.
    table: Record,
    /// The regions it has room for.
    room: u32,
    /// The first table, a record's bytes, which goes back with the
    /// window's record; tables it grew out of stay the window's.
    first: Record,
    /// The table's sequence number (even).
    sequence: u32,
    /// The memory this core attached, by handle number, in the table's
    /// order.
    attached: Vec<u32>,
    /// The address each is reached at, its bytes and where it lies in the
    /// POPSHM, as the table lists them.
    regions: Vec<Region>,
    /// Per rank, its table as this core last read it.
    copies: Vec<Copy>,
}

/// A target's attachment table as an origin last read it.
#[derive(Debug, Clone)]
struct Copy {
    /// Its sequence number; odd before the first read (a table read is
    /// never odd).
    sequence: u32,
    /// The window's epochs opened by this core when it was read.
    epochs: u64,
    regions: Vec<Region>,
}

impl Dynamic {
    /// A dynamic window of `size` ranks whose table (empty) lies at `table`.
    pub(crate) fn new(table: Record, room: u32, size: u32) -> Self {
        let copy = Copy {
            sequence: u32::MAX,
            epochs: 0,
            regions: Vec::new(),
        };
        Self {
            table,
            room,
            first: table,
            sequence: 0,
            attached: Vec::new(),
            regions: Vec::new(),
            copies: alloc::vec![copy; size as usize],
        }
    }

    /// Where this core's first attachment table lies (a record's bytes).
    pub(crate) fn first_table(&self) -> Record {
        self.first
    }
}

/// Where `len` bytes at `address` lie in the POPSHM, if inside one of
/// `regions`, or inside several that follow each other without a gap both
/// at their addresses and in the POPSHM (memory attached in adjacent
/// pieces: its bytes are one run there too).
fn locate(regions: &[Region], address: u64, len: u64) -> Option<u64> {
    let containing = |a: u64| {
        regions.iter().find(|&&(at, bytes, _)| {
            let at = u64::from(at);
            a >= at && a < at + u64::from(bytes)
        })
    };
    let &(at, bytes, offset) = containing(address)?;
    let start = u64::from(offset) + (address - u64::from(at));
    let (mut end, mut popshm_end) = (
        u64::from(at) + u64::from(bytes),
        u64::from(offset) + u64::from(bytes),
    );
    while address + len > end {
        let &(next, bytes, offset) = containing(end)?;
        if u64::from(next) != end || u64::from(offset) != popshm_end {
            return None;
        }
        end += u64::from(bytes);
        popshm_end += u64::from(bytes);
    }
    Some(start)
}

/// Epochs of window `w` this core has opened: fences, starts, locks.
fn epochs(w: &WindowState) -> u64 {
    w.stats.fences + w.stats.starts + w.stats.locks
}

impl<'h, H: RmaHal> Rma<'h, H> {
    /// Makes a window without memory, collectively
    /// (`MPI_Win_create_dynamic`): each rank then attaches memory to its
    /// part ([`Rma::attach`]) and others reach it by address
    /// ([`Rma::address`]), in bytes: the window's displacement unit is 1.
    /// The options' memory types, coherence, lock scheme, database and
    /// info keys apply as for [`Rma::create`]. Each rank takes a record
    /// and an attachment table of the window database.
    ///
    /// Return values: `Err(DispUnit)` if the options set a displacement
    /// unit other than 1; `Err(NoMemory)` if the window database is full;
    /// `Err(PeerFailed)` as [`Rma::create`].
    pub fn create_dynamic<T: Element>(
        &mut self,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.create_window("create_dynamic", None, Ok(None), Flavor::Dynamic, options)
    }

    /// [`Rma::create_dynamic`] over `comm`, as [`Rma::allocate_on`] is
    /// [`Rma::allocate`] over it.
    ///
    /// Return values: as [`Rma::create_dynamic`] and [`Rma::allocate_on`].
    pub fn create_dynamic_on<T: Element>(
        &mut self,
        comm: &mut Comm<'h, H>,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.create_window(
            "create_dynamic",
            Some(comm),
            Ok(None),
            Flavor::Dynamic,
            options,
        )
    }

    /// The address of `memory`'s first byte: its offset in this core's
    /// POPSHM, the displacement that reaches it in a dynamic window of
    /// this core once [`Rma::attach`] attached it ([`Rma::attach_at`]
    /// takes another). A `u32`, as every displacement of rma's calls is
    /// (the POPSHM holds less than 4 GiB).
    ///
    /// Return values: `Err(UnknownMemory)` once freed.
    pub fn address(&self, memory: Memory) -> Result<u32, RmaError> {
        Ok(self.memory(memory.id)?.offset)
    }

    /// Attaches `memory` to this core's part of a dynamic window
    /// (`MPI_Win_attach`), locally: accesses by address reach it from now
    /// on, until it is detached or the window freed. It cannot be freed
    /// while attached. The window's other uses of the same memory (a
    /// window made on it, [`Rma::memory_read`]) stay possible, as MPI lets
    /// windows overlap.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` unless the
    /// window is dynamic; `Err(UnknownMemory)`; `Err(Attach)` if `memory`
    /// is attached to the window already; `Err(NoMemory)` if its
    /// attachment table is full and the window database has no room for
    /// one twice as large (the table grows: see [`database`]).
    pub fn attach<T>(&mut self, window: Window<T>, memory: Memory) -> Result<(), RmaError> {
        let address = self.memory(memory.id)?.offset;
        self.attach_at(window, memory, address)
    }

    /// [`Rma::attach`], with accesses reaching `memory`'s first byte at
    /// `address` instead of its POPSHM offset: an address of the
    /// program's choosing, which it may have handed out before attaching
    /// (`MPI_Get_address` on memory a public copy stands for). Addresses
    /// of one core's attached memory must not overlap.
    ///
    /// Return values: as [`Rma::attach`]; `Err(Attach)` also if the
    /// memory's addresses overlap memory attached already.
    pub fn attach_at<T>(
        &mut self,
        window: Window<T>,
        memory: Memory,
        address: u32,
    ) -> Result<(), RmaError> {
        let id = window.id();
        self.dynamic_window("attach", id)?;
        let state = self.memory(memory.id)?;
        let hal = self.hal;
        let d = self.dynamic_mut(id);
        let fail = |problem| RmaError::Attach {
            call: "attach",
            window: id,
            memory: memory.id,
            problem,
        };
        if d.attached.contains(&memory.id) {
            return Err(fail("is attached to it already"));
        }
        if state.home.is_some() {
            return Err(fail(
                "lies in another core's POPSHM (a part of a contiguous shared window): only this \
                 core's own memory is attached",
            ));
        }
        let end = u64::from(address) + u64::from(state.size);
        if end > 1 << 32 {
            return Err(fail("would end past the last address, 2^32"));
        }
        let overlaps = d.regions.iter().any(|&(at, bytes, _)| {
            u64::from(address) < u64::from(at) + u64::from(bytes) && u64::from(at) < end
        });
        if overlaps && state.size > 0 {
            return Err(fail("has addresses of memory attached already"));
        }
        d.regions.push((address, state.size, state.offset));
        if d.regions.len() > d.room as usize {
            // Full: every entry into a table twice as large.
            let room = d.room * 2;
            let grown = match database::allocate_table(hal, d.table.controller, room) {
                Ok(grown) => grown,
                Err(e) => {
                    d.regions.pop();
                    return Err(e);
                }
            };
            database::clear_table(hal, grown, room, d.sequence);
            let all = 0..d.regions.len();
            d.sequence = database::write_table(hal, grown, d.sequence, &d.regions, all);
            database::move_table(hal, d.table, grown);
            d.table = grown;
            d.room = room;
        } else {
            let k = d.regions.len() - 1;
            d.sequence = database::write_table(hal, d.table, d.sequence, &d.regions, k..k + 1);
        }
        d.attached.push(memory.id);
        Ok(())
    }

    /// Detaches `memory` from this core's part of a dynamic window
    /// (`MPI_Win_detach`), locally. No access may reach it any more: the
    /// program ensures, by synchronisation, that none is under way.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` unless the
    /// window is dynamic; `Err(UnknownMemory)`; `Err(Attach)` if `memory`
    /// is not attached to the window.
    pub fn detach<T>(&mut self, window: Window<T>, memory: Memory) -> Result<(), RmaError> {
        let id = window.id();
        self.dynamic_window("detach", id)?;
        self.memory(memory.id)?;
        let hal = self.hal;
        let d = self.dynamic_mut(id);
        let Some(k) = d.attached.iter().position(|&m| m == memory.id) else {
            return Err(RmaError::Attach {
                call: "detach",
                window: id,
                memory: memory.id,
                problem: "is not attached to it",
            });
        };
        d.attached.swap_remove(k);
        d.regions.swap_remove(k);
        // The last entry moved into the detached one's place, if any.
        let changed = k..(k + 1).min(d.regions.len());
        d.sequence = database::write_table(hal, d.table, d.sequence, &d.regions, changed);
        Ok(())
    }

    /// A dynamic window `memory` is attached to, if any.
    pub(crate) fn attached_to(&self, memory: u32) -> Option<u32> {
        (0u32..)
            .zip(&self.windows)
            .find(|(_, w)| {
                w.as_ref()
                    .and_then(|w| w.dynamic.as_ref())
                    .is_some_and(|d| d.attached.contains(&memory))
            })
            .map(|(id, _)| id)
    }

    /// Window `id` if it is dynamic, else `Err(Flavor)` naming `call`.
    fn dynamic_window(&self, call: &'static str, id: u32) -> Result<&WindowState, RmaError> {
        let w = self.window(id)?;
        if w.dynamic.is_some() {
            Ok(w)
        } else {
            Err(RmaError::Flavor {
                call,
                window: id,
                needs: "a window made by create_dynamic",
            })
        }
    }

    /// The attachments of dynamic window `id`, which the caller checked.
    pub(super) fn dynamic_mut(&mut self, id: u32) -> &mut Dynamic {
        self.windows[id as usize]
            .as_mut()
            .and_then(|w| w.dynamic.as_mut())
            .expect("callers checked the window is dynamic")
    }

    /// Where `len` bytes at `address` of `target`'s part of dynamic window
    /// `id` lie in its POPSHM, if inside memory it attached, as far as
    /// this core knows, else `Err(Unattached)`: see the module's
    /// description. Origins check after a start epoch's wait for the
    /// target's post, so memory attached before the post is found.
    pub(crate) fn check_attached(
        &mut self,
        call: &'static str,
        id: u32,
        target: u32,
        address: u64,
        len: u64,
    ) -> Result<u64, RmaError> {
        if len == 0 {
            // Reaches no byte.
            return Ok(address);
        }
        let hal = self.hal;
        let w = self.window_mut(id)?;
        let unattached = RmaError::Unattached {
            call,
            window: id,
            target,
            address,
            len,
        };
        let epochs = epochs(w);
        let me = w.ranks.rank;
        let remote = &mut w.remotes[target as usize];
        let d = w.dynamic.as_mut().expect("a dynamic window");
        if target == me {
            return locate(&d.regions, address, len).ok_or(unattached);
        }
        let copy = &mut d.copies[target as usize];
        if copy.epochs == epochs
            && let Some(at) = locate(&copy.regions, address, len)
        {
            return Ok(at);
        }
        let known = copy.sequence;
        loop {
            let table = Record {
                controller: remote.record.controller,
                offset: remote.info.table,
            };
            // The owner may be changing it: read it as a poll, again until
            // whole.
            match hal.wait_for(|| database::read_table(hal, table, known)) {
                TableRead::Moved(offset) => remote.info.table = offset,
                TableRead::Known(sequence) => {
                    copy.sequence = sequence;
                    break;
                }
                TableRead::Changed(sequence, regions) => {
                    copy.sequence = sequence;
                    copy.regions = regions;
                    break;
                }
            }
        }
        copy.epochs = epochs;
        locate(&copy.regions, address, len).ok_or(unattached)
    }
}
