// SPDX-License-Identifier: MIT OR Apache-2.0
//! Access and exposure epochs: the state machines every one-sided call
//! checks, and the assertions the synchronisation calls accept.
//!
//! As in MPICH (`MPIDIG_EPOTYPE_*`), a fence that does not assert
//! `NOSUCCEED` leaves both epochs in [`AccessEpoch::Refence`] /
//! [`ExposureEpoch::Refence`]: the next fence may close them, and so may
//! a start or post, which then open a PSCW epoch instead. The first
//! operation after such a fence turns the access epoch into
//! [`AccessEpoch::Fence`]. Passive-target epochs ([`AccessEpoch::Lock`],
//! [`AccessEpoch::LockAll`]) may open from no epoch or from such a fence
//! epoch without operations, and exclude fence and PSCW access epochs
//! while open. Misuse returns [`RmaError::Sync`] (class `MPI_ERR_RMA_SYNC`)
//! naming the call and what was wrong, or [`RmaError::Lock`] when it is
//! about one target of a passive-target call.
#![forbid(unsafe_code)]

use alloc::vec::Vec;
use core::ops::BitOr;

use crate::RmaError;

/// MPI's assertions (`MPI_MODE_*`): promises that let a synchronisation
/// call skip work. They combine with `|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Assert(u8);

impl Assert {
    /// No promise.
    pub const NONE: Assert = Assert(0);
    /// `MPI_MODE_NOCHECK` (start, post): the matching call has already
    /// been made. Accepted and ignored: the match bits are cheap.
    pub const NOCHECK: Assert = Assert(1);
    /// `MPI_MODE_NOSTORE` (post, fence): no local store to the window since
    /// the last synchronisation, so no release of the local window.
    pub const NOSTORE: Assert = Assert(2);
    /// `MPI_MODE_NOPUT` (post, fence): no put into the window until the
    /// next synchronisation, so no invalidation when the epoch ends.
    pub const NOPUT: Assert = Assert(4);
    /// `MPI_MODE_NOPRECEDE` (fence): the fence completes no operations of
    /// this core, so nothing to release for them.
    pub const NOPRECEDE: Assert = Assert(8);
    /// `MPI_MODE_NOSUCCEED` (fence): no operations follow before the next
    /// fence; the fence opens no epoch.
    pub const NOSUCCEED: Assert = Assert(16);

    const NAMES: [(Assert, &'static str); 5] = [
        (Self::NOCHECK, "MPI_MODE_NOCHECK"),
        (Self::NOSTORE, "MPI_MODE_NOSTORE"),
        (Self::NOPUT, "MPI_MODE_NOPUT"),
        (Self::NOPRECEDE, "MPI_MODE_NOPRECEDE"),
        (Self::NOSUCCEED, "MPI_MODE_NOSUCCEED"),
    ];

    /// Whether every assertion of `other` is made.
    pub const fn contains(self, other: Assert) -> bool {
        self.0 & other.0 == other.0
    }

    /// `Err(Assert)` naming the first assertion `call` does not accept.
    pub(crate) fn check(self, call: &'static str, allowed: Assert) -> Result<(), RmaError> {
        match Self::NAMES
            .iter()
            .find(|(a, _)| self.contains(*a) && !allowed.contains(*a))
        {
            Some((_, name)) => Err(RmaError::Assert {
                call,
                invalid: name,
            }),
            None => Ok(()),
        }
    }
}

impl BitOr for Assert {
    type Output = Assert;
    fn bitor(self, other: Assert) -> Assert {
        Assert(self.0 | other.0)
    }
}

/// The kind of a passive-target lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockType {
    /// `MPI_LOCK_EXCLUSIVE`: no other lock on the target at the same time.
    Exclusive,
    /// `MPI_LOCK_SHARED`: other shared locks (and `lock_all`) may be held
    /// at the same time.
    Shared,
}

/// One target locked in a passive-target epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locked {
    /// The target's rank.
    pub rank: u32,
    /// The lock's kind.
    pub kind: LockType,
    /// Whether the lock was taken in the lock counters; `false` when
    /// `MPI_MODE_NOCHECK` was asserted, so unlock releases nothing.
    pub taken: bool,
}

/// The lists of rank that ended epochs leave behind, kept for the next
/// epochs of the window: opening and closing an epoch then does not reach
/// the heap, whose first-fit search takes longer the more blocks earlier
/// allocations left free.
#[derive(Debug, Default)]
pub struct Spare {
    /// A start group's targets.
    pub targets: Vec<u32>,
    /// A post group's origins.
    pub origins: Vec<u32>,
    /// A lock epoch's locked targets.
    pub locked: Vec<Locked>,
}

/// `spare`, emptied, leaving an empty list in its place.
pub fn reuse<T>(spare: &mut Vec<T>) -> Vec<T> {
    let mut list = core::mem::take(spare);
    list.clear();
    list
}

/// This core's access epoch on one window (it as origin).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AccessEpoch {
    /// No epoch: operations are refused.
    #[default]
    None,
    /// A fence opened an epoch, and no operation happened yet.
    Refence,
    /// A fence opened an epoch, and `operations` happened since.
    Fence {
        /// Puts and gets since the fence.
        operations: u64,
    },
    /// Start opened an epoch for these targets (world ranks, in the start
    /// group's order).
    Start {
        /// The targets.
        targets: Vec<u32>,
    },
    /// Lock opened a passive-target epoch for these targets, in lock order.
    Lock {
        /// The targets locked and not yet unlocked.
        targets: Vec<Locked>,
    },
    /// Lock_all opened a passive-target epoch to every rank.
    LockAll {
        /// Whether the global counter was raised (`false` under
        /// `MPI_MODE_NOCHECK`).
        taken: bool,
    },
}

/// This core's exposure epoch on one window (it as target).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ExposureEpoch {
    /// No epoch.
    #[default]
    None,
    /// A fence opened an epoch (closed by the next fence).
    Refence,
    /// Post opened an epoch for these origins (world ranks).
    Post {
        /// The origins.
        origins: Vec<u32>,
        /// Post asserted `MPI_MODE_NOPUT`: wait skips the invalidation.
        noput: bool,
    },
}

impl AccessEpoch {
    /// Short description, for messages.
    pub const fn name(&self) -> &'static str {
        match self {
            Self::None => "no access epoch",
            Self::Refence | Self::Fence { .. } => "a fence access epoch",
            Self::Start { .. } => "a start access epoch",
            Self::Lock { .. } => "a lock access epoch",
            Self::LockAll { .. } => "a lock_all access epoch",
        }
    }

    /// The lock held on `rank`, in a lock epoch.
    pub fn locked(&self, rank: u32) -> Option<Locked> {
        match self {
            Self::Lock { targets } => targets.iter().copied().find(|l| l.rank == rank),
            _ => None,
        }
    }
}

/// Checks that `call` may run with these epochs, `Err(Sync)` otherwise.
pub(crate) struct Check {
    pub call: &'static str,
    pub window: u32,
}

impl Check {
    fn fail(&self, problem: &'static str) -> RmaError {
        RmaError::Sync {
            call: self.call,
            window: self.window,
            problem,
        }
    }

    /// A fence: no PSCW epoch may be open.
    pub fn fence(&self, access: &AccessEpoch, exposure: &ExposureEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::Start { .. } => {
                return Err(self.fail("a start access epoch is open (call complete first)"));
            }
            AccessEpoch::Lock { .. } | AccessEpoch::LockAll { .. } => {
                return Err(self.passive_open());
            }
            _ => {}
        }
        if matches!(exposure, ExposureEpoch::Post { .. }) {
            return Err(self.fail("a post exposure epoch is open (call wait first)"));
        }
        Ok(())
    }

    fn passive_open(&self) -> RmaError {
        self.fail("a passive-target epoch is open (call unlock or unlock_all first)")
    }

    fn lock_error(&self, rank: u32, problem: &'static str) -> RmaError {
        RmaError::Lock {
            call: self.call,
            window: self.window,
            rank,
            problem,
        }
    }

    /// A lock of `target`: no epoch but a fence's without operations, or a
    /// lock epoch that does not hold `target` yet.
    pub fn lock(&self, access: &AccessEpoch, target: u32) -> Result<(), RmaError> {
        match access {
            AccessEpoch::None | AccessEpoch::Refence => Ok(()),
            AccessEpoch::Lock { .. } if access.locked(target).is_some() => {
                Err(self.lock_error(target, "is already locked by this core (call unlock first)"))
            }
            AccessEpoch::Lock { .. } => Ok(()),
            AccessEpoch::LockAll { .. } => {
                Err(self.fail("a lock_all epoch is open (call unlock_all first)"))
            }
            AccessEpoch::Fence { .. } => Err(self.fail(
                "a fence access epoch with operations is open (close it with a fence first)",
            )),
            AccessEpoch::Start { .. } => {
                Err(self.fail("a start access epoch is open (call complete first)"))
            }
        }
    }

    /// An unlock of `target`: a lock epoch holding it.
    pub fn unlock(&self, access: &AccessEpoch, target: u32) -> Result<(), RmaError> {
        match access {
            AccessEpoch::Lock { .. } if access.locked(target).is_some() => Ok(()),
            AccessEpoch::Lock { .. } => {
                Err(self.lock_error(target, "is not locked by this core (other targets are)"))
            }
            AccessEpoch::LockAll { .. } => {
                Err(self.fail("the epoch was opened by lock_all (call unlock_all, not unlock)"))
            }
            _ => Err(self.lock_error(
                target,
                "is not locked by this core (no passive-target epoch is open)",
            )),
        }
    }

    /// A lock_all: no epoch but a fence's without operations.
    pub fn lock_all(&self, access: &AccessEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::None | AccessEpoch::Refence => Ok(()),
            AccessEpoch::Lock { .. } => {
                Err(self.fail("a lock epoch is open (unlock every target first)"))
            }
            AccessEpoch::LockAll { .. } => {
                Err(self.fail("a lock_all epoch is already open (call unlock_all first)"))
            }
            AccessEpoch::Fence { .. } => Err(self.fail(
                "a fence access epoch with operations is open (close it with a fence first)",
            )),
            AccessEpoch::Start { .. } => {
                Err(self.fail("a start access epoch is open (call complete first)"))
            }
        }
    }

    /// An unlock_all: a lock_all epoch.
    pub fn unlock_all(&self, access: &AccessEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::LockAll { .. } => Ok(()),
            AccessEpoch::Lock { .. } => {
                Err(self
                    .fail("the epoch was opened by lock, not by lock_all (call unlock per target)"))
            }
            _ => Err(self.fail("no lock_all epoch is open (call lock_all first)")),
        }
    }

    /// A flush of `target`: a passive-target epoch that includes it.
    pub fn flush(&self, access: &AccessEpoch, target: u32) -> Result<(), RmaError> {
        match access {
            AccessEpoch::LockAll { .. } => Ok(()),
            AccessEpoch::Lock { .. } if access.locked(target).is_some() => Ok(()),
            AccessEpoch::Lock { .. } => Err(self.lock_error(
                target,
                "is not locked in this passive-target epoch (call lock first)",
            )),
            _ => Err(self.no_passive()),
        }
    }

    fn no_passive(&self) -> RmaError {
        self.fail("no passive-target epoch is open (call lock or lock_all first)")
    }

    /// A flush of every target, or a sync: a passive-target epoch.
    pub fn passive(&self, access: &AccessEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::Lock { .. } | AccessEpoch::LockAll { .. } => Ok(()),
            _ => Err(self.no_passive()),
        }
    }

    /// A start: no access epoch, or only one a fence opened and no
    /// operation used.
    pub fn start(&self, access: &AccessEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::None | AccessEpoch::Refence => Ok(()),
            AccessEpoch::Fence { .. } => Err(self.fail(
                "a fence access epoch with operations is open (close it with a fence first)",
            )),
            AccessEpoch::Start { .. } => {
                Err(self.fail("a start access epoch is already open (call complete first)"))
            }
            AccessEpoch::Lock { .. } | AccessEpoch::LockAll { .. } => Err(self.passive_open()),
        }
    }

    /// A complete: a start epoch must be open.
    pub fn complete(&self, access: &AccessEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::Start { .. } => Ok(()),
            AccessEpoch::None => Err(self.fail("no access epoch is open (call start first)")),
            AccessEpoch::Lock { .. } | AccessEpoch::LockAll { .. } => {
                Err(self.fail("the access epoch was opened by lock or lock_all, not by start"))
            }
            _ => Err(self.fail("the access epoch was opened by a fence, not by start")),
        }
    }

    /// A post: no exposure epoch but a fence's.
    pub fn post(&self, exposure: &ExposureEpoch) -> Result<(), RmaError> {
        match exposure {
            ExposureEpoch::None | ExposureEpoch::Refence => Ok(()),
            ExposureEpoch::Post { .. } => {
                Err(self.fail("a post exposure epoch is already open (call wait first)"))
            }
        }
    }

    /// A wait or test: a post epoch must be open.
    pub fn wait(&self, exposure: &ExposureEpoch) -> Result<(), RmaError> {
        match exposure {
            ExposureEpoch::Post { .. } => Ok(()),
            ExposureEpoch::None => Err(self.fail("no exposure epoch is open (call post first)")),
            ExposureEpoch::Refence => {
                Err(self.fail("the exposure epoch was opened by a fence, not by post"))
            }
        }
    }

    /// An operation on `target`: an epoch must be open that includes it.
    pub fn operation(&self, access: &AccessEpoch, target: u32) -> Result<(), RmaError> {
        match access {
            AccessEpoch::None => Err(self.fail("no access epoch is open (call fence or start)")),
            AccessEpoch::Refence | AccessEpoch::Fence { .. } | AccessEpoch::LockAll { .. } => {
                Ok(())
            }
            AccessEpoch::Lock { .. } if access.locked(target).is_some() => Ok(()),
            AccessEpoch::Lock { .. } => Err(self.lock_error(
                target,
                "is not locked in this passive-target epoch (call lock first)",
            )),
            AccessEpoch::Start { targets } if targets.contains(&target) => Ok(()),
            AccessEpoch::Start { .. } => Err(RmaError::NotInGroup {
                call: self.call,
                window: self.window,
                rank: target,
                group: "start group",
            }),
        }
    }

    /// Freeing the window: no epoch may be open but a fence's without
    /// operations.
    pub fn free(&self, access: &AccessEpoch, exposure: &ExposureEpoch) -> Result<(), RmaError> {
        match access {
            AccessEpoch::None | AccessEpoch::Refence => {}
            AccessEpoch::Fence { .. } => {
                return Err(self.fail("a fence access epoch with operations is open (fence first)"));
            }
            AccessEpoch::Start { .. } => {
                return Err(self.fail("a start access epoch is open (call complete first)"));
            }
            AccessEpoch::Lock { .. } | AccessEpoch::LockAll { .. } => {
                return Err(self.passive_open());
            }
        }
        if matches!(exposure, ExposureEpoch::Post { .. }) {
            return Err(self.fail("a post exposure epoch is open (call wait first)"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    #[test]
    fn assertions_outside_a_call_s_set_are_named() {
        let e = (Assert::NOSTORE | Assert::NOPRECEDE)
            .check("post", Assert::NOCHECK | Assert::NOSTORE | Assert::NOPUT)
            .unwrap_err();
        assert_eq!(
            e,
            RmaError::Assert {
                call: "post",
                invalid: "MPI_MODE_NOPRECEDE"
            }
        );
        assert_eq!(e.class(), ErrorClass::Assert);
        assert!(Assert::NONE.check("start", Assert::NOCHECK).is_ok());
        assert!((Assert::NOCHECK | Assert::NOPUT).contains(Assert::NOPUT));
        assert!(!Assert::NOCHECK.contains(Assert::NOPUT));
    }

    #[test]
    fn every_state_transition_is_checked() {
        let c = Check {
            call: "x",
            window: 0,
        };
        let start = AccessEpoch::Start { targets: vec![1] };
        let fence = AccessEpoch::Fence { operations: 1 };
        let post = ExposureEpoch::Post {
            origins: vec![0],
            noput: false,
        };
        assert!(c.fence(&AccessEpoch::None, &ExposureEpoch::None).is_ok());
        assert!(c.fence(&fence, &ExposureEpoch::Refence).is_ok());
        assert!(c.fence(&start, &ExposureEpoch::None).is_err());
        assert!(c.fence(&AccessEpoch::None, &post).is_err());
        assert!(c.start(&AccessEpoch::Refence).is_ok());
        assert!(c.start(&fence).is_err());
        assert!(c.start(&start).is_err());
        assert!(c.complete(&start).is_ok());
        assert!(c.complete(&AccessEpoch::None).is_err());
        assert!(c.complete(&AccessEpoch::Refence).is_err());
        assert!(c.post(&ExposureEpoch::Refence).is_ok());
        assert!(c.post(&post).is_err());
        assert!(c.wait(&post).is_ok());
        assert!(c.wait(&ExposureEpoch::None).is_err());
        assert!(c.wait(&ExposureEpoch::Refence).is_err());
        assert!(c.operation(&AccessEpoch::None, 0).is_err());
        assert!(c.operation(&fence, 5).is_ok());
        assert!(c.operation(&start, 1).is_ok());
        assert_eq!(
            c.operation(&start, 2).unwrap_err().class(),
            ErrorClass::RmaSync
        );
        assert!(
            c.free(&AccessEpoch::Refence, &ExposureEpoch::Refence)
                .is_ok()
        );
        assert!(c.free(&fence, &ExposureEpoch::None).is_err());
        assert!(c.free(&start, &ExposureEpoch::None).is_err());
        assert!(c.free(&AccessEpoch::None, &post).is_err());
    }

    #[test]
    fn passive_epochs_are_checked_per_target() {
        let c = Check {
            call: "x",
            window: 0,
        };
        let lock = AccessEpoch::Lock {
            targets: vec![Locked {
                rank: 1,
                kind: LockType::Shared,
                taken: true,
            }],
        };
        let all = AccessEpoch::LockAll { taken: true };
        let start = AccessEpoch::Start { targets: vec![1] };
        assert_eq!(lock.locked(1).map(|l| l.kind), Some(LockType::Shared));
        assert_eq!(lock.locked(2), None);
        assert!(c.lock(&AccessEpoch::None, 1).is_ok());
        assert!(c.lock(&AccessEpoch::Refence, 1).is_ok());
        assert!(c.lock(&lock, 2).is_ok());
        assert!(matches!(
            c.lock(&lock, 1),
            Err(RmaError::Lock { rank: 1, .. })
        ));
        assert!(c.lock(&all, 1).is_err());
        assert!(c.lock(&start, 1).is_err());
        assert!(c.lock(&AccessEpoch::Fence { operations: 1 }, 1).is_err());
        assert!(c.unlock(&lock, 1).is_ok());
        assert!(c.unlock(&lock, 2).is_err());
        assert!(c.unlock(&all, 1).is_err());
        assert!(c.lock_all(&AccessEpoch::Refence).is_ok());
        assert!(c.lock_all(&lock).is_err());
        assert!(c.unlock_all(&all).is_ok());
        assert!(c.unlock_all(&lock).is_err());
        assert!(c.flush(&all, 5).is_ok());
        assert!(c.flush(&lock, 1).is_ok());
        assert!(c.flush(&lock, 0).is_err());
        assert!(c.passive(&start).is_err());
        assert!(c.operation(&all, 3).is_ok());
        assert_eq!(
            c.operation(&lock, 0).unwrap_err().class(),
            ErrorClass::RmaSync
        );
        assert!(c.fence(&all, &ExposureEpoch::None).is_err());
        assert!(c.start(&lock).is_err());
        assert!(c.complete(&lock).is_err());
        assert!(c.free(&lock, &ExposureEpoch::None).is_err());
        assert_eq!(all.name(), "a lock_all access epoch");
    }
}
