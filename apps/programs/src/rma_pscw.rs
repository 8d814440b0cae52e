// SPDX-License-Identifier: MIT OR Apache-2.0
//! Post/start/complete/wait with overlapping groups, in the style of
//! MPICH's `test2` and `wintest`, every value checked on every core.
//!
//! Core `t` exposes its window to the origins `t + 1` and `t + 2` (mod
//! the run's size) and accesses the targets `t - 1` and `t - 2`: every
//! core is origin and target at once, and each core's groups overlap its
//! neighbours'. In each of [`EPOCHS`] epochs on one window a target first
//! checks that its window still holds what the previous epoch put (which
//! brings those lines into its cache), stores new values for the origins
//! to get, and posts; each origin starts, puts into its own slot of each
//! target's window, gets the target's new values, and completes; the
//! target waits and checks every slot. Epoch [`EMPTY`] has no operations:
//! the slots must keep the values of the epoch before. Then epochs with
//! empty groups. The [`run_stale`] variant runs the same epochs with the
//! coherence actions disabled on an MPBT-WB window: the target's cached
//! lines then hide what the origins put, and the data checks must fail.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use chip::MemoryType;
use rma::comm::Group;
use rma::{Assert, Coherence, Rma, Window, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open, values};
use kernel::Platform;

/// Epochs on the window.
const EPOCHS: u32 = 6;
/// The epoch without operations.
const EMPTY: u32 = 3;
/// Elements of one origin's slot, and of the values origins get.
const SLOT: u32 = 300;
/// Where the values origins get lie: after two slots.
const PUBLISHED: u32 = 2 * SLOT;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    pscw(platform, Coherence::Enabled, "rma-pscw")
}

/// The same program with the coherence actions disabled: must fail.
pub fn run_stale(platform: &Platform, (): ()) -> Result<(), String> {
    pscw(platform, Coherence::Disabled, "rma-pscw-stale")
}

/// Distinct ranks `me + d` for `d` in `steps` (mod `n`), other than `me`.
fn ring(n: u32, me: u32, steps: [u32; 2]) -> Vec<u32> {
    let mut ranks: Vec<u32> = Vec::new();
    for d in steps {
        let r = (me + d) % n;
        if r != me && !ranks.contains(&r) {
            ranks.push(r);
        }
    }
    ranks
}

fn pscw(platform: &Platform, coherence: Coherence, name: &str) -> Result<(), String> {
    let mut rma = open(platform)?;
    let (n, me) = (rma.size(), rma.rank());
    let origins = ring(n, me, [1, 2]);
    let targets = ring(n, me, [n - 1, n - 2]);
    let world = Group::world(n, me).map_err(fail("group"))?;
    let exposure = world.incl(&origins).map_err(fail("origin group"))?;
    let access = world.incl(&targets).map_err(fail("target group"))?;
    // Without coherence actions, MPBT-WB: the target's L1 keeps the lines
    // it read. (MPBT-WT reads are uncached on silicon, thesis 1.5, so an
    // MPBT-WT target would read memory and miss only what the origins'
    // write-combine buffers still hold.)
    let options = match coherence {
        Coherence::Enabled => WindowOptions::new(),
        Coherence::Disabled => WindowOptions::new().memory_type(MemoryType::MpbtWb),
    };
    let win = rma
        .allocate::<u32>(PUBLISHED + SLOT, options.coherence(coherence))
        .map_err(fail("allocating a window"))?;
    // Window memory comes as an earlier window left it: clear the slots.
    rma.local_write(win, 0, &vec![0; PUBLISHED as usize])
        .map_err(fail("local write"))?;
    let mut checks = Checks::default();
    // What each origin's slot holds: the last epoch that put into it.
    let mut last_put: Option<u32> = None;
    for epoch in 0..EPOCHS {
        check_slots(
            &mut rma,
            &mut checks,
            win,
            &origins,
            last_put,
            epoch,
            "before post",
        )?;
        rma.local_write(win, PUBLISHED, &values(epoch, me, me, 0, SLOT))
            .map_err(fail("local write"))?;
        rma.post(win, &exposure, Assert::NONE)
            .map_err(fail("post"))?;
        rma.start(win, &access, Assert::NONE)
            .map_err(fail("start"))?;
        let mut got = Vec::new();
        if epoch != EMPTY {
            for &t in &targets {
                let slot = slot_of(n, me, t);
                rma.put(win, t, slot * SLOT, &values(epoch, me, t, 0, SLOT))
                    .map_err(fail("put"))?;
                let mut buf = vec![0; SLOT as usize];
                rma.get(win, t, PUBLISHED, &mut buf).map_err(fail("get"))?;
                got.push((t, buf));
            }
        }
        rma.complete(win).map_err(fail("complete"))?;
        rma.wait(win).map_err(fail("wait"))?;
        if epoch != EMPTY {
            last_put = Some(epoch);
        }
        for (t, buf) in got {
            checks.same(&buf, &values(epoch, t, t, 0, SLOT), || {
                format!("epoch {epoch}: get of core {t}'s window")
            });
        }
        check_slots(
            &mut rma,
            &mut checks,
            win,
            &origins,
            last_put,
            epoch,
            "after wait",
        )?;
    }
    empty_groups(&mut rma, &mut checks, win, &world)?;
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    let busy = u64::from(EPOCHS - 1) * targets.len() as u64;
    checks.check(
        (
            stats.posts,
            stats.starts,
            stats.completes,
            stats.waits,
            stats.puts,
            stats.gets,
        ) == (
            u64::from(EPOCHS) + 2,
            u64::from(EPOCHS) + 2,
            u64::from(EPOCHS) + 2,
            u64::from(EPOCHS) + 2,
            busy,
            busy,
        ),
        || format!("window statistics: {stats:?}"),
    );
    rma.free(win).map_err(fail("freeing the window"))?;
    let what = match coherence {
        Coherence::Enabled => {
            "PSCW epochs with overlapping groups (origins +1 and +2, targets -1 and -2), puts and gets checked, an epoch without operations, empty groups"
        }
        Coherence::Disabled => "the same PSCW epochs with the coherence actions disabled",
    };
    conclude(&mut rma, &checks, name, what)
}

/// Which slot of target `t`'s window origin `me` puts into: its place in
/// `t`'s origin group.
fn slot_of(n: u32, me: u32, t: u32) -> u32 {
    ring(n, t, [1, 2])
        .iter()
        .position(|&o| o == me)
        .expect("a target's origins include every origin that targets it") as u32
}

/// Checks that each origin's slot holds what it put in epoch `last`
/// (zeros before any put).
fn check_slots(
    rma: &mut Rma<'_, Platform>,
    checks: &mut Checks,
    win: Window<u32>,
    origins: &[u32],
    last: Option<u32>,
    epoch: u32,
    when: &str,
) -> Result<(), String> {
    let me = rma.rank();
    for (k, &o) in origins.iter().enumerate() {
        let mut got = vec![0; SLOT as usize];
        rma.local_read(win, k as u32 * SLOT, &mut got)
            .map_err(fail("local read"))?;
        let want = match last {
            Some(e) => values(e, o, me, 0, SLOT),
            None => vec![0; SLOT as usize],
        };
        checks.same(&got, &want, || {
            let from: String = match last {
                Some(e) => format!("epoch {e}'s put"),
                None => String::from("zeros"),
            };
            format!("epoch {epoch}, {when}: slot of core {o}, expected {from}")
        });
    }
    Ok(())
}

/// Epochs whose groups are empty, then groups without operations.
fn empty_groups(
    rma: &mut Rma<'_, Platform>,
    checks: &mut Checks,
    win: Window<u32>,
    world: &Group,
) -> Result<(), String> {
    let nobody = world.incl(&[]).map_err(fail("empty group"))?;
    rma.post(win, &nobody, Assert::NONE)
        .map_err(fail("post to nobody"))?;
    rma.start(win, &nobody, Assert::NONE)
        .map_err(fail("start to nobody"))?;
    rma.complete(win).map_err(fail("complete to nobody"))?;
    // Nobody to wait for: test ends the epoch at once.
    let over = rma.test(win).map_err(fail("test with nobody"))?;
    checks.check(over, || {
        String::from("test of an exposure epoch for nobody said it is not over")
    });
    // Everyone exposes to everyone, and nobody accesses anybody.
    let everyone = world.clone();
    rma.post(win, &everyone, Assert::NOCHECK)
        .map_err(fail("post to everyone"))?;
    rma.start(win, &everyone, Assert::NOCHECK)
        .map_err(fail("start to everyone"))?;
    rma.complete(win).map_err(fail("complete to everyone"))?;
    rma.wait(win).map_err(fail("wait for everyone"))?;
    Ok(())
}
