// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows on a program's own memory: its stack, statics, heap, or part
//! of a block of `MPI_Alloc_mem`.
//!
//! On the SCC that memory is the core's private DRAM, which other cores
//! reach only by pointing a LUT entry at another core's private pages,
//! and the emulator does not share private pages between cores. So such a
//! window keeps two copies, as MPI's separate memory model describes
//! (MPI-3.1 11.4): the program's bytes are the private copy, and a block
//! of the core's shared DRAM (taken as `MPI_Alloc_mem` takes it) is the
//! public copy, which rma's window spans and every origin reaches. The
//! owner reconciles them in its own synchronisation calls on the window,
//! at the points where MPI-3.1 11.7 says updates become visible:
//!
//! - [`Shadow::publish`] before `MPI_Win_fence`, `MPI_Win_post`,
//!   `MPI_Win_unlock`, `MPI_Win_unlock_all` and `MPI_Win_sync`: what the
//!   program stored goes to the public copy;
//! - [`Shadow::pull`] after `MPI_Win_fence`, `MPI_Win_wait` (and a
//!   successful `MPI_Win_test`), `MPI_Win_lock`, `MPI_Win_lock_all`,
//!   `MPI_Win_sync`, `MPI_Win_detach` and `MPI_Win_free`: what others put
//!   comes to the program's bytes;
//! - both around every `MPI_Barrier`, for every window, earlier than MPI
//!   requires (which it allows): programs written for MPI's unified model
//!   order a store and another rank's put to the same bytes by a barrier,
//!   and with a reconciliation there the later one wins, as they expect.
//!
//! A third copy, the bytes as both copies held them after the last
//! reconciliation (`crate::copies`), tells which side changed a byte,
//! so a store and a put to different bytes in one epoch both survive. A
//! byte changed on both sides between two reconciliations (erroneous in
//! MPI) keeps the program's store. The cost is the owner's: each
//! reconciliation compares the window's bytes (a word at a time; bytes
//! only where a word differs) and copies what changed, in the modelled
//! time of the core's loads and stores; the memory is the window's size
//! twice more (shared DRAM and heap).

use alloc::format;
use alloc::vec::Vec;
use kernel::platform::scc::SharedBytes;
use rma::Memory;

use super::{Class, Failure, State};
use crate::copies::{next_difference, take_public};

/// A block of this core's shared DRAM taken as `MPI_Alloc_mem` takes it:
/// the memory, and where the program (or this module) reaches it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block {
    /// rma's handle.
    pub(super) memory: Memory,
    /// The mapping that holds it.
    pub(super) mapping: SharedBytes,
    /// Its first byte's offset in the mapping.
    pub(super) offset: u32,
}

impl Block {
    /// Takes `bytes` of this core's shared DRAM and maps it for good
    /// ([`rma::Rma::pin_memory`]).
    pub(super) fn take(state: &mut State, bytes: u32) -> Result<Self, Failure> {
        let memory = state.rma.alloc_mem(bytes)?;
        let part = match state.rma.pin_memory(memory) {
            Ok(part) => part,
            Err(e) => {
                let _ = state.rma.free_mem(memory);
                return Err(e.into());
            }
        };
        let mapping = crt::platform().shared_dram(part.slot, part.offset, part.len as usize);
        Ok(Self {
            memory,
            mapping,
            offset: part.offset,
        })
    }

    /// The address of its first byte.
    pub(super) fn base(&self) -> *mut u8 {
        self.mapping.as_ptr().wrapping_add(self.offset as usize)
    }
}

/// A window's public copy of program memory, and what both copies last
/// agreed on.
#[derive(Debug)]
pub(super) struct Shadow {
    /// The program's bytes: the private copy.
    program: *mut u8,
    /// The public copy, in shared DRAM.
    public: Block,
    /// Both copies as the last reconciliation left them.
    agreed: Vec<u8>,
}

impl Shadow {
    /// A public copy of the `len` bytes at `program`, filled from them.
    /// The caller makes or attaches the window on [`Shadow::memory`].
    pub(super) fn new(state: &mut State, program: *mut u8, len: u32) -> Result<Self, Failure> {
        let mut agreed = Vec::new();
        agreed.try_reserve_exact(len as usize).map_err(|_| {
            Failure::new(
                Class::NoMem,
                format!(
                    "{len} bytes of heap for the copy a window on program memory keeps, \
                     beyond what is left"
                ),
            )
        })?;
        let public = Block::take(state, len)?;
        if len > 0 {
            // SAFETY: MPI_Win_create and MPI_Win_attach take `len` bytes
            // at `program` (not null, the caller checked) that the program
            // keeps for the window's life; it runs no code while this call
            // does.
            agreed.extend_from_slice(unsafe { core::slice::from_raw_parts(program, len as usize) });
            public.mapping.write_bytes(public.offset, &agreed);
        }
        crt::platform().flush_wcb();
        Ok(Self {
            program,
            public,
            agreed,
        })
    }

    /// The program's first byte, as the program named it.
    pub(super) fn program(&self) -> *mut u8 {
        self.program
    }

    /// The public copy's memory.
    pub(super) fn memory(&self) -> Memory {
        self.public.memory
    }

    /// The program's bytes and the agreed ones, side by side.
    fn copies(&mut self) -> (&mut [u8], &mut [u8]) {
        if self.agreed.is_empty() {
            // A window of no bytes, whose base may be null.
            return (&mut [], &mut self.agreed);
        }
        // SAFETY: as in `new`; `&mut self` keeps this the only slice, and
        // the program's bytes are not the heap block `agreed` holds.
        let program = unsafe { core::slice::from_raw_parts_mut(self.program, self.agreed.len()) };
        (program, &mut self.agreed)
    }

    /// Copies what the program stored since the last reconciliation to the
    /// public copy, byte-exact (another rank may have put the bytes beside
    /// them), and pushes the write-combine buffer out.
    pub(super) fn publish(&mut self) {
        let (mapping, offset) = (self.public.mapping, self.public.offset);
        let (program, agreed) = self.copies();
        let mut at = 0;
        while let Some(run) = next_difference(program, agreed, at) {
            mapping.write_bytes(offset + run.start as u32, &program[run.clone()]);
            agreed[run.clone()].copy_from_slice(&program[run.clone()]);
            at = run.end;
        }
        crt::platform().flush_wcb();
    }

    /// Copies what others put into the public copy since the last
    /// reconciliation to the program's bytes (not over a byte the program
    /// stored and has not published), after dropping stale MPBT lines.
    pub(super) fn pull(&mut self) {
        const CHUNK: usize = 256;
        crt::platform().flush_wcb();
        crt::platform().invalidate_mpbt();
        let (mapping, offset) = (self.public.mapping, self.public.offset);
        let (program, agreed) = self.copies();
        let mut public = [0u8; CHUNK];
        for start in (0..agreed.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(agreed.len());
            let public = &mut public[..end - start];
            mapping.read_bytes(offset + start as u32, public);
            take_public(public, &mut program[start..end], &mut agreed[start..end]);
        }
    }

    /// Gives the public copy back (its window is freed or it is detached).
    pub(super) fn free(self, state: &mut State) -> Result<(), Failure> {
        Ok(state.rma.free_mem(self.public.memory)?)
    }
}

/// Runs `f` on every public copy of program memory of every window.
pub(super) fn each_window_shadow(state: &mut State, f: fn(&mut Shadow)) {
    for w in state.windows.iter_mut().flatten() {
        w.shadows.iter_mut().for_each(&f);
    }
}
