// SPDX-License-Identifier: MIT OR Apache-2.0
//! Load and store bandwidth per memory type over buffer sizes (the
//! thesis's appendix B.1 method, after van Tol et al.): on core 0, a loop
//! of 4-byte loads or stores over a buffer, from the highest address down,
//! timed as a whole; before each repetition the buffer is read once in the
//! same direction (the thesis's prefetch). The median of the repetitions
//! counts. Result lines `BENCH load-store op=<load|store> type=<t>
//! size=<bytes> bytes=<bytes>`.
//!
//! The buffers lie in core 0's shareable DRAM (POPSHM), mapped through a
//! free LUT entry with each type in turn, each type on its own 2 MiB of
//! it, so no type's cached lines alias another's. The thesis repeats 501
//! times; here large buffers repeat fewer times (at least 11) to keep the
//! emulated run short. Check: every store loop writes a pattern of its
//! repetition, read back and compared after the timed loops.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rma::chip::MemoryType;
use rma::hal::DramPages;

use super::{Scale, Scaled, emit};
use kernel::Platform;
use kernel::platform::scc::SharedBytes;

/// Memory types measured, with their names in the keys.
const TYPES: [(MemoryType, &str); 5] = [
    (MemoryType::Dcm, "dcm"),
    (MemoryType::Ncm, "ncm"),
    (MemoryType::NcmWcb, "ncm-wcb"),
    (MemoryType::MpbtWb, "mpbt-wb"),
    (MemoryType::MpbtWt, "mpbt-wt"),
];

/// Bytes each type's buffers take of the mapping.
const TYPE_AREA: u32 = 2 << 20;

/// The first free LUT entry, where the POPSHM page is mapped.
fn slot(platform: &Platform) -> u8 {
    platform.chip().address_map.shareable.first
}

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    if platform.core().index() != 0 {
        return Ok(());
    }
    let sizes: Vec<u32> = match settings.scale {
        Scale::Quick => [4096, 16384, 65536, 262_144].into(),
        Scale::Full => (10..=20).map(|k| 1 << k).collect(),
    };
    let mut pages = DramPages::popshm(platform.chip(), platform.core());
    pages.count = 1;
    for (k, (ty, name)) in TYPES.into_iter().enumerate() {
        platform.map_shared_dram(slot(platform), pages, ty)
            .map_err(|e| format!("mapping POPSHM as {name}: {e:?}"))?;
        let at = k as u32 * TYPE_AREA;
        let area = platform.shared_dram(slot(platform), at, TYPE_AREA as usize);
        let buf = Buffer { area, at };
        for &size in &sizes {
            let reps = repetitions(settings.scale, size);
            let stores = measure(platform, buf, size, reps, Op::Store)?;
            let loads = measure(platform, buf, size, reps, Op::Load)?;
            let keys = |op| format!("op={op} type={name} size={size}");
            emit("load-store", &keys("store"), Some(u64::from(size)), &stores);
            emit("load-store", &keys("load"), Some(u64::from(size)), &loads);
        }
        // Leave nothing modified in L1 for the next type's mapping.
        platform.write_back_l1();
        platform.unmap_shared_dram(slot(platform));
    }
    kernel::println!(
        "bench-load-store: {} memory types x {} sizes, every stored pattern read back",
        TYPES.len(),
        sizes.len()
    );
    Ok(())
}

/// Repetitions at `size` bytes: 501 up to 4 KiB, fewer above, at least 11.
fn repetitions(scale: Scale, size: u32) -> u32 {
    let reps = scale.pick(21, 501);
    (reps * 4096 / size.max(4096)).clamp(11, reps) | 1
}

/// A type's buffer: the mapping and where the type's area starts in it.
#[derive(Clone, Copy)]
struct Buffer {
    area: SharedBytes,
    at: u32,
}

impl Buffer {
    /// The first word, for the timed loops (volatile accesses only).
    fn words(self) -> *mut u32 {
        self.area.as_ptr().wrapping_add(self.at as usize).cast()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Load,
    Store,
}

/// The cycles of `reps` timed loops of `op` over `size` bytes at `buf`,
/// each after a top-down read of the buffer.
fn measure(platform: &Platform, buf: Buffer, size: u32, reps: u32, op: Op) -> Result<Vec<u64>, String> {
    let words = size / 4;
    let mut samples = Vec::with_capacity(reps as usize);
    for rep in 0..reps {
        let _ = sweep_load(buf, words);
        let start = platform.now();
        match op {
            Op::Load => {
                let _ = sweep_load(buf, words);
            }
            Op::Store => sweep_store(buf, words, rep),
        }
        samples.push(platform.now() - start);
        if op == Op::Store {
            // Out of the timed part: what the loop stored must read back
            // (after the write-combine buffer and L1 gave it up).
            platform.flush_wcb();
            platform.write_back_l1();
            for i in (0..words).rev() {
                let got = buf.area.read_u32(buf.at + 4 * i);
                if got != word(rep, i) {
                    return Err(format!(
                        "store of {size} bytes, repetition {rep}: word {i} reads {got:#x}, expected {:#x}",
                        word(rep, i)
                    ));
                }
            }
        }
    }
    Ok(samples)
}

/// The word the store loop of repetition `rep` writes at index `i`.
fn word(rep: u32, i: u32) -> u32 {
    rep.wrapping_mul(0x9E37_79B9) ^ i
}

/// Loads `words` words from the top down; their sum, so the loads stay.
#[inline(never)]
fn sweep_load(buf: Buffer, words: u32) -> u32 {
    let p = buf.words().cast_const();
    let mut sum = 0u32;
    for i in (0..words as usize).rev() {
        // SAFETY: the area is mapped for TYPE_AREA bytes (`shared_dram`
        // mapped its pages), sizes stay within it, and it is page-aligned.
        sum = sum.wrapping_add(unsafe { p.add(i).read_volatile() });
    }
    sum
}

/// Stores the pattern of `rep` into `words` words from the top down.
#[inline(never)]
fn sweep_store(buf: Buffer, words: u32, rep: u32) {
    let p = buf.words();
    for i in (0..words).rev() {
        // SAFETY: as in `sweep_load`.
        unsafe { p.add(i as usize).write_volatile(word(rep, i)) };
    }
}
