// SPDX-License-Identifier: MIT OR Apache-2.0
//! Checks of the kernel's own parts that can only run on the target: the
//! frame allocator, page-table building, the heap and its guard words,
//! shared-memory access at
//! any alignment, the CL1INVMB step-over, the wake-up timer, test-and-set
//! registers (the command line is checked on the host, in the chip
//! crate). Each core runs every check on its own
//! resources and prints `selftest <name> ... ok`; the first failure ends
//! the run.

use alloc::alloc::{Layout, alloc, alloc_zeroed, dealloc};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use chip::MemoryType;

use kernel::Platform;
use kernel::arch::x86::paging::{AddressSpace, FrameSource, MapError, PAGE_SIZE};
use kernel::arch::x86::timer;
use kernel::mm::FrameAllocator;

type Check = fn(&Platform) -> Result<(), String>;

const CHECKS: &[(&str, Check)] = &[
    ("frames run out cleanly", frames_run_out),
    (
        "mappings refuse overlaps, bad ranges and exhaustion",
        mapping_errors,
    ),
    ("the heap allocates and frees", heap),
    ("the heap is usable up to its size", heap_whole),
    (
        "every heap block has its guard word after it",
        heap_guard_words,
    ),
    ("shared bytes round-trip at any alignment", shared_bytes),
    ("CL1INVMB is stepped over", cl1invmb),
    ("the timer wakes a halted core", timer_wakes),
    ("a test-and-set register is exclusive until released", tsr),
];

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    for (name, check) in CHECKS {
        check(platform).map_err(|reason| format!("selftest {name}: {reason}"))?;
        kernel::println!("selftest {name} ... ok");
    }
    if platform.core().index() == 0 {
        kernel::println!("selftest: {} checks passed", CHECKS.len());
    }
    Ok(())
}

/// Runs `body` with `frames` 4 KiB frames taken from the heap.
fn with_frames<T>(frames: u32, body: impl FnOnce(&mut FrameAllocator) -> T) -> T {
    let layout = Layout::from_size_align((frames * PAGE_SIZE) as usize, PAGE_SIZE as usize)
        .expect("a valid layout");
    // SAFETY: the layout has a non-zero size.
    let start = unsafe { alloc_zeroed(layout) };
    assert!(!start.is_null(), "heap exhausted");
    let mut allocator = FrameAllocator::new(start as u32, start as u32 + frames * PAGE_SIZE);
    let result = body(&mut allocator);
    // SAFETY: allocated above with this layout; the frames are not used after `body`.
    unsafe { dealloc(start, layout) };
    result
}

fn frames_run_out(_: &Platform) -> Result<(), String> {
    with_frames(4, |frames| {
        let mut got = Vec::new();
        while let Some(frame) = frames.allocate_zeroed() {
            got.push(frame as u32);
        }
        let distinct_and_aligned = got.windows(2).all(|w| w[1] == w[0] + PAGE_SIZE)
            && got.iter().all(|f| f.is_multiple_of(PAGE_SIZE));
        match (got.len(), distinct_and_aligned) {
            (4, true) => Ok(()),
            (n, _) => Err(format!("4 frames gave {n} ({got:#x?})")),
        }
    })
}

fn mapping_errors(_: &Platform) -> Result<(), String> {
    with_frames(3, |frames| {
        let mut space = AddressSpace::new(frames).map_err(|e| e.to_string())?;
        let base = 0x8000_0000;
        space
            .map_identity(frames, base, 2 * PAGE_SIZE, MemoryType::Ncm)
            .map_err(|e| format!("first mapping: {e}"))?;
        let expect = |got: Result<(), MapError>, want: MapError| {
            if got == Err(want) {
                Ok(())
            } else {
                Err(format!("got {got:?}, want {want:?}"))
            }
        };
        let overlap = space.map_identity(frames, base + PAGE_SIZE, 2 * PAGE_SIZE, MemoryType::Dcm);
        expect(overlap, MapError::AlreadyMapped(base + PAGE_SIZE))?;
        // All or nothing: a range whose second page is taken maps not even
        // its free first page.
        space
            .map_identity(frames, base + 3 * PAGE_SIZE, PAGE_SIZE, MemoryType::Ncm)
            .map_err(|e| format!("a lone page: {e}"))?;
        let partly =
            space.map_identity(frames, base + 2 * PAGE_SIZE, 2 * PAGE_SIZE, MemoryType::Ncm);
        expect(partly, MapError::AlreadyMapped(base + 3 * PAGE_SIZE))?;
        space
            .map_identity(frames, base + 2 * PAGE_SIZE, PAGE_SIZE, MemoryType::Ncm)
            .map_err(|e| format!("the free page of a refused range: {e}"))?;
        let alias = space.map(
            frames,
            base + 4 * PAGE_SIZE,
            0x800,
            PAGE_SIZE,
            MemoryType::Dcm,
        );
        expect(
            alias,
            MapError::BadRange {
                start: 0x800,
                len: PAGE_SIZE,
            },
        )?;
        let unaligned = space.map_identity(frames, base + 0x800, PAGE_SIZE, MemoryType::Dcm);
        expect(
            unaligned,
            MapError::BadRange {
                start: base + 0x800,
                len: PAGE_SIZE,
            },
        )?;
        let wraps = space.map_identity(frames, 0xFFFF_F000, 2 * PAGE_SIZE, MemoryType::Dcm);
        expect(
            wraps,
            MapError::BadRange {
                start: 0xFFFF_F000,
                len: 2 * PAGE_SIZE,
            },
        )?;
        // Directory and one table used two of the three frames: a third
        // 4 MiB region still fits, a fourth does not.
        space
            .map_identity(frames, 0x9000_0000, PAGE_SIZE, MemoryType::Dcm)
            .map_err(|e| format!("second table: {e}"))?;
        let exhausted = space.map_identity(frames, 0xA000_0000, PAGE_SIZE, MemoryType::Dcm);
        expect(exhausted, MapError::OutOfFrames)
    })
}

fn heap(_: &Platform) -> Result<(), String> {
    let blocks: Vec<Vec<u32>> = (1..=64).map(|n| (0..n * 16).collect()).collect();
    let sum: u64 = blocks.iter().flatten().map(|&v| u64::from(v)).sum();
    let want: u64 = (1..=64u64).map(|n| (n * 16) * (n * 16 - 1) / 2).sum();
    if sum == want {
        Ok(())
    } else {
        Err(format!("sum {sum}, want {want}"))
    }
}

/// One block of all but 1 MiB of the heap (what earlier checks and the
/// kernel hold is far less) is allocated and freed; the heap's size is
/// printed, half the core's RAM (`--memory-mib`).
fn heap_whole(_: &Platform) -> Result<(), String> {
    let size = kernel::mm::heap_size();
    let block = size - (1 << 20);
    let layout = Layout::from_size_align(block, PAGE_SIZE as usize).expect("a valid layout");
    // SAFETY: the layout has a non-zero size.
    let start = unsafe { alloc(layout) };
    if start.is_null() {
        return Err(format!(
            "a block of {block} bytes of a {size}-byte heap: exhausted"
        ));
    }
    // SAFETY: allocated above with this layout, not used.
    unsafe { dealloc(start, layout) };
    kernel::println!("selftest heap: {} MiB", size >> 20);
    Ok(())
}

fn heap_guard_words(_: &Platform) -> Result<(), String> {
    for (size, align) in [(1, 1), (3, 1), (16, 16), (24, 8), (4096, 4096)] {
        let layout = Layout::from_size_align(size, align).map_err(|e| e.to_string())?;
        // SAFETY: the layout has a non-zero size.
        let block = unsafe { alloc_zeroed(layout) };
        if block.is_null() {
            return Err(format!("{size} bytes: heap exhausted"));
        }
        // SAFETY: the block is live, `size` bytes from the kernel heap.
        let before = unsafe { kernel::mm::check_guard(block, size) };
        // SAFETY: the block's own bytes.
        unsafe { block.write_bytes(0xA5, size) };
        // SAFETY: as above; writing every byte of the block keeps its guard.
        let after = unsafe { kernel::mm::check_guard(block, size) };
        // SAFETY: allocated above with this layout.
        unsafe { dealloc(block, layout) };
        if before.is_err() || after.is_err() {
            return Err(format!(
                "{size} bytes at {block:p}: guard word {before:?} before and {after:?} after filling"
            ));
        }
    }
    Ok(())
}

fn shared_bytes(platform: &Platform) -> Result<(), String> {
    // The last 256 bytes of this core's own MPB half: no protocol uses them
    // before the program ends, and no other core writes there.
    let mpb = platform.own_mpb();
    let area = platform.chip().mpb_bytes_per_core() - 256;
    for offset in 0..8u32 {
        for len in [0usize, 1, 3, 4, 5, 31, 33, 100] {
            let data: Vec<u8> = (0..len)
                .map(|i| (i as u32 * 7 + offset) as u8 | 1)
                .collect();
            // The MPB is MPBT-WB: a store into a line L1 holds stays there
            // dirty, and CL1INVMB would then drop it, as on silicon. So the
            // lines are invalidated before the write too (the SCC's
            // discipline), and the write goes out through the WCB.
            platform.invalidate_mpbt();
            mpb.write_bytes(area + offset, &data);
            platform.flush_wcb();
            platform.invalidate_mpbt();
            let mut back = alloc::vec![0u8; len];
            mpb.read_bytes(area + offset, &mut back);
            if back != data {
                return Err(format!(
                    "{len} bytes at +{offset}: wrote {data:x?}, read {back:x?}"
                ));
            }
        }
    }
    Ok(())
}

fn cl1invmb(platform: &Platform) -> Result<(), String> {
    // Each one raises #UD under QEMU. The check is reaching the end: had the
    // handler not stepped over one, it would have ended the run reporting it.
    for _ in 0..100 {
        platform.invalidate_mpbt();
    }
    Ok(())
}

fn timer_wakes(_: &Platform) -> Result<(), String> {
    // Only the timer can end the halt (no other interrupt is enabled), so a
    // halt that returns early leaves ticks on the counter. A timer that never
    // fires hangs here, and the run's timeout names this core.
    for _ in 0..10 {
        timer::halt_for(100);
        let left = timer::remaining_ticks();
        if left != 0 {
            return Err(format!("woke with {left} timer ticks to go"));
        }
    }
    Ok(())
}

fn tsr(platform: &Platform) -> Result<(), String> {
    let me = platform.core();
    let register = platform.chip().tsr_addr(me) as *const u8;
    let protocol = platform.chip().tsr_protocol;
    // SAFETY: this core's TSR, mapped uncached; reading it has no side effect
    // on the emulator, and no other core uses it during the selftest.
    let read = || unsafe { register.read_volatile() };
    platform.tsr_acquire(me);
    let (held, second) = (read(), platform.tsr_try_acquire(me));
    platform.tsr_release(me);
    let released = read();
    let again = platform.tsr_try_acquire(me);
    platform.tsr_release(me);
    match (
        held == protocol.taken,
        second,
        released == protocol.free,
        again,
    ) {
        (true, false, true, true) => Ok(()),
        _ => Err(format!(
            "held reads {held}, second acquire {second}, released reads {released}, acquire after release {again}"
        )),
    }
}
