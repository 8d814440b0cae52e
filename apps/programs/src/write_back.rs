// SPDX-License-Identifier: MIT OR Apache-2.0
//! Write-back caching: a store that hits a cached line stays in the
//! writer's cache, invisible to other cores, until the line leaves it.
//!
//! Core 1 reads through uncached (NCM) aliases, so it always sees memory.
//!
//! - MPBT-WB (PMB without PWT), through an alias of core 0's MPB half:
//!   core 0 loads a line (it enters L1) and stores into it (a store hit
//!   stays in L1). Core 1 must read the old value; after core 0's WBINVD,
//!   which writes modified MPBT lines to memory, the new one.
//! - DCM (write-back L1 and L2), through a cacheable alias of LSM page 1:
//!   core 0 loads and stores a line as above. Core 1 must read the old
//!   value, and still the old one after core 0's WBINVD, which only moves
//!   the line to L2 (the SCC cannot flush L2). Once core 0 evicts the
//!   line by loading lines that map to the same L2 set, core 1 must read
//!   the new value.
//!
//! Core 1 prints the summary.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use chip::MemoryType;
use rma::comm::PROGRAM_LINES;

use crate::support::pair::{Pair, unexpected};
use kernel::Platform;
use kernel::arch::x86::paging::PAGE_SIZE;
use kernel::platform::scc::SharedBytes;

/// Bytes in a line, as an MPB offset.
const LINE: u32 = kernel::chip::CACHE_LINE as u32;

/// The MPBT word: fourth program line of core 0's MPB half.
const MPBT_WORD: u32 = PROGRAM_LINES + 3 * LINE;
const MPBT_OLD: u32 = 0x5555_5555;
const MPBT_NEW: u32 = 0x6666_6666;

/// The LSM page of the DCM case; page 0 holds the steps' words.
const LSM_PAGE: usize = 1;
/// The DCM word, in the first page of that LSM page.
const DCM_WORD: u32 = 0x100;
const DCM_OLD: u32 = 0x7777_7777;
const DCM_NEW: u32 = 0x8888_8888;
/// Distance between lines in the same L2 set: L2 bytes over ways (256 KiB,
/// 4 ways). A multiple of it maps to the same set for any L2 of that size
/// with fewer ways, and to at most two sets for twice as many.
const SAME_SET: u32 = 64 * 1024;
/// Lines loaded to evict the DCM line: four times L2's ways, so the line
/// leaves however the set replaces its lines.
const CONFLICTS: u32 = 16;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let Some(mut pair) = Pair::new(platform, "write-back")? else {
        return Ok(());
    };
    if pair.is_writer() {
        mpbt_writer(platform, &mut pair)?;
        dcm_writer(platform, &mut pair)?;
        return Ok(());
    }
    let (mpbt_held, mpbt_after) = mpbt_reader(platform, &mut pair)?;
    let (dcm_held, dcm_l2, dcm_evicted) = dcm_reader(platform, &mut pair)?;
    kernel::println!(
        "write-back: MPBT-WB line: core 1 read {mpbt_held:#010x} while core 0's L1 held {MPBT_NEW:#010x} modified, {mpbt_after:#010x} after its WBINVD; \
         DCM line: {dcm_held:#010x} while core 0's caches held {DCM_NEW:#010x} modified, still {dcm_l2:#010x} after its WBINVD (L2 keeps it), {dcm_evicted:#010x} once evicted from L2"
    );
    Ok(())
}

fn mpbt_writer(platform: &Platform, pair: &mut Pair<'_>) -> Result<(), String> {
    // An MPBT-WB alias of this core's MPB half, so the case does not depend
    // on the type the MPB mapping has.
    let (page, word) = mpb_page(platform);
    let own = platform
        .map_alias(page, PAGE_SIZE, MemoryType::MpbtWb)
        .map_err(|e| format!("MPBT-WB alias of core 0's MPB: {e}"))?;
    own.write_u32(word, MPBT_OLD);
    platform.flush_wcb();
    pair.step();
    // Core 1 checks it sees OLD.
    pair.step();
    // The load brings the line into L1, so the store hits and stays there.
    platform.invalidate_mpbt();
    let _ = own.read_u32(word);
    own.write_u32(word, MPBT_NEW);
    pair.step();
    // Core 1 reads while L1 holds NEW.
    pair.step();
    platform.write_back_l1();
    pair.step();
    Ok(())
}

/// The page holding core 0's MPB half, and the offset of the MPBT word in it.
fn mpb_page(platform: &Platform) -> (u32, u32) {
    let half = platform.chip().core_mpb_base(platform.participant(0));
    let page = half - half % PAGE_SIZE;
    (page, half - page + MPBT_WORD)
}

fn mpbt_reader(platform: &Platform, pair: &mut Pair<'_>) -> Result<(u32, u32), String> {
    let (page, word) = mpb_page(platform);
    let alias = platform
        .map_alias(page, PAGE_SIZE, MemoryType::Ncm)
        .map_err(|e| format!("uncached alias of core 0's MPB: {e}"))?;
    let read = || alias.read_u32(word);
    pair.step();
    let first = read();
    if first != MPBT_OLD {
        return Err(unexpected(
            "core 1's first read of the MPBT line",
            first,
            MPBT_OLD,
            "core 0's first write, flushed, must be in the MPB",
        ));
    }
    pair.step();
    // Core 0 loads and modifies the line.
    pair.step();
    let held = read();
    if held != MPBT_OLD {
        return Err(unexpected(
            "core 1's read while core 0's L1 held the modified MPBT line",
            held,
            MPBT_OLD,
            "a store hit on an MPBT-WB line stays in L1 until written back",
        ));
    }
    pair.step();
    // Core 0 executes WBINVD.
    pair.step();
    let after = read();
    if after != MPBT_NEW {
        return Err(unexpected(
            "core 1's read after core 0's WBINVD",
            after,
            MPBT_NEW,
            "WBINVD must write modified MPBT lines to memory",
        ));
    }
    Ok((held, after))
}

fn dcm_writer(platform: &Platform, pair: &mut Pair<'_>) -> Result<(), String> {
    // Cacheable aliases of the first page of LSM page 1 and of CONFLICTS
    // pages whose lines map to the same L2 sets.
    let base = platform.chip().lsm_base(LSM_PAGE);
    let pages: Vec<SharedBytes> = (0..=CONFLICTS)
        .map(|k| platform.map_alias(base + k * SAME_SET, PAGE_SIZE, MemoryType::Dcm))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cacheable alias of LSM page {LSM_PAGE}: {e}"))?;
    platform.lsm(LSM_PAGE).write_u32(DCM_WORD, DCM_OLD);
    pair.step();
    // Core 1 checks it sees OLD.
    pair.step();
    let _ = pages[0].read_u32(DCM_WORD);
    pages[0].write_u32(DCM_WORD, DCM_NEW);
    pair.step();
    // Core 1 reads while L1 holds NEW.
    pair.step();
    platform.write_back_l1();
    pair.step();
    // Core 1 reads while L2 holds NEW.
    pair.step();
    for page in &pages[1..] {
        let _ = page.read_u32(DCM_WORD);
    }
    pair.step();
    Ok(())
}

fn dcm_reader(platform: &Platform, pair: &mut Pair<'_>) -> Result<(u32, u32, u32), String> {
    let lsm = platform.lsm(LSM_PAGE);
    let read = || lsm.read_u32(DCM_WORD);
    pair.step();
    let first = read();
    if first != DCM_OLD {
        return Err(unexpected(
            "core 1's first read of the DCM line",
            first,
            DCM_OLD,
            "core 0's uncached write must be in memory",
        ));
    }
    pair.step();
    // Core 0 loads and modifies the line.
    pair.step();
    let held = read();
    if held != DCM_OLD {
        return Err(unexpected(
            "core 1's read while core 0's L1 held the modified DCM line",
            held,
            DCM_OLD,
            "a store hit on a DCM line stays in the cache until evicted",
        ));
    }
    pair.step();
    // Core 0 executes WBINVD.
    pair.step();
    let in_l2 = read();
    if in_l2 != DCM_OLD {
        return Err(unexpected(
            "core 1's read after core 0's WBINVD",
            in_l2,
            DCM_OLD,
            "WBINVD moves a modified DCM line from L1 to L2 only; the SCC cannot flush L2",
        ));
    }
    pair.step();
    // Core 0 loads lines of the same L2 set.
    pair.step();
    let evicted = read();
    if evicted != DCM_NEW {
        return Err(unexpected(
            "core 1's read after core 0 evicted the line from L2",
            evicted,
            DCM_NEW,
            "an evicted modified line must be written to memory",
        ));
    }
    Ok((held, in_l2, evicted))
}
