// SPDX-License-Identifier: MIT OR Apache-2.0
//! The accumulate family against the process count: each of `procs`
//! origins (ranks `0..procs`; the others sit the round out in the
//! barrier) calls accumulate, get_accumulate or fetch_and_op (`MPI_SUM`
//! of `u64`) once on every rank of the run, itself included, in
//! [`sweeps`] sweeps, under one `lock_all` epoch, and times each call.
//! Origin `o` starts its sweep at rank `o`, so the origins spread over
//! the targets. Result lines `BENCH accumulate procs=<p> op=<op>
//! elements=<e> cycles=...`, one sample per call.
//!
//! Every round is checked outside the timed part:
//! - accumulate adds `(o + 1) * (j + 1)` to element `j` of every target, so
//!   after the round element `j` holds `sweeps * (j + 1) * procs (procs + 1) / 2`;
//! - get_accumulate and fetch_and_op add 1 to each element they reach, so
//!   each element ends at `total = sweeps * procs`, and the old values all
//!   calls returned for it are exactly `0..total` once each: every origin
//!   checks that its own are below `total` and increase from sweep to
//!   sweep, and their sums over all origins (an allreduce) must be
//!   `total (total - 1) / 2` per element.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::ReduceOp;
use rma::{AccumulateOp, Assert, LockType, Rma, Window, WindowOptions};

use super::{Scale, Scaled, counts_up_to, emit, timed};
use crate::support::osc::{fail, open};
use kernel::Platform;

/// The calls measured, with their names in the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Accumulate,
    GetAccumulate,
    FetchAndOp,
}

impl Call {
    const ALL: [Call; 3] = [Self::Accumulate, Self::GetAccumulate, Self::FetchAndOp];

    fn name(self) -> &'static str {
        match self {
            Self::Accumulate => "accumulate",
            Self::GetAccumulate => "get-accumulate",
            Self::FetchAndOp => "fetch-and-op",
        }
    }

    /// The element counts of one call: fetch_and_op reaches one element.
    fn sizes(self) -> &'static [u32] {
        match self {
            Self::FetchAndOp => &[1],
            _ => &SIZES,
        }
    }
}

/// Elements per accumulate and get_accumulate: one, and four times the
/// elements rma reads, combines and writes at a time under the guard
/// ([`rma::accumulate::CHUNK`]).
const SIZES: [u32; 2] = [1, 4 * rma::accumulate::CHUNK as u32];

/// Sweeps over all ranks per origin and round. Full scale: 2, which gives
/// each point at least 96 samples on 48 cores (2 x 48 at one process).
/// The 48-core run then makes about 7 times the calls of the quick one
/// (the process counts sum to 175, twice, against 53 once), whose host
/// time was 33 s on a 2-CPU host at load average 35: an estimated 4
/// minutes, within the suite's 900 s limit; quick: 1.
fn sweeps(scale: Scale) -> u32 {
    scale.pick(1, 2)
}

/// The process counts of a run on `cores` cores.
fn process_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [1, 2, 4, 8, 16, 24, 32, 40, 48];
    counts_up_to(scale, &[1, 4], &full, cores, true)
}

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let mut rma = open(platform)?;
    let n = rma.size();
    let counts = process_counts(settings.scale, n);
    let sweeps = sweeps(settings.scale);
    let largest = SIZES[SIZES.len() - 1];
    let win = rma
        .allocate::<u64>(largest, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    for call in Call::ALL {
        for &elements in call.sizes() {
            for &procs in &counts {
                let round = Round {
                    call,
                    elements,
                    procs,
                    sweeps,
                };
                round.run(&mut rma, win)?;
            }
        }
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the window"))?;
    if rma.rank() == 0 {
        kernel::println!(
            "bench-accumulate: accumulate and get_accumulate of {SIZES:?} u64 elements and fetch_and_op onto every one of {n} ranks, {sweeps} sweeps per origin, {} process counts; every value checked",
            counts.len()
        );
    }
    Ok(())
}

/// One measurement: `procs` origins, each calling `call` on every rank.
struct Round {
    call: Call,
    elements: u32,
    procs: u32,
    sweeps: u32,
}

impl Round {
    fn run(&self, rma: &mut Rma<'_, Platform>, win: Window<u64>) -> Result<(), String> {
        let (n, me) = (rma.size(), rma.rank());
        let what = format!(
            "{} of {} elements on {} processes",
            self.call.name(),
            self.elements,
            self.procs
        );
        reset(rma, win, self.elements)?;
        rma.comm().barrier();
        // Sums of the old values returned, per target and element.
        let mut olds = vec![0u64; (n * self.elements) as usize];
        if me < self.procs {
            let samples = self.calls(rma, win, &mut olds, &what)?;
            let keys = format!(
                "procs={} op={} elements={}",
                self.procs,
                self.call.name(),
                self.elements
            );
            emit("accumulate", &keys, None, &samples);
        }
        rma.comm().barrier();
        self.check(rma, win, &mut olds, &what)
    }

    /// This origin's timed calls; adds the old values they return to
    /// `olds` and checks them against this origin's earlier ones.
    fn calls(
        &self,
        rma: &mut Rma<'_, Platform>,
        win: Window<u64>,
        olds: &mut [u64],
        what: &str,
    ) -> Result<Vec<u64>, String> {
        let platform = rma.hal();
        let (n, me) = (rma.size(), rma.rank());
        let e = self.elements as usize;
        let total = u64::from(self.sweeps * self.procs);
        let data: Vec<u64> = (1..=e as u64).map(|j| j * u64::from(me + 1)).collect();
        let ones = vec![1u64; e];
        let mut result = vec![0u64; e];
        // The last old value seen per target (element 0).
        let mut last: Vec<Option<u64>> = vec![None; n as usize];
        let mut samples = Vec::with_capacity((self.sweeps * n) as usize);
        rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
        for _ in 0..self.sweeps {
            for k in 0..n {
                let target = (me + k) % n;
                let (done, cycles) = timed(platform, || match self.call {
                    Call::Accumulate => rma.accumulate(win, target, 0, &data, AccumulateOp::Sum),
                    Call::GetAccumulate => {
                        rma.get_accumulate(win, target, 0, &ones, &mut result, AccumulateOp::Sum)
                    }
                    Call::FetchAndOp => rma
                        .fetch_and_op(win, target, 0, 1, AccumulateOp::Sum)
                        .map(|old| result[0] = old),
                });
                done.map_err(fail(what))?;
                samples.push(cycles);
                if self.call == Call::Accumulate {
                    continue;
                }
                let seen = &mut last[target as usize];
                if result[0] >= total || seen.is_some_and(|s| result[0] <= s) {
                    return Err(format!(
                        "{what}: rank {target} returned {} after {seen:?} (at most {total} calls reach it)",
                        result[0]
                    ));
                }
                *seen = Some(result[0]);
                let sums = &mut olds[target as usize * e..][..e];
                for (s, &r) in sums.iter_mut().zip(&result) {
                    *s += r;
                }
            }
        }
        rma.unlock_all(win).map_err(fail("unlock_all"))?;
        Ok(samples)
    }

    /// Compares this rank's part, and the old values returned for it by
    /// all origins, with what the round must leave.
    fn check(
        &self,
        rma: &mut Rma<'_, Platform>,
        win: Window<u64>,
        olds: &mut [u64],
        what: &str,
    ) -> Result<(), String> {
        let me = rma.rank();
        let e = self.elements as usize;
        let (p, s) = (u64::from(self.procs), u64::from(self.sweeps));
        let total = s * p;
        let accumulate = self.call == Call::Accumulate;
        if !accumulate {
            rma.comm()
                .allreduce(olds, ReduceOp::Sum)
                .map_err(fail("allreduce"))?;
            let want = total * total.saturating_sub(1) / 2;
            let mine = &olds[me as usize * e..][..e];
            if let Some(j) = mine.iter().position(|&v| v != want) {
                return Err(format!(
                    "{what}: the old values returned for element {j} of rank {me} sum to {}, expected {want}",
                    mine[j]
                ));
            }
        }
        let mut got = vec![0u64; e];
        rma.lock(win, LockType::Shared, me, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, 0, &mut got)
            .map_err(fail("local read"))?;
        rma.unlock(win, me).map_err(fail("unlock"))?;
        for (j, &v) in got.iter().enumerate() {
            let want = if accumulate {
                s * (j as u64 + 1) * p * (p + 1) / 2
            } else {
                total
            };
            if v != want {
                return Err(format!(
                    "{what}: element {j} of rank {me} is {v}, expected {want}"
                ));
            }
        }
        rma.comm().barrier();
        Ok(())
    }
}

/// Zeroes the first `elements` of this rank's part, under its own
/// exclusive lock.
fn reset(rma: &mut Rma<'_, Platform>, win: Window<u64>, elements: u32) -> Result<(), String> {
    let me = rma.rank();
    rma.lock(win, LockType::Exclusive, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_write(win, 0, &vec![0u64; elements as usize])
        .map_err(fail("local write"))?;
    rma.unlock(win, me).map_err(fail("unlock"))
}
