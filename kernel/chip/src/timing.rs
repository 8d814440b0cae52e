// SPDX-License-Identifier: MIT OR Apache-2.0
//! The chip's timing parameters: one table, each value with its source.
//!
//! Sources, strongest first:
//! - **\[thesis\]**: the SCC one-sided thesis (Christgau 2017), its sections
//!   as numbered in the project's reference notes;
//! - **\[JSSC\]**: the SCC mesh paper (Salihundam et al., "A 2 Tb/s 6×4
//!   mesh network for a Single-Chip Cloud Computer with DVFS in 45 nm
//!   CMOS", IEEE JSSC 46(4), 2011), as the thesis's notes quote it, and its
//!   abstract;
//! - **\[EAS\]**: the latency formulas of Intel's SCC documentation (External
//!   Architecture Specification, and "The 48-core SCC processor: the
//!   programmer's view", SC10): an MPB line costs "45 core cycles + 4·2·n
//!   mesh cycles" and a DRAM line "40 core cycles + 4·2·n mesh cycles + 46
//!   memory cycles", n being the routers crossed. These are quoted as the
//!   SCC literature cites them; the primary documents were not at hand
//!   when this table was written, so they are the first values to check
//!   against them;
//! - **\[Pentium\]**: the P54C's own documented behaviour;
//! - **\[PSR\]**: "Intel Pentium Instruction Set Reference", the clock
//!   counts of Intel's Pentium manual per instruction (a mirror of
//!   jsimlo.sk/docs/cpu; the emulator's core model, `emu::model::p54c`,
//!   takes its instruction costs from the same pages);
//! - **\[SDM\]**: Intel 64 and IA-32 Architectures Software Developer's
//!   Manual, vol. 3: §8.2.1 (memory ordering in the Pentium) and the
//!   chapter "Architecture Compatibility" on the Pentium's store buffers.
//!   Intel's Pentium Processor Family Developer's Manual (vol. 1), which
//!   describes the same buffers, was not at hand; the SDM's text is
//!   quoted instead;
//! - **\[JEDEC\]**: the DDR3 SDRAM standard (JESD79-3), for what every
//!   DDR3 device does whatever controller drives it (the SCC's four
//!   memory controllers drive DDR3);
//! - **\[SCC forum\]**: Intel's answer in the SCC community forum on
//!   the cores' clocks ("Clock Synchronization",
//!   communities.intel.com/thread/20377, 2011): how the management
//!   console releases the cores from reset;
//! - **none**: no datasheet-level number exists; the value is a stated
//!   assumption, chosen from the structure of the hardware and never from
//!   a benchmark result.
//!
//! No value here was tuned to make any benchmark come out right.

/// Every latency and clock the emulator's timing model uses.
///
/// Core cycles run at [`Timing::core_mhz`], mesh cycles (routers and memory
/// controllers) at [`Timing::mesh_mhz`]. A latency is the time from the
/// core issuing an access until it can go on: the P54C has one outstanding
/// access and stalls until it completes (\[thesis\] 1.1). A store that
/// leaves the core is the exception: it waits in a write buffer
/// ([`Timing::write_buffers`]) and the core goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Core clock in MHz. \[thesis\] 1.8: "cores operate at 533 MHz".
    pub core_mhz: u32,
    /// Clock of the routers and memory controllers in MHz. \[thesis\] 1.8:
    /// "the on-chip network routers and memory controllers run at 800 MHz".
    pub mesh_mhz: u32,
    /// Core cycles of one simple instruction issued alone. \[Pentium\]:
    /// most integer instructions take one clock in either pipe. The
    /// emulator charges instructions from its P54C model instead (pairing,
    /// multi-cycle instructions: `emu::model::p54c`), which issues WBINVD,
    /// INVD, CL1INVMB and each of the clock read's three moves in one such
    /// cycle; the costs of cache operations and clock reads below include
    /// those cycles, and the emulator charges the rest.
    pub insn_cycles: u32,
    /// Load hitting L1, in core cycles. \[Pentium\]: a data-cache hit
    /// completes in the instruction's own clock, so it adds nothing beyond
    /// [`Timing::insn_cycles`].
    pub l1_hit: u32,
    /// Access served by L2, in core cycles. \[thesis\] 1.4 quotes Intel: a
    /// local MPB access "is three times slower than the L2 cache (18 core
    /// clock cycles)"; read here as the L2's latency, which the \[EAS\] local
    /// MPB formula (about 51 core cycles) agrees with.
    pub l2_hit: u32,
    /// Core-side cost of an access that leaves the core for an MPB or a
    /// configuration register (L1/L2 miss, mesh interface unit), in core
    /// cycles. \[EAS\]: "45 core cycles"; CRB and test-and-set registers sit
    /// in the same mesh interface unit, for which no separate number exists
    /// (none: taken equal).
    pub miu_mpb: u32,
    /// Core-side cost of an access that leaves the core for DRAM, in core
    /// cycles. \[EAS\]: "40 core cycles".
    pub miu_dram: u32,
    /// Mesh cycles per router crossed, each way. \[JSSC\]: "a per-hop latency
    /// of 4 cycles". XY routing; the request crosses the core's own router
    /// too, even for the local MPB: "a documented hardware bug prevents a
    /// network bypass" (\[thesis\] 1.4).
    pub router_mesh_cycles: u32,
    /// Memory controller latency per line, in mesh (controller) cycles:
    /// from the request reaching the controller to the reply leaving it.
    /// \[EAS\]: "46 memory cycles". The DDR3 device's part of it is
    /// tRCD + CL + the burst ([`Timing::dram_trcd`] and the fields after
    /// it: 35 ns, 28 cycles); the rest is the controller's own, which no
    /// document at hand breaks down. A controller has several requests in
    /// flight: it serves a line every few cycles, as its banks and bus
    /// allow (`emu::model::dram`), not one per latency.
    pub memctl_mesh_cycles: u32,
    /// Bytes a mesh link carries at once: one flit. \[JSSC\] abstract: the
    /// routers are joined by "16B, 5.4 mm wide links".
    pub flit_bytes: u32,
    /// Mesh cycles a link takes to carry one flit, each direction on its
    /// own. \[JSSC\] abstract: "2 Tb/s of bisectional bandwidth" and a
    /// "1.28 Tb/s router" at the 2 GHz the paper measured: the bisection of
    /// the 6×4 mesh is 4 links each way, 8 × 16 B × 2 GHz = 2.05 Tb/s, and a
    /// router's 5 ports give 5 × 16 B × 2 GHz = 1.28 Tb/s, so one flit per
    /// mesh cycle per link and direction. Each link serves one packet at a
    /// time (see `emu::model::latency`, "Links").
    pub link_flit_mesh_cycles: u32,
    /// Flits of a packet besides its data: the header that carries the
    /// command and address. None of the documents at hand gives the SCC's
    /// packet format (none: one header flit taken, ahead of the data in
    /// [`Timing::flit_bytes`] flits; a request without data, such as a
    /// load's, and a store's acknowledgement are the header alone).
    pub header_flits: u32,
    /// How long a tile's MPB is busy with one access (a line or less), in
    /// mesh cycles: it serves one request at a time, so requests from
    /// several cores queue. No document gives an occupancy (none: taken as
    /// one router's per-hop time, [`Timing::router_mesh_cycles`], the mesh's
    /// one documented per-step time).
    pub mpb_port_mesh_cycles: u32,
    /// How long a tile's configuration register block (its test-and-set
    /// registers and LUTs) is busy with one access, in mesh cycles (none:
    /// taken equal to [`Timing::mpb_port_mesh_cycles`], as it sits behind
    /// the same mesh interface).
    pub crb_mesh_cycles: u32,
    /// Requests a tile's mesh interface unit takes from its router's tile
    /// port for the register block and the MPB, the one being served
    /// included: the rest wait in the router's input ports. No document at
    /// hand gives the MIU's input buffering (none: one taken, the request in
    /// service; see `emu::model::backpressure`).
    pub miu_queue_packets: u32,
    /// Virtual channels of one router input port that a request packet may
    /// take, each holding one whole packet (a request is one to three
    /// flits). \[JSSC\] abstract: the router uses "virtual channel (VC) flow
    /// control" and a "Wrapped Wave-Front Allocator", whose rotating
    /// priority serves the input ports in turn; it gives neither the number
    /// of VCs nor how requests and replies share them (none: four taken,
    /// half of eight, the other half for replies, which a mesh carrying
    /// requests and replies keeps apart so that replies are never blocked
    /// by requests). A port whose request VCs are all held by packets for
    /// a busy register block or MPB takes no further request: the packets
    /// behind it wait on the link (see `emu::model::backpressure`).
    pub router_request_vcs: u32,
    /// How many times slower a register of the FPGA bank (the global
    /// timestamp, atomic increment registers) is than a test-and-set
    /// register of the system interface's router. \[thesis\] 1.6: AIR access
    /// latency is "four times higher" than that of the TSRs.
    pub fpga_factor: u32,
    /// WBINVD, in core cycles, the instruction's own cycle and its
    /// write-backs included. \[thesis\] 1.2: it "requires more than 10,000
    /// clock cycles"; taken as exactly that. (Intel's instruction reference
    /// for the Pentium gives "2000+" clocks, for the P54C's smaller L1 and
    /// without the SCC's mesh behind it; the thesis measured the SCC.)
    pub wbinvd: u32,
    /// INVD, in core cycles, the instruction's own cycle included.
    /// \[Pentium\]: Intel's instruction set reference gives INVD 15 clocks
    /// (reproduced at faydoc.tripod.com/cpu/invd.htm: "Clocks 15").
    pub invd: u32,
    /// CL1INVMB, in core cycles, the instruction's own cycle included. No
    /// document gives a number (none: taken equal to [`Timing::invd`],
    /// which invalidates L1 lines without writing them back, as CL1INVMB
    /// does for the MPBT-tagged ones).
    pub cl1invmb: u32,
    /// A read of the core's own cycle counter, in core cycles: what RDTSC
    /// costs on the P54C, charged for the emulator's clock latch and its
    /// two reads (`EmuCall::ClockLatch`; their issue cycles,
    /// [`Timing::clock_read_issue`], included). \[PSR\] RDTSC: "6-7"
    /// clocks, not pairable; the larger is taken.
    pub clock_read: u32,
    /// How often a DRAM device refreshes, in nanoseconds. \[JEDEC\]: the
    /// average periodic refresh interval tREFI is 7.8 µs at 0-85 °C. Each
    /// controller refreshes on its own schedule, its phase drawn from the
    /// run's seed (none: the controllers' refresh phases are not
    /// documented; `emu::model::variation`).
    pub dram_refresh_interval_ns: u32,
    /// How long a refresh keeps a DRAM device from serving requests, in
    /// nanoseconds. \[JEDEC\]: tRFC is 160 ns for 2 Gb devices (110 ns for
    /// 1 Gb, 260 ns for 4 Gb); the density of the SCC boards' DIMMs is not
    /// in the references (none: 2 Gb taken).
    pub dram_refresh_ns: u32,
    /// The spread of the moments the cores leave reset, in nanoseconds:
    /// each core's clock starts at a moment drawn from the run's seed in
    /// `0..reset_spread_ns` (`emu::model::variation`). \[SCC forum\]: the
    /// management console releases each core's reset on its own, in a
    /// loop, "but there is still a finite skew between cores due to the
    /// reset loop overhead"; its size is not in the references (none: one
    /// microsecond taken, about one register write over the system
    /// interface).
    pub reset_spread_ns: u32,
    /// Write buffers between the core and its bus: a store that leaves
    /// the core (to L2, DRAM or an MPB, or a line the write-combine buffer
    /// writes out) waits in one and the core goes on. \[SDM\]
    /// "Architecture Compatibility": "The Pentium processor has two store
    /// buffers, one corresponding to each of the pipelines. Writes in these
    /// buffers are always written to memory in the order they were
    /// generated by the processor core." Which pipe issued a store is not
    /// known where the emulator sees it (none: either buffer takes any
    /// store, in turn). When both are full, the next store waits for the
    /// oldest to complete.
    ///
    /// What a buffered write waits for: \[SDM\] "No reads (as a result of
    /// cache miss) are reordered around previously generated writes sitting
    /// in the store buffers. The implication of this is that the store
    /// buffers will be flushed or emptied before a subsequent bus cycle is
    /// run on the external bus", except that \[SDM\] §8.2.1 "Read misses are
    /// permitted to go ahead of buffered writes on the system bus when all
    /// the buffered writes are cache hits" (not modelled: every load that
    /// leaves L1 waits, the stricter reading). The buffers drain before a
    /// locked access and a serialising instruction: "An I/O, locked, or
    /// serializing instruction needs to be executed to synchronize writes
    /// with the next instruction".
    ///
    /// How long a buffered write keeps the bus: \[thesis\] 1.1, "an SCC core
    /// stalls when a memory operation is issued but a preceding access is
    /// not yet completed": one access at a time, so the buffered writes go
    /// out one after the other, each for the whole of its access as the
    /// table gives it ([`Timing::mpb_access`], [`Timing::dram_access`],
    /// [`Timing::l2_hit`]): the mesh acknowledges a write (the header-only
    /// reply of [`Timing::header_flits`]) and the bus cycle ends with the
    /// acknowledgement. None of the documents at hand says whether the
    /// SCC's mesh interface posts a write (ends the bus cycle before the
    /// acknowledgement): taken not to, which is the reading of the thesis's
    /// sentence.
    ///
    /// Stores to configuration and test-and-set registers are not
    /// buffered: the emulator makes them, in modelled-time order, at the
    /// core's clock, once the buffered writes have completed (none: a
    /// simplification; on the P54C they would wait in the buffers, in the
    /// same order).
    pub write_buffers: u32,
    /// Data rate of the DDR3 DIMMs behind each memory controller, in
    /// mega-transfers per second; the DRAM clock is half of it (400 MHz,
    /// 2.5 ns a clock). The SCC boards' management tool initialises the
    /// platform with the setting "Tile533_Mesh800_DDR800" (sccKit's
    /// `sccBmc -i`), the clocks \[thesis\] 1.8 gives: DDR3-800. The `dram_*`
    /// timings below are in clocks of it, from \[JEDEC\] JESD79-3's
    /// DDR3-800 tables (each rounded up to whole clocks, as a controller
    /// programs them); `emu::model::dram` schedules a channel's reads with
    /// them.
    pub dram_mts: u32,
    /// CAS latency CL, in DRAM clocks: read command to first data.
    /// \[JEDEC\] speed bins DDR3-800D (5-5-5) and DDR3-800E (6-6-6); which
    /// bin the SCC boards' DIMMs are is not in the references (none: the
    /// slower, 800E, taken: CL 6, 15 ns).
    pub dram_cl: u32,
    /// tRCD, in DRAM clocks: activate to read. \[JEDEC\] DDR3-800E: 15 ns.
    pub dram_trcd: u32,
    /// tRP, in DRAM clocks: precharge to the bank's next activate.
    /// \[JEDEC\] DDR3-800E: 15 ns.
    pub dram_trp: u32,
    /// tRAS, in DRAM clocks: activate to precharge of a bank, at least.
    /// \[JEDEC\] DDR3-800: 37.5 ns (tRC = tRAS + tRP = 52.5 ns for 800E).
    pub dram_tras: u32,
    /// tRTP, in DRAM clocks: read to precharge of its bank. \[JEDEC\]:
    /// max(4 clocks, 7.5 ns).
    pub dram_trtp: u32,
    /// tCCD, in DRAM clocks: column command to column command. \[JEDEC\]:
    /// 4 clocks.
    pub dram_tccd: u32,
    /// tRRD, in DRAM clocks: activate to activate of another bank of the
    /// rank. \[JEDEC\] DDR3-800: max(4 clocks, 10 ns) for 1 KB and 2 KB
    /// pages.
    pub dram_trrd: u32,
    /// tFAW, in DRAM clocks: the window in which a rank takes at most four
    /// activates. \[JEDEC\] DDR3-800: 40 ns for 1 KB pages (x4 and x8
    /// devices), 50 ns for 2 KB (x16). The devices' width is not in the
    /// references (none: x8 taken, the width of the 2 Gb devices
    /// [`Timing::dram_refresh_ns`] assumes on common unbuffered DIMMs).
    pub dram_tfaw: u32,
    /// DRAM clocks a 32-byte line's data takes on the 64-bit bus: four
    /// transfers, two clocks (DDR3's burst chop BC4, \[JEDEC\]). The SCC's
    /// chip paper (Howard et al., ISSCC 2010, abstract) gives the four
    /// controllers "an aggregate peak memory bandwidth of 21GB/s at 4x
    /// burst", at a data rate it does not give: four controllers moving a
    /// 4-transfer burst of 32 bytes every tCCD of 4 clocks make 21.3 GB/s
    /// at DDR3-1333 (1.5 ns a clock), which reads the figure as the column
    /// path, not the burst, pacing the lines, as `emu::model::dram` has it.
    pub dram_burst: u32,
    /// Banks of a DDR3 device: 8 for every density (\[JEDEC\]). A
    /// controller's streams are taken to fall in one rank's banks (none:
    /// the ranks of the SCC boards' DIMMs are not in the references, and
    /// tRRD and tFAW hold per rank, so one rank is the narrower case).
    pub dram_banks: u32,
}

/// Whether a latency read back from inside the chip, `measured`, is the
/// table's `expected`, give or take the crossings between the core's clock
/// and the mesh's: a cycle at most more per mesh round trip timed
/// (`crossed`), a cycle at most less per round trip in what was subtracted
/// from it (`subtracted`) (`emu::model::variation`).
pub const fn reads_back(measured: u64, expected: u64, crossed: u64, subtracted: u64) -> bool {
    measured >= expected.saturating_sub(subtracted) && measured <= expected + crossed
}

impl Timing {
    /// The SCC at its default clocks (533 MHz cores, 800 MHz mesh).
    pub const SCC: Timing = Timing {
        core_mhz: 533,
        mesh_mhz: 800,
        insn_cycles: 1,
        l1_hit: 1,
        l2_hit: 18,
        miu_mpb: 45,
        miu_dram: 40,
        router_mesh_cycles: 4,
        memctl_mesh_cycles: 46,
        flit_bytes: 16,
        link_flit_mesh_cycles: 1,
        header_flits: 1,
        mpb_port_mesh_cycles: 4,
        crb_mesh_cycles: 4,
        miu_queue_packets: 1,
        router_request_vcs: 4,
        fpga_factor: 4,
        wbinvd: 10_000,
        invd: 15,
        cl1invmb: 15,
        clock_read: 7,
        dram_refresh_interval_ns: 7_800,
        dram_refresh_ns: 160,
        reset_spread_ns: 1_000,
        write_buffers: 2,
        dram_mts: 800,
        dram_cl: 6,
        dram_trcd: 6,
        dram_trp: 6,
        dram_tras: 15,
        dram_trtp: 4,
        dram_tccd: 4,
        dram_trrd: 4,
        dram_tfaw: 16,
        dram_burst: 2,
        dram_banks: 8,
    };

    /// `mesh` mesh cycles in core cycles, rounded up (a core waits whole
    /// cycles).
    pub const fn mesh_to_core(&self, mesh: u64) -> u64 {
        (mesh * self.core_mhz as u64).div_ceil(self.mesh_mhz as u64)
    }

    /// Mesh cycles of a round trip across `routers` routers.
    pub const fn round_trip_mesh(&self, routers: u32) -> u64 {
        2 * routers as u64 * self.router_mesh_cycles as u64
    }

    /// Core cycles of an uncontended MPB (or CRB) access across `routers`
    /// routers: \[EAS\] 45 core cycles + 4·2·n mesh cycles.
    pub const fn mpb_access(&self, routers: u32) -> u64 {
        self.miu_mpb as u64 + self.mesh_to_core(self.round_trip_mesh(routers))
    }

    /// Core cycles of an uncontended DRAM access across `routers` routers:
    /// \[EAS\] 40 core cycles + 4·2·n mesh cycles + 46 memory cycles.
    pub const fn dram_access(&self, routers: u32) -> u64 {
        self.miu_dram as u64
            + self.mesh_to_core(self.round_trip_mesh(routers) + self.memctl_mesh_cycles as u64)
    }

    /// `ns` nanoseconds in core cycles, rounded to the nearest.
    pub const fn ns_to_core(&self, ns: u64) -> u64 {
        (ns * self.core_mhz as u64 + 500) / 1000
    }

    /// Core cycles between two refreshes of a controller's DRAM.
    pub const fn dram_refresh_interval(&self) -> u64 {
        self.ns_to_core(self.dram_refresh_interval_ns as u64)
    }

    /// Core cycles over which the cores leave reset
    /// ([`Timing::reset_spread_ns`]).
    pub const fn reset_spread(&self) -> u64 {
        self.ns_to_core(self.reset_spread_ns as u64)
    }

    /// Core cycles a refresh keeps a controller's DRAM from serving
    /// requests.
    pub const fn dram_refresh(&self) -> u64 {
        self.ns_to_core(self.dram_refresh_ns as u64)
    }

    /// Core cycles the P54C takes to issue the emulator's clock read
    /// (`EmuCall::ClockLatch`): a store and two loads, simple moves, the
    /// store paired with the first load (\[Pentium\] pairing rules, as
    /// `emu::model::p54c` applies them), so two cycles. The emulator
    /// stalls the core for the rest of [`Timing::clock_read`].
    pub const fn clock_read_issue(&self) -> u64 {
        2 * self.insn_cycles as u64
    }

    /// Core cycles a tile's MPB is busy with one access.
    pub const fn mpb_port_service(&self) -> u64 {
        self.mesh_to_core(self.mpb_port_mesh_cycles as u64)
    }

    /// Flits of a packet carrying `bytes` bytes of data (0: a request or
    /// an acknowledgement without data): the header and the data in
    /// [`Timing::flit_bytes`] pieces. A 32-byte line takes 3.
    pub const fn packet_flits(&self, bytes: u32) -> u32 {
        self.header_flits + bytes.div_ceil(self.flit_bytes)
    }

    /// Core cycles a mesh link is busy with a packet of `flits` flits: one
    /// after the other, [`Timing::link_flit_mesh_cycles`] each.
    pub const fn link_service(&self, flits: u32) -> u64 {
        self.mesh_to_core(flits as u64 * self.link_flit_mesh_cycles as u64)
    }

    /// Core cycles a tile's register block is busy with one access.
    pub const fn crb_service(&self) -> u64 {
        self.mesh_to_core(self.crb_mesh_cycles as u64)
    }

    /// Requests for a tile's register block or MPB that its MIU and
    /// router hold before one of the router's `input_ports` input ports is
    /// full of them and blocks every other request arriving there: the
    /// MIU's [`Timing::miu_queue_packets`], and in each port all but one
    /// of its [`Timing::router_request_vcs`] (held in equal shares: the
    /// allocator serves the ports in turn).
    pub const fn router_hold(&self, input_ports: u32) -> u64 {
        self.miu_queue_packets as u64
            + input_ports as u64 * (self.router_request_vcs as u64).saturating_sub(1)
    }

    /// Core cycles of modelled time in `us` microseconds.
    pub const fn cycles_per_us(&self) -> u64 {
        self.core_mhz as u64
    }

    /// Whether the table can be used: the clocks (the core's, the mesh's
    /// and the DRAM's) and the write buffers non-zero, and the DRAM has
    /// banks.
    pub const fn is_valid(&self) -> bool {
        self.core_mhz > 0
            && self.mesh_mhz > 0
            && self.dram_mts > 0
            && self.dram_banks > 0
            && self.write_buffers > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scc_latencies_follow_the_formulas() {
        let t = Timing::SCC;
        // 8 mesh cycles at 800 MHz are 5.33 core cycles at 533 MHz: 6.
        assert_eq!(t.mpb_access(1), 45 + 6);
        // About three times the L2 (thesis 1.4).
        assert!((50..=56).contains(&t.mpb_access(1)));
        // 8 + 46 = 54 mesh cycles: 35.98 core cycles, 36.
        assert_eq!(t.dram_access(1), 40 + 36);
        // JEDEC tREFI 7.8 us and tRFC 160 ns at 533 MHz: 4157.4 and 85.28
        // core cycles.
        assert_eq!((t.dram_refresh_interval(), t.dram_refresh()), (4157, 85));
        // A line's packet: a header and two 16-byte flits, 3 mesh cycles
        // on a link, 1.99 core cycles: 2; a word's, 2 flits; a bare
        // request's, 1 flit: 0.67 core cycles, 1.
        assert_eq!(
            (t.packet_flits(32), t.packet_flits(4), t.packet_flits(0)),
            (3, 2, 1)
        );
        assert_eq!(
            (t.link_service(3), t.link_service(2), t.link_service(1)),
            (2, 2, 1)
        );
        // DDR3-800E in clocks of 2.5 ns, each rounded up: CL, tRCD, tRP
        // 15 ns; tRAS 37.5 ns; tRTP max(4, 7.5 ns); tCCD 4; tRRD max(4,
        // 10 ns); tFAW 40 ns.
        let clocks = |ps: u32| ps.div_ceil(2_000_000 / t.dram_mts);
        assert_eq!(
            [t.dram_cl, t.dram_trcd, t.dram_trp, t.dram_tras],
            [
                clocks(15_000),
                clocks(15_000),
                clocks(15_000),
                clocks(37_500)
            ]
        );
        assert_eq!(
            [t.dram_trtp, t.dram_tccd, t.dram_trrd, t.dram_tfaw],
            [
                clocks(7_500).max(4),
                4,
                clocks(10_000).max(4),
                clocks(40_000)
            ]
        );
        // A 32-byte line on the 64-bit bus: 4 transfers, 2 clocks.
        assert_eq!(t.dram_burst, 32 / 8 / 2);
        // Every router more costs 8 mesh cycles, about 5.3 core cycles.
        for n in 1..9 {
            let step = t.mpb_access(n + 1) - t.mpb_access(n);
            assert!((5..=6).contains(&step), "{n}: {step}");
        }
    }
}
