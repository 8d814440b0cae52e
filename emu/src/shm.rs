// SPDX-License-Identifier: GPL-2.0-or-later
//! Memory shared with other processes: the run's files, mapped.
//!
//! Every byte here may change under us at any moment (other cores' plugins
//! and guests write the same files), so nothing hands out Rust references
//! into it: bytes move with volatile accesses, directory words with
//! atomics, through the methods of [`Mapping`]. All of this crate's
//! `unsafe` for shared memory lives in this module.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use chip::CACHE_LINE;

const LINE: usize = CACHE_LINE;

/// For each mask of 8 bytes (bit i: byte i), the 64-bit word with those
/// bytes all ones, in memory order: a line is merged a word at a time.
const BYTE_MASKS: [u64; 256] = {
    let mut masks = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut bytes = [0u8; 8];
        let mut i = 0;
        while i < 8 {
            if m & (1 << i) != 0 {
                bytes[i] = 0xFF;
            }
            i += 1;
        }
        masks[m] = u64::from_ne_bytes(bytes);
        m += 1;
    }
    masks
};

/// A whole file mapped shared, read-write.
#[derive(Debug)]
pub struct Mapping {
    base: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory shared with other processes; every
// access goes through volatile or atomic operations, so threads of this
// process may use it as freely as other processes do.
unsafe impl Send for Mapping {}
// SAFETY: as for Send.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps all `len` bytes of `file`.
    pub fn new(file: &File, len: u64) -> io::Result<Self> {
        let len = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
        // SAFETY: a fresh shared mapping chosen by the kernel; no existing
        // memory is affected. The file stays mapped after `file` closes.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Self {
            base: base.cast(),
            len,
        })
    }

    /// Bytes mapped.
    pub fn len(&self) -> u64 {
        self.len as u64
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn at(&self, offset: u64, bytes: usize) -> *mut u8 {
        let offset = usize::try_from(offset).expect("offsets fit in usize");
        assert!(
            offset.checked_add(bytes).is_some_and(|end| end <= self.len),
            "access of {bytes} bytes at {offset:#x} outside a mapping of {:#x}",
            self.len
        );
        // SAFETY: checked to lie inside the mapping just above.
        unsafe { self.base.add(offset) }
    }

    /// Reads `buf.len()` bytes at `offset`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) {
        let src = self.at(offset, buf.len());
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: inside the mapping (checked by `at`); volatile because
            // other processes write it.
            *b = unsafe { ptr::read_volatile(src.add(i)) };
        }
    }

    /// Writes `data` at `offset`.
    pub fn write(&self, offset: u64, data: &[u8]) {
        let dst = self.at(offset, data.len());
        for (i, b) in data.iter().enumerate() {
            // SAFETY: as in `read`.
            unsafe { ptr::write_volatile(dst.add(i), *b) };
        }
    }

    /// The 32 bytes of the line at `offset` (line-aligned), read a word
    /// of 8 bytes at a time.
    pub fn read_line(&self, offset: u64) -> [u8; LINE] {
        let src = self.at(offset, LINE);
        assert!(src.addr().is_multiple_of(LINE), "lines are aligned");
        let mut line = [0; LINE];
        for (i, bytes) in line.chunks_exact_mut(8).enumerate() {
            // SAFETY: inside the mapping (checked by `at`) and 8-byte
            // aligned (the line is); volatile because other processes
            // write it.
            let word = unsafe { ptr::read_volatile(src.cast::<u64>().add(i)) };
            bytes.copy_from_slice(&word.to_ne_bytes());
        }
        line
    }

    /// Writes the bytes of `line` whose bit is set in `mask` (bit i: byte
    /// i) into the line at `offset` (line-aligned), all at once.
    ///
    /// A guest reads views directly while other processes publish into
    /// them; on silicon a line arrives whole, so a reader must never see
    /// half of a new line. The line is therefore merged here and stored
    /// with one 32-byte store, which x86 processors with AVX carry out as
    /// one access to one host cache line (the line is 32-byte aligned).
    /// Without AVX, two 16-byte stores (each atomic) come close.
    pub fn write_masked(&self, offset: u64, line: &[u8; LINE], mask: u32) {
        let dst = self.at(offset, LINE);
        assert!(dst.addr().is_multiple_of(LINE), "lines are aligned");
        if mask == u32::MAX {
            store_line(dst, line);
            return;
        }
        let mut merged = self.read_line(offset);
        for (i, (old, new)) in merged
            .chunks_exact_mut(8)
            .zip(line.chunks_exact(8))
            .enumerate()
        {
            let keep = BYTE_MASKS[(mask >> (8 * i)) as u8 as usize];
            let word = |b: &[u8]| u64::from_ne_bytes(b.try_into().expect("8 bytes"));
            let value = word(old) & !keep | word(new) & keep;
            old.copy_from_slice(&value.to_ne_bytes());
        }
        store_line(dst, &merged);
    }

    fn word(&self, offset: u64) -> *mut u64 {
        assert!(offset.is_multiple_of(8), "directory words are aligned");
        self.at(offset, 8).cast()
    }

    /// Atomically sets `bits` in the 64-bit word at `offset`.
    pub fn fetch_or(&self, offset: u64, bits: u64) -> u64 {
        // SAFETY: an aligned word inside the mapping; all processes access
        // directory words atomically only.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.fetch_or(bits, Ordering::SeqCst)
    }

    /// Atomically clears `bits` in the 64-bit word at `offset`.
    pub fn fetch_and_not(&self, offset: u64, bits: u64) -> u64 {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.fetch_and(!bits, Ordering::SeqCst)
    }

    /// Atomically replaces the bits `mask` of the word at `offset` with
    /// those of `value`.
    pub fn update(&self, offset: u64, mask: u64, value: u64) {
        // SAFETY: as in `fetch_or`.
        let word = unsafe { AtomicU64::from_ptr(self.word(offset)) };
        let _ = word.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
            Some((w & !mask) | (value & mask))
        });
    }

    /// Atomically reads the 64-bit word at `offset`.
    pub fn load(&self, offset: u64) -> u64 {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.load(Ordering::SeqCst)
    }

    /// Atomically writes the 64-bit word at `offset`.
    pub fn store(&self, offset: u64, value: u64) {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.store(value, Ordering::SeqCst);
    }

    /// Atomically lowers the word at `offset` to `value` if it is higher;
    /// returns the word before.
    pub fn fetch_min(&self, offset: u64, value: u64) -> u64 {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.fetch_min(value, Ordering::SeqCst)
    }

    /// Atomically raises the word at `offset` to `value` if it is lower;
    /// returns the word before.
    pub fn fetch_max(&self, offset: u64, value: u64) -> u64 {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.fetch_max(value, Ordering::SeqCst)
    }

    /// Atomically replaces the word at `offset` with `value`; returns the
    /// word before.
    pub fn swap(&self, offset: u64, value: u64) -> u64 {
        // SAFETY: as in `fetch_or`.
        unsafe { AtomicU64::from_ptr(self.word(offset)) }.swap(value, Ordering::SeqCst)
    }

    /// Atomically replaces the word at `offset` with `f` of it, retrying
    /// while others change it, as long as `f` returns a value: `Ok` with
    /// the word replaced, or `Err` with the word `f` refused.
    pub fn try_update(
        &self,
        offset: u64,
        f: &mut dyn FnMut(u64) -> Option<u64>,
    ) -> Result<u64, u64> {
        // SAFETY: as in `fetch_or`.
        let word = unsafe { AtomicU64::from_ptr(self.word(offset)) };
        word.fetch_update(Ordering::SeqCst, Ordering::SeqCst, f)
    }

    fn word32(&self, offset: u64) -> &AtomicU32 {
        assert!(offset.is_multiple_of(4), "32-bit words are aligned");
        // SAFETY: an aligned 32-bit word inside the mapping; every process
        // accesses these words atomically only. The reference lives no
        // longer than `self`, which keeps the mapping.
        unsafe { AtomicU32::from_ptr(self.at(offset, 4).cast()) }
    }

    /// Atomically adds `value` (wrapping) to the 32-bit word at `offset`.
    pub fn fetch_add_u32(&self, offset: u64, value: u32) -> u32 {
        self.word32(offset).fetch_add(value, Ordering::SeqCst)
    }

    /// Atomically subtracts `value` (wrapping) from the 32-bit word at `offset`.
    pub fn fetch_sub_u32(&self, offset: u64, value: u32) -> u32 {
        self.word32(offset).fetch_sub(value, Ordering::SeqCst)
    }

    /// Atomically reads the 32-bit word at `offset`.
    pub fn load_atomic_u32(&self, offset: u64) -> u32 {
        self.word32(offset).load(Ordering::SeqCst)
    }

    /// Atomically writes the 32-bit word at `offset`.
    pub fn store_atomic_u32(&self, offset: u64, value: u32) {
        self.word32(offset).store(value, Ordering::SeqCst);
    }

    /// Sleeps while the 32-bit word at `offset` holds `expected`, until
    /// another process wakes it ([`Mapping::futex_wake`]) or `timeout`
    /// passes (a futex on shared memory).
    pub fn futex_wait(&self, offset: u64, expected: u32, timeout: Duration) {
        let word = self.word32(offset).as_ptr();
        let timeout = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: FUTEX_WAIT on an aligned word of a shared mapping (not
        // FUTEX_PRIVATE: other processes wake it); the kernel only reads
        // the word and the timeout. Spurious returns are fine: callers
        // recheck their condition.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                word,
                libc::FUTEX_WAIT,
                expected,
                &timeout as *const libc::timespec,
            )
        };
    }

    /// Wakes every process sleeping on the 32-bit word at `offset`.
    pub fn futex_wake(&self, offset: u64) {
        let word = self.word32(offset).as_ptr();
        // SAFETY: FUTEX_WAKE on an aligned word of a shared mapping; the
        // kernel does not touch memory.
        unsafe { libc::syscall(libc::SYS_futex, word, libc::FUTEX_WAKE, i32::MAX) };
    }

    /// Atomically reads the 32-bit register at `offset` (4-aligned).
    pub fn load_u32(&self, offset: u64) -> u32 {
        let mut word = [0; 4];
        self.read(offset, &mut word);
        u32::from_le_bytes(word)
    }

    /// Writes the 32-bit register at `offset`.
    pub fn store_u32(&self, offset: u64, value: u32) {
        self.write(offset, &value.to_le_bytes());
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped; no reference into it
        // exists (none is ever handed out).
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// Stores 32 bytes at `dst` (32-byte aligned, inside a mapping) in as few
/// accesses as the processor allows.
fn store_line(dst: *mut u8, line: &[u8; LINE]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, __m256i, _mm_storeu_si128, _mm256_store_si256};
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX is present (checked); `dst` is 32-byte aligned
            // and 32 bytes inside a mapping (callers check with `at`).
            unsafe { store_avx(dst.cast::<__m256i>(), line) };
            return;
        }
        for half in 0..2 {
            // SAFETY: SSE2 is part of x86_64; 16 bytes inside the line.
            unsafe {
                let value =
                    std::ptr::read_unaligned(line.as_ptr().add(16 * half).cast::<__m128i>());
                _mm_storeu_si128(dst.add(16 * half).cast::<__m128i>(), value);
            }
        }

        #[target_feature(enable = "avx")]
        unsafe fn store_avx(dst: *mut __m256i, line: &[u8; LINE]) {
            // SAFETY: the caller guarantees alignment and bounds.
            unsafe {
                let value = std::ptr::read_unaligned(line.as_ptr().cast::<__m256i>());
                _mm256_store_si256(dst, value);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (i, b) in line.iter().enumerate() {
        // SAFETY: inside the mapping (callers check with `at`).
        unsafe { ptr::write_volatile(dst.add(i), *b) };
    }
}

/// Shows `len` bytes of `file` from `offset` at host address `host`,
/// replacing what was mapped there (QEMU's mapping of a guest RAM region).
///
/// # Safety
///
/// `host..host + len` must be a shared file mapping that QEMU made for
/// guest memory and that nothing in this process holds references into:
/// QEMU's TCG accesses it through raw host addresses, which stay valid.
pub unsafe fn remap(host: usize, len: usize, file: &File, offset: u64) -> io::Result<()> {
    let offset = libc::off_t::try_from(offset).map_err(|_| io::Error::other("offset too large"))?;
    // SAFETY: the caller guarantees the range is QEMU's guest-memory
    // mapping; MAP_FIXED replaces it atomically with the same protection.
    let at = unsafe {
        libc::mmap(
            host as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            file.as_raw_fd(),
            offset,
        )
    };
    if at == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Where this process maps each part of a file: `(host start, host end,
/// file offset)` of every mapping of the file with inode `inode` on device
/// `dev`, read from a `/proc/<pid>/maps` text.
pub fn mappings_of(maps: &str, dev: u64, inode: u64) -> Vec<(usize, usize, u64)> {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next()?;
            let _perms = fields.next()?;
            let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
            let (major, minor) = fields.next()?.split_once(':')?;
            let ino: u64 = fields.next()?.parse().ok()?;
            let (major, minor) = (
                u64::from_str_radix(major, 16).ok()?,
                u64::from_str_radix(minor, 16).ok()?,
            );
            if ino != inode || libc::makedev(major as u32, minor as u32) != dev {
                return None;
            }
            let (start, end) = range.split_once('-')?;
            Some((
                usize::from_str_radix(start, 16).ok()?,
                usize::from_str_radix(end, 16).ok()?,
                offset,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    #[test]
    fn a_masked_line_write_takes_exactly_the_bytes_of_its_mask() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("f"))
            .unwrap();
        file.set_len(4096).unwrap();
        let map = Mapping::new(&file, 4096).unwrap();
        let old: [u8; LINE] = std::array::from_fn(|i| i as u8);
        let new: [u8; LINE] = std::array::from_fn(|i| 0x80 | i as u8);
        let mut mask = 0x9E37_79B9u32;
        for round in 0..200 {
            // Every byte alone, then masks spread over the whole line.
            let m = if round < LINE { 1 << round } else { mask };
            mask = mask.rotate_left(5) ^ mask.wrapping_mul(0x2545_F491);
            map.write_masked(0x100, &old, u32::MAX);
            map.write_masked(0x100, &new, m);
            let expected: [u8; LINE] =
                std::array::from_fn(|i| if m >> i & 1 != 0 { new[i] } else { old[i] });
            assert_eq!(map.read_line(0x100), expected, "mask {m:#010x}");
        }
    }

    #[test]
    fn bytes_words_and_masks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        file.set_len(1 << 20).unwrap();
        let a = Mapping::new(&file, 1 << 20).unwrap();
        let b = Mapping::new(&file, 1 << 20).unwrap();
        a.write(0x40, &[1, 2, 3]);
        let mut buf = [0; 3];
        b.read(0x40, &mut buf);
        assert_eq!(buf, [1, 2, 3]);
        let line = [9; LINE];
        a.write_masked(0x40, &line, 0b101);
        assert_eq!(&b.read_line(0x40)[..4], &[9, 2, 9, 0]);
        assert_eq!(a.fetch_or(8, 0b110), 0);
        assert_eq!(b.fetch_and_not(8, 0b010), 0b110);
        a.update(8, 0xF0, 0x50);
        assert_eq!(b.load(8), 0b100 | 0x50);

        // This process's own mappings of the file are found in its maps.
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let meta = file.metadata().unwrap();
        let found = mappings_of(&maps, meta.dev(), meta.ino());
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|&(s, e, o)| e - s == 1 << 20 && o == 0));
    }

    #[test]
    #[should_panic(expected = "outside a mapping")]
    fn accesses_are_bounds_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        file.set_len(4096).unwrap();
        let file = File::options()
            .read(true)
            .write(true)
            .open(dir.path().join("f"))
            .unwrap();
        let m = Mapping::new(&file, 4096).unwrap();
        m.write(4094, &[0; 4]);
    }
}
