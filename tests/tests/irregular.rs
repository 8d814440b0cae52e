// SPDX-License-Identifier: MIT OR Apache-2.0
//! The irregular applications on the global address space (`gas`
//! crate), under the chip model and its coherence checker:
//! - `gas-chase` on 4 cores (every distribution) and on 48: every task
//!   walks the whole riffle-shuffled chain, every step checked against the
//!   serial chain; one BENCH line per core and task count, the requests
//!   counted exactly and spread evenly over the targets.
//! - `gas-bfs`, atomic and lock variants, on 4 cores and atomic on 16:
//!   levels identical to a serial BFS.
//! - `gas-bc`, atomic and lock variants, on 4 cores: every core's
//!   betweenness centrality identical to a serial Brandes computation.
//! - `gas-bfs` and `gas-bc`, atomic variants, on 4 cores of `mesh8x8`,
//!   whose remote atomic unit serves their atomics (the stats count its
//!   operations), and on the SCC, which has none; `gas-chase` on
//!   `mesh8x8` too.
//! - settings out of range refused, naming the setting.

use std::time::Duration;

use system_tests::{
    RunConfig, RunReport, assert_clean_success, assert_no_failed_checks, boot_with, lines_starting,
    transcript,
};

fn boot(cores: u32, program: &str, params: &[(&str, &str)]) -> RunReport {
    boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(if cores > 8 { 900 } else { 300 }),
        params: params
            .iter()
            .map(|&(n, v)| (n.to_owned(), v.to_owned()))
            .collect(),
        ..RunConfig::new(cores, program)
    })
}

/// `program` on `cores` cores of `chip`, with the chip model's statistics,
/// succeeding with every check passed and no stale read.
fn ok_on(
    chip: &'static chip::Chip,
    cores: u32,
    program: &str,
    params: &[(&str, &str)],
) -> RunReport {
    let report = boot_with(&RunConfig {
        chip,
        mode: system_tests::CHECKED,
        stats: true,
        timeout: Duration::from_secs(300),
        params: params
            .iter()
            .map(|&(n, v)| (n.to_owned(), v.to_owned()))
            .collect(),
        ..RunConfig::new(cores, program)
    });
    assert_clean_success(&report, cores);
    assert_no_failed_checks(&report);
    report
}

/// The remote atomic unit's operations every core of `report` made, from
/// the chip model's reports.
fn unit_operations(report: &RunReport) -> u64 {
    report
        .reports
        .iter()
        .map(|r| r.as_ref().expect("every core reported").stats.rau_ops)
        .sum()
}

fn ok(cores: u32, program: &str, params: &[(&str, &str)]) -> RunReport {
    let report = boot(cores, program, params);
    assert_clean_success(&report, cores);
    assert_no_failed_checks(&report);
    report
}

/// `gas-chase` on `cores` cores: the BENCH lines of every core and task
/// count, and the summary.
fn chase(cores: u32, length: u32, tasks: &[u32], dist: &str, over: &str) {
    let most = tasks.last().unwrap().to_string();
    let report = ok(
        cores,
        "gas-chase",
        &[
            ("length", &length.to_string()),
            ("tasks", &most),
            ("dist", dist),
            ("over", over),
        ],
    );
    for core in 0..cores {
        let bench = lines_starting(&report, core, "BENCH gas-chase ");
        assert_eq!(bench.len(), tasks.len(), "{}", transcript(&report));
        for (line, t) in bench.iter().zip(tasks) {
            let head = format!(
                "BENCH gas-chase cores={cores} tasks={t} dist={dist} over={over} ops={} cycles=",
                u64::from(*t) * u64::from(length)
            );
            assert!(line.starts_with(&head), "{line}");
            let cycles: u64 = line[head.len()..].parse().unwrap();
            assert!(cycles > 0, "{line}");
        }
    }
    let switches = lines_starting(&report, 0, "BENCH gas-switch ");
    assert_eq!(switches.len(), tasks.len(), "{}", transcript(&report));
    let summary = lines_starting(&report, 0, "gas-chase: ");
    let last = summary.last().expect("a summary");
    let requests: u64 =
        tasks.iter().map(|&t| u64::from(t)).sum::<u64>() * u64::from(length) * u64::from(cores);
    assert!(
        last.starts_with(&format!(
            "gas-chase: {cores} cores, chain of {length} after "
        )),
        "{last}"
    );
    assert!(
        last.contains(&format!(
            "every walk checked, each element once in chain order; requests={requests} "
        )),
        "{last}"
    );
}

#[test]
fn chase_on_4_cores_with_each_distribution() {
    for dist in ["block", "cyclic", "hashed"] {
        chase(4, 1024, &[1, 2], dist, "owners");
    }
}

#[test]
fn chase_on_48_cores_interleaved_over_controllers() {
    chase(48, 2048, &[1, 2], "hashed", "controllers");
}

/// `gas-bfs`: the summary says the levels match the serial search.
fn bfs(cores: u32, variant: &str, vertices: u32, tasks: u32) -> RunReport {
    let report = ok(
        cores,
        "gas-bfs",
        &[
            ("variant", variant),
            ("vertices", &vertices.to_string()),
            ("tasks", &tasks.to_string()),
        ],
    );
    let summary = lines_starting(&report, 0, "gas-bfs: ");
    assert_eq!(summary.len(), 2, "{}", transcript(&report));
    assert!(
        summary[0].starts_with(&format!(
            "gas-bfs: {cores} cores, {tasks} tasks each, variant={variant}, {vertices} vertices (degree 1..=80), "
        )) && summary[0].ends_with("levels identical to the serial search"),
        "{}",
        summary[0]
    );
    for core in 0..cores {
        let bench = lines_starting(&report, core, "BENCH gas-bfs ");
        assert_eq!(bench.len(), 1, "{}", transcript(&report));
        assert!(
            bench[0].starts_with(&format!(
                "BENCH gas-bfs cores={cores} tasks={tasks} variant={variant} dist=hashed ops="
            )),
            "{}",
            bench[0]
        );
        // The model's workload: this core's edges of each level, which
        // add up to its share of the edges.
        let levels = lines_starting(&report, core, "BENCH gas-bfs-level ");
        assert!(levels.len() >= 2, "{}", transcript(&report));
        assert!(
            levels
                .iter()
                .all(|l| l.contains(&format!(" rank={core} level=")))
        );
    }
    // The model's primitives, from core 0.
    let model = lines_starting(&report, 0, "BENCH gas-model ");
    let mut wanted = vec![
        "bfs-visit",
        "bfs-claim",
        "bfs-tsr",
        "bfs-level",
        "bfs-barrier",
    ];
    if variant == "lock" {
        wanted.extend(["bfs-hold", "bfs-attempt"]);
    }
    for what in wanted {
        assert!(
            model
                .iter()
                .any(|l| l.starts_with(&format!("BENCH gas-model what={what} cores={cores} "))),
            "no {what}:\n{}",
            transcript(&report)
        );
    }
    report
}

#[test]
fn bfs_atomic_on_4_cores() {
    let report = bfs(4, "atomic", 512, 4);
    let locks = lines_starting(&report, 0, "gas-bfs: locks: ");
    assert!(
        locks[0].starts_with("gas-bfs: locks: 0 acquisitions"),
        "{}",
        locks[0]
    );
}

#[test]
fn bfs_lock_on_4_cores() {
    let report = bfs(4, "lock", 512, 4);
    let locks = lines_starting(&report, 0, "gas-bfs: locks: ");
    assert!(
        !locks[0].starts_with("gas-bfs: locks: 0 acquisitions"),
        "{}",
        locks[0]
    );
}

#[test]
fn bfs_atomic_on_16_cores() {
    bfs(16, "atomic", 2048, 2);
}

/// `gas-bc`: the summary says the centrality matches the serial
/// computation, and every core checked its vertices.
fn bc(cores: u32, variant: &str, scale: u32, sources: u32) -> RunReport {
    let report = ok(
        cores,
        "gas-bc",
        &[
            ("variant", variant),
            ("scale", &scale.to_string()),
            ("sources", &sources.to_string()),
            ("tasks", "2"),
        ],
    );
    let summary = lines_starting(&report, 0, "gas-bc: ");
    let head = format!(
        "gas-bc: {cores} cores, 2 tasks each, variant={variant}, R-MAT scale {scale} ({} vertices, {} edges), {sources} sources, ",
        1u32 << scale,
        8u32 << scale
    );
    assert!(
        summary[0].starts_with(&head)
            && summary[0].contains("centrality identical to the serial Brandes computation"),
        "{}",
        transcript(&report)
    );
    let mut vertices = 0;
    for core in 0..cores {
        let bench = lines_starting(&report, core, "BENCH gas-bc ");
        assert_eq!(bench.len(), 1, "{}", transcript(&report));
        assert!(
            bench[0].starts_with(&format!(
                "BENCH gas-bc cores={cores} tasks=2 variant={variant} dist=hashed ops="
            )),
            "{}",
            bench[0]
        );
        let checked = lines_starting(&report, core, &format!("gas-bc: core {core}: "));
        assert_eq!(checked.len(), 1, "{}", transcript(&report));
        let count = checked[0].split(' ').nth(3).unwrap();
        vertices += count.parse::<u32>().unwrap();
    }
    assert_eq!(vertices, 1 << scale, "every vertex checked once");
    report
}

#[test]
fn bc_atomic_on_4_cores() {
    let report = bc(4, "atomic", 7, 4);
    let locks = lines_starting(&report, 0, "gas-bc: locks: ");
    assert!(
        locks[0].starts_with("gas-bc: locks: 0 acquisitions"),
        "{}",
        locks[0]
    );
}

#[test]
fn bc_lock_on_4_cores() {
    let report = bc(4, "lock", 6, 3);
    let locks = lines_starting(&report, 0, "gas-bc: locks: ");
    assert!(
        !locks[0].starts_with("gas-bc: locks: 0 acquisitions"),
        "{}",
        locks[0]
    );
}

/// The line of `report`'s core 0 that starts with `head`.
fn line_of(report: &RunReport, head: &str) -> String {
    let lines = lines_starting(report, 0, head);
    assert_eq!(lines.len(), 1, "{}", transcript(report));
    lines[0].to_owned()
}

#[test]
fn bfs_atomic_uses_the_remote_atomic_unit_of_mesh8x8_and_not_on_the_scc() {
    let params = [("variant", "atomic"), ("vertices", "256"), ("tasks", "2")];
    let mesh = ok_on(&chip::MESH8X8, 4, "gas-bfs", &params);
    let scc = ok_on(&chip::SCC, 4, "gas-bfs", &params);
    for report in [&mesh, &scc] {
        let summary = line_of(report, "gas-bfs: 4 cores");
        assert!(
            summary.ends_with("levels identical to the serial search"),
            "{summary}"
        );
        assert!(line_of(report, "gas-bfs: locks: ").starts_with("gas-bfs: locks: 0 acquisitions"));
    }
    // Every edge's claim is a compare-and-swap at the unit of the
    // destination's controller.
    let edges: u64 = line_of(&mesh, "gas-bfs: 4 cores")
        .split(", ")
        .find_map(|part| part.split_once(" edges in ").map(|(n, _)| n))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", transcript(&mesh)));
    let operations = unit_operations(&mesh);
    assert!(
        operations >= edges,
        "{operations} operations for {edges} edges"
    );
    assert_eq!(unit_operations(&scc), 0, "the SCC has no unit");
    let tables = mesh.stats_table();
    assert!(tables.contains("RAU ops"), "{tables}");
}

#[test]
fn bc_atomic_uses_the_remote_atomic_unit_of_mesh8x8_and_not_on_the_scc() {
    let params = [
        ("variant", "atomic"),
        ("scale", "6"),
        ("sources", "3"),
        ("tasks", "2"),
    ];
    let mesh = ok_on(&chip::MESH8X8, 4, "gas-bc", &params);
    let scc = ok_on(&chip::SCC, 4, "gas-bc", &params);
    for report in [&mesh, &scc] {
        let summary = line_of(report, "gas-bc: 4 cores");
        assert!(
            summary.contains("centrality identical to the serial Brandes computation"),
            "{summary}"
        );
    }
    assert!(unit_operations(&mesh) > 0, "{}", mesh.stats_table());
    assert_eq!(unit_operations(&scc), 0, "the SCC has no unit");
}

#[test]
fn chase_on_4_cores_of_mesh8x8() {
    let params = [("length", "512"), ("tasks", "2")];
    let report = ok_on(&chip::MESH8X8, 4, "gas-chase", &params);
    let summary = lines_starting(&report, 0, "gas-chase: ");
    assert!(
        summary
            .last()
            .is_some_and(|l| l.contains("every walk checked, each element once in chain order")),
        "{}",
        transcript(&report)
    );
    // Pointer chasing makes no atomics.
    assert_eq!(unit_operations(&report), 0);
}

#[test]
fn settings_out_of_range_are_named() {
    let bad = |program: &str, name: &str, value: &str| {
        let config = RunConfig {
            params: vec![(name.to_owned(), value.to_owned())],
            ..RunConfig::new(2, program)
        };
        format!("{:#}", xtask::run(&config).unwrap_err())
    };
    assert_eq!(
        bad("gas-chase", "length", "1"),
        "program `gas-chase`: length=1: length must be a whole number in 2..=1048576"
    );
    assert_eq!(
        bad("gas-chase", "dist", "random"),
        "program `gas-chase`: dist=random: dist must be one of block, cyclic, hashed"
    );
    assert_eq!(
        bad("gas-bfs", "tasks", "0"),
        "program `gas-bfs`: tasks=0: tasks must be a whole number in 1..=64"
    );
    assert_eq!(
        bad("gas-bfs", "variant", "none"),
        "program `gas-bfs`: variant=none: variant must be one of atomic, lock"
    );
    assert_eq!(
        bad("gas-bc", "scale", "21"),
        "program `gas-bc`: scale=21: scale must be a whole number in 2..=20"
    );
}
