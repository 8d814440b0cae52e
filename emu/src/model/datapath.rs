// SPDX-License-Identifier: GPL-2.0-or-later
//! The data path, tested: the tag models plus an executor that applies
//! their events to byte arrays exactly as the plugin will (global memory G,
//! one view per core), against a plain data-carrying reference of the same
//! semantics. Also the rule-by-rule tests of [`super::hierarchy`], which
//! need data to show what a core reads.

use chip::MemoryType::{self, Dcm, MpbtWb, MpbtWt, Ncm, NcmWcb};
use proptest::prelude::*;

use super::cache::{Geometry, LineState, Replacement};
use super::hierarchy::{Access, Config, CoreMemory, Event, InCaches, Kind, Lookup, Outcome};

const LINE: usize = 32;

/// The executor: G and the views, driven by the models' events. Addresses
/// are core-physical and map to G one to one (every core's LUT the same).
struct Machine {
    cores: Vec<CoreMemory>,
    views: Vec<Vec<u8>>,
    g: Vec<u8>,
}

impl Machine {
    fn new(cores: usize, bytes: usize, config: Config) -> Self {
        let g: Vec<u8> = (0..bytes).map(|i| (i * 7 + 3) as u8).collect();
        Self {
            cores: (0..cores)
                .map(|_| CoreMemory::new(config).unwrap())
                .collect(),
            views: vec![g.clone(); cores],
            g,
        }
    }

    /// The guest's load: it reads the view, then the model runs.
    fn load(&mut self, c: usize, addr: u32, len: u32, ty: MemoryType) -> (Vec<u8>, Access) {
        let a = addr as usize;
        let seen = self.views[c][a..a + len as usize].to_vec();
        let access = self.cores[c].load(addr, len, ty);
        self.apply_all(c, &access.events);
        (seen, access)
    }

    /// The guest's store: it writes the view, then the model runs.
    fn store(&mut self, c: usize, addr: u32, bytes: &[u8], ty: MemoryType, pwt: bool) -> Access {
        let a = addr as usize;
        self.views[c][a..a + bytes.len()].copy_from_slice(bytes);
        let access = self.cores[c].store(addr, bytes.len() as u32, ty, pwt);
        self.apply_all(c, &access.events);
        access
    }

    fn cl1invmb(&mut self, c: usize) {
        let mut ev = Vec::new();
        self.cores[c].cl1invmb(|e| ev.push(e));
        self.apply_all(c, &ev);
    }

    fn wbinvd(&mut self, c: usize) {
        let mut ev = Vec::new();
        self.cores[c].wbinvd(|e| ev.push(e));
        self.apply_all(c, &ev);
    }

    fn invd(&mut self, c: usize) {
        let mut ev = Vec::new();
        self.cores[c].invd(|e| ev.push(e));
        self.apply_all(c, &ev);
    }

    fn flush_wcb(&mut self, c: usize) {
        let ev: Vec<_> = self.cores[c].flush_wcb().into_iter().collect();
        self.apply_all(c, &ev);
    }

    fn apply_all(&mut self, c: usize, events: &[Event]) {
        for e in events {
            self.apply(c, *e);
        }
    }

    /// One event, as the plugin carries it out (hierarchy module docs).
    fn apply(&mut self, c: usize, e: Event) {
        match e {
            Event::Fill { line } => {
                // Nothing to copy: by the invariant V_c equals G here, the
                // WCB's bytes of the line having been flushed just before.
                for i in 0..LINE {
                    let a = line as usize + i;
                    assert!(
                        self.views[c][a] == self.g[a],
                        "core {c}: filled line {line:#x} differs from memory at {a:#x}"
                    );
                }
            }
            Event::WriteBack { line } => self.publish(c, line, u32::MAX),
            Event::Drop { line, keep } => {
                for i in (0..LINE).filter(|i| keep & (1 << i) == 0) {
                    let a = line as usize + i;
                    self.views[c][a] = self.g[a];
                }
            }
            Event::WriteThrough { addr, len } => {
                let line = addr & !31;
                let mask = (((1u64 << len) - 1) << (addr - line)) as u32;
                self.publish(c, line, mask);
            }
            Event::WcbFlush(f) => self.publish(c, f.line, f.mask),
        }
    }

    /// Bytes `mask` of `line` go from core `c`'s view to G and into every
    /// other view whose core does not cache the line (minus its WCB bytes).
    fn publish(&mut self, c: usize, line: u32, mask: u32) {
        for i in (0..LINE).filter(|i| mask & (1 << i) != 0) {
            let a = line as usize + i;
            self.g[a] = self.views[c][a];
        }
        for d in (0..self.cores.len()).filter(|&d| d != c) {
            if self.cores[d].holds(line) {
                continue;
            }
            let keep = self.cores[d].wcb_mask(line);
            for i in (0..LINE).filter(|i| mask & !keep & (1 << i) != 0) {
                let a = line as usize + i;
                self.views[d][a] = self.g[a];
            }
        }
    }

    /// DESIGN.md's invariant: a line a core does not cache equals G in its
    /// view, except the bytes its WCB holds.
    fn check_invariant(&self) -> Result<(), String> {
        for (c, view) in self.views.iter().enumerate() {
            for line in (0..self.g.len()).step_by(LINE) {
                if self.cores[c].holds(line as u32) {
                    continue;
                }
                let wcb = self.cores[c].wcb_mask(line as u32);
                for i in (0..LINE).filter(|i| wcb & (1 << i) == 0) {
                    if view[line + i] != self.g[line + i] {
                        return Err(format!(
                            "core {c}: uncached byte {:#x} is {} in the view, {} in memory",
                            line + i,
                            view[line + i],
                            self.g[line + i]
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The reference: every cache level and the WCB carry their own bytes;
/// written as plainly as possible, sharing no code with the models.
mod reference {
    use super::*;

    #[derive(Clone)]
    pub struct Line {
        pub line: usize,
        pub data: [u8; LINE],
        pub dirty: bool,
        pub mpbt: bool,
    }

    /// Per set, the lines youngest first.
    pub struct Level {
        sets: Vec<Vec<Line>>,
        assoc: usize,
        lru: bool,
    }

    impl Level {
        pub fn new(g: Geometry, r: Replacement) -> Self {
            let sets = g.size / g.assoc / LINE;
            Self {
                sets: vec![Vec::new(); sets],
                assoc: g.assoc,
                lru: r == Replacement::Lru,
            }
        }

        fn set(&mut self, line: usize) -> &mut Vec<Line> {
            let n = self.sets.len();
            &mut self.sets[(line / LINE) % n]
        }

        /// A use: under LRU the line becomes the youngest.
        pub fn touch(&mut self, line: usize) -> Option<&mut Line> {
            let lru = self.lru;
            let set = self.set(line);
            let i = set.iter().position(|l| l.line == line)?;
            if lru {
                let l = set.remove(i);
                set.insert(0, l);
                return Some(&mut set[0]);
            }
            Some(&mut set[i])
        }

        pub fn get(&mut self, line: usize) -> Option<&mut Line> {
            self.set(line).iter_mut().find(|l| l.line == line)
        }

        pub fn insert(&mut self, l: Line) -> Option<Line> {
            let assoc = self.assoc;
            let set = self.set(l.line);
            let victim = if set.len() == assoc { set.pop() } else { None };
            set.insert(0, l);
            victim
        }

        pub fn remove(&mut self, line: usize) -> Option<Line> {
            let set = self.set(line);
            let i = set.iter().position(|l| l.line == line)?;
            Some(set.remove(i))
        }

        /// CL1INVMB: MPBT lines go, the others keep their order.
        pub fn drop_mpbt(&mut self) {
            for set in &mut self.sets {
                set.retain(|l| !l.mpbt);
            }
        }

        pub fn take_all(&mut self) -> Vec<Line> {
            self.sets.iter_mut().flat_map(std::mem::take).collect()
        }
    }

    pub struct Core {
        pub l1: Level,
        pub l2: Level,
        /// The buffered line and its written bytes.
        pub wcb: Option<(usize, [Option<u8>; LINE])>,
        pub wt_uncached: bool,
    }

    pub struct Machine {
        pub cores: Vec<Core>,
        pub g: Vec<u8>,
    }

    impl Machine {
        pub fn new(cores: usize, bytes: usize, config: Config) -> Self {
            Self {
                cores: (0..cores)
                    .map(|_| Core {
                        l1: Level::new(config.l1, config.l1_replacement),
                        l2: Level::new(config.l2, config.l2_replacement),
                        wcb: None,
                        wt_uncached: config.mpbt_wt_reads_uncached,
                    })
                    .collect(),
                g: (0..bytes).map(|i| (i * 7 + 3) as u8).collect(),
            }
        }

        fn flush_wcb_of(core: &mut Core, g: &mut [u8]) {
            if let Some((line, bytes)) = core.wcb.take() {
                for (i, b) in bytes.iter().enumerate() {
                    if let Some(b) = b {
                        g[line + i] = *b;
                    }
                }
            }
        }

        pub fn flush_wcb(&mut self, c: usize) {
            Self::flush_wcb_of(&mut self.cores[c], &mut self.g);
        }

        /// A line leaving L1: DCM lines into L2, MPBT lines to memory if modified.
        fn l1_victim(core: &mut Core, g: &mut [u8], v: Line) {
            if !v.mpbt
                && let Some(l2) = core.l2.get(v.line)
            {
                if v.dirty {
                    l2.data = v.data;
                    l2.dirty = true;
                }
            } else if v.dirty {
                g[v.line..v.line + LINE].copy_from_slice(&v.data);
            }
        }

        pub fn load(&mut self, c: usize, addr: usize, len: usize, ty: MemoryType) -> Vec<u8> {
            let mut out = Vec::new();
            let mut a = addr;
            while a < addr + len {
                let line = a / LINE * LINE;
                let end = (addr + len).min(line + LINE);
                let data = self.load_line(c, line, ty);
                out.extend_from_slice(&data[a - line..end - line]);
                a = end;
            }
            out
        }

        fn load_line(&mut self, c: usize, line: usize, ty: MemoryType) -> [u8; LINE] {
            let g = &mut self.g;
            let core = &mut self.cores[c];
            let caches_l1 = match ty {
                Dcm | MpbtWb => true,
                MpbtWt => !core.wt_uncached,
                Ncm | NcmWcb => false,
            };
            if let Some(l) = core.l1.touch(line) {
                return l.data;
            }
            if let Some(l) = core.l2.touch(line) {
                let data = l.data;
                if caches_l1 {
                    let fresh = Line {
                        line,
                        data,
                        dirty: false,
                        mpbt: false,
                    };
                    if let Some(v) = core.l1.insert(fresh) {
                        Self::l1_victim(core, g, v);
                    }
                }
                return data;
            }
            if core.wcb.as_ref().is_some_and(|w| w.0 == line) {
                Self::flush_wcb_of(core, g);
            }
            let data: [u8; LINE] = g[line..line + LINE].try_into().unwrap();
            if ty == Dcm {
                let fresh = Line {
                    line,
                    data,
                    dirty: false,
                    mpbt: false,
                };
                if let Some(v2) = core.l2.insert(fresh) {
                    let newest = match core.l1.remove(v2.line) {
                        Some(v1) if v1.dirty => Some(v1.data),
                        _ if v2.dirty => Some(v2.data),
                        _ => None,
                    };
                    if let Some(d) = newest {
                        g[v2.line..v2.line + LINE].copy_from_slice(&d);
                    }
                }
            }
            if caches_l1 {
                let fresh = Line {
                    line,
                    data,
                    dirty: false,
                    mpbt: ty != Dcm,
                };
                if let Some(v) = core.l1.insert(fresh) {
                    Self::l1_victim(core, g, v);
                }
            }
            data
        }

        pub fn store(&mut self, c: usize, addr: usize, bytes: &[u8], ty: MemoryType, pwt: bool) {
            let mut a = addr;
            let end = addr + bytes.len();
            while a < end {
                let line = a / LINE * LINE;
                let part_end = end.min(line + LINE);
                self.store_line(
                    c,
                    line,
                    a - line,
                    &bytes[a - addr..part_end - addr],
                    ty,
                    pwt,
                );
                a = part_end;
            }
        }

        fn store_line(
            &mut self,
            c: usize,
            line: usize,
            off: usize,
            bytes: &[u8],
            ty: MemoryType,
            pwt: bool,
        ) {
            let g = &mut self.g;
            let core = &mut self.cores[c];
            let write = |data: &mut [u8]| data[off..off + bytes.len()].copy_from_slice(bytes);
            let l1_hit = match core.l1.touch(line) {
                Some(l) => {
                    write(&mut l.data);
                    if (ty == Dcm && !pwt) || ty == MpbtWb {
                        l.dirty = true;
                    }
                    true
                }
                None => false,
            };
            match ty {
                Dcm if l1_hit && !pwt => {}
                Dcm => match core.l2.touch(line) {
                    Some(l) => {
                        write(&mut l.data);
                        l.dirty = true;
                    }
                    None => write(&mut g[line..line + LINE]),
                },
                Ncm => write(&mut g[line..line + LINE]),
                MpbtWb if l1_hit => {}
                NcmWcb | MpbtWb | MpbtWt => {
                    if core.wcb.as_ref().is_some_and(|w| w.0 != line) {
                        Self::flush_wcb_of(core, g);
                    }
                    let w = core.wcb.get_or_insert((line, [None; LINE]));
                    for (i, b) in bytes.iter().enumerate() {
                        w.1[off + i] = Some(*b);
                    }
                }
            }
        }

        pub fn cl1invmb(&mut self, c: usize) {
            self.cores[c].l1.drop_mpbt();
        }

        pub fn wbinvd(&mut self, c: usize) {
            let core = &mut self.cores[c];
            for l in core.l1.take_all() {
                Self::l1_victim(core, &mut self.g, l);
            }
        }

        pub fn invd(&mut self, c: usize) {
            let core = &mut self.cores[c];
            for l in core.l1.take_all() {
                if !l.mpbt {
                    Self::l1_victim(core, &mut self.g, l);
                }
            }
        }
    }
}

// ---- rule-by-rule tests -------------------------------------------------

/// Caches small enough that a few lines evict each other: L1 holds two
/// lines (two sets, direct-mapped), L2 four (two sets, 2-way). Lines 0x40
/// apart share a set at both levels.
const SMALL: Config = Config {
    l1: Geometry {
        size: 64,
        assoc: 1,
        line: 32,
    },
    l1_replacement: Replacement::Lru,
    l2: Geometry {
        size: 128,
        assoc: 2,
        line: 32,
    },
    l2_replacement: Replacement::Lru,
    mpbt_wt_reads_uncached: false,
};

fn machine(config: Config) -> Machine {
    Machine::new(2, 1024, config)
}

fn read(m: &mut Machine, c: usize, addr: u32, ty: MemoryType) -> u32 {
    let (b, _) = m.load(c, addr, 4, ty);
    u32::from_le_bytes(b.try_into().unwrap())
}

fn write(m: &mut Machine, c: usize, addr: u32, v: u32, ty: MemoryType) -> Access {
    m.store(c, addr, &v.to_le_bytes(), ty, false)
}

fn mem(m: &Machine, addr: u32) -> u32 {
    let a = addr as usize;
    u32::from_le_bytes(m.g[a..a + 4].try_into().unwrap())
}

#[test]
fn a_cached_mpbt_line_stays_stale_until_cl1invmb() {
    let mut m = machine(Config::SCC);
    let old = read(&mut m, 1, 0x40, MpbtWb);
    write(&mut m, 0, 0x40, 0xAAAA_0001, Ncm);
    assert_eq!(read(&mut m, 1, 0x40, MpbtWb), old, "still the cached copy");
    m.cl1invmb(1);
    assert_eq!(read(&mut m, 1, 0x40, MpbtWb), 0xAAAA_0001);
    m.check_invariant().unwrap();
}

#[test]
fn cl1invmb_loses_modified_mpbt_data() {
    let mut m = machine(Config::SCC);
    let old = read(&mut m, 0, 0x80, MpbtWb);
    let a = write(&mut m, 0, 0x80, 0x1234_5678, MpbtWb);
    assert_eq!(a.parts()[0].outcome, Outcome::L1, "a write hit stays in L1");
    assert_eq!(read(&mut m, 0, 0x80, MpbtWb), 0x1234_5678);
    m.cl1invmb(0);
    assert_eq!(
        read(&mut m, 0, 0x80, MpbtWb),
        old,
        "the modification is gone"
    );
    assert_eq!(mem(&m, 0x80), old);
}

#[test]
fn cl1invmb_leaves_dcm_lines_alone() {
    let mut m = machine(Config::SCC);
    read(&mut m, 0, 0x80, Dcm);
    write(&mut m, 0, 0x80, 7, Dcm);
    m.cl1invmb(0);
    assert!(m.cores[0].l1().contains(0x80));
    assert_eq!(read(&mut m, 0, 0x80, Dcm), 7);
}

#[test]
fn a_wcb_write_stays_invisible_until_the_buffer_flushes() {
    let mut m = machine(Config::SCC);
    let old = read(&mut m, 1, 0x100, Ncm);
    let a = write(&mut m, 0, 0x100, 0xBEEF, MpbtWb);
    assert_eq!(
        a.parts()[0].outcome,
        Outcome::Wcb,
        "a write miss goes to the WCB"
    );
    assert_eq!(read(&mut m, 1, 0x100, Ncm), old);
    assert_eq!(
        read(&mut m, 0, 0x100, NcmWcb),
        0xBEEF,
        "the writer sees its own write"
    );
    // Reading its own buffered line went to memory, which flushed the WCB first.
    assert_eq!(read(&mut m, 1, 0x100, Ncm), 0xBEEF);

    let before = mem(&m, 0x104);
    assert_ne!(before, 0xF00D);
    write(&mut m, 0, 0x104, 0xF00D, NcmWcb);
    assert_eq!(
        read(&mut m, 1, 0x104, Ncm),
        before,
        "buffered, not yet in memory"
    );
    assert_eq!(mem(&m, 0x104), before);
    // A write to another line flushes the previous one.
    let a = write(&mut m, 0, 0x120, 1, NcmWcb);
    assert!(matches!(a.events[0], Event::WcbFlush(f) if f.line == 0x100 && f.mask == 0xF0));
    assert_eq!(read(&mut m, 1, 0x104, Ncm), 0xF00D);
    // And an explicit flush publishes the rest.
    m.flush_wcb(0);
    assert_eq!(read(&mut m, 1, 0x120, Ncm), 1);
    m.check_invariant().unwrap();
}

#[test]
fn mpbt_wt_write_hits_update_l1_and_go_through_the_wcb() {
    // Ideal MPBT-WT reads, which fill L1, so that the store can hit.
    let mut m = machine(Config {
        mpbt_wt_reads_uncached: false,
        ..Config::SCC
    });
    read(&mut m, 0, 0x200, MpbtWt);
    let a = write(&mut m, 0, 0x200, 99, MpbtWt);
    assert_eq!(a.parts()[0].l1, Lookup::Hit);
    assert_eq!(a.parts()[0].outcome, Outcome::Wcb);
    assert_eq!(read(&mut m, 0, 0x200, MpbtWt), 99, "L1 holds the new value");
    assert_ne!(mem(&m, 0x200), 99, "memory waits for the WCB");
    m.flush_wcb(0);
    assert_eq!(mem(&m, 0x200), 99);
    // The line stayed clean: CL1INVMB loses nothing.
    m.cl1invmb(0);
    assert_eq!(read(&mut m, 0, 0x200, MpbtWt), 99);
}

#[test]
fn mpbt_wb_write_hits_stay_in_l1_until_written_back() {
    let mut m = machine(Config::SCC);
    read(&mut m, 0, 0x240, MpbtWb);
    write(&mut m, 0, 0x240, 5, MpbtWb);
    m.flush_wcb(0);
    assert_ne!(mem(&m, 0x240), 5, "neither the WCB nor memory saw it");
    m.wbinvd(0);
    assert_eq!(mem(&m, 0x240), 5, "WBINVD writes MPBT lines back to memory");
    assert!(!m.cores[0].holds(0x240));
}

#[test]
fn mpbt_wt_reads_bypass_l1_as_on_silicon_unless_ideal() {
    let mut m = machine(Config {
        mpbt_wt_reads_uncached: false,
        ..Config::SCC
    });
    let a = m.load(0, 0x280, 4, MpbtWt).1;
    assert_eq!(a.events.as_slice(), &[Event::Fill { line: 0x280 }]);
    assert!(m.cores[0].l1().peek(0x280).unwrap().mpbt);

    let mut m = machine(Config::SCC);
    let a = m.load(0, 0x280, 4, MpbtWt).1;
    assert_eq!(a.parts()[0].outcome, Outcome::Memory);
    assert!(a.events.is_empty());
    assert!(!m.cores[0].holds(0x280));
}

#[test]
fn pmb_pages_bypass_l2_and_are_tagged_mpbt() {
    let mut m = machine(Config::SCC);
    let a = m.load(0, 0x2C0, 4, MpbtWb).1;
    assert_eq!(a.parts()[0].l2, Lookup::Skipped);
    assert!(!m.cores[0].l2().contains(0x2C0));
    assert!(m.cores[0].l1().peek(0x2C0).unwrap().mpbt);
    let a = m.load(0, 0x300, 4, Dcm).1;
    assert_eq!(a.parts()[0].l2, Lookup::Miss);
    assert!(m.cores[0].l2().contains(0x300));
    assert!(!m.cores[0].l1().peek(0x300).unwrap().mpbt);
}

#[test]
fn ncm_is_always_fresh_and_never_cached() {
    let mut m = machine(Config::SCC);
    for v in 0..4 {
        let a = write(&mut m, v % 2, 0x340, v as u32, Ncm);
        assert_eq!(
            a.events.as_slice(),
            &[Event::WriteThrough {
                addr: 0x340,
                len: 4
            }]
        );
        assert_eq!(read(&mut m, 1 - v % 2, 0x340, Ncm), v as u32);
    }
    assert!(!m.cores[0].holds(0x340) && !m.cores[1].holds(0x340));
}

#[test]
fn there_is_no_write_allocate_at_either_level() {
    let mut m = machine(Config::SCC);
    let a = write(&mut m, 0, 0x380, 3, Dcm);
    assert_eq!(a.parts()[0].outcome, Outcome::Memory);
    assert_eq!(
        (a.parts()[0].l1, a.parts()[0].l2),
        (Lookup::Miss, Lookup::Miss)
    );
    assert!(!m.cores[0].holds(0x380));
    assert_eq!(mem(&m, 0x380), 3);
    let a = write(&mut m, 0, 0x3A0, 3, MpbtWb);
    assert!(!m.cores[0].holds(0x3A0), "{a:?}");
}

#[test]
fn dcm_data_stays_invisible_until_evicted() {
    let mut m = machine(SMALL);
    read(&mut m, 0, 0x000, Dcm);
    write(&mut m, 0, 0x000, 42, Dcm);
    assert_ne!(read(&mut m, 1, 0x000, Ncm), 42);
    // WBINVD moves the line to L2 only: still not in memory.
    m.wbinvd(0);
    assert!(m.cores[0].l2().peek(0x000).unwrap().dirty);
    assert_ne!(read(&mut m, 1, 0x000, Ncm), 42);
    // Two more lines of the same L2 set evict it, whole.
    read(&mut m, 0, 0x040, Dcm);
    let a = m.load(0, 0x080, 4, Dcm).1;
    assert!(
        a.events.contains(&Event::WriteBack { line: 0x000 }),
        "{a:?}"
    );
    assert_eq!(read(&mut m, 1, 0x000, Ncm), 42);
    m.check_invariant().unwrap();
}

#[test]
fn pwt_makes_l1_write_through_into_l2() {
    let mut m = machine(Config::SCC);
    read(&mut m, 0, 0x3C0, Dcm);
    let a = m.store(0, 0x3C0, &[1], Dcm, true);
    assert_eq!(a.parts()[0].outcome, Outcome::L2);
    assert_eq!(
        (a.parts()[0].l1, a.parts()[0].l2),
        (Lookup::Hit, Lookup::Hit)
    );
    assert!(!m.cores[0].l1().peek(0x3C0).unwrap().dirty);
    assert!(m.cores[0].l2().peek(0x3C0).unwrap().dirty);
    let a = m.store(0, 0x3C0, &[1], Dcm, false);
    assert_eq!(a.parts()[0].outcome, Outcome::L1);
    assert!(m.cores[0].l1().peek(0x3C0).unwrap().dirty);
}

#[test]
fn l2_evictions_take_the_line_out_of_l1_too() {
    // L1 as large as L2, so only L2 evicts.
    let same = Geometry {
        size: 128,
        assoc: 2,
        line: 32,
    };
    let mut m = machine(Config {
        l1: same,
        l2: same,
        ..SMALL
    });
    read(&mut m, 0, 0x000, Dcm);
    write(&mut m, 0, 0x000, 9, Dcm); // dirty in L1 only
    assert!(!m.cores[0].l2().peek(0x000).unwrap().dirty);
    m.load(0, 0x040, 4, Dcm); // set 0 full at both levels
    let a = m.load(0, 0x080, 4, Dcm).1; // L2 evicts 0x000, so L1 must lose it
    assert!(!m.cores[0].holds(0x000));
    assert!(a.events.contains(&Event::WriteBack { line: 0x000 }));
    assert_eq!(mem(&m, 0x000), 9, "the L1 copy, the newest, was written");
    for line in m.cores[0].l1().lines() {
        assert!(line.state.mpbt || m.cores[0].l2().contains(line.line));
    }
}

#[test]
fn a_dirty_dcm_line_leaving_l1_goes_to_l2_not_memory() {
    let mut m = machine(SMALL);
    read(&mut m, 0, 0x000, Dcm);
    write(&mut m, 0, 0x000, 11, Dcm);
    let a = m.load(0, 0x040, 4, Dcm).1; // L1 set 0 evicts 0x000
    assert!(!m.cores[0].l1().contains(0x000));
    assert!(m.cores[0].l2().peek(0x000).unwrap().dirty);
    assert!(
        !a.events
            .iter()
            .any(|e| matches!(e, Event::WriteBack { .. })),
        "{a:?}"
    );
    assert_ne!(mem(&m, 0x000), 11);
    // A dirty MPBT victim is written back; a clean one dropped.
    read(&mut m, 0, 0x100, MpbtWb);
    write(&mut m, 0, 0x100, 12, MpbtWb);
    let a = m.load(0, 0x140, 4, MpbtWb).1;
    assert_eq!(a.events[0], Event::WriteBack { line: 0x100 });
    assert_eq!(mem(&m, 0x100), 12);
    let a = m.load(0, 0x180, 4, MpbtWb).1;
    assert_eq!(
        a.events[0],
        Event::Drop {
            line: 0x140,
            keep: 0
        }
    );
}

#[test]
fn invd_drops_mpbt_lines_and_keeps_dcm_modifications_in_l2() {
    let mut m = machine(SMALL);
    let old = read(&mut m, 0, 0x100, MpbtWb);
    write(&mut m, 0, 0x100, 1, MpbtWb);
    read(&mut m, 0, 0x020, Dcm);
    write(&mut m, 0, 0x020, 2, Dcm);
    assert_eq!(m.cores[0].l1().lines().count(), 2);
    m.invd(0);
    assert_eq!(m.cores[0].l1().lines().count(), 0);
    assert_eq!(read(&mut m, 0, 0x100, MpbtWb), old);
    assert!(m.cores[0].l2().peek(0x020).unwrap().dirty);
    assert_eq!(read(&mut m, 0, 0x020, Dcm), 2);
}

#[test]
fn impossible_configurations_are_refused_with_the_cache_named() {
    use super::hierarchy::ConfigError;

    let one_set = Geometry {
        size: 64,
        assoc: 2,
        line: 32,
    };
    let e = CoreMemory::new(Config {
        l2: one_set,
        ..SMALL
    })
    .unwrap_err();
    assert!(
        matches!(e, ConfigError::OneSet { level: "L2", .. }),
        "{e:?}"
    );
    let bad = Geometry {
        size: 1000,
        assoc: 4,
        line: 32,
    };
    let e = CoreMemory::new(Config { l1: bad, ..SMALL }).unwrap_err();
    assert_eq!(
        e.to_string(),
        "L1: cache of 1000 bytes, 4-way, 32-byte lines: the cache size must be a non-zero multiple of the set size (ways x line size)"
    );
    let wide = Geometry {
        size: 256,
        assoc: 2,
        line: 64,
    };
    let e = CoreMemory::new(Config { l1: wide, ..SMALL }).unwrap_err();
    assert!(
        matches!(e, ConfigError::LineSize { level: "L1", .. }),
        "{e:?}"
    );
    assert!(CoreMemory::new(Config::SCC).is_ok());
}

#[test]
fn every_access_says_where_it_completed() {
    let mut m = machine(SMALL);
    let outcome = |a: Access| (a.parts()[0].l1, a.parts()[0].l2, a.parts()[0].outcome);
    assert_eq!(
        outcome(m.load(0, 0x000, 4, Dcm).1),
        (Lookup::Miss, Lookup::Miss, Outcome::Memory)
    );
    assert_eq!(
        outcome(m.load(0, 0x000, 4, Dcm).1),
        (Lookup::Hit, Lookup::Skipped, Outcome::L1)
    );
    m.wbinvd(0);
    assert_eq!(
        outcome(m.load(0, 0x000, 4, Dcm).1),
        (Lookup::Miss, Lookup::Hit, Outcome::L2)
    );
    assert_eq!(
        outcome(m.load(0, 0x200, 4, Ncm).1),
        (Lookup::Miss, Lookup::Skipped, Outcome::Memory)
    );
    // An access across a line boundary is two parts.
    let a = m.load(0, 0x01E, 4, Dcm).1;
    assert_eq!(a.parts().len(), 2);
    assert_eq!((a.parts()[0].addr, a.parts()[0].len), (0x01E, 2));
    assert_eq!((a.parts()[1].addr, a.parts()[1].len), (0x020, 2));
    assert_eq!(a.parts()[1].outcome, Outcome::Memory);
}

#[test]
fn an_eviction_after_a_lut_write_goes_to_the_new_target() {
    use std::collections::BTreeMap;

    use chip::{LutEntry, Port, SCC, Subdest, Target};

    use super::lut::Lut;

    let two_lines = Geometry {
        size: 64,
        assoc: 1,
        line: 32,
    };
    let mut core = CoreMemory::new(Config {
        l1: two_lines,
        l2: two_lines,
        ..SMALL
    })
    .unwrap();
    let mut lut = Lut::new(&SCC, SCC.core(0).unwrap());
    // Global memory keyed by (controller, system address).
    let mut g: BTreeMap<(usize, u64), u8> = BTreeMap::new();
    let mut view = [0u8; 32];
    let lsm0 = SCC.lsm_base(0);

    core.load(lsm0, 4, Dcm);
    view[0] = 0x5A; // the guest's store hits the view
    assert!(core.store(lsm0, 1, Dcm, false).events.is_empty());

    // Entry 128 now points at controller 1's LSM page.
    let entry = (lsm0 >> 24) as u8;
    lut.write(
        entry,
        LutEntry::new(Port::new(5, 0, Subdest::PeriEast), 504),
    );

    let a = core.load(lsm0 + 0x40, 4, Dcm);
    let Event::WriteBack { line } = a.events[0] else {
        panic!("{a:?}")
    };
    // The plugin translates when it applies the event.
    let t = lut.translate(line).unwrap();
    let Target::Dram { controller, .. } = t.target else {
        panic!("{t:?}")
    };
    for (i, b) in view.iter().enumerate() {
        g.insert((controller, t.system + i as u64), *b);
    }
    assert_eq!(controller, 1);
    assert_eq!(g.get(&(1, 504 << 24)), Some(&0x5A));
    assert!(
        !g.keys().any(|(c, _)| *c == 0),
        "nothing reached the old target"
    );
}

// ---- the reference comparison -------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Load {
        core: usize,
        addr: u32,
        len: u32,
    },
    Store {
        core: usize,
        addr: u32,
        len: u32,
        seed: u8,
    },
    Cl1invmb(usize),
    Wbinvd(usize),
    Invd(usize),
    FlushWcb(usize),
}

const LINES: u32 = 10;
/// Lines per page: accesses may cross lines but not pages, as page types
/// are per page (an access across pages of two types is two accesses).
const PAGE_LINES: u32 = 2;

/// `addr`, moved down if needed so `len` bytes from it stay in one page.
fn within_page(addr: u32, len: u32) -> u32 {
    let page = PAGE_LINES * 32;
    if addr / page == (addr + len - 1) / page {
        addr
    } else {
        addr / page * page + page - len
    }
}

fn op(cores: usize) -> impl Strategy<Value = Op> {
    let core = 0..cores;
    let len = prop::sample::select(vec![1u32, 2, 4, 8]);
    let addr = 0..LINES * 32 - 8;
    prop_oneof![
        8 => (core.clone(), addr.clone(), len.clone())
            .prop_map(|(core, addr, len)| Op::Load { core, addr: within_page(addr, len), len }),
        8 => (core.clone(), addr, len, any::<u8>())
            .prop_map(|(core, addr, len, seed)| Op::Store { core, addr: within_page(addr, len), len, seed }),
        1 => core.clone().prop_map(Op::Cl1invmb),
        1 => core.clone().prop_map(Op::Wbinvd),
        1 => core.clone().prop_map(Op::Invd),
        1 => core.prop_map(Op::FlushWcb),
    ]
}

fn page_type() -> impl Strategy<Value = (MemoryType, bool)> + Clone {
    (
        prop::sample::select(MemoryType::ALL.to_vec()),
        any::<bool>(),
    )
}

fn config() -> impl Strategy<Value = Config> {
    let geometry = |choices: Vec<(usize, usize)>| {
        prop::sample::select(choices).prop_map(|(size, assoc)| Geometry {
            size,
            assoc,
            line: 32,
        })
    };
    let policy = prop::sample::select(vec![Replacement::Lru, Replacement::Fifo]);
    (
        geometry(vec![(64, 1), (128, 2), (128, 1), (256, 2)]),
        policy.clone(),
        geometry(vec![(64, 1), (128, 2), (256, 2), (128, 1)]),
        policy,
        any::<bool>(),
    )
        .prop_map(|(l1, l1_replacement, l2, l2_replacement, wt)| Config {
            l1,
            l1_replacement,
            l2,
            l2_replacement,
            mpbt_wt_reads_uncached: wt,
        })
}

/// A program: per core, each page's type (as a page table gives it),
/// and the operations.
#[derive(Debug, Clone)]
struct Program {
    config: Config,
    types: Vec<Vec<(MemoryType, bool)>>,
    ops: Vec<Op>,
}

fn program(
    types: impl Strategy<Value = (MemoryType, bool)> + Clone,
) -> impl Strategy<Value = Program> {
    (2usize..=3, config()).prop_flat_map(move |(cores, config)| {
        (
            prop::collection::vec(
                prop::collection::vec(types.clone(), (LINES / PAGE_LINES) as usize),
                cores,
            ),
            prop::collection::vec(op(cores), 1..250),
        )
            .prop_map(move |(types, ops)| Program { config, types, ops })
    })
}

fn bytes(seed: u8, len: u32) -> Vec<u8> {
    (0..len as u8)
        .map(|i| seed.wrapping_add(i.wrapping_mul(31)))
        .collect()
}

/// Runs `p` through the models with the executor and through the
/// reference, comparing every load and memory after every step.
fn run_against_reference(p: &Program) -> Result<(), TestCaseError> {
    let cores = p.types.len();
    let size = LINES as usize * LINE;
    let mut m = Machine::new(cores, size, p.config);
    let mut r = reference::Machine::new(cores, size, p.config);
    for (step, op) in p.ops.iter().enumerate() {
        match *op {
            Op::Load { core, addr, len } => {
                let (ty, _) = p.types[core][(addr / 32 / PAGE_LINES) as usize];
                let (got, _) = m.load(core, addr, len, ty);
                let want = r.load(core, addr as usize, len as usize, ty);
                prop_assert_eq!(got, want, "step {}: {:?} as {:?}", step, op, ty);
            }
            Op::Store {
                core,
                addr,
                len,
                seed,
            } => {
                let (ty, pwt) = p.types[core][(addr / 32 / PAGE_LINES) as usize];
                let b = bytes(seed, len);
                // A store across a line boundary through the WCB is
                // issued as its two halves: see the hierarchy docs on
                // why the model cannot be exact there.
                let split = if ty.uses_wcb() {
                    (32 - addr % 32).min(len)
                } else {
                    len
                };
                for (at, part) in [
                    (addr, &b[..split as usize]),
                    (addr + split, &b[split as usize..]),
                ] {
                    if !part.is_empty() {
                        m.store(core, at, part, ty, pwt);
                        r.store(core, at as usize, part, ty, pwt);
                    }
                }
            }
            Op::Cl1invmb(c) => {
                m.cl1invmb(c);
                r.cl1invmb(c);
            }
            Op::Wbinvd(c) => {
                m.wbinvd(c);
                r.wbinvd(c);
            }
            Op::Invd(c) => {
                m.invd(c);
                r.invd(c);
            }
            Op::FlushWcb(c) => {
                m.flush_wcb(c);
                r.flush_wcb(c);
            }
        }
        let diff: Vec<usize> = (0..m.g.len()).filter(|&i| m.g[i] != r.g[i]).collect();
        prop_assert_eq!(
            &m.g,
            &r.g,
            "step {}: memory differs at {:?} after {:?}",
            step,
            diff,
            op
        );
        if let Err(e) = m.check_invariant() {
            prop_assert!(false, "step {}: after {:?}: {}", step, op, e);
        }
    }
    Ok(())
}

/// Runs `p` on each core's model twice: once with every access, once
/// skipping the DCM accesses (without PWT) that L1's MRU table finds, as
/// the plugin's fast path for private memory does. Every access the second
/// run makes must give what it gave in the first, and the counts must end
/// the same once the skipped ones are counted.
fn run_skipping_mru_hits(p: &Program) -> Result<u64, TestCaseError> {
    let mut skipped = 0;
    for (core, types) in p.types.iter().enumerate() {
        let mut all = CoreMemory::new(p.config).unwrap();
        let mut fast = CoreMemory::new(p.config).unwrap();
        let mru = fast.l1_mru();
        let (mut loads, mut stores) = (0, 0);
        for (step, op) in p.ops.iter().enumerate() {
            let (store, addr, len) = match *op {
                Op::Load { core: c, addr, len } if c == core => (false, addr, len),
                Op::Store {
                    core: c, addr, len, ..
                } if c == core => (true, addr, len),
                Op::Cl1invmb(c) if c == core => {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    all.cl1invmb(|e| a.push(e));
                    fast.cl1invmb(|e| b.push(e));
                    prop_assert_eq!(a, b, "step {}", step);
                    continue;
                }
                Op::Wbinvd(c) if c == core => {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    all.wbinvd(|e| a.push(e));
                    fast.wbinvd(|e| b.push(e));
                    prop_assert_eq!(a, b, "step {}", step);
                    continue;
                }
                Op::Invd(c) if c == core => {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    all.invd(|e| a.push(e));
                    fast.invd(|e| b.push(e));
                    prop_assert_eq!(a, b, "step {}", step);
                    continue;
                }
                Op::FlushWcb(c) if c == core => {
                    prop_assert_eq!(all.flush_wcb(), fast.flush_wcb(), "step {}", step);
                    continue;
                }
                _ => continue,
            };
            let (ty, pwt) = types[(addr / 32 / PAGE_LINES) as usize];
            let one_line = addr / 32 == (addr + len - 1) / 32;
            let run = |m: &mut CoreMemory| {
                if store {
                    m.store(addr, len, ty, pwt)
                } else {
                    m.load(addr, len, ty)
                }
            };
            let want = run(&mut all);
            if ty == Dcm && !pwt && one_line && mru.hit(addr, store) {
                prop_assert!(
                    want.parts()[0].outcome == Outcome::L1 && want.events.is_empty(),
                    "step {}: {:?} found in the MRU table did {:?}",
                    step,
                    op,
                    want
                );
                if store {
                    stores += 1;
                } else {
                    loads += 1;
                }
                skipped += 1;
                continue;
            }
            let kind = if store { Kind::Store } else { Kind::Load };
            let in_caches = |a: &Access| {
                a.parts().len() == 1
                    && a.events.is_empty()
                    && matches!(a.parts()[0].outcome, Outcome::L1 | Outcome::L2)
            };
            match fast.access_in_caches(kind, addr, len, ty, pwt) {
                InCaches::Yes(outcome) => prop_assert!(
                    in_caches(&want) && want.parts()[0].outcome == outcome,
                    "step {}: {:?} answered in short as {:?} did {:?}",
                    step,
                    op,
                    outcome,
                    want
                ),
                InCaches::No(got) => {
                    prop_assert!(
                        !in_caches(&got),
                        "step {}: {:?} not answered in short",
                        step,
                        op
                    );
                    prop_assert_eq!(got, want, "step {}: {:?}", step, op);
                }
            }
        }
        fast.count_l1_hits(loads, stores);
        prop_assert_eq!(fast.stats(), all.stats());
    }
    Ok(skipped)
}

/// The MRU table finds a load of, or a store to, the line L1 used last in
/// its set; not a line another access to the set followed, a line that
/// left, or a message-buffer line. A store it finds makes the line
/// modified in the cache too: it leaves L1 for L2 modified.
#[test]
fn the_mru_table_finds_the_accesses_that_change_nothing() {
    let mut m = CoreMemory::new(Config::SCC).unwrap();
    let mru = m.l1_mru();
    let (a, b) = (0x1000, 0x2000); // the same L1 set
    assert!(!mru.hit(a, false), "nothing cached yet");
    m.load(a, 4, Dcm);
    assert!(mru.hit(a + 8, false), "a load of the line just filled");
    assert_eq!(m.l1().peek(a), Some(LineState::default()));
    assert!(mru.hit(a, true), "a store to it, clean");
    assert!(
        m.l1().peek(a).is_some_and(|s| s.dirty),
        "the cache sees it modified"
    );
    assert!(mru.hit(a + 4, true) && mru.hit(a, false), "modified: both");
    m.load(b, 4, Dcm);
    assert!(!mru.hit(a, false), "b is the set's most recent now");
    assert!(mru.hit(b, false));
    m.wbinvd(|_| {});
    assert!(
        m.l2().peek(a).is_some_and(|s| s.dirty),
        "the line the table made modified went to L2 modified"
    );
    assert!(!mru.hit(b, false), "L1 is empty");
    let c = 0x3000; // the same set, in no cache
    m.load(c, 4, MpbtWb);
    assert!(!mru.hit(c, false), "a message-buffer line is never skipped");
    assert!(!mru.hit(c, true));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Skipping the accesses L1's MRU table finds, and answering in short
    /// those that stay in the caches ([`CoreMemory::access_in_caches`]),
    /// changes nothing the model shows (the plugin's and the engine's path
    /// for private memory).
    #[test]
    fn accesses_found_in_the_mru_table_change_nothing(p in program(page_type())) {
        run_skipping_mru_hits(&p)?;
    }

    /// The tag models plus the plugin's event protocol show every load the
    /// same bytes as the data-carrying reference, and leave memory the same.
    #[test]
    fn the_models_and_the_executor_match_the_reference(p in program(page_type())) {
        run_against_reference(&p)?;
    }

    /// With every page NCM, the chip is coherent: each load returns the
    /// latest store to those bytes, whichever core made it.
    #[test]
    fn ncm_only_programs_are_coherent(p in program(Just((Ncm, false)))) {
        let size = LINES as usize * LINE;
        let mut m = Machine::new(p.types.len(), size, p.config);
        let mut latest = m.g.clone();
        for op in &p.ops {
            match *op {
                Op::Load { core, addr, len } => {
                    let (got, a) = m.load(core, addr, len, Ncm);
                    let a0 = addr as usize;
                    prop_assert_eq!(&got[..], &latest[a0..a0 + len as usize]);
                    prop_assert!(a.parts().iter().all(|p| p.outcome == Outcome::Memory));
                }
                Op::Store { core, addr, len, seed } => {
                    let b = bytes(seed, len);
                    m.store(core, addr, &b, Ncm, false);
                    latest[addr as usize..(addr + len) as usize].copy_from_slice(&b);
                }
                Op::Cl1invmb(c) => m.cl1invmb(c),
                Op::Wbinvd(c) => m.wbinvd(c),
                Op::Invd(c) => m.invd(c),
                Op::FlushWcb(c) => m.flush_wcb(c),
            }
            prop_assert_eq!(&m.g, &latest);
        }
    }
}
