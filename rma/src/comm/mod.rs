// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two-sided communication and collectives over the MPBs: what the
//! one-sided layers build on.
//!
//! A [`Comm`] is one core's end of a communicator: [`Comm::new`] gives
//! the communicator of all cores of the run (ranks `0..cores`), and
//! [`Comm::split`], [`Comm::create`] and [`Comm::dup`] make communicators
//! of some of its ranks, as MPI's `MPI_Comm_split`, `MPI_Comm_create` and
//! `MPI_Comm_dup` do. Each offers a message channel ([`Comm::send`],
//! [`Comm::recv`], [`Comm::sendrecv`]), two barriers
//! ([`BarrierAlgorithm`]), [`Comm::bcast`], [`Comm::allgather`] and
//! [`Comm::allreduce`], all on its own ranks: ranks outside take no part.
//! [`Group`] gives MPI's process groups. Which MPB lines hold what is in
//! `layout.rs`.
//!
//! # Communicators and contexts
//! A communicator is its members' world ranks, in rank order, translated
//! once to core ids, and a context: 0 for the communicator of every core,
//! and for each communicator made from another one more than the highest
//! context any rank of the parent took part in (so two communicators
//! that share a core never share a context; disjoint ones made by one
//! split do, and never meet). Every message carries its context, and
//! whether a collective sent it (collectives and the program's
//! point-to-point messages travel apart, as in MPICH); a receive matches
//! only its own: a message of another communicator that
//! arrives first is taken into the inbox and kept for that one, so
//! traffic on one communicator never disturbs another. All communicators
//! of a core share its channel state (the counts and the inbox).
//! Barriers of the communicator of every core use the flag lines of
//! `layout.rs`; a barrier of any other communicator runs the same
//! algorithm with empty messages of its context, so concurrent barriers
//! on disjoint (or overlapping) communicators never share an MPB line.
//!
//! # Coherence discipline
//! MPB lines may sit in L1 (memory type MPBT) and writes pass through the
//! write-combine buffer (WCB), with no hardware coherence. Every protocol
//! here follows three rules (thesis 1.5):
//! 1. CL1INVMB before reading what another core wrote: a poll is
//!    "invalidate, then read the flag", and data is read right after the
//!    poll that saw its flag, with no MPB read in between.
//! 2. CL1INVMB before a batch of writes: a write that hits a line in L1
//!    would stay there (MPBT write-back) and a later CL1INVMB would drop
//!    it; after the invalidation every write misses L1 and goes to the WCB.
//! 3. Flush the WCB after writing data and before writing the flag that
//!    announces it, and again after the flag, so the flag is neither seen
//!    before the data nor left sitting in the buffer.
//!
//! # Channel protocol
//! Each core has one outgoing data buffer in its own MPB half
//! (`layout.rs`); receivers pull from it. A message of `L` bytes travels as
//! `max(1, ceil(L / C))` chunks of at most `C` bytes (`C` = the data
//! buffer, 6 KiB on the SCC). Per pair of ranks `p -> c` both sides count
//! chunks since boot; the counts live in the peer lines, each written by
//! one core only:
//!
//! - sender `p`, per chunk: wait until its buffer is free (the core that
//!   got the previous chunk, `d`, has acknowledged it: word 1 of peer
//!   line `d` in `p`'s half equals the chunks `p` sent to `d`);
//!   invalidate; write the chunk into its data buffer; flush; write `L`
//!   (word 2) and the new chunk count (word 0) into peer line `p` of
//!   `c`'s half; flush.
//! - receiver `c`, per chunk: poll peer line `p` of its own half until
//!   word 0 exceeds the chunks it received from `p`; read `L`; read the
//!   chunk from `p`'s data buffer; invalidate; write the new received count
//!   into word 1 of peer line `c` in `p`'s half; flush.
//!
//! # Receiving from any source
//! [`Comm::try_recv_any`] polls the peer lines of every source once,
//! starting after the source it polled last, takes at most one chunk per
//! source (the same receiver steps as above) and returns the first
//! message that is complete; a message of several chunks is assembled
//! over several calls, so the call never waits for a sender.
//! [`Comm::send_progressing`] is a send that, while its data buffer is
//! busy, takes whatever arrives into an inbox, so ranks that send to each
//! other without posting receives still progress. Per source, messages
//! keep their order: [`Comm::recv`] and [`Comm::try_recv_any`] return the
//! inbox and any half-assembled message from that source first. Both live
//! in the core's channel state, not the MPB: a new `Comm::new` on the core
//! does not see them.
//!
//! A send returns once its last chunk is published; the buffer is
//! reclaimed when the next send needs it, so a rank can send and then
//! receive in a ring without deadlock for messages up to `C` bytes.
//! [`Comm::sendrecv`] advances both directions in one loop and is
//! deadlock-free for any size; the collectives use it. Messages to self
//! go through a local queue. Since every count is kept in the MPB, a new
//! `Comm` on a core picks up where the previous one stopped.
#![forbid(unsafe_code)]

mod barrier;
mod channel;
mod collective;
mod communicator;
mod group;
pub(crate) mod layout;
mod reduce;
#[cfg(test)]
mod tests;

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::RefCell;

pub use barrier::BarrierAlgorithm;
use channel::Channel;
use chip::CoreId;
pub use communicator::UNDEFINED;
pub use group::Group;
pub(crate) use group::check_rank;
use layout::{CENTRAL_SENSE, DISSEMINATION, LINE, Layout};
/// The lines of each core's MPB half that rma leaves to programs: their own
/// flags go there; the rest of the half is rma's.
pub use layout::{PROGRAM_LINE_COUNT, PROGRAM_LINES};
pub use reduce::{Element, ReduceOp, Reducible};

use crate::RmaError;
use crate::hal::{Hal, MpbHalf};

/// What one core's communicator did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommStats {
    /// Messages sent (to self included).
    pub messages_sent: u64,
    /// Bytes in those messages.
    pub bytes_sent: u64,
    /// Messages received.
    pub messages_received: u64,
    /// Bytes in those messages.
    pub bytes_received: u64,
    /// Chunks that went through the data buffer.
    pub chunks_sent: u64,
    /// Barriers passed, both algorithms.
    pub barriers: u64,
    /// Clock cycles spent in the platform's waits, the polls that
    /// succeeded included.
    pub wait_cycles: u64,
}

/// One core's end of a communicator: the communicator of every core of
/// the run ([`Comm::new`]) or one made from another ([`Comm::split`],
/// [`Comm::create`], [`Comm::dup`]).
#[derive(Debug)]
pub struct Comm<'h, H: Hal> {
    hal: &'h H,
    layout: Layout,
    /// The core's channel state, shared by all its communicators.
    channel: Rc<RefCell<Channel>>,
    /// What this communicator's messages carry (0: every core's).
    context: u32,
    /// World rank of each rank, in rank order.
    members: Vec<u32>,
    /// Core of each rank: the translation, made once.
    cores: Vec<CoreId>,
    rank: u32,
    size: u32,
    /// Where the next any-source poll starts (a rank), so no source starves.
    next_any: u32,
    /// Sense of the last central barrier this core passed.
    sense: bool,
    /// Dissemination episodes this core passed.
    episode: u32,
    stats: CommStats,
}

impl<'h, H: Hal> Comm<'h, H> {
    /// This core's end of the communicator of every core of the run,
    /// continuing from whatever earlier communicators on this core did
    /// (the counts are read back from the MPB).
    ///
    /// Return values: `Err(MpbTooSmall)` if the chip's MPB cannot hold the
    /// `layout.rs`.
    pub fn new(hal: &'h H) -> Result<Self, RmaError> {
        let layout = Layout::for_chip(hal.chip())?;
        let rank = hal.rank();
        let size = hal.cores();
        let channel = Channel::new(hal, layout);
        // Where the barriers left off; other cores may be in the next
        // barrier already.
        let (sense, episode) = hal.read_ordered(|| {
            hal.invalidate_mpbt();
            let sense = hal.mpb_read_u32(MpbHalf::Own, CENTRAL_SENSE) != 0;
            let episode = if size > 1 {
                let next = hal.participant((rank + 1) % size);
                hal.mpb_read_u32(MpbHalf::Of(next), DISSEMINATION)
            } else {
                0
            };
            // The flags this core sets in the dissemination barrier's later
            // rounds, read once in the same poll: under modelled time,
            // stores to a line are ordered among the cores only once some
            // poll has read it, and the first poll of a flag its owner
            // waits on would otherwise race with this core's first store
            // to it. In the communicator of every core only this core sets
            // them, so nothing races with this read.
            let mut distance = 2;
            let mut round = 1;
            while distance < size {
                let to = hal.participant((rank + distance) % size);
                hal.mpb_read_u32(MpbHalf::Of(to), DISSEMINATION + round * LINE);
                distance *= 2;
                round += 1;
            }
            (sense, episode)
        });
        let members: Vec<u32> = (0..size).collect();
        Ok(Self {
            hal,
            layout,
            channel: Rc::new(RefCell::new(channel)),
            context: 0,
            cores: members.iter().map(|&m| hal.participant(m)).collect(),
            members,
            rank,
            size,
            next_any: 0,
            sense,
            episode,
            stats: CommStats::default(),
        })
    }

    /// This core's rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// Number of ranks.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The context this communicator's messages carry: 0 for the
    /// communicator of every core.
    pub fn context(&self) -> u32 {
        self.context
    }

    /// Whether this is the communicator of every core of the run, as
    /// [`Comm::new`] made it.
    pub fn is_world(&self) -> bool {
        self.context == 0
    }

    /// The group of this communicator's ranks, seen from this one
    /// (`MPI_Comm_group`): its members are world ranks in rank order.
    pub fn group(&self) -> Group {
        Group::of(self.hal.cores(), self.hal.rank(), self.members.clone())
    }

    /// World rank of each rank, in rank order.
    pub fn members(&self) -> &[u32] {
        &self.members
    }

    /// World rank of rank `rank`.
    ///
    /// Return values: `Err(Rank)` if `rank` is not below the size.
    pub fn world_rank(&self, rank: u32) -> Result<u32, RmaError> {
        check_rank("communicator rank", rank, self.size)?;
        Ok(self.members[rank as usize])
    }

    /// The core of rank `rank`, from the translation made when the
    /// communicator was.
    ///
    /// Return values: `Err(Rank)` if `rank` is not below the size.
    pub fn core(&self, rank: u32) -> Result<CoreId, RmaError> {
        check_rank("communicator rank", rank, self.size)?;
        Ok(self.cores[rank as usize])
    }

    /// The rank of the process with world rank `world`, if a member.
    pub fn rank_of_world(&self, world: u32) -> Option<u32> {
        self.members
            .iter()
            .position(|&m| m == world)
            .map(|p| p as u32)
    }

    /// The MPB layout in use.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// What this communicator did so far.
    pub fn stats(&self) -> CommStats {
        self.stats
    }

    /// The platform.
    pub fn hal(&self) -> &'h H {
        self.hal
    }

    /// Waits through the platform until `ready` returns a value, counting
    /// the cycles.
    fn wait<T>(&mut self, ready: impl FnMut(&mut Self) -> Option<T>) -> T {
        let hal = self.hal;
        let start = hal.cycles();
        let mut ready = ready;
        let value = hal.wait_for(|| ready(self));
        self.stats.wait_cycles += hal.cycles().saturating_sub(start);
        value
    }
}
