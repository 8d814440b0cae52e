// SPDX-License-Identifier: MIT OR Apache-2.0
//! Software-managed coherence for one-sided communication (the thesis's
//! SCOSCo, chapter 4): which cache actions each synchronisation call
//! performs, given the memory types involved.
//!
//! The MPI separate memory model maps onto release consistency: post and
//! complete release (make this core's writes visible), start and wait
//! acquire (drop what may be stale). Calls that open an epoch act before
//! they synchronise, calls that close one after (thesis 4.4):
//!
//! | call | actions |
//! |---|---|
//! | post | release the local window, then set the match bits |
//! | start | flush (so nothing is lost), then invalidate remote lines |
//! | complete | release remote writes, then decrement the counters |
//! | wait | poll the counter, then flush and invalidate the local window |
//! | fence | release, barrier, invalidate |
//! | lock, lock_all | take the lock, then flush and invalidate |
//! | unlock, unlock_all | release, then give the lock up |
//! | flush, flush_all | release (the lock stays held) |
//! | sync | release and invalidate the local window |
//! | get | invalidate first, if an earlier get may have left lines in L1 |
//!
//! The model is MPI's separate one (`MPI_WIN_SEPARATE`): a window's public
//! copy is its memory, and a core's cached lines and buffered stores are
//! its private copy until one of these calls reconciles them. NCM windows
//! have no private copy, so for them the unified model holds as well.
//! A get reads the public copy as it is when the get runs (MPI lets it
//! return any value the location held during the call, never an older
//! one): an earlier get's lines in L1 are dropped before the read
//! ([`crate::window::Rma`]'s `fresh_get`), so a flag polled with get and
//! flush shows a flushed put at the next poll.
//!
//! Every CL1INVMB is preceded by a flush of the write-combine buffer, and
//! by an L1 write-back if an MPBT-WB mapping is in use
//! ([`guard_invalidation`]): a line read again after the invalidation
//! must not miss a store still buffered, nor lose a modified line.
//!
//! What "release" and "invalidate" take depends on the memory type
//! ([`release_actions`], [`acquire_actions`]): MPBT-WT needs a
//! write-combine flush and CL1INVMB; MPBT-WB also a write-back of L1
//! (WBINVD), since a modified line would stay in L1 and CL1INVMB would
//! drop it; NCM needs nothing; NCM+WCB only the flush. DCM gets WBINVD
//! for both, which on the SCC reaches L1 only: L2 keeps DCM lines until
//! evicted, so DCM windows are not coherent between cores (the thesis
//! rejects DCM for this reason, 4.3).
#![forbid(unsafe_code)]

use chip::MemoryType;

use crate::hal::RmaHal;
use crate::stats::WindowStats;

/// Whether a window's synchronisation calls perform their coherence
/// actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Coherence {
    /// The actions of the thesis's SCOSCo, as the memory types require.
    #[default]
    Enabled,
    /// No cache actions at all: synchronisation alone. Wrong on a
    /// non-coherent chip, and meant to show it: the same program then
    /// reads stale data on the emulator. On coherent memory (the host
    /// mock) it gives the same results as `Enabled`.
    Disabled,
}

/// Cache actions, in the order they run: write back L1, flush the
/// write-combine buffer, invalidate MPBT lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Actions {
    /// WBINVD.
    pub write_back: bool,
    /// Flush the write-combine buffer.
    pub flush: bool,
    /// CL1INVMB.
    pub invalidate: bool,
}

impl Actions {
    /// No action.
    pub const NONE: Actions = Actions {
        write_back: false,
        flush: false,
        invalidate: false,
    };

    /// Both sets of actions.
    pub const fn union(self, other: Actions) -> Actions {
        Actions {
            write_back: self.write_back || other.write_back,
            flush: self.flush || other.flush,
            invalidate: self.invalidate || other.invalidate,
        }
    }

    /// Runs the actions on `hal`, counting them in `stats`.
    pub fn run<H: RmaHal>(self, hal: &H, stats: &mut WindowStats) {
        if self.write_back {
            hal.write_back_l1();
            stats.write_backs += 1;
        }
        if self.flush {
            hal.flush_wcb();
            stats.flushes += 1;
        }
        if self.invalidate {
            hal.invalidate_mpbt();
            stats.invalidations += 1;
        }
    }
}

/// What makes this core's writes through memory of type `ty` visible to
/// other cores.
pub const fn release_actions(ty: MemoryType) -> Actions {
    match ty {
        MemoryType::Ncm => Actions::NONE,
        MemoryType::NcmWcb | MemoryType::MpbtWt => Actions {
            flush: true,
            ..Actions::NONE
        },
        // WBINVD pushes modified MPBT lines out through the WCB.
        MemoryType::MpbtWb => Actions {
            write_back: true,
            flush: true,
            invalidate: false,
        },
        MemoryType::Dcm => Actions {
            write_back: true,
            ..Actions::NONE
        },
    }
}

/// What makes this core's next reads through memory of type `ty` fetch
/// other cores' writes.
///
/// For MPBT-WB, CL1INVMB would drop modified lines, so L1 is written back
/// first (thesis 4.2.5: "no modifications to local memory are lost").
pub const fn acquire_actions(ty: MemoryType) -> Actions {
    match ty {
        MemoryType::Ncm | MemoryType::NcmWcb => Actions::NONE,
        MemoryType::MpbtWt => Actions {
            invalidate: true,
            ..Actions::NONE
        },
        MemoryType::MpbtWb => Actions {
            write_back: true,
            flush: true,
            invalidate: true,
        },
        MemoryType::Dcm => Actions {
            write_back: true,
            ..Actions::NONE
        },
    }
}

/// What must run before a LUT entry mapped with `ty` is pointed elsewhere:
/// push out what was written through it and drop what was read, so no
/// line of the old target is read or written back through the new one.
pub const fn unmap_actions(ty: MemoryType) -> Actions {
    release_actions(ty).union(acquire_actions(ty))
}

/// `actions` made safe for CL1INVMB: it drops modified MPBT lines and
/// leaves the write-combine buffer alone, so before it runs, L1 is written
/// back if any of `types` (the mappings in use) is MPBT-WB, and the buffer
/// is flushed (thesis 4.2.5: start flushes "beforehand").
pub fn guard_invalidation(actions: Actions, types: &[MemoryType]) -> Actions {
    if !actions.invalidate {
        return actions;
    }
    let write_back = types.contains(&MemoryType::MpbtWb);
    actions.union(Actions {
        write_back,
        flush: true,
        invalidate: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_gets_what_it_needs_and_no_more() {
        use MemoryType::*;
        let a = |write_back, flush, invalidate| Actions {
            write_back,
            flush,
            invalidate,
        };
        assert_eq!(release_actions(MpbtWt), a(false, true, false));
        assert_eq!(acquire_actions(MpbtWt), a(false, false, true));
        assert_eq!(release_actions(MpbtWb), a(true, true, false));
        assert_eq!(acquire_actions(MpbtWb), a(true, true, true));
        assert_eq!(release_actions(Ncm), Actions::NONE);
        assert_eq!(acquire_actions(Ncm), Actions::NONE);
        assert_eq!(release_actions(NcmWcb), a(false, true, false));
        assert_eq!(acquire_actions(NcmWcb), Actions::NONE);
        assert_eq!(release_actions(Dcm), a(true, false, false));
        assert_eq!(acquire_actions(Dcm), a(true, false, false));
        assert_eq!(unmap_actions(MpbtWt), a(false, true, true));
        assert_eq!(unmap_actions(Ncm), Actions::NONE);
        assert_eq!(
            guard_invalidation(acquire_actions(MpbtWt), &[MpbtWt, Ncm]),
            a(false, true, true)
        );
        assert_eq!(
            guard_invalidation(acquire_actions(MpbtWt), &[MpbtWb]),
            a(true, true, true)
        );
        assert_eq!(
            guard_invalidation(acquire_actions(Ncm), &[MpbtWb]),
            Actions::NONE
        );
    }
}
