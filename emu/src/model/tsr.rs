// SPDX-License-Identifier: GPL-2.0-or-later
//! The chip's test-and-set registers (TSRs), one per core, with the
//! protocol of [`chip::TsrProtocol`] and statistics per register.
//!
//! Silicon: a read returns `free` once and leaves `taken`; a write of any
//! value releases (thesis 1.6). Emulator: a plain read cannot have a side
//! effect under QEMU, so the platform layer takes a TSR by atomically
//! exchanging `taken` in, and releases it by writing `free`. Both ways are
//! modelled here on the same register values, so either kind of guest code
//! can be checked and counted.
//!
//! Per register the model counts acquires, failed attempts, releases and
//! releases of a register that was free: the last is always a program bug
//! (an unlock without a lock, or two unlocks), worth reporting.

use std::fmt;

use chip::{Chip, TsrProtocol};

/// Counters of one register.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TsrStats {
    /// Attempts that found the register free and took it.
    pub acquires: u64,
    /// Attempts that found it taken.
    pub failed: u64,
    /// Writes that released it.
    pub releases: u64,
    /// Releases of a register that was already free (a program bug).
    pub free_releases: u64,
}

/// What an attempt to take a register did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// The register was free and is now taken by the caller.
    Acquired,
    /// It was taken; nothing changed.
    Failed,
}

/// All TSRs of a chip.
#[derive(Debug, Clone)]
pub struct Tsrs {
    protocol: TsrProtocol,
    values: Box<[u8]>,
    stats: Box<[TsrStats]>,
}

impl Tsrs {
    /// Every register of `chip`, free, as after reset.
    pub fn new(chip: &Chip) -> Self {
        let n = chip.cores() as usize;
        Self {
            protocol: chip.tsr_protocol,
            values: vec![chip.tsr_protocol.free; n].into_boxed_slice(),
            stats: vec![TsrStats::default(); n].into_boxed_slice(),
        }
    }

    fn attempt(&mut self, reg: usize, old: u8) -> Attempt {
        if old == self.protocol.free {
            self.stats[reg].acquires += 1;
            Attempt::Acquired
        } else {
            self.stats[reg].failed += 1;
            Attempt::Failed
        }
    }

    /// A silicon read of register `reg`: returns its value and leaves it taken.
    pub fn read(&mut self, reg: usize) -> (u8, Attempt) {
        let old = std::mem::replace(&mut self.values[reg], self.protocol.taken);
        (old, self.attempt(reg, old))
    }

    /// The emulator's atomic exchange of `new` into register `reg`; returns
    /// the old value. Exchanging `taken` in is an acquire attempt,
    /// exchanging `free` in is a release.
    pub fn exchange(&mut self, reg: usize, new: u8) -> (u8, Option<Attempt>) {
        let old = std::mem::replace(&mut self.values[reg], new);
        if new == self.protocol.free {
            self.count_release(reg, old);
            (old, None)
        } else {
            (old, Some(self.attempt(reg, old)))
        }
    }

    /// A write to register `reg`: releases it whatever the value (silicon
    /// ignores the value written).
    pub fn write(&mut self, reg: usize) {
        let old = std::mem::replace(&mut self.values[reg], self.protocol.free);
        self.count_release(reg, old);
    }

    fn count_release(&mut self, reg: usize, old: u8) {
        self.stats[reg].releases += 1;
        if old == self.protocol.free {
            self.stats[reg].free_releases += 1;
        }
    }

    /// The value register `reg` holds (what a side-effect-free look shows).
    pub fn value(&self, reg: usize) -> u8 {
        self.values[reg]
    }

    /// Counters of register `reg`.
    pub fn stats(&self, reg: usize) -> TsrStats {
        self.stats[reg]
    }

    /// A table of the registers that were used, one row each.
    pub fn table(&self) -> impl fmt::Display + '_ {
        TsrTable(&self.stats)
    }
}

struct TsrTable<'a>(&'a [TsrStats]);

impl fmt::Display for TsrTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>4} {:>10} {:>10} {:>10} {:>14}",
            "TSR", "acquires", "failed", "releases", "free releases"
        )?;
        for (reg, s) in self.0.iter().enumerate() {
            if *s != TsrStats::default() {
                writeln!(
                    f,
                    "{reg:>4} {:>10} {:>10} {:>10} {:>14}",
                    s.acquires, s.failed, s.releases, s.free_releases
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chip::SCC;

    use super::*;

    #[test]
    fn silicon_read_returns_free_once_and_a_write_frees_again() {
        let mut t = Tsrs::new(&SCC);
        assert_eq!(t.read(7), (1, Attempt::Acquired));
        assert_eq!(t.read(7), (0, Attempt::Failed));
        assert_eq!(t.read(7), (0, Attempt::Failed));
        assert_eq!(t.value(8), 1, "other registers are independent");
        t.write(7);
        assert_eq!(t.read(7), (1, Attempt::Acquired));
        assert_eq!(
            t.stats(7),
            TsrStats {
                acquires: 2,
                failed: 2,
                releases: 1,
                free_releases: 0
            }
        );
    }

    #[test]
    fn emulator_exchange_meets_the_same_values() {
        let mut t = Tsrs::new(&SCC);
        let p = SCC.tsr_protocol;
        assert_eq!(t.exchange(3, p.taken), (p.free, Some(Attempt::Acquired)));
        assert_eq!(t.exchange(3, p.taken), (p.taken, Some(Attempt::Failed)));
        // A silicon-style read sees it taken too.
        assert_eq!(t.read(3), (p.taken, Attempt::Failed));
        assert_eq!(t.exchange(3, p.free), (p.taken, None));
        assert_eq!(t.read(3), (p.free, Attempt::Acquired));
        let s = t.stats(3);
        assert_eq!(
            (s.acquires, s.failed, s.releases, s.free_releases),
            (2, 2, 1, 0)
        );
    }

    #[test]
    fn releasing_a_free_register_is_counted_as_an_anomaly() {
        let mut t = Tsrs::new(&SCC);
        t.write(0);
        t.exchange(0, SCC.tsr_protocol.free);
        t.read(0);
        t.write(0);
        let s = t.stats(0);
        assert_eq!((s.releases, s.free_releases, s.acquires), (3, 2, 1));
        let table = t.table().to_string();
        assert_eq!(table.lines().count(), 2, "only used registers: {table}");
        assert!(table.lines().nth(1).unwrap().trim_start().starts_with("0 "));
    }
}
