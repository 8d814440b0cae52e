// SPDX-License-Identifier: GPL-2.0-or-later
//! What each access costs in modelled core cycles, and one core's clock.
//!
//! The parameters are the chip's ([`chip::Timing`], one table with the
//! source of each value); this module turns them into a latency per LUT
//! target as seen from one core, and keeps the core's clock:
//!
//! - instructions cost what the P54C takes to issue them ([`super::p54c`]:
//!   U/V pairing, multi-cycle instructions, address generation
//!   interlocks), computed once per translation block and added by the
//!   plugin each time the block runs (an inline add, not a callback; a REP
//!   string instruction adds each iteration's cycles in its memory
//!   callback);
//! - every access the memory model classifies adds its latency beyond an
//!   L1 hit (which the instruction's own cycle covers): the P54C has one
//!   outstanding access and stalls until it completes, so latencies add up.
//!   Stores stall too: the mesh acknowledges every write, and the core
//!   cannot issue its next access before that.
//!
//! | class | latency (core cycles) |
//! |---|---|
//! | L1 hit, store absorbed by L1 or the WCB | `l1_hit` |
//! | L2 | `l2_hit` |
//! | MPB, CRB or TSR of a tile `n-1` hops away | `miu_mpb` + 2·n·`router_mesh_cycles` mesh cycles |
//! | DRAM behind a controller `n-1` hops away | `miu_dram` + (2·n·`router_mesh_cycles` + `memctl_mesh_cycles`) mesh cycles, plus the wait for a refresh ([`refresh_wait`]: `dram_refresh_ns` every `dram_refresh_interval_ns`) and for the controller |
//! | waiting for a busy MPB, register block or controller | from the requests of all cores around its arrival ([`super::queue`]; one at a time: `mpb_port_mesh_cycles`, `crb_mesh_cycles`, `memctl_mesh_cycles` each), charged once those are known |
//! | FPGA register | `fpga_factor` × a CRB access at the system interface's router |
//! | write-back of a victim line, WCB flush | a store of the line to its target |
//! | WBINVD, INVD, CL1INVMB | `wbinvd`, `invd`, `cl1invmb` (the instruction's own cycle included) |
//! | a read of the core's own clock (`chip::EmuCall::ClockLatch`) | `clock_read`, the two cycles its three moves issue in included ([`chip::Timing::clock_read_issue`]) |
//!
//! `n` counts routers crossed one way, the core's own included
//! ([`super::mesh`]). Mesh cycles convert to core cycles rounded up, once
//! per access. Private memory goes through the same caches, and its misses
//! to the core's own memory controller cost what shared ones do there.
//!
//! A refresh is judged at the time the request reaches its controller as
//! the calendar books it (the core's clock, whose queue waits are charged
//! later, plus the request's arrival): periodic in modelled time from 0,
//! the same for every core and every run. It delays the request, which is
//! booked at the refresh's end: requests that arrive during one refresh
//! all queue there, with each other, as the calendar says. The wait counts
//! as the controller's (`Class::MemctlWait`).

use chip::{Chip, CoreId, Target, Timing};

use super::mesh;
use super::stats::{MAX_CONTROLLERS, MAX_TILES};

/// Latency classes, the rows of the timing statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Served by L1, or a store absorbed by L1.
    L1 = 0,
    /// Served by L2.
    L2,
    /// A store taken by the write-combine buffer.
    Wcb,
    /// The MPB of the core's own tile.
    MpbLocal,
    /// Another tile's MPB.
    MpbRemote,
    /// Shared DRAM through a memory controller (the wait for a busy
    /// controller is [`Class::MemctlWait`]).
    Dram,
    /// Waiting for a memory controller busy with other requests.
    MemctlWait,
    /// A configuration register (test-and-set registers, LUTs, MYTILEID).
    Register,
    /// A register of the FPGA bank (the global timestamp).
    Fpga,
    /// Lines leaving the caches or the WCB for memory.
    WriteBack,
    /// WBINVD, INVD and CL1INVMB.
    CacheOp,
    /// Waiting for a tile's MPB busy with other cores' accesses.
    MpbWait,
    /// Waiting for a tile's register block busy with other cores' accesses.
    CrbWait,
    /// Reads of the core's own cycle counter (`chip::EmuCall::ClockLatch`).
    Clock,
}

/// Number of [`Class`]es.
pub const CLASSES: usize = 14;

impl Class {
    /// Every class, in index order.
    pub const ALL: [Class; CLASSES] = [
        Class::L1,
        Class::L2,
        Class::Wcb,
        Class::MpbLocal,
        Class::MpbRemote,
        Class::Dram,
        Class::MemctlWait,
        Class::Register,
        Class::Fpga,
        Class::WriteBack,
        Class::CacheOp,
        Class::MpbWait,
        Class::CrbWait,
        Class::Clock,
    ];

    /// Short name for tables and the report file.
    pub const fn name(self) -> &'static str {
        match self {
            Class::L1 => "L1",
            Class::L2 => "L2",
            Class::Wcb => "WCB",
            Class::MpbLocal => "MPB-local",
            Class::MpbRemote => "MPB-remote",
            Class::Dram => "DRAM",
            Class::MemctlWait => "MC-wait",
            Class::Register => "CRB/TSR",
            Class::Fpga => "FPGA",
            Class::WriteBack => "write-back",
            Class::CacheOp => "cache-op",
            Class::MpbWait => "MPB-wait",
            Class::CrbWait => "CRB-wait",
            Class::Clock => "clock",
        }
    }
}

/// A resource that serves one access at a time, so that accesses from
/// several cores queue at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// A memory controller, by index.
    Controller(usize),
    /// The MPB of a tile, by tile index.
    Mpb(usize),
    /// The configuration register block (test-and-set registers, LUTs) of
    /// a tile, by tile index.
    Crb(usize),
}

/// Cycles per calendar bucket of a memory controller: about four of its
/// 31-cycle services (a stated assumption: small enough that a bucket is
/// one moment of contention, large enough that `SLOTS` buckets cover far
/// more than cores drift apart; see [`super::queue`]).
const CONTROLLER_BUCKET: u64 = 128;

/// Cycles per calendar bucket of an MPB or register block: a few of their
/// 3-cycle services (the same stated assumption).
const SMALL_BUCKET: u64 = 32;

impl Resource {
    /// Its calendar among the run's ([`crate::timing`]): the memory
    /// controllers' first, then each tile's MPB's, then each tile's
    /// register block's.
    pub fn calendar(self) -> usize {
        match self {
            Resource::Controller(mc) => {
                assert!(mc < MAX_CONTROLLERS, "controller {mc}");
                mc
            }
            Resource::Mpb(tile) => {
                assert!(tile < MAX_TILES, "tile {tile}");
                MAX_CONTROLLERS + tile
            }
            Resource::Crb(tile) => {
                assert!(tile < MAX_TILES, "tile {tile}");
                MAX_CONTROLLERS + MAX_TILES + tile
            }
        }
    }

    /// The resource of calendar `i` (the inverse of [`Resource::calendar`]).
    pub fn from_calendar(i: usize) -> Self {
        match i {
            i if i < MAX_CONTROLLERS => Resource::Controller(i),
            i if i < MAX_CONTROLLERS + MAX_TILES => Resource::Mpb(i - MAX_CONTROLLERS),
            i => Resource::Crb(i - MAX_CONTROLLERS - MAX_TILES),
        }
    }

    /// Cycles per bucket of its calendar ([`super::queue`]).
    pub fn bucket(self) -> u64 {
        match self {
            Resource::Controller(_) => CONTROLLER_BUCKET,
            Resource::Mpb(_) | Resource::Crb(_) => SMALL_BUCKET,
        }
    }

    /// The bucket of its calendar that a request arriving at `arrival`
    /// falls in.
    pub fn bucket_of(self, arrival: u64) -> u64 {
        arrival / self.bucket()
    }

    /// The class of the cycles spent waiting for it.
    pub const fn wait_class(self) -> Class {
        match self {
            Resource::Controller(_) => Class::MemctlWait,
            Resource::Mpb(_) => Class::MpbWait,
            Resource::Crb(_) => Class::CrbWait,
        }
    }
}

/// A resource an access queues at: which, when the request reaches it
/// (core cycles after issue), and how long it keeps it busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue {
    /// The resource.
    pub resource: Resource,
    /// Core cycles from issue until the request reaches it.
    pub arrival: u64,
    /// Core cycles it is busy with the request.
    pub service: u64,
}

/// One access to a target, before any queueing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// Its class.
    pub class: Class,
    /// Core cycles without waiting for a busy resource.
    pub cycles: u64,
    /// Where it queues, if at a resource that serves one access at a time
    /// (an FPGA register does not: the FPGA bank is per core).
    pub queue: Option<Queue>,
}

/// The latencies one core sees, per target.
#[derive(Debug, Clone)]
pub struct Latencies {
    timing: Timing,
    tile: usize,
    /// Per tile: core cycles until the request reaches the tile, and of
    /// the whole MPB (or CRB) access.
    mpb: Vec<(u64, u64)>,
    dram: Vec<(u64, u64)>,
    fpga: u64,
}

impl Latencies {
    /// The latencies of `core` of `chip`.
    pub fn new(chip: &Chip, core: CoreId) -> Self {
        let t = chip.timing;
        let here = chip.tile_coord(chip.tile_of(core));
        let mpb = chip
            .all_tiles()
            .map(|tile| {
                let n = mesh::routers(chip, here, chip.tile_coord(tile));
                let arrival = t.miu_mpb as u64
                    + t.mesh_to_core(u64::from(n) * u64::from(t.router_mesh_cycles));
                (arrival, t.mpb_access(n))
            })
            .collect();
        let dram = chip
            .memory_controllers
            .iter()
            .map(|mc| {
                let n = mesh::routers(chip, here, mc.port.tile);
                let arrival = t.miu_dram as u64
                    + t.mesh_to_core(u64::from(n) * u64::from(t.router_mesh_cycles));
                (arrival, t.dram_access(n))
            })
            .collect();
        let sif = mesh::routers(chip, here, chip.system_interface.tile);
        Self {
            timing: t,
            tile: chip.tile_of(core).index(),
            mpb,
            dram,
            fpga: u64::from(t.fpga_factor) * t.mpb_access(sif),
        }
    }

    /// The chip's parameters.
    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The cycles a request reaching `resource` at `arrival` waits for a
    /// DRAM refresh ([`refresh_wait`]): none but at a memory controller.
    pub fn refresh_wait(&self, resource: Resource, arrival: u64) -> u64 {
        match resource {
            Resource::Controller(_) => refresh_wait(
                arrival,
                self.timing.dram_refresh_interval(),
                self.timing.dram_refresh(),
            ),
            Resource::Mpb(_) | Resource::Crb(_) => 0,
        }
    }

    /// What one access (load or store) to `target` costs, or `None` for a
    /// target that is not on the mesh.
    pub fn target(&self, target: Target) -> Option<Cost> {
        let t = &self.timing;
        let queued = |class, (arrival, cycles): (u64, u64), resource, service| Cost {
            class,
            cycles,
            queue: Some(Queue {
                resource,
                arrival,
                service,
            }),
        };
        Some(match target {
            Target::Mpb(tile) => {
                let i = tile.index();
                let class = if i == self.tile {
                    Class::MpbLocal
                } else {
                    Class::MpbRemote
                };
                queued(
                    class,
                    *self.mpb.get(i)?,
                    Resource::Mpb(i),
                    t.mpb_port_service(),
                )
            }
            Target::Crb(tile) => {
                let i = tile.index();
                queued(
                    Class::Register,
                    *self.mpb.get(i)?,
                    Resource::Crb(i),
                    t.crb_service(),
                )
            }
            Target::Dram { controller, .. } => queued(
                Class::Dram,
                *self.dram.get(controller)?,
                Resource::Controller(controller),
                t.memctl_service(),
            ),
            Target::Fpga => Cost {
                class: Class::Fpga,
                cycles: self.fpga,
                queue: None,
            },
            Target::Nothing => return None,
        })
    }
}

/// The cycles a request reaching a memory controller at `arrival` waits
/// for its DRAM's refresh: every `interval` cycles from time 0, the
/// devices refresh for `duration` cycles and serve nothing (0 `interval`:
/// no refresh). Periodic in modelled time, the same for every core and
/// every run; as on silicon, it also shifts cores that spin against each
/// other with fixed periods out of step now and then.
pub fn refresh_wait(arrival: u64, interval: u64, duration: u64) -> u64 {
    if interval == 0 {
        return 0;
    }
    duration.saturating_sub(arrival % interval)
}

/// One core's modelled clock and where its cycles went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreClock {
    /// Cycles the core took to issue its instructions ([`super::p54c`]).
    issued: u64,
    /// Issue cycles that take no modelled time: the firmware's, before
    /// time starts, and the emulator's own instructions' (the trap handler
    /// QEMU needs for what silicon executes in place).
    untimed: u64,
    extra: u64,
    idle: u64,
    /// Whether time runs: a clock [`CoreClock::held`] stays at 0 until
    /// [`CoreClock::start`].
    running: bool,
    /// Cycles beyond an L1 hit, per class.
    pub class_cycles: [u64; CLASSES],
    /// Accesses (or operations), per class.
    pub class_count: [u64; CLASSES],
}

impl CoreClock {
    /// A clock at 0.
    pub fn new() -> Self {
        Self {
            running: true,
            ..Self::default()
        }
    }

    /// As [`CoreClock::new`], but held at 0 until [`CoreClock::start`]:
    /// what the core does before takes no modelled time.
    pub fn held() -> Self {
        Self {
            running: false,
            ..Self::default()
        }
    }

    /// Whether time has started ([`CoreClock::start`]).
    pub fn started(&self) -> bool {
        self.running
    }

    /// Time starts: from here on the clock counts the core's instructions,
    /// stalls and waits. Nothing if it runs already.
    pub fn start(&mut self) {
        self.running = true;
    }

    /// The core's instructions so far took `cycles` in all to issue (never
    /// fewer than before).
    pub fn set_issued(&mut self, cycles: u64) {
        self.issued = self.issued.max(cycles);
        if !self.running {
            self.untimed = self.issued;
        }
    }

    /// `cycles` of the issue cycles so far take no modelled time.
    pub fn untimed(&mut self, cycles: u64) {
        self.untimed = (self.untimed + cycles).min(self.issued);
    }

    /// Modelled core cycles since reset.
    pub fn now(&self) -> u64 {
        self.insn_cycles() + self.extra + self.idle
    }

    /// The core stalls `cycles` (beyond the instruction's own) in `class`.
    pub fn stall(&mut self, class: Class, cycles: u64) {
        if !self.running {
            return;
        }
        self.extra += cycles;
        self.class_cycles[class as usize] += cycles;
        self.class_count[class as usize] += 1;
    }

    /// `n` accesses of `class` that cost nothing beyond their
    /// instructions' (L1 hits the model did not see one by one) are counted.
    pub fn count(&mut self, class: Class, n: u64) {
        if self.running {
            self.class_count[class as usize] += n;
        }
    }

    /// The core waited (halted, or for data written at `time`) until
    /// `time`: its clock moves there, never back.
    pub fn idle_until(&mut self, time: u64) {
        if !self.running {
            return;
        }
        self.idle += time.saturating_sub(self.now());
    }

    /// Cycles spent waiting for other cores.
    pub fn idle_cycles(&self) -> u64 {
        self.idle
    }

    /// Cycles of instructions (those that take modelled time).
    pub fn insn_cycles(&self) -> u64 {
        self.issued - self.untimed
    }
}

#[cfg(test)]
mod tests {
    use chip::SCC;

    use super::*;

    #[test]
    fn latencies_grow_by_one_router_per_hop() {
        let core0 = SCC.core(0).unwrap();
        let l = Latencies::new(&SCC, core0);
        let t = SCC.timing;
        let own = l.target(Target::Mpb(SCC.tile(0).unwrap())).unwrap();
        assert_eq!((own.class, own.cycles), (Class::MpbLocal, t.mpb_access(1)));
        // Tile 23 is (5,3): 8 hops, 9 routers.
        let far = l.target(Target::Mpb(SCC.tile(23).unwrap())).unwrap();
        assert_eq!((far.class, far.cycles), (Class::MpbRemote, t.mpb_access(9)));
        let near = l
            .target(Target::Dram {
                controller: 0,
                page: 0,
            })
            .unwrap();
        assert_eq!(near.cycles, t.dram_access(1));
        let q = near.queue.unwrap();
        assert_eq!(q.resource, Resource::Controller(0));
        assert!(q.arrival < near.cycles);
        assert_eq!(q.service, t.memctl_service());
        // MPBs and register blocks queue too, each at its tile.
        let mpb = l.target(Target::Mpb(SCC.tile(5).unwrap())).unwrap();
        let q = mpb.queue.unwrap();
        assert_eq!(q.resource, Resource::Mpb(5));
        assert!(q.arrival < mpb.cycles);
        assert_eq!(q.service, t.mpb_port_service());
        let crb = l.target(Target::Crb(SCC.tile(5).unwrap())).unwrap();
        assert_eq!(crb.queue.unwrap().resource, Resource::Crb(5));
        assert_eq!(l.target(Target::Fpga).unwrap().queue, None);
        let far = l
            .target(Target::Dram {
                controller: 3,
                page: 0,
            })
            .unwrap();
        assert_eq!(far.cycles, t.dram_access(8)); // (0,0) to (5,2): 7 hops
        assert_eq!(
            l.target(Target::Crb(SCC.tile(1).unwrap())).unwrap().cycles,
            t.mpb_access(2)
        );
        // The system interface hangs off router (3,0): 3 hops, 4 routers.
        assert_eq!(l.target(Target::Fpga).unwrap().cycles, 4 * t.mpb_access(4));
        assert_eq!(l.target(Target::Nothing), None);
    }

    #[test]
    fn the_clock_adds_instructions_stalls_and_idle_time() {
        let mut c = CoreClock::new();
        c.set_issued(100);
        c.stall(Class::L2, 17);
        assert_eq!(c.now(), 117);
        c.set_issued(90); // never backwards
        assert_eq!(c.now(), 117);
        c.untimed(30); // a trap handler's
        assert_eq!(c.now(), 87);
        c.idle_until(1000);
        assert_eq!((c.now(), c.idle_cycles()), (1000, 913));
        c.idle_until(10); // already past
        assert_eq!(c.now(), 1000);
        assert_eq!(c.class_count[Class::L2 as usize], 1);
    }

    #[test]
    fn a_held_clock_counts_nothing_until_it_starts() {
        let mut c = CoreClock::held();
        c.set_issued(500);
        c.stall(Class::Dram, 40);
        c.idle_until(10_000);
        assert_eq!(c.now(), 0);
        assert_eq!(c.class_count[Class::Dram as usize], 0);
        c.set_issued(700); // still held: the firmware's instructions
        c.start();
        assert_eq!(c.now(), 0);
        c.set_issued(720);
        c.stall(Class::Dram, 40);
        assert_eq!((c.now(), c.insn_cycles()), (60, 20));
        c.start(); // already running
        assert_eq!(c.now(), 60);
    }

    #[test]
    fn a_request_during_a_refresh_waits_for_its_end() {
        let t = chip::SCC.timing;
        let (every, lasts) = (t.dram_refresh_interval(), t.dram_refresh());
        assert_eq!((every, lasts), (4157, 85));
        assert_eq!(refresh_wait(0, every, lasts), 85);
        assert_eq!(refresh_wait(84, every, lasts), 1);
        assert_eq!(refresh_wait(85, every, lasts), 0);
        assert_eq!(refresh_wait(every - 1, every, lasts), 0);
        assert_eq!(refresh_wait(2 * every + 10, every, lasts), 75);
        assert_eq!(refresh_wait(10, 0, lasts), 0, "no refresh");
    }
}
