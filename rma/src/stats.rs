// SPDX-License-Identifier: MIT OR Apache-2.0
//! What one core did with one window.
#![forbid(unsafe_code)]

/// Counts of one window on one core, since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Put calls.
    pub puts: u64,
    /// Get calls.
    pub gets: u64,
    /// Bytes written into target windows.
    pub bytes_put: u64,
    /// Bytes read from target windows.
    pub bytes_got: u64,
    /// Fences.
    pub fences: u64,
    /// Posts.
    pub posts: u64,
    /// Starts.
    pub starts: u64,
    /// Completes.
    pub completes: u64,
    /// Waits, and tests that found the exposure epoch over.
    pub waits: u64,
    /// Uncached reads of synchronisation data that found the condition
    /// not yet true (match bits, completion counter).
    pub polls: u64,
    /// Clock cycles spent waiting for other cores (match bits, completion
    /// counter, TSRs and the fence barrier).
    pub wait_cycles: u64,
    /// Write-combine buffer flushes issued for this window.
    pub flushes: u64,
    /// CL1INVMB issued for this window.
    pub invalidations: u64,
    /// L1 write-backs (WBINVD) issued for this window.
    pub write_backs: u64,
    /// LUT entries mapped for this window's accesses.
    pub mappings: u64,
    /// Mappings evicted to make room for this window's accesses.
    pub evictions: u64,
}
