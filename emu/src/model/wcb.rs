// SPDX-License-Identifier: GPL-2.0-or-later
//! The write-combine buffer (WCB) of one core.
//!
//! The SCC adds one 32-byte buffer behind each core's L1 for writes to
//! message-buffer (PMB) pages: it "can hold up to 32 write operations to
//! subsequent bytes starting from an offset that is a multiple of 32", and
//! is written to memory when a write "does not fall in to the same 32 byte
//! offset" (thesis 1.5). So it holds one line and which of its bytes were
//! written; the bytes themselves are already in the core's view of memory
//! (stores hit the view directly), so a flush tells the plugin which bytes
//! of the view to publish.
//!
//! Modelling choices, each the stricter reading of the thesis (it makes a
//! missing flush show, never hides one):
//! - any write inside the buffered line combines, in any order and
//!   overlapping earlier ones (the later value wins, as the view holds it);
//! - a full buffer is not written out by itself: only a write to another
//!   line or an explicit flush empties it;
//! - writes of other memory types do not flush it (the thesis's "another
//!   write operation" is read as another write to the buffer).

use chip::CACHE_LINE;

/// A mask with one bit per byte of a line.
const FULL: u32 = u32::MAX;
const _: () = assert!(CACHE_LINE == 32, "one u32 bit per byte of a line");

/// Bytes of one line leaving the buffer: the plugin copies exactly these
/// bytes from the core's view to global memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WcbFlush {
    /// Base core-physical address of the line.
    pub line: u32,
    /// Bit `i` set: byte `line + i` was written.
    pub mask: u32,
}

impl WcbFlush {
    /// The byte runs the mask covers, as `(address, length)`, lowest first;
    /// for a plugin that copies runs rather than single bytes.
    pub fn runs(self) -> impl Iterator<Item = (u32, u32)> {
        let mut rest = self.mask;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let start = rest.trailing_zeros();
            let len = (rest >> start).trailing_ones();
            rest &= !(mask_of(start, len));
            Some((self.line + start, len))
        })
    }
}

/// Mask of `len` bytes from offset `start` (`start + len <= 32`).
pub const fn mask_of(start: u32, len: u32) -> u32 {
    if len >= 32 {
        FULL
    } else {
        ((1u32 << len) - 1) << start
    }
}

/// The buffer: empty, or one line and its written bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wcb {
    held: Option<WcbFlush>,
}

impl Wcb {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self { held: None }
    }

    /// Records a write of `len` bytes at `addr`, which must lie in one
    /// line. If the buffer held another line, that line leaves first and is
    /// returned, to be published before anything else happens.
    pub fn write(&mut self, addr: u32, len: u32) -> Option<WcbFlush> {
        let line = addr & !(CACHE_LINE as u32 - 1);
        let start = addr - line;
        assert!(
            len >= 1 && start + len <= CACHE_LINE as u32,
            "write of {len} bytes at {addr:#x} does not lie in one line"
        );
        let mask = mask_of(start, len);
        match &mut self.held {
            Some(held) if held.line == line => {
                held.mask |= mask;
                None
            }
            other => other.replace(WcbFlush { line, mask }),
        }
    }

    /// Empties the buffer; what it held, if anything.
    pub fn flush(&mut self) -> Option<WcbFlush> {
        self.held.take()
    }

    /// What the buffer holds, without emptying it.
    pub fn held(&self) -> Option<WcbFlush> {
        self.held
    }

    /// The written bytes of `line`, if the buffer holds that line; else 0.
    pub fn mask_for(&self, line: u32) -> u32 {
        match self.held {
            Some(h) if h.line == line => h.mask,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn writes_to_one_line_combine() {
        let mut w = Wcb::new();
        assert_eq!(w.write(0x1000, 4), None);
        assert_eq!(w.write(0x1004, 4), None);
        assert_eq!(w.write(0x101F, 1), None);
        assert_eq!(
            w.held(),
            Some(WcbFlush {
                line: 0x1000,
                mask: 0x8000_00FF
            })
        );
    }

    #[test]
    fn a_write_to_another_line_flushes_the_previous_one_first() {
        let mut w = Wcb::new();
        w.write(0x1008, 2);
        let out = w.write(0x1020, 1);
        assert_eq!(
            out,
            Some(WcbFlush {
                line: 0x1000,
                mask: 0b11 << 8
            })
        );
        assert_eq!(w.mask_for(0x1020), 1);
        assert_eq!(w.mask_for(0x1000), 0);
    }

    #[test]
    fn a_full_buffer_waits_for_a_flush() {
        let mut w = Wcb::new();
        for i in 0..32 {
            assert_eq!(w.write(0x2000 + i, 1), None);
        }
        assert_eq!(
            w.flush(),
            Some(WcbFlush {
                line: 0x2000,
                mask: FULL
            })
        );
        assert_eq!(w.flush(), None);
    }

    #[test]
    #[should_panic(expected = "does not lie in one line")]
    fn a_write_across_lines_is_a_caller_bug() {
        Wcb::new().write(0x101E, 4);
    }

    #[test]
    fn runs_cover_the_mask() {
        let f = WcbFlush {
            line: 0x40,
            mask: 0x8000_0F03,
        };
        assert_eq!(
            f.runs().collect::<Vec<_>>(),
            [(0x40, 2), (0x48, 4), (0x5F, 1)]
        );
        let full = WcbFlush {
            line: 0,
            mask: FULL,
        };
        assert_eq!(full.runs().collect::<Vec<_>>(), [(0, 32)]);
    }

    proptest! {
        /// Against a reference that keeps the pending bytes in a map: every
        /// byte written is published exactly once, by the flush that follows
        /// it, and with the value of its last write.
        #[test]
        fn every_written_byte_is_published_once_with_its_last_value(
            writes in prop::collection::vec((0u32..256, 1u32..=8, any::<u8>(), any::<bool>()), 1..200)
        ) {
            let mut w = Wcb::new();
            let mut view = [0u8; 256];
            let mut memory = [0u8; 256];
            let mut pending = std::collections::BTreeMap::new();
            let mut reference = [0u8; 256];
            let publish = |f: WcbFlush, view: &[u8; 256], memory: &mut [u8; 256]| {
                for (addr, len) in f.runs() {
                    let a = addr as usize;
                    memory[a..a + len as usize].copy_from_slice(&view[a..a + len as usize]);
                }
            };
            for (addr, len, value, flush) in writes {
                let line = addr & !31;
                let len = len.min(line + 32 - addr);
                if flush {
                    if let Some(f) = w.flush() { publish(f, &view, &mut memory); }
                    for (a, v) in std::mem::take(&mut pending) { reference[a as usize] = v; }
                    prop_assert_eq!(memory, reference);
                }
                if pending.keys().next().is_some_and(|a| a & !31 != line) {
                    for (a, v) in std::mem::take(&mut pending) { reference[a as usize] = v; }
                }
                for a in addr..addr + len {
                    view[a as usize] = value;
                    pending.insert(a, value);
                }
                if let Some(f) = w.write(addr, len) { publish(f, &view, &mut memory); }
                prop_assert_eq!(memory, reference);
            }
        }
    }
}
