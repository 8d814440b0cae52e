// SPDX-License-Identifier: MIT OR Apache-2.0
//! A distributed hash table over one window: the example application of
//! the passive-target reference (Christgau & Schnor, 3.5). Reads take a
//! shared lock on the owning rank and get; writes take an exclusive lock
//! and put; the hash names the owning rank and the slot there.
//!
//! # Layout
//! Every rank's part of the window holds `slots_per_rank` entries of
//! [`Dht::entry_bytes`] bytes each: the key word (a `u64`, little-endian,
//! [`KEY_BYTES`]) followed by the value's `value_bytes` bytes, the entry
//! padded to [`ENTRY_ALIGN`] bytes (a cache line of the SCC) so that no
//! two entries share a line. Key 0 marks a free slot, so keys are nonzero;
//! [`Dht::new`] clears every key word of its own part before the table is
//! used. Entries are never removed.
//!
//! # Hashing
//! [`hash`] mixes the key with the 64-bit finaliser of SplitMix64;
//! [`locate`] takes the owning rank from the upper 32 bits and the home
//! slot from the lower 32, each by multiply-and-shift (`(x * n) >> 32`,
//! uniform over `0..n` without a division). Collisions probe linearly
//! within the owner's part, wrapping at its end: a key never moves to
//! another rank, so every operation locks exactly one rank. Without
//! deletions a key lies before the first free slot of its probe sequence,
//! which ends lookups of absent keys there.
//!
//! # Locking
//! [`Dht::insert`] takes an exclusive lock on the owner (`MPI_Win_lock`
//! with `MPI_LOCK_EXCLUSIVE`), reads key words from the home slot on until
//! it finds the key (an update) or a free slot (a new entry), puts the
//! value and, for a new entry, then the key word, and unlocks. A part with
//! neither gives `Err(NoMemory)` after unlocking. [`Dht::lookup`] takes a
//! shared lock, reads key words the same way, gets the value of the
//! matching entry, and unlocks. Readers of one rank proceed together;
//! a writer excludes them, so a reader never sees an entry half written:
//! the lock guarantees that, and the order (value first, key word last)
//! would keep even a lock-free reader from seeing a new key without its
//! value. The lock scheme is the window's
//! ([`WindowOptions::lock_scheme`](crate::WindowOptions)); the table takes
//! whatever scheme it is given.
//!
//! # Coherence
//! The SCC's caches are not coherent, so the locks carry the coherence
//! actions ([`crate::passive`]): a lock acquires (drops the L1 lines of the
//! window's mappings after the lock is held, so probes and gets read what
//! the previous writer left in memory, not a line cached before) and an
//! unlock releases (flushes the write-combine buffer before the lock is
//! given up, so the next holder finds the entry in memory). Which actions
//! run is up to the window's memory types: none for NCM.
//!
//! # Statistics
//! [`DhtStats`]: inserts (and how many of them replaced a value), lookups
//! (and how many found their key), key words read while probing, inserts
//! refused for a full part, and the cycles of the writes' put and unlock
//! ([`Clock`](crate::hal::Clock) cycles: the modelled SCC clock on the emulator), the metric
//! of the reference's writer benchmark.
#![forbid(unsafe_code)]

use alloc::vec;
use alloc::vec::Vec;

use crate::RmaError;
use crate::datatype::Vector;
use crate::epoch::{Assert, LockType};
use crate::hal::RmaHal;
use crate::window::{Rma, Window, WindowOptions};

/// Bytes of the key word that starts each entry.
pub const KEY_BYTES: u32 = 8;

/// Entries are padded to a multiple of this many bytes: an SCC cache line.
pub const ENTRY_ALIGN: u32 = 32;

/// The key word of a free slot.
pub const FREE: u64 = 0;

/// SplitMix64's finaliser: every bit of `key` reaches every bit of the
/// result.
pub const fn hash(key: u64) -> u64 {
    let mut x = key;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `(rank, home slot)` of `key` in a table of `ranks` ranks with `slots`
/// slots each: the upper half of [`hash`] picks the rank, the lower half
/// the slot, each as `(half * n) >> 32`.
pub const fn locate(key: u64, ranks: u32, slots: u32) -> (u32, u32) {
    let h = hash(key);
    let rank = ((h >> 32) * ranks as u64) >> 32;
    let slot = ((h & 0xFFFF_FFFF) * slots as u64) >> 32;
    (rank as u32, slot as u32)
}

/// How a table is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DhtConfig {
    /// Entries in each rank's part.
    pub slots_per_rank: u32,
    /// Bytes of every value.
    pub value_bytes: u32,
    /// The window's options: memory types, coherence and lock scheme
    /// (the displacement unit is always 1 byte).
    pub options: WindowOptions,
}

impl DhtConfig {
    /// `slots_per_rank` entries of `value_bytes`-byte values per rank, on
    /// a window with the default options.
    pub fn new(slots_per_rank: u32, value_bytes: u32) -> Self {
        Self {
            slots_per_rank,
            value_bytes,
            options: WindowOptions::new(),
        }
    }

    /// Sets the window's options.
    pub fn options(self, options: WindowOptions) -> Self {
        Self { options, ..self }
    }

    /// Sets how the window's locks are taken.
    pub fn lock_scheme(self, scheme: crate::LockScheme) -> Self {
        self.options(self.options.lock_scheme(scheme))
    }
}

/// What this core did with a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DhtStats {
    /// Successful inserts.
    pub inserts: u64,
    /// Of those, the ones that replaced the value of a key already there.
    pub updates: u64,
    /// Lookups.
    pub lookups: u64,
    /// Of those, the ones that found their key.
    pub found: u64,
    /// Key words read while probing, by inserts and lookups.
    pub probes: u64,
    /// Inserts refused because the owner's part was full.
    pub full: u64,
    /// Cycles of the inserts' puts and unlocks, summed.
    pub write_cycles: u64,
    /// Cycles of the last insert's puts and unlock.
    pub last_write_cycles: u64,
}

/// A distributed hash table: every rank's part of one byte window.
#[derive(Debug)]
pub struct Dht {
    window: Window<u8>,
    ranks: u32,
    slots: u32,
    value_bytes: u32,
    stride: u32,
    stats: DhtStats,
}

/// Where a probe sequence ended.
enum Probe {
    /// The key's slot.
    Key(u32),
    /// The first free slot.
    Free(u32),
    /// Every slot holds another key.
    Full,
}

impl Dht {
    /// Makes a table on every rank, collectively: allocates the window,
    /// clears the key words of this rank's part under an exclusive lock
    /// of its own, and meets the others in a barrier.
    ///
    /// Return values: `Err(BadLayout)` for 0 slots or a part larger than
    /// 4 GiB; as [`Rma::allocate`] otherwise.
    pub fn new<H: RmaHal>(rma: &mut Rma<'_, H>, config: DhtConfig) -> Result<Self, RmaError> {
        let stride = (KEY_BYTES + config.value_bytes).next_multiple_of(ENTRY_ALIGN);
        let bytes = u64::from(stride) * u64::from(config.slots_per_rank);
        if config.slots_per_rank == 0 || bytes > u64::from(u32::MAX) {
            return Err(RmaError::BadLayout {
                what: "dht slots per rank",
                problem: "must be at least 1 and fit 4 GiB per rank",
            });
        }
        let options = config.options.disp_unit(1);
        let window = rma.allocate::<u8>(bytes as u32, options)?;
        let me = rma.rank();
        let keys = vec![0u8; (KEY_BYTES * config.slots_per_rank) as usize];
        rma.lock(window, LockType::Exclusive, me, Assert::NONE)?;
        let cleared = rma.put_vector(
            window,
            me,
            0,
            &keys,
            Vector::contiguous(keys.len() as u32),
            Vector::new(config.slots_per_rank, KEY_BYTES, stride),
        );
        let unlocked = rma.unlock(window, me);
        cleared.and(unlocked)?;
        rma.comm().barrier();
        Ok(Self {
            window,
            ranks: rma.size(),
            slots: config.slots_per_rank,
            value_bytes: config.value_bytes,
            stride,
            stats: DhtStats::default(),
        })
    }

    /// Frees the table's window, collectively.
    ///
    /// Return values: as [`Rma::free`].
    pub fn free<H: RmaHal>(self, rma: &mut Rma<'_, H>) -> Result<(), RmaError> {
        rma.free(self.window)
    }

    /// `(rank, home slot)` of `key` ([`locate`] with this table's sizes).
    pub fn locate(&self, key: u64) -> (u32, u32) {
        locate(key, self.ranks, self.slots)
    }

    /// The window the table lives in.
    pub fn window(&self) -> Window<u8> {
        self.window
    }

    /// Entries per rank.
    pub fn slots_per_rank(&self) -> u32 {
        self.slots
    }

    /// Bytes of every value.
    pub fn value_bytes(&self) -> u32 {
        self.value_bytes
    }

    /// Bytes from one entry to the next: key word and value, padded to
    /// [`ENTRY_ALIGN`].
    pub fn entry_bytes(&self) -> u32 {
        self.stride
    }

    /// What this core did with the table.
    pub fn stats(&self) -> DhtStats {
        self.stats
    }

    fn check(&self, key: u64, len: usize, what: &'static str) -> Result<(), RmaError> {
        if key == FREE {
            return Err(RmaError::BadLayout {
                what: "dht key",
                problem: "0 marks a free slot",
            });
        }
        if len != self.value_bytes as usize {
            return Err(RmaError::BufferLength {
                what,
                len,
                expected: self.value_bytes as usize,
            });
        }
        Ok(())
    }

    /// Reads key words of `rank`'s part from `home` on until `key` or a
    /// free slot turns up. The caller holds `rank` locked.
    fn probe<H: RmaHal>(
        &mut self,
        rma: &mut Rma<'_, H>,
        rank: u32,
        home: u32,
        key: u64,
    ) -> Result<Probe, RmaError> {
        let mut word = [0u8; KEY_BYTES as usize];
        for i in 0..self.slots {
            let slot = (home + i) % self.slots;
            rma.get(self.window, rank, slot * self.stride, &mut word)?;
            self.stats.probes += 1;
            match u64::from_le_bytes(word) {
                k if k == key => return Ok(Probe::Key(slot)),
                FREE => return Ok(Probe::Free(slot)),
                _ => {}
            }
        }
        Ok(Probe::Full)
    }

    /// Stores `value` under `key` (a new entry, or a new value for a key
    /// already there) in the owning rank's part, under an exclusive lock
    /// of that rank.
    ///
    /// Return values: `Err(BadLayout)` for key 0; `Err(BufferLength)`
    /// unless `value` has `value_bytes` bytes; `Err(NoMemory)` if the
    /// owner's part holds neither the key nor a free slot; any error of
    /// lock, get, put or unlock (the lock is given up on the way out).
    pub fn insert<H: RmaHal>(
        &mut self,
        rma: &mut Rma<'_, H>,
        key: u64,
        value: &[u8],
    ) -> Result<(), RmaError> {
        self.insert_holding(rma, key, value, |_| ())
    }

    /// As [`Dht::insert`], calling `holding` once the exclusive lock is
    /// held and the key's slot looked up, before the value is put: for benchmarks
    /// that let other cores contend for the lock while the writer holds it
    /// (the reference's writer test). The write's cycles
    /// ([`DhtStats::last_write_cycles`]) start after `holding` returns.
    ///
    /// Return values: as [`Dht::insert`] (`holding` is not called when the
    /// lock or the probe fails).
    pub fn insert_holding<H: RmaHal>(
        &mut self,
        rma: &mut Rma<'_, H>,
        key: u64,
        value: &[u8],
        holding: impl FnOnce(&mut Rma<'_, H>),
    ) -> Result<(), RmaError> {
        self.check(key, value.len(), "dht insert value")?;
        let (rank, home) = self.locate(key);
        rma.lock(self.window, LockType::Exclusive, rank, Assert::NONE)?;
        let probe = self.probe(rma, rank, home, key);
        if probe.is_ok() {
            holding(rma);
        }
        let start = rma.hal().cycles();
        let written = probe.and_then(|probe| match probe {
            Probe::Key(slot) => {
                rma.put(self.window, rank, slot * self.stride + KEY_BYTES, value)?;
                Ok(true)
            }
            Probe::Free(slot) => {
                let at = slot * self.stride;
                rma.put(self.window, rank, at + KEY_BYTES, value)?;
                rma.put(self.window, rank, at, &key.to_le_bytes())?;
                Ok(false)
            }
            Probe::Full => Err(RmaError::NoMemory {
                what: "dht slots in the owner's part",
                requested: 1,
                available: 0,
            }),
        });
        let unlocked = rma.unlock(self.window, rank);
        let cycles = rma.hal().cycles().saturating_sub(start);
        match written {
            Ok(update) => {
                unlocked?;
                self.stats.inserts += 1;
                self.stats.updates += u64::from(update);
                self.stats.write_cycles += cycles;
                self.stats.last_write_cycles = cycles;
                Ok(())
            }
            Err(e) => {
                if matches!(e, RmaError::NoMemory { .. }) {
                    self.stats.full += 1;
                }
                Err(e)
            }
        }
    }

    /// Reads the value stored under `key` into `buf`, under a shared lock
    /// of the owning rank: `Ok(true)` if the key is there, `Ok(false)`
    /// (and `buf` untouched) if not.
    ///
    /// Return values: `Err(BadLayout)` for key 0; `Err(BufferLength)`
    /// unless `buf` has `value_bytes` bytes; any error of lock, get or
    /// unlock (the lock is given up on the way out).
    pub fn lookup<H: RmaHal>(
        &mut self,
        rma: &mut Rma<'_, H>,
        key: u64,
        buf: &mut [u8],
    ) -> Result<bool, RmaError> {
        self.check(key, buf.len(), "dht lookup buffer")?;
        let (rank, home) = self.locate(key);
        rma.lock(self.window, LockType::Shared, rank, Assert::NONE)?;
        let found = self
            .probe(rma, rank, home, key)
            .and_then(|probe| match probe {
                Probe::Key(slot) => {
                    rma.get(self.window, rank, slot * self.stride + KEY_BYTES, buf)?;
                    Ok(true)
                }
                Probe::Free(_) | Probe::Full => Ok(false),
            });
        let unlocked = rma.unlock(self.window, rank);
        let found = found?;
        unlocked?;
        self.stats.lookups += 1;
        self.stats.found += u64::from(found);
        Ok(found)
    }

    /// The first `count` keys from `from` on (0 skipped) that `rank`
    /// owns, in increasing order: for programs that want entries on one
    /// rank. Empty for a rank outside the table.
    pub fn keys_on(&self, rank: u32, from: u64, count: usize) -> Vec<u64> {
        if rank >= self.ranks {
            return Vec::new();
        }
        (from.max(1)..)
            .filter(|&k| self.locate(k).0 == rank)
            .take(count)
            .collect()
    }
}

/// Fills `value` with bytes that name `key` and `version`: the version
/// in the first four bytes (little-endian, as many as fit), then bytes
/// derived from both. Tests and benchmarks store such values so that a
/// reader can tell a whole value from a torn or foreign one
/// ([`value_version`]).
pub fn fill_value(key: u64, version: u32, value: &mut [u8]) {
    let v = version.to_le_bytes();
    let head = value.len().min(v.len());
    value[..head].copy_from_slice(&v[..head]);
    let mut pattern = Pattern::new(key, version);
    for (i, b) in value.iter_mut().enumerate().skip(head) {
        *b = pattern.byte(i);
    }
}

/// The version of a value [`fill_value`] made for `key`, if every byte is
/// the one it gave; `None` for a torn value or another key's.
pub fn value_version(key: u64, value: &[u8]) -> Option<u32> {
    let mut v = [0u8; 4];
    let head = value.len().min(v.len());
    v[..head].copy_from_slice(&value[..head]);
    let version = u32::from_le_bytes(v);
    let mut pattern = Pattern::new(key, version);
    value
        .iter()
        .enumerate()
        .skip(head)
        .all(|(i, &b)| b == pattern.byte(i))
        .then_some(version)
}

/// The bytes of [`fill_value`]: byte `i` is byte `i % 8` of a hash of
/// key, version and `i / 8`, one hash per 8 bytes.
struct Pattern {
    seed: u64,
    word: u64,
    at: Option<usize>,
}

impl Pattern {
    fn new(key: u64, version: u32) -> Self {
        Self {
            seed: key ^ (u64::from(version) << 40),
            word: 0,
            at: None,
        }
    }

    fn byte(&mut self, i: usize) -> u8 {
        let chunk = i / 8;
        if self.at != Some(chunk) {
            self.word = hash(self.seed ^ (chunk as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            self.at = Some(chunk);
        }
        (self.word >> (i % 8 * 8)) as u8
    }
}

#[cfg(test)]
mod tests;
