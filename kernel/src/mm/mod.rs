// SPDX-License-Identifier: MIT OR Apache-2.0
//! Physical frames and the kernel heap.
//!
//! A core owns all of its private RAM, so frames come from a simple bump
//! allocator over the RAM above the kernel image; nothing is ever returned.

use linked_list_allocator::LockedHeap;

use crate::arch::x86::paging::{FrameSource, PAGE_SIZE};

#[global_allocator]
static HEAP: LockedHeap = LockedHeap::empty();

/// Bytes given to the heap: enough for the benchmarks' 1 MiB buffers and
/// the message-based baseline's 1 MiB windows, a quarter of the RAM.
pub const HEAP_BYTES: u32 = 8 * 1024 * 1024;

/// Hands out 4 KiB frames of private RAM, lowest first.
#[derive(Debug)]
pub struct FrameAllocator {
    next: u32,
    end: u32,
}

impl FrameAllocator {
    /// Frames in `[start, end)`; `start` is rounded up to a frame.
    pub fn new(start: u32, end: u32) -> Self {
        Self {
            next: start.next_multiple_of(PAGE_SIZE),
            end,
        }
    }

    /// `count` contiguous zeroed frames.
    pub fn allocate_contiguous(&mut self, count: u32) -> Option<*mut u8> {
        let bytes = count.checked_mul(PAGE_SIZE)?;
        let start = self.next;
        let end = start.checked_add(bytes).filter(|&e| e <= self.end)?;
        self.next = end;
        let frame = start as *mut u8;
        // SAFETY: the frames lie in private RAM above the kernel image and were
        // never handed out before, so nothing else refers to them.
        unsafe { frame.write_bytes(0, bytes as usize) };
        Some(frame)
    }
}

// SAFETY: `allocate_contiguous` hands out each frame of the allocator's
// range once, zeroed; the range is RAM the allocator's creator gave it
// alone (at boot, the identity-mapped RAM above the kernel image).
unsafe impl FrameSource for FrameAllocator {
    fn allocate_zeroed(&mut self) -> Option<*mut u8> {
        self.allocate_contiguous(1)
    }
}

/// Gives the heap [`HEAP_BYTES`] of frames.
pub fn init_heap(frames: &mut FrameAllocator) -> Result<(), &'static str> {
    let start = frames
        .allocate_contiguous(HEAP_BYTES / PAGE_SIZE)
        .ok_or("not enough RAM for the heap")?;
    // SAFETY: the frames are fresh, mapped, and owned by the heap from now on.
    unsafe { HEAP.lock().init(start, HEAP_BYTES as usize) };
    Ok(())
}
