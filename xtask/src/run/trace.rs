// SPDX-License-Identifier: MIT OR Apache-2.0
//! `--trace FILE`: the cores' trace records ([`chip::trace`]) as one
//! trace-event JSON file (the Chrome trace format, which Perfetto opens):
//! one track per core, rma's calls as spans with their window, target and
//! bytes, the emulator's CL1INVMB and WBINVD as moments and its modelled
//! waits as spans, and one counter track per MPB and memory controller
//! for the bytes it moved and the cycles cores queued for it (every
//! core's samples summed), all in modelled time (microseconds at the
//! chip's core clock).

use std::path::Path;

use anyhow::{Context, Result};
use chip::Chip;
use chip::trace::{Counter, Event, Op, Phase, Record};
use serde::Serialize;

/// One entry of `traceEvents`.
#[derive(Debug, Serialize)]
struct TraceEvent {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    pid: u32,
    tid: u32,
    /// For moments: their scope (the core's track).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    args: serde_json::Map<String, serde_json::Value>,
}

impl TraceEvent {
    /// The metadata event `what` (`process_name` or `thread_name`) giving
    /// track `tid` the name `name`.
    fn name(what: &str, tid: u32, name: &str) -> Self {
        Self {
            name: what.into(),
            cat: None,
            ph: "M",
            ts: None,
            pid: 0,
            tid,
            s: None,
            args: [("name".to_owned(), name.into())].into_iter().collect(),
        }
    }
}

/// The whole file.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TraceFile {
    trace_events: Vec<TraceEvent>,
    display_time_unit: &'static str,
}

/// Core `core`'s records from its trace file in `dir`, in time order;
/// empty if it wrote none.
pub fn read_core(dir: &Path, core: usize) -> Result<Vec<Record>> {
    let path = emu::engine::trace_path(dir, core);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    anyhow::ensure!(
        bytes.len() % Record::BYTES == 0,
        "{} is not whole trace records ({} bytes)",
        path.display(),
        bytes.len()
    );
    let mut records: Vec<Record> = bytes
        .chunks_exact(Record::BYTES)
        .map(|b| Record::from_bytes(b.try_into().expect("chunks of a record")))
        .collect();
    // A modelled wait is recorded once it is over: order by time, keeping
    // the recorded order between equal times.
    records.sort_by_key(|r| r.cycles);
    Ok(records)
}

/// The trace-event JSON of `cores` (each core's records, in core order)
/// of `chip`, with times at its core clock.
pub fn to_json(cores: &[Vec<Record>], chip: &Chip) -> Result<String> {
    let mhz = chip.timing.core_mhz;
    let mut events = vec![TraceEvent::name(
        "process_name",
        0,
        &format!("{} cores, modelled time", chip.name.to_ascii_uppercase()),
    )];
    let mut counters = Vec::new();
    for (core, records) in cores.iter().enumerate() {
        let tid = core as u32;
        events.push(TraceEvent::name(
            "thread_name",
            tid,
            &format!("core {core:02}"),
        ));
        for r in records {
            let Some(event) = Event::from_word(r.word) else {
                continue;
            };
            if event.op == Op::Counter {
                counters.push((r.cycles, event, r.arg));
                continue;
            }
            let mut args = serde_json::Map::new();
            if event.window != Event::NONE8 {
                args.insert("window".into(), event.window.into());
            }
            if event.target != Event::NONE16 {
                args.insert("target".into(), event.target.into());
            }
            if r.arg > 0 {
                args.insert("bytes".into(), r.arg.into());
            }
            let (ph, s) = match event.phase {
                Phase::Begin => ("B", None),
                Phase::End => ("E", None),
                Phase::Instant => ("i", Some("t")),
            };
            events.push(TraceEvent {
                name: event.op.name().into(),
                cat: Some(if (event.op as u8) < 32 { "rma" } else { "chip" }),
                ph,
                ts: Some(r.cycles as f64 / f64::from(mhz)),
                pid: 0,
                tid,
                s,
                args,
            });
        }
    }
    // Counter tracks: each core's samples are what moved since its last;
    // summed over the cores in time order, they are the resource's total.
    counters.sort_by_key(|&(cycles, _, _)| cycles);
    let mut totals = std::collections::BTreeMap::new();
    for (cycles, event, moved) in counters {
        let Some(counter) = Counter::from_code(event.window) else {
            continue;
        };
        let total = totals.entry((counter as u8, event.target)).or_insert(0u64);
        *total += u64::from(moved);
        events.push(TraceEvent {
            name: format!("{} {} {}", counter.resource(), event.target, counter.unit()),
            cat: Some("chip"),
            ph: "C",
            ts: Some(cycles as f64 / f64::from(mhz)),
            pid: 0,
            tid: 0,
            s: None,
            args: [("value".to_owned(), (*total).into())]
                .into_iter()
                .collect(),
        });
    }
    serde_json::to_string(&TraceFile {
        trace_events: events,
        display_time_unit: "ns",
    })
    .context("cannot write the trace as JSON")
}

/// Reads the traces of `cores` cores from run directory `dir` and writes
/// them to `file`; returns the number of events.
pub fn write(dir: &Path, chip: &Chip, cores: u32, file: &Path) -> Result<usize> {
    let all = (0..cores as usize)
        .map(|core| read_core(dir, core))
        .collect::<Result<Vec<_>>>()?;
    let events = all.iter().map(Vec::len).sum();
    std::fs::write(file, to_json(&all, chip)?)
        .with_context(|| format!("cannot write the trace to {}", file.display()))?;
    Ok(events)
}

#[cfg(test)]
mod tests {
    use chip::trace::Op;

    use super::*;

    fn record(cycles: u64, op: Op, phase: Phase, arg: u32) -> Record {
        let event = Event {
            op,
            phase,
            window: 0,
            target: 1,
        };
        Record {
            cycles,
            word: event.word(),
            arg,
        }
    }

    #[test]
    fn records_become_spans_and_moments_in_microseconds() {
        let core0 = vec![
            record(533, Op::Put, Phase::Begin, 64),
            record(1066, Op::Cl1invmb, Phase::Instant, 0),
            record(1599, Op::Put, Phase::End, 0),
        ];
        let json = to_json(&[core0, Vec::new()], &chip::SCC).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        // The process, two threads, three events.
        assert_eq!(events.len(), 6);
        let put = &events[2];
        assert_eq!(put["name"], "put");
        assert_eq!(put["ph"], "B");
        assert_eq!(put["ts"], 1.0);
        assert_eq!(put["tid"], 0);
        assert_eq!(put["args"]["bytes"], 64);
        assert_eq!(put["args"]["target"], 1);
        assert_eq!(events[3]["name"], "CL1INVMB");
        assert_eq!(events[3]["ph"], "i");
        assert_eq!(events[3]["cat"], "chip");
        assert_eq!(events[4]["ph"], "E");
        assert_eq!(events[4]["ts"], 3.0);
        assert_eq!(events[5]["name"], "thread_name");
        assert_eq!(events[5]["args"]["name"], "core 01");
    }

    #[test]
    fn counter_samples_of_every_core_sum_into_one_track_per_resource() {
        let sample = |cycles, counter: Counter, index, moved| Record {
            cycles,
            word: Event {
                op: Op::Counter,
                phase: Phase::Instant,
                window: counter as u8,
                target: index,
            }
            .word(),
            arg: moved,
        };
        let core0 = vec![
            sample(533, Counter::McBytes, 1, 64),
            sample(1599, Counter::McBytes, 1, 32),
        ];
        let core1 = vec![sample(1066, Counter::McBytes, 1, 128)];
        let json = to_json(&[core0, core1], &chip::SCC).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let track: Vec<(f64, u64)> = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "C")
            .map(|e| {
                assert_eq!(e["name"], "MC 1 bytes");
                (
                    e["ts"].as_f64().unwrap(),
                    e["args"]["value"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(track, [(1.0, 64), (2.0, 192), (3.0, 224)]);
    }

    #[test]
    fn trace_files_are_read_in_time_order_and_missing_ones_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        let late = record(900, Op::Waiting, Phase::End, 0);
        let early = record(100, Op::Waiting, Phase::Begin, 0);
        let bytes: Vec<u8> = [late, early].iter().flat_map(|r| r.to_bytes()).collect();
        std::fs::write(emu::engine::trace_path(dir.path(), 3), bytes).unwrap();
        assert_eq!(read_core(dir.path(), 3).unwrap(), vec![early, late]);
        assert!(read_core(dir.path(), 4).unwrap().is_empty());
        std::fs::write(emu::engine::trace_path(dir.path(), 5), [0; 7]).unwrap();
        assert!(read_core(dir.path(), 5).is_err());
    }
}
