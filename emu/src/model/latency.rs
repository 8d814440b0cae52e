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
//!   A store that leaves the core is the exception: it enters a write
//!   buffer and the core goes on ([`super::write_buffer`]); the buffered
//!   writes take the latencies below one after the other, and the core
//!   waits for them only when the buffers are full, or before an access
//!   that must follow them (`write-buffer` below).
//!
//! | class | latency (core cycles) |
//! |---|---|
//! | L1 hit, store absorbed by L1 or the WCB | `l1_hit` |
//! | L2 | `l2_hit` |
//! | MPB, CRB or TSR of a tile `n-1` hops away | `miu_mpb` + 2·n·`router_mesh_cycles` mesh cycles |
//! | DRAM behind a controller `n-1` hops away | `miu_dram` + (2·n·`router_mesh_cycles` + `memctl_mesh_cycles`) mesh cycles, plus the wait for a refresh ([`refresh_wait`]: `dram_refresh_ns` every `dram_refresh_interval_ns`, at the controller's phase) and for the controller |
//! | waiting for a busy MPB, register block or controller | from the requests of all cores around its arrival ([`super::queue`]; one at a time: `mpb_port_mesh_cycles`, `crb_mesh_cycles` each; a controller a line per [`super::dram::Ddr3::line_service`], several in flight), charged once those are known |
//! | waiting for a busy mesh link | the same, at every link the request and its reply cross ([`Hop`]), each packet busy for its flits ([`chip::Timing::packet_flits`]) × `link_flit_mesh_cycles`; summed in 1/[`LINK_WAIT_SCALE`] cycles and charged as they make whole cycles |
//! | crossing between the core's and the mesh's clocks (MPB, CRB, TSR, DRAM) | the request waits for the mesh clock's next edge and the reply for the core's: 0 or 1 core cycle beyond the rounded-up mesh cycles above, from where the access meets the mesh clock, drawn per access ([`Latencies::crossing`]) |
//! | FPGA register | `fpga_factor` × a CRB access at the system interface's router |
//! | write-back of a victim line | a store of the line to its target |
//! | store leaving the core (to L2 or memory), WCB flush | nothing while a buffer is free (`buffered`); the buffered write keeps the bus for its row's latency, in order after the others |
//! | waiting for the write buffers: both full, or a load leaving L1, a write-back, a register access, WBINVD or INVD behind buffered writes | until the oldest write completes (full), or the last (`write-buffer`) |
//! | WBINVD, INVD, CL1INVMB | `wbinvd`, `invd`, `cl1invmb` (the instruction's own cycle included) |
//! | a read of the core's own clock (`chip::EmuCall::ClockLatch`) | `clock_read`, the two cycles its three moves issue in included ([`chip::Timing::clock_read_issue`]) |
//! | an operation of the remote atomic unit at a controller or MPB `n-1` hops away | the DRAM or MPB row, plus the unit's service and its write there ([`chip::RemoteAtomics::controller_access`], [`chip::RemoteAtomics::mpb_access`]); the controller or MPB is busy for the read, the service and the write, and the reply leaves after the write |
//!
//! `n` counts routers crossed one way, the core's own included
//! ([`super::mesh`]). Mesh cycles convert to core cycles rounded up, once
//! per access (and once per packet for a link's service). Private memory
//! goes through the same caches, and its misses to the core's own memory
//! controller cost what shared ones do there.
//!
//! # Links
//!
//! Every access to an MPB, a register block or DRAM crosses the links
//! between the routers of its XY route: its request the links from the
//! core's router to the target's, its reply those of the XY route back
//! ([`super::mesh::links`]). Each directed link serves one packet at a time
//! and queues like the other resources, in a calendar of its own. A packet
//! reaches link `i` of its way (counted from 0) when it has crossed `i + 1`
//! routers: the request `miu` core cycles plus
//! `(i + 1)·router_mesh_cycles` mesh cycles after issue, the reply `miu`
//! plus `n·router_mesh_cycles + S + (i + 1)·router_mesh_cycles`, `S` being
//! the mesh cycles the target's row of the table spends at the target
//! (`memctl_mesh_cycles` at a controller, none at an MPB or register block,
//! whose formula has none).
//! A link's service is its packet's length: the request carries a store's
//! data, the reply a load's, each in 16-byte flits behind a header flit (a
//! load's request and a store's acknowledgement: the header alone). These
//! times only place the packets in the calendars: an access that waits for
//! nobody costs what the table says, and a core alone never waits for its
//! own packets. The FPGA's registers are charged as a multiple of a
//! register access ([`chip::Timing::fpga_factor`]), not as packets, and
//! book no link.
//!
//! A refresh is judged at the time the request reaches its controller as
//! the calendar books it (the core's clock, whose queue waits are charged
//! later, plus the request's arrival): periodic in modelled time from 0,
//! the same for every core and every run. It delays the request, which is
//! booked at the refresh's end: requests that arrive during one refresh
//! all queue there, with each other, as the calendar says. The wait counts
//! as the controller's (`Class::MemctlWait`).

use chip::{Chip, CoreId, Target, Timing};

use super::dram::Ddr3;
use super::mesh::{self, Link, MAX_LINKS};
use super::stats::{MAX_CONTROLLERS, MAX_TILES};
use super::variation::{self, MeshAccess, Variation};

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
    /// Waiting for a mesh link busy with other cores' packets.
    LinkWait,
    /// Reads of the core's own cycle counter (`chip::EmuCall::ClockLatch`).
    Clock,
    /// Stores (and WCB flushes) that went into the write buffers
    /// ([`super::write_buffer`]): they cost the core nothing themselves.
    Buffered,
    /// Waiting for the write buffers: for a free one, or for the buffered
    /// writes to complete before an access that must follow them.
    BufferWait,
    /// The cycle an access to the mesh may add as it crosses from the
    /// core's clock to the mesh's and back ([`super::variation::crossing`]):
    /// counted apart from its class, whose stall is then the table's.
    Crossing,
    /// An operation of the remote atomic unit (`chip::RemoteAtomics`): one
    /// transaction to a controller or MPB, the unit's read, service and
    /// write there (the wait for a busy controller or MPB, a link, is that
    /// resource's class).
    Atomic,
}

/// Number of [`Class`]es.
pub const CLASSES: usize = 19;

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
        Class::LinkWait,
        Class::Clock,
        Class::Buffered,
        Class::BufferWait,
        Class::Crossing,
        Class::Atomic,
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
            Class::LinkWait => "link-wait",
            Class::Clock => "clock",
            Class::Buffered => "buffered",
            Class::BufferWait => "write-buffer",
            Class::Crossing => "crossing",
            Class::Atomic => "RAU",
        }
    }
}

/// A resource that serves one access at a time (a memory controller: one
/// line at a time, several in flight), so that accesses from several
/// cores queue at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// A memory controller, by index.
    Controller(usize),
    /// The MPB of a tile, by tile index.
    Mpb(usize),
    /// The configuration register block (test-and-set registers, LUTs) of
    /// a tile, by tile index.
    Crb(usize),
    /// A directed link between two neighbouring routers.
    Link(Link),
}

/// Cycles per calendar bucket of a memory controller: about one DRAM
/// access (76 to 116 core cycles uncontended), so that a core streaming
/// from DRAM books a controller about once a bucket, and some twenty of
/// its 6-cycle services ([`super::dram`]; a stated assumption: small
/// enough that a bucket is one moment of contention, large enough that
/// `SLOTS` buckets cover far more than cores drift apart; see
/// [`super::queue`]).
const CONTROLLER_BUCKET: u64 = 128;

/// Cycles per calendar bucket of an MPB, register block or link: a few of
/// their 3-cycle services, and 16 of a link's longest packet (the same
/// stated assumption; a smaller bucket would need more slots to cover the
/// same time).
const SMALL_BUCKET: u64 = 32;

/// Parts of a cycle in which a link's waits are computed and summed before
/// they are charged: a link's service is one or two cycles, so the mean
/// wait of a packet among a few others in its bucket is a fraction of a
/// cycle, which rounding down each time would lose. A core charges the
/// whole cycles of its sum as they add up (not a model parameter: the
/// precision of the arithmetic).
pub const LINK_WAIT_SCALE: u64 = 1024;

impl Resource {
    /// Its calendar among the run's ([`crate::timing`]): the memory
    /// controllers' first, then each tile's MPB's, then each tile's
    /// register block's, then each link's ([`Link::index`]).
    #[inline(always)]
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
            Resource::Link(link) => {
                assert!(link.index() < MAX_LINKS, "{link:?}");
                MAX_CONTROLLERS + 2 * MAX_TILES + link.index()
            }
        }
    }

    /// The resource of calendar `i` (the inverse of [`Resource::calendar`]).
    pub fn from_calendar(i: usize) -> Self {
        match i {
            i if i < MAX_CONTROLLERS => Resource::Controller(i),
            i if i < MAX_CONTROLLERS + MAX_TILES => Resource::Mpb(i - MAX_CONTROLLERS),
            i if i < MAX_CONTROLLERS + 2 * MAX_TILES => {
                Resource::Crb(i - MAX_CONTROLLERS - MAX_TILES)
            }
            i => Resource::Link(Link::from_index(i - MAX_CONTROLLERS - 2 * MAX_TILES)),
        }
    }

    /// Cycles per bucket of its calendar ([`super::queue`]).
    #[inline]
    pub fn bucket(self) -> u64 {
        match self {
            Resource::Controller(_) => CONTROLLER_BUCKET,
            Resource::Mpb(_) | Resource::Crb(_) | Resource::Link(_) => SMALL_BUCKET,
        }
    }

    /// Parts of a cycle its waits are computed in before they are charged:
    /// [`LINK_WAIT_SCALE`] for a link, whole cycles for the others.
    #[inline]
    pub fn wait_scale(self) -> u64 {
        match self {
            Resource::Link(_) => LINK_WAIT_SCALE,
            Resource::Controller(_) | Resource::Mpb(_) | Resource::Crb(_) => 1,
        }
    }

    /// The bucket of its calendar that a request arriving at `arrival`
    /// falls in.
    #[inline]
    pub fn bucket_of(self, arrival: u64) -> u64 {
        arrival / self.bucket()
    }

    /// The class of the cycles spent waiting for it.
    pub const fn wait_class(self) -> Class {
        match self {
            Resource::Controller(_) => Class::MemctlWait,
            Resource::Mpb(_) => Class::MpbWait,
            Resource::Crb(_) => Class::CrbWait,
            Resource::Link(_) => Class::LinkWait,
        }
    }
}

/// Calendars the run's clocks file holds: one per [`Resource`] a chip may
/// have ([`Resource::calendar`] gives each its number).
pub const QUEUES: usize = MAX_CONTROLLERS + 2 * MAX_TILES + MAX_LINKS;

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

/// A link an access's packets cross (the module's docs, "Links").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// The link.
    pub link: Link,
    /// Core cycles from issue until the packet reaches it.
    pub arrival: u64,
    /// Whether the request crosses it (else the reply does).
    pub request: bool,
}

/// The data an access moves over the mesh, which sets how long its packets
/// keep each link busy: `bytes` of data, carried by the request (a store,
/// a write-back) or by the reply (a load, a fill).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payload {
    /// Bytes of data.
    pub bytes: u32,
    /// Whether the request carries them (else the reply does).
    pub outbound: bool,
}

impl Payload {
    /// A load of `bytes` (a line's 32 for a fill).
    pub const fn load(bytes: u32) -> Self {
        Self {
            bytes,
            outbound: false,
        }
    }

    /// A store of `bytes` (a line's 32 for a write-back or WCB flush).
    pub const fn store(bytes: u32) -> Self {
        Self {
            bytes,
            outbound: true,
        }
    }

    /// Core cycles a link is busy with the request's packet and with the
    /// reply's ([`Timing::packet_flits`], [`Timing::link_service`]).
    pub fn services(self, t: &Timing) -> (u64, u64) {
        let (request, reply) = if self.outbound {
            (self.bytes, 0)
        } else {
            (0, self.bytes)
        };
        (
            t.link_service(t.packet_flits(request)),
            t.link_service(t.packet_flits(reply)),
        )
    }
}

/// One access to a target, before any queueing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost<'a> {
    /// Its class.
    pub class: Class,
    /// Core cycles without waiting for a busy resource.
    pub cycles: u64,
    /// Where it queues, if at a resource that serves one access at a time
    /// (an FPGA register does not: the FPGA bank is per core).
    pub queue: Option<Queue>,
    /// The links its request and its reply cross, the request's first, each
    /// way in order (none to the core's own tile, nor to the FPGA).
    pub hops: &'a [Hop],
    /// Mesh cycles of its round trip (none to the FPGA): `cycles` holds
    /// them rounded up to core cycles, [`Latencies::crossing`] what the
    /// two clocks' edges add.
    pub mesh: u64,
}

/// How one core reaches a tile or a controller.
#[derive(Debug, Clone)]
struct Way {
    /// Core cycles until the request reaches the target.
    arrival: u64,
    /// Core cycles of the whole access.
    cycles: u64,
    /// Mesh cycles of the whole access.
    mesh: u64,
    /// The links crossed, the request's first.
    hops: Vec<Hop>,
}

/// The latencies one core sees, per target.
#[derive(Debug, Clone)]
pub struct Latencies {
    timing: Timing,
    tile: usize,
    /// The core.
    core: u32,
    /// Where its accesses meet the mesh clock ([`Variation::access_phase`]).
    variation: Variation,
    /// Per controller: where its refreshes fall ([`Variation::refresh_phase`]).
    refresh_phases: Vec<u64>,
    /// Per tile: an MPB (or CRB) access.
    mpb: Vec<Way>,
    /// Per controller: a DRAM access.
    dram: Vec<Way>,
    /// Core cycles a controller takes per line with several requests in
    /// flight ([`super::dram::Ddr3::line_service`]).
    controller_service: u64,
    fpga: u64,
    /// The remote atomic unit, if the chip has one: per tile and per
    /// controller, an operation there (none where no unit sits), and how
    /// long the unit keeps the MPB and the controller busy.
    atomics: Option<AtomicWays>,
}

/// How one core reaches the remote atomic units.
#[derive(Debug, Clone)]
struct AtomicWays {
    /// Per tile: an operation at its MPB's unit.
    mpb: Vec<Way>,
    /// Per controller: an operation at its unit.
    dram: Vec<Way>,
    /// Whether units sit at the MPBs.
    at_mpbs: bool,
    /// Whether units sit at the controllers.
    at_controllers: bool,
    /// Core cycles an MPB is busy with an operation: two port times and
    /// the service.
    mpb_service: u64,
    /// Core cycles a controller is busy with an operation: two line
    /// services and the unit's service.
    controller_service: u64,
}

/// The cost of an access that goes `way` and queues at `resource` for
/// `service` cycles, as `class`.
fn queued(class: Class, way: &Way, resource: Resource, service: u64) -> Cost<'_> {
    Cost {
        class,
        cycles: way.cycles,
        queue: Some(Queue {
            resource,
            arrival: way.arrival,
            service,
        }),
        hops: &way.hops,
        mesh: way.mesh,
    }
}

impl Latencies {
    /// The latencies of `core` of `chip`, the clocks' crossings and the
    /// controllers' refreshes as `variation` draws them.
    pub fn new(chip: &Chip, core: CoreId, variation: Variation) -> Self {
        let t = chip.timing;
        let here = chip.tile_coord(chip.tile_of(core));
        let mpb = chip
            .all_tiles()
            .map(|tile| {
                let there = chip.tile_coord(tile);
                let n = mesh::routers(chip, here, there);
                Way {
                    arrival: t.miu_mpb as u64 + t.mesh_to_core(routers_mesh(&t, n)),
                    cycles: t.mpb_access(n),
                    mesh: t.round_trip_mesh(n),
                    hops: hops(chip, here, there, t.miu_mpb as u64, 0),
                }
            })
            .collect();
        let dram = chip
            .memory_controllers
            .iter()
            .map(|mc| {
                let n = mesh::routers(chip, here, mc.port.tile);
                Way {
                    arrival: t.miu_dram as u64 + t.mesh_to_core(routers_mesh(&t, n)),
                    cycles: t.dram_access(n),
                    mesh: t.round_trip_mesh(n) + u64::from(t.memctl_mesh_cycles),
                    hops: hops(
                        chip,
                        here,
                        mc.port.tile,
                        t.miu_dram as u64,
                        u64::from(t.memctl_mesh_cycles),
                    ),
                }
            })
            .collect();
        let sif = mesh::routers(chip, here, chip.system_interface.tile);
        let tile = chip.tile_of(core).index();
        let controller_service = Ddr3::of(&t).line_service(&t);
        let atomics = chip.remote_atomics.map(|rau| {
            let mpb_extra = rau.mpb_extra_mesh(&t);
            let dram_extra = rau.controller_extra_mesh(&t);
            let memctl = u64::from(t.memctl_mesh_cycles);
            AtomicWays {
                mpb: chip
                    .all_tiles()
                    .map(|tile| {
                        let there = chip.tile_coord(tile);
                        let n = mesh::routers(chip, here, there);
                        Way {
                            arrival: t.miu_mpb as u64 + t.mesh_to_core(routers_mesh(&t, n)),
                            cycles: rau.mpb_access(&t, n),
                            mesh: t.round_trip_mesh(n) + mpb_extra,
                            hops: hops(chip, here, there, t.miu_mpb as u64, mpb_extra),
                        }
                    })
                    .collect(),
                dram: chip
                    .memory_controllers
                    .iter()
                    .map(|mc| {
                        let n = mesh::routers(chip, here, mc.port.tile);
                        Way {
                            arrival: t.miu_dram as u64 + t.mesh_to_core(routers_mesh(&t, n)),
                            cycles: rau.controller_access(&t, n),
                            mesh: t.round_trip_mesh(n) + memctl + dram_extra,
                            hops: hops(
                                chip,
                                here,
                                mc.port.tile,
                                t.miu_dram as u64,
                                memctl + dram_extra,
                            ),
                        }
                    })
                    .collect(),
                at_mpbs: rau.mpbs,
                at_controllers: rau.controllers,
                mpb_service: 2 * t.mpb_port_service()
                    + t.mesh_to_core(u64::from(rau.service_mesh_cycles)),
                controller_service: 2 * controller_service
                    + t.mesh_to_core(u64::from(rau.service_mesh_cycles)),
            }
        });
        Self {
            timing: t,
            tile,
            core: core.index() as u32,
            variation,
            refresh_phases: (0..chip.memory_controllers.len())
                .map(|c| variation.refresh_phase(&t, c))
                .collect(),
            mpb,
            dram,
            controller_service,
            fpga: u64::from(t.fpga_factor) * t.mpb_access(sif),
            atomics,
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
            Resource::Controller(c) => refresh_wait(
                arrival + self.refresh_phases.get(c).copied().unwrap_or(0),
                self.timing.dram_refresh_interval(),
                self.timing.dram_refresh(),
            ),
            Resource::Mpb(_) | Resource::Crb(_) | Resource::Link(_) => 0,
        }
    }

    /// The core cycles an access costing `cost`, the core's mesh access
    /// `access`, adds to its `cycles` as it crosses from the
    /// core's clock to the mesh's and back ([`variation::crossing`]): 0
    /// or 1.
    pub fn crossing(&self, cost: &Cost<'_>, access: MeshAccess) -> u64 {
        let to_edge = self.variation.access_phase(&self.timing, self.core, access);
        variation::crossing(&self.timing, to_edge, cost.mesh)
    }

    /// What one access (load or store) to `target` costs, or `None` for a
    /// target that is not on the mesh.
    pub fn target(&self, target: Target) -> Option<Cost<'_>> {
        let t = &self.timing;
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
                    self.mpb.get(i)?,
                    Resource::Mpb(i),
                    t.mpb_port_service(),
                )
            }
            Target::Crb(tile) => {
                let i = tile.index();
                queued(
                    Class::Register,
                    self.mpb.get(i)?,
                    Resource::Crb(i),
                    t.crb_service(),
                )
            }
            Target::Dram { controller, .. } => queued(
                Class::Dram,
                self.dram.get(controller)?,
                Resource::Controller(controller),
                self.controller_service,
            ),
            Target::Fpga => Cost {
                class: Class::Fpga,
                cycles: self.fpga,
                queue: None,
                hops: &[],
                mesh: 0,
            },
            Target::Nothing => return None,
        })
    }

    /// What one operation of the remote atomic unit at `target` costs:
    /// `None` if no unit sits there (the chip has none, or not at that
    /// kind of target).
    pub fn atomic(&self, target: Target) -> Option<Cost<'_>> {
        let a = self.atomics.as_ref()?;
        let (way, resource, service) = match target {
            Target::Mpb(tile) if a.at_mpbs => (
                a.mpb.get(tile.index())?,
                Resource::Mpb(tile.index()),
                a.mpb_service,
            ),
            Target::Dram { controller, .. } if a.at_controllers => (
                a.dram.get(controller)?,
                Resource::Controller(controller),
                a.controller_service,
            ),
            _ => return None,
        };
        Some(queued(Class::Atomic, way, resource, service))
    }

    /// Every resource an access to `target` moving `payload` queues at,
    /// with its packets' services: the links of the request's way, the
    /// target, the links of the reply's way, in that order: what a waiting
    /// core's polls reach, and what the engine books for an access.
    pub fn queues(&self, target: Target, payload: Payload) -> impl Iterator<Item = Queue> + '_ {
        let cost = self.target(target);
        let (request, reply) = payload.services(&self.timing);
        let (endpoint, hops) = match cost {
            Some(c) => (c.queue, c.hops),
            None => (None, &[][..]),
        };
        let link = move |h: &Hop| Queue {
            resource: Resource::Link(h.link),
            arrival: h.arrival,
            service: if h.request { request } else { reply },
        };
        let out = hops.iter().filter(|h| h.request).map(link);
        let back = hops.iter().filter(|h| !h.request).map(link);
        out.chain(endpoint).chain(back)
    }
}

/// Mesh cycles to cross `n` routers.
fn routers_mesh(t: &Timing, n: u32) -> u64 {
    u64::from(n) * u64::from(t.router_mesh_cycles)
}

/// The links an access from router `here` to router `there` crosses and
/// when its packets reach them, `miu` core cycles leaving the core and
/// `at_target` mesh cycles spent at the target before the reply leaves
/// (the module's docs, "Links").
fn hops(
    chip: &Chip,
    here: chip::TileCoord,
    there: chip::TileCoord,
    miu: u64,
    at_target: u64,
) -> Vec<Hop> {
    let t = &chip.timing;
    let n = mesh::routers(chip, here, there);
    let request = mesh::links(chip, here, there)
        .enumerate()
        .map(|(i, link)| Hop {
            link,
            arrival: miu + t.mesh_to_core(routers_mesh(t, i as u32 + 1)),
            request: true,
        });
    let reply = mesh::links(chip, there, here)
        .enumerate()
        .map(|(i, link)| Hop {
            link,
            arrival: miu
                + t.mesh_to_core(routers_mesh(t, n) + at_target + routers_mesh(t, i as u32 + 1)),
            request: false,
        });
    request.chain(reply).collect()
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
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn every_calendar_names_one_resource_and_back() {
        for i in 0..QUEUES {
            let r = Resource::from_calendar(i);
            assert_eq!(r.calendar(), i, "{r:?}");
        }
        assert_eq!(Resource::from_calendar(0), Resource::Controller(0));
        assert_eq!(Resource::from_calendar(MAX_CONTROLLERS), Resource::Mpb(0));
        assert_eq!(
            Resource::from_calendar(MAX_CONTROLLERS + MAX_TILES),
            Resource::Crb(0)
        );
        let first = Resource::from_calendar(MAX_CONTROLLERS + 2 * MAX_TILES);
        assert_eq!(first, Resource::Link(Link::from_index(0)));
        let last = Resource::from_calendar(QUEUES - 1);
        assert_eq!(last, Resource::Link(Link::from_index(MAX_LINKS - 1)));
        assert_eq!(last.wait_class(), Class::LinkWait);
        assert_eq!(
            (last.bucket(), last.wait_scale()),
            (SMALL_BUCKET, LINK_WAIT_SCALE)
        );
        assert_eq!(Resource::Mpb(3).wait_scale(), 1);
    }

    fn core_strategy() -> impl Strategy<Value = CoreId> {
        (0..SCC.cores()).prop_map(|n| SCC.core(n).unwrap())
    }

    fn target_strategy() -> impl Strategy<Value = Target> {
        prop_oneof![
            (0..SCC.tiles()).prop_map(|t| Target::Mpb(SCC.tile(t).unwrap())),
            (0..SCC.tiles()).prop_map(|t| Target::Crb(SCC.tile(t).unwrap())),
            (0..SCC.memory_controllers.len()).prop_map(|controller| Target::Dram {
                controller,
                page: 0
            }),
        ]
    }

    proptest! {
        /// A packet reaches each link of its route a router later than the
        /// one before, the request's all before the target, the reply's
        /// all after it and before the access ends; what the access costs
        /// is the table's, links or not.
        #[test]
        fn packets_reach_the_links_of_their_way_in_order(
            core in core_strategy(),
            target in target_strategy(),
            bytes in 0u32..=32,
            store in any::<bool>(),
        ) {
            let l = Latencies::new(&SCC, core, Variation::new(0));
            let t = SCC.timing;
            let cost = l.target(target).unwrap();
            let q = cost.queue.unwrap();
            let here = SCC.tile_coord(SCC.tile_of(core));
            let there = mesh::router_of(&SCC, target).unwrap();
            let n = mesh::routers(&SCC, here, there);
            let expected = match target {
                Target::Dram { .. } => t.dram_access(n),
                _ => t.mpb_access(n),
            };
            prop_assert_eq!(cost.cycles, expected);
            let request: Vec<Hop> = cost.hops.iter().filter(|h| h.request).copied().collect();
            let reply: Vec<Hop> = cost.hops.iter().filter(|h| !h.request).copied().collect();
            prop_assert_eq!(cost.hops.len(), request.len() + reply.len());
            prop_assert!(cost.hops[..request.len()].iter().all(|h| h.request), "the request's first");
            let want: Vec<Link> = mesh::links(&SCC, here, there).collect();
            prop_assert_eq!(request.iter().map(|h| h.link).collect::<Vec<_>>(), want);
            let want: Vec<Link> = mesh::links(&SCC, there, here).collect();
            prop_assert_eq!(reply.iter().map(|h| h.link).collect::<Vec<_>>(), want);
            for w in request.windows(2).chain(reply.windows(2)) {
                // 4 mesh cycles a router: 2.67 core cycles, 2 or 3.
                let step = w[1].arrival - w[0].arrival;
                prop_assert!((2..=3).contains(&step), "{:?}", w);
            }
            if let Some(last) = request.last() {
                prop_assert!(last.arrival < q.arrival);
            }
            if let Some(first) = reply.first() {
                prop_assert!(first.arrival > q.arrival);
            }
            if let Some(last) = reply.last() {
                prop_assert!(last.arrival < cost.cycles);
            }
            // What a poll books, or an access: the request's links, the
            // target, the reply's links; the data's packet is the longer.
            let payload = if store { Payload::store(bytes) } else { Payload::load(bytes) };
            let queues: Vec<Queue> = l.queues(target, payload).collect();
            prop_assert_eq!(queues.len(), cost.hops.len() + 1);
            prop_assert_eq!(queues[request.len()], q);
            let (out, back) = payload.services(&t);
            let data = t.link_service(t.packet_flits(bytes));
            prop_assert_eq!(if store { (out, back) } else { (back, out) }, (data, 1));
            for (queue, hop) in queues[..request.len()].iter().zip(&request) {
                prop_assert_eq!(*queue, Queue { resource: Resource::Link(hop.link), arrival: hop.arrival, service: out });
            }
            for (queue, hop) in queues[request.len() + 1..].iter().zip(&reply) {
                prop_assert_eq!(*queue, Queue { resource: Resource::Link(hop.link), arrival: hop.arrival, service: back });
            }
        }
    }

    #[test]
    fn a_remote_access_crosses_the_links_of_both_ways_at_the_routers_it_reached() {
        let t = SCC.timing;
        // Core 0 on tile (0,0) reads tile (2,1)'s MPB: out east, east,
        // north; back west, west along row 1, then south.
        let l = Latencies::new(&SCC, SCC.core(0).unwrap(), Variation::new(0));
        let cost = l.target(Target::Mpb(SCC.tile(8).unwrap())).unwrap();
        let at = |x, y| chip::TileCoord { x, y };
        let hops: Vec<(Link, u64, bool)> = cost
            .hops
            .iter()
            .map(|h| (h.link, h.arrival, h.request))
            .collect();
        let link = |a, b| Link::between(&SCC, a, b);
        // 45 core cycles out of the core, then 4 mesh cycles a router:
        // 1, 2, 3 routers crossed are 2.67, 5.33, 8 core cycles; the MPB
        // is reached after 4 routers (10.67), the reply's links after
        // 5, 6, 7 (13.33, 16, 18.67); the access ends after 8 (21.33).
        assert_eq!(
            hops,
            [
                (link(at(0, 0), at(1, 0)), 45 + 3, true),
                (link(at(1, 0), at(2, 0)), 45 + 6, true),
                (link(at(2, 0), at(2, 1)), 45 + 8, true),
                (link(at(2, 1), at(1, 1)), 45 + 14, false),
                (link(at(1, 1), at(0, 1)), 45 + 16, false),
                (link(at(0, 1), at(0, 0)), 45 + 19, false),
            ]
        );
        assert_eq!(cost.queue.unwrap().arrival, 45 + 11);
        assert_eq!(cost.cycles, 45 + 22);
        assert_eq!(cost.cycles, t.mpb_access(4));
        // DRAM: the reply leaves after the controller's 46 mesh cycles.
        let mc0 = l
            .target(Target::Dram {
                controller: 0,
                page: 0,
            })
            .unwrap();
        // Controller 0 hangs off router (0,0): no link either way.
        assert!(mc0.hops.is_empty());
        let mc1 = l
            .target(Target::Dram {
                controller: 1,
                page: 0,
            })
            .unwrap();
        let first_reply = mc1.hops.iter().find(|h| !h.request).unwrap();
        let n = mesh::routers(&SCC, at(0, 0), SCC.memory_controllers[1].port.tile);
        assert_eq!(
            first_reply.arrival,
            40 + t.mesh_to_core(4 * u64::from(n) + 46 + 4)
        );
        // The own tile's MPB is one router away: no link.
        let own = l.target(Target::Mpb(SCC.tile(0).unwrap())).unwrap();
        assert!(own.hops.is_empty());
        assert!(l.target(Target::Fpga).unwrap().hops.is_empty());
    }

    #[test]
    fn latencies_grow_by_one_router_per_hop() {
        let core0 = SCC.core(0).unwrap();
        let l = Latencies::new(&SCC, core0, Variation::new(0));
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
        // A line every 4 DRAM clocks (8 mesh cycles), not one access per
        // 46: the controller has several requests in flight.
        assert_eq!(q.service, t.mesh_to_core(8));
        assert!(q.service * 5 < t.mesh_to_core(u64::from(t.memctl_mesh_cycles)));
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
