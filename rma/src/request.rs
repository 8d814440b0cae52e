// SPDX-License-Identifier: MIT OR Apache-2.0
//! Requests: what the request-based operations return (`MPI_Rput` and
//! its relatives: [`Rma::rput`](crate::window::Rma::rput) and the others
//! in `ops` and `accumulate`, or any operation whose
//! [`Transfer`] asks for [`Completion::Request`]), allowed only inside
//! passive-target epochs (lock or lock_all), as MPI says, and the calls
//! that wait for them and test them.
//!
//! The SCC has no DMA engine: a core moves the data itself, so these calls
//! copy as their blocking forms do and the operation is complete at the
//! origin when the call returns (the origin buffer may be reused; a get's
//! data is there). [`Rma::wait_request`] and [`Rma::test_request`]
//! therefore find every request complete; they only retire it. Completion
//! at the target still takes what it takes for put: `flush`, `flush_all`,
//! `unlock` or `unlock_all` release the writes (an accumulate's are
//! released already, inside its guard).
//!
//! A request is retired by the first wait, or test, on it; using it again,
//! or with another window, is an `MPI_ERR_REQUEST` error. Requests never
//! retired stay pending with their window until it is freed.
#![forbid(unsafe_code)]

use alloc::vec::Vec;

use crate::RmaError;
use crate::epoch::Check;
use crate::hal::RmaHal;
use crate::transfer::{Completion, Transfer};
use crate::window::{Rma, Window};

/// A request-based operation, to wait for or test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Request {
    window: u32,
    id: u32,
}

impl Request {
    /// The request's number, as errors name it.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The window it was made on.
    pub fn window(&self) -> u32 {
        self.window
    }
}

/// The requests of one window not yet retired.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    next: u32,
    pending: Vec<u32>,
}

impl<H: RmaHal> Rma<'_, H> {
    /// `Err(Sync)` naming `call` outside a passive-target epoch, but for
    /// [`PROC_NULL`](crate::PROC_NULL), whose operations do nothing in any
    /// epoch (as its lock opens none).
    fn check_request(&self, call: &'static str, id: u32, target: u32) -> Result<(), RmaError> {
        let w = self.window(id)?;
        if target == crate::PROC_NULL {
            return Ok(());
        }
        Check { call, window: id }.passive(&w.access)
    }

    fn issue(&mut self, id: u32) -> Request {
        let w = self
            .window_mut(id)
            .expect("the operation checked the window");
        let r = &mut w.requests;
        let request = Request {
            window: id,
            id: r.next,
        };
        r.pending.push(r.next);
        r.next = r.next.wrapping_add(1);
        w.stats.requests += 1;
        request
    }

    /// `op`, the operation `transfer` describes, as its [`Completion`]
    /// says: a request for it only in a passive-target epoch.
    pub(crate) fn as_completion<T>(
        &mut self,
        call: &'static str,
        transfer: Transfer<'_, T>,
        op: impl FnOnce(&mut Self) -> Result<(), RmaError>,
    ) -> Result<Option<Request>, RmaError> {
        match transfer.completion {
            Completion::Blocking => op(self).map(|()| None),
            Completion::Request => self.requested(call, transfer, op).map(Some),
        }
    }

    /// `op`, the operation `transfer` describes, as a request.
    pub(crate) fn requested<T>(
        &mut self,
        call: &'static str,
        transfer: Transfer<'_, T>,
        op: impl FnOnce(&mut Self) -> Result<(), RmaError>,
    ) -> Result<Request, RmaError> {
        let id = transfer.id();
        self.check_request(call, id, transfer.target)?;
        op(self)?;
        Ok(self.issue(id))
    }

    /// Waits until `request` is complete at the origin (`MPI_Wait`) and
    /// retires it. Every request is complete when its call returns, so
    /// this never waits.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Request)` if the request
    /// was retired already or belongs to another window.
    pub fn wait_request<T>(&mut self, window: Window<T>, request: Request) -> Result<(), RmaError> {
        self.retire("wait_request", window.id(), request)
    }

    /// Whether `request` is complete at the origin (`MPI_Test`); a
    /// complete request is retired. Always `Ok(true)` for a pending
    /// request: see [`Rma::wait_request`].
    ///
    /// Return values: as [`Rma::wait_request`].
    pub fn test_request<T>(
        &mut self,
        window: Window<T>,
        request: Request,
    ) -> Result<bool, RmaError> {
        self.retire("test_request", window.id(), request)?;
        Ok(true)
    }

    /// Completes and retires every request of `requests`, of any windows
    /// (`MPI_Waitall`). Each is complete when its call returns, so this
    /// never waits. Either all are retired or, if one of them is not
    /// pending, none.
    ///
    /// Return values: `Err(UnknownWindow)` for a request whose window is
    /// gone; `Err(Request)` naming the first request that was retired
    /// already or is given twice.
    pub fn wait_all(&mut self, requests: &[Request]) -> Result<(), RmaError> {
        self.retire_all("wait_all", requests)
    }

    /// Whether every request of `requests` is complete (`MPI_Testall`);
    /// if so they are retired. Always `Ok(true)` for pending requests: see
    /// [`Rma::wait_all`].
    ///
    /// Return values: as [`Rma::wait_all`].
    pub fn test_all(&mut self, requests: &[Request]) -> Result<bool, RmaError> {
        self.retire_all("test_all", requests)?;
        Ok(true)
    }

    fn retire_all(&mut self, call: &'static str, requests: &[Request]) -> Result<(), RmaError> {
        for (i, r) in requests.iter().enumerate() {
            let w = self.window(r.window)?;
            let twice = requests[..i].contains(r);
            if twice || !w.requests.pending.contains(&r.id) {
                return Err(RmaError::Request {
                    call,
                    window: r.window,
                    request: r.id,
                    problem: if twice {
                        "is given twice"
                    } else {
                        "is not pending (a wait or test completed it already)"
                    },
                });
            }
        }
        for &r in requests {
            self.retire(call, r.window, r)?;
        }
        Ok(())
    }

    fn retire(&mut self, call: &'static str, id: u32, request: Request) -> Result<(), RmaError> {
        let error = |problem| RmaError::Request {
            call,
            window: id,
            request: request.id,
            problem,
        };
        let w = self.window_mut(id)?;
        if request.window != id {
            return Err(error("was made on another window"));
        }
        let pending = &mut w.requests.pending;
        match pending.iter().position(|&r| r == request.id) {
            Some(at) => {
                pending.swap_remove(at);
                Ok(())
            }
            None => Err(error(
                "is not pending (a wait or test completed it already)",
            )),
        }
    }
}
