// SPDX-License-Identifier: MIT OR Apache-2.0
//! Where the suite is: runs done out of all, elapsed time, an estimate of
//! the time left and the samples received so far.
//!
//! On a terminal this is a progress bar on standard error, with the runs
//! under way; anywhere else (a log, CI) one plain line per run started
//! and per run ended, so that nothing redraws.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// The suite's progress.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    total: usize,
    started: usize,
    done: usize,
    samples: usize,
    running: Vec<String>,
    clock: Instant,
}

impl Progress {
    /// Progress over `total` runs: a bar if standard error is a terminal,
    /// plain lines otherwise.
    pub fn new(total: usize) -> Self {
        Self::with_bar(total, std::io::stderr().is_terminal())
    }

    /// Progress over `total` runs, with a bar or with plain lines.
    pub fn with_bar(total: usize, bar: bool) -> Self {
        let bar = bar.then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs, ETA {eta}  {msg}",
                )
                .expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Self {
            bar,
            state: Mutex::new(State {
                total,
                started: 0,
                done: 0,
                samples: 0,
                running: Vec::new(),
                clock: Instant::now(),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `id` (`what` it runs) has started.
    pub fn start(&self, id: &str, what: &str) {
        let mut s = self.state();
        s.started += 1;
        s.running.push(id.to_owned());
        let line = format!("bench: run {}/{} {id} started: {what}", s.started, s.total);
        self.show(&s, &line);
    }

    /// Run `id` has ended after `seconds`, with `samples` samples, failed
    /// if `failure` says why.
    pub fn finish(&self, id: &str, seconds: f64, samples: usize, failure: Option<&str>) {
        let mut s = self.state();
        s.done += 1;
        s.samples += samples;
        s.running.retain(|r| r != id);
        let line = plain_line(
            &PlainLine {
                done: s.done,
                total: s.total,
                id,
                seconds,
                failure,
                samples: s.samples,
            },
            s.clock.elapsed(),
        );
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.show(&s, &line);
    }

    /// A remark, printed above the bar or as a plain line.
    pub fn note(&self, line: &str) {
        let s = self.state();
        self.show(&s, line);
    }

    fn show(&self, s: &State, line: &str) {
        match &self.bar {
            Some(bar) => {
                bar.println(line);
                bar.set_message(format!(
                    "{} samples; running: {}",
                    s.samples,
                    s.running.join(", ")
                ));
            }
            None => eprintln!("{line}"),
        }
    }

    /// Prints `text` on standard output, the bar put away meanwhile.
    pub fn print(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| println!("{text}")),
            None => println!("{text}"),
        }
    }

    /// Removes the bar, if there is one.
    pub fn clear(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// What the plain line of a run that ended says.
#[derive(Debug)]
pub struct PlainLine<'a> {
    /// Runs ended, this one included.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// Its ID.
    pub id: &'a str,
    /// Its host seconds.
    pub seconds: f64,
    /// Why it failed, if it did.
    pub failure: Option<&'a str>,
    /// Samples received so far, its own included.
    pub samples: usize,
}

/// The line of a run that ended, `elapsed` into the suite: the time left
/// is estimated from the mean time per run so far.
pub fn plain_line(l: &PlainLine<'_>, elapsed: Duration) -> String {
    let how = match l.failure {
        None => "done".to_owned(),
        Some(why) => format!("FAILED ({why})"),
    };
    let left = l.total.saturating_sub(l.done);
    let eta = if l.done == 0 {
        "unknown".to_owned()
    } else {
        clock(elapsed.mul_f64(left as f64 / l.done as f64))
    };
    format!(
        "bench: run {}/{} {} {how} in {:.1} s; elapsed {}, ETA {eta}, {} samples so far",
        l.done,
        l.total,
        l.id,
        l.seconds,
        clock(elapsed),
        l.samples
    )
}

/// `d` as `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_where_the_suite_is() {
        let line = |done, failure, elapsed| {
            plain_line(
                &PlainLine {
                    done,
                    total: 4,
                    id: "barrier-2",
                    seconds: 12.34,
                    failure,
                    samples: 300,
                },
                Duration::from_secs(elapsed),
            )
        };
        assert_eq!(
            line(1, None, 90),
            "bench: run 1/4 barrier-2 done in 12.3 s; elapsed 0:01:30, ETA 0:04:30, 300 samples so far"
        );
        assert_eq!(
            line(4, Some("core 3 failed"), 3725),
            "bench: run 4/4 barrier-2 FAILED (core 3 failed) in 12.3 s; elapsed 1:02:05, ETA 0:00:00, 300 samples so far"
        );
        assert!(line(0, None, 5).contains("ETA unknown"));
    }

    #[test]
    fn without_a_terminal_there_is_no_bar() {
        let p = Progress::with_bar(2, false);
        assert!(p.bar.is_none());
        p.start("a-1", "x on 1 core(s)");
        p.finish("a-1", 1.0, 5, None);
        let s = p.state();
        assert_eq!((s.started, s.done, s.samples), (1, 1, 5));
        assert!(s.running.is_empty());
    }
}
