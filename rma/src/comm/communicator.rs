// SPDX-License-Identifier: MIT OR Apache-2.0
//! Making communicators from communicators: split, create, dup and free.
//!
//! Each call is collective over the parent: every rank of the parent
//! calls it, in the same order as its other collectives. The new
//! communicator's context is one more than the highest context any rank
//! of the parent took part in (the [module doc](super) says why that
//! keeps communicators that share a core apart).

#[cfg(test)]
mod tests;

use alloc::vec::Vec;

use super::Comm;
use super::group::Group;
use crate::RmaError;
use crate::hal::Hal;

/// The `color` of [`Comm::split`] for a rank that joins no new
/// communicator (`MPI_UNDEFINED`).
pub const UNDEFINED: Option<u32> = None;

/// The highest context: a message's context word holds the context
/// shifted left by one, above the bit of its plane.
pub(super) const MAX_CONTEXT: u32 = u32::MAX >> 1;

/// Reads the little-endian word `i` of `bytes`.
fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// Little-endian bytes of `words`.
fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl<'h, H: Hal> Comm<'h, H> {
    /// Splits this communicator, collectively (`MPI_Comm_split`): the ranks
    /// that pass the same `color` form a new communicator, ordered by
    /// `key`, then by their rank here. A rank that passes [`UNDEFINED`]
    /// joins none.
    ///
    /// Return values: `Ok(Some(_))` with this rank's new communicator;
    /// `Ok(None)` for [`UNDEFINED`]; `Err(NoContext)` (on every rank) if
    /// no context number is left.
    pub fn split(&mut self, color: Option<u32>, key: i32) -> Result<Option<Self>, RmaError> {
        let last = self.channel.borrow().last_context;
        let mine = bytes(&[
            u32::from(color.is_some()),
            color.unwrap_or(0),
            key as u32,
            last,
        ]);
        let mut all = alloc::vec![0; mine.len() * self.size as usize];
        self.allgather(&mine, &mut all)?;
        let entries = all.chunks_exact(mine.len());
        let highest = entries.clone().map(|e| word(e, 3)).max().unwrap_or(last);
        let context = self.adopt_context("comm_split", highest)?;
        let Some(color) = color else {
            return Ok(None);
        };
        let mut joining: Vec<(i32, u32)> = (0u32..)
            .zip(entries)
            .filter(|(_, e)| word(e, 0) == 1 && word(e, 1) == color)
            .map(|(rank, e)| (word(e, 2) as i32, rank))
            .collect();
        joining.sort_unstable();
        let members = joining
            .iter()
            .map(|&(_, rank)| self.members[rank as usize])
            .collect();
        Ok(Some(self.derive(context, members)))
    }

    /// Makes a communicator of the members of `group`, collectively over
    /// this communicator (`MPI_Comm_create`): every rank passes the same
    /// group, a subgroup of this communicator's ([`Comm::group`] and its
    /// [`Group::incl`] and [`Group::excl`]); its ranks are the group's.
    ///
    /// Return values: `Ok(Some(_))` on the group's members, `Ok(None)` on
    /// the other ranks; `Err(GroupMismatch)` for a group of another run
    /// and `Err(NotMember)` for one naming a process outside this
    /// communicator, on the ranks that passed it, and `Err(PeerFailed)` on
    /// the others; `Err(DifferentGroups)` on every rank if the ranks
    /// passed different groups; `Err(NoContext)` if no context number is
    /// left. Nothing is made on any rank when an error is returned.
    pub fn create(&mut self, group: &Group) -> Result<Option<Self>, RmaError> {
        const CALL: &str = "comm_create";
        let check = self.check_subgroup(CALL, group);
        let last = self.channel.borrow().last_context;
        let mine = bytes(&[u32::from(check.is_ok()), group.size(), last]);
        let mut all = alloc::vec![0; mine.len() * self.size as usize];
        self.allgather(&mine, &mut all)?;
        check?;
        let entries: Vec<&[u8]> = all.chunks_exact(mine.len()).collect();
        if let Some(rank) = entries.iter().position(|e| word(e, 0) == 0) {
            return Err(RmaError::PeerFailed {
                call: CALL,
                rank: rank as u32,
            });
        }
        let highest = entries.iter().map(|e| word(e, 2)).max().unwrap_or(last);
        // The same group everywhere: first the same size, then rank 0's
        // members, compared on every rank.
        let differs = entries
            .iter()
            .position(|e| word(e, 1) != word(entries[0], 1));
        let differs = match differs {
            Some(rank) => Some(rank),
            None => {
                let ours = bytes(group.members());
                let mut first = ours.clone();
                self.bcast(0, &mut first)?;
                let same = u32::from(first == ours).to_le_bytes();
                let mut all = alloc::vec![0; same.len() * self.size as usize];
                self.allgather(&same, &mut all)?;
                all.chunks_exact(same.len()).position(|s| word(s, 0) == 0)
            }
        };
        if let Some(rank) = differs {
            return Err(RmaError::DifferentGroups {
                call: CALL,
                rank: rank as u32,
            });
        }
        let context = self.adopt_context(CALL, highest)?;
        if group.rank_of_world(self.hal.rank()).is_none() {
            return Ok(None);
        }
        Ok(Some(self.derive(context, group.members().to_vec())))
    }

    /// A communicator of the same ranks in the same order with a context
    /// of its own, collectively (`MPI_Comm_dup`): its messages and
    /// collectives never meet this one's.
    ///
    /// Return values: `Err(NoContext)` if no context number is left.
    pub fn dup(&mut self) -> Result<Self, RmaError> {
        let mut last = [self.channel.borrow().last_context];
        self.allreduce(&mut last, super::ReduceOp::Max)?;
        let context = self.adopt_context("comm_dup", last[0])?;
        Ok(self.derive(context, self.members.clone()))
    }

    /// Frees this communicator, collectively (`MPI_Comm_free`): returns
    /// after a barrier, so no rank still has a message of it under way.
    /// Windows made on it keep working: each made a communicator of its
    /// own. A freed communicator cannot be used, as it is moved here:
    ///
    /// ```compile_fail
    /// # fn f<H: rma::hal::Hal>(mut comm: rma::comm::Comm<'_, H>) {
    /// comm.free();
    /// comm.barrier(); // error: borrow of moved value
    /// # }
    /// ```
    pub fn free(mut self) {
        self.barrier();
    }

    /// The highest context this core has taken part in: what the
    /// processes that make a communicator through [`Comm::join`] agree
    /// on by messages of their own.
    pub fn last_context(&self) -> u32 {
        self.channel.borrow().last_context
    }

    /// A communicator of `members` (world ranks, this core among them,
    /// in their new ranks' order) with `context`, which the members agreed
    /// on without a parent communicator of them all (MPI's
    /// intercommunicators and `MPI_Comm_create_group`): each member passes
    /// the same members and the same context, higher than every member's
    /// [`Comm::last_context`]. This core takes the context as its highest.
    ///
    /// Return values: `Err(NotMember)` if this core is not among
    /// `members`; `Err(NoContext)` for a context of 0 or above the highest.
    pub fn join(&mut self, context: u32, members: Vec<u32>) -> Result<Self, RmaError> {
        const CALL: &str = "comm_join";
        if !members.contains(&self.hal.rank()) {
            return Err(RmaError::NotMember {
                call: CALL,
                of: "the members of the new communicator",
                process: self.hal.rank(),
            });
        }
        let before = context
            .checked_sub(1)
            .ok_or(RmaError::NoContext { call: CALL })?;
        let context = self.adopt_context(CALL, before)?;
        Ok(self.derive(context, members))
    }

    /// `Err` unless `group` is drawn from this run and all its members are
    /// members here.
    pub(crate) fn check_subgroup(&self, call: &'static str, group: &Group) -> Result<(), RmaError> {
        if group.world_size() != self.hal.cores() {
            return Err(RmaError::GroupMismatch {
                first: group.world_size(),
                second: self.hal.cores(),
            });
        }
        match group
            .members()
            .iter()
            .find(|&&m| self.rank_of_world(m).is_none())
        {
            Some(&process) => Err(RmaError::NotMember {
                call,
                of: "the parent communicator",
                process,
            }),
            None => Ok(()),
        }
    }

    /// Takes the context after `highest` (agreed by every rank of the
    /// parent) as this core's highest.
    fn adopt_context(&mut self, call: &'static str, highest: u32) -> Result<u32, RmaError> {
        let context = highest
            .checked_add(1)
            .filter(|&c| c <= MAX_CONTEXT)
            .ok_or(RmaError::NoContext { call })?;
        self.channel
            .borrow_mut()
            .set_last_context(self.hal, self.layout, context);
        Ok(context)
    }

    /// The communicator of `members` (world ranks, this core among them)
    /// with `context`, sharing this core's channel.
    fn derive(&self, context: u32, members: Vec<u32>) -> Self {
        let hal = self.hal;
        let rank = members
            .iter()
            .position(|&m| m == hal.rank())
            .expect("this core is a member") as u32;
        Self {
            hal,
            layout: self.layout,
            channel: self.channel.clone(),
            context,
            cores: members.iter().map(|&m| hal.participant(m)).collect(),
            size: members.len() as u32,
            members,
            rank,
            next_any: 0,
            sense: false,
            episode: 0,
            stats: super::CommStats::default(),
        }
    }
}
