// SPDX-License-Identifier: MIT OR Apache-2.0
//! How busy a run kept the chip's resources, from the chip model's
//! reports: the cores, and each resource that serves one request at a time
//! (memory controllers, MPBs, register blocks, mesh links).
//!
//! A resource's utilisation is the service time of every request it got
//! (`emu::model::stats::CoreStats::busy`, summed over the cores) over the
//! whole run's modelled cycles (its slowest core's), start-up included. A core's is the share of
//! its cycles it did not wait for other cores (halted, or waiting in a
//! poll). The suite keeps one [`Usage`] per run of a result-line program
//! ([`super::results::RunResult::usage`]); the irregular applications'
//! sections show them ([`table`]).

use emu::model::latency::{QUEUES, Resource};
use emu::report::CoreReport;

use super::table::{Table, num};

/// How busy one run kept each kind of resource, as shares of its modelled
/// cycles (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// The cores' mean share of their cycles not spent waiting.
    pub cores: f64,
    /// The busiest memory controller.
    pub controller_max: f64,
    /// The mean over the chip's memory controllers.
    pub controller_mean: f64,
    /// The busiest MPB.
    pub mpb_max: f64,
    /// The busiest register block (test-and-set registers, LUTs).
    pub crb_max: f64,
    /// The busiest mesh link.
    pub link_max: f64,
}

impl Usage {
    /// The usage of a run of `controllers` memory controllers from every
    /// core's report; `None` if a core wrote none or no cycle passed.
    pub fn of(reports: &[Option<CoreReport>], controllers: usize) -> Option<Self> {
        let reports: Vec<&CoreReport> =
            reports.iter().map(Option::as_ref).collect::<Option<_>>()?;
        let elapsed = reports.iter().map(|r| r.stats.cycles).max()? as f64;
        if elapsed == 0.0 {
            return None;
        }
        let mut busy = [0u64; QUEUES];
        for r in &reports {
            for (sum, b) in busy.iter_mut().zip(&r.stats.busy) {
                *sum += b;
            }
        }
        let share = |b: u64| b as f64 / elapsed;
        let max_of = |keep: fn(Resource) -> bool| {
            (0..QUEUES)
                .filter(|&i| keep(Resource::from_calendar(i)))
                .map(|i| share(busy[i]))
                .fold(0.0, f64::max)
        };
        let cores = reports
            .iter()
            .filter(|r| r.stats.cycles > 0)
            .map(|r| 1.0 - r.stats.idle_cycles as f64 / r.stats.cycles as f64)
            .sum::<f64>()
            / reports.len() as f64;
        let controller_mean = (0..controllers)
            .map(|m| share(busy[Resource::Controller(m).calendar()]))
            .sum::<f64>()
            / controllers.max(1) as f64;
        Some(Self {
            cores,
            controller_max: max_of(|r| matches!(r, Resource::Controller(_))),
            controller_mean,
            mpb_max: max_of(|r| matches!(r, Resource::Mpb(_))),
            crb_max: max_of(|r| matches!(r, Resource::Crb(_))),
            link_max: max_of(|r| matches!(r, Resource::Link(_))),
        })
    }
}

/// One row per run of `runs` (its description and usage): the table of an
/// experiment's resource utilisation.
pub fn table(runs: &[(String, Usage)]) -> Option<Table> {
    if runs.is_empty() {
        return None;
    }
    let mut table = Table::new(
        "Resource utilisation",
        &[
            "run",
            "cores busy",
            "busiest controller",
            "controllers (mean)",
            "busiest MPB",
            "busiest register block",
            "busiest link",
        ],
    );
    for (run, u) in runs {
        table.rows.push(vec![
            run.clone(),
            num(u.cores, 3),
            num(u.controller_max, 3),
            num(u.controller_mean, 3),
            num(u.mpb_max, 3),
            num(u.crb_max, 3),
            num(u.link_max, 3),
        ]);
    }
    table.notes.push(
        "modelled time, the runs with the default seed; shares of the whole run's cycles (its \
         slowest core's; start-up, checks and the model's primitives included): a core's, the \
         cycles it did not wait for other cores (the mean over the cores); a resource's, the \
         service time of every request it got, the polls of waiting cores included, each \
         resource serving one request at a time (`emu::model::latency`)"
            .to_owned(),
    );
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(core: u32, cycles: u64, idle: u64, busy: &[(Resource, u64)]) -> Option<CoreReport> {
        let mut r = CoreReport::new(core, false);
        r.stats.cycles = cycles;
        r.stats.idle_cycles = idle;
        for &(resource, b) in busy {
            r.stats.busy[resource.calendar()] = b;
        }
        Some(r)
    }

    #[test]
    fn shares_are_the_summed_service_over_the_slowest_core_s_cycles() {
        let reports = [
            report(
                0,
                1000,
                250,
                &[(Resource::Controller(1), 100), (Resource::Mpb(3), 40)],
            ),
            report(
                1,
                2000,
                0,
                &[(Resource::Controller(1), 300), (Resource::Crb(0), 20)],
            ),
        ];
        let u = Usage::of(&reports, 4).unwrap();
        assert_eq!(u.cores, (0.75 + 1.0) / 2.0);
        assert_eq!(u.controller_max, 400.0 / 2000.0);
        assert_eq!(u.controller_mean, 400.0 / 2000.0 / 4.0);
        assert_eq!(u.mpb_max, 40.0 / 2000.0);
        assert_eq!(u.crb_max, 20.0 / 2000.0);
        assert_eq!(u.link_max, 0.0);
        assert!(Usage::of(&[reports[0].clone(), None], 4).is_none());
        let t = table(&[("gas-bfs on 2 core(s)".into(), u)])
            .unwrap()
            .to_string();
        let row = t
            .lines()
            .find(|l| l.starts_with("gas-bfs on 2 core(s)"))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().skip(4).collect();
        assert_eq!(
            cells,
            ["0.875", "0.200", "0.050", "0.020", "0.010", "0.000"],
            "{t}"
        );
    }
}
