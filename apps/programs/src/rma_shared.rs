// SPDX-License-Identifier: MIT OR Apache-2.0
//! A shared window (`MPI_Win_allocate_shared`) on every memory type: in a
//! `lock_all` epoch each core stores a value into every other core's part
//! with plain stores ([`Rma::shared_store`]), calls `sync`, meets the
//! others in a barrier, calls `sync` again and loads its own part
//! ([`Rma::shared_load`]): every value the others stored is there. The
//! window's flavor, the query of each part, and the refusals of shared
//! calls on other windows are checked too.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use kernel::Platform;
use kernel::chip::MemoryType;
use rma::{Assert, ErrorClass, Flavor, Rma, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open};

/// The value core `from` stores at its own index in core `to`'s part.
fn value(from: u32, to: u32, round: u32) -> u32 {
    (from + 1) << 16 | (to + 1) << 4 | round
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut checks = Checks::default();
    for (round, ty) in (0u32..).zip([
        MemoryType::MpbtWt,
        MemoryType::MpbtWb,
        MemoryType::Ncm,
        MemoryType::NcmWcb,
    ]) {
        shared(&mut rma, &mut checks, ty, round)?;
    }
    let plain = rma
        .allocate::<u32>(1, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let refused = rma.shared_query(plain, 0).map(|_| ()).unwrap_err();
    checks.check(refused.class() == ErrorClass::RmaFlavor, || {
        format!("shared_query on an allocated window: {refused}")
    });
    rma.free(plain).map_err(fail("freeing a window"))?;
    conclude(
        &mut rma,
        &checks,
        "rma-shared",
        "shared windows on MPBT-WT, MPBT-WB, NCM and NCM+WCB: stores into every part, sync, loads",
    )
}

/// One shared window of memory type `ty`, every core storing into every
/// part.
fn shared(
    rma: &mut Rma<'_, Platform>,
    checks: &mut Checks,
    ty: MemoryType,
    round: u32,
) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let win = rma
        .allocate_shared::<u32>(n, WindowOptions::new().memory_type(ty))
        .map_err(fail("allocating a shared window"))?;
    let flavor = rma.attributes(win).map_err(fail("attributes"))?.flavor;
    checks.check(flavor == Flavor::Shared, || {
        format!("{ty:?}: a shared window's flavor is {flavor:?}")
    });
    rma.lock_all(win, Assert::NOCHECK)
        .map_err(fail("lock_all"))?;
    for to in 0..n {
        let part = rma.shared_query(win, to).map_err(fail("shared_query"))?;
        rma.shared_store(win, part, me, &[value(me, to, round)])
            .map_err(fail("shared_store"))?;
    }
    rma.sync(win).map_err(fail("sync"))?;
    rma.comm().barrier();
    rma.sync(win).map_err(fail("sync"))?;
    let mine = rma.shared_query(win, me).map_err(fail("shared_query"))?;
    let mut got = vec![0; n as usize];
    rma.shared_load(win, mine, 0, &mut got)
        .map_err(fail("shared_load"))?;
    let expected: Vec<u32> = (0..n).map(|from| value(from, me, round)).collect();
    checks.check(got == expected, || {
        format!("{ty:?}: core {me}'s part holds {got:x?}, expected {expected:x?}")
    });
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing a shared window"))
}
