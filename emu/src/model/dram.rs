// SPDX-License-Identifier: GPL-2.0-or-later
//! The DDR3 channel behind a memory controller: its banks, the command
//! timings between them and its data bus, and how many lines a second it
//! serves when several requests are in flight.
//!
//! # The mechanism
//!
//! A controller reads a line with an activate (ACT) of its row in one
//! bank, a read (RD) of the line's column `tRCD` later, which puts the
//! line on the data bus `CL` later for `dram_burst` clocks, and a
//! precharge (PRE) that closes the row (`chip::Timing`'s `dram_*` fields
//! give each timing and its source). A read occupies:
//!
//! - its bank, from its ACT until the bank may be activated again: the
//!   PRE comes `tRAS` after the ACT and `tRTP` after the RD, whichever is
//!   later, and the next ACT `tRP` after it: requests to one bank
//!   serialise;
//! - the rank's activate window: ACTs are at least `tRRD` apart, at most
//!   four in any `tFAW`;
//! - the column path and the data bus: RDs at least `tCCD` apart, one
//!   burst on the bus at a time.
//!
//! Reads to different banks overlap: one bank's ACT and RD can go while
//! another waits for its data or precharges. [`Ddr3::serve`] schedules a
//! sequence of reads under these rules, each as early as they allow, in
//! the order given (first come, first served).
//!
//! # What the emulator takes from it
//!
//! The latency of a lone access stays the \[EAS\] formula's: the 46 memory
//! cycles of `memctl_mesh_cycles` hold the device's part,
//! `tRCD + CL + dram_burst` ([`Ddr3::read_clocks`], 28 mesh cycles at
//! DDR3-800), and the controller's own (its queues, the physical
//! interface), which no document at hand breaks down.
//!
//! What several requests cost each other is the rate at which the channel
//! serves lines: [`Ddr3::line_interval`], the spacing of the reads of
//! [`Ddr3::serve`] in steady state, a line per bank in turn. That is the
//! service of the controller's calendar ([`super::queue`]): a request
//! waits for the lines of the other cores' requests ahead of it to pass
//! the channel's narrowest stage, not for their whole latency, so several
//! are in flight at once. At DDR3-800 the data bus and the activate window
//! allow a line every 4 clocks (8 mesh cycles), and a bank's cycle of 21
//! clocks spread over 8 banks allows more.
//!
//! Stated assumptions (none of them documented for the SCC): the
//! controller closes a row after each access (closed page, so every line
//! costs an ACT, and streams of other cores never hit an open row), maps
//! consecutive lines to consecutive banks, and orders requests first
//! come, first served. The calendar counts requests, not their banks, so
//! two cores' requests that fall into one bank at once are not made to
//! wait for each other's bank cycle: the interval is that of requests
//! spread over the banks. Writes are taken to cost what reads do (one
//! burst; the write recovery `tWR` and the turnaround `tWTR` are not
//! modelled).

use std::collections::VecDeque;

use chip::Timing;

/// A DDR3 channel's timings, in DRAM clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ddr3 {
    /// DRAM clock in MHz: half the data rate.
    pub clock_mhz: u64,
    /// CAS latency: RD to the first data.
    pub cl: u64,
    /// ACT to RD.
    pub trcd: u64,
    /// PRE to the next ACT of the bank.
    pub trp: u64,
    /// ACT to PRE of the bank.
    pub tras: u64,
    /// RD to PRE of the bank.
    pub trtp: u64,
    /// RD to RD.
    pub tccd: u64,
    /// ACT to ACT, any two banks.
    pub trrd: u64,
    /// The window in which at most four ACTs go.
    pub tfaw: u64,
    /// Clocks a line's data takes on the bus.
    pub burst: u64,
    /// Banks.
    pub banks: usize,
}

/// A read: when it reaches the channel (in DRAM clocks) and its bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// When the controller may issue its first command.
    pub arrival: u64,
    /// Its bank, below [`Ddr3::banks`].
    pub bank: usize,
}

impl Ddr3 {
    /// The channel `t` describes.
    pub fn of(t: &Timing) -> Self {
        let c = u64::from;
        Self {
            clock_mhz: c(t.dram_mts) / 2,
            cl: c(t.dram_cl),
            trcd: c(t.dram_trcd),
            trp: c(t.dram_trp),
            tras: c(t.dram_tras),
            trtp: c(t.dram_trtp),
            tccd: c(t.dram_tccd),
            trrd: c(t.dram_trrd),
            tfaw: c(t.dram_tfaw),
            burst: c(t.dram_burst),
            banks: t.dram_banks as usize,
        }
    }

    /// Clocks from a lone read's ACT to the end of its data.
    pub fn read_clocks(&self) -> u64 {
        self.trcd + self.cl + self.burst
    }

    /// When the data of each of `reads` has left the bus, scheduled in
    /// their order (the module's docs, "The mechanism").
    ///
    /// # Panics
    /// If a read names a bank the channel does not have.
    pub fn serve(&self, reads: &[Read]) -> Vec<u64> {
        let mut bank_ready = vec![0u64; self.banks];
        let mut acts: VecDeque<u64> = VecDeque::with_capacity(4);
        let mut last_rd: Option<u64> = None;
        let mut bus_free = 0u64;
        reads
            .iter()
            .map(|r| {
                assert!(r.bank < self.banks, "bank {} of {}", r.bank, self.banks);
                let mut act = r.arrival.max(bank_ready[r.bank]);
                if let Some(&last) = acts.back() {
                    act = act.max(last + self.trrd);
                }
                if acts.len() == 4 {
                    act = act.max(acts[0] + self.tfaw);
                    acts.pop_front();
                }
                acts.push_back(act);
                let mut rd = act + self.trcd;
                if let Some(last) = last_rd {
                    rd = rd.max(last + self.tccd);
                }
                rd = rd.max(bus_free.saturating_sub(self.cl));
                last_rd = Some(rd);
                bus_free = rd + self.cl + self.burst;
                let pre = (act + self.tras).max(rd + self.trtp);
                bank_ready[r.bank] = pre + self.trp;
                bus_free
            })
            .collect()
    }

    /// Clocks between two lines in steady state, reads waiting for the
    /// channel and falling on the banks in turn (consecutive lines in
    /// consecutive banks): what its narrowest stage allows.
    pub fn line_interval(&self) -> u64 {
        let n = 4 * self.banks.max(1);
        let reads: Vec<Read> = (0..n)
            .map(|i| Read {
                arrival: 0,
                bank: i % self.banks.max(1),
            })
            .collect();
        let done = self.serve(&reads);
        let span = self.banks.max(1);
        (done[n - 1] - done[n - 1 - span]).div_ceil(span as u64)
    }

    /// `clocks` DRAM clocks in mesh cycles of `t`, rounded up.
    pub fn mesh_cycles(&self, t: &Timing, clocks: u64) -> u64 {
        (clocks * u64::from(t.mesh_mhz)).div_ceil(self.clock_mhz)
    }

    /// Core cycles of `t` the controller takes per line when several
    /// requests are in flight: [`Ddr3::line_interval`], rounded up to
    /// whole core cycles as every mesh time is.
    pub fn line_service(&self, t: &Timing) -> u64 {
        t.mesh_to_core(self.mesh_cycles(t, self.line_interval()))
    }
}

#[cfg(test)]
mod tests {
    use chip::SCC;

    use super::*;

    fn ddr() -> Ddr3 {
        Ddr3::of(&SCC.timing)
    }

    fn at_once(banks: impl Iterator<Item = usize>) -> Vec<Read> {
        banks.map(|bank| Read { arrival: 0, bank }).collect()
    }

    #[test]
    fn a_lone_read_takes_activate_cas_and_its_burst() {
        let d = ddr();
        assert_eq!(d.serve(&at_once([3].into_iter())), [d.read_clocks()]);
        // DDR3-800E: 6 + 6 + 2 clocks of 2.5 ns, 35 ns: 28 mesh cycles.
        assert_eq!(d.read_clocks(), 14);
        let device = d.mesh_cycles(&SCC.timing, d.read_clocks());
        assert_eq!(device, 28);
        // The device's part fits in the EAS's 46 memory cycles.
        assert!(device <= u64::from(SCC.timing.memctl_mesh_cycles));
    }

    #[test]
    fn reads_to_different_banks_overlap_and_the_bus_paces_them() {
        let d = ddr();
        let done = d.serve(&at_once(0..8));
        // One after the other they would take 8 lone reads; overlapped,
        // each ends one tCCD (or tRRD) after the one before.
        assert_eq!(done[0], d.read_clocks());
        for w in done.windows(2) {
            assert_eq!(w[1] - w[0], 4, "{done:?}");
        }
        assert!(done[7] < 2 * d.read_clocks() + 8 * 4);
        assert!(done[7] < 8 * d.read_clocks() / 2);
    }

    #[test]
    fn reads_to_one_bank_serialise_by_its_cycle() {
        let d = ddr();
        let done = d.serve(&at_once(std::iter::repeat_n(5, 4)));
        // ACT to ACT of one bank: tRAS + tRP = 15 + 6 clocks.
        for w in done.windows(2) {
            assert_eq!(w[1] - w[0], d.tras + d.trp, "{done:?}");
        }
        let spread = d.serve(&at_once(0..4));
        assert!(spread[3] * 2 < done[3], "{spread:?} against {done:?}");
    }

    #[test]
    fn the_activate_window_holds_five_acts_to_four_per_tfaw() {
        // Without the column path's limit, ACTs to fresh banks would go
        // every tRRD; the fifth waits for the first's tFAW.
        let d = Ddr3 {
            tccd: 1,
            burst: 1,
            trrd: 2,
            ..ddr()
        };
        let done = d.serve(&at_once(0..5));
        let act = |i: usize| done[i] - d.read_clocks();
        assert_eq!([act(0), act(1), act(2), act(3)], [0, 2, 4, 6]);
        assert_eq!(act(4), d.tfaw);
    }

    #[test]
    fn a_read_that_arrives_late_waits_for_nothing_past() {
        let d = ddr();
        let reads = [
            Read {
                arrival: 0,
                bank: 0,
            },
            Read {
                arrival: 1000,
                bank: 0,
            },
        ];
        assert_eq!(d.serve(&reads)[1], 1000 + d.read_clocks());
    }

    #[test]
    fn the_channel_serves_a_line_every_four_clocks_at_ddr3_800() {
        let t = SCC.timing;
        let d = ddr();
        // tCCD and tRRD are 4 clocks, tFAW 16 (four ACTs): a line every
        // 10 ns, 8 mesh cycles, 5.33 core cycles: 6.
        assert_eq!(d.line_interval(), 4);
        assert_eq!(d.mesh_cycles(&t, 4), 8);
        assert_eq!(d.line_service(&t), 6);
        // Far below the 46 memory cycles of a whole access: several
        // requests are in flight. Serving one at a time again would
        // make the service the latency's 31 core cycles.
        assert!(d.line_service(&t) * 5 < t.mesh_to_core(u64::from(t.memctl_mesh_cycles)));
    }

    #[test]
    fn with_one_bank_the_channel_serves_a_line_per_bank_cycle() {
        let d = Ddr3 { banks: 1, ..ddr() };
        assert_eq!(d.line_interval(), d.tras + d.trp);
    }
}
