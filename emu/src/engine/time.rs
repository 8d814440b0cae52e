// SPDX-License-Identifier: GPL-2.0-or-later
//! Modelled time on the engine: one core's clock, what each access costs,
//! the sync points with the other cores, and the emulator's calls that
//! order synchronising accesses and let waits pass in modelled time
//! ([`crate::timing`]).

use chip::trace::{self, Op, Phase, Record};
use chip::{Chip, CoreId, EmuCall, Target, Timing};

use std::collections::VecDeque;

use super::lines::{CoreSet, LineRecords};
use super::{LINE, dir_word};
use crate::model::backpressure::{self, Crossings};
use crate::model::hierarchy::{Access, Event, Kind, Outcome};
use crate::model::latency::{
    Class, CoreClock, Cost, Hop, Latencies, Payload, QUEUES, Queue, Resource,
};
use crate::model::queue::{self, Load};
use crate::model::stats::CoreStats;
use crate::model::variation::{MeshAccess, Variation};
use crate::model::write_buffer::WriteBuffers;
use crate::shm::Mapping;
use crate::timing::{Clocks, POLL_LINES, State};

/// Most lines one poll watches; a poll reading more watches its first.
const MAX_WATCHED: usize = 64;

/// Modelled cycles between two points at which a core charges the waits
/// of its requests that every core has passed by [`RESOLVE_LAG`] cycles
/// (besides every ordered access, which charges all it can): a bound on
/// how long a wait goes uncharged, and so on the drift between cores. Not
/// a model parameter: any value gives deterministic results; smaller ones
/// charge sooner, larger ones let cores drift further apart. The charge
/// falls due at the first timed access of the core past each period, a
/// point of its instruction stream, never at a sync point, whose place
/// depends on the quantum: a wait charged there would move the clock of
/// the requests that follow it by an amount that does.
const RESOLVE_PERIOD: u64 = 1 << 16;
/// See [`RESOLVE_PERIOD`].
const RESOLVE_LAG: u64 = 1 << 18;

/// Most cycles an ordered access counts as made at the time it ordered,
/// holding the others back there, and most cycles a poll's accesses count
/// as made at one time: a poll that runs longer orders again at its first
/// timed access past that, and its accesses count as made then
/// ([`Time::renew_poll`]). A bound independent of the quantum, so that
/// results are; the core does not sleep for the quantum meanwhile, see
/// [`Time::sync`].
const MAX_HOLD: u64 = 1 << 16;

/// Watcher flag marking a line some poll read: stores to it are ordered
/// from then on (the record's cores are those waiting on it).
const POLLED: u64 = 1 << 63;

/// A line's stamp ([`Time::stamps`]): when it was last written, above
/// which of its eight 4-byte words that write reached, one bit each.
fn stamp_of(time: u64, words: u8) -> u64 {
    time << 8 | u64::from(words)
}

/// The time of a stamp ([`stamp_of`]).
fn stamp_time(stamp: u64) -> u64 {
    stamp >> 8
}

/// The words of a line (one bit per 4 bytes) that `len` bytes from byte
/// `offset` of it reach.
pub(super) fn words_reached(offset: u32, len: u32) -> u8 {
    let first = offset / 4;
    let last = (offset + len.max(1) - 1) / 4;
    (first..=last.min(7)).fold(0, |words, w| words | 1 << w)
}

/// The words of a line (one bit per 4 bytes) that byte mask `mask` (bit
/// i: byte i) reaches.
fn words_of_bytes(mask: u32) -> u8 {
    (0..8).fold(0, |words, w| {
        if mask >> (4 * w) & 0xF != 0 {
            words | 1 << w
        } else {
            words
        }
    })
}

/// Names the core's next access for its phase draw ([`MeshAccess`]), and
/// counts it if it goes on the mesh (`mesh`): inside a poll by its place
/// in the poll, else by the number of the core's accesses outside polls
/// (`counted`), which a poll made once more or once less does not move.
fn next_access(counted: &mut u64, poll: &mut Option<Poll>, mesh: bool) -> MeshAccess {
    let step = u64::from(mesh);
    match poll {
        Some(p) => {
            let n = p.accesses;
            p.accesses += step;
            MeshAccess::Polled { start: p.start, n }
        }
        None => {
            let n = *counted;
            *counted += step;
            MeshAccess::Counted(n)
        }
    }
}

/// A poll in progress: when it began and the lines its loads reached.
#[derive(Debug)]
struct Poll {
    /// When it began: its period runs from here.
    start: u64,
    /// When its accesses count as made: its start, or the time it last
    /// ordered again ([`Time::renew_poll`]).
    made_at: u64,
    /// The lines its loads read, the first [`MAX_WATCHED`].
    lines: Vec<Watched>,
    /// Its mesh accesses so far.
    accesses: u64,
}

/// A line a poll read: where in G, its stamp when read, and what reading
/// it reaches (for the polls a wait charges).
#[derive(Debug, Clone, Copy)]
struct Watched {
    /// Offset of the line in G.
    s: u64,
    /// The line's stamp when the poll read it.
    seen: u64,
    /// What reading the line reaches.
    target: Target,
}

/// Requests of this core in one bucket of a resource's calendar whose
/// wait is not charged yet ([`crate::model::queue`]).
#[derive(Debug, Clone, Copy)]
struct Pending {
    resource: Resource,
    /// [`Resource::calendar`] of `resource`.
    calendar: u32,
    /// When the access that made the first of them was issued.
    issued: u64,
    /// The bucket of the calendar they are in.
    k: u64,
    /// How many requests.
    requests: u64,
    /// Cycles the resource is busy with each (the longest of them).
    service: u64,
    /// Its wait in 1/[`Resource::wait_scale`] cycles, computed before the
    /// core waited ([`Bookings::capture`]): charged as if computed when
    /// [`Bookings::resolve`] reaches it.
    captured: Option<u64>,
    /// For a request passing the router of a register block rather than
    /// queueing at it ([`Bookings::cross`]): the requests the MIU and the
    /// router hold before it is held up ([`backpressure::Crossing::hold`]).
    /// Not booked in the calendar, only read.
    hold: Option<u64>,
}

impl Pending {
    /// When its bucket ends.
    fn end(&self) -> u64 {
        (self.k + 1) * self.resource.bucket()
    }

    /// Its wait in 1/[`Resource::wait_scale`] cycles, from the loads of its
    /// bucket and those before (final), read through `window`, the loads
    /// last read at its calendar ([`Clocks::advance_loads`]).
    fn wait(&self, clocks: &Clocks, window: &mut (Option<u64>, [Load; queue::HISTORY + 1])) -> u64 {
        let (from, loads) = window;
        clocks.advance_loads(self.resource, self.k, loads, *from);
        *from = Some(self.k);
        let scale = self.resource.wait_scale();
        let (service, bucket) = (self.service * scale, self.resource.bucket() * scale);
        let wait = match self.hold {
            // What a request of its own would wait there, beyond the
            // router's hold: not one of the register block's requests.
            Some(hold) => backpressure::crossing_wait(
                queue::wait(&loads[..], 0, service, bucket),
                service,
                hold,
            ),
            None => queue::wait(&loads[..], self.requests, service, bucket),
        };
        wait * self.requests
    }
}

/// [`Bookings::latest`] of a resource this core has no pending request at.
const NO_REQUEST: u64 = u64::MAX;

/// This core's requests whose queueing is not charged yet.
#[derive(Debug)]
struct Bookings {
    /// In the order they were made, and so in the order of the accesses
    /// that made them: each resource's in time order (a core makes one
    /// access at a time, and every packet of an access reaches what it
    /// reaches before the access ends).
    pending: VecDeque<Pending>,
    /// The number of `pending`'s first request, counting every request
    /// this core put there.
    first: u64,
    /// Per calendar ([`Resource::calendar`]), the number of its latest
    /// request ([`NO_REQUEST`]: none pending), the only one a new request
    /// can share a bucket with. An access books up to some 30 resources, so
    /// the bucket a core booked last at a controller may lie far back.
    latest: Vec<u64>,
    /// Per calendar, the waits computed and not charged yet, in
    /// 1/[`Resource::wait_scale`] cycles: less than a cycle (only links
    /// have parts of cycles).
    carry: Vec<u64>,
    /// Per calendar, the last loads read to charge a wait there and the
    /// bucket they were read for: the next request's window overlaps it
    /// ([`Clocks::advance_loads`]).
    windows: Vec<(Option<u64>, [Load; queue::HISTORY + 1])>,
    /// The requests a charge keeps, with their numbers (reused).
    kept: Vec<(u64, Pending)>,
    /// Per calendar, the service cycles this core's requests booked there
    /// ([`CoreStats::busy`]).
    busy: Vec<u64>,
}

impl Bookings {
    fn new() -> Self {
        Self {
            pending: VecDeque::new(),
            first: 0,
            latest: vec![NO_REQUEST; QUEUES],
            carry: vec![0; QUEUES],
            windows: vec![(None, [Load::default(); queue::HISTORY + 1]); QUEUES],
            kept: Vec::new(),
            busy: vec![0; QUEUES],
        }
    }

    /// Books one request of this core, made by an access issued at
    /// `issued`, reaching `resource` at `at` (modelled time, not before
    /// `issued`) and keeping it busy `service` cycles, in the resource's
    /// calendar: the core counts once per bucket.
    fn book(&mut self, clocks: &Clocks, resource: Resource, issued: u64, at: u64, service: u64) {
        debug_assert!(at >= issued);
        self.busy[resource.calendar()] += service;
        debug_assert!(self.pending.back().is_none_or(|p| p.issued <= issued));
        let k = resource.bucket_of(at);
        let calendar = resource.calendar();
        let latest = self.latest[calendar].wrapping_sub(self.first);
        if let Some(p) = usize::try_from(latest)
            .ok()
            .and_then(|i| self.pending.get_mut(i))
        {
            debug_assert!(p.k <= k, "{resource:?}: bucket {k} booked after {}", p.k);
            if p.k == k {
                p.requests += 1;
                p.service = p.service.max(service);
                clocks.book(resource, k, 1, 0);
                return;
            }
        }
        self.latest[calendar] = self.first + self.pending.len() as u64;
        self.pending.push_back(Pending {
            resource,
            calendar: calendar as u32,
            issued,
            k,
            requests: 1,
            service,
            captured: None,
            hold: None,
        });
        clocks.book(resource, k, 1, 1);
    }

    /// Notes that a request of this core, made by an access issued at
    /// `issued`, passes at `at` the router of register block `resource`,
    /// whose requests take `service` cycles each, and is held up once more
    /// than `hold` of them wait ([`backpressure`]). Nothing is booked: its
    /// wait is read from the register block's calendar when its bucket is
    /// final, as a request's is.
    fn cross(&mut self, resource: Resource, issued: u64, at: u64, service: u64, hold: u64) {
        debug_assert!(at >= issued);
        self.busy[resource.calendar()] += service;
        self.pending.push_back(Pending {
            resource,
            calendar: resource.calendar() as u32,
            issued,
            k: resource.bucket_of(at),
            requests: 1,
            service,
            captured: None,
            hold: Some(hold),
        });
    }

    /// Books the route of an access issued at `issued`: each link its
    /// request crosses when the request gets there, for `request` cycles;
    /// each link its reply crosses when the reply, leaving at `replied`,
    /// gets there, for `reply` cycles; and its target `q`, from `replied`,
    /// for the target's service.
    fn book_route(
        &mut self,
        clocks: &Clocks,
        hops: &[Hop],
        q: Queue,
        (issued, replied): (u64, u64),
        (request, reply): (u64, u64),
    ) {
        for h in hops {
            let (at, service) = if h.request {
                (issued, request)
            } else {
                (replied, reply)
            };
            self.book(
                clocks,
                Resource::Link(h.link),
                issued,
                at + h.arrival,
                service,
            );
        }
        self.book(clocks, q.resource, issued, replied + q.arrival, q.service);
    }

    /// When the bucket of this core's last pending request ends (`None`:
    /// none is pending).
    fn last_end(&self) -> Option<u64> {
        self.pending.iter().map(Pending::end).max()
    }

    /// Computes the waits of every pending request now, its bucket and
    /// those before final ([`Clocks::await_final`]), and keeps each with
    /// its request until [`Bookings::resolve`] charges it. Done before the
    /// core waits: by the time it resumes, other cores may have reused the
    /// buckets' slots ([`queue::readable`]). No request can join them: the
    /// core books nothing before it resumes, after they end.
    ///
    /// A request already too old to read back at `now` is left to
    /// [`Bookings::resolve`], which charges it nothing.
    fn capture(&mut self, now: u64, clocks: &Clocks) {
        for p in self.pending.iter_mut().filter(|p| p.captured.is_none()) {
            if queue::readable(p.k, p.resource.bucket(), now) {
                p.captured = Some(p.wait(clocks, &mut self.windows[p.calendar as usize]));
            }
        }
    }

    /// Whether a request's bucket ends by `t`: only one whose access was
    /// issued before `t` can (its bucket ends after its arrival).
    fn any_due(&self, t: u64) -> bool {
        self.pending
            .iter()
            .take_while(|p| p.issued < t)
            .any(|p| p.end() <= t)
    }

    /// Takes out the requests in buckets that end by `t` and computes their
    /// waits from the final loads of their buckets and those before
    /// ([`queue::wait`]): `charge` gets each resource's whole cycles. A
    /// link's waits are computed in parts of a cycle
    /// ([`Resource::wait_scale`]) and summed per link, and charged as the
    /// sum makes whole cycles. Only the requests of accesses issued before
    /// `t` are looked at: they come first. `now` is this core's clock: a
    /// request whose bucket is too old at `now` to be read back
    /// ([`queue::readable`]: the core waited, paused or halted for long
    /// since) waits nothing, and its calendar is not read.
    fn resolve(
        &mut self,
        t: u64,
        now: u64,
        clocks: &Clocks,
        mut charge: impl FnMut(Resource, u64),
    ) {
        let Bookings {
            pending,
            first,
            latest,
            carry,
            windows,
            kept,
            busy: _,
        } = self;
        let looked = pending.partition_point(|p| p.issued < t);
        kept.clear();
        for (id, p) in (*first..).zip(pending.drain(..looked)) {
            if p.end() > t {
                kept.push((id, p));
                continue;
            }
            if latest[p.calendar as usize] == id {
                latest[p.calendar as usize] = NO_REQUEST;
            }
            let scaled = match p.captured {
                Some(scaled) => scaled,
                None if !queue::readable(p.k, p.resource.bucket(), now) => continue,
                None => p.wait(clocks, &mut windows[p.calendar as usize]),
            };
            let scale = p.resource.wait_scale();
            let wait = if scale == 1 {
                scaled
            } else {
                let sum = &mut carry[p.calendar as usize];
                *sum += scaled;
                let whole = *sum / scale;
                *sum %= scale;
                whole
            };
            if wait > 0 {
                charge(p.resource, wait);
            }
        }
        // The requests kept go back in front, numbered just before those
        // not looked at, whose numbers stay.
        *first += (looked - kept.len()) as u64;
        for (new, (old, p)) in (*first..).zip(kept.iter()) {
            if latest[p.calendar as usize] == *old {
                latest[p.calendar as usize] = new;
            }
        }
        for (_, p) in kept.iter().rev() {
            pending.push_front(*p);
        }
    }
}

/// The modelled clock and what it needs (timing on).
#[derive(Debug)]
pub(super) struct Time {
    /// What each access costs this core, by where it completes.
    latencies: Latencies,
    /// The routers each access's request passes whose register blocks
    /// may hold it up.
    crossings: Crossings,
    /// The core's modelled clock.
    clock: CoreClock,
    /// The run's clocks file: every core's clock and state, and the
    /// resources' shared calendars.
    clocks: Clocks,
    /// Per line of G, when it was last written (see [`crate::timing`]).
    stamps: Mapping,
    /// Clock at which the next access syncs.
    next_sync: u64,
    /// Address of the last instruction the engine heard of, published at
    /// each sync point so that a run tool can say where a core stopped.
    pc: u32,
    /// Cycles waited at each resource, and the counters of ordering and
    /// waiting (only those of the statistics are used).
    waits: CoreStats,
    /// Per line of G, the cores waiting on it (one bit each).
    watchers: LineRecords,
    /// Where the MPBs lie in G: stores to them always order.
    mpbs: std::ops::Range<u64>,
    /// The poll in progress, if the guest began one.
    poll: Option<Poll>,
    /// When the guest last ordered ([`EmuCall::Order`]), until the
    /// register store it ordered is made.
    ordered_at: Option<u64>,
    /// The core's trace, once the guest traced its first event
    /// ([`EmuCall::Trace`]); `None`: not traced.
    trace: Option<Vec<Record>>,
    /// The argument of the next trace event ([`EmuCall::TraceArg`]).
    trace_arg: u32,
    /// The counters at the last sample a traced core took, in the order
    /// of [`trace::Counter::ALL`], each over its resources.
    counters: Vec<u64>,
    /// This core's requests whose queueing is not charged yet.
    bookings: Bookings,
    /// Clock at which the next periodic charge of waits is due
    /// ([`RESOLVE_PERIOD`]).
    next_resolve: u64,
    /// The core's write buffers: the stores on their way out.
    write_buffers: WriteBuffers,
    /// Mesh accesses the core made outside polls: the next one's number
    /// ([`Latencies::crossing`], [`next_access`]).
    mesh_accesses: u64,
    /// The cycle at which the core left reset
    /// ([`crate::model::variation::Variation::reset_release`]): its clock
    /// starts there.
    reset_release: u64,
}

impl Time {
    /// Records `op` at `phase` and `cycles` if the core is traced.
    pub(super) fn trace(&mut self, cycles: u64, op: Op, phase: Phase) {
        if let Some(trace) = &mut self.trace {
            trace.push(Record {
                cycles,
                word: trace::Event::bare(op, phase).word(),
                arg: 0,
            });
        }
    }

    /// The core stalls for a line's part of an access of `kind` that ended
    /// in L1, L2 or the WCB (`outcome`), which reaches no resource: a load
    /// from L2 first waits for the buffered writes ([`Time::drain`]), a
    /// store to L2 goes into a write buffer ([`Time::buffer_write`]).
    pub(super) fn stall_within(&mut self, kind: Kind, outcome: Outcome) {
        let t = *self.latencies.timing();
        let (class, cycles) = match outcome {
            Outcome::L2 if kind == Kind::Store => {
                self.buffer_write(None, Payload::store(0));
                return;
            }
            Outcome::L2 => {
                self.drain();
                (Class::L2, t.l2_hit.saturating_sub(t.l1_hit))
            }
            Outcome::Wcb => (Class::Wcb, 0),
            Outcome::L1 | Outcome::Memory => (Class::L1, 0),
        };
        self.clock.stall(class, u64::from(cycles));
    }

    /// Whether the clock must be current for an access that ends in L2:
    /// a store to L2 takes a write buffer, and a load waits for those
    /// under way ([`Time::stall_within`]).
    pub(super) fn l2_needs_clock(&self, kind: Kind) -> bool {
        kind == Kind::Store || self.write_buffers.busy()
    }

    /// The core waits until every buffered write has completed: before an
    /// access that must follow them ([`crate::model::write_buffer`]).
    pub(super) fn drain(&mut self) {
        let wait = self.write_buffers.drain(self.clock.now());
        if wait > 0 {
            self.clock.stall(Class::BufferWait, wait);
        }
    }

    /// A write of `payload` leaves the core for `target` (`None`: for L2)
    /// through a write buffer: the core waits only for a full buffer. The
    /// write goes out once the writes before it completed, and then books
    /// what its packets reach as [`Time::charge`] does, from that time (a
    /// DRAM refresh it meets lengthens its access, not the core's stall).
    /// Returns when it reaches its target (`None` for L2, or a target
    /// not on the mesh): when other cores can see it.
    ///
    /// The waits it meets at busy resources are charged to the core when
    /// they are known, as every access's are ([`Time::resolve`]), rather
    /// than delaying the writes behind it: a simplification.
    pub(super) fn buffer_write(&mut self, target: Option<Target>, payload: Payload) -> Option<u64> {
        let Time {
            latencies,
            clock,
            clocks,
            bookings,
            write_buffers,
            mesh_accesses,
            poll,
            ..
        } = self;
        let t = latencies.timing();
        let l1 = u64::from(t.l1_hit);
        let cost = match target {
            Some(target) => Some(latencies.target(target)?),
            None => None,
        };
        let access = next_access(mesh_accesses, poll, cost.is_some());
        let queue = cost.and_then(|c| c.queue);
        let mut refresh = 0;
        let w = write_buffers.write(clock.now(), |start| {
            let Some(cost) = cost else {
                return u64::from(t.l2_hit).saturating_sub(l1);
            };
            if let Some(q) = queue {
                refresh = latencies.refresh_wait(q.resource, start + q.arrival);
            }
            refresh + cost.cycles.saturating_sub(l1) + latencies.crossing(&cost, access)
        });
        if w.stall > 0 {
            clock.stall(Class::BufferWait, w.stall);
        }
        clock.count(Class::Buffered, 1);
        let (cost, q) = (cost?, queue?);
        let replied = w.start + refresh;
        if clocks.queues() {
            let services = payload.services(t);
            bookings.book_route(clocks, cost.hops, q, (w.start, replied), services);
        }
        Some(replied + q.arrival)
    }

    /// The core stalls for one access to `target` (or a store of a line
    /// there) moving `payload`, as `class` if given, else the target's own
    /// class, once the buffered writes have completed ([`Time::drain`]):
    /// it is the core's one access on the bus. The access books the target and every link its request and
    /// reply cross ([`Latencies::queues`]), each at the time its packet
    /// gets there, and notes every router its request passes whose register
    /// block may hold it up ([`backpressure`]); their waits are charged
    /// later ([`Time::resolve`]).
    ///
    /// A request that reaches a memory controller while its DRAM refreshes
    /// waits for the refresh's end (charged at once, with the controller's
    /// waits: it depends only on the time the request is booked at), and
    /// is booked from there, with its reply's links.
    pub(super) fn charge(&mut self, target: Target, class: Option<Class>, payload: Payload) {
        self.charge_as(target, Latencies::target, class, |t| payload.services(t));
    }

    /// The core stalls for one operation of the remote atomic unit at
    /// `target` ([`Latencies::atomic`]), once the buffered writes have
    /// completed: its request carries `request` bytes (the operands), its
    /// reply `reply` (the old value). It books the links both ways and the
    /// controller or MPB, busy for the unit's read, service and write, as
    /// [`Time::charge`] books an access. Returns `false`, charging
    /// nothing, if no unit sits at `target`.
    pub(super) fn remote_atomic(&mut self, target: Target, request: u32, reply: u32) -> bool {
        self.charge_as(target, Latencies::atomic, None, |t| {
            (
                t.link_service(t.packet_flits(request)),
                t.link_service(t.packet_flits(reply)),
            )
        })
    }

    /// [`Time::charge`] of the cost `cost_of` gives for `target` (an
    /// access's, a remote atomic operation's), as `class` if given, else
    /// the cost's own; `services` gives the request's and the reply's
    /// cycles on each link. Returns `false`, charging nothing, if there is
    /// no such cost.
    fn charge_as(
        &mut self,
        target: Target,
        cost_of: for<'l> fn(&'l Latencies, Target) -> Option<Cost<'l>>,
        class: Option<Class>,
        services: impl FnOnce(&Timing) -> (u64, u64),
    ) -> bool {
        self.drain();
        let Time {
            latencies,
            crossings,
            clock,
            clocks,
            waits,
            bookings,
            mesh_accesses,
            poll,
            ..
        } = self;
        let Some(cost) = cost_of(latencies, target) else {
            return false;
        };
        let access = next_access(mesh_accesses, poll, true);
        let t = latencies.timing();
        let l1 = u64::from(t.l1_hit);
        if let Some(q) = cost.queue {
            let issued = clock.now();
            let refresh = latencies.refresh_wait(q.resource, issued + q.arrival);
            if refresh > 0 {
                clock.stall(q.resource.wait_class(), refresh);
                *waits.wait_mut(q.resource) += refresh;
            }
            if clocks.queues() {
                let services = services(t);
                let replied = clock.now();
                bookings.book_route(clocks, cost.hops, q, (issued, replied), services);
                for c in crossings.of(target) {
                    let crb = Resource::Crb(c.tile);
                    bookings.cross(crb, issued, issued + c.arrival, t.crb_service(), c.hold);
                }
            }
        }
        clock.stall(class.unwrap_or(cost.class), cost.cycles.saturating_sub(l1));
        let crossing = latencies.crossing(&cost, access);
        if crossing > 0 {
            clock.stall(Class::Crossing, crossing);
        }
        true
    }

    /// Charges the waits of this core's requests in buckets that end by
    /// `t`, once every other core has booked its requests before `t`
    /// (blocking until then): each from the final loads of its bucket and
    /// those before ([`queue::wait`]), whatever order the host ran the
    /// cores in. Only while this core shows its own clock: one that holds
    /// the others back at an earlier time must not wait for them.
    fn resolve(&mut self, t: u64) {
        let now = self.clock.now();
        if self.shown() != now || !self.bookings.any_due(t) {
            return;
        }
        self.clocks.publish_pc(self.pc);
        self.clocks.await_booked(now, t);
        let Time {
            bookings,
            clocks,
            clock,
            waits,
            ..
        } = self;
        bookings.resolve(t, now, clocks, |resource, wait| {
            clock.stall(resource.wait_class(), wait);
            *waits.wait_mut(resource) += wait;
        });
    }

    /// Charges the waits that every core passed by [`RESOLVE_LAG`] cycles,
    /// every [`RESOLVE_PERIOD`] cycles of this core's clock.
    fn resolve_due(&mut self) {
        let now = self.clock.now();
        if now >= self.next_resolve && self.shown() == now {
            self.next_resolve = (now / RESOLVE_PERIOD + 1) * RESOLVE_PERIOD;
            self.resolve(now.saturating_sub(RESOLVE_LAG));
        }
    }

    /// A load read `words` of line `s` of G, reached through `target`: it
    /// completes no earlier than the write it may have read, and a poll in
    /// progress watches the line. Only a write to the words read moves the
    /// reader: a store to another word of the line (a lock's word beside
    /// the one read) says nothing of when the words read got their bytes,
    /// and is seen or not in host order.
    pub(super) fn observe(&mut self, s: u64, words: u8, target: Target) {
        let stamp = self.stamps.load(dir_word(s));
        let written = stamp_time(stamp);
        if stamp as u8 & words != 0 && written > self.clock.now() {
            // A poll's read is ordered: it sees a later store only if the
            // store was made inside an earlier poll, which counts as made
            // at that poll's start.
            if self.poll.is_none() {
                self.clocks.future_reads += 1;
            }
            self.clock.idle_until(written);
        }
        if let Some(poll) = &mut self.poll
            && poll.lines.len() < MAX_WATCHED
            && !poll.lines.iter().any(|l| l.s == s)
        {
            // Polled once, a line stays one whose stores are ordered.
            self.watchers.set_flags(s, POLLED);
            poll.lines.push(Watched {
                s,
                seen: written,
                target,
            });
        }
    }

    /// A write reaches `words` of line `s` of G now.
    pub(super) fn stamp(&self, s: u64, words: u8) {
        self.stamp_at(s, words, self.clock.now());
    }

    /// A write reaches `words` of line `s` of G at `at` (now, or later for
    /// a buffered write).
    pub(super) fn stamp_at(&self, s: u64, words: u8, at: u64) {
        self.stamps.store(dir_word(s), stamp_of(at, words));
    }

    /// The cores other than this one waiting on line `s`, one bit each.
    pub(super) fn waiting_on(&self, s: u64) -> CoreSet {
        self.watchers.cores(s).without(self.clocks.core() as usize)
    }

    /// Whether stores to line `s` are ordered: it lies in an MPB, or some
    /// core ever polled it. A line's first poll learns of the line only
    /// after it read it, so a store made meanwhile would reach it by host
    /// order; the MPBs, where programs keep their flags, are ordered from
    /// the start so that no first poll of theirs races.
    pub(super) fn orders_stores_to(&self, s: u64) -> bool {
        self.mpbs.contains(&s) || self.watchers.flags(s) & POLLED != 0
    }

    /// A store reached line `s` at `at`, on which the cores `waiters`
    /// wait: each resumes at its first poll from then.
    pub(super) fn wake(&self, waiters: CoreSet, at: u64) {
        let me = self.clocks.core();
        for c in waiters.iter() {
            self.clocks.wake_waiter(c, at, me);
        }
    }

    /// Goes on only once every other core is past this core's clock, and
    /// returns the time it ordered at; inside a poll that still counts as
    /// made at its start, at once (the poll was ordered as a whole), with
    /// `None`.
    ///
    /// Ordered, every other core is past this one: the waits of its
    /// requests in buckets before then are final, and are charged. They
    /// move the clock: the access is made later, and orders again.
    pub(super) fn order(&mut self) -> Option<u64> {
        if self.poll_start().is_some() {
            return None;
        }
        Some(self.order_now())
    }

    /// Goes on only once every other core is past this core's clock (see
    /// [`Time::order`]), and returns the time it ordered at.
    fn order_now(&mut self) -> u64 {
        loop {
            let now = self.clock.now();
            self.clocks.publish_pc(self.pc);
            self.clocks.order(now);
            self.resolve(now);
            if self.clock.now() == now {
                return now;
            }
        }
    }

    /// A poll whose accesses have counted as made at one time for more
    /// than [`MAX_HOLD`] cycles orders again, at this core's clock: its
    /// accesses from here on count as made now. Called after each timed
    /// access, so the point falls at the same place of the instruction
    /// stream in every run. A long poll (a target that applies a large
    /// message inside its wait) stays ordered as a whole, step by step,
    /// instead of racing with the other cores' stores once it has held
    /// them back for that long.
    fn renew_poll(&mut self) {
        if self
            .poll
            .as_ref()
            .is_some_and(|p| self.clock.now() - p.made_at > MAX_HOLD)
        {
            let at = self.order_now();
            if let Some(poll) = &mut self.poll {
                poll.made_at = at;
            }
        }
    }

    /// The guest orders its next register access ([`EmuCall::Order`]):
    /// until it is made, the others see this core at the time it ordered.
    fn order_next(&mut self) {
        if let Some(at) = self.order() {
            self.ordered_at = Some(at);
        }
    }

    /// The register store the guest ordered is made.
    pub(super) fn ordered_access_done(&mut self) {
        if self.ordered_at.take().is_some() {
            self.clocks.publish(self.shown());
        }
    }

    /// When the accesses of the poll in progress count as made (its
    /// start, or when it last ordered again, [`Time::renew_poll`]): the
    /// clock this core shows the others, so that a store ordered after
    /// that lands after all of the poll's reads until it orders again.
    fn poll_start(&self) -> Option<u64> {
        self.poll.as_ref().map(|p| p.made_at)
    }

    /// `since`, the time an ordered access counts as made at until it is
    /// made: not for longer than [`MAX_HOLD`] cycles, so that no core waits
    /// on it for longer (what it does after that is not ordered).
    fn held(&self, since: u64) -> Option<u64> {
        (self.clock.now() - since <= MAX_HOLD).then_some(since)
    }

    /// The clock this core shows the others: its own, or the time of the
    /// ordered access or poll still being made.
    fn shown(&self) -> u64 {
        let ordered = self.ordered_at.and_then(|t| self.held(t));
        ordered
            .into_iter()
            .chain(self.poll_start())
            .min()
            .unwrap_or_else(|| self.clock.now())
    }

    /// A poll begins: ordered, and watching what it reads.
    fn begin_poll(&mut self) {
        self.poll = None;
        self.order();
        let start = self.clock.now();
        self.poll = Some(Poll {
            start,
            made_at: start,
            lines: Vec::new(),
            accesses: 0,
        });
    }

    /// The poll in progress is over without a wait.
    fn end_poll(&mut self) {
        self.poll = None;
        self.clocks.publish(self.shown());
    }

    /// The poll in progress found nothing: the core waits until a store
    /// to a line it read, as if it repeated the poll at its own period,
    /// and resumes at the first repetition that sees the store. A poll
    /// that read no shared line (its condition lies in private memory or
    /// in the clock) repeats at once, as a spin would.
    ///
    /// `sp` is the guest's stack pointer at the wait, published for a run
    /// tool's backtrace.
    fn wait(&mut self, sp: u32) {
        let Some(poll) = self.poll.take() else { return };
        if poll.lines.is_empty() {
            return;
        }
        let me = self.clocks.core();
        let began = self.clock.now();
        let period = (began - poll.start).max(1);
        self.clocks.publish_pc(self.pc);
        self.clocks.publish_sp(sp);
        // What each poll reaches, for whoever books the polls it makes: the
        // first lines' targets and the links on the way there and back.
        let latencies = &self.latencies;
        let queues: Vec<Queue> = poll
            .lines
            .iter()
            .filter(|l| {
                latencies
                    .target(l.target)
                    .is_some_and(|c| c.queue.is_some())
            })
            .take(POLL_LINES)
            .flat_map(|l| latencies.queues(l.target, Payload::load(LINE as u32)))
            .collect();
        // Watching before it stops holding the others back: a store
        // ordered after the poll lands only once the core waits, and then
        // sees it watching.
        self.clocks.prepare_wait(poll.start, period, &queues);
        for l in &poll.lines {
            self.watchers.insert(l.s, me as usize);
        }
        // A store the poll may have missed: one that came between the
        // poll's read and the watch (the stamp moved), or one made during
        // the poll. QEMU reports a load after its bytes were read, so a
        // store may fall between the read and the stamp the engine saw:
        // the stamp alone cannot tell whether the poll saw it. The poll
        // repeats at its first period after such a store, seen or not,
        // as a spinning core would.
        for l in &poll.lines {
            let written = stamp_time(self.stamps.load(dir_word(l.s)));
            if written != l.seen || written >= poll.start {
                self.clocks.wake_waiter(me, written, me);
            }
        }
        if self.capture_pending() {
            self.clocks.release();
        } else {
            self.clocks.begin_wait();
        }
        let woken = self.clocks.wait_until_woken();
        for l in &poll.lines {
            self.watchers.remove(l.s, me as usize);
        }
        let Some(wake) = woken else {
            // The run stops the cores: the guest goes on until QEMU exits.
            self.clocks.end_wait(self.clock.now());
            return;
        };
        // The polls made meanwhile, before the one the guest makes next,
        // each reaching what the first reached: those the others did not
        // need booked yet are booked now.
        // (A writer that saw this core's watch of its previous wait may set
        // a wake time before this poll: then no poll passed.)
        let polls = wake.saturating_sub(poll.start) / period;
        self.clocks.book_polls(me, wake);
        self.waits.modelled_polls += polls.saturating_sub(1);
        for q in &queues {
            self.bookings.busy[q.resource.calendar()] += polls.saturating_sub(1) * q.service;
        }
        self.clock.idle_until(wake);
        self.clocks.end_wait(self.clock.now());
        self.trace(began, Op::Waiting, Phase::Begin);
        self.trace(self.clock.now(), Op::Waiting, Phase::End);
    }

    /// The core is about to wait or halt (its wake time not known, see
    /// [`Clocks::prepare_wait`] and [`Clocks::prepare_halt`]): the waits of
    /// its requests not charged yet are computed now, and charged as they
    /// would be, once it resumes ([`Bookings::capture`]). By then the other
    /// cores may have reused their buckets' slots in the calendars, or not,
    /// as the host ran them; until they are computed, the core holds them
    /// within a quantum of its requests, far from reusing any
    /// ([`Clocks::hold`]). Returns whether it holds (it had requests
    /// pending): [`Clocks::release`] then ends the hold.
    fn capture_pending(&mut self) -> bool {
        let Some(t) = self.bookings.last_end().filter(|_| self.clocks.queues()) else {
            return false;
        };
        self.clocks.hold(t);
        if self.clocks.await_final(t) {
            self.bookings.capture(self.clock.now(), &self.clocks);
        }
        true
    }

    /// The core halts (outside the emulator's waits) at its clock: its
    /// pending requests' waits are computed first ([`Time::capture_pending`]).
    pub(super) fn halt(&mut self) {
        self.clocks.prepare_halt();
        self.capture_pending();
        self.clocks.set_state(State::Halted, self.clock.now());
    }

    pub(super) fn sync(&mut self) {
        let now = self.clock.now();
        self.clocks.publish_pc(self.pc);
        let shown = self.shown();
        if shown < now {
            // Holding the others back at `shown`: a core waiting on it may
            // be the slowest, which a sleep would wait for in turn.
            self.clocks.publish(shown);
        } else {
            self.clocks.keep_within_quantum(now, shown);
        }
        self.next_sync = now + self.clocks.quantum() / 2;
    }
}

impl Time {
    /// Modelled time for `core` of a run of `cores` cores of `chip`, kept
    /// within `quantum` cycles of the others' (requests queuing at the
    /// resources if `queues`), drawing its variation from `seed`. The
    /// run's shared files are mapped: `clocks` ([`crate::timing`]),
    /// `stamps` (per line of G, when it was last written) and `watchers`
    /// (per line of G, the cores waiting on it).
    pub(super) fn new(
        chip: &'static Chip,
        core: CoreId,
        cores: u32,
        quantum: u64,
        queues: bool,
        seed: u64,
        (clocks, stamps, watchers): (Mapping, Mapping, LineRecords),
    ) -> Self {
        let variation = Variation::new(seed);
        let reset_release = variation.reset_release(&chip.timing, core.index() as u32);
        let mut clock = CoreClock::new();
        clock.idle_until(reset_release);
        Time {
            latencies: Latencies::new(chip, core, variation),
            crossings: Crossings::new(chip, core),
            clock,
            reset_release,
            mesh_accesses: 0,
            clocks: Clocks::new(
                clocks,
                core.index() as u32,
                cores,
                quantum,
                queues,
                variation,
            ),
            stamps,
            next_sync: quantum / 2,
            pc: 0,
            waits: CoreStats::default(),
            watchers,
            mpbs: crate::chipmem::Layout::new(chip).mpbs(),
            poll: None,
            ordered_at: None,
            trace: None,
            trace_arg: 0,
            counters: Vec::new(),
            bookings: Bookings::new(),
            next_resolve: 0,
            write_buffers: WriteBuffers::new(chip.timing.write_buffers),
        }
    }

    /// The engine heard of the instruction at `pc`.
    pub(super) fn set_pc(&mut self, pc: u32) {
        self.pc = pc;
    }

    /// Modelled core cycles since reset.
    pub(super) fn now(&self) -> u64 {
        self.clock.now()
    }

    /// The core has taken `cycles` core cycles to issue its instructions
    /// since reset: the clock's base.
    pub(super) fn set_issued(&mut self, cycles: u64) {
        self.clock.set_issued(cycles);
    }

    /// `hits` accesses hit L1 without the model: they cost no cycles
    /// beyond their instructions', and are counted as L1's.
    pub(super) fn count_l1_hits(&mut self, hits: u64) {
        self.clock.count(Class::L1, hits);
    }

    /// Holds the clock at 0 until [`Time::start`].
    pub(super) fn hold(&mut self) {
        self.clock = CoreClock::held();
    }

    /// The clock starts, if held: from the core's release from reset.
    pub(super) fn start(&mut self) {
        let starts = !self.clock.started();
        self.clock.start();
        if starts {
            self.clock.idle_until(self.reset_release);
        }
    }

    /// `cycles` of the issue cycles so far take no modelled time.
    pub(super) fn untimed(&mut self, cycles: u64) {
        self.clock.untimed(cycles);
    }

    /// A periodic sync point in the block at `pc`: publishes the clock
    /// (and `pc`) and sleeps while it is a quantum ahead of the slowest
    /// running core.
    pub(super) fn sync_point(&mut self, pc: u32) {
        self.pc = pc;
        self.sync();
    }

    /// The core halts: once its time has started, it holds nobody back
    /// until it resumes.
    pub(super) fn halted(&mut self) {
        // Before the image's entry (the firmware waits on timers) the
        // core still holds the others at 0: from its entry on it books
        // requests from time 0, and no bucket may be final before.
        if self.clock.started() {
            self.halt();
        }
    }

    /// The core resumes from a halt: its clock moves up to a quantum
    /// behind the slowest running core.
    pub(super) fn resumed(&mut self) {
        if let Some(slowest) = self.clocks.slowest_other() {
            self.clock
                .idle_until(slowest.saturating_sub(self.clocks.quantum()));
        }
        self.clocks.set_state(State::Running, self.clock.now());
    }

    /// The core's QEMU exits: it holds nobody back any more.
    pub(super) fn finished(&mut self) {
        self.clocks.set_state(State::Finished, self.clock.now());
    }

    /// WBINVD, INVD or CL1INVMB: a fixed cost from the timing table
    /// (`cost` of it), write-backs included, the instruction's own cycle
    /// (already counted: the P54C model issues each in one, not paired)
    /// taken off.
    pub(super) fn cache_op(&mut self, cost: impl Fn(&chip::Timing) -> u32) {
        let timing = self.latencies.timing();
        let cycles = cost(timing).saturating_sub(timing.insn_cycles);
        self.clock.stall(Class::CacheOp, u64::from(cycles));
    }

    /// Records `op` as a moment of the trace now, if the core is traced.
    pub(super) fn trace_instant(&mut self, op: Op) {
        let now = self.clock.now();
        self.trace(now, op, Phase::Instant);
    }

    /// The core's trace, if the guest traced anything.
    pub(super) fn records(&self) -> Option<&[Record]> {
        self.trace.as_deref()
    }

    /// The run's clocks, for tests.
    #[cfg(test)]
    pub(super) fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    /// Writes the clock's counts and the waits into `s`, the core's
    /// statistics for the report.
    pub(super) fn report(&self, s: &mut CoreStats) {
        s.cycles = self.clock.now();
        s.idle_cycles = self.clock.idle_cycles();
        s.class_cycles = self.clock.class_cycles;
        s.class_count = self.clock.class_count;
        s.quantum_sleeps = self.clocks.sleeps;
        s.order_waits = self.clocks.order_waits;
        s.future_reads = self.clocks.future_reads;
        s.modelled_polls = self.waits.modelled_polls;
        s.mpb_wait = self.waits.mpb_wait;
        s.crb_wait = self.waits.crb_wait;
        s.mc_wait = self.waits.mc_wait;
        s.link_wait = self.waits.link_wait;
        s.busy.copy_from_slice(&self.bookings.busy);
    }

    /// A traced core's sample of the chip's counters at a sync point: for
    /// each of the `tiles` MPBs and `controllers` memory controllers, the
    /// bytes it moved for this core (per `stats`) and the cycles this core
    /// queued for it since the last sample, as [`trace::Op::Counter`]
    /// records (only those that moved).
    pub(super) fn sample_counters(&mut self, stats: &CoreStats, tiles: usize, controllers: usize) {
        use chip::trace::{Counter, Event};
        let Some(trace) = &mut self.trace else { return };
        let now: Vec<(Counter, usize, u64)> = [
            (Counter::MpbBytes, &stats.mpb_bytes[..tiles]),
            (Counter::McBytes, &stats.mc_bytes[..controllers]),
            (Counter::MpbWait, &self.waits.mpb_wait[..tiles]),
            (Counter::McWait, &self.waits.mc_wait[..controllers]),
        ]
        .into_iter()
        .flat_map(|(c, values)| values.iter().enumerate().map(move |(i, &v)| (c, i, v)))
        .collect();
        if self.counters.len() != now.len() {
            self.counters = vec![0; now.len()];
        }
        let cycles = self.clock.now();
        for ((counter, index, value), last) in now.into_iter().zip(&mut self.counters) {
            if value != *last {
                let event = Event {
                    op: Op::Counter,
                    phase: Phase::Instant,
                    window: counter as u8,
                    target: index as u16,
                };
                trace.push(Record {
                    cycles,
                    word: event.word(),
                    arg: u32::try_from(value - *last).unwrap_or(u32::MAX),
                });
                *last = value;
            }
        }
    }

    /// The guest made emulator call `call` by a store of `value` (see
    /// [`EmuCall`]), `rest` issue cycles before the end of its block.
    /// Calls take no modelled time. Returns the clock to latch into the
    /// call registers, for [`EmuCall::ClockLatch`].
    pub(super) fn emu_call(&mut self, call: EmuCall, value: u64, rest: u32) -> Option<u64> {
        match call {
            EmuCall::Signature | EmuCall::ClockLo | EmuCall::ClockHi | EmuCall::Exit => {}
            EmuCall::TraceArg => self.trace_arg = value as u32,
            EmuCall::Trace => {
                let record = Record {
                    cycles: self.clock.now(),
                    word: value as u32,
                    arg: std::mem::take(&mut self.trace_arg),
                };
                self.trace.get_or_insert_with(Vec::new).push(record);
            }
            EmuCall::Order => self.order_next(),
            EmuCall::Poll => self.begin_poll(),
            EmuCall::Wait => self.wait(value as u32),
            EmuCall::Done => self.end_poll(),
            EmuCall::Pause => {
                let until = self.clock.now() + (value & u64::from(u32::MAX));
                self.clock.idle_until(until);
                self.clocks.publish(self.shown());
            }
            EmuCall::ClockLatch => {
                let now = self.clock.now().saturating_sub(u64::from(rest));
                // The latch and the two reads are one RDTSC: the moves'
                // issue cycles are counted already.
                let t = self.latencies.timing();
                let cost = u64::from(t.clock_read).saturating_sub(t.clock_read_issue());
                self.clock.stall(Class::Clock, cost);
                return Some(now);
            }
        }
        None
    }

    /// A register access of `kind`, `len` bytes reaching `words` of line
    /// `s` of G in `target` (`exchange_half`: the store half of a locked
    /// exchange, which costs nothing more). A bus access: it follows the
    /// buffered writes.
    pub(super) fn register_access(
        &mut self,
        kind: Kind,
        len: u32,
        (s, words): (u64, u8),
        target: Target,
        exchange_half: bool,
    ) {
        // A register access is a bus access (a locked one, for the
        // exchange): it follows the buffered writes.
        self.drain();
        match kind {
            Kind::Load => self.observe(s, words, target),
            // The store half of an exchange changes nothing a waiter
            // waits for: a failed attempt leaves the register taken, a
            // successful one takes it.
            Kind::Store if exchange_half => {}
            Kind::Store => self.stamp(s, words),
        }
        if !exchange_half {
            let payload = match kind {
                Kind::Load => Payload::load(len),
                Kind::Store => Payload::store(len),
            };
            self.charge(target, None, payload);
        }
    }

    /// Before a store reaches line `s` of G: if a poll ever read the line,
    /// it waits until every other core is past its time. Returns the waiters
    /// to wake once the store is in.
    pub(super) fn order_store(&mut self, s: u64) -> CoreSet {
        if !self.orders_stores_to(s) {
            return CoreSet::default();
        }
        self.order();
        self.waiting_on(s)
    }

    /// After a store reached line `s` of G at `at` (`None`: now): wakes
    /// `waiters` (from [`Time::order_store`]) and whoever started waiting
    /// on it since.
    pub(super) fn wake_waiters(&self, s: u64, waiters: CoreSet, at: Option<u64>) {
        // Earlier than the clock this core shows, a wake could fall where
        // the others have judged the buckets final already.
        debug_assert!(
            at.is_none_or(|at| at >= self.shown()),
            "a store reached its line before it was made"
        );
        let all = waiters.union(self.waiting_on(s));
        if !all.is_empty() {
            self.wake(all, at.unwrap_or_else(|| self.clock.now()));
        }
    }

    /// Bytes `mask` of line `s` of G are written at `at` (`None`: now).
    pub(super) fn stamp_bytes(&self, s: u64, mask: u32, at: Option<u64>) {
        let words = words_of_bytes(mask);
        self.stamp_at(s, words, at.unwrap_or_else(|| self.clock.now()));
    }

    /// Adds the latency of `access` (to `target`) to the clock: `read`
    /// holds the lines of G (and their words) its parts loaded from
    /// memory, `victims` the targets of the lines it wrote back.
    pub(super) fn access(
        &mut self,
        access: &Access,
        target: Target,
        read: [Option<(u64, u8)>; 2],
        victims: [Option<Target>; 2],
    ) {
        if access.kind == Kind::Load && access.parts().iter().any(|p| p.outcome != Outcome::L1) {
            // A load that leaves L1 follows the buffered writes: it reads
            // what they wrote only once they are in.
            self.drain();
        }
        for (s, words) in read.into_iter().flatten() {
            self.observe(s, words, target);
        }
        let line = LINE as u32;
        for p in access.parts() {
            if p.outcome != Outcome::Memory {
                self.stall_within(access.kind, p.outcome);
                continue;
            }
            if access.kind == Kind::Store {
                // Written through or uncached: in a write buffer already
                // ([`Engine::apply`]).
                continue;
            }
            // A fill brings the whole line; an uncached access or a store
            // written through moves its own bytes.
            let filled = access
                .events
                .iter()
                .any(|e| matches!(*e, Event::Fill { line: l } if l == p.addr & !(line - 1)));
            let bytes = if filled { line } else { p.len };
            let payload = match access.kind {
                Kind::Load => Payload::load(bytes),
                Kind::Store => Payload::store(bytes),
            };
            self.charge(target, None, payload);
        }
        for target in victims.into_iter().flatten() {
            self.charge(target, Some(Class::WriteBack), Payload::store(line));
        }
    }

    /// After a timed access: renews a long poll, charges the waits due,
    /// and syncs with the other cores once the clock passed the next point.
    pub(super) fn after_access(&mut self) {
        self.renew_poll();
        self.resolve_due();
        if self.clock.now() >= self.next_sync {
            self.sync();
        }
    }
}

#[cfg(test)]
mod tests {
    /// The variation the tests run with.
    const TEST_VARIATION: crate::model::variation::Variation =
        crate::model::variation::Variation::new(0);

    use std::fs::File;
    use std::path::Path;

    use chip::SCC;

    use super::*;
    use crate::model::latency::Payload;
    use crate::model::mesh::{self, Link};

    fn clocks(dir: &Path, core: u32, cores: u32) -> Clocks {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(crate::timing::clocks_path(dir))
            .unwrap();
        file.set_len(crate::timing::FILE_SIZE).unwrap();
        let map = Mapping::new(&file, crate::timing::FILE_SIZE).unwrap();
        Clocks::new(map, core, cores, 1000, true, TEST_VARIATION)
    }

    /// Modelled time for core 0 of a run of 2 cores of the SCC, on the
    /// run's files in `dir`.
    fn time_of_core_0(dir: &Path) -> Time {
        let memory = crate::chipmem::ChipMemory::create(dir, &SCC, 2).unwrap();
        let layout = *memory.layout();
        let map = |path: &Path, len: u64| {
            let file = File::options().read(true).write(true).open(path).unwrap();
            Mapping::new(&file, len).unwrap()
        };
        let clocks = map(&crate::timing::clocks_path(dir), crate::timing::FILE_SIZE);
        let stamps = map(
            &crate::chipmem::stamps_path(dir),
            crate::chipmem::stamps_size(layout.size()),
        );
        let watchers = map(
            &crate::chipmem::watchers_path(dir),
            crate::chipmem::records_size(&layout),
        );
        let watchers = LineRecords::new(watchers, crate::chipmem::record_words(&SCC));
        let core = SCC.core(0).unwrap();
        Time::new(&SCC, core, 2, 1000, true, 0, (clocks, stamps, watchers))
    }

    #[test]
    fn stores_to_an_mpb_always_order_and_to_dram_once_a_poll_read_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut time = time_of_core_0(dir.path());
        let layout = crate::chipmem::Layout::new(&SCC);
        let tile = SCC.tile(5).unwrap();
        let flag = layout.mpb(tile) + 0x40;
        let dram = layout.lsm(1) + 0x40;
        assert!(time.orders_stores_to(flag), "an MPB's line before any poll");
        assert!(time.orders_stores_to(flag + LINE), "the next line");
        assert!(!time.orders_stores_to(dram), "DRAM before a poll");
        // A poll's read (begun without ordering: core 1 never runs here).
        let start = time.now();
        time.poll = Some(Poll {
            start,
            made_at: start,
            lines: Vec::new(),
            accesses: 0,
        });
        time.observe(
            dram,
            1,
            Target::Dram {
                controller: 1,
                page: 0,
            },
        );
        time.end_poll();
        assert!(time.orders_stores_to(dram), "DRAM once a poll read it");
        assert!(!time.orders_stores_to(dram + LINE), "a line no poll read");
    }

    #[test]
    fn the_clock_starts_at_the_release_from_reset_unless_held_until_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut time = time_of_core_0(dir.path());
        let release = TEST_VARIATION.reset_release(&SCC.timing, 0);
        assert_eq!(time.now(), release);
        time.hold();
        time.set_issued(500);
        assert_eq!(time.now(), 0, "held: the firmware takes no time");
        time.start();
        assert!(time.now() >= release);
        let mut stats = CoreStats::default();
        time.report(&mut stats);
        assert_eq!(stats.cycles, time.now());
    }

    #[test]
    fn a_clock_latch_reads_the_clock_less_the_rest_of_the_block_and_costs_a_clock_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut time = time_of_core_0(dir.path());
        time.set_issued(1000);
        let before = time.now();
        assert_eq!(time.emu_call(EmuCall::ClockLatch, 0, 3), Some(before - 3));
        let t = SCC.timing;
        let cost = u64::from(t.clock_read).saturating_sub(t.clock_read_issue());
        assert_eq!(time.now(), before + cost);
        // A pause idles for the cycles asked, and latches nothing.
        assert_eq!(time.emu_call(EmuCall::Pause, 50, 0), None);
        assert_eq!(time.now(), before + cost + 50);
    }

    #[test]
    fn a_traced_core_keeps_its_events_with_their_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let mut time = time_of_core_0(dir.path());
        time.trace_instant(Op::Wbinvd);
        assert!(
            time.records().is_none(),
            "not traced before the guest traces"
        );
        time.emu_call(EmuCall::TraceArg, 7, 0);
        time.emu_call(EmuCall::Trace, 0x1234, 0);
        time.trace_instant(Op::Wbinvd);
        let records = time.records().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!((records[0].word, records[0].arg), (0x1234, 7));
        assert_eq!(records[1].arg, 0, "an argument serves one event");
    }

    #[test]
    fn the_store_half_of_an_exchange_costs_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let mut time = time_of_core_0(dir.path());
        time.set_issued(1000);
        let tsr = Target::Crb(SCC.tile(0).unwrap());
        let before = time.now();
        time.register_access(Kind::Store, 1, (0, 1), tsr, true);
        assert_eq!(time.now(), before);
        time.register_access(Kind::Load, 1, (0, 1), tsr, false);
        assert!(time.now() > before, "a register load takes its latency");
    }

    #[test]
    fn the_words_of_a_line_an_access_reaches() {
        assert_eq!(words_reached(0, 4), 0b1);
        assert_eq!(words_reached(4, 4), 0b10);
        assert_eq!(words_reached(2, 4), 0b11);
        assert_eq!(words_reached(0, 32), 0xFF);
        assert_eq!(words_reached(31, 1), 0x80);
        assert_eq!(words_reached(8, 8), 0b1100);
        assert_eq!(words_of_bytes(0), 0);
        assert_eq!(words_of_bytes(0xF), 0b1);
        assert_eq!(words_of_bytes(0x10), 0b10);
        assert_eq!(words_of_bytes(0x8000_0001), 0x81);
        assert_eq!(words_of_bytes(u32::MAX), 0xFF);
    }

    /// One core of a test: its latencies, its side of the clocks, its
    /// bookings and what it was charged per resource.
    struct Core {
        latencies: Latencies,
        crossings: Crossings,
        clocks: Clocks,
        bookings: Bookings,
        waits: CoreStats,
        /// When its last access was issued.
        now: u64,
    }

    impl Core {
        fn new(dir: &Path, core: u32, cores: u32) -> Self {
            Self {
                latencies: Latencies::new(&SCC, SCC.core(core).unwrap(), TEST_VARIATION),
                crossings: Crossings::new(&SCC, SCC.core(core).unwrap()),
                clocks: clocks(dir, core, cores),
                bookings: Bookings::new(),
                waits: CoreStats::default(),
                now: 0,
            }
        }

        /// A load of a line of `target` issued at `at`: every resource it
        /// reaches booked, as the engine's charge books them.
        fn load(&mut self, target: Target, at: u64) {
            let queues: Vec<Queue> = self
                .latencies
                .queues(target, Payload::load(LINE as u32))
                .collect();
            for q in queues {
                self.bookings
                    .book(&self.clocks, q.resource, at, at + q.arrival, q.service);
            }
            let service = self.latencies.timing().crb_service();
            for c in self.crossings.of(target) {
                let crb = Resource::Crb(c.tile);
                self.bookings
                    .cross(crb, at, at + c.arrival, service, c.hold);
            }
            self.now = self.now.max(at);
        }

        /// Charges every booked request (the calendars final: every core
        /// booked all it will) at its last access.
        fn resolve(&mut self) {
            self.resolve_at(self.now);
        }

        /// Charges every booked request with its clock at `now`.
        fn resolve_at(&mut self, now: u64) {
            let waits = &mut self.waits;
            self.bookings.resolve(u64::MAX, now, &self.clocks, |r, w| {
                *waits.wait_mut(r) += w;
            });
            assert!(self.bookings.pending.is_empty());
        }

        fn link_wait(&self) -> u64 {
            self.waits.link_wait.iter().sum()
        }
    }

    fn mpb(tile: u32) -> Target {
        Target::Mpb(SCC.tile(tile).unwrap())
    }

    /// DRAM behind the controller farthest from core 0.
    const FAR: Target = Target::Dram {
        controller: 3,
        page: 0,
    };

    /// Core 0 on tile (0,0) and core 2 on tile (1,0) read tile (2,0)'s MPB
    /// `rounds` times, every `period` cycles, issued so that their
    /// requests reach the link from (1,0) east at the same cycle.
    fn two_cores_reading_tile_2(dir: &Path, order: &[usize], rounds: u64) -> [Core; 2] {
        let mut cores = [Core::new(dir, 0, 3), Core::new(dir, 2, 3)];
        let link = Link::between(
            &SCC,
            chip::TileCoord { x: 1, y: 0 },
            chip::TileCoord { x: 2, y: 0 },
        );
        let arrival = |c: &Core| {
            c.latencies
                .target(mpb(2))
                .unwrap()
                .hops
                .iter()
                .find(|h| h.link == link)
                .unwrap()
                .arrival
        };
        let (a, b) = (arrival(&cores[0]), arrival(&cores[1]));
        assert!(a > b, "core 0 crosses a router more before it");
        let start = [1000, 1000 + a - b];
        for &c in order {
            for i in 0..rounds {
                cores[c].load(mpb(2), start[c] + i * 200);
            }
        }
        for c in &mut cores {
            c.resolve();
        }
        cores
    }

    #[test]
    fn every_request_counts_its_service_as_its_resource_s_busy_cycles() {
        let dir = tempfile::tempdir().unwrap();
        let [a, _] = two_cores_reading_tile_2(dir.path(), &[0, 1], 64);
        let queues: Vec<Queue> = a
            .latencies
            .queues(mpb(2), Payload::load(LINE as u32))
            .collect();
        assert!(queues.len() > 1, "the MPB and the links on the way");
        for q in queues {
            assert!(q.service > 0, "{q:?}");
            assert_eq!(
                a.bookings.busy[q.resource.calendar()],
                64 * q.service,
                "{:?}",
                q.resource
            );
        }
        // Nothing else was reached: no controller.
        assert_eq!(a.bookings.busy[Resource::Controller(0).calendar()], 0);
    }

    #[test]
    fn two_cores_crossing_a_link_at_the_same_moment_wait_for_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b] = two_cores_reading_tile_2(dir.path(), &[0, 1], 64);
        // Both cross (1,0) east with their requests and (2,0) west with
        // their replies, in the same buckets: a fraction of a cycle per
        // round each (Pollaczek-Khinchine for one other packet of 1 or 2
        // cycles in a bucket of 32), whole cycles over the rounds.
        assert!(a.link_wait() > 0, "{:?}", a.waits.link_wait);
        assert_eq!(a.link_wait(), b.link_wait());
        let east = Link::between(
            &SCC,
            chip::TileCoord { x: 1, y: 0 },
            chip::TileCoord { x: 2, y: 0 },
        );
        let west = Link::between(
            &SCC,
            chip::TileCoord { x: 2, y: 0 },
            chip::TileCoord { x: 1, y: 0 },
        );
        for l in [&a, &b] {
            let waited: Vec<usize> = (0..mesh::MAX_LINKS)
                .filter(|&i| l.waits.link_wait[i] > 0)
                .collect();
            assert!(
                waited
                    .iter()
                    .all(|&i| i == east.index() || i == west.index()),
                "only the shared links: {waited:?}"
            );
        }
        // They share no MPB port bucket's worth of waiting: 2 requests of
        // 3 cycles in 32 round to nothing, as before links queued.
        assert_eq!(a.waits.mpb_wait[2], 0);
    }

    #[test]
    fn many_cores_crossing_one_link_at_once_wait_on_it() {
        let dir = tempfile::tempdir().unwrap();
        // Cores 0..10 on tiles 0..4 of row 0 all read controller 1's DRAM
        // (at router (5,0)) at cycles that put their requests on the link
        // out of (4,0) at once.
        let mut cores: Vec<Core> = (0..10).map(|c| Core::new(dir.path(), c, 10)).collect();
        let target = Target::Dram {
            controller: 1,
            page: 0,
        };
        assert_eq!(
            SCC.memory_controllers[1].port.tile,
            chip::TileCoord { x: 5, y: 0 }
        );
        let link = Link::between(
            &SCC,
            chip::TileCoord { x: 4, y: 0 },
            chip::TileCoord { x: 5, y: 0 },
        );
        for c in &mut cores {
            let arrival = c
                .latencies
                .target(target)
                .unwrap()
                .hops
                .iter()
                .find(|h| h.link == link)
                .unwrap()
                .arrival;
            for round in 0..16 {
                c.load(target, 10_000 + 500 * round - arrival);
            }
        }
        for c in &mut cores {
            c.resolve();
        }
        // 10 one-flit requests of one cycle in a bucket of 32: 9 others'
        // work, 9·1/(2·(32 − 9)) = 0.2 cycles each time.
        for c in &cores {
            let waited = c.waits.link_wait[link.index()];
            assert!((2..=4).contains(&waited), "{:?}", c.waits.link_wait);
        }
    }

    /// Cores 1..=`spinners` read tile 0's register block (a test-and-set
    /// register) every 70 cycles for 40 rounds while core 0 reads its own
    /// tile's MPB and controller 0's DRAM (both past router (0,0)) and
    /// core 47 on tile 23 reads tile 23's MPB, far from it. What each of
    /// the two waited for register block 0, in all.
    fn spinning_on_tile_0(spinners: u32) -> (u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let crb0 = Target::Crb(SCC.tile(0).unwrap());
        let dram0 = Target::Dram {
            controller: 0,
            page: 0,
        };
        let mut reader = Core::new(dir.path(), 0, 48);
        let mut far = Core::new(dir.path(), 47, 48);
        let mut spinning: Vec<Core> = (1..=spinners)
            .map(|c| Core::new(dir.path(), c, 48))
            .collect();
        for round in 0..40 {
            let at = 10_000 + 70 * round;
            for (i, c) in spinning.iter_mut().enumerate() {
                c.load(crb0, at + i as u64 % 70);
            }
            if round >= 20 {
                reader.load(if round % 2 == 0 { mpb(0) } else { dram0 }, at);
                far.load(mpb(23), at);
            }
        }
        reader.resolve();
        far.resolve();
        (reader.waits.crb_wait[0], far.waits.crb_wait.iter().sum())
    }

    #[test]
    fn requests_through_the_router_of_a_crowded_register_block_wait_for_its_backlog() {
        let (few, far_few) = spinning_on_tile_0(4);
        assert_eq!((few, far_few), (0, 0), "four spinners fit in the router");
        let (many, far_many) = spinning_on_tile_0(47);
        // 46 other requests queued, ten held by the MIU and the corner
        // router's ports: 36 services of 3 cycles for each of the 20
        // reads, at most.
        assert!(many > 20 * 3 * 10 && many <= 20 * 36 * 3, "{many}");
        assert_eq!(far_many, 0, "tile 23's router is clear");
        let (some, _) = spinning_on_tile_0(30);
        assert!(some < many, "{some} < {many}");
    }

    #[test]
    fn a_controller_serves_twelve_cores_reaching_it_at_once_with_several_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        // Cores 0..12 on row 0 read controller 0's DRAM with requests
        // that reach it at the same cycle, every 500 cycles.
        let mut cores: Vec<Core> = (0..12).map(|c| Core::new(dir.path(), c, 12)).collect();
        let target = Target::Dram {
            controller: 0,
            page: 0,
        };
        for c in &mut cores {
            let q = c.latencies.target(target).unwrap().queue.unwrap();
            assert_eq!(q.service, 6, "a line every 8 mesh cycles");
            for round in 0..16 {
                c.load(target, 10_000 + 500 * round - q.arrival);
            }
        }
        for c in &mut cores {
            c.resolve();
        }
        // 11 other lines of 6 cycles in a bucket of 128: 66·6/(2·(128 −
        // 66)) = 3 cycles a round. Served one at a time, the others' 11
        // accesses of 31 cycles would make it 170 (half their work).
        for c in &cores {
            assert_eq!(c.waits.mc_wait[0], 16 * 3, "{:?}", c.waits.mc_wait);
        }
    }

    #[test]
    fn a_core_alone_never_waits_for_its_own_packets() {
        let dir = tempfile::tempdir().unwrap();
        let mut lone = Core::new(dir.path(), 0, 2);
        // Back to back: every link and the target see this core's
        // requests only, many in one bucket.
        let mut at = 1000;
        for _ in 0..500 {
            for target in [mpb(23), FAR, mpb(1)] {
                lone.load(target, at);
                at += lone.latencies.target(target).unwrap().cycles;
            }
        }
        lone.resolve();
        assert_eq!(lone.waits, CoreStats::default());
    }

    #[test]
    fn a_core_counts_once_in_a_bucket_whatever_it_booked_in_between() {
        let dir = tempfile::tempdir().unwrap();
        let mut lone = Core::new(dir.path(), 0, 2);
        // Two reads of the far controller back to back fall in one of its
        // 128-cycle buckets, with 14 links booked in between.
        let cost = lone.latencies.target(FAR).unwrap();
        assert_eq!(cost.hops.len(), 14);
        let (arrival, cycles) = (cost.queue.unwrap().arrival, cost.cycles);
        let first = 128 * 20 - arrival;
        lone.load(FAR, first);
        lone.load(FAR, first + cycles);
        let loads = lone.clocks.loads(Resource::Controller(3), 20);
        assert_eq!(
            loads[queue::HISTORY],
            queue::Load {
                requests: 2,
                cores: 1
            }
        );
        lone.resolve();
        assert_eq!(lone.waits, CoreStats::default());
    }

    #[test]
    fn a_charge_in_between_keeps_the_latest_request_of_each_resource_found() {
        let dir = tempfile::tempdir().unwrap();
        let mut lone = Core::new(dir.path(), 0, 2);
        let cost = lone.latencies.target(FAR).unwrap();
        let (arrival, cycles, hops) = (cost.queue.unwrap().arrival, cost.cycles, cost.hops.len());
        let first = 128 * 20 - arrival;
        lone.load(mpb(5), first - 200);
        lone.load(FAR, first);
        // Charged up to the second read's issue: the first read's early
        // links are done with, its controller's bucket is not.
        let waits = &mut lone.waits;
        lone.bookings
            .resolve(first + cycles, first + cycles, &lone.clocks, |r, w| {
                *waits.wait_mut(r) += w
            });
        let left = lone.bookings.pending.len();
        assert!(left > 0 && left < 1 + hops, "{left}");
        lone.load(FAR, first + cycles);
        let loads = lone.clocks.loads(Resource::Controller(3), 20);
        assert_eq!(
            loads[queue::HISTORY],
            queue::Load {
                requests: 2,
                cores: 1
            },
            "the second read found the first's bucket"
        );
        lone.resolve();
        assert_eq!(lone.waits, CoreStats::default());
    }

    #[test]
    fn link_waits_do_not_depend_on_the_order_the_cores_booked_in() {
        let runs: Vec<[u64; 2]> = [vec![0, 1], vec![1, 0]]
            .iter()
            .map(|order| {
                let dir = tempfile::tempdir().unwrap();
                let [a, b] = two_cores_reading_tile_2(dir.path(), order, 40);
                [a.link_wait(), b.link_wait()]
            })
            .collect();
        assert_eq!(runs[0], runs[1]);
        assert!(runs[0][0] > 0);
    }

    /// Rounds of [`waits_after_a_wait`] both cores read in, 256 cycles
    /// apart: a calendar's ring of links spans a whole number of them.
    const ROUNDS: u64 = 16;
    const ROUND: u64 = 256;
    const _: () = assert!((queue::SLOTS * 32).is_multiple_of(ROUND));

    /// How far (cycles) another core may book ahead of a core that reads
    /// its buckets back (see [`queue::readable`]), less the time a read's
    /// packets take to reach what they book.
    const LEAD: u64 = queue::LEAD * 32 - ROUND;

    /// Core 0 and core 2 read tile 2's MPB together [`ROUNDS`] times,
    /// their requests meeting on a link (as in
    /// [`two_cores_reading_tile_2`]); then core 0 waits while core 2 goes
    /// on reading at the same period until `until`, a ring later booking
    /// the slots of core 0's buckets again. Core 0 charges its requests
    /// with its clock at `now`, after core 2's first `split` later reads in
    /// host time, the rest after. What core 0 is charged.
    fn waits_after_a_wait(now: u64, until: u64, split: usize) -> CoreStats {
        let dir = tempfile::tempdir().unwrap();
        let mut cores = [Core::new(dir.path(), 0, 3), Core::new(dir.path(), 2, 3)];
        let link = Link::between(
            &SCC,
            chip::TileCoord { x: 1, y: 0 },
            chip::TileCoord { x: 2, y: 0 },
        );
        let arrival = |c: &Core| {
            let hops = c.latencies.target(mpb(2)).unwrap().hops;
            hops.iter().find(|h| h.link == link).unwrap().arrival
        };
        let start = [1000, 1000 + arrival(&cores[0]) - arrival(&cores[1])];
        for i in 0..ROUNDS {
            for (c, core) in cores.iter_mut().enumerate() {
                core.load(mpb(2), start[c] + i * ROUND);
            }
        }
        let later: Vec<u64> = (ROUNDS..)
            .map(|i| start[1] + i * ROUND)
            .take_while(|&t| t <= until)
            .collect();
        let (before, after) = later.split_at(split.min(later.len()));
        let [a, b] = &mut cores;
        for &t in before {
            b.load(mpb(2), t);
        }
        a.resolve_at(now);
        for &t in after {
            b.load(mpb(2), t);
        }
        cores[0].waits
    }

    #[test]
    fn requests_read_back_soon_are_charged_whenever_they_are_read() {
        let last = 1000 + (ROUNDS - 1) * ROUND;
        let at_once = waits_after_a_wait(last, last + LEAD, 0);
        assert!(at_once.link_wait.iter().sum::<u64>() > 0, "{at_once:?}");
        // Up to half a ring after the first of them: the same, however
        // far the other core went on (within the lead the calendars allow).
        let late = 1000 + (queue::FRESH - 1) * 32;
        for split in [0, 100, usize::MAX] {
            assert_eq!(waits_after_a_wait(late, late + LEAD, split), at_once);
        }
    }

    #[test]
    fn requests_read_back_after_their_slots_may_be_reused_wait_nothing() {
        // A ring and a half later, the other core past a ring after them:
        // it reused their slots before core 0 read them, or after.
        let last = 1000 + (ROUNDS - 1) * ROUND;
        let now = last + 3 * queue::SLOTS * 32 / 2;
        let first = waits_after_a_wait(now, now + LEAD, 0);
        assert_eq!(first, CoreStats::default());
        assert_eq!(waits_after_a_wait(now, now + LEAD, usize::MAX), first);
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(24))]

        #[test]
        fn a_calendar_reused_past_a_pending_request_charges_the_same_whatever_the_interleaving(
            wait in 0..3 * queue::SLOTS * 32,
            lead in 0..=LEAD,
            split in proptest::prelude::any::<usize>(),
        ) {
            let now = 1000 + (ROUNDS - 1) * ROUND + wait;
            let first = waits_after_a_wait(now, now + lead, 0);
            let later = waits_after_a_wait(now, now + lead, usize::MAX);
            proptest::prop_assert_eq!(&first, &later);
            let split = split % (((now + lead) / ROUND) as usize + 1);
            proptest::prop_assert_eq!(&waits_after_a_wait(now, now + lead, split), &first);
        }
    }
}
