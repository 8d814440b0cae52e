// SPDX-License-Identifier: GPL-2.0-or-later
//! Per-core counters of the memory system, and the table printed at exit.
//!
//! [`super::hierarchy::CoreMemory`] updates them on every access, so they
//! cost a few additions and no allocation; the plugin adds what the core
//! model does not see (test-and-set register operations).

use std::fmt;

use chip::MemoryType;

use super::hierarchy::{Access, Event, Kind, Lookup, Part};
use super::latency::{CLASSES, QUEUES, Resource};
use super::mesh::MAX_LINKS;

/// Most tiles a chip may have for [`CoreStats::mpb_bytes`].
pub const MAX_TILES: usize = 64;

/// Most memory controllers a chip may have for [`CoreStats::mc_bytes`].
pub const MAX_CONTROLLERS: usize = 8;

/// Counters of one core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CoreStats {
    /// Loads, by memory type (index as in [`MemoryType::ALL`]).
    #[serde(with = "crate::model::stats::array")]
    pub loads: [u64; 5],
    /// Stores, by memory type.
    #[serde(with = "crate::model::stats::array")]
    pub stores: [u64; 5],
    /// Lines found in L1 (an access crossing a line counts twice).
    pub l1_hits: u64,
    /// Lines looked up in L1 and not found.
    pub l1_misses: u64,
    /// Lines found in L2.
    pub l2_hits: u64,
    /// Lines looked up in L2 and not found.
    pub l2_misses: u64,
    /// Lines filled from memory.
    pub fills: u64,
    /// Whole lines written back to memory.
    pub write_backs: u64,
    /// Lines that left the caches without write-back (CL1INVMB, clean evictions).
    pub drops: u64,
    /// Stores that went to memory at once.
    pub write_throughs: u64,
    /// Write-combine buffer flushes.
    pub wcb_flushes: u64,
    /// CL1INVMB instructions.
    pub cl1invmb: u64,
    /// WBINVD instructions.
    pub wbinvd: u64,
    /// INVD instructions.
    pub invd: u64,
    /// Test-and-set register operations (reads, exchanges, writes).
    pub tsr_ops: u64,
    /// Operations this core made at the remote atomic units
    /// (`chip::RemoteAtomics`).
    #[serde(default)]
    pub rau_ops: u64,
    /// Bytes this core loaded from or stored to each tile's MPB.
    #[serde(with = "crate::model::stats::array")]
    pub mpb_bytes: [u64; MAX_TILES],
    /// Bytes this core loaded from or stored to the shared DRAM behind
    /// each memory controller.
    #[serde(with = "crate::model::stats::array")]
    pub mc_bytes: [u64; MAX_CONTROLLERS],
    /// Bytes of this core's mesh traffic each router forwarded, by tile
    /// index (`x + mesh_x * y`): every line or word that left the core for
    /// an MPB, a memory controller's port or a register block (CRB, TSR,
    /// FPGA), or came back from one, counted at each router of its XY route
    /// (`super::mesh::route`), both ends included. Data travels on the
    /// request for stores and write-backs (core to target) and on the reply
    /// for loads and fills (target to core), whose XY routes differ.
    #[serde(with = "crate::model::stats::array")]
    pub router_bytes: [u64; MAX_TILES],
    /// Cycles this core waited for each tile's MPB, busy with other
    /// accesses (modelled time).
    #[serde(with = "crate::model::stats::array")]
    pub mpb_wait: [u64; MAX_TILES],
    /// Cycles this core waited for each tile's register block.
    #[serde(with = "crate::model::stats::array")]
    pub crb_wait: [u64; MAX_TILES],
    /// Cycles this core waited for each memory controller.
    #[serde(with = "crate::model::stats::array")]
    pub mc_wait: [u64; MAX_CONTROLLERS],
    /// Cycles this core waited for each mesh link, by
    /// [`super::mesh::Link::index`] (four per router: east, west, north,
    /// south).
    #[serde(with = "crate::model::stats::array")]
    pub link_wait: [u64; MAX_LINKS],
    /// Cycles each resource that serves one request at a time was busy
    /// with this core's requests (the service times booked in its
    /// calendar, the polls of its waits included), by
    /// [`Resource::calendar`]: the resource's utilisation, summed over the
    /// cores and divided by the run's cycles.
    #[serde(with = "crate::model::stats::array")]
    pub busy: [u64; QUEUES],
    /// Modelled core cycles at exit (0 with timing off).
    pub cycles: u64,
    /// Instructions executed (counted by the plugin with or without timing).
    pub insns: u64,
    /// Modelled cycles spent waiting for other cores: halted, or reading
    /// data written later in modelled time (`crate::timing`).
    pub idle_cycles: u64,
    /// Stall cycles beyond an L1 hit, per latency class
    /// ([`super::latency::Class`]).
    #[serde(with = "crate::model::stats::array")]
    pub class_cycles: [u64; CLASSES],
    /// Accesses or operations per latency class.
    #[serde(with = "crate::model::stats::array")]
    pub class_count: [u64; CLASSES],
    /// Times the core slept because it was a quantum ahead of the slowest.
    pub quantum_sleeps: u64,
    /// Times the core blocked to order a synchronising access after the
    /// other cores' earlier ones (`crate::timing`).
    pub order_waits: u64,
    /// Polls a waiting core made in modelled time without executing them
    /// (charged to the resources they reach).
    pub modelled_polls: u64,
    /// Reads outside any poll of words written later in modelled time
    /// than the read: the unordered reads `crate::timing` names.
    pub future_reads: u64,
}

impl Default for CoreStats {
    fn default() -> Self {
        Self {
            loads: [0; 5],
            stores: [0; 5],
            l1_hits: 0,
            l1_misses: 0,
            l2_hits: 0,
            l2_misses: 0,
            fills: 0,
            write_backs: 0,
            drops: 0,
            write_throughs: 0,
            wcb_flushes: 0,
            cl1invmb: 0,
            wbinvd: 0,
            invd: 0,
            tsr_ops: 0,
            rau_ops: 0,
            mpb_bytes: [0; MAX_TILES],
            mc_bytes: [0; MAX_CONTROLLERS],
            router_bytes: [0; MAX_TILES],
            mpb_wait: [0; MAX_TILES],
            crb_wait: [0; MAX_TILES],
            mc_wait: [0; MAX_CONTROLLERS],
            link_wait: [0; MAX_LINKS],
            busy: [0; QUEUES],
            cycles: 0,
            insns: 0,
            idle_cycles: 0,
            class_cycles: [0; CLASSES],
            class_count: [0; CLASSES],
            quantum_sleeps: 0,
            order_waits: 0,
            modelled_polls: 0,
            future_reads: 0,
        }
    }
}

/// Index of `ty` in the per-type counters ([`MemoryType::ALL`]'s order).
pub(crate) fn type_index(ty: MemoryType) -> usize {
    MemoryType::ALL
        .iter()
        .position(|t| *t == ty)
        .expect("every type is in ALL")
}

impl CoreStats {
    /// Cycles waited for `resource`.
    pub fn wait(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Mpb(t) => self.mpb_wait[t],
            Resource::Crb(t) => self.crb_wait[t],
            Resource::Controller(m) => self.mc_wait[m],
            Resource::Link(l) => self.link_wait[l.index()],
        }
    }

    /// The counter of cycles waited for `resource`.
    pub fn wait_mut(&mut self, resource: Resource) -> &mut u64 {
        match resource {
            Resource::Mpb(t) => &mut self.mpb_wait[t],
            Resource::Crb(t) => &mut self.crb_wait[t],
            Resource::Controller(m) => &mut self.mc_wait[m],
            Resource::Link(l) => &mut self.link_wait[l.index()],
        }
    }

    /// Counts one load or store and the events it caused.
    pub fn record(&mut self, a: &Access) {
        self.record_parts(a.kind, a.ty, a.parts(), a.events.as_slice());
    }

    /// Counts one load or store (`kind`) to a page of type `ty`, which
    /// touched `parts` and caused `events`.
    #[inline]
    pub(super) fn record_parts(
        &mut self,
        kind: Kind,
        ty: MemoryType,
        parts: &[Part],
        events: &[Event],
    ) {
        let i = type_index(ty);
        match kind {
            Kind::Load => self.loads[i] += 1,
            Kind::Store => self.stores[i] += 1,
        }
        for p in parts {
            match p.l1 {
                Lookup::Hit => self.l1_hits += 1,
                Lookup::Miss => self.l1_misses += 1,
                Lookup::Skipped => {}
            }
            match p.l2 {
                Lookup::Hit => self.l2_hits += 1,
                Lookup::Miss => self.l2_misses += 1,
                Lookup::Skipped => {}
            }
        }
        for e in events {
            self.count_event(e);
        }
    }

    /// Counts one event.
    pub fn count_event(&mut self, e: &Event) {
        match e {
            Event::Fill { .. } => self.fills += 1,
            Event::WriteBack { .. } => self.write_backs += 1,
            Event::Drop { .. } => self.drops += 1,
            Event::WriteThrough { .. } => self.write_throughs += 1,
            Event::WcbFlush(_) => self.wcb_flushes += 1,
        }
    }

    /// Loads plus stores of all types.
    pub fn accesses(&self) -> u64 {
        self.loads.iter().chain(&self.stores).sum()
    }
}

/// The counters of several cores as a table, one row per core (the row
/// number is the index into the slice).
#[derive(Debug, Clone, Copy)]
pub struct Table<'a>(pub &'a [CoreStats]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const TYPES: [&str; 5] = ["DCM", "NCM", "NCM+WCB", "MPBT-WB", "MPBT-WT"];
        write!(f, "{:>4}", "core")?;
        for t in TYPES {
            // Arguments ignore widths, so the headers are formatted first.
            write!(f, " {:>10} {:>10}", format!("{t} ld"), format!("{t} st"))?;
        }
        let rest = [
            "L1 hit",
            "L1 miss",
            "L2 hit",
            "L2 miss",
            "fill",
            "writeback",
            "drop",
            "wr-thru",
            "WCB flush",
            "CL1INVMB",
            "WBINVD",
            "INVD",
            "TSR ops",
        ];
        for h in rest {
            write!(f, " {h:>10}")?;
        }
        writeln!(f)?;
        for (core, s) in self.0.iter().enumerate() {
            write!(f, "{core:>4}")?;
            for (l, st) in s.loads.iter().zip(&s.stores) {
                write!(f, " {l:>10} {st:>10}")?;
            }
            let values = [
                s.l1_hits,
                s.l1_misses,
                s.l2_hits,
                s.l2_misses,
                s.fills,
                s.write_backs,
                s.drops,
                s.write_throughs,
                s.wcb_flushes,
                s.cl1invmb,
                s.wbinvd,
                s.invd,
                s.tsr_ops,
            ];
            for v in values {
                write!(f, " {v:>10}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hierarchy::{Config, CoreMemory};

    #[test]
    fn counters_follow_the_accesses() {
        let mut m = CoreMemory::new(Config::SCC).unwrap();
        m.load(0x100, 4, MemoryType::Dcm); // L1 miss, L2 miss, fill
        m.load(0x104, 4, MemoryType::Dcm); // L1 hit
        m.load(0x21E, 4, MemoryType::MpbtWb); // two lines: two L1 misses, two fills
        m.store(0x300, 4, MemoryType::NcmWcb, false);
        m.store(0x320, 4, MemoryType::NcmWcb, false); // flushes the first line
        m.store(0x400, 1, MemoryType::Ncm, false);
        m.cl1invmb(|_| {});
        m.stats_mut().tsr_ops += 2;
        let s = *m.stats();
        assert_eq!(s.loads, [2, 0, 0, 1, 0]);
        assert_eq!(s.stores, [0, 1, 2, 0, 0]);
        assert_eq!(s.accesses(), 6);
        assert_eq!((s.l1_hits, s.l1_misses), (1, 6));
        assert_eq!((s.l2_hits, s.l2_misses), (0, 1));
        assert_eq!(s.fills, 3);
        assert_eq!(s.wcb_flushes, 1);
        assert_eq!(s.write_throughs, 1);
        assert_eq!((s.cl1invmb, s.drops), (1, 2));
        assert_eq!(s.tsr_ops, 2);

        let table = Table(&[s, CoreStats::default()]).to_string();
        let lines: Vec<_> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("core"), "{table}");
        assert!(lines[0].contains("MPBT-WT st") && lines[0].contains("CL1INVMB"));
        let row: Vec<u64> = lines[1]
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(row[0], 0);
        assert_eq!(&row[1..3], &[2, 0]); // DCM loads, stores
        assert_eq!(*row.last().unwrap(), 2); // TSR ops
        assert_eq!(lines[0].len(), lines[1].len(), "columns line up");
    }
}

/// Arrays of counters as JSON lists, whatever their length (serde's own
/// arrays stop at 32 elements); a list of another length is refused.
pub(crate) mod array {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(crate) fn serialize<S: Serializer, const N: usize>(
        values: &[u64; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(values)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u64; N], D::Error> {
        let values = Vec::<u64>::deserialize(d)?;
        let len = values.len();
        values
            .try_into()
            .map_err(|_| D::Error::invalid_length(len, &format!("{N} values").as_str()))
    }
}

#[cfg(test)]
mod chip_tests {
    use super::{MAX_CONTROLLERS, MAX_TILES};

    #[test]
    fn every_chip_fits_the_per_tile_and_per_controller_tables() {
        for chip in chip::CHIPS {
            assert!(chip.tiles() as usize <= MAX_TILES, "{}", chip.name);
            assert!(
                chip.memory_controllers.len() <= MAX_CONTROLLERS,
                "{}",
                chip.name
            );
        }
    }
}
