// SPDX-License-Identifier: MIT OR Apache-2.0
//! Why a run did not end well, where the host can tell: which core held
//! the others back when time ran out, and whether memory or the run
//! directory's room ran out when QEMU was killed.
//!
//! With modelled time, no running core goes more than a quantum ahead of
//! the slowest running core (`emu::timing`), so one core that stops
//! (SIGSTOP, a host that starves it) stalls all the others, and one that
//! loops while the others halt keeps them waiting. The watcher samples the
//! run's clocks file ([`emu::timing::read_cores`]) as the run goes on and
//! remembers when each core's clock last moved; at a timeout, [`Stall`]
//! names the core(s) holding the others back ([`Progress::stall`]), when
//! they last made progress and where (the instruction at their last sync
//! point), and the cores that wait for them.

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use emu::timing::{self, CoreTime, State};

use super::symbols::CodeMap;

/// What the watcher knows of one core's modelled time.
#[derive(Debug, Clone, Copy)]
struct Seen {
    time: CoreTime,
    /// When its clock (or state) last changed, in host time.
    moved: Instant,
    /// Since when every sample found it running, if the last one did.
    running_since: Option<Instant>,
}

/// How long every unfinished core must have waited for a store, with no
/// clock, state or wake time changing, before the run is a deadlock: the
/// watcher samples every [`super::fleet`] sample period (100 ms), so
/// several samples agree.
const SETTLED: Duration = Duration::from_secs(1);

/// A running core whose clock and state have not changed for this long is
/// stuck: a core that runs publishes its clock every half quantum. A core
/// halted or waiting in modelled time (`emu::timing`) is not: it waits
/// for the others.
const STUCK: Duration = Duration::from_secs(2);

/// Each core's clock as last read, and when it last moved.
#[derive(Debug, Default)]
pub(super) struct Progress {
    cores: Vec<Seen>,
}

impl Progress {
    /// Reads the clocks file in `dir` for `cores` cores at `now`. A file
    /// that cannot be read (no modelled time) leaves nothing known.
    pub(super) fn sample(&mut self, dir: &Path, cores: u32, now: Instant) {
        let Ok(times) = timing::read_cores(dir, cores) else {
            return;
        };
        if self.cores.len() != times.len() {
            self.cores = times
                .iter()
                .map(|&time| Seen {
                    time,
                    moved: now,
                    running_since: None,
                })
                .collect();
        }
        for (seen, time) in self.cores.iter_mut().zip(times) {
            let moved = |t: &CoreTime| (t.clock, t.state, t.wake);
            if moved(&time) != moved(&seen.time) {
                seen.moved = now;
            }
            seen.running_since = match time.state {
                Some(State::Running) => seen.running_since.or(Some(now)),
                _ => None,
            };
            seen.time = time;
        }
    }

    /// Whether the cores that had not finished, `unfinished`, are in a
    /// deadlock at `now`: every one of them waits in modelled time for a
    /// store to a line it watches, which only a running core could make,
    /// and has for [`SETTLED`] without any change. Clocks are read one core
    /// after the other, not as one cut: a store that woke a core between
    /// two reads shows in the next samples, so one sample is not enough.
    pub(super) fn deadlocked(&self, unfinished: &[u32], now: Instant) -> bool {
        !unfinished.is_empty()
            && unfinished.iter().all(|&c| {
                self.cores.get(c as usize).is_some_and(|s| {
                    s.time.waits_for_a_store() && now.saturating_duration_since(s.moved) >= SETTLED
                })
            })
    }

    /// What held the run back at `now`, given the cores that had not
    /// finished; `None` without modelled time.
    ///
    /// Cores that are stuck (running, with clock and state still for
    /// [`STUCK`]: a stopped QEMU, and the cores a quantum ahead of it or
    /// waiting to be ordered after it) hold the others
    /// back if there are any, the one with the lowest clock first; else the
    /// core that has been running the longest while the others halt (a
    /// loop that never returns).
    pub(super) fn stall(&self, unfinished: &[u32], now: Instant) -> Option<Stall> {
        if self.cores.is_empty() {
            return None;
        }
        let candidates: Vec<(u32, &Seen)> = unfinished
            .iter()
            .filter_map(|&c| self.cores.get(c as usize).map(|s| (c, s)))
            .collect();
        let still = |s: &Seen| now.saturating_duration_since(s.moved);
        let stuck: Vec<(u32, &Seen)> = candidates
            .iter()
            .copied()
            // A halted or waiting core does not move while it waits for
            // the others: only a running one can be stuck.
            .filter(|(_, s)| still(s) >= STUCK && s.time.state == Some(State::Running))
            .collect();
        let chosen: Vec<(u32, &Seen)> = if stuck.is_empty() {
            let longest = candidates.iter().filter_map(|(_, s)| s.running_since).min();
            candidates
                .iter()
                .copied()
                .filter(|(_, s)| longest.is_some() && s.running_since == longest)
                .collect()
        } else {
            let lowest = stuck.iter().map(|(_, s)| s.time.clock).min();
            stuck
                .into_iter()
                .filter(|(_, s)| Some(s.time.clock) == lowest)
                .collect()
        };
        let holding: Vec<Holder> = chosen
            .iter()
            .map(|&(core, s)| Holder {
                core,
                clock: s.time.clock,
                still_for: still(s),
                pc: s.time.pc,
            })
            .collect();
        let waiting: Vec<u32> = unfinished
            .iter()
            .copied()
            .filter(|c| !holding.iter().any(|h| h.core == *c))
            .collect();
        let waits = if holding.is_empty() {
            waiting
                .iter()
                .filter_map(|&core| {
                    let s = self.cores.get(core as usize)?;
                    s.time.waits_for_a_store().then(|| Waiter {
                        core,
                        clock: s.time.clock,
                        pc: s.time.pc,
                        sp: s.time.sp,
                        calls: Vec::new(),
                        watched: Vec::new(),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(Stall {
            holding,
            waiting,
            waits,
        })
    }
}

/// A core that holds the others back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The core.
    pub core: u32,
    /// Its modelled clock (core cycles).
    pub clock: u64,
    /// Host time since its clock last moved.
    pub still_for: Duration,
    /// The instruction at its last sync point.
    pub pc: u32,
}

/// A core that waits in modelled time for a store no core has made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiter {
    /// The core.
    pub core: u32,
    /// Its modelled clock when it began to wait (core cycles).
    pub clock: u64,
    /// The instruction of its wait (its last sync point).
    pub pc: u32,
    /// Its stack pointer at the wait.
    pub sp: u32,
    /// The calls it waits in, innermost first: the address of each call's
    /// last byte, unwound from its stack.
    pub calls: Vec<u32>,
    /// What it waits to see written: each line it watches, described
    /// ([`emu::chipmem::Layout::describe`]).
    pub watched: Vec<String>,
}

impl Waiter {
    /// The wait as text: the core, since when, the instruction and where
    /// it lies in the image, and the lines it watches.
    pub fn with_code<'a>(&'a self, code: &'a CodeMap) -> impl fmt::Display + 'a {
        WaiterText { waiter: self, code }
    }
}

struct WaiterText<'a> {
    waiter: &'a Waiter,
    code: &'a CodeMap,
}

impl fmt::Display for WaiterText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.waiter;
        write!(
            f,
            "core {} waits since modelled cycle {} at EIP {:#010x}",
            w.core, w.clock, w.pc
        )?;
        for line in self.code.lines(u64::from(w.pc)) {
            write!(f, "\n  {line}")?;
        }
        for &call in &w.calls {
            let lines = self.code.lines(u64::from(call));
            if lines.is_empty() {
                write!(f, "\n  called at {call:#010x}")?;
            }
            for line in lines {
                match line.strip_prefix("at ") {
                    Some(place) => write!(f, "\n  called from {place}")?,
                    None => write!(f, "\n  {line}")?,
                }
            }
        }
        if !w.watched.is_empty() {
            write!(f, "\n  for a store to {}", w.watched.join(", or "))?;
        }
        Ok(())
    }
}

/// Which cores held a stalled run back, and which waited for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stall {
    /// The running cores with the lowest clock; empty if no unfinished
    /// core was running (all halted: waiting for each other).
    pub holding: Vec<Holder>,
    /// The other unfinished cores.
    pub waiting: Vec<u32>,
    /// With no core holding the others back: those of the waiting cores
    /// that wait for a store, and where.
    pub waits: Vec<Waiter>,
}

impl Stall {
    /// The stall as [`Stall`]'s `Display` has it, with where each holding
    /// core's EIP lies in the image, under its line.
    pub fn with_code<'a>(&'a self, code: &'a CodeMap) -> impl fmt::Display + 'a {
        StallText { stall: self, code }
    }
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_code(&CodeMap::default()).fmt(f)
    }
}

struct StallText<'a> {
    stall: &'a Stall,
    code: &'a CodeMap,
}

impl fmt::Display for StallText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stall = self.stall;
        let list = |cores: &mut dyn Iterator<Item = u32>| {
            cores.map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
        };
        if stall.holding.is_empty() {
            write!(
                f,
                "no core was stuck or kept running: core(s) {} were all halted, waiting for each other",
                list(&mut stall.waiting.iter().copied())
            )?;
            for w in &stall.waits {
                write!(f, "\n{}", w.with_code(self.code))?;
            }
            return Ok(());
        }
        for h in &stall.holding {
            writeln!(
                f,
                "core {} holds the others back: at modelled cycle {}, its clock last moved \
                 {:.1} s ago (host time), at EIP {:#010x} at its last sync point",
                h.core,
                h.clock,
                h.still_for.as_secs_f64(),
                h.pc
            )?;
            for line in self.code.lines(u64::from(h.pc)) {
                writeln!(f, "  {line}")?;
            }
        }
        if stall.waiting.is_empty() {
            return Ok(());
        }
        write!(
            f,
            "core(s) {} wait for it (halted, waiting in modelled time, or a quantum ahead of it)",
            list(&mut stall.waiting.iter().copied())
        )
    }
}

/// How many processes the kernel's OOM killer has killed since boot
/// (`oom_kill` in `/proc/vmstat`), if the kernel says.
pub(super) fn oom_kills() -> Option<u64> {
    let vmstat = std::fs::read_to_string("/proc/vmstat").ok()?;
    vmstat
        .lines()
        .find_map(|line| line.strip_prefix("oom_kill "))
        .and_then(|n| n.trim().parse().ok())
}

/// What to say of a QEMU killed by `signal` from outside the run, given
/// the OOM kills counted before and after the run and the room left in
/// the run directory's file system.
pub(super) fn killed_note(
    signal: i32,
    oom_before: Option<u64>,
    oom_after: Option<u64>,
    dir_free: Option<u64>,
) -> Option<String> {
    match signal {
        libc::SIGKILL => Some(match (oom_before, oom_after) {
            (Some(before), Some(after)) if after > before => format!(
                "memory ran out: the kernel's OOM killer killed {} process(es) on this host \
                 during the run (oom_kill in /proc/vmstat); run fewer cores, or free memory",
                after - before
            ),
            _ => "SIGKILL came from outside the run (the OOM killer counted no kill during it)"
                .to_owned(),
        }),
        libc::SIGBUS => Some(format!(
            "SIGBUS: QEMU could not get a page of a shared file, which happens when the run \
             directory's file system is full{}; give it more room or choose another with --run-dir",
            dir_free.map_or(String::new(), |free| format!(
                " (it has {} MiB free now)",
                free >> 20
            ))
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(clock: u64, state: State, pc: u32, moved: Instant) -> Seen {
        Seen {
            time: CoreTime {
                clock,
                state: Some(state),
                pc,
                wake: 0,
                sp: 0,
            },
            moved,
            running_since: (state == State::Running).then_some(moved),
        }
    }

    #[test]
    fn a_stuck_core_with_the_lowest_clock_holds_the_others_back() {
        // Core 1 was stopped; core 0 sleeps a quantum ahead of it (stuck
        // too, but later); core 2 halts and polls; core 3 finished.
        let start = Instant::now();
        let now = start + Duration::from_secs(10);
        let progress = Progress {
            cores: vec![
                seen(
                    200_000,
                    State::Running,
                    0x1000,
                    start + Duration::from_secs(3),
                ),
                seen(
                    100_000,
                    State::Running,
                    0x10_2a3c,
                    start + Duration::from_secs(2),
                ),
                seen(50_000, State::Halted, 0x2000, now),
                seen(300_000, State::Finished, 0x3000, start),
            ],
        };
        let stall = progress.stall(&[0, 1, 2], now).unwrap();
        assert_eq!(
            stall,
            Stall {
                holding: vec![Holder {
                    core: 1,
                    clock: 100_000,
                    still_for: Duration::from_secs(8),
                    pc: 0x10_2a3c
                }],
                waiting: vec![0, 2],
                waits: Vec::new(),
            }
        );
        let text = stall.to_string();
        assert!(
            text.starts_with(
                "core 1 holds the others back: at modelled cycle 100000, its clock last moved \
                 8.0 s ago (host time), at EIP 0x00102a3c"
            ),
            "{text}"
        );
        assert!(text.ends_with(
            "core(s) 0, 2 wait for it (halted, waiting in modelled time, or a quantum ahead of it)"
        ));
    }

    #[test]
    fn without_a_stuck_core_the_one_that_kept_running_holds_the_others_back() {
        // Core 2 loops; cores 0 and 1 halt and wake to poll, just now
        // seen running with a lower clock.
        let start = Instant::now();
        let now = start + Duration::from_secs(10);
        let mut looping = seen(9_000_000, State::Running, 0x4000, now);
        looping.running_since = Some(start);
        let progress = Progress {
            cores: vec![
                seen(8_900_000, State::Running, 0x5000, now),
                seen(8_950_000, State::Halted, 0x5000, now),
                looping,
            ],
        };
        let stall = progress.stall(&[0, 1, 2], now).unwrap();
        assert_eq!(stall.holding.len(), 1);
        assert_eq!(stall.holding[0].core, 2);
        assert_eq!(stall.waiting, [0, 1]);
    }

    #[test]
    fn a_core_waiting_in_modelled_time_is_not_stuck_however_long_it_waits() {
        // Core 0 has waited (its clock still) since the start; core 1 loops.
        let start = Instant::now();
        let now = start + Duration::from_secs(10);
        let mut looping = seen(9_000_000, State::Running, 0x4000, now);
        looping.running_since = Some(start);
        let progress = Progress {
            cores: vec![seen(1_000, State::Waiting, 0x5000, start), looping],
        };
        let stall = progress.stall(&[0, 1], now).unwrap();
        assert_eq!(stall.holding.len(), 1);
        assert_eq!(stall.holding[0].core, 1);
        assert_eq!(stall.waiting, [0]);
    }

    /// Core `core` waiting since `moved` for a store.
    fn waiting_for_a_store(clock: u64, pc: u32, moved: Instant) -> Seen {
        let mut s = seen(clock, State::Waiting, pc, moved);
        s.time.wake = u64::MAX;
        s
    }

    #[test]
    fn cores_that_all_wait_for_a_store_unchanged_for_a_second_are_a_deadlock() {
        let start = Instant::now();
        let progress = Progress {
            cores: vec![
                seen(5_000, State::Finished, 0x3000, start),
                waiting_for_a_store(4_000, 0x10_2040, start),
                waiting_for_a_store(4_100, 0x10_2040, start + Duration::from_millis(500)),
            ],
        };
        let unfinished = [1, 2];
        // Core 2 changed half a second ago: not settled yet.
        assert!(!progress.deadlocked(&unfinished, start + Duration::from_millis(900)));
        let now = start + Duration::from_millis(1500);
        assert!(progress.deadlocked(&unfinished, now));
        assert!(
            !progress.deadlocked(&[], now),
            "no core left is no deadlock"
        );
        let stall = progress.stall(&unfinished, now).unwrap();
        assert!(stall.holding.is_empty());
        assert_eq!(
            stall.waits,
            [
                Waiter {
                    core: 1,
                    clock: 4_000,
                    pc: 0x10_2040,
                    sp: 0,
                    calls: Vec::new(),
                    watched: Vec::new()
                },
                Waiter {
                    core: 2,
                    clock: 4_100,
                    pc: 0x10_2040,
                    sp: 0,
                    calls: Vec::new(),
                    watched: Vec::new()
                }
            ]
        );
        // A core whose wake time is set, one that runs, or one halted
        // until its timer may still act: no deadlock.
        for other in [
            seen(4_200, State::Waiting, 0x10_2040, start),
            seen(4_200, State::Running, 0x10_2040, start),
            seen(4_200, State::Halted, 0x10_2040, start),
        ] {
            let mut p = Progress {
                cores: progress.cores.clone(),
            };
            p.cores.push(other);
            assert!(!p.deadlocked(&[1, 2, 3], now), "{:?}", p.cores[3]);
        }
    }

    #[test]
    fn a_waiter_names_its_instruction_its_place_and_the_lines_it_watches() {
        let w = Waiter {
            core: 3,
            clock: 1234,
            pc: 0x10_2040,
            sp: 0x20_0000,
            calls: vec![0x10_3000, 0x10_4000],
            watched: vec!["the MPB of tile 0, byte 0x40".into(), "x".into()],
        };
        let frame = |function: &str, line| super::super::symbols::Frame {
            function: Some(function.into()),
            file: Some("f.c".into()),
            line: Some(line),
        };
        let code: CodeMap = [
            (
                0x10_2040,
                super::super::symbols::Place {
                    frames: vec![frame("poll", 1), frame("wait", 2)],
                },
            ),
            (
                0x10_3000,
                super::super::symbols::Place {
                    frames: vec![frame("MPI_Barrier", 3)],
                },
            ),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            w.with_code(&code).to_string(),
            "core 3 waits since modelled cycle 1234 at EIP 0x00102040\n  \
             at poll (f.c:1)\n  \
             \x20 inlined into wait (f.c:2)\n  \
             called from MPI_Barrier (f.c:3)\n  \
             called at 0x00104000\n  \
             for a store to the MPB of tile 0, byte 0x40, or x"
        );
    }

    #[test]
    fn halted_cores_alone_wait_for_each_other_and_no_clocks_say_nothing() {
        let now = Instant::now();
        let progress = Progress {
            cores: vec![
                seen(1, State::Halted, 0, now),
                seen(2, State::Halted, 0, now),
            ],
        };
        let stall = progress.stall(&[0, 1], now).unwrap();
        assert!(stall.holding.is_empty());
        assert!(stall.to_string().contains("core(s) 0, 1 were all halted"));
        assert_eq!(Progress::default().stall(&[0], now), None);
    }

    #[test]
    fn a_sample_records_when_each_clock_last_moved() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(timing::clocks_path(dir.path())).unwrap();
        file.set_len(timing::FILE_SIZE).unwrap();
        let t0 = Instant::now();
        let mut progress = Progress::default();
        progress.sample(dir.path(), 2, t0);
        let map = emu::shm::Mapping::new(
            &std::fs::File::options()
                .read(true)
                .write(true)
                .open(timing::clocks_path(dir.path()))
                .unwrap(),
            timing::FILE_SIZE,
        )
        .unwrap();
        let clocks = timing::Clocks::new(
            map,
            1,
            2,
            10,
            true,
            emu::model::variation::Variation::new(0),
        );
        clocks.publish(500);
        let t1 = t0 + Duration::from_secs(1);
        progress.sample(dir.path(), 2, t1);
        let t2 = t0 + Duration::from_secs(5);
        progress.sample(dir.path(), 2, t2);
        let stall = progress.stall(&[0, 1], t2).unwrap();
        // Both are still now; core 0 (clock 0) never moved, so it holds
        // core 1 back.
        assert_eq!(stall.holding[0].core, 0);
        assert_eq!(stall.holding[0].still_for, Duration::from_secs(5));
        assert_eq!(stall.holding[0].clock, 0);
        assert_eq!(stall.waiting, [1]);
        // Without a clocks file nothing is known.
        let mut none = Progress::default();
        none.sample(&dir.path().join("nosuch"), 2, t2);
        assert_eq!(none.stall(&[0], t2), None);
    }

    #[test]
    fn kills_from_outside_say_what_ran_out() {
        let oom = killed_note(libc::SIGKILL, Some(3), Some(4), None).unwrap();
        assert!(oom.starts_with("memory ran out: the kernel's OOM killer killed 1 process(es)"));
        let other = killed_note(libc::SIGKILL, Some(3), Some(3), None).unwrap();
        assert!(other.contains("from outside the run"), "{other}");
        let bus = killed_note(libc::SIGBUS, None, None, Some(3 << 20)).unwrap();
        assert!(
            bus.contains("file system is full (it has 3 MiB free now)"),
            "{bus}"
        );
        assert_eq!(killed_note(libc::SIGSEGV, None, None, None), None);
        // This kernel counts OOM kills.
        assert!(oom_kills().is_some());
    }
}
