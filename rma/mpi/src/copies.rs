// SPDX-License-Identifier: MIT OR Apache-2.0
//! The bookkeeping of a window's two copies of program memory (MPI's
//! private and public copies, see the guest's `private` module): plain
//! work on bytes, tested on the host.
//!
//! Three byte strings of one length take part: the program's bytes (the
//! private copy), the public copy, and the bytes both held after the last
//! reconciliation (`agreed`). A byte that differs from `agreed` in one
//! copy was changed there since: by a store of the program, or by an
//! origin's put or accumulate.

use core::ops::Range;

/// The first run of bytes at or after `from` where `a` and `b` differ
/// (over the shorter's length), found a word at a time.
pub fn next_difference(a: &[u8], b: &[u8], from: usize) -> Option<Range<usize>> {
    let len = a.len().min(b.len());
    let mut at = from.min(len);
    // Equal words are skipped a word at a time: one load and compare each.
    let word = |s: &[u8], at: usize| u32::from_ne_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
    let words = a[at..len]
        .chunks_exact(4)
        .zip(b[at..len].chunks_exact(4))
        .take_while(|(x, y)| word(x, 0) == word(y, 0))
        .count();
    at += 4 * words;
    while at < len && a[at] == b[at] {
        at += 1;
    }
    if at >= len {
        return None;
    }
    let start = at;
    while at < len && a[at] != b[at] {
        at += 1;
    }
    Some(start..at)
}

/// Every run of bytes where `a` and `b` differ, in order
/// ([`next_difference`]).
pub fn differing<'s>(a: &'s [u8], b: &'s [u8]) -> impl Iterator<Item = Range<usize>> + 's {
    let mut at = 0;
    core::iter::from_fn(move || {
        let run = next_difference(a, b, at)?;
        at = run.end;
        Some(run)
    })
}

/// Takes what changed in the public copy `public` into the program's
/// bytes `program`, and records it in `agreed` (all three as long): a
/// byte the program changed too keeps the program's value (changing it on
/// both sides between two reconciliations is erroneous in MPI), which the
/// next publication then sends to the public copy.
pub fn take_public(public: &[u8], program: &mut [u8], agreed: &mut [u8]) {
    let mut from = 0;
    while let Some(run) = next_difference(public, agreed, from) {
        from = run.end;
        for at in run {
            if program[at] == agreed[at] {
                program[at] = public[at];
            }
            agreed[at] = public[at];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn differing_finds_byte_exact_runs() {
        let a = [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        let mut b = a;
        assert_eq!(differing(&a, &b).count(), 0);
        b[1] = 9;
        b[2] = 9;
        b[5] = 0;
        b[9] = 0;
        let runs: Vec<_> = differing(&a, &b).collect();
        assert_eq!(runs, [1..3, 5..6, 9..10]);
        assert_eq!(differing(&a[..1], &b).count(), 0, "over the shorter only");
    }

    #[test]
    fn a_put_reaches_the_program_beside_a_store() {
        let mut agreed = [1u8; 8];
        let mut program = agreed;
        let mut public = agreed;
        program[2] = 7; // the program's store
        public[3] = 9; // an origin's put beside it
        take_public(&public, &mut program, &mut agreed);
        assert_eq!(program, [1, 1, 7, 9, 1, 1, 1, 1]);
        assert_eq!(agreed, [1, 1, 1, 9, 1, 1, 1, 1]);
        // The store is still unpublished: it differs from `agreed`.
        let mut runs = differing(&program, &agreed);
        assert_eq!(runs.next(), Some(2..3));
        assert_eq!(runs.next(), None);
    }

    #[test]
    fn a_byte_changed_on_both_sides_keeps_the_store() {
        let mut agreed = [0u8; 4];
        let mut program = [5u8, 0, 0, 0];
        let public = [6u8, 0, 0, 0];
        take_public(&public, &mut program, &mut agreed);
        assert_eq!(program[0], 5);
        assert_eq!(agreed[0], 6);
        assert_eq!(differing(&program, &agreed).next(), Some(0..1));
    }
}
