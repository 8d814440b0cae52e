// SPDX-License-Identifier: MIT OR Apache-2.0
//! A LUT write reroutes a page of core-physical addresses at once.
//!
//! Core 0 points a free entry of its own LUT ([`entry`]) at the MPB of
//! core 1's tile, maps the entry's addresses uncached and writes a word of
//! core 1's half through them: core 1 must read it through its own MPB
//! mapping. Core 0 then points the entry at the next tile's MPB: the very
//! next read through the entry must return what that MPB holds, a write
//! through it must land there, and core 1's half must keep the first
//! value. Core 0 puts the entry back and prints the summary.

use alloc::format;
use alloc::string::String;

use chip::{AddressMap, LutEntry, MemoryType, Port, Subdest, Target, TileId};
use rma::comm::PROGRAM_LINES;

use crate::support::pair::{Pair, unexpected};
use kernel::Platform;

/// A LUT entry the chip's map leaves free: the ninth of its free entries
/// (140 on the SCC, whose free entries are 132-190).
fn entry(chip: &chip::Chip) -> u8 {
    chip.address_map.shareable.first + 8
}
/// The word: first program line of a core's MPB half.
const WORD: u32 = PROGRAM_LINES;
/// What core 0 writes through the entry pointed at core 1's tile.
const FIRST: u32 = 0x9999_9999;
/// What the second tile's MPB holds before the remap.
const SEED: u32 = 0xAAAA_AAAA;
/// What core 0 writes through the entry pointed at the second tile.
const SECOND: u32 = 0xBBBB_BBBB;

/// A LUT entry reaching `tile`'s MPB.
fn mpb_entry(platform: &Platform, tile: TileId) -> LutEntry {
    let port = Port {
        tile: platform.chip().tile_coord(tile),
        subdest: Subdest::Mpb,
    };
    LutEntry::new(port, 0)
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let entry = entry(platform.chip());
    let Some(mut pair) = Pair::new(platform, "lut-remap")? else {
        return Ok(());
    };
    if pair.is_writer() {
        remap(platform, &mut pair)
    } else {
        let own = platform.own_mpb();
        let read = || {
            platform.invalidate_mpbt();
            own.read_u32(WORD)
        };
        pair.step();
        let routed = read();
        if routed != FIRST {
            return Err(unexpected(
                "core 1's read of its MPB half",
                routed,
                FIRST,
                &format!(
                    "core 0 wrote it through its LUT entry {entry} pointed at this tile's MPB"
                ),
            ));
        }
        pair.step();
        // Core 0 remaps the entry and writes through it again.
        pair.step();
        let kept = read();
        if kept != FIRST {
            return Err(unexpected(
                "core 1's read after core 0 remapped its entry",
                kept,
                FIRST,
                "the write through the remapped entry must reach the other tile only",
            ));
        }
        pair.step();
        Ok(())
    }
}

fn remap(platform: &Platform, pair: &mut Pair<'_>) -> Result<(), String> {
    let chip = platform.chip();
    let entry = entry(chip);
    let me = platform.core();
    let reader = platform.participant(1);
    let first = chip.tile_of(reader);
    let second = chip
        .tile((first.index() as u32 + 1) % chip.tiles())
        .expect("a tile index below the tile count");
    // The half of the second tile's MPB at the reader's position in its tile.
    let spare = chip
        .core_on(second, chip.z_of(reader))
        .expect("every tile has the reader's position");
    let offset = u32::from(chip.z_of(reader)) * chip.mpb_bytes_per_core() + WORD;

    let original = platform.lut_entry(me, entry.into());
    if chip.target_of(original) != Target::Nothing {
        return Err(format!(
            "LUT entry {entry} already reaches {:?}: it must be free",
            chip.target_of(original)
        ));
    }
    platform.mpb(spare).write_u32(WORD, SEED);
    platform.flush_wcb();

    platform.set_lut_entry(entry.into(), mpb_entry(platform, first));
    let window = platform
        .map_free_entry(
            AddressMap::entry_base(entry),
            chip.mpb_bytes_per_tile,
            MemoryType::Ncm,
        )
        .map_err(|e| format!("mapping LUT entry {entry}: {e}"))?;
    window.write_u32(offset, FIRST);
    let back = window.read_u32(offset);
    if back != FIRST {
        return Err(unexpected(
            &format!("core 0's read back through LUT entry {entry}"),
            back,
            FIRST,
            "the entry points at the MPB where the write just went",
        ));
    }
    pair.step();
    // Core 1 reads the word through its own MPB mapping.
    pair.step();

    platform.set_lut_entry(entry.into(), mpb_entry(platform, second));
    let next = window.read_u32(offset);
    window.write_u32(offset, SECOND);
    platform.invalidate_mpbt();
    let landed = platform.mpb(spare).read_u32(WORD);
    check_second(second, next, landed)?;
    pair.step();
    // Core 1 checks its half kept the first value.
    pair.step();
    platform.set_lut_entry(entry.into(), original);
    let (first, second) = (first.index(), second.index());
    kernel::println!(
        "lut-remap: entry {entry} to tile {first}'s MPB: core 1 read {FIRST:#010x} written through it; \
         remapped to tile {second}'s MPB: the next read returned {next:#010x}, the write of {SECOND:#010x} landed there, tile {first} kept {FIRST:#010x}"
    );
    Ok(())
}

fn check_second(second: TileId, next: u32, landed: u32) -> Result<(), String> {
    if next != SEED {
        return Err(unexpected(
            "the first read through the remapped entry",
            next,
            SEED,
            &format!(
                "what tile {}'s MPB holds: the remap must take effect at once",
                second.index()
            ),
        ));
    }
    if landed != SECOND {
        return Err(unexpected(
            &format!("core 0's read of tile {}'s MPB", second.index()),
            landed,
            SECOND,
            "written through the remapped entry",
        ));
    }
    Ok(())
}
