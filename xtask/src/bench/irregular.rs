// SPDX-License-Identifier: MIT OR Apache-2.0
//! The irregular applications on the global address space (`gas-chase`,
//! `gas-bfs` and `gas-bc`): references or edges per second against cores
//! and tasks per core; for `gas-chase` and `gas-bfs`, the analytical
//! model's prediction beside each emulated result ([`chase_model`],
//! [`bfs_model`]; [`model_tables`] gives an experiment's).

use std::collections::BTreeMap;

use chip::Chip;

use super::protocol::{Pool, Row};
use super::stats::Summary;
use super::svg::Scale;
use super::table::{Table, num};
use super::{Experiment, Kind, Measure, Plot, Run, View, model};

/// The runs of one BFS variant at some tasks per core, full and quick; on
/// another chip than the SCC if one is named (`mesh8x8`, whose remote
/// atomic unit serves the atomic variant).
macro_rules! bfs_run {
    ($variant:literal, $tasks:literal $(, $chip:literal)?) => {
        Run {
            program: "gas-bfs",
            memory_mib: None,
            cores: &[4, 16, 48],
            quick_cores: &[4],
            params: &[
                $(("chip", $chip),)?
                ("variant", $variant),
                ("tasks", $tasks),
                ("vertices", "2048"),
            ],
            quick_params: &[
                $(("chip", $chip),)?
                ("variant", $variant),
                ("tasks", $tasks),
                ("vertices", "512"),
            ],
        }
    };
}

/// The atomic BFS with 4 tasks per core on another distribution of the
/// level array than the default (hashed), full and quick.
macro_rules! bfs_dist_run {
    ($dist:literal) => {
        Run {
            program: "gas-bfs",
            memory_mib: None,
            cores: &[16, 48],
            quick_cores: &[4],
            params: &[
                ("variant", "atomic"),
                ("tasks", "4"),
                ("vertices", "2048"),
                ("dist", $dist),
            ],
            quick_params: &[
                ("variant", "atomic"),
                ("tasks", "4"),
                ("vertices", "512"),
                ("dist", $dist),
            ],
        }
    };
}

/// Pointer chasing: every task walks the whole chain; the program sweeps
/// tasks per core up to 8 (4 with --quick) in each run.
pub const CHASE: Experiment = Experiment {
    name: "gas-chase",
    title: "Pointer chasing on the global address space",
    about: "gas-chase: one chain of 4096 u32 elements (1024 with --quick) shuffled by log2(length) \
            riffle passes, hashed over the cores' windows at line granularity; every task of every \
            core walks the whole chain by split-phase gets, each checked against the serial chain. \
            Total references per second of all cores against tasks per core, per core count.",
    kind: Kind::Lines {
        runs: &[Run {
            program: "gas-chase",
            memory_mib: None,
            cores: &[4, 16, 48],
            quick_cores: &[4],
            params: &[("length", "4096"), ("tasks", "8")],
            quick_params: &[("length", "1024"), ("tasks", "4")],
        }],
        view: View {
            x: "tasks",
            table: Measure::TotalRate,
            x_label: "tasks per core",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        },
    },
};

/// BFS, atomic and lock variants, 1 and 4 tasks per core.
pub const BFS: Experiment = Experiment {
    name: "gas-bfs",
    title: "BFS on the global address space",
    about: "gas-bfs: a uniform random graph of 2048 vertices (512 with --quick), out-degrees \
            uniform in 1..=80, levels claimed by compare-and-swap (atomic) or by get and put under \
            a lock per block of 16 vertices (lock); levels checked against a serial BFS. Total \
            edges per second of all cores against the core count, per variant and tasks per core, \
            with the level array's lines hashed over the cores (the default) and, for the atomic \
            variant with 4 tasks, in blocks and cyclically; the run logs give lock spins per \
            acquisition, lock attempts per target and the requests' spread over targets and \
            controllers. The runs with chip=mesh8x8 are on the 8x8 chip, whose remote atomic unit \
            at each memory controller does the atomic variant's compare-and-swap.",
    kind: Kind::Lines {
        runs: &[
            bfs_run!("atomic", "1"),
            bfs_run!("atomic", "4"),
            bfs_run!("lock", "1"),
            bfs_run!("lock", "4"),
            bfs_dist_run!("block"),
            bfs_dist_run!("cyclic"),
            bfs_run!("atomic", "1", "mesh8x8"),
            bfs_run!("atomic", "4", "mesh8x8"),
            bfs_run!("lock", "1", "mesh8x8"),
            bfs_run!("lock", "4", "mesh8x8"),
        ],
        view: View {
            x: "cores",
            table: Measure::TotalRate,
            x_label: "cores",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        },
    },
};

/// The runs of one betweenness-centrality variant at some tasks per core,
/// full and quick; on another chip than the SCC if one is named.
macro_rules! bc_run {
    ($variant:literal, $tasks:literal $(, $chip:literal)?) => {
        Run {
            program: "gas-bc",
            memory_mib: None,
            cores: &[4, 16, 48],
            quick_cores: &[4],
            params: &[
                $(("chip", $chip),)?
                ("variant", $variant),
                ("tasks", $tasks),
                ("scale", "10"),
                ("sources", "16"),
            ],
            quick_params: &[
                $(("chip", $chip),)?
                ("variant", $variant),
                ("tasks", $tasks),
                ("scale", "8"),
                ("sources", "4"),
            ],
        }
    };
}

/// Betweenness centrality (SSCA#2 kernel 4), atomic and lock variants.
pub const BC: Experiment = Experiment {
    name: "gas-bc",
    title: "Betweenness centrality (SSCA#2 kernel 4) on the global address space",
    about: "gas-bc: Brandes' algorithm from 16 sources (4 with --quick) of SSCA#2's R-MAT graph of \
            scale 10 (8 with --quick), 8 edges per vertex; path counts and fixed-point \
            dependencies added by compare-and-swap and fetch-and-add (atomic) or by get and put \
            under a lock per block of 16 vertices (lock); every core's centrality checked bit for \
            bit against a serial computation. Out-edges traversed per second of all cores (the \
            out-edges of every vertex the forward searches reach) against the core count, per \
            variant and tasks per core. The runs with chip=mesh8x8 are on the 8x8 chip, whose \
            remote atomic unit does the atomic variant's compare-and-swap and fetch-and-add.",
    kind: Kind::Lines {
        runs: &[
            bc_run!("atomic", "1"),
            bc_run!("atomic", "4"),
            bc_run!("lock", "1"),
            bc_run!("lock", "4"),
            bc_run!("atomic", "1", "mesh8x8"),
            bc_run!("atomic", "4", "mesh8x8"),
            bc_run!("lock", "1", "mesh8x8"),
            bc_run!("lock", "4", "mesh8x8"),
        ],
        view: View {
            x: "cores",
            table: Measure::TotalRate,
            x_label: "cores",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        },
    },
};

/// The analytical model's prediction ([`super::model`]) beside the
/// emulated rate, for every `gas-chase` configuration in `pool` whose
/// run measured the model's primitives; `None` without any. Its notes
/// give the largest and the mean error.
pub fn chase_model(pool: &Pool, chip: &Chip) -> Option<Table> {
    let mut table = Table::new(
        "Pointer chasing: the analytical model against the emulator",
        &[
            "cores",
            "tasks",
            "emulated cycles/ref",
            "predicted cycles/ref",
            "controller wait",
            "busiest controller",
            "error %",
        ],
    );
    let switch = switch_costs(pool);
    let mut errors = Vec::new();
    for row in pool.rows(CHASE.name) {
        let (Some(cores), Some(tasks), Some(ops)) = (
            row.key("cores").and_then(|c| c.parse::<u32>().ok()),
            row.key("tasks").and_then(|t| t.parse::<u32>().ok()),
            row.extra("ops"),
        ) else {
            continue;
        };
        let Some(primitives) = primitives(pool, cores, &switch) else {
            continue;
        };
        let Some(emulated) = median(&row.cycles()).map(|c| c / ops as f64) else {
            continue;
        };
        let Some(p) = model::chase(&primitives, &placement(chip, cores), tasks) else {
            continue;
        };
        let error = model::error(p.cycles, emulated);
        errors.push(error.abs());
        table.rows.push(vec![
            cores.to_string(),
            tasks.to_string(),
            num(emulated, 1),
            num(p.cycles, 1),
            num(p.wait, 2),
            num(p.utilisation, 3),
            num(error, 1),
        ]);
    }
    table.notes.push(format!(
        "modelled SCC time; emulated: the median over cores (and seeds) of a walk's cycles over its \
         references; predicted from the primitives core 0 measured alone in the same run \
         (`gas-model` lines, `gas-switch` for the polls); error = (predicted - emulated) / emulated; \
         {}",
        error_summary(&errors)?
    ));
    Some(table)
}

/// Whether experiment `name`'s section shows each run's resource
/// utilisation ([`super::usage`]): the irregular applications'.
pub fn shows_usage(name: &str) -> bool {
    [CHASE.name, BFS.name, BC.name].contains(&name)
}

/// The model tables of experiment `name` from its pooled results: the
/// analytical model beside the emulator, where the experiment has one.
pub fn model_tables(name: &str, pool: &Pool, chip: &Chip) -> Vec<Table> {
    let model: Option<fn(&Pool, &Chip) -> Option<Table>> = match name {
        n if n == CHASE.name => Some(chase_model),
        n if n == BFS.name => Some(bfs_model),
        _ => None,
    };
    model.and_then(|m| m(pool, chip)).into_iter().collect()
}

/// The analytical model's prediction ([`model::bfs`]) beside the emulated
/// search, for every `gas-bfs` configuration in `pool` whose run measured
/// the model's primitives and printed its levels; `None` without any. Its
/// notes give the largest and the mean error. A run without `chip=` ran
/// on `chip`.
pub fn bfs_model(pool: &Pool, chip: &Chip) -> Option<Table> {
    let mut table = Table::new(
        "BFS: the analytical model against the emulator",
        &[
            "chip",
            "cores",
            "tasks",
            "variant",
            "dist",
            "emulated Mcycles",
            "predicted Mcycles",
            "cycles/edge",
            "register wait",
            "lock wait",
            "error %",
        ],
    );
    let switch = switch_costs(pool);
    let mut errors = Vec::new();
    for row in pool.rows(BFS.name) {
        let (Some(cores), Some(tasks), Some(variant)) = (
            row.key("cores").and_then(|c| c.parse::<u32>().ok()),
            row.key("tasks").and_then(|t| t.parse::<u32>().ok()),
            row.key("variant"),
        ) else {
            continue;
        };
        let Some(primitives) = bfs_primitives(pool, &row.keys, &switch) else {
            continue;
        };
        let busiest = busiest_per_level(pool, &row.keys);
        let (Some(emulated), false) = (median(&row.cycles()), busiest.is_empty()) else {
            continue;
        };
        let Some(p) = model::bfs(&primitives, cores, tasks, &busiest) else {
            continue;
        };
        let error = model::error(p.cycles, emulated);
        errors.push(error.abs());
        table.rows.push(vec![
            row.key("chip").unwrap_or(chip.name).to_owned(),
            cores.to_string(),
            tasks.to_string(),
            variant.to_owned(),
            row.key("dist").unwrap_or("-").to_owned(),
            num(emulated / 1e6, 3),
            num(p.cycles / 1e6, 3),
            num(p.edge, 1),
            num(p.register_wait, 1),
            num(p.lock_wait, 1),
            num(error, 1),
        ]);
    }
    table.notes.push(format!(
        "modelled SCC time; emulated: the median over cores (and seeds) of the search's cycles; \
         predicted from each level's busiest core (`gas-bfs-level` lines) and the primitives core 0 \
         measured alone in the same run (`gas-model` lines, `gas-switch` for the polls); error = \
         (predicted - emulated) / emulated; {}",
        error_summary(&errors)?
    ));
    Some(table)
}

/// `largest |error| X %, mean Y % over N configurations` of the absolute
/// errors `errors` (in per cent); `None` for none.
fn error_summary(errors: &[f64]) -> Option<String> {
    if errors.is_empty() {
        return None;
    }
    let max = errors.iter().copied().fold(0.0, f64::max);
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    Some(format!(
        "largest |error| {max:.1} %, mean {mean:.1} % over {} configurations",
        errors.len()
    ))
}

/// The most edges a core visited in each level of the run with `keys`
/// (`gas-bfs-level` lines, one per core and level), by level.
fn busiest_per_level(pool: &Pool, keys: &[(String, String)]) -> Vec<u64> {
    let mut levels: BTreeMap<u32, u64> = BTreeMap::new();
    for row in pool.rows("gas-bfs-level") {
        let same = same_run(row, keys);
        let level = row.key("level").and_then(|l| l.parse::<u32>().ok());
        if let (true, Some(level), Some(edges)) = (same, level, row.extra("ops")) {
            let most = levels.entry(level).or_default();
            *most = (*most).max(edges);
        }
    }
    levels.into_values().collect()
}

/// Whether `row` (a `gas-bfs-level` or `gas-model` line's) comes from
/// the run whose `gas-bfs` row has `keys`: every key alike, and the same
/// chip (a line of the default chip has no `chip=`).
fn same_run(row: &Row, keys: &[(String, String)]) -> bool {
    let chip = keys
        .iter()
        .find(|(k, _)| k == "chip")
        .map(|(_, v)| v.as_str());
    keys.iter().all(|(k, v)| row.key(k) == Some(v.as_str())) && row.key("chip") == chip
}

/// The primitives of BFS the run with `keys` (cores, tasks, variant,
/// distribution) measured (`gas-model` lines `what=bfs-*`).
fn bfs_primitives(
    pool: &Pool,
    keys: &[(String, String)],
    switch: &BTreeMap<u32, f64>,
) -> Option<model::BfsPrimitives> {
    let get = |what: &str| {
        pool.rows("gas-model")
            .into_iter()
            .find(|r| r.key("what") == Some(what) && same_run(r, keys))
    };
    let visit_row = get("bfs-visit")?;
    let visit = median(&visit_row.cycles())? / visit_row.extra("ops")? as f64;
    let level = median(&get("bfs-level")?.cycles())? + median(&get("bfs-barrier")?.cycles())?;
    let tsr = get("bfs-tsr")?;
    let register = median(&tsr.cycles())?;
    let owners = tsr.key("owners")?.parse::<f64>().ok()?;
    let registers_per_claim = tsr.key("registers")?.parse::<f64>().ok()?;
    let locks = match get("bfs-hold") {
        Some(row) => Some(model::LockCosts {
            count: row.key("locks")?.parse::<f64>().ok()?,
            hold: median(&row.cycles())?,
            attempt: median(&get("bfs-attempt")?.cycles())?,
        }),
        None => None,
    };
    Some(model::BfsPrimitives {
        visit,
        level,
        register,
        registers_per_claim,
        owners,
        locks,
        switch: switch.clone(),
    })
}

/// The cost of a poll among `T` tasks, by `T`: `gas-switch` lines, whose
/// samples are the cycles of `polls` polls, pooled over the runs (a
/// single-core measurement).
fn switch_costs(pool: &Pool) -> BTreeMap<u32, f64> {
    let mut costs = BTreeMap::new();
    for row in pool.rows("gas-switch") {
        let (Some(tasks), Some(polls)) = (
            row.key("tasks").and_then(|t| t.parse::<u32>().ok()),
            row.key("polls").and_then(|p| p.parse::<f64>().ok()),
        ) else {
            continue;
        };
        if let Some(cycles) = median(&row.cycles()) {
            costs.insert(tasks, cycles / polls);
        }
    }
    costs
}

/// The primitives the run on `cores` cores measured (`gas-model` lines).
fn primitives(pool: &Pool, cores: u32, switch: &BTreeMap<u32, f64>) -> Option<model::Primitives> {
    let get = |what: &str| {
        pool.rows("gas-model")
            .into_iter()
            .find(|r| r.key("what") == Some(what) && r.key("cores") == Some(&cores.to_string()))
    };
    let get_local = median(&get("get-local")?.cycles())?;
    let get_remote = median(&get("get-remote")?.cycles())?;
    let step_row = get("step")?;
    let step = median(&step_row.cycles())? / step_row.extra("ops")? as f64;
    Some(model::Primitives {
        get_local,
        get_remote,
        step,
        switch: switch.clone(),
    })
}

/// How the parts of a run on `cores` cores of `chip` lie on its memory
/// controllers (each core's part in its POPSHM, behind its tile's
/// controller), and a controller's service time per line in core cycles:
/// the largest of tCCD, tRRD and a quarter of tFAW ([`model`]).
fn placement(chip: &Chip, cores: u32) -> model::Placement {
    let mut owners = vec![0; chip.memory_controllers.len()];
    for n in 0..cores {
        if let Ok(core) = chip.core(n) {
            owners[chip.popshm(core).0] += 1;
        }
    }
    let t = &chip.timing;
    let clocks = f64::from(t.dram_tccd.max(t.dram_trrd)).max(f64::from(t.dram_tfaw) / 4.0);
    // A DRAM clock is half the transfer rate.
    let ns = clocks * 2000.0 / f64::from(t.dram_mts);
    model::Placement {
        owners,
        service: ns * f64::from(t.core_mhz) / 1000.0,
    }
}

/// The median of `samples`, `None` for none.
fn median(samples: &[u64]) -> Option<f64> {
    Summary::of_u64(samples).map(|s| s.median)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_table_sets_each_prediction_beside_its_emulated_rate() {
        let mut pool = Pool::default();
        let lines = [
            "BENCH gas-model what=get-local cores=4 cycles=1000,1000,3000",
            "BENCH gas-model what=get-remote cores=4 cycles=2000,2000",
            "BENCH gas-model what=step cores=4 ops=100 cycles=5000",
            "BENCH gas-switch tasks=1 polls=10 cycles=400",
            "BENCH gas-switch tasks=2 polls=10 cycles=450",
            "BENCH gas-chase cores=4 tasks=1 dist=hashed over=owners ops=100 cycles=180000",
            "BENCH gas-chase cores=4 tasks=2 dist=hashed over=owners ops=200 cycles=400000",
            // A core count whose primitives are missing is left out.
            "BENCH gas-chase cores=16 tasks=1 dist=hashed over=owners ops=100 cycles=180000",
        ];
        for (n, line) in lines.iter().enumerate() {
            pool.add_numbered(1, 0, n + 1, line);
        }
        assert!(pool.errors.is_empty(), "{:?}", pool.errors);
        let table = chase_model(&pool, &chip::SCC).expect("a table");
        assert_eq!(table.rows.len(), 2, "{table:?}");
        // 50 + 1/4 of 1000 + 3/4 of 2000 = 1800 cycles, plus a small wait
        // at controller 0, behind which all 4 cores' parts lie.
        let (one, two) = (&table.rows[0], &table.rows[1]);
        assert_eq!(
            (one[0].as_str(), one[1].as_str(), one[2].as_str()),
            ("4", "1", "1800.0")
        );
        let predicted: f64 = one[3].parse().unwrap();
        let wait: f64 = one[4].parse().unwrap();
        assert!(
            wait > 0.0 && (predicted - 1800.0 - wait).abs() < 0.1,
            "{one:?}"
        );
        // Two tasks: 5 more cycles a reference (45 against 40 a poll).
        assert_eq!(two[2], "2000.0");
        let predicted2: f64 = two[3].parse().unwrap();
        assert!((predicted2 - predicted - 5.0).abs() < 0.1, "{two:?}");
        let error: f64 = two[6].parse().unwrap();
        assert!((error - (predicted2 - 2000.0) / 20.0).abs() < 0.1);
        assert!(
            table.notes[0].contains("over 2 configurations"),
            "{:?}",
            table.notes
        );
    }

    #[test]
    fn the_bfs_model_table_predicts_each_run_from_its_busiest_cores() {
        let mut pool = Pool::default();
        let keys = "cores=2 tasks=1 variant=atomic dist=hashed";
        let lines = [
            format!("BENCH gas-model what=bfs-visit {keys} ops=100 cycles=100000"),
            format!("BENCH gas-model what=bfs-level {keys} cycles=3000"),
            format!("BENCH gas-model what=bfs-barrier {keys} cycles=2000,2000,9000"),
            format!("BENCH gas-model what=bfs-tsr {keys} owners=2 registers=1 cycles=100"),
            // The same run's workload on another chip does not count.
            format!("BENCH gas-bfs-level {keys} chip=mesh8x8 rank=0 level=1 ops=900 cycles=1"),
            "BENCH gas-switch tasks=1 polls=10 cycles=400".to_owned(),
            // Level 1: 10 and 4 edges; level 2: 30 and 50.
            format!("BENCH gas-bfs-level {keys} rank=0 level=1 ops=10 cycles=1"),
            format!("BENCH gas-bfs-level {keys} rank=1 level=1 ops=4 cycles=1"),
            format!("BENCH gas-bfs-level {keys} rank=0 level=2 ops=30 cycles=1"),
            format!("BENCH gas-bfs-level {keys} rank=1 level=2 ops=50 cycles=1"),
            format!("BENCH gas-bfs {keys} ops=47 cycles=70000,72000"),
            // Another run whose primitives are missing is left out.
            "BENCH gas-bfs cores=8 tasks=1 variant=atomic dist=hashed ops=9 cycles=1".to_owned(),
        ];
        for (n, line) in lines.iter().enumerate() {
            pool.add_numbered(1, 0, n + 1, line);
        }
        assert!(pool.errors.is_empty(), "{:?}", pool.errors);
        let table = bfs_model(&pool, &chip::SCC).expect("a table");
        assert_eq!(table.rows.len(), 1, "{table:?}");
        let row = &table.rows[0];
        // An edge: 1000 cycles and the register's wait (2 cores on 2
        // owners, h = 100); levels: 10 and 50 edges, each plus 5000.
        assert_eq!((row[0].as_str(), row[4].as_str()), ("scc", "hashed"));
        let edge: f64 = row[7].parse().unwrap();
        let rho = 100.0 / edge;
        let wait = rho * 100.0 / (2.0 * (1.0 - rho));
        assert!((edge - 1000.0 - wait).abs() < 0.1, "{row:?}");
        let predicted: f64 = row[6].parse().unwrap();
        assert!(
            (predicted * 1e6 - (60.0 * edge + 10000.0)).abs() < 1e3,
            "{row:?}"
        );
        assert_eq!(row[5], "0.071");
        assert!(
            table.notes[0].contains("over 1 configurations"),
            "{:?}",
            table.notes
        );
    }

    #[test]
    fn the_scc_pages_of_four_cores_lie_behind_one_controller() {
        let p = placement(&chip::SCC, 4);
        assert_eq!(p.owners, vec![4, 0, 0, 0]);
        let all = placement(&chip::SCC, 48);
        assert_eq!(all.owners, vec![12, 12, 12, 12]);
        // DDR3-800: 4 clocks of 2.5 ns at most (tCCD, tRRD, tFAW/4), 10 ns:
        // 5.33 cycles at 533 MHz.
        assert!((p.service - 5.33).abs() < 0.01, "{}", p.service);
    }
}
