// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `BENCH` lines benchmark programs print, and pooling their samples.
//!
//! See the module docs of [`super`] for the protocol.

use std::collections::BTreeMap;

/// What every result line starts with.
pub const PREFIX: &str = "BENCH";

/// Fields that are measures of a sample, not dimensions of the
/// measurement: bytes moved per sample, operations per sample.
pub const EXTRA_FIELDS: [&str; 2] = ["bytes", "ops"];

/// One parsed result line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchLine {
    /// The experiment, e.g. `put-latency`.
    pub experiment: String,
    /// The dimensions, `key=value`, in the order of the line.
    pub keys: Vec<(String, String)>,
    /// `bytes=` and `ops=`, if given.
    pub extras: Vec<(String, u64)>,
    /// The samples, in modelled core cycles.
    pub cycles: Vec<u64>,
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

/// Parses `line`: `Ok(None)` if it does not start with [`PREFIX`], an error
/// saying what is wrong if it does but is not a valid result line.
pub fn parse_line(line: &str) -> Result<Option<BenchLine>, String> {
    let Some(rest) = line.strip_prefix(PREFIX) else {
        return Ok(None);
    };
    if !rest.starts_with(' ') {
        return Err(format!("`{PREFIX}` must be followed by a space"));
    }
    let mut words = rest.split_ascii_whitespace();
    let experiment = words.next().ok_or("no experiment name")?;
    if !is_name(experiment) || experiment.contains('=') {
        return Err(format!("`{experiment}` is not an experiment name"));
    }
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut extras: Vec<(String, u64)> = Vec::new();
    let mut cycles = None;
    for word in words {
        if cycles.is_some() {
            return Err(format!("`{word}` after `cycles=`, which must come last"));
        }
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("`{word}` is not key=value"))?;
        if !is_name(key) {
            return Err(format!("`{key}` is not a key name"));
        }
        if value.is_empty() || value.contains(',') && key != "cycles" {
            return Err(format!("`{word}`: a value is not empty and has no comma"));
        }
        if keys.iter().any(|(k, _)| k == key) || extras.iter().any(|(k, _)| k == key) {
            return Err(format!("`{key}` is given twice"));
        }
        if key == "cycles" {
            let samples = value
                .split(',')
                .map(|v| {
                    v.parse::<u64>()
                        .map_err(|_| format!("cycles: `{v}` is not a u64"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            cycles = Some(samples);
        } else if EXTRA_FIELDS.contains(&key) {
            let n = value
                .parse()
                .map_err(|_| format!("{key}: `{value}` is not a u64"))?;
            extras.push((key.to_owned(), n));
        } else {
            keys.push((key.to_owned(), value.to_owned()));
        }
    }
    let cycles = cycles.ok_or("no `cycles=` field")?;
    Ok(Some(BenchLine {
        experiment: experiment.to_owned(),
        keys,
        extras,
        cycles,
    }))
}

/// One sample and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The sample, in modelled core cycles.
    pub cycles: u64,
    /// The run that printed it: its number among the experiment's runs,
    /// from 1, as the report lists them.
    pub run: usize,
    /// The core that printed it.
    pub core: u32,
    /// The seed of the chip's variation its run had.
    pub seed: u64,
}

/// The samples of one measurement: every line of one experiment with the
/// same keys, from any core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The experiment.
    pub experiment: String,
    /// The keys, in the order of the first line that gave them.
    pub keys: Vec<(String, String)>,
    /// `bytes=`/`ops=`: the same on every pooled line.
    pub extras: Vec<(String, u64)>,
    /// Every sample, in the order the lines came (core by core).
    pub samples: Vec<Sample>,
    /// The cores that gave samples, ascending.
    pub cores: Vec<u32>,
}

impl Row {
    /// The value of key `key`.
    pub fn key(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of an extra field (`bytes`, `ops`).
    pub fn extra(&self, name: &str) -> Option<u64> {
        self.extras.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// The samples' cycles, in order.
    pub fn cycles(&self) -> Vec<u64> {
        self.samples.iter().map(|s| s.cycles).collect()
    }

    /// The samples' cycles per seed of the chip's variation, in seed
    /// order.
    pub fn cycles_per_seed(&self) -> Vec<(u64, Vec<u64>)> {
        let mut seeds: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for s in &self.samples {
            seeds.entry(s.seed).or_default().push(s.cycles);
        }
        seeds.into_iter().collect()
    }
}

/// Pooled rows, each keyed by experiment and sorted keys.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    rows: BTreeMap<(String, Vec<(String, String)>), Row>,
    /// Lines that did not parse or did not pool, each naming core and line.
    pub errors: Vec<String>,
    /// Lines pooled.
    pub lines: usize,
    /// The seed of each run that has another than the default, by run
    /// number ([`Pool::seed_run`]).
    seeds: BTreeMap<usize, u64>,
}

impl Pool {
    /// Run `run`'s chip variation was drawn from `seed`: its samples say
    /// so. A run not named here had the default seed.
    pub fn seed_run(&mut self, run: usize, seed: u64) {
        self.seeds.insert(run, seed);
    }

    /// Adds every `BENCH` line of core `core`'s serial output in run `run`
    /// (numbered from 1).
    pub fn add_serial(&mut self, run: usize, core: u32, serial: &[String]) {
        for (n, text) in serial.iter().enumerate() {
            self.add_numbered(run, core, n + 1, text);
        }
    }

    /// Adds serial line `number` (from 1) of core `core` in run `run`, if
    /// it is a `BENCH` line; one that does not parse or pool is an error
    /// naming the core and the line.
    pub fn add_numbered(&mut self, run: usize, core: u32, number: usize, text: &str) {
        let error = |e: String| format!("core {core}, serial line {number}: {e}: `{text}`");
        match parse_line(text) {
            Ok(None) => {}
            Ok(Some(line)) => {
                if let Err(e) = self.add(run, core, line) {
                    self.errors.push(error(e));
                }
            }
            Err(e) => self.errors.push(error(e)),
        }
    }

    /// Adds one parsed line of core `core` in run `run`.
    pub fn add(&mut self, run: usize, core: u32, line: BenchLine) -> Result<(), String> {
        let mut sorted = line.keys.clone();
        sorted.sort();
        let row = self
            .rows
            .entry((line.experiment.clone(), sorted))
            .or_insert_with(|| Row {
                experiment: line.experiment.clone(),
                keys: line.keys.clone(),
                extras: line.extras.clone(),
                samples: Vec::new(),
                cores: Vec::new(),
            });
        let mut mine = line.extras.clone();
        mine.sort();
        let mut theirs = row.extras.clone();
        theirs.sort();
        if mine != theirs {
            return Err(format!(
                "its bytes=/ops= differ from an earlier line of the same measurement ({theirs:?})"
            ));
        }
        let seed = self.seeds.get(&run).copied().unwrap_or(chip::DEFAULT_SEED);
        row.samples.extend(line.cycles.iter().map(|&cycles| Sample {
            cycles,
            run,
            core,
            seed,
        }));
        if let Err(at) = row.cores.binary_search(&core) {
            row.cores.insert(at, core);
        }
        self.lines += 1;
        Ok(())
    }

    /// The rows of experiment `experiment`, in key order.
    pub fn rows(&self, experiment: &str) -> Vec<&Row> {
        self.rows
            .values()
            .filter(|r| r.experiment == experiment)
            .collect()
    }

    /// Every experiment that gave a line.
    pub fn experiments(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.rows.keys().map(|(e, _)| e.as_str()).collect();
        names.dedup();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_into_keys_extras_and_samples() {
        let line = parse_line("BENCH put-latency size=1024 epoch=fence bytes=1024 cycles=10,20,30")
            .unwrap()
            .unwrap();
        assert_eq!(line.experiment, "put-latency");
        assert_eq!(
            line.keys,
            [
                ("size".to_owned(), "1024".to_owned()),
                ("epoch".to_owned(), "fence".to_owned())
            ]
        );
        assert_eq!(line.extras, [("bytes".to_owned(), 1024)]);
        assert_eq!(line.cycles, [10, 20, 30]);
        assert_eq!(parse_line("hello").unwrap(), None);
        assert_eq!(parse_line("").unwrap(), None);
        let bare = parse_line("BENCH barrier cycles=5").unwrap().unwrap();
        assert!(bare.keys.is_empty() && bare.cycles == [5]);
    }

    #[test]
    fn malformed_lines_say_why() {
        let err = |l: &str| parse_line(l).unwrap_err();
        assert_eq!(
            err("BENCHMARK x cycles=1"),
            "`BENCH` must be followed by a space"
        );
        assert_eq!(err("BENCH"), "`BENCH` must be followed by a space");
        assert_eq!(err("BENCH "), "no experiment name");
        assert_eq!(err("BENCH x size=1"), "no `cycles=` field");
        assert_eq!(err("BENCH x cycles=1,a"), "cycles: `a` is not a u64");
        assert_eq!(
            err("BENCH x cycles="),
            "`cycles=`: a value is not empty and has no comma"
        );
        assert_eq!(
            err("BENCH x cycles=1 k=2"),
            "`k=2` after `cycles=`, which must come last"
        );
        assert_eq!(err("BENCH x k=1 k=2 cycles=1"), "`k` is given twice");
        assert_eq!(err("BENCH x k cycles=1"), "`k` is not key=value");
        assert_eq!(
            err("BENCH x k=a,b cycles=1"),
            "`k=a,b`: a value is not empty and has no comma"
        );
        assert_eq!(
            err("BENCH x bytes=lots cycles=1"),
            "bytes: `lots` is not a u64"
        );
    }

    #[test]
    fn samples_pool_across_lines_and_cores_whatever_the_key_order() {
        let mut pool = Pool::default();
        pool.seed_run(2, 7);
        pool.add_serial(
            1,
            3,
            &[
                "boot".into(),
                "BENCH lock-unlock procs=4 mix=0.5 cycles=1,2".into(),
                "BENCH lock-unlock procs=4 mix=0.5 cycles=3".into(),
                "BENCH lock-unlock procs=8 mix=0.5 cycles=9".into(),
            ],
        );
        pool.add_serial(2, 1, &["BENCH lock-unlock mix=0.5 procs=4 cycles=4".into()]);
        pool.add_serial(
            2,
            2,
            &[
                "BENCH lock-unlock procs=4 cycles=x".into(),
                "BENCH barrier bytes=4 cycles=1".into(),
                "BENCH barrier bytes=8 cycles=1".into(),
            ],
        );
        let rows = pool.rows("lock-unlock");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].cycles(), [1, 2, 3, 4]);
        assert_eq!(
            rows[0].samples[3],
            Sample {
                cycles: 4,
                run: 2,
                core: 1,
                seed: 7,
            }
        );
        assert_eq!(rows[0].cores, [1, 3]);
        assert_eq!(rows[0].key("procs"), Some("4"));
        assert_eq!(rows[1].cycles(), [9]);
        assert_eq!(pool.experiments(), ["barrier", "lock-unlock"]);
        assert_eq!(pool.errors.len(), 2);
        assert_eq!(
            pool.errors[0],
            "core 2, serial line 1: cycles: `x` is not a u64: `BENCH lock-unlock procs=4 cycles=x`"
        );
        assert!(pool.errors[1].starts_with("core 2, serial line 3: its bytes=/ops= differ"));
        assert_eq!(pool.lines, 5);
    }
}
