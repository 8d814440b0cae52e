// SPDX-License-Identifier: MIT OR Apache-2.0
//! Point-to-point communication: MPI's tags, wildcards, statuses and
//! requests over rma's MPB channel.
//!
//! A message travels as its tag (4 bytes) and its data, in the
//! communicator's context. Sends go out at once with the channel's
//! `send_progressing`, which takes in other messages while it waits for
//! room, so two ranks that send to each other never wait for each other;
//! an `MPI_Isend` is therefore complete when it returns, and `MPI_Ssend`
//! is a standard send (it does not wait for the receive to start).
//! Receives are matched in MPI's order ([`Matching`]): a message that
//! arrives goes to the oldest posted receive it matches on its
//! communicator, else to the communicator's unexpected messages, which a
//! new receive searches first. Messages from one sender stay in order,
//! so matching never lets a message overtake another of the same sender,
//! tag and communicator.
//!
//! A receive that has no message yet waits in modelled time (the kernel's
//! `wait_for`), polling the channel.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use super::datatypes::{self, size_of, type_of};
use super::*;

/// `MPI_ANY_SOURCE`.
const ANY_SOURCE: c_int = -2;
/// `MPI_ANY_TAG`.
const ANY_TAG: c_int = -1;
/// `MPI_PROC_NULL`.
const PROC_NULL: c_int = -1;
/// The largest tag (`MPI_TAG_UB`'s value).
const TAG_UB: c_int = 0x7fff_ffff;
/// `MPI_REQUEST_NULL`.
const REQUEST_NULL: c_int = 0;
/// `MPI_STATUS_IGNORE` (and `MPI_STATUSES_IGNORE`).
const STATUS_IGNORE: *mut Status = core::ptr::without_provenance_mut(1);

/// C's `MPI_Status`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Status {
    count_lo: c_int,
    count_hi_and_cancelled: c_int,
    source: c_int,
    tag: c_int,
    error: c_int,
}

impl Status {
    /// The bytes the receive took.
    pub(super) fn bytes(&self) -> usize {
        self.count_lo as usize
    }
}

/// A message that arrived before a receive matched it.
#[derive(Debug)]
struct Message {
    comm: c_int,
    source: u32,
    tag: c_int,
    data: Vec<u8>,
}

/// A receive waiting for its message.
#[derive(Debug)]
struct Posted {
    comm: c_int,
    source: c_int,
    tag: c_int,
    buf: *mut c_void,
    capacity: usize,
    /// For a derived datatype: where its bytes go in the buffer.
    pieces: Option<Vec<(usize, usize)>>,
}

/// A request: a receive still posted, an operation complete with its
/// status, or a request-based one-sided operation (complete, to be
/// retired in rma).
#[derive(Debug)]
enum Request {
    Pending(Posted),
    Done(Status),
    Rma(Window<u8>, rma::Request),
}

impl Request {
    /// Whether waiting for it returns at once.
    fn done(&self) -> bool {
        !matches!(self, Self::Pending(_))
    }
}

/// Every communicator's unexpected messages and this core's requests.
#[derive(Debug, Default)]
pub(super) struct Matching {
    /// Messages no receive matched yet, oldest first.
    unexpected: VecDeque<Message>,
    /// Requests by handle − 1 (`None` once waited for).
    requests: Vec<Option<Request>>,
}

impl Posted {
    fn matches(&self, comm: c_int, source: u32, tag: c_int) -> bool {
        self.comm == comm
            && (self.source == ANY_SOURCE || self.source == source as c_int)
            && (self.tag == ANY_TAG || self.tag == tag)
    }

    /// Copies `data` into the receive's buffer; its status.
    fn deliver(&self, source: u32, tag: c_int, data: &[u8]) -> Status {
        let n = data.len().min(self.capacity);
        match &self.pieces {
            // SAFETY: MPI's receive buffer holds every byte its type
            // picks, and the program leaves it alone until the receive
            // completes.
            Some(pieces) => drop(unsafe { datatypes::unpack(&data[..n], self.buf, pieces) }),
            // SAFETY: as above, `capacity` contiguous bytes.
            None if n > 0 => unsafe {
                core::ptr::copy_nonoverlapping(data.as_ptr(), self.buf.cast::<u8>(), n)
            },
            None => {}
        }
        Status {
            count_lo: n as c_int,
            count_hi_and_cancelled: 0,
            source: source as c_int,
            tag,
            error: if data.len() > self.capacity {
                Class::Truncate as c_int
            } else {
                codes::SUCCESS
            },
        }
    }
}

impl Matching {
    /// Hands a message that arrived to the oldest receive posted for it,
    /// or keeps it.
    fn arrived(&mut self, message: Message) {
        let posted = self.requests.iter_mut().flatten().find(|r| {
            matches!(r, Request::Pending(p) if p.matches(message.comm, message.source, message.tag))
        });
        match posted {
            Some(request) => {
                let Request::Pending(p) = &*request else {
                    unreachable!("found pending")
                };
                let status = p.deliver(message.source, message.tag, &message.data);
                *request = Request::Done(status);
            }
            None => self.unexpected.push_back(message),
        }
    }

    /// The oldest unexpected message `posted` matches, taken out.
    fn take_unexpected(&mut self, posted: &Posted) -> Option<Message> {
        let i = self
            .unexpected
            .iter()
            .position(|m| posted.matches(m.comm, m.source, m.tag))?;
        self.unexpected.remove(i)
    }

    /// Posts a receive: matched at once by an unexpected message if one
    /// matches; its request handle.
    fn post(&mut self, posted: Posted) -> c_int {
        let request = match self.take_unexpected(&posted) {
            Some(m) => Request::Done(posted.deliver(m.source, m.tag, &m.data)),
            None => Request::Pending(posted),
        };
        self.requests.push(Some(request));
        self.requests.len() as c_int
    }

    /// A request that completed at once.
    fn done(&mut self, status: Status) -> c_int {
        self.requests.push(Some(Request::Done(status)));
        self.requests.len() as c_int
    }

    fn request(&self, handle: c_int) -> Result<&Request, Failure> {
        handle
            .checked_sub(1)
            .and_then(|i| self.requests.get(usize::try_from(i).ok()?))
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                Failure::new(Class::Request, format!("{handle} names no active request"))
            })
    }
}

/// Takes every message that has arrived on communicator `comm` into the
/// matching; whether one did.
fn progress(state: &mut State, comm: c_int) -> Result<bool, Failure> {
    let mut arrived = Vec::new();
    // A message the heap had no room for is lost: the call fails with
    // MPI_ERR_NO_MEM once the messages that came before it are matched.
    let mut lost = None;
    if let Target::Comm(c) = comm_of(state, comm)? {
        while let Some((source, data)) = c.try_recv_any() {
            match data {
                Ok(data) => arrived.push((source, data)),
                Err(e) => {
                    lost = Some(Failure::from(e));
                    break;
                }
            }
        }
    }
    let any = !arrived.is_empty();
    for (source, mut data) in arrived {
        if data.len() < 4 {
            return Err(Failure::new(
                Class::Intern,
                format!(
                    "a message of {} bytes from rank {source} has no tag",
                    data.len()
                ),
            ));
        }
        let tag = c_int::from_le_bytes([data[0], data[1], data[2], data[3]]);
        // The data moves down in place: no second copy of a large message.
        data.drain(..4);
        state.p2p.arrived(Message {
            comm,
            source,
            tag,
            data,
        });
    }
    match lost {
        Some(failure) => Err(failure),
        None => Ok(any),
    }
}

/// The messages that arrived for this core (on `MPI_COMM_WORLD`, taken
/// in now, or on any communicator before) and that no receive took, each
/// described: at `MPI_Finalize`, after its barrier, every message sent
/// before it has arrived.
pub(super) fn unreceived(state: &mut State) -> Result<Vec<String>, Failure> {
    progress(state, codes::comm::WORLD)?;
    Ok(state
        .p2p
        .unexpected
        .iter()
        .map(|m| {
            let comm: alloc::string::String = match m.comm {
                codes::comm::WORLD => "MPI_COMM_WORLD".into(),
                codes::comm::SELF => "MPI_COMM_SELF".into(),
                handle => format!("the communicator of handle {handle}"),
            };
            format!(
                "a message from rank {} with tag {} ({} bytes, on {comm})",
                m.source,
                m.tag,
                m.data.len(),
            )
        })
        .collect())
}

/// Takes in what arrived on every communicator a pending request waits
/// on.
fn progress_all(state: &mut State) -> Result<bool, Failure> {
    let mut comms: Vec<c_int> = state
        .p2p
        .requests
        .iter()
        .flatten()
        .filter_map(|r| match r {
            Request::Pending(p) => Some(p.comm),
            Request::Done(_) | Request::Rma(..) => None,
        })
        .collect();
    comms.sort_unstable();
    comms.dedup();
    let mut any = false;
    for comm in comms {
        any |= progress(state, comm)?;
    }
    Ok(any)
}

/// Waits in modelled time until `done` holds, taking in messages.
fn wait_until(state: &mut State, mut done: impl FnMut(&State) -> bool) -> Outcome {
    let platform = crt::platform();
    let mut failure = None;
    platform.wait_for(|| {
        if done(state) {
            return Some(());
        }
        match progress_all(state) {
            Err(f) => {
                failure = Some(f);
                Some(())
            }
            Ok(_) => done(state).then_some(()),
        }
    });
    failure.map_or(Ok(()), Err)
}

/// Writes `status` where C asked for it (not for `MPI_STATUS_IGNORE`).
fn write_status(place: *mut Status, status: Status) {
    if !place.is_null() && place != STATUS_IGNORE {
        // SAFETY: C passes a pointer to its MPI_Status.
        unsafe { place.write(status) };
    }
}

/// A send's destination and tag checked against communicator `comm`.
fn check_send(
    state: &mut State,
    comm: c_int,
    dest: c_int,
    tag: c_int,
) -> Result<Option<u32>, Failure> {
    let (_, n) = rank_of(state, comm)?;
    if !(0..=TAG_UB).contains(&tag) {
        return Err(Failure::new(
            Class::Tag,
            format!("tag {tag}: 0 to MPI_TAG_UB"),
        ));
    }
    match dest {
        PROC_NULL => Ok(None),
        d => u32::try_from(d)
            .ok()
            .filter(|&d| d < n)
            .map(Some)
            .ok_or_else(|| {
                Failure::new(
                    Class::Rank,
                    format!("destination {d} is not a rank of the {n}"),
                )
            }),
    }
}

/// Sends `count` elements of `ty` at `buf` to `dest` with `tag`.
pub(super) fn send(
    state: &mut State,
    buf: *const c_void,
    count: c_int,
    ty: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> Outcome {
    let mut message =
        datatypes::pack_after(&tag.to_le_bytes(), buf, count, &type_of(&state.types, ty)?)?;
    let Some(dest) = check_send(state, comm, dest, tag)? else {
        return Ok(());
    };
    match comm_of(state, comm)? {
        Target::Comm(c) => Ok(c.send_progressing(dest, &message)?),
        Target::Own => {
            state.p2p.arrived(Message {
                comm,
                source: 0,
                tag,
                data: message.split_off(4),
            });
            Ok(())
        }
    }
}

/// Posts a receive of `count` elements of `ty` into `buf` from `source`
/// with `tag`; its request handle.
pub(super) fn post_recv(
    state: &mut State,
    buf: *mut c_void,
    count: c_int,
    ty: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
) -> Result<c_int, Failure> {
    let ty = type_of(&state.types, ty)?;
    let (capacity, pieces) = match ty.plain() {
        Some(t) => (bytes_of(count, t)?, None),
        None => (
            size_of(&ty, count)?,
            Some(datatypes::pieces_of(&ty, count)?),
        ),
    };
    let (_, n) = rank_of(state, comm)?;
    if tag != ANY_TAG && !(0..=TAG_UB).contains(&tag) {
        return Err(Failure::new(
            Class::Tag,
            format!("tag {tag}: 0 to MPI_TAG_UB or MPI_ANY_TAG"),
        ));
    }
    if source == PROC_NULL {
        return Ok(state.p2p.done(Status {
            source: PROC_NULL,
            tag: ANY_TAG,
            ..Status::default()
        }));
    }
    if source != ANY_SOURCE && !u32::try_from(source).is_ok_and(|s| s < n) {
        return Err(Failure::new(
            Class::Rank,
            format!("source {source} is not a rank of the {n}"),
        ));
    }
    if capacity > 0 && buf.is_null() {
        return Err(Failure::new(Class::Buffer, "a null receive buffer"));
    }
    Ok(state.p2p.post(Posted {
        comm,
        source,
        tag,
        buf,
        capacity,
        pieces,
    }))
}

/// Waits for request `handle` and frees it; its status.
pub(super) fn wait(state: &mut State, handle: c_int) -> Result<Status, Failure> {
    if handle == REQUEST_NULL {
        return Ok(Status {
            source: ANY_SOURCE,
            tag: ANY_TAG,
            ..Status::default()
        });
    }
    state.p2p.request(handle)?;
    let i = (handle - 1) as usize;
    wait_until(state, |s| {
        s.p2p.requests[i].as_ref().is_some_and(Request::done)
    })?;
    match state.p2p.requests[i].take() {
        Some(Request::Done(status)) => Ok(status),
        Some(Request::Rma(window, request)) => {
            state.rma.wait_request(window, request)?;
            Ok(Status::default())
        }
        _ => unreachable!("waited until done"),
    }
}

/// Keeps rma's request `request` on `window`; its handle.
pub(super) fn keep_rma_request(
    state: &mut State,
    window: Window<u8>,
    request: rma::Request,
) -> c_int {
    state.p2p.requests.push(Some(Request::Rma(window, request)));
    state.p2p.requests.len() as c_int
}

/// A status's error as the call's outcome.
fn status_outcome(status: &Status) -> Outcome {
    match status.error {
        codes::SUCCESS => Ok(()),
        _ => Err(Failure::new(
            Class::Truncate,
            format!(
                "a message of more than the {} bytes the receive buffer holds",
                status.count_lo
            ),
        )),
    }
}

/// `MPI_Send`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Send(
    buf: *const c_void,
    count: c_int,
    ty: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Send", comm, |state| {
        send(state, buf, count, ty, dest, tag, comm)
    })
}

/// `MPI_Ssend`: a standard send (see the module's docs).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Ssend(
    buf: *const c_void,
    count: c_int,
    ty: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Ssend", comm, |state| {
        send(state, buf, count, ty, dest, tag, comm)
    })
}

/// `MPI_Recv`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Recv(
    buf: *mut c_void,
    count: c_int,
    ty: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut Status,
) -> c_int {
    with_state("MPI_Recv", comm, |state| {
        let request = post_recv(state, buf, count, ty, source, tag, comm)?;
        let got = wait(state, request)?;
        write_status(status, got);
        status_outcome(&got)
    })
}

/// `MPI_Sendrecv`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Sendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    status: *mut Status,
) -> c_int {
    with_state("MPI_Sendrecv", comm, |state| {
        let request = post_recv(state, recvbuf, recvcount, recvtype, source, recvtag, comm)?;
        send(state, sendbuf, sendcount, sendtype, dest, sendtag, comm)?;
        let got = wait(state, request)?;
        write_status(status, got);
        status_outcome(&got)
    })
}

/// `MPI_Isend`: sent when it returns (see the module's docs).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Isend(
    buf: *const c_void,
    count: c_int,
    ty: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Isend", comm, |state| {
        send(state, buf, count, ty, dest, tag, comm)?;
        let handle = state.p2p.done(Status::default());
        store(request, handle)
    })
}

/// `MPI_Irecv`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Irecv(
    buf: *mut c_void,
    count: c_int,
    ty: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Irecv", comm, |state| {
        let handle = post_recv(state, buf, count, ty, source, tag, comm)?;
        store(request, handle)
    })
}

/// Reads request handle `i` of C's array.
fn request_at(requests: *mut c_int, i: usize) -> c_int {
    // SAFETY: MPI's array of `count` request handles, `i` below `count`.
    unsafe { requests.add(i).read() }
}

/// Sets request handle `i` of C's array to `MPI_REQUEST_NULL`.
fn clear_request(requests: *mut c_int, i: usize) {
    // SAFETY: as for `request_at`.
    unsafe { requests.add(i).write(REQUEST_NULL) };
}

/// `MPI_Wait`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Wait(request: *mut c_int, status: *mut Status) -> c_int {
    with_state("MPI_Wait", codes::comm::WORLD, |state| {
        if request.is_null() {
            return Err(Failure::new(Class::Request, "a null request pointer"));
        }
        let got = wait(state, request_at(request, 0))?;
        clear_request(request, 0);
        write_status(status, got);
        status_outcome(&got)
    })
}

/// `MPI_Waitall`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Waitall(count: c_int, requests: *mut c_int, statuses: *mut Status) -> c_int {
    with_state("MPI_Waitall", codes::comm::WORLD, |state| {
        let n = usize::try_from(count)
            .map_err(|_| Failure::new(Class::Count, format!("{count} requests")))?;
        if n > 0 && requests.is_null() {
            return Err(Failure::new(Class::Request, "a null request array"));
        }
        wait_each(state, requests, n, statuses)
    })
}

/// Waits for the `n` requests of C's array in order, each set to
/// `MPI_REQUEST_NULL` and its status written (unless `statuses` is
/// `MPI_STATUSES_IGNORE`); the first status's error, if any.
fn wait_each(state: &mut State, requests: *mut c_int, n: usize, statuses: *mut Status) -> Outcome {
    let mut outcome = Ok(());
    for i in 0..n {
        let got = wait(state, request_at(requests, i))?;
        clear_request(requests, i);
        if !statuses.is_null() && statuses != STATUS_IGNORE {
            // SAFETY: MPI's array of `n` statuses.
            unsafe { statuses.add(i).write(got) };
        }
        if outcome.is_ok() {
            outcome = status_outcome(&got);
        }
    }
    outcome
}

/// `MPI_UNDEFINED`.
const UNDEFINED: c_int = -32766;

/// `MPI_Waitany`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Waitany(
    count: c_int,
    requests: *mut c_int,
    index: *mut c_int,
    status: *mut Status,
) -> c_int {
    with_state("MPI_Waitany", codes::comm::WORLD, |state| {
        let n = usize::try_from(count)
            .map_err(|_| Failure::new(Class::Count, format!("{count} requests")))?;
        let active: Vec<usize> = (0..n)
            .filter(|&i| request_at(requests, i) != REQUEST_NULL)
            .collect();
        if active.is_empty() {
            write_status(
                status,
                Status {
                    source: ANY_SOURCE,
                    tag: ANY_TAG,
                    ..Status::default()
                },
            );
            return store(index, UNDEFINED);
        }
        for &i in &active {
            state.p2p.request(request_at(requests, i))?;
        }
        let done = |s: &State| {
            active.iter().copied().find(|&i| {
                s.p2p.requests[(request_at(requests, i) - 1) as usize]
                    .as_ref()
                    .is_some_and(Request::done)
            })
        };
        wait_until(state, |s| done(s).is_some())?;
        let i = done(state).expect("waited until one is done");
        let got = wait(state, request_at(requests, i))?;
        clear_request(requests, i);
        write_status(status, got);
        store(index, i as c_int)?;
        status_outcome(&got)
    })
}

/// `MPI_Test`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Test(request: *mut c_int, flag: *mut c_int, status: *mut Status) -> c_int {
    with_state("MPI_Test", codes::comm::WORLD, |state| {
        if request.is_null() {
            return Err(Failure::new(Class::Request, "a null request pointer"));
        }
        let handle = request_at(request, 0);
        if handle != REQUEST_NULL {
            state.p2p.request(handle)?;
            progress_all(state)?;
            if !state.p2p.requests[(handle - 1) as usize]
                .as_ref()
                .is_some_and(Request::done)
            {
                return store(flag, 0);
            }
        }
        let got = wait(state, handle)?;
        clear_request(request, 0);
        write_status(status, got);
        store(flag, 1)?;
        status_outcome(&got)
    })
}

/// `MPI_Testall`: completes them all if all are complete.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Testall(
    count: c_int,
    requests: *mut c_int,
    flag: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    with_state("MPI_Testall", codes::comm::WORLD, |state| {
        let n = usize::try_from(count)
            .map_err(|_| Failure::new(Class::Count, format!("{count} requests")))?;
        progress_all(state)?;
        for i in 0..n {
            let h = request_at(requests, i);
            if h != REQUEST_NULL && !state.p2p.request(h)?.done() {
                return store(flag, 0);
            }
        }
        store(flag, 1)?;
        wait_each(state, requests, n, statuses)
    })
}

/// The status of the oldest unexpected message `source` and `tag` match
/// on `comm`, if one is there.
fn probe_once(
    state: &mut State,
    source: c_int,
    tag: c_int,
    comm: c_int,
) -> Result<Option<Status>, Failure> {
    let (_, n) = rank_of(state, comm)?;
    if source != ANY_SOURCE && source != PROC_NULL && !u32::try_from(source).is_ok_and(|s| s < n) {
        return Err(Failure::new(
            Class::Rank,
            format!("source {source} is not a rank of the {n}"),
        ));
    }
    if source == PROC_NULL {
        return Ok(Some(Status {
            source: PROC_NULL,
            tag: ANY_TAG,
            ..Status::default()
        }));
    }
    progress(state, comm)?;
    let probe = Posted {
        comm,
        source,
        tag,
        buf: core::ptr::null_mut(),
        capacity: 0,
        pieces: None,
    };
    Ok(state
        .p2p
        .unexpected
        .iter()
        .find(|m| probe.matches(m.comm, m.source, m.tag))
        .map(|m| Status {
            count_lo: m.data.len() as c_int,
            source: m.source as c_int,
            tag: m.tag,
            ..Status::default()
        }))
}

/// `MPI_Iprobe`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Iprobe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    flag: *mut c_int,
    status: *mut Status,
) -> c_int {
    with_state("MPI_Iprobe", comm, |state| {
        let found = probe_once(state, source, tag, comm)?;
        if let Some(s) = found {
            write_status(status, s);
        }
        store(flag, c_int::from(found.is_some()))
    })
}

/// `MPI_Probe`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Probe(source: c_int, tag: c_int, comm: c_int, status: *mut Status) -> c_int {
    with_state("MPI_Probe", comm, |state| {
        let platform = crt::platform();
        let mut result = Ok(Status::default());
        platform.wait_for(|| match probe_once(state, source, tag, comm) {
            Ok(Some(s)) => {
                result = Ok(s);
                Some(())
            }
            Ok(None) => None,
            Err(f) => {
                result = Err(f);
                Some(())
            }
        });
        write_status(status, result?);
        Ok(())
    })
}

/// `MPI_Get_count`: `MPI_UNDEFINED` unless the bytes are whole elements
/// of the type (predefined or derived: its size, the data of one).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get_count(status: *const Status, ty: c_int, count: *mut c_int) -> c_int {
    with_state("MPI_Get_count", codes::comm::WORLD, |state| {
        let size = size_of(&type_of(&state.types, ty)?, 1)?;
        if status.is_null() {
            return Err(Failure::new(Class::Arg, "a null status"));
        }
        // SAFETY: C passes a pointer to its MPI_Status.
        let bytes = unsafe { status.read() }.count_lo as usize;
        // A type of no data divides only 0 bytes, into 0 elements.
        let whole = bytes
            .is_multiple_of(size)
            .then(|| bytes.checked_div(size).unwrap_or(0));
        store(
            count,
            whole.map_or(UNDEFINED, |n| c_int::try_from(n).unwrap_or(UNDEFINED)),
        )
    })
}
