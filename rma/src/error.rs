// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one error type of rma, with MPI's error classes.

use crate::hal::MapError;

/// MPI's error classes, as far as rma reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// `MPI_ERR_RANK`: a rank outside its group, or named twice.
    Rank,
    /// `MPI_ERR_ROOT`: a collective's root outside the communicator.
    Root,
    /// `MPI_ERR_GROUP`: a group that cannot be used where it was given.
    Group,
    /// `MPI_ERR_ARG`: any other invalid argument.
    Arg,
    /// `MPI_ERR_TRUNCATE`: a message longer than the receive buffer.
    Truncate,
    /// `MPI_ERR_WIN`: a window handle that names no window.
    Win,
    /// `MPI_ERR_BASE`: a memory handle that names no memory.
    Base,
    /// `MPI_ERR_DISP`: an invalid displacement unit.
    Disp,
    /// `MPI_ERR_ASSERT`: an assertion not valid for the call.
    Assert,
    /// `MPI_ERR_NO_MEM`: no memory (or LUT entries) left.
    NoMem,
    /// `MPI_ERR_RMA_SYNC`: a call in the wrong synchronisation state.
    RmaSync,
    /// `MPI_ERR_RMA_RANGE`: an access outside the target window.
    RmaRange,
    /// `MPI_ERR_INTERN`: the platform refused something rma asked correctly.
    Intern,
    /// `MPI_ERR_OP`: an operation not defined for the call or the type.
    Op,
    /// `MPI_ERR_TYPE`: an element type the call does not accept.
    Type,
    /// `MPI_ERR_REQUEST`: a request handle that is not pending.
    Request,
    /// `MPI_ERR_RMA_FLAVOR`: a call the window's flavor does not allow.
    RmaFlavor,
    /// `MPI_ERR_RMA_ATTACH`: memory that cannot be attached to a dynamic
    /// window, or detached from it.
    RmaAttach,
}

impl ErrorClass {
    /// The MPI name of the class.
    pub const fn mpi_name(self) -> &'static str {
        match self {
            Self::Rank => "MPI_ERR_RANK",
            Self::Root => "MPI_ERR_ROOT",
            Self::Group => "MPI_ERR_GROUP",
            Self::Arg => "MPI_ERR_ARG",
            Self::Truncate => "MPI_ERR_TRUNCATE",
            Self::Win => "MPI_ERR_WIN",
            Self::Base => "MPI_ERR_BASE",
            Self::Disp => "MPI_ERR_DISP",
            Self::Assert => "MPI_ERR_ASSERT",
            Self::NoMem => "MPI_ERR_NO_MEM",
            Self::RmaSync => "MPI_ERR_RMA_SYNC",
            Self::RmaRange => "MPI_ERR_RMA_RANGE",
            Self::Intern => "MPI_ERR_INTERN",
            Self::Op => "MPI_ERR_OP",
            Self::Type => "MPI_ERR_TYPE",
            Self::Request => "MPI_ERR_REQUEST",
            Self::RmaFlavor => "MPI_ERR_RMA_FLAVOR",
            Self::RmaAttach => "MPI_ERR_RMA_ATTACH",
        }
    }
}

/// What went wrong in an rma call. Each value says which argument was
/// wrong and why; [`RmaError::class`] gives its MPI error class.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RmaError {
    /// A rank is not below the size of the group or communicator it names
    /// a member of.
    #[error("{class}: {role} {rank} is not a rank of a group of {size}", class = self.class().mpi_name())]
    Rank {
        /// What the rank was given as (e.g. "send destination").
        role: &'static str,
        /// The rank.
        rank: u32,
        /// The size it must be below.
        size: u32,
    },
    /// A rank appears twice in a list that must name each member once.
    #[error("{class}: {operation} names rank {rank} more than once", class = self.class().mpi_name())]
    DuplicateRank {
        /// The operation (e.g. "Group::incl").
        operation: &'static str,
        /// The rank.
        rank: u32,
    },
    /// A collective's root is not a rank of the communicator.
    #[error("{class}: root {root} is not a rank of a communicator of {size}", class = self.class().mpi_name())]
    Root {
        /// The root given.
        root: u32,
        /// The communicator's size.
        size: u32,
    },
    /// Two groups that must come from the same set of processes do not.
    #[error("{class}: groups drawn from {first} and from {second} processes cannot be compared", class = self.class().mpi_name())]
    GroupMismatch {
        /// Processes the first group was drawn from.
        first: u32,
        /// Processes the second group was drawn from.
        second: u32,
    },
    /// A buffer's length is not what the operation needs.
    #[error("{class}: {what} has length {len}, expected {expected}", class = self.class().mpi_name())]
    BufferLength {
        /// The operation and buffer (e.g. "allgather output").
        what: &'static str,
        /// Bytes (or elements) given.
        len: usize,
        /// Bytes (or elements) required.
        expected: usize,
    },
    /// A receive from this core itself with no message to itself pending:
    /// it could never complete.
    #[error("{class}: receive from self with no message to self pending would never end", class = self.class().mpi_name())]
    RecvFromSelfWithoutMessage,
    /// A message does not fit the receive buffer; the message was consumed
    /// and its first `capacity` bytes kept.
    #[error("{class}: rank {sender} sent {sent} bytes, the receive buffer holds {capacity}", class = self.class().mpi_name())]
    Truncate {
        /// The sender's rank.
        sender: u32,
        /// Bytes sent.
        sent: usize,
        /// Bytes the receive buffer holds.
        capacity: usize,
    },
    /// The message passing buffer is too small for rma's layout on this chip.
    #[error("{class}: the MPB has {bytes} bytes per core, the communication layout needs {needed}", class = self.class().mpi_name())]
    MpbTooSmall {
        /// Bytes per core.
        bytes: u32,
        /// Bytes the layout needs.
        needed: u32,
    },
    /// A window handle names no window of this core (freed, or never made).
    #[error("{class}: window {window} does not exist (freed or never created)", class = self.class().mpi_name())]
    UnknownWindow {
        /// The handle's number.
        window: u32,
    },
    /// A memory handle names no memory from `alloc_mem` of this core.
    #[error("{class}: memory {memory} does not exist (freed or never allocated)", class = self.class().mpi_name())]
    UnknownMemory {
        /// The handle's number.
        memory: u32,
    },
    /// A call on a window whose flavor does not allow it (e.g.
    /// `shared_query` on a window not made by `allocate_shared`, `attach`
    /// on one not made by `create_dynamic`).
    #[error("{class}: {call} on window {window}: only {needs} allows it", class = self.class().mpi_name())]
    Flavor {
        /// The call.
        call: &'static str,
        /// The window.
        window: u32,
        /// The windows that allow it (e.g. "a window made by
        /// allocate_shared").
        needs: &'static str,
    },
    /// Memory that cannot be attached to a dynamic window (attached to it
    /// already, or its attachment table full), or detached from it (not
    /// attached to it).
    #[error("{class}: {call} on window {window}: memory {memory} {problem}", class = self.class().mpi_name())]
    Attach {
        /// The call ("attach" or "detach").
        call: &'static str,
        /// The window.
        window: u32,
        /// The memory handle's number.
        memory: u32,
        /// What is wrong (e.g. "is attached to it already").
        problem: &'static str,
    },
    /// Memory from `alloc_mem` cannot be freed while a window uses it or
    /// it is attached to a dynamic window, nor read or written with
    /// `memory_read`/`memory_write` while a window made on it uses it.
    #[error("{class}: memory {memory} is in use by window {window}", class = self.class().mpi_name())]
    MemoryInUse {
        /// The memory handle's number.
        memory: u32,
        /// The window using it.
        window: u32,
    },
    /// A displacement unit the window cannot have: 0, or another than 1
    /// for a dynamic window (whose displacements are addresses).
    #[error("{class}: displacement unit {disp_unit} ({allowed})", class = self.class().mpi_name())]
    DispUnit {
        /// The unit given.
        disp_unit: u32,
        /// What it must be (e.g. "it must be at least 1").
        allowed: &'static str,
    },
    /// Assertions given to a call that does not accept them.
    #[error("{class}: {call} does not accept {invalid}", class = self.class().mpi_name())]
    Assert {
        /// The call (e.g. "post").
        call: &'static str,
        /// The assertions it does not accept, as `MPI_MODE_*` names.
        invalid: &'static str,
    },
    /// A call made in a synchronisation state that does not allow it.
    #[error("{class}: {call} on window {window}: {problem}", class = self.class().mpi_name())]
    Sync {
        /// The call (e.g. "put").
        call: &'static str,
        /// The window.
        window: u32,
        /// What is wrong (e.g. "no access epoch is open").
        problem: &'static str,
    },
    /// A one-sided access to a rank outside the epoch's group.
    #[error("{class}: {call} on window {window}: rank {rank} is not in the {group}", class = self.class().mpi_name())]
    NotInGroup {
        /// The call.
        call: &'static str,
        /// The window.
        window: u32,
        /// The target rank.
        rank: u32,
        /// Which group (e.g. "start group").
        group: &'static str,
    },
    /// A passive-target call about one target in a state that does not
    /// allow it (e.g. unlock of a rank that is not locked).
    #[error("{class}: {call} on window {window}: rank {rank} {problem}", class = self.class().mpi_name())]
    Lock {
        /// The call (e.g. "unlock").
        call: &'static str,
        /// The window.
        window: u32,
        /// The target rank.
        rank: u32,
        /// What is wrong (e.g. "is not locked by this core").
        problem: &'static str,
    },
    /// Fence asserted `MPI_MODE_NOPRECEDE`, yet operations precede it.
    #[error("{class}: fence on window {window} asserts MPI_MODE_NOPRECEDE, but {operations} operations precede it", class = self.class().mpi_name())]
    NoPrecedeViolated {
        /// The window.
        window: u32,
        /// Operations since the last fence.
        operations: u64,
    },
    /// An access reaches outside the target's window (for a dynamic
    /// window, outside the target's POPSHM: its addresses).
    #[error("{class}: {call} on window {window}: bytes {offset}..{end} of rank {target}'s window of {size} bytes", class = self.class().mpi_name(), end = i128::from(*.offset) + i128::from(*.len))]
    Range {
        /// The call.
        call: &'static str,
        /// The window.
        window: u32,
        /// The target rank.
        target: u32,
        /// First byte of the access in the target window (negative below
        /// its start).
        offset: i64,
        /// Bytes the access spans.
        len: u64,
        /// Bytes of the target window.
        size: u64,
    },
    /// An access to a dynamic window reaches bytes of the target that lie
    /// in no memory it attached to the window (as far as the origin can
    /// tell: see [`crate::window::dynamic`]).
    #[error("{class}: {call} on window {window}: bytes {address}..{end} of rank {target} lie in no memory it attached to the window", class = self.class().mpi_name(), end = u128::from(*.address) + u128::from(*.len))]
    Unattached {
        /// The call.
        call: &'static str,
        /// The window.
        window: u32,
        /// The target rank.
        target: u32,
        /// Address of the first byte (its offset in the target's POPSHM).
        address: u64,
        /// Bytes the access spans.
        len: u64,
    },
    /// An access reaches outside memory from `alloc_mem`.
    #[error("{class}: {call}: bytes {offset}..{end} of memory {memory} of {size} bytes", class = self.class().mpi_name(), end = u64::from(*.offset) + *.len)]
    MemoryRange {
        /// The call.
        call: &'static str,
        /// The memory handle's number.
        memory: u32,
        /// First byte of the access.
        offset: u32,
        /// Bytes the access spans.
        len: u64,
        /// Bytes of the memory.
        size: u32,
    },
    /// A layout that cannot be used (e.g. blocks overlap).
    #[error("{class}: {what}: {problem}", class = self.class().mpi_name())]
    BadLayout {
        /// The call and layout (e.g. "put target layout").
        what: &'static str,
        /// Why.
        problem: &'static str,
    },
    /// A byte stride or displacement of a datatype that is not a whole
    /// number of elements: a datatype holds one element type, so every
    /// place it picks is an element.
    #[error("{class}: {what} of {bytes} bytes is not a multiple of the element size ({element} bytes)", class = self.class().mpi_name())]
    Unaligned {
        /// The argument (e.g. "hvector stride").
        what: &'static str,
        /// Bytes given.
        bytes: i64,
        /// Bytes per element.
        element: u32,
    },
    /// A subarray dimension whose part does not fit inside it.
    #[error("{class}: subarray dimension {dimension}: {subsize} elements from {start} reach past its {size}", class = self.class().mpi_name())]
    Subarray {
        /// The dimension (0 is the slowest varying, as in C).
        dimension: u32,
        /// Elements of the dimension.
        size: u32,
        /// Elements of the part.
        subsize: u32,
        /// First element of the part.
        start: u32,
    },
    /// A group larger than an 8-bit completion counter can count.
    #[error("{class}: {call} with a group of {size}: at most {max} members", class = self.class().mpi_name())]
    GroupTooLarge {
        /// The call.
        call: &'static str,
        /// Members given.
        size: u32,
        /// The largest allowed.
        max: u32,
    },
    /// Not enough of a resource is left.
    #[error("{class}: {what}: {requested} asked for, {available} left", class = self.class().mpi_name())]
    NoMemory {
        /// What ran out (e.g. "POPSHM", "window database").
        what: &'static str,
        /// Bytes (or entries) asked for.
        requested: u64,
        /// Bytes (or entries) left.
        available: u64,
    },
    /// The platform refused to map shareable memory.
    #[error("{class}: the platform refused a mapping: {0}", class = self.class().mpi_name())]
    Map(MapError),
    /// Another rank failed its part of a collective window call, so this
    /// rank's part was undone.
    #[error("{class}: {call} failed on rank {rank}", class = self.class().mpi_name())]
    PeerFailed {
        /// The call.
        call: &'static str,
        /// The lowest rank that failed.
        rank: u32,
    },
    /// An accumulate operation the call or the element type does not
    /// allow (e.g. `MPI_BAND` on `f32`, `MPI_NO_OP` in accumulate).
    #[error("{class}: {call} on window {window}: {op} on {ty} {problem}", class = self.class().mpi_name())]
    Op {
        /// The call (e.g. "accumulate").
        call: &'static str,
        /// The window.
        window: u32,
        /// The operation, as its `MPI_*` name.
        op: &'static str,
        /// The element type.
        ty: &'static str,
        /// Why it is refused.
        problem: &'static str,
    },
    /// An element type the call does not accept (e.g. compare_and_swap on
    /// a floating-point type).
    #[error("{class}: {call} on window {window}: {ty} {problem}", class = self.class().mpi_name())]
    Type {
        /// The call.
        call: &'static str,
        /// The window.
        window: u32,
        /// The element type.
        ty: &'static str,
        /// Why it is refused.
        problem: &'static str,
    },
    /// A request handle given to a call that cannot use it (completed
    /// already, or made on another window).
    #[error("{class}: {call} on window {window}: request {request} {problem}", class = self.class().mpi_name())]
    Request {
        /// The call (e.g. "wait_request").
        call: &'static str,
        /// The window the call was given.
        window: u32,
        /// The request's number.
        request: u32,
        /// What is wrong.
        problem: &'static str,
    },
    /// A core's entry in the distributed window database is missing or
    /// malformed.
    #[error("{class}: the window database holds no valid {what} of core {core}", class = self.class().mpi_name())]
    Database {
        /// What was read.
        what: &'static str,
        /// The core whose entry it is.
        core: u32,
    },
    /// A process named where only members of a communicator (or of a
    /// window's communicator) may be: a group for `Comm::create` that is
    /// not a subgroup of the parent, or a post or start group with a
    /// process outside the window.
    #[error("{class}: {call}: process {process} of the run is not a member of {of}", class = self.class().mpi_name())]
    NotMember {
        /// The call (e.g. "comm_create").
        call: &'static str,
        /// What it must be a member of (e.g. "the parent communicator").
        of: &'static str,
        /// The process, by world rank (its core index).
        process: u32,
    },
    /// The ranks of a collective call that must pass the same group did not.
    #[error("{class}: {call}: rank {rank} passed a different group than rank 0", class = self.class().mpi_name())]
    DifferentGroups {
        /// The call (e.g. "comm_create").
        call: &'static str,
        /// The lowest rank (of the communicator the call ran on) whose
        /// group differs from rank 0's.
        rank: u32,
    },
    /// A communicator could not be made: every context number is taken.
    #[error("{class}: {call}: every communicator context number is taken", class = self.class().mpi_name())]
    NoContext {
        /// The call (e.g. "comm_split").
        call: &'static str,
    },
}

impl RmaError {
    /// The MPI error class.
    pub const fn class(&self) -> ErrorClass {
        match self {
            Self::Rank { .. } | Self::DuplicateRank { .. } => ErrorClass::Rank,
            Self::Root { .. } => ErrorClass::Root,
            Self::GroupMismatch { .. } => ErrorClass::Group,
            Self::BufferLength { .. }
            | Self::RecvFromSelfWithoutMessage
            | Self::MpbTooSmall { .. } => ErrorClass::Arg,
            Self::Truncate { .. } => ErrorClass::Truncate,
            Self::UnknownWindow { .. } | Self::PeerFailed { .. } => ErrorClass::Win,
            Self::UnknownMemory { .. } => ErrorClass::Base,
            Self::MemoryInUse { .. } | Self::BadLayout { .. } | Self::Subarray { .. } => {
                ErrorClass::Arg
            }
            Self::Unaligned { .. } => ErrorClass::Type,
            Self::DispUnit { .. } => ErrorClass::Disp,
            Self::Assert { .. } => ErrorClass::Assert,
            Self::Sync { .. }
            | Self::NotInGroup { .. }
            | Self::Lock { .. }
            | Self::NoPrecedeViolated { .. } => ErrorClass::RmaSync,
            Self::Range { .. } | Self::Unattached { .. } | Self::MemoryRange { .. } => {
                ErrorClass::RmaRange
            }
            Self::GroupTooLarge { .. } => ErrorClass::Group,
            Self::NoMemory { .. } | Self::Map(MapError::NoMemory) => ErrorClass::NoMem,
            Self::Map(_) | Self::Database { .. } => ErrorClass::Intern,
            Self::NotMember { .. } | Self::DifferentGroups { .. } => ErrorClass::Group,
            Self::NoContext { .. } => ErrorClass::Intern,
            Self::Op { .. } => ErrorClass::Op,
            Self::Type { .. } => ErrorClass::Type,
            Self::Request { .. } => ErrorClass::Request,
            Self::Flavor { .. } => ErrorClass::RmaFlavor,
            Self::Attach { .. } => ErrorClass::RmaAttach,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn messages_name_the_class_and_what_was_wrong() {
        let e = RmaError::Rank {
            role: "send destination",
            rank: 9,
            size: 8,
        };
        assert_eq!(e.class(), ErrorClass::Rank);
        assert_eq!(
            e.to_string(),
            "MPI_ERR_RANK: send destination 9 is not a rank of a group of 8"
        );
        let e = RmaError::Truncate {
            sender: 2,
            sent: 33,
            capacity: 32,
        };
        assert_eq!(
            e.to_string(),
            "MPI_ERR_TRUNCATE: rank 2 sent 33 bytes, the receive buffer holds 32"
        );
        let e = RmaError::Range {
            call: "put",
            window: 3,
            target: 1,
            offset: -8,
            len: 16,
            size: 64,
        };
        assert_eq!(
            e.to_string(),
            "MPI_ERR_RMA_RANGE: put on window 3: bytes -8..8 of rank 1's window of 64 bytes"
        );
        let e = RmaError::MemoryRange {
            call: "memory_read",
            memory: 2,
            offset: 60,
            len: 8,
            size: 64,
        };
        assert_eq!(
            e.to_string(),
            "MPI_ERR_RMA_RANGE: memory_read: bytes 60..68 of memory 2 of 64 bytes"
        );
        assert_eq!(
            RmaError::GroupMismatch {
                first: 8,
                second: 4
            }
            .class()
            .mpi_name(),
            "MPI_ERR_GROUP"
        );
    }
}
