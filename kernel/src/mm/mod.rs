// SPDX-License-Identifier: MIT OR Apache-2.0
//! Physical frames and the kernel heap.
//!
//! A core owns all of its private RAM, so frames come from a simple bump
//! allocator over the RAM above the kernel image; nothing is ever returned.
//! The bookkeeping ([`FrameAllocator::take`]) is pure and host-tested;
//! handing out zeroed frames and the heap are x86-only.
//!
//! Every heap allocation carries a guard word right after its last byte
//! ([`guard_word`]), written when it is allocated and checked when it is
//! freed or reallocated: a program that wrote past the end of a block
//! ends the core with "heap overrun", naming the block, before the
//! allocator trips over what the write broke. It is always on: four
//! bytes and two accesses per allocation.

#[cfg(target_arch = "x86")]
use core::alloc::GlobalAlloc;
use core::alloc::Layout;

#[cfg(target_arch = "x86")]
use linked_list_allocator::LockedHeap;

#[cfg(target_arch = "x86")]
use crate::arch::x86::paging::FrameSource;
use crate::arch::x86::paging::PAGE_SIZE;

#[cfg(target_arch = "x86")]
#[global_allocator]
static HEAP: GuardedHeap = GuardedHeap(LockedHeap::empty());

/// What every guard word is derived from: an arbitrary odd pattern,
/// unlikely to be written by accident (neither small, nor a pointer into
/// RAM, nor text).
const GUARD_PATTERN: u32 = 0x9E37_79B9;

/// Bytes of the guard word after each allocation.
const GUARD_BYTES: usize = core::mem::size_of::<u32>();

/// The guard word after the `size`-byte allocation at `addr`: different for
/// every block, so that a copy of another block's guard word is caught too.
pub fn guard_word(addr: u32, size: u32) -> u32 {
    GUARD_PATTERN ^ addr ^ size.rotate_left(16)
}

/// The layout the allocator is asked for to hand out `layout` with its
/// guard word after it; `None` if that is too large.
pub fn guarded(layout: Layout) -> Option<Layout> {
    let size = layout.size().checked_add(GUARD_BYTES)?;
    Layout::from_size_align(size, layout.align()).ok()
}

/// A write past the end of an allocation: its guard word changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overrun {
    /// What the guard word should read.
    pub expected: u32,
    /// What it reads.
    pub found: u32,
}

/// Checks the guard word after the `size` bytes at `ptr`.
///
/// # Safety
/// `ptr` must be a live allocation of the kernel heap of `size` bytes.
#[cfg(target_arch = "x86")]
pub unsafe fn check_guard(ptr: *const u8, size: usize) -> Result<(), Overrun> {
    let expected = guard_word(ptr as u32, size as u32);
    // SAFETY: the heap allocated `GUARD_BYTES` more than `size` at `ptr`
    // (`GuardedHeap`).
    let found = unsafe { read_guard(ptr.wrapping_add(size)) };
    if found == expected {
        Ok(())
    } else {
        Err(Overrun { expected, found })
    }
}

/// Reads the guard word at `at` (maybe unaligned, which x86 allows) with an
/// instruction of its own: the compiler knows an allocation's size from the
/// allocator's signature and, seeing a read past its end, may assume
/// anything of it, while an `asm!` load is opaque to it.
///
/// # Safety
/// `at` must be readable for four bytes.
#[cfg(target_arch = "x86")]
unsafe fn read_guard(at: *const u8) -> u32 {
    let word: u32;
    // SAFETY: the caller guarantees the four bytes; a load changes nothing.
    unsafe {
        core::arch::asm!(
            "mov {word}, dword ptr [{at}]",
            word = out(reg) word,
            at = in(reg) at,
            options(nostack, readonly, preserves_flags),
        )
    };
    word
}

/// Writes the guard word `word` at `at`, as [`read_guard`] reads it.
///
/// # Safety
/// `at` must be writable for four bytes that nothing else uses.
#[cfg(target_arch = "x86")]
unsafe fn write_guard(at: *mut u8, word: u32) {
    // SAFETY: the caller guarantees the four bytes.
    unsafe {
        core::arch::asm!(
            "mov dword ptr [{at}], {word}",
            word = in(reg) word,
            at = in(reg) at,
            options(nostack, preserves_flags),
        )
    };
}

/// The kernel heap: a linked-list allocator whose blocks each carry a
/// guard word after them.
#[cfg(target_arch = "x86")]
struct GuardedHeap(LockedHeap);

// SAFETY: every block comes from the inner allocator with room for the
// guard word after `layout.size()` bytes, and goes back to it with the
// same layout; the guard word lies outside what the caller may use.
#[cfg(target_arch = "x86")]
unsafe impl GlobalAlloc for GuardedHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(outer) = guarded(layout) else {
            return core::ptr::null_mut();
        };
        // SAFETY: `outer` is not zero-sized (it holds the guard word).
        let ptr = unsafe { self.0.alloc(outer) };
        if !ptr.is_null() {
            let word = guard_word(ptr as u32, layout.size() as u32);
            // SAFETY: the block has `GUARD_BYTES` past `layout.size()`.
            unsafe { write_guard(ptr.wrapping_add(layout.size()), word) };
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller frees a block this allocator gave with `layout`.
        if let Err(overrun) = unsafe { check_guard(ptr, layout.size()) } {
            report_overrun(ptr as u32, layout.size(), overrun, "was freed");
        }
        let outer = guarded(layout).expect("the block was allocated with this layout");
        // SAFETY: the block came from the inner allocator with `outer`.
        unsafe { self.0.dealloc(ptr, outer) };
    }
}

/// Ends the core with a report of an overrun of the `size`-byte block at
/// `addr`, found when it `when` (was freed, ...).
#[cfg(target_arch = "x86")]
pub fn report_overrun(addr: u32, size: usize, overrun: Overrun, when: &str) -> ! {
    crate::exit::fail(format_args!(
        "heap overrun: the {size}-byte allocation at {addr:#x} was written past its end \
         (its guard word at {:#x} reads {:#010x}, not {:#010x}), found when it {when}",
        addr as usize + size,
        overrun.found,
        overrun.expected
    ))
}

/// The heap's share of a core's RAM: half of it, in whole pages. With
/// the run's default 32 MiB (`cargo xtask run --memory-mib`) that is
/// 16 MiB: enough for the benchmarks' 1 MiB buffers and the message-based
/// baseline's 1 MiB windows. The other half holds the image, the page
/// tables, the stacks and the frames the program maps.
pub const fn heap_bytes(ram_bytes: u32) -> u32 {
    ram_bytes / 2 / PAGE_SIZE * PAGE_SIZE
}

/// Hands out 4 KiB frames of private RAM, lowest first.
#[derive(Debug)]
pub struct FrameAllocator {
    /// The first frame not handed out yet.
    next: u32,
    /// The end of the RAM the frames come from (exclusive).
    end: u32,
}

impl FrameAllocator {
    /// Frames in `[start, end)`; `start` is rounded up to a frame (a start
    /// in the last frame of the address space leaves none).
    pub fn new(start: u32, end: u32) -> Self {
        Self {
            next: start.checked_next_multiple_of(PAGE_SIZE).unwrap_or(end),
            end,
        }
    }

    /// Takes `count` contiguous frames: the address of the first, or
    /// `None`, taking nothing, when fewer are left. The frames keep
    /// whatever they hold.
    pub fn take(&mut self, count: u32) -> Option<u32> {
        let bytes = count.checked_mul(PAGE_SIZE)?;
        let start = self.next;
        self.next = start.checked_add(bytes).filter(|&e| e <= self.end)?;
        Some(start)
    }
}

#[cfg(target_arch = "x86")]
impl FrameAllocator {
    /// `count` contiguous zeroed frames.
    pub fn allocate_contiguous(&mut self, count: u32) -> Option<*mut u8> {
        let frame = self.take(count)? as *mut u8;
        // SAFETY: the frames lie in private RAM above the kernel image and were
        // never handed out before, so nothing else refers to them.
        unsafe { frame.write_bytes(0, (count * PAGE_SIZE) as usize) };
        Some(frame)
    }
}

// SAFETY: `allocate_contiguous` hands out each frame of the allocator's
// range once, zeroed; the range is RAM the allocator's creator gave it
// alone (at boot, the identity-mapped RAM above the kernel image).
#[cfg(target_arch = "x86")]
unsafe impl FrameSource for FrameAllocator {
    fn allocate_zeroed(&mut self) -> Option<*mut u8> {
        self.allocate_contiguous(1)
    }
}

/// Bytes the heap was given at boot ([`heap_bytes`] of the core's RAM).
#[cfg(target_arch = "x86")]
pub fn heap_size() -> usize {
    HEAP.0.lock().size()
}

/// Gives the heap [`heap_bytes`] of `ram_bytes`, in frames.
#[cfg(target_arch = "x86")]
pub fn init_heap(frames: &mut FrameAllocator, ram_bytes: u32) -> Result<(), &'static str> {
    let bytes = heap_bytes(ram_bytes);
    // Not zeroed: the allocator writes what it needs, and `alloc_zeroed`
    // zeroes what it hands out. Zeroing it would be millions of stores
    // to DRAM (neither cache allocates on a write), several million
    // modelled cycles of every core's boot.
    let start = frames
        .take(bytes / PAGE_SIZE)
        .ok_or("not enough RAM for the heap")? as *mut u8;
    // SAFETY: the frames are fresh, mapped, and owned by the heap from now on.
    unsafe { HEAP.0.lock().init(start, bytes as usize) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heap_takes_half_the_ram_in_whole_pages() {
        assert_eq!(heap_bytes(32 << 20), 16 << 20);
        assert_eq!(heap_bytes(256 << 20), 128 << 20);
        assert_eq!(heap_bytes(3 * PAGE_SIZE), PAGE_SIZE);
    }

    #[test]
    fn guard_words_differ_by_block_and_size() {
        let a = guard_word(0x0200_0000, 16);
        assert_ne!(a, guard_word(0x0200_0010, 16));
        assert_ne!(a, guard_word(0x0200_0000, 32));
        assert_ne!(a, 0);
        assert_ne!(a, u32::MAX);
        // A byte pattern C code might fill with is no guard word here.
        assert_ne!(guard_word(0x0200_0000, 16), 0x7878_7878);
    }

    #[test]
    fn a_guarded_layout_has_room_for_the_word_and_keeps_the_alignment() {
        let layout = Layout::from_size_align(16, 16).unwrap();
        let outer = guarded(layout).unwrap();
        assert_eq!((outer.size(), outer.align()), (20, 16));
        let odd = guarded(Layout::from_size_align(3, 1).unwrap()).unwrap();
        assert_eq!((odd.size(), odd.align()), (7, 1));
        let huge = Layout::from_size_align(isize::MAX as usize - 2, 1).unwrap();
        assert_eq!(guarded(huge), None);
    }

    #[test]
    fn the_start_is_rounded_up_to_a_frame() {
        assert_eq!(
            FrameAllocator::new(0x1_0001, 0x10_0000).take(1),
            Some(0x1_1000)
        );
        assert_eq!(
            FrameAllocator::new(0x1_0FFF, 0x10_0000).take(1),
            Some(0x1_1000)
        );
        assert_eq!(
            FrameAllocator::new(0x1_0000, 0x10_0000).take(1),
            Some(0x1_0000)
        );
    }

    #[test]
    fn frames_come_lowest_first_and_runs_are_contiguous() {
        let mut frames = FrameAllocator::new(0x2000, 0x10_0000);
        assert_eq!(frames.take(1), Some(0x2000));
        assert_eq!(frames.take(3), Some(0x3000));
        assert_eq!(frames.take(1), Some(0x6000));
        assert_eq!(frames.take(2), Some(0x7000));
        assert_eq!(frames.take(1), Some(0x9000));
    }

    #[test]
    fn frames_run_out_at_the_end_and_a_refused_run_takes_nothing() {
        let mut frames = FrameAllocator::new(0x1000, 0x5000);
        assert_eq!(frames.take(3), Some(0x1000));
        assert_eq!(frames.take(2), None);
        assert_eq!(
            frames.take(1),
            Some(0x4000),
            "the last frame is still there"
        );
        assert_eq!(frames.take(1), None);
    }

    #[test]
    fn a_partial_frame_before_the_end_is_not_handed_out() {
        let mut frames = FrameAllocator::new(0x1000, 0x2FFF);
        assert_eq!(frames.take(1), Some(0x1000));
        assert_eq!(frames.take(1), None);
        assert_eq!(FrameAllocator::new(0x1001, 0x2000).take(1), None);
    }

    #[test]
    fn runs_whose_size_overflows_are_refused() {
        let mut frames = FrameAllocator::new(0x1000, u32::MAX);
        // 2^20 frames are 4 GiB: more bytes than 32 bits count.
        assert_eq!(frames.take(1 << 20), None);
        assert_eq!(frames.take(u32::MAX), None);
        assert_eq!(frames.take(1), Some(0x1000), "a refused run takes nothing");
    }

    #[test]
    fn runs_past_the_end_of_the_address_space_are_refused() {
        let mut frames = FrameAllocator::new(0xFFFF_D000, u32::MAX);
        assert_eq!(frames.take(4), None);
        assert_eq!(frames.take(2), Some(0xFFFF_D000));
        // The last frame ends at 2^32, past an end of u32::MAX.
        assert_eq!(frames.take(1), None);
        let mut last = FrameAllocator::new(0xFFFF_F001, u32::MAX);
        assert_eq!(last.take(1), None, "no frame starts at or after the start");
    }
}
