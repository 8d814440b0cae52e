// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the one-sided (rma window) programs share: opening rma on every
//! core, values that name their epoch, origin, target and place, counted
//! checks, and the summary every core agrees on.

use alloc::format;
use alloc::string::{String, ToString};

use rma::comm::ReduceOp;
use rma::{Rma, RmaError, WindowStats};

use super::communicator;
use kernel::Platform;

/// This core's one-sided communication over all cores of the run.
pub fn open(platform: &Platform) -> Result<Rma<'_, Platform>, String> {
    Rma::new(communicator(platform)?).map_err(|e| format!("rma: {e}"))
}

/// An rma error as the reason a program failed, with what it was doing.
pub fn fail(doing: &str) -> impl FnOnce(RmaError) -> String + '_ {
    move |e| format!("{doing}: {e}")
}

/// The value `origin` gives element `index` it sends to `target` in
/// epoch `epoch`: never 0 (the windows start zeroed), and different for
/// every other epoch, origin, target and index.
pub fn value(epoch: u32, origin: u32, target: u32, index: u32) -> u32 {
    let x = epoch
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(origin.wrapping_mul(0x85EB_CA6B))
        .wrapping_add(target.wrapping_mul(0xC2B2_AE35))
        .wrapping_add(index.wrapping_mul(0x27D4_EB2F));
    (x ^ (x >> 15)) | 1
}

/// `len` values from [`value`], from `first` on.
pub fn values(epoch: u32, origin: u32, target: u32, first: u32, len: u32) -> alloc::vec::Vec<u32> {
    (first..first + len)
        .map(|i| value(epoch, origin, target, i))
        .collect()
}

/// The checks one core made, and how many failed; each failure is
/// printed as it happens.
#[derive(Debug, Default)]
pub struct Checks {
    made: u32,
    failed: u32,
}

impl Checks {
    /// Counts a check; prints `what` if it failed.
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.made += 1;
        if !ok {
            self.failed += 1;
            kernel::println!("check failed: {}", what());
        }
    }

    /// Counts a check that `got` equals `want`, naming the first element
    /// that differs.
    pub fn same<T: PartialEq + core::fmt::Debug>(
        &mut self,
        got: &[T],
        want: &[T],
        what: impl FnOnce() -> String,
    ) {
        let first = got
            .iter()
            .zip(want)
            .position(|(g, w)| g != w)
            .or((got.len() != want.len()).then_some(got.len().min(want.len())));
        self.check(first.is_none(), || {
            let at = first.expect("a difference");
            format!(
                "{}: element {at} of {} is {:?}, expected {:?}",
                what(),
                want.len(),
                got.get(at),
                want.get(at)
            )
        });
    }

    /// Counts a check that `result` is exactly `error` with class `class`
    /// and message `message` (class name included).
    pub fn error<T: core::fmt::Debug>(
        &mut self,
        call: &str,
        result: Result<T, RmaError>,
        class: rma::ErrorClass,
        message: &str,
    ) {
        match result {
            Err(e) if e.class() == class && e.to_string() == message => self.made += 1,
            other => self.check(false, || {
                format!(
                    "{call} gave {other:?}, expected {} `{message}`",
                    class.mpi_name()
                )
            }),
        }
    }

    /// Counts a check that `result` failed with `class` and a message
    /// starting with `start` (for messages whose end names values the
    /// program does not fix).
    pub fn refused<T: core::fmt::Debug>(
        &mut self,
        result: Result<T, RmaError>,
        class: rma::ErrorClass,
        start: &str,
    ) {
        let ok =
            matches!(&result, Err(e) if e.class() == class && e.to_string().starts_with(start));
        self.check(ok, || {
            format!("expected {} `{start}...`, got {result:?}", class.mpi_name())
        });
    }
}

/// Sums every core's checks; core 0 prints `{name}: {cores} cores,
/// {checks} checks, {failed} failed: {what}`. Fails if any check failed
/// anywhere, so every core knows.
pub fn conclude(
    rma: &mut Rma<'_, Platform>,
    checks: &Checks,
    name: &str,
    what: &str,
) -> Result<(), String> {
    let mut totals = [checks.made, checks.failed];
    rma.comm()
        .allreduce(&mut totals, ReduceOp::Sum)
        .map_err(|e| e.to_string())?;
    let [made, failed] = totals;
    if rma.rank() == 0 {
        kernel::println!(
            "{name}: {} cores, {made} checks, {failed} failed: {what}",
            rma.size()
        );
    }
    if failed > 0 {
        return Err(format!("{failed} of {made} checks failed"));
    }
    Ok(())
}

/// One line of a window's statistics on this core: every counter of
/// [`WindowStats`].
pub fn stats_line(stats: &WindowStats) -> String {
    format!(
        "{} puts ({} bytes), {} gets ({} bytes), {} fences, {} posts, {} starts, {} completes, {} waits, {} polls, {} wait cycles; {} WCB flushes, {} CL1INVMB, {} WBINVD; {} LUT mappings, {} evictions; {} locks, {} unlocks, {} flush calls, {} back-offs; {} accumulates, {} atomics ({} bytes accumulated), {} requests",
        stats.puts,
        stats.bytes_put,
        stats.gets,
        stats.bytes_got,
        stats.fences,
        stats.posts,
        stats.starts,
        stats.completes,
        stats.waits,
        stats.polls,
        stats.wait_cycles,
        stats.flushes,
        stats.invalidations,
        stats.write_backs,
        stats.mappings,
        stats.evictions,
        stats.locks,
        stats.unlocks,
        stats.flush_calls,
        stats.backoffs,
        stats.accumulates,
        stats.atomics,
        stats.bytes_accumulated,
        stats.requests
    )
}
