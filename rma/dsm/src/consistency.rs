// SPDX-License-Identifier: MIT OR Apache-2.0
//! The consistency service: scopes, `sync_write`, `sync_read` and `sync`
//! (HAMSTER's scope consistency on non-coherent hardware, thesis 5.2).
//!
//! A scope names the regions a set of synchronisations protects, and so
//! the memory types whose caches its syncs act on. `sync_write` (release)
//! pushes this core's writes out (write-combine flush, L1 write-back, as
//! the types need: rma's `coherence::release_actions`) and then advances
//! the scope's timestamp, a word in the control region. `sync_read`
//! (acquire) reads the timestamp and invalidates this core's MPBT lines
//! (`coherence::acquire_actions`, made safe by `guard_invalidation`)
//! only if it moved since this core last invalidated for the scope: when
//! no core released anything into the scope since, no line this core
//! holds can be stale, and the invalidation is skipped (counted in
//! [`Stats::skipped_invalidations`](crate::Stats)). A core's own release
//! that finds the timestamp where this core last saw it moves its mark
//! along, since its own writes leave nothing stale in its own cache.
//!
//! [`Dsm::set_enforcement`] turns the service off on a core: its calls
//! are counted but do nothing (no cache action, no timestamp). A run so
//! made is HAMSTER's "incoherent run" (thesis 4.3): the program's time
//! with consistency enforced, less its time in such a run, is the
//! consistency overhead. Its results are right only where nothing can
//! be stale (MPBT-WT loads read uncached, as on silicon), so a program
//! that measures this checks them in both runs.

use alloc::vec::Vec;

use chip::MemoryType;
use rma::AccumulateOp;
use rma::coherence::{Actions, acquire_actions, guard_invalidation, release_actions};
use rma::hal::RmaHal;

use crate::region::Region;
use crate::{Dsm, DsmError, MAX_SCOPES};

/// Whether the consistency service acts ([`Dsm::set_enforcement`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Enforcement {
    /// `sync_write`, `sync_read`, `sync` and `invalidate` do what they
    /// say.
    #[default]
    On,
    /// They are counted and return at once: an incoherent run.
    Off,
}

/// A scope's handle: the same on every core for the same allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scope(pub u32);

/// A scope as this core keeps it.
#[derive(Debug, Clone)]
pub(crate) struct ScopeState {
    /// The scope's timestamp when this core last invalidated for it (or
    /// released into it with nothing else in between).
    pub seen: u32,
    /// The memory types of its regions.
    pub types: Vec<MemoryType>,
}

impl<'h, H: RmaHal> Dsm<'h, H> {
    /// Allocates a scope over `regions`. Every core allocates its scopes
    /// in the same order, so the n-th is the same scope everywhere; no
    /// message is sent.
    ///
    /// Return values: `Err(UnknownRegion)`; `Err(Exhausted)` past
    /// [`MAX_SCOPES`].
    pub fn scope(&mut self, regions: &[Region]) -> Result<Scope, DsmError> {
        let mut types = Vec::new();
        for r in regions {
            let ty = self.region(*r)?.granted.memory_type;
            if !types.contains(&ty) {
                types.push(ty);
            }
        }
        let id = self.scopes.len() as u32;
        if id >= MAX_SCOPES {
            return Err(DsmError::Exhausted {
                what: "scope",
                max: MAX_SCOPES,
            });
        }
        self.scopes.push(ScopeState { seen: 0, types });
        Ok(Scope(id))
    }

    /// The scope's state.
    fn scope_state(&self, scope: Scope) -> Result<&ScopeState, DsmError> {
        self.scopes
            .get(scope.0 as usize)
            .ok_or(DsmError::Exhausted {
                what: "scope (this one was never allocated here)",
                max: self.scopes.len() as u32,
            })
    }

    /// Release: makes what this core wrote into the scope's regions
    /// visible to every core, then advances the scope's timestamp.
    ///
    /// Return values: `Err(Rma(..))` if the timestamp cannot be updated.
    pub fn sync_write(&mut self, scope: Scope) -> Result<(), DsmError> {
        let start = self.now();
        if self.enforcement == Enforcement::Off {
            self.scope_state(scope)?;
            self.stats.sync_write.record(start, self.now());
            return Ok(());
        }
        let actions = self
            .scope_state(scope)?
            .types
            .iter()
            .fold(Actions::NONE, |a, ty| a.union(release_actions(*ty)));
        self.run(actions);
        let old = self.rma.fetch_and_op(
            self.control,
            0,
            Self::control_at(scope.0),
            1u32,
            AccumulateOp::Sum,
        )?;
        let state = &mut self.scopes[scope.0 as usize];
        if old == state.seen {
            state.seen = old.wrapping_add(1);
        }
        self.stats.sync_write.record(start, self.now());
        Ok(())
    }

    /// Acquire: after it, this core's reads of the scope's regions see
    /// what every core released into the scope before the timestamp this
    /// call read. Skips the invalidation if the timestamp has not moved
    /// since this core's last one for the scope.
    ///
    /// Return values: `Err(Rma(..))` if the timestamp cannot be read.
    pub fn sync_read(&mut self, scope: Scope) -> Result<(), DsmError> {
        let start = self.now();
        if self.enforcement == Enforcement::Off {
            self.scope_state(scope)?;
            self.stats.sync_read.record(start, self.now());
            return Ok(());
        }
        let now = self.rma.fetch_and_op(
            self.control,
            0,
            Self::control_at(scope.0),
            0u32,
            AccumulateOp::NoOp,
        )?;
        let state = self.scope_state(scope)?;
        if now == state.seen {
            self.stats.skipped_invalidations += 1;
        } else {
            let acquire = state
                .types
                .iter()
                .fold(Actions::NONE, |a, ty| a.union(acquire_actions(*ty)));
            let in_use = self.types_in_use();
            self.run(guard_invalidation(acquire, &in_use));
            self.scopes[scope.0 as usize].seen = now;
        }
        self.stats.sync_read.record(start, self.now());
        Ok(())
    }

    /// `sync_write`, then `sync_read`.
    ///
    /// Return values: as [`Dsm::sync_write`].
    pub fn sync(&mut self, scope: Scope) -> Result<(), DsmError> {
        self.sync_write(scope)?;
        self.sync_read(scope)
    }

    /// Invalidates this core's MPBT lines now, whatever the timestamps
    /// say: for a read of a location another core writes without a
    /// release (a flag polled while its writer is still running).
    pub fn invalidate(&mut self) {
        if self.enforcement == Enforcement::Off {
            return;
        }
        let in_use = self.types_in_use();
        self.run(guard_invalidation(
            acquire_actions(MemoryType::MpbtWt),
            &in_use,
        ));
    }

    /// Turns the consistency service on or off on this core (it starts
    /// on). Off, `sync_write`, `sync_read`, `sync` and `invalidate` are
    /// counted in the statistics but do nothing: for an incoherent run,
    /// whose time against an enforced one is the consistency overhead.
    /// Switch every core at the same point of the program, between two
    /// barriers: a release made while it is off advances no timestamp,
    /// so a core still on could skip an invalidation it needs.
    pub fn set_enforcement(&mut self, enforcement: Enforcement) {
        self.enforcement = enforcement;
    }

    /// Whether the consistency service acts on this core.
    pub fn enforcement(&self) -> Enforcement {
        self.enforcement
    }

    /// The memory types of the regions allocated.
    fn types_in_use(&self) -> Vec<MemoryType> {
        let mut types = Vec::new();
        for r in self.regions.iter().flatten() {
            if !types.contains(&r.granted.memory_type) {
                types.push(r.granted.memory_type);
            }
        }
        types
    }

    /// Runs `actions` on the hardware, counting them.
    fn run(&mut self, actions: Actions) {
        let hal = self.rma.hal();
        if actions.write_back {
            hal.write_back_l1();
            self.stats.write_backs += 1;
        }
        if actions.flush {
            hal.flush_wcb();
            self.stats.flushes += 1;
        }
        if actions.invalidate {
            hal.invalidate_mpbt();
            self.stats.invalidations += 1;
        }
    }
}
