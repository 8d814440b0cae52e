// SPDX-License-Identifier: MIT OR Apache-2.0
//! Process groups, as in MPI: an ordered set of ranks of the run.
//!
//! A group lists members by their rank in the run (the "world"); a
//! member's rank in the group is its position in that list. Groups are
//! local objects: making one involves no communication.

use alloc::vec::Vec;

use crate::RmaError;

/// An ordered set of distinct processes of a run of `world` processes,
/// seen from one of them (the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// World rank of each member, in group-rank order.
    members: Vec<u32>,
    /// Processes in the run the members are drawn from.
    world: u32,
    /// The caller's world rank.
    caller: u32,
}

impl Group {
    /// Every process of a run of `world`, in rank order, seen from `caller`.
    ///
    /// Return values: `Err(Rank)` if `caller` is not below `world`.
    pub fn world(world: u32, caller: u32) -> Result<Self, RmaError> {
        check_rank("caller", caller, world)?;
        Ok(Self {
            members: (0..world).collect(),
            world,
            caller,
        })
    }

    /// The group of `members` (distinct world ranks below `world`, in
    /// group-rank order), seen from `caller`.
    pub(crate) fn of(world: u32, caller: u32, members: Vec<u32>) -> Self {
        debug_assert!(members.iter().all(|&m| m < world));
        Self {
            members,
            world,
            caller,
        }
    }

    /// Processes in the run the members are drawn from.
    pub fn world_size(&self) -> u32 {
        self.world
    }

    /// World rank of each member, in group-rank order.
    pub fn members(&self) -> &[u32] {
        &self.members
    }

    /// Number of members.
    pub fn size(&self) -> u32 {
        self.members.len() as u32
    }

    /// The caller's rank in this group, or `None` if it is not a member
    /// (MPI's `MPI_UNDEFINED`).
    pub fn rank(&self) -> Option<u32> {
        self.rank_of_world(self.caller)
    }

    /// World rank of the member with group rank `rank`.
    ///
    /// Return values: `Err(Rank)` if `rank` is not below [`size`](Self::size).
    pub fn world_rank(&self, rank: u32) -> Result<u32, RmaError> {
        check_rank("group rank", rank, self.size())?;
        Ok(self.members[rank as usize])
    }

    /// Group rank of the process with world rank `world_rank`, if a member.
    pub fn rank_of_world(&self, world_rank: u32) -> Option<u32> {
        self.members
            .iter()
            .position(|&m| m == world_rank)
            .map(|p| p as u32)
    }

    /// The members at `ranks` (ranks of this group), in that order
    /// (`MPI_Group_incl`).
    ///
    /// Return values: `Err(Rank)` if a rank is out of range or appears twice.
    pub fn incl(&self, ranks: &[u32]) -> Result<Self, RmaError> {
        self.check_distinct("Group::incl", ranks)?;
        Ok(Self {
            members: ranks.iter().map(|&r| self.members[r as usize]).collect(),
            world: self.world,
            caller: self.caller,
        })
    }

    /// The members not at `ranks`, in their order here (`MPI_Group_excl`).
    ///
    /// Return values: `Err(Rank)` if a rank is out of range or appears twice.
    pub fn excl(&self, ranks: &[u32]) -> Result<Self, RmaError> {
        self.check_distinct("Group::excl", ranks)?;
        Ok(Self {
            members: self
                .members
                .iter()
                .enumerate()
                .filter(|(i, _)| !ranks.contains(&(*i as u32)))
                .map(|(_, &m)| m)
                .collect(),
            world: self.world,
            caller: self.caller,
        })
    }

    /// The rank in `other` of each process at `ranks` here, `None` where it
    /// is not a member of `other` (`MPI_Group_translate_ranks`).
    ///
    /// Return values: `Err(Rank)` if a rank is out of range here;
    /// `Err(GroupMismatch)` if the groups come from runs of different size.
    pub fn translate_ranks(
        &self,
        ranks: &[u32],
        other: &Group,
    ) -> Result<Vec<Option<u32>>, RmaError> {
        if self.world != other.world {
            return Err(RmaError::GroupMismatch {
                first: self.world,
                second: other.world,
            });
        }
        ranks
            .iter()
            .map(|&r| Ok(other.rank_of_world(self.world_rank(r)?)))
            .collect()
    }

    fn check_distinct(&self, operation: &'static str, ranks: &[u32]) -> Result<(), RmaError> {
        let mut seen = alloc::vec![false; self.members.len()];
        for &rank in ranks {
            check_rank("rank", rank, self.size())?;
            if core::mem::replace(&mut seen[rank as usize], true) {
                return Err(RmaError::DuplicateRank { operation, rank });
            }
        }
        Ok(())
    }
}

/// `Err(Rank)` unless `rank < size`.
pub(crate) fn check_rank(role: &'static str, rank: u32, size: u32) -> Result<(), RmaError> {
    if rank < size {
        Ok(())
    } else {
        Err(RmaError::Rank { role, rank, size })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    #[test]
    fn incl_excl_and_translation_follow_mpi() {
        let world = Group::world(8, 5).unwrap();
        assert_eq!((world.size(), world.rank()), (8, Some(5)));

        let odd = world.incl(&[7, 5, 3, 1]).unwrap();
        assert_eq!(odd.size(), 4);
        assert_eq!(odd.rank(), Some(1), "world 5 is second in the list");
        assert_eq!(odd.world_rank(0), Ok(7));

        let even = world.excl(&[1, 3, 5, 7]).unwrap();
        assert_eq!(even.size(), 4);
        assert_eq!(even.rank(), None, "world 5 was excluded");
        assert_eq!(even.world_rank(3), Ok(6));

        // Ranks of `odd` in `world`, and in `even` (no overlap).
        assert_eq!(
            odd.translate_ranks(&[0, 1, 2, 3], &world).unwrap(),
            [Some(7), Some(5), Some(3), Some(1)]
        );
        assert_eq!(odd.translate_ranks(&[0, 3], &even).unwrap(), [None, None]);
        // A subgroup of a subgroup: rank 1 of `odd` (world 5) is rank 0 here.
        let sub = odd.incl(&[1, 2]).unwrap();
        assert_eq!(
            sub.translate_ranks(&[0, 1], &odd).unwrap(),
            [Some(1), Some(2)]
        );
        assert_eq!(sub.rank(), Some(0));

        let empty = world.excl(&[0, 1, 2, 3, 4, 5, 6, 7]).unwrap();
        assert_eq!((empty.size(), empty.rank()), (0, None));
        assert_eq!(world.incl(&[]).unwrap(), empty);
    }

    #[test]
    fn bad_group_operations_name_what_was_wrong() {
        let world = Group::world(4, 0).unwrap();
        let e = world.incl(&[0, 4]).unwrap_err();
        assert_eq!(
            e,
            RmaError::Rank {
                role: "rank",
                rank: 4,
                size: 4
            }
        );
        assert_eq!(e.class(), ErrorClass::Rank);
        let e = world.excl(&[2, 1, 2]).unwrap_err();
        assert_eq!(
            e,
            RmaError::DuplicateRank {
                operation: "Group::excl",
                rank: 2
            }
        );
        assert_eq!(e.class(), ErrorClass::Rank);
        let other = Group::world(8, 0).unwrap();
        let e = world.translate_ranks(&[0], &other).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Group);
        let e = world
            .incl(&[1, 2])
            .unwrap()
            .translate_ranks(&[2], &world)
            .unwrap_err();
        assert_eq!(
            e,
            RmaError::Rank {
                role: "group rank",
                rank: 2,
                size: 2
            }
        );
        assert_eq!(Group::world(4, 4).unwrap_err().class(), ErrorClass::Rank);
    }
}
