// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one error type of rma, with MPI's error classes.

use core::fmt;

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
        }
    }
}

/// What went wrong in an rma call. Each value says which argument was
/// wrong and why; [`RmaError::class`] gives its MPI error class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RmaError {
    /// A rank is not below the size of the group or communicator it names
    /// a member of.
    Rank {
        /// What the rank was given as (e.g. "send destination").
        role: &'static str,
        /// The rank.
        rank: u32,
        /// The size it must be below.
        size: u32,
    },
    /// A rank appears twice in a list that must name each member once.
    DuplicateRank {
        /// The operation (e.g. "Group::incl").
        operation: &'static str,
        /// The rank.
        rank: u32,
    },
    /// A collective's root is not a rank of the communicator.
    Root {
        /// The root given.
        root: u32,
        /// The communicator's size.
        size: u32,
    },
    /// Two groups that must come from the same set of processes do not.
    GroupMismatch {
        /// Processes the first group was drawn from.
        first: u32,
        /// Processes the second group was drawn from.
        second: u32,
    },
    /// A buffer's length is not what the operation needs.
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
    RecvFromSelfWithoutMessage,
    /// A message does not fit the receive buffer; the message was consumed
    /// and its first `capacity` bytes kept.
    Truncate {
        /// The sender's rank.
        source: u32,
        /// Bytes sent.
        sent: usize,
        /// Bytes the receive buffer holds.
        capacity: usize,
    },
    /// The message passing buffer is too small for rma's layout on this chip.
    MpbTooSmall {
        /// Bytes per core.
        bytes: u32,
        /// Bytes the layout needs.
        needed: u32,
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
        }
    }
}

impl fmt::Display for RmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.class().mpi_name())?;
        match self {
            Self::Rank { role, rank, size } => {
                write!(f, "{role} {rank} is not a rank of a group of {size}")
            }
            Self::DuplicateRank { operation, rank } => {
                write!(f, "{operation} names rank {rank} more than once")
            }
            Self::Root { root, size } => {
                write!(f, "root {root} is not a rank of a communicator of {size}")
            }
            Self::GroupMismatch { first, second } => write!(
                f,
                "groups drawn from {first} and from {second} processes cannot be compared"
            ),
            Self::BufferLength {
                what,
                len,
                expected,
            } => write!(f, "{what} has length {len}, expected {expected}"),
            Self::RecvFromSelfWithoutMessage => {
                f.write_str("receive from self with no message to self pending would never end")
            }
            Self::Truncate {
                source,
                sent,
                capacity,
            } => write!(
                f,
                "rank {source} sent {sent} bytes, the receive buffer holds {capacity}"
            ),
            Self::MpbTooSmall { bytes, needed } => write!(
                f,
                "the MPB has {bytes} bytes per core, the communication layout needs {needed}"
            ),
        }
    }
}

impl core::error::Error for RmaError {}

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
            source: 2,
            sent: 33,
            capacity: 32,
        };
        assert_eq!(
            e.to_string(),
            "MPI_ERR_TRUNCATE: rank 2 sent 33 bytes, the receive buffer holds 32"
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
