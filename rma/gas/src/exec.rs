// SPDX-License-Identifier: MIT OR Apache-2.0
//! A cooperative executor of `async` tasks on one core.
//!
//! Tasks are futures spawned onto an [`Executor`] and polled round-robin
//! until all are done. There is no interrupt and no other thread to wake a
//! task, so wakers do nothing: a task that returns `Pending` is simply
//! polled again on the next round. A task gives the core away at its
//! `.await` points: [`yield_now`] always does once, and the split-phase
//! operations of [`crate::space`] do once between issue and completion,
//! so every task issues its operation before any waits for its own. A
//! context switch is one return from `poll` and one call of the next
//! task's `poll`: no stack is saved.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

/// A task: a boxed future of no result.
type Task<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Round-robin polling of the tasks spawned onto it.
#[derive(Default)]
pub struct Executor<'a> {
    tasks: Vec<Task<'a>>,
    polls: u64,
}

impl core::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Executor")
            .field("tasks", &self.tasks.len())
            .field("polls", &self.polls)
            .finish()
    }
}

impl<'a> Executor<'a> {
    /// An executor without tasks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `task`, to run when [`Executor::run`] runs.
    pub fn spawn(&mut self, task: impl Future<Output = ()> + 'a) {
        self.tasks.push(Box::pin(task));
    }

    /// Tasks not yet finished.
    pub fn pending(&self) -> usize {
        self.tasks.len()
    }

    /// Polls every task in turn, round after round, until all finished;
    /// returns how many polls (context switches into a task) that took.
    pub fn run(&mut self) -> u64 {
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let start = self.polls;
        while !self.tasks.is_empty() {
            let mut i = 0;
            while i < self.tasks.len() {
                self.polls += 1;
                if self.tasks[i].as_mut().poll(&mut cx).is_ready() {
                    // Keep the order of the others: removing shifts them.
                    drop(self.tasks.remove(i));
                } else {
                    i += 1;
                }
            }
        }
        self.polls - start
    }
}

/// Runs `future` alone to completion on this core and returns its
/// output.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = noop_waker();
    let mut cx = Context::from_waker(&waker);
    let mut future = core::pin::pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// A waker that does nothing: the executor polls every pending task
/// again anyway.
fn noop_waker() -> Waker {
    Waker::noop().clone()
}

/// Gives the core to the other tasks once.
pub fn yield_now() -> YieldNow {
    YieldNow(false)
}

/// The future of [`yield_now`]: `Pending` once, then `Ready`.
#[derive(Debug)]
#[must_use = "a yield does nothing unless awaited"]
pub struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    #[test]
    fn tasks_interleave_at_yields_in_spawn_order() {
        let log = RefCell::new(Vec::new());
        let mut ex = Executor::new();
        for t in 0..3u32 {
            let log = &log;
            ex.spawn(async move {
                for step in 0..=t {
                    log.borrow_mut().push((t, step));
                    yield_now().await;
                }
            });
        }
        assert_eq!(ex.pending(), 3);
        let polls = ex.run();
        assert_eq!(ex.pending(), 0);
        assert_eq!(
            *log.borrow(),
            [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (2, 2)]
        );
        // Task t is polled t + 2 times (t + 1 yields, then the end).
        assert_eq!(polls, 2 + 3 + 4);
    }

    #[test]
    fn block_on_returns_the_output() {
        assert_eq!(
            block_on(async {
                yield_now().await;
                7
            }),
            7
        );
    }
}
