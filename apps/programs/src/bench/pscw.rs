// SPDX-License-Identifier: MIT OR Apache-2.0
//! PSCW synchronisation latency (the thesis's GATS micro-benchmark,
//! Listing 3.5): rank 0 is the only origin and starts epochs to `k`
//! targets (ranks `1..=k`), each of which posts to rank 0; the epochs are
//! empty, there is no barrier inside the loop, and every call is timed on
//! its own: `start` and `complete` on the origin, `post` and `wait` on the
//! targets. Result lines `BENCH pscw-sync call=<call> k=<k>`; the host
//! pools each call's samples over the targets, as the thesis takes the
//! median over all `k x 1001` samples.
//!
//! One window serves every `k`; ranks above `k` sit out that round in the
//! barrier that separates the rounds. Empty epochs move no data, so the
//! check is the synchronisation's own: after the last round of each `k`
//! every target has seen exactly as many completed epochs as the origin
//! started (counted on both sides and compared through the channel).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rma::comm::Group;
use rma::{Assert, Rma, RmaError, WindowOptions};

use super::{Scale, Scaled, counts_up_to, emit, timed};
use crate::support::osc::{fail, open};
use kernel::Platform;

/// The target counts of a run on `cores` cores: up to all but rank 0.
fn target_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [1, 2, 4, 8, 12, 16, 24, 31, 32, 40, 47];
    let counts = counts_up_to(scale, &[1, 4, 16, 47], &full, cores - 1, true);
    counts.into_iter().filter(|&k| k > 0).collect()
}

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let mut rma = open(platform)?;
    let (n, me) = (rma.size(), rma.rank());
    if n < 2 {
        return Err("bench-pscw needs at least 2 cores".into());
    }
    let iterations: usize = settings.scale.pick(101, 1001);
    let win = rma
        .allocate::<u32>(8, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let world = Group::world(n, me).map_err(fail("group"))?;
    let ks = target_counts(settings.scale, n);
    for (round, &k) in ks.iter().enumerate() {
        if me <= k {
            let (a, b) = if me == 0 {
                ("start", "complete")
            } else {
                ("post", "wait")
            };
            let (first, second) = if me == 0 {
                let targets: Vec<u32> = (1..=k).collect();
                let group = world.incl(&targets).map_err(fail("target group"))?;
                let start = |rma: &mut Rma<'_, Platform>| rma.start(win, &group, Assert::NONE);
                epochs(&mut rma, iterations, [a, b], start, |rma| rma.complete(win))?
            } else {
                let group = world.incl(&[0]).map_err(fail("origin group"))?;
                let post = |rma: &mut Rma<'_, Platform>| rma.post(win, &group, Assert::NONE);
                epochs(&mut rma, iterations, [a, b], post, |rma| rma.wait(win))?
            };
            emit("pscw-sync", &format!("call={a} k={k}"), None, &first);
            emit("pscw-sync", &format!("call={b} k={k}"), None, &second);
            check_epochs(&mut rma, win, &ks[..=round], iterations)?;
        }
        rma.comm().barrier();
    }
    rma.free(win).map_err(fail("freeing the window"))?;
    if me == 0 {
        kernel::println!(
            "bench-pscw: {iterations} empty epochs for each of {} target counts, every epoch count checked",
            ks.len()
        );
    }
    Ok(())
}

/// `iterations` epochs of `first` then `second` (start and complete on
/// the origin, post and wait on a target), each call timed on its own;
/// the calls are named for errors.
fn epochs<'h>(
    rma: &mut Rma<'h, Platform>,
    iterations: usize,
    names: [&str; 2],
    mut first: impl FnMut(&mut Rma<'h, Platform>) -> Result<(), RmaError>,
    mut second: impl FnMut(&mut Rma<'h, Platform>) -> Result<(), RmaError>,
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let platform = rma.hal();
    let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
    for _ in 0..iterations {
        let (r, t) = timed(platform, || first(rma));
        r.map_err(fail(names[0]))?;
        firsts.push(t);
        let (r, t) = timed(platform, || second(rma));
        r.map_err(fail(names[1]))?;
        seconds.push(t);
    }
    Ok((firsts, seconds))
}

/// Checks, after the rounds of `k` targets, that the window's counters
/// agree with the epochs run: the origin's starts and completes, and each
/// target's posts and waits, as sent to the origin (which knows how many
/// rounds each target took part in). Empty epochs move no data; this is
/// what there is to check.
fn check_epochs(
    rma: &mut Rma<'_, Platform>,
    win: rma::Window<u32>,
    ks: &[u32],
    iterations: usize,
) -> Result<(), String> {
    let me = rma.rank();
    let stats = rma.stats(win).map_err(fail("stats"))?;
    let k = *ks.last().expect("a round ran");
    // Epochs rank `r` took part in so far: one round per `k` it was in.
    let epochs = |r: u32| (ks.iter().filter(|&&k| k >= r).count() * iterations) as u64;
    if me == 0 {
        if stats.starts != epochs(0) || stats.completes != epochs(0) {
            return Err(format!(
                "origin: {} starts and {} completes after {} epochs",
                stats.starts,
                stats.completes,
                epochs(0)
            ));
        }
        for t in 1..=k {
            let mut counts = [0u8; 16];
            rma.comm()
                .recv(t, &mut counts)
                .map_err(fail("receiving a target's counts"))?;
            let posts = u64::from_le_bytes(counts[..8].try_into().expect("8 bytes"));
            let waits = u64::from_le_bytes(counts[8..].try_into().expect("8 bytes"));
            if posts != epochs(t) || waits != epochs(t) {
                return Err(format!(
                    "target {t}: {posts} posts and {waits} waits after {} epochs",
                    epochs(t)
                ));
            }
        }
    } else {
        let mut counts = [0u8; 16];
        counts[..8].copy_from_slice(&stats.posts.to_le_bytes());
        counts[8..].copy_from_slice(&stats.waits.to_le_bytes());
        rma.comm()
            .send(0, &counts)
            .map_err(fail("sending the counts"))?;
    }
    Ok(())
}
