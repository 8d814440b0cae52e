// SPDX-License-Identifier: MIT OR Apache-2.0
//! The HAL's shareable DRAM and LSM on every core, each value checked.
//!
//! Every core maps its own POPSHM through a free LUT entry (MPBT-WT, the
//! type one-sided windows use), writes a pattern into three of its four
//! 16 MiB pages and flushes its write-combine buffer. After a barrier it
//! maps its right neighbour's POPSHM, drops its MPBT lines and reads the
//! neighbour's pattern; only the 4 KiB pages it touched are mapped, with
//! the mapping's type. It writes a reply into the neighbour's POPSHM, which
//! the neighbour reads through its own mapping after the next barrier.
//! Then it maps the neighbour again, uncached (NCM), and reads the same
//! data without any cache action. Every core also leaves a word in its
//! controller's LSM page that all others read uncached. The refusals
//! (entries not free, pages not shareable, entries in use) are checked
//! first, each with its error and message.

use alloc::format;
use alloc::string::{String, ToString};

use chip::{LUT_PAGE_SIZE, MemoryType};
use rma::comm::ReduceOp;
use rma::hal::{DramPages, Lsm, MapError, SharedDram};

use crate::support::communicator;
use kernel::Platform;

/// Where a core maps its own POPSHM (the chip's first free LUT entry) and
/// its neighbour's (eight entries on): 132 and 140 on the SCC.
fn slots(chip: &chip::Chip) -> (u8, u8) {
    let first = chip.address_map.shareable.first;
    (first, first + 8)
}
/// Offsets of the pattern: the first page, across a 4 KiB page boundary,
/// the end of the first 16 MiB page (and inside the last, [`places`]).
const PATTERN_AT: [u32; 3] = [0x40, 0x1FF0, LUT_PAGE_SIZE - 0x20];
/// Offset of the pattern in the last of a core's POPSHM pages.
const LAST_AT: u32 = 0x1234;
/// Bytes of each pattern piece.
const PIECE: usize = 100;
/// Where the left neighbour's reply goes.
const REPLY_AT: u32 = 0x0010_0000;
/// Offset in each LSM page of the programs' words, outside rma's range.
const LSM_WORDS: u32 = 0x0020_0000;
/// Where each core writes a word through the LSM entry and reads it
/// through a free entry pointed at the same page.
const LSM_PROBES: u32 = 0x0021_0000;

/// The bytes `owner` keeps at `offset`, different per core and place.
fn pattern(owner: u32, offset: u32, len: usize) -> alloc::vec::Vec<u8> {
    (0..len as u32)
        .map(|i| {
            let x = (offset + i).wrapping_mul(0x9E37_79B9) ^ owner.wrapping_mul(0x85EB_CA6B);
            (x >> 13) as u8 ^ (x >> 24) as u8
        })
        .collect()
}

/// Every checked place of a pattern.
/// Where the pattern goes in POPSHM of `pages` 16 MiB pages.
fn places(pages: u32) -> impl Iterator<Item = u32> {
    PATTERN_AT
        .into_iter()
        .chain([(pages - 1) * LUT_PAGE_SIZE + LAST_AT])
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let (own, remote) = slots(platform.chip());
    let pages = platform.popshm().count;
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let right = (me + 1) % n;
    let left = (me + n - 1) % n;
    refusals(platform)?;
    let mut failed = 0;
    let mut check = |ok: bool, what: String| {
        if !ok {
            kernel::println!("check failed: {what}");
            failed += 1;
        }
    };

    let mine = platform.popshm();
    platform.map_shared(own, mine, MemoryType::MpbtWt)
        .map_err(|e| format!("mapping own POPSHM: {e}"))?;
    // Write-through: no dirty line stays in L1; the WCB flush pushes the rest.
    platform.invalidate_mpbt();
    for at in places(pages) {
        platform.shared_write(own, at, &pattern(me, at, PIECE));
    }
    platform.flush_wcb();
    let lsm = platform.chip().controller_of(platform.chip().tile_of(platform.core()));
    platform.lsm_write_u32(lsm, LSM_WORDS + 4 * me, 0xC0DE_0000 | me);
    comm.barrier();

    let theirs = DramPages::popshm(platform.chip(), platform.participant(right));
    platform.map_shared(remote, theirs, MemoryType::MpbtWt)
        .map_err(|e| format!("mapping core {right}'s POPSHM: {e}"))?;
    platform.invalidate_mpbt();
    for at in places(pages) {
        let mut got = alloc::vec![0; PIECE];
        platform.shared_read(remote, at, &mut got);
        check(
            got == pattern(right, at, PIECE),
            format!("core {right}'s POPSHM at {at:#x} through MPBT-WT: {got:02x?}"),
        );
    }
    // Only the touched pages are mapped, with the mapping's type.
    for (at, want) in [
        (PATTERN_AT[1], Some(MemoryType::MpbtWt)),
        (PATTERN_AT[1] + 0x1000, Some(MemoryType::MpbtWt)),
        (0x5000, None),
        (LUT_PAGE_SIZE + 0x8000, None),
    ] {
        let ty = platform.shared_dram_page_type(remote, at);
        check(
            ty == want,
            format!("page at {at:#x} of the remote mapping has type {ty:?}, expected {want:?}"),
        );
    }
    platform.shared_write(remote, REPLY_AT, &pattern(n + me, REPLY_AT, PIECE));
    platform.flush_wcb();
    comm.barrier();

    platform.invalidate_mpbt();
    let mut reply = alloc::vec![0; PIECE];
    platform.shared_read(own, REPLY_AT, &mut reply);
    check(
        reply == pattern(n + left, REPLY_AT, PIECE),
        format!("core {left}'s reply in this core's POPSHM: {reply:02x?}"),
    );

    // Again, uncached: no cache action needed, same data. The cached
    // lines go first: left in L1, they would follow the LUT entry wherever
    // it points next.
    platform.invalidate_mpbt();
    platform.unmap_shared(remote);
    platform.map_shared(remote, theirs, MemoryType::Ncm)
        .map_err(|e| format!("mapping core {right}'s POPSHM uncached: {e}"))?;
    for at in places(pages) {
        let mut got = alloc::vec![0; PIECE];
        platform.shared_read(remote, at, &mut got);
        check(
            got == pattern(right, at, PIECE),
            format!("core {right}'s POPSHM at {at:#x} through NCM: {got:02x?}"),
        );
    }
    let ty = platform.shared_dram_page_type(remote, PATTERN_AT[0]);
    check(
        ty == Some(MemoryType::Ncm),
        format!("remapped page has type {ty:?}"),
    );
    platform.unmap_shared(remote);
    check(
        platform.shared_dram_page_type(remote, PATTERN_AT[0]).is_none(),
        "an unmapped page is still in the page tables".to_string(),
    );

    for other in 0..n {
        let chip = platform.chip();
        let mc = chip.controller_of(chip.tile_of(platform.participant(other)));
        let word = platform.lsm_read_u32(mc, LSM_WORDS + 4 * other);
        check(
            word == 0xC0DE_0000 | other,
            format!("core {other}'s LSM word at controller {mc}: {word:#010x}"),
        );
    }
    platform.invalidate_mpbt();
    platform.unmap_shared(own);

    let mut totals = [failed];
    comm.allreduce(&mut totals, ReduceOp::Sum)
        .map_err(|e| e.to_string())?;
    if totals[0] > 0 {
        return Err(format!("{} checks failed on all cores", totals[0]));
    }
    if me == 0 {
        kernel::println!(
            "shared-dram: {n} cores mapped their own and a neighbour's POPSHM (MPBT-WT, then NCM), every pattern, reply and LSM word read back"
        );
    }
    Ok(())
}

/// Each refusal, with its error and message; the first wrong one fails
/// the run.
fn refusals(platform: &Platform) -> Result<(), String> {
    let mine = platform.popshm();
    let chip = platform.chip();
    let (own, _) = slots(chip);
    // Runs of POPSHM pages that start one entry below the free ones, or
    // end one past them.
    let free = chip.address_map.shareable;
    let count = mine.count;
    let (below, past) = (free.first - 1, free.last + 2 - count as u8);
    let lsm_page = chip.lsm_page_number(mine.controller) as u16;
    let not_shareable = [
        DramPages { first: 0, ..mine },
        DramPages { count: 0, ..mine },
        DramPages {
            first: lsm_page - 1,
            count: 1,
            ..mine
        },
        DramPages {
            first: (chip.lsm_page_number(mine.controller) + chip.shared_dram_pages(mine.controller)
                - 1) as u16,
            count: 2,
            ..mine
        },
        DramPages {
            controller: chip.memory_controllers.len(),
            ..mine
        },
    ];
    let mut cases: alloc::vec::Vec<(u8, DramPages, MapError, String)> = alloc::vec![
        (
            below,
            mine,
            MapError::NotFree { slot: below, count },
            format!("LUT entries {below}+{count} are not all free entries"),
        ),
        (
            past,
            mine,
            MapError::NotFree { slot: past, count },
            format!("LUT entries {past}+{count} are not all free entries"),
        ),
    ];
    for pages in not_shareable {
        let message = format!(
            "{} pages from page {} of controller {} are not shareable DRAM",
            pages.count, pages.first, pages.controller
        );
        cases.push((own, pages, MapError::NotShareable(pages), message));
    }
    for (slot, pages, want, message) in &cases {
        match platform.map_shared(*slot, *pages, MemoryType::MpbtWt) {
            Err(e) if e == *want && e.to_string() == *message => {}
            other => {
                return Err(format!(
                    "map_shared({slot}, {pages:?}) gave {other:?}, expected {want:?} ({message})"
                ));
            }
        }
    }
    // The LSM page itself is shareable DRAM too.
    let lsm = DramPages {
        first: lsm_page,
        count: 1,
        ..mine
    };
    platform.map_shared(own, lsm, MemoryType::Ncm)
        .map_err(|e| format!("mapping the LSM page: {e}"))?;
    let probe = LSM_PROBES + 4 * platform.core().index() as u32;
    let word = 0x5EED_0000 | platform.core().index() as u32;
    platform.lsm_write_u32(mine.controller, probe, word);
    let mut through = [0; 4];
    platform.shared_read(own, probe, &mut through);
    if u32::from_le_bytes(through) != word {
        return Err(format!(
            "the LSM page through LUT entry {own} holds {through:02x?} at {probe:#x}, {word:#x} was written through its own entry"
        ));
    }
    // Entries held by a mapping, or pointed somewhere by hand, are in use.
    let in_use = |slot: u8, pages: DramPages, held: u8| {
        let want = MapError::InUse { slot: held };
        let message = format!("LUT entry {held} already holds a mapping");
        match platform.map_shared(slot, pages, MemoryType::MpbtWt) {
            Err(e) if e == want && e.to_string() == message => Ok(()),
            other => Err(format!(
                "map_shared({slot}, {pages:?}) gave {other:?}, expected {want:?} ({message})"
            )),
        }
    };
    in_use(own, mine, own)?;
    platform.map_shared(own + 1, mine, MemoryType::MpbtWt)
        .map_err(|e| format!("mapping at the free entry {}: {e}", own + 1))?;
    // The mapping at own + 1 holds entries up to own + count.
    let held = own + count as u8;
    in_use(held, DramPages { count: 1, ..mine }, held)?;
    platform.unmap_shared(own + 1);
    platform.unmap_shared(own);
    let by_hand = own + 8;
    let port = chip.memory_controllers[mine.controller].port;
    platform.set_lut_entry(by_hand.into(), chip::LutEntry::new(port, lsm_page));
    // A run of `count` entries whose last one is the entry set by hand.
    let refused = in_use(by_hand + 1 - count as u8, mine, by_hand);
    platform.set_lut_entry(by_hand.into(), chip::LutEntry::UNUSED);
    refused?;
    Ok(())
}
