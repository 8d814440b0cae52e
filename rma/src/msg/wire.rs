// SPDX-License-Identifier: MIT OR Apache-2.0
//! The messages of the message-based one-sided layer: a fixed header of
//! five little-endian words, then the payload (layout in the
//! [module doc](super)).

use alloc::vec::Vec;

/// Bytes of the header in front of every message.
pub(super) const HEADER: usize = 20;

/// What a message asks for or reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    Create = 1,
    Free = 2,
    Put = 3,
    Get = 4,
    Accumulate = 5,
    GetReply = 6,
    FenceDone = 7,
    Post = 8,
    Complete = 9,
    LockRequest = 10,
    LockGranted = 11,
    Unlock = 12,
    UnlockDone = 13,
}

impl Kind {
    fn from_u8(value: u8) -> Option<Self> {
        Some(match value {
            1 => Self::Create,
            2 => Self::Free,
            3 => Self::Put,
            4 => Self::Get,
            5 => Self::Accumulate,
            6 => Self::GetReply,
            7 => Self::FenceDone,
            8 => Self::Post,
            9 => Self::Complete,
            10 => Self::LockRequest,
            11 => Self::LockGranted,
            12 => Self::Unlock,
            13 => Self::UnlockDone,
            _ => return None,
        })
    }
}

/// Flag: the operation carries a lock request of type `lock` (the merged
/// lock-op-unlock message of the default mode).
pub(super) const LOCK: u8 = 1;
/// Flag: release the sender's lock after applying this operation.
pub(super) const UNLOCK: u8 = 2;
/// Flag on a get reply: the lock epoch of the get is complete at the target.
pub(super) const DONE: u8 = 4;

/// `lock` byte of a shared lock request.
pub(super) const SHARED: u8 = 0;
/// `lock` byte of an exclusive lock request.
pub(super) const EXCLUSIVE: u8 = 1;

/// The decoded header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub kind: Kind,
    pub flags: u8,
    pub lock: u8,
    /// Element type of an accumulate ([`AccElement::CODE`](super::AccElement::CODE)).
    pub dtype: u8,
    pub window: u32,
    /// Byte offset in the target window.
    pub offset: u32,
    /// Bytes a get asks for; the window size in `Create`.
    pub len: u32,
    /// Number of a get, echoed in its reply.
    pub id: u32,
}

impl Header {
    /// A header of `kind` for `window` with every other field zero.
    pub fn new(kind: Kind, window: u32) -> Self {
        Self {
            kind,
            flags: 0,
            lock: 0,
            dtype: 0,
            window,
            offset: 0,
            len: 0,
            id: 0,
        }
    }

    /// The message: header, then `payload`.
    pub fn encode(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&[self.kind as u8, self.flags, self.lock, self.dtype]);
        for word in [self.window, self.offset, self.len, self.id] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(payload);
        out
    }

    /// Header and payload of `message`, or `None` if it is not one of ours.
    pub fn decode(message: &[u8]) -> Option<(Self, &[u8])> {
        if message.len() < HEADER {
            return None;
        }
        let word = |i: usize| {
            let at = 4 + 4 * i;
            u32::from_le_bytes(message[at..at + 4].try_into().expect("four bytes"))
        };
        let header = Self {
            kind: Kind::from_u8(message[0])?,
            flags: message[1],
            lock: message[2],
            dtype: message[3],
            window: word(0),
            offset: word(1),
            len: word(2),
            id: word(3),
        };
        Some((header, &message[HEADER..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_and_garbage_is_refused() {
        let mut h = Header::new(Kind::Get, 7);
        h.flags = LOCK | UNLOCK;
        h.lock = EXCLUSIVE;
        h.dtype = 3;
        h.offset = 0x1234_5678;
        h.len = 99;
        h.id = u32::MAX;
        let m = h.encode(&[1, 2, 3]);
        assert_eq!(m.len(), HEADER + 3);
        assert_eq!(Header::decode(&m), Some((h, &[1u8, 2, 3][..])));
        assert_eq!(Header::decode(&m[..HEADER - 1]), None);
        let mut bad = m.clone();
        bad[0] = 0;
        assert_eq!(Header::decode(&bad), None);
    }
}
