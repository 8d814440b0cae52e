// SPDX-License-Identifier: MIT OR Apache-2.0
//! Physical frames and the kernel heap.
//!
//! A core owns all of its private RAM, so frames come from a simple bump
//! allocator over the RAM above the kernel image; nothing is ever returned.
//! The bookkeeping ([`FrameAllocator::take`]) is pure and host-tested;
//! handing out zeroed frames and the heap are x86-only.

#[cfg(target_arch = "x86")]
use linked_list_allocator::LockedHeap;

#[cfg(target_arch = "x86")]
use crate::arch::x86::paging::FrameSource;
use crate::arch::x86::paging::PAGE_SIZE;

#[cfg(target_arch = "x86")]
#[global_allocator]
static HEAP: LockedHeap = LockedHeap::empty();

/// Bytes given to the heap: enough for the benchmarks' 1 MiB buffers, the
/// message-based baseline's 1 MiB windows and the stencil's grids (four
/// copies of 384 rows of 8 KiB on core 0), half of the RAM.
pub const HEAP_BYTES: u32 = 16 * 1024 * 1024;

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

/// Gives the heap [`HEAP_BYTES`] of frames.
#[cfg(target_arch = "x86")]
pub fn init_heap(frames: &mut FrameAllocator) -> Result<(), &'static str> {
    // Not zeroed: the allocator writes what it needs, and `alloc_zeroed`
    // zeroes what it hands out. Zeroing it would be millions of stores
    // to DRAM (neither cache allocates on a write), several million
    // modelled cycles of every core's boot.
    let start = frames
        .take(HEAP_BYTES / PAGE_SIZE)
        .ok_or("not enough RAM for the heap")? as *mut u8;
    // SAFETY: the frames are fresh, mapped, and owned by the heap from now on.
    unsafe { HEAP.lock().init(start, HEAP_BYTES as usize) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
