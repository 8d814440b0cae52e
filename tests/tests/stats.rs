// SPDX-License-Identifier: MIT OR Apache-2.0
//! The chip model's per-core reports reach the run's report: with
//! statistics on, every core that exits reports what its accesses did, and
//! a plain run reports nothing.

use system_tests::{Mode, Model, RunConfig, WtReads, assert_cleaned_up, transcript};

#[test]
fn every_core_of_the_ring_reports_its_mpb_traffic() {
    let config = RunConfig {
        stats: true,
        ..RunConfig::new(2, "ring")
    };
    let report = xtask::run(&config).expect("the run starts");
    let all = transcript(&report);
    assert!(report.success(), "{all}");
    assert_eq!(report.mode, Mode::default());
    assert_eq!(report.missing_reports(), [] as [u32; 0], "{all}");
    assert!(
        report.report_errors.is_empty(),
        "{:?}",
        report.report_errors
    );
    for (core, model) in (0u32..).zip(&report.reports) {
        let model = model.as_ref().expect("every core reported");
        let s = &model.stats;
        assert_eq!(model.core, core);
        assert!(!model.checker && model.stale_reads == 0);
        // Both cores are on tile 0: the token and the barrier flags move
        // through its MPB, polled with CL1INVMB and pushed out of the
        // write-combine buffer.
        assert!(s.mpb_bytes[0] > 0, "core {core}: {s:?}");
        assert!(
            s.mpb_bytes[1..].iter().all(|&b| b == 0),
            "core {core}: {s:?}"
        );
        assert!(s.cl1invmb > 0 && s.wcb_flushes > 0, "core {core}: {s:?}");
    }
    let tables = report.stats_table();
    assert!(tables.starts_with("memory accesses per core"), "{tables}");
    assert!(
        tables.contains("MPB23") && tables.contains("MC3"),
        "{tables}"
    );
    assert_cleaned_up(&report.chip_memory);
}

#[test]
fn a_plain_run_has_no_model_and_no_reports() {
    let config = RunConfig {
        mode: Mode::Plain,
        ..RunConfig::new(2, "identity")
    };
    let report = xtask::run(&config).expect("the run starts");
    assert!(report.success(), "{}", transcript(&report));
    assert_eq!(report.mode, Mode::Plain);
    assert!(report.reports.iter().all(Option::is_none));
    assert!(report.missing_reports().is_empty());
    assert_eq!(report.stale_reads(), 0);
    assert_cleaned_up(&report.chip_memory);
}

/// Loads from MPBT-WT pages (rma's default window type) bypass L1 as the
/// thesis measured on silicon; `WtReads::Ideal` lets them fill L1 as
/// documented. The same program with the same data fills more lines then.
#[test]
fn mpbt_wt_loads_bypass_l1_unless_ideal_reads_are_asked_for() {
    let fills = |wt_reads| {
        let config = RunConfig {
            stats: true,
            mode: Mode::Modelled(Model {
                wt_reads,
                ..Model::DEFAULT
            }),
            ..RunConfig::new(2, "rma-fence")
        };
        let report = xtask::run(&config).expect("the run starts");
        assert!(report.success(), "{}", transcript(&report));
        report
            .reports
            .iter()
            .map(|r| r.as_ref().expect("every core reported").stats.fills)
            .sum::<u64>()
    };
    let (silicon, ideal) = (fills(WtReads::Silicon), fills(WtReads::Ideal));
    assert!(
        ideal > silicon,
        "lines filled: {silicon} as on silicon, {ideal} with ideal MPBT-WT reads"
    );
}

/// Test-and-set registers serve one access at a time: cores that take the
/// same one at once queue at its tile's register block, and the statistics
/// say how long.
#[test]
fn cores_contending_for_one_tsr_queue_at_its_register_block() {
    let config = RunConfig {
        stats: true,
        ..RunConfig::new(8, "tsr-counter")
    };
    let report = xtask::run(&config).expect("the run starts");
    let all = transcript(&report);
    assert!(report.success(), "{all}");
    let waited: u64 = report
        .reports
        .iter()
        .map(|r| r.as_ref().expect("every core reported").stats.crb_wait[0])
        .sum();
    assert!(waited > 0, "{}", report.stats_table());
    assert!(
        report
            .stats_table()
            .contains("cycles per core waiting for each busy resource"),
        "{}",
        report.stats_table()
    );
}

#[test]
fn stats_json_holds_every_cores_report_as_the_run_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stats.json");
    let config = RunConfig {
        stats_json: Some(file.clone()),
        ..RunConfig::new(2, "tsr-counter")
    };
    let report = xtask::run(&config).expect("the run starts");
    assert!(report.success(), "{}", transcript(&report));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(json["program"], "tsr-counter");
    assert_eq!(json["cores"], 2);
    assert_eq!(json["success"], true);
    assert!(json["host_seconds"].as_f64().unwrap() > 0.0);
    // Linux says its load; the run reads it at both ends.
    for end in ["start", "end"] {
        assert!(json["host_load"][end].as_f64().unwrap() >= 0.0, "{end}");
    }
    let reports = json["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    for (core, (written, read)) in reports.iter().zip(&report.reports).enumerate() {
        let read = read.as_ref().expect("every core reported");
        assert_eq!(written["core"], core);
        assert_eq!(written["stats"]["tsr_ops"], read.stats.tsr_ops);
        assert_eq!(written["stats"]["cycles"], read.stats.cycles);
        // Every core took core 0's register 1000 times (and once more
        // for the barrier), and says so.
        let acquires: u64 = written["tsr"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t[1]["acquires"].as_u64().unwrap())
            .sum();
        assert!(acquires >= 1000, "{written}");
    }
}
