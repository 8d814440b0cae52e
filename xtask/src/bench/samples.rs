// SPDX-License-Identifier: MIT OR Apache-2.0
//! The raw samples of an experiment, `<experiment>-samples.csv`: one row
//! per sample, before any statistic, so that any summary can be redone.
//!
//! Columns: `experiment`; every key of the experiment's measurements, in
//! the order they first appear; the measured values, in the order they
//! first appear (`bytes`/`ops` of a `BENCH` line, then the sample itself,
//! `cycles`; host experiments name their own, such as `host s`); `run`,
//! the number of the run that gave the sample among the experiment's runs
//! (from 1, as the report lists them); and `core`, the core that printed
//! it, when one did. A cell a sample has no value for is empty.

use super::csv;

/// One sample as measured.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RawSample {
    /// The dimensions of its measurement, `key=value`; an empty value is
    /// one the measurement does not have.
    pub keys: Vec<(String, String)>,
    /// What was measured, by column name: the measures of the line
    /// (`bytes`, `ops`) and the sample (`cycles`, say).
    pub values: Vec<(String, String)>,
    /// The number of the run that gave it, from 1.
    pub run: usize,
    /// The core that printed it, if one did.
    pub core: Option<u32>,
}

/// The columns after the keys and values.
const TRAILER: [&str; 2] = ["run", "core"];

/// The names in `pairs` of every sample, in the order they first appear.
fn names<'a>(
    samples: &'a [RawSample],
    pairs: impl Fn(&'a RawSample) -> &'a [(String, String)],
) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    for s in samples {
        for (name, _) in pairs(s) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    names
}

/// The CSV file of `samples` of experiment `experiment`.
pub fn write(experiment: &str, samples: &[RawSample]) -> String {
    let keys = names(samples, |s| &s.keys);
    let values = names(samples, |s| &s.values);
    let cores = samples.iter().any(|s| s.core.is_some());
    let fixed =
        |name: &str| name == "experiment" || values.contains(&name) || TRAILER.contains(&name);
    // A key named like a fixed column keeps its values apart.
    let mut header = vec!["experiment".to_owned()];
    header.extend(keys.iter().map(|&k| {
        if fixed(k) {
            format!("{k} (key)")
        } else {
            k.to_owned()
        }
    }));
    header.extend(values.iter().map(|&v| v.to_owned()));
    header.push(TRAILER[0].to_owned());
    if cores {
        header.push(TRAILER[1].to_owned());
    }
    let cell = |pairs: &[(String, String)], name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(String::new, |(_, v)| v.clone())
    };
    let rows: Vec<Vec<String>> = samples
        .iter()
        .map(|s| {
            let mut row = vec![experiment.to_owned()];
            row.extend(keys.iter().map(|k| cell(&s.keys, k)));
            row.extend(values.iter().map(|v| cell(&s.values, v)));
            row.push(s.run.to_string());
            if cores {
                row.push(s.core.map_or_else(String::new, |c| c.to_string()));
            }
            row
        })
        .collect();
    csv::write(&header, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn every_sample_is_a_row_with_its_keys_in_columns() {
        let sample = |keys: &[(&str, &str)], values: &[(&str, &str)], run, core| RawSample {
            keys: pairs(keys),
            values: pairs(values),
            run,
            core,
        };
        let samples = [
            sample(
                &[("size", "8"), ("epoch", "fence"), ("type", "mpbt-wt")],
                &[("bytes", "8"), ("cycles", "533")],
                1,
                Some(0),
            ),
            sample(
                &[("size", "8"), ("epoch", "fence"), ("type", "mpbt-wt")],
                &[("bytes", "8"), ("cycles", "540")],
                1,
                Some(0),
            ),
            // A baseline without `type`, its keys in another order.
            sample(
                &[("epoch", "lock"), ("size", "1024")],
                &[("bytes", "1024"), ("cycles", "1066")],
                2,
                Some(1),
            ),
        ];
        let text = write("put-latency", &samples);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "experiment,size,epoch,type,bytes,cycles,run,core",
                "put-latency,8,fence,mpbt-wt,8,533,1,0",
                "put-latency,8,fence,mpbt-wt,8,540,1,0",
                "put-latency,1024,lock,,1024,1066,2,1",
            ]
        );
    }

    #[test]
    fn host_samples_name_their_values_and_have_no_core() {
        let samples = [
            RawSample {
                keys: pairs(&[("program", "bench-mpb"), ("run", "x")]),
                values: pairs(&[("host s", "1.25")]),
                run: 1,
                core: None,
            },
            RawSample {
                keys: pairs(&[("program", "bench-mpb")]),
                values: pairs(&[("host s", "1.5"), ("instructions", "1000")]),
                run: 2,
                core: None,
            },
        ];
        assert_eq!(
            write("overhead", &samples),
            "experiment,program,run (key),host s,instructions,run\n\
             overhead,bench-mpb,x,1.25,,1\n\
             overhead,bench-mpb,,1.5,1000,2\n"
        );
        assert_eq!(write("none", &[]), "experiment,run\n");
    }
}
