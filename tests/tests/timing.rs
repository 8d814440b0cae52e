// SPDX-License-Identifier: MIT OR Apache-2.0
//! The emulator's modelled time, measured from inside on the whole chip:
//! every core reads back the latencies of the chip's timing table (L1, L2,
//! loads from and stores to its own and remote MPBs at every distance;
//! core 0 also DRAM behind each controller and a test-and-set register
//! round trip) through the global timestamp, exactly but for the clocks'
//! crossing (a cycle at most per mesh round trip), and core 0 times
//! each one-sided call (its data checked); and cores streaming from one
//! memory controller get more lines through it than it could serve one
//! access at a time.

use chip::SCC;
use system_tests::{
    RunConfig, assert_clean_success, boot_ok, boot_with, lines_starting, transcript,
};

#[test]
fn every_core_reads_back_the_timing_table_on_48_cores() {
    let report = boot_ok(48, "timing");
    for core in 0..48 {
        let passed = lines_starting(&report, core, "timing self-check passed");
        assert_eq!(passed.len(), 1, "core {core}\n{}", transcript(&report));
    }
    let core0 = lines_starting(&report, 0, "latency ");
    for what in [
        "L1 hit",
        "L2 hit",
        "MPB 0 hops",
        "MPB 8 hops",
        "MPB store 0 hops",
        "MPB store 8 hops",
        "DRAM controller 0 (0 hops)",
        "DRAM controller 1 (5 hops)",
        "DRAM controller 2 (2 hops)",
        "DRAM controller 3 (7 hops)",
        "MPB store alone",
        "DRAM store alone",
        "DRAM store then load",
        "DRAM stores in a row",
        "WCB flush",
        "TSR round trip",
    ] {
        assert!(
            core0
                .iter()
                .any(|l| l.starts_with(&format!("latency {what}"))),
            "core 0 measured no {what}\n{}",
            transcript(&report)
        );
    }
    for call in [
        "put 8 B",
        "get 8 B",
        "accumulate 8 B",
        "lock/unlock pair, exclusive",
        "lock/unlock pair, shared",
        "fence",
        "post",
        "start",
        "complete",
        "wait",
    ] {
        let line = lines_starting(&report, 0, &format!("call {call} ("));
        assert_eq!(line.len(), 1, "{call}\n{}", transcript(&report));
    }
}

#[test]
fn eight_cores_stream_from_one_controller_faster_than_one_access_at_a_time() {
    const CORES: u32 = 8;
    let config = RunConfig {
        params: vec![("scale".to_owned(), "quick".to_owned())],
        ..RunConfig::new(CORES, "bench-dram-bandwidth")
    };
    let report = boot_with(&config);
    assert_clean_success(&report, CORES);
    let lines = lines_starting(&report, 0, "BENCH dram-bandwidth ");
    assert_eq!(lines.len(), 1, "{}", transcript(&report));
    let field = |name: &str| {
        lines[0]
            .split(' ')
            .find_map(|f| f.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {}", lines[0]))
    };
    assert_eq!(field("procs="), CORES.to_string());
    let bytes: u64 = field("bytes=").parse().unwrap();
    let cycles: Vec<u64> = field("cycles=")
        .split(',')
        .map(|c| c.parse().unwrap())
        .collect();
    // A controller busy for a whole access's 46 memory cycles per line
    // would pass one 32-byte line per 31 core cycles at most; its DDR3
    // channel has several in flight, and every round (its barriers
    // included) moved more than that bound allows.
    let t = SCC.timing;
    let one_at_a_time = t.mesh_to_core(u64::from(t.memctl_mesh_cycles));
    for c in &cycles {
        let lines_moved = bytes / 32;
        assert!(
            lines_moved * one_at_a_time > *c,
            "{lines_moved} lines in {c} cycles: no faster than one per {one_at_a_time}\n{}",
            transcript(&report)
        );
    }
}
