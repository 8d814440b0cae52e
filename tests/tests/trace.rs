// SPDX-License-Identifier: MIT OR Apache-2.0
//! `--trace FILE`: a run's rma calls and the chip's cache actions and
//! waits, one track per core in modelled time, and counter tracks per MPB
//! and memory controller, as trace-event JSON that Perfetto opens.

use std::collections::BTreeMap;

use system_tests::{assert_clean_success, boot_with, transcript};
use xtask::RunConfig;

#[test]
fn a_fence_program_traces_its_puts_gets_and_fences_on_every_core() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.json");
    let cores = 4;
    let config = RunConfig {
        trace: Some(file.clone()),
        ..RunConfig::new(cores, "rma-fence")
    };
    let report = boot_with(&config);
    assert_clean_success(&report, cores);
    assert!(
        report.report_errors.is_empty(),
        "{:?}",
        report.report_errors
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    // Per core: each event's count by name and phase, and the times in order.
    let mut seen: BTreeMap<(u64, String, String), usize> = BTreeMap::new();
    let mut last = BTreeMap::new();
    for e in events {
        let (tid, name, ph) = (
            e["tid"].as_u64().unwrap(),
            e["name"].as_str().unwrap().to_owned(),
            e["ph"].as_str().unwrap().to_owned(),
        );
        if let Some(ts) = e["ts"].as_f64()
            && ph != "C"
        {
            let before = last.insert(tid, ts).unwrap_or(0.0);
            assert!(ts >= before, "core {tid}: {name} at {ts} after {before}");
        }
        *seen.entry((tid, name, ph)).or_default() += 1;
    }
    let count = |core: u64, name: &str, ph: &str| {
        seen.get(&(core, name.to_owned(), ph.to_owned()))
            .copied()
            .unwrap_or(0)
    };
    for core in 0..u64::from(cores) {
        assert_eq!(count(core, "thread_name", "M"), 1);
        assert_eq!(count(core, "tracing", "i"), 1, "core {core}");
        for op in ["put", "get", "fence"] {
            let begun = count(core, op, "B");
            assert!(
                begun > 0,
                "core {core} traced no {op}:\n{}",
                transcript(&report)
            );
            assert_eq!(begun, count(core, op, "E"), "core {core}: {op}");
        }
        assert!(count(core, "CL1INVMB", "i") > 0, "core {core}");
    }
    // Counter tracks: the MPBs the cores' messages went through moved
    // bytes, and the totals only grow.
    let mut tracks: BTreeMap<String, u64> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "C") {
        let value = e["args"]["value"].as_u64().unwrap();
        let last = tracks
            .entry(e["name"].as_str().unwrap().to_owned())
            .or_insert(0);
        assert!(value >= *last, "{e}");
        *last = value;
    }
    assert!(
        tracks
            .keys()
            .any(|name| name.starts_with("MPB tile ") && name.ends_with(" bytes")),
        "{:?}",
        tracks.keys().collect::<Vec<_>>()
    );
    // A put names its window, target and bytes.
    let put = events
        .iter()
        .find(|e| e["name"] == "put" && e["ph"] == "B")
        .unwrap();
    for arg in ["window", "target", "bytes"] {
        assert!(put["args"][arg].is_u64(), "{put}");
    }
}

#[test]
fn a_trace_needs_modelled_time() {
    let config = RunConfig {
        trace: Some("/tmp/never.json".into()),
        mode: xtask::Mode::Plain,
        ..RunConfig::new(2, "ring")
    };
    let message = format!("{:#}", xtask::run(&config).unwrap_err());
    assert!(
        message.contains("--trace needs the chip model with timing"),
        "{message}"
    );
}
