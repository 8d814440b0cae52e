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
use rma::{Assert, Rma, WindowOptions};

use super::super::ProgramResult;
use super::super::osc::{fail, open};
use super::{emit, quick, timed};
use crate::platform::Scc;

/// The target counts of a run on `cores` cores.
fn target_counts(cores: u32) -> Vec<u32> {
    let all = cores - 1;
    let wanted: &[u32] = if quick() {
        &[1, 4, 16, 47]
    } else {
        &[1, 2, 4, 8, 12, 16, 24, 31, 32, 40, 47]
    };
    let mut ks: Vec<u32> = wanted.iter().copied().filter(|&k| k <= all).collect();
    if ks.last() != Some(&all) && all > 0 {
        ks.push(all);
    }
    ks
}

pub fn run(scc: &Scc) -> ProgramResult {
    let mut rma = open(scc)?;
    let (n, me) = (rma.size(), rma.rank());
    if n < 2 {
        return Err("bench-pscw needs at least 2 cores".into());
    }
    let iterations: usize = if quick() { 101 } else { 1001 };
    let win = rma
        .allocate::<u32>(8, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let world = Group::world(n, me).map_err(fail("group"))?;
    let ks = target_counts(n);
    for &k in &ks {
        if me <= k {
            let (first, second) = if me == 0 {
                let targets: Vec<u32> = (1..=k).collect();
                let group = world.incl(&targets).map_err(fail("target group"))?;
                origin(&mut rma, win, &group, iterations)?
            } else {
                let group = world.incl(&[0]).map_err(fail("origin group"))?;
                target(&mut rma, win, &group, iterations)?
            };
            let (a, b) = if me == 0 {
                ("start", "complete")
            } else {
                ("post", "wait")
            };
            emit("pscw-sync", &format!("call={a} k={k}"), None, &first);
            emit("pscw-sync", &format!("call={b} k={k}"), None, &second);
            check_epochs(
                &mut rma,
                win,
                &ks[..=ks.iter().position(|&x| x == k).expect("listed")],
                iterations,
            )?;
        }
        rma.comm().barrier();
    }
    rma.free(win).map_err(fail("freeing the window"))?;
    if me == 0 {
        crate::println!(
            "bench-pscw: {iterations} empty epochs for each of {} target counts, every epoch count checked",
            ks.len()
        );
    }
    Ok(())
}

/// The origin's side: times of start and of complete.
fn origin(
    rma: &mut Rma<'_, Scc>,
    win: rma::Window<u32>,
    targets: &Group,
    iterations: usize,
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let scc = rma.hal();
    let (mut starts, mut completes) = (Vec::new(), Vec::new());
    for _ in 0..iterations {
        let (r, t) = timed(scc, || rma.start(win, targets, Assert::NONE));
        r.map_err(fail("start"))?;
        starts.push(t);
        let (r, t) = timed(scc, || rma.complete(win));
        r.map_err(fail("complete"))?;
        completes.push(t);
    }
    Ok((starts, completes))
}

/// A target's side: times of post and of wait.
fn target(
    rma: &mut Rma<'_, Scc>,
    win: rma::Window<u32>,
    origin: &Group,
    iterations: usize,
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let scc = rma.hal();
    let (mut posts, mut waits) = (Vec::new(), Vec::new());
    for _ in 0..iterations {
        let (r, t) = timed(scc, || rma.post(win, origin, Assert::NONE));
        r.map_err(fail("post"))?;
        posts.push(t);
        let (r, t) = timed(scc, || rma.wait(win));
        r.map_err(fail("wait"))?;
        waits.push(t);
    }
    Ok((posts, waits))
}

/// Checks, after the rounds of `k` targets, that the window's counters
/// agree with the epochs run: the origin's starts and completes, and each
/// target's posts and waits, as sent to the origin (which knows how many
/// rounds each target took part in). Empty epochs move no data; this is
/// what there is to check.
fn check_epochs(
    rma: &mut Rma<'_, Scc>,
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
