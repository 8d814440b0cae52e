// SPDX-License-Identifier: MIT OR Apache-2.0
//! Communicators: the cores as a 2D grid, split into rows and columns,
//! with collectives, windows and epochs on each, every value checked.
//!
//! The grid has `cols` columns, the largest divisor of the core count
//! whose square does not exceed it, and `rows = cores / cols` rows; core
//! `w` sits in row `w / cols`, column `w % cols`. Each core then:
//! - splits the run into its row (ordered by column) and its column
//!   (ordered by row, descending: key before rank), and checks both;
//! - runs allreduce, bcast, allgather and barriers on both;
//! - makes a window on its row and one on its column, which exist on all
//!   rows and columns at once: in [`ROUNDS`] fence epochs it puts into
//!   every rank of its row and gets back from one, and accumulates into
//!   every rank of its column;
//! - takes exclusive locks on rank 0 of its column's lock window to
//!   increment a counter by get and put, and shared locks on the last rank
//!   to count with fetch_and_op, [`LOCKS`] times each;
//! - runs one PSCW epoch on its row window with groups of processes;
//! - checks the window groups, and that a target outside the row and a
//!   process of another row in a post group are refused;
//! - makes a communicator of the first row with `create`, duplicates and
//!   frees it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rma::comm::{Comm, ReduceOp};
use rma::{AccumulateOp, Assert, ErrorClass, LockType, Rma, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open, value, values};
use kernel::Platform;

/// Fence epochs on the row and column windows.
const ROUNDS: u32 = 3;
/// Elements each rank puts into each rank of its row per epoch.
const SLOT: u32 = 40;
/// Lock epochs per core on each lock.
const LOCKS: u32 = 4;

/// The grid's column count for `cores` cores.
fn columns(cores: u32) -> u32 {
    (1..=cores)
        .filter(|d| cores.is_multiple_of(*d) && d * d <= cores)
        .max()
        .unwrap_or(1)
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut checks = Checks::default();
    let (n, me) = (rma.size(), rma.rank());
    let cols = columns(n);
    let (r, c) = (me / cols, me % cols);
    let mut row = split(&mut rma, r, c as i32)?;
    let mut col = split(&mut rma, c, -(r as i32))?;
    let rows = n / cols;
    let row_members: Vec<u32> = (0..cols).map(|k| r * cols + k).collect();
    let col_members: Vec<u32> = (0..rows).rev().map(|k| k * cols + c).collect();
    checks.check(row.members() == row_members && row.rank() == c, || {
        format!("row {r}: members {:?}, rank {}", row.members(), row.rank())
    });
    checks.check(
        col.members() == col_members && col.rank() == rows - 1 - r,
        || {
            format!(
                "column {c}: members {:?}, rank {}",
                col.members(),
                col.rank()
            )
        },
    );
    collectives(&mut row, &mut checks, "row")?;
    collectives(&mut col, &mut checks, "column")?;
    fences(&mut rma, &mut row, &mut col, &mut checks)?;
    locks(&mut rma, &mut col, &mut checks)?;
    create(&mut rma, &mut checks, cols)?;
    row.free();
    col.free();
    conclude(
        &mut rma,
        &checks,
        "rma-comm",
        "rows and columns by split, collectives on each, fence epochs with puts, gets and accumulates on row and column windows at once, lock epochs, a PSCW epoch, window groups, misuse refused, create, dup and free",
    )
}

/// This core's communicator of the ranks that pass `color`, by `key`.
fn split<'h>(rma: &mut Rma<'h, Platform>, color: u32, key: i32) -> Result<Comm<'h, Platform>, String> {
    rma.comm()
        .split(Some(color), key)
        .map_err(fail("split"))?
        .ok_or_else(|| String::from("split with a colour gave no communicator"))
}

/// Allreduce, bcast, allgather and barriers on `comm`: three checks.
fn collectives(comm: &mut Comm<'_, Platform>, checks: &mut Checks, name: &str) -> Result<(), String> {
    let members = comm.members().to_vec();
    let world = members[comm.rank() as usize];
    let mut sums = [world, 1];
    comm.allreduce(&mut sums, ReduceOp::Sum)
        .map_err(fail("allreduce"))?;
    let expected = [members.iter().sum::<u32>(), members.len() as u32];
    checks.same(&sums, &expected, || format!("{name} allreduce"));
    comm.barrier();
    let root = comm.size() - 1;
    let sent: Vec<u8> = values(1, members[root as usize], 0, 0, 100)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut buf = if comm.rank() == root {
        sent.clone()
    } else {
        alloc::vec![0; sent.len()]
    };
    comm.bcast(root, &mut buf).map_err(fail("bcast"))?;
    checks.same(&buf, &sent, || format!("{name} bcast from rank {root}"));
    comm.barrier_with(rma::comm::BarrierAlgorithm::Central);
    let mine = value(2, world, 0, 0).to_le_bytes();
    let mut all = alloc::vec![0u8; 4 * members.len()];
    comm.allgather(&mine, &mut all).map_err(fail("allgather"))?;
    let expected: Vec<u8> = members
        .iter()
        .flat_map(|&m| value(2, m, 0, 0).to_le_bytes())
        .collect();
    checks.same(&all, &expected, || format!("{name} allgather"));
    Ok(())
}

/// Fence epochs on a row window and a column window at once: per round,
/// puts into every rank of the row, a get back, accumulates into every
/// rank of the column; three checks per round. Then a PSCW epoch on the
/// row window, the window groups and two refusals: four checks.
fn fences<'h>(
    rma: &mut Rma<'h, Platform>,
    row: &mut Comm<'h, Platform>,
    col: &mut Comm<'h, Platform>,
    checks: &mut Checks,
) -> Result<(), String> {
    let me = rma.rank();
    let (cols, c) = (row.size(), row.rank());
    let (rows, cr) = (col.size(), col.rank());
    // A fence ends one epoch and opens the next at once: a neighbour's
    // operations of the next epoch may land while this core still reads,
    // so each epoch (the PSCW one too) has a region of its own.
    let region = cols * SLOT;
    let rw = rma
        .allocate_on::<u32>(row, (ROUNDS + 1) * region, WindowOptions::new())
        .map_err(fail("allocating the row window"))?;
    let cw = rma
        .allocate_on::<u64>(col, ROUNDS, WindowOptions::new())
        .map_err(fail("allocating the column window"))?;
    // Window memory is not cleared (MPI's is not either): the sums start
    // from zeros this core stores, which the first fence releases.
    rma.local_write(cw, 0, &[0; ROUNDS as usize])
        .map_err(fail("local write"))?;
    rma.fence(rw, Assert::NOPRECEDE).map_err(fail("fence"))?;
    rma.fence(cw, Assert::NOPRECEDE).map_err(fail("fence"))?;
    for round in 0..ROUNDS {
        for target in 0..cols {
            let world = row.world_rank(target).map_err(fail("row rank"))?;
            let at = round * region + c * SLOT;
            rma.put(rw, target, at, &values(round, me, world, 0, SLOT))
                .map_err(fail("put into the row"))?;
        }
        for target in 0..rows {
            let add = u64::from(value(round, me, target, 0));
            rma.accumulate(cw, target, round, &[add], AccumulateOp::Sum)
                .map_err(fail("accumulate into the column"))?;
        }
        rma.fence(rw, Assert::NONE).map_err(fail("fence"))?;
        rma.fence(cw, Assert::NONE).map_err(fail("fence"))?;
        let mut got = alloc::vec![0; region as usize];
        rma.local_read(rw, round * region, &mut got)
            .map_err(fail("local read"))?;
        let expected: Vec<u32> = row
            .members()
            .iter()
            .flat_map(|&origin| values(round, origin, me, 0, SLOT))
            .collect();
        checks.same(&got, &expected, || {
            format!("round {round}: the row window after the fence")
        });
        // Get back the slot this core put into the next rank of the row.
        let target = (c + 1) % cols;
        let world = row.world_rank(target).map_err(fail("row rank"))?;
        let mut back = alloc::vec![0; SLOT as usize];
        rma.get(rw, target, round * region + c * SLOT, &mut back)
            .map_err(fail("get from the row"))?;
        checks.same(&back, &values(round, me, world, 0, SLOT), || {
            format!("round {round}: get from row rank {target}")
        });
        // Each round adds into an element of its own; later ones may
        // already be under way.
        let mut sums = alloc::vec![0u64; round as usize + 1];
        rma.local_read(cw, 0, &mut sums)
            .map_err(fail("local read"))?;
        let expected: Vec<u64> = (0..=round)
            .map(|k| {
                col.members()
                    .iter()
                    .map(|&origin| u64::from(value(k, origin, cr, 0)))
                    .sum()
            })
            .collect();
        checks.same(&sums, &expected, || {
            format!("round {round}: the column window's sums")
        });
    }
    rma.fence(rw, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.fence(cw, Assert::NOSUCCEED).map_err(fail("fence"))?;

    // PSCW on the row: groups name processes of the run.
    let others = row.group().excl(&[c]).map_err(fail("group"))?;
    rma.post(rw, &others, Assert::NONE).map_err(fail("post"))?;
    rma.start(rw, &others, Assert::NONE)
        .map_err(fail("start"))?;
    for target in (0..cols).filter(|&t| t != c) {
        let world = row.world_rank(target).map_err(fail("row rank"))?;
        let at = ROUNDS * region + c * SLOT;
        rma.put(rw, target, at, &values(ROUNDS, me, world, 0, SLOT))
            .map_err(fail("put in the PSCW epoch"))?;
    }
    rma.complete(rw).map_err(fail("complete"))?;
    rma.wait(rw).map_err(fail("wait"))?;
    // Its own slot of the region is written by this core only.
    rma.local_write(
        rw,
        ROUNDS * region + c * SLOT,
        &values(ROUNDS, me, me, 0, SLOT),
    )
    .map_err(fail("local write"))?;
    let mut got = alloc::vec![0; region as usize];
    rma.local_read(rw, ROUNDS * region, &mut got)
        .map_err(fail("local read"))?;
    let expected: Vec<u32> = row
        .members()
        .iter()
        .flat_map(|&origin| values(ROUNDS, origin, me, 0, SLOT))
        .collect();
    checks.same(&got, &expected, || {
        String::from("the row window after wait")
    });

    let group = rma.group(rw).map_err(fail("group"))?;
    let col_group = rma.group(cw).map_err(fail("group"))?;
    checks.check(group == row.group() && col_group == col.group(), || {
        format!("window groups {group:?} and {col_group:?}")
    });

    // Misuse: a target beyond the row, a process of another row.
    rma.fence(rw, Assert::NOPRECEDE).map_err(fail("fence"))?;
    checks.error(
        "put beyond the row",
        rma.put(rw, cols, 0, &[1]),
        ErrorClass::Rank,
        &format!("MPI_ERR_RANK: put target {cols} is not a rank of a group of {cols}"),
    );
    rma.fence(rw, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let stranger = col
        .world_rank((cr + 1) % rows)
        .map_err(fail("column rank"))?;
    let group = rma
        .comm()
        .group()
        .incl(&[stranger])
        .map_err(fail("group"))?;
    checks.error(
        "post to another row",
        rma.post(rw, &group, Assert::NONE),
        ErrorClass::Group,
        &format!(
            "MPI_ERR_GROUP: post: process {stranger} of the run is not a member of the window"
        ),
    );
    rma.free(cw).map_err(fail("freeing the column window"))?;
    rma.free(rw).map_err(fail("freeing the row window"))
}

/// Lock epochs on a column window: a counter at rank 0 incremented by
/// get and put under exclusive locks, and one at the last rank counted by
/// fetch_and_op under shared locks; two checks.
fn locks<'h>(
    rma: &mut Rma<'h, Platform>,
    col: &mut Comm<'h, Platform>,
    checks: &mut Checks,
) -> Result<(), String> {
    let rows = col.size();
    let win = rma
        .allocate_on::<u32>(col, 2, WindowOptions::new())
        .map_err(fail("allocating the lock window"))?;
    let last = rows - 1;
    // The counters start from zeros each core stores in its own part (the
    // memory is not cleared), released by a fence before any lock.
    rma.local_write(win, 0, &[0, 0])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    for _ in 0..LOCKS {
        rma.lock(win, LockType::Exclusive, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        let mut old = [0];
        rma.get(win, 0, 0, &mut old).map_err(fail("get"))?;
        rma.flush(win, 0).map_err(fail("flush"))?;
        rma.put(win, 0, 0, &[old[0] + 1]).map_err(fail("put"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        rma.lock(win, LockType::Shared, last, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.fetch_and_op(win, last, 1, 1u32, AccumulateOp::Sum)
            .map_err(fail("fetch_and_op"))?;
        rma.unlock(win, last).map_err(fail("unlock"))?;
    }
    col.barrier();
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    let (mut first, mut counted) = ([0; 2], [0; 2]);
    rma.get(win, 0, 0, &mut first).map_err(fail("get"))?;
    rma.get(win, last, 0, &mut counted).map_err(fail("get"))?;
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    let total = LOCKS * rows;
    checks.check(first[0] == total, || {
        format!("the column counter is {}, expected {total}", first[0])
    });
    checks.check(counted[1] == total, || {
        format!("fetch_and_op counted {}, expected {total}", counted[1])
    });
    col.barrier();
    rma.free(win).map_err(fail("freeing the lock window"))
}

/// A communicator of the first row by `create`, duplicated, with an
/// allreduce on the duplicate, then both freed; one check.
fn create(rma: &mut Rma<'_, Platform>, checks: &mut Checks, cols: u32) -> Result<(), String> {
    let me = rma.rank();
    let first: Vec<u32> = (0..cols).collect();
    let group = rma.comm().group().incl(&first).map_err(fail("group"))?;
    let made = rma.comm().create(&group).map_err(fail("create"))?;
    match made {
        Some(mut comm) => {
            let mut dup = comm.dup().map_err(fail("dup"))?;
            let mut sum = [me];
            dup.allreduce(&mut sum, ReduceOp::Sum)
                .map_err(fail("allreduce"))?;
            let expected = cols * (cols - 1) / 2;
            checks.check(
                me < cols && sum[0] == expected && comm.size() == cols,
                || format!("first row by create: sum {}, size {}", sum[0], comm.size()),
            );
            dup.free();
            comm.free();
        }
        None => checks.check(me >= cols, || {
            format!("core {me} of the first row got no communicator")
        }),
    }
    Ok(())
}
