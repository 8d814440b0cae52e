// SPDX-License-Identifier: MIT OR Apache-2.0
//! The two-sided MPB channel (protocol in the [module doc](super)).
//!
//! The per-pair counts and the messages taken early belong to the core,
//! not to one communicator: [`Channel`] holds them, indexed by world rank,
//! and every communicator of the core shares it. A communicator's calls
//! name ranks of that communicator and match only messages of its context.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use super::group::check_rank;
use super::layout::{Layout, PEER_ACKED, PEER_CONTEXT, PEER_LENGTH, PEER_SENT};
use super::{Comm, CommStats};
use crate::RmaError;
use crate::hal::{Hal, MpbHalf};

/// A message from another core whose chunks are being taken one at a
/// time outside a receive that wants it.
#[derive(Debug)]
struct Partial {
    /// The context it was sent in.
    context: u32,
    /// Length of the whole message.
    length: usize,
    /// Bytes of it taken so far.
    offset: usize,
    /// The message, `length` bytes, valid up to `offset`; empty when
    /// `lost`.
    data: Vec<u8>,
    /// The heap had no room for it: its chunks are taken and dropped, and
    /// its receive fails with `Err(NoMemory)`.
    lost: bool,
}

/// A whole message taken from the MPB before a receive asked for it.
#[derive(Debug)]
struct Early {
    /// World rank of the sender.
    source: u32,
    /// The context it was sent in.
    context: u32,
    data: Vec<u8>,
    /// Its length, when the heap had no room for it (`data` is empty).
    lost: Option<usize>,
}

impl Early {
    /// The message, or `Err(NoMemory)` if the heap had no room for it.
    fn into_data(self) -> Result<Vec<u8>, RmaError> {
        match self.lost {
            None => Ok(self.data),
            Some(length) => Err(no_room(length)),
        }
    }
}

/// The error of a message the heap had no room for on arrival.
fn no_room(length: usize) -> RmaError {
    RmaError::NoMemory {
        what: "the heap, for an arriving message",
        requested: length as u64,
        available: 0,
    }
}

/// One core's end of every channel to the other cores, shared by all its
/// communicators.
#[derive(Debug)]
pub(super) struct Channel {
    /// This core's world rank.
    me: u32,
    /// Chunks sent to each world rank since boot (word 0 of our peer line there).
    sent: Vec<u32>,
    /// Chunks received from each world rank since boot (word 1 of our peer line there).
    received: Vec<u32>,
    /// The world rank whose chunk is in our data buffer and not yet acknowledged.
    buffer_holds_chunk_for: Option<u32>,
    /// Messages sent to self, with their context, not yet received.
    to_self: VecDeque<(u32, Vec<u8>)>,
    /// Whole messages taken from the MPB before anyone asked for them,
    /// oldest first.
    inbox: VecDeque<Early>,
    /// Per world source, a message begun outside a receive that wants it.
    partial: Vec<Option<Partial>>,
    /// Where the next poll of every source for a draining send starts, so
    /// none starves.
    next_drain: u32,
    /// The highest context this core has taken part in (kept in the MPB
    /// too, so a new channel never reuses one).
    pub(super) last_context: u32,
}

impl Channel {
    /// The channel of this core, continuing from the counts in the MPB.
    pub(super) fn new<H: Hal>(hal: &H, layout: Layout) -> Self {
        let me = hal.rank();
        let world = hal.cores();
        let mut sent = alloc::vec![0; world as usize];
        let mut received = alloc::vec![0; world as usize];
        let mut buffer_holds_chunk_for = None;
        // The peers write these lines (acknowledgements): the reads take
        // their place among the peers' writes.
        hal.read_ordered(|| {
            hal.invalidate_mpbt();
            for peer in (0..world).filter(|&p| p != me) {
                let there = MpbHalf::Of(hal.participant(peer));
                let ours = layout.peer(me);
                sent[peer as usize] = hal.mpb_read_u32(there, ours + PEER_SENT);
                received[peer as usize] = hal.mpb_read_u32(there, ours + PEER_ACKED);
                let acked = hal.mpb_read_u32(MpbHalf::Own, layout.peer(peer) + PEER_ACKED);
                if acked != sent[peer as usize] {
                    buffer_holds_chunk_for = Some(peer);
                }
            }
        });
        let last_context = hal.mpb_read_u32(MpbHalf::Own, layout.last_context(me));
        Self {
            me,
            sent,
            received,
            buffer_holds_chunk_for,
            to_self: VecDeque::new(),
            inbox: VecDeque::new(),
            partial: (0..world).map(|_| None).collect(),
            next_drain: 0,
            last_context,
        }
    }

    /// Records `context` as the highest this core has taken part in.
    pub(super) fn set_last_context<H: Hal>(&mut self, hal: &H, layout: Layout, context: u32) {
        self.last_context = context;
        hal.invalidate_mpbt();
        hal.mpb_write_u32(MpbHalf::Own, layout.last_context(self.me), context);
        hal.flush_wcb();
    }
}

/// A message on its way out through the data buffer.
struct Outgoing<'d> {
    /// World rank.
    dest: u32,
    data: &'d [u8],
    /// Bytes already published.
    offset: usize,
    done: bool,
}

/// A message on its way in from another core's data buffer.
struct Incoming<'b> {
    /// World rank.
    src: u32,
    /// Rank in the receiving communicator, as errors name it.
    rank: u32,
    buf: &'b mut [u8],
    /// Length of the message, known from its first chunk.
    length: usize,
    /// Bytes of it consumed.
    offset: usize,
    /// Whether its first chunk (or a partial message) was taken.
    started: bool,
    done: bool,
    /// The chunks taken before the receive came were dropped for want of
    /// heap: the receive fails with `Err(NoMemory)`.
    lost: bool,
}

/// Which of a communicator's two streams a message travels in: the
/// program's point-to-point messages, or the collectives' (so a
/// collective never takes a message the program sent, as in MPICH).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plane {
    /// `send`, `recv` and the rest of the channel's public calls.
    Point,
    /// Barriers and the other collectives.
    Collective,
}

/// When a transfer that waits takes messages from other sources into the
/// inbox, so the senders' data buffers free up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drain {
    /// Never: the receive and send make progress on their own.
    Never,
    /// While the send waits for its data buffer ([`Comm::send_progressing`]).
    WhileSendWaits,
    /// Whenever neither the send nor the receive moved: the collectives of
    /// a communicator made from another, whose messages may queue behind
    /// the program's (a rank that sent to `X` and then entered a barrier
    /// whose partner is not `X` waits until `X` takes that message, so
    /// `X` must take it even while it waits for another rank).
    WhileWaiting,
}

/// The channel as one communicator's call uses it: the shared state, the
/// platform, the context to match and the statistics to count in.
struct Link<'a, H: Hal> {
    hal: &'a H,
    layout: Layout,
    context: u32,
    ch: &'a mut Channel,
    stats: &'a mut CommStats,
}

impl<H: Hal> Comm<'_, H> {
    /// Whether a message from world rank `src` is half taken.
    #[cfg(test)]
    pub(super) fn partial_from(&self, src: u32) -> bool {
        self.channel.borrow().partial[src as usize].is_some()
    }

    /// How transfers in `plane` drain while they wait: the collectives of
    /// a communicator made from another drain whenever they wait; the
    /// rest as the channel always did.
    fn drain(&self, plane: Plane) -> Drain {
        if plane == Plane::Collective && !self.is_world() {
            Drain::WhileWaiting
        } else {
            Drain::Never
        }
    }

    /// Runs `f` on the channel, for this communicator's `plane`.
    fn link<R>(&mut self, plane: Plane, f: impl FnOnce(&mut Link<'_, H>) -> R) -> R {
        let channel = self.channel.clone();
        let mut ch = channel.borrow_mut();
        let mut link = Link {
            hal: self.hal,
            layout: self.layout,
            context: self.context << 1 | u32::from(plane == Plane::Collective),
            ch: &mut ch,
            stats: &mut self.stats,
        };
        f(&mut link)
    }

    /// Sends `data` to rank `dest`; returns once the last chunk is
    /// published (for messages up to one data buffer: without waiting for
    /// `dest`).
    ///
    /// Return values: `Err(Rank)` if `dest` is not a rank.
    pub fn send(&mut self, dest: u32, data: &[u8]) -> Result<(), RmaError> {
        self.send_in(Plane::Point, dest, data)
    }

    /// [`send`](Self::send) in `plane`.
    pub(super) fn send_in(&mut self, plane: Plane, dest: u32, data: &[u8]) -> Result<(), RmaError> {
        check_rank("send destination", dest, self.size)?;
        let dest = self.members[dest as usize];
        let drain = self.drain(plane);
        self.link(plane, |l| l.transfer(Some((dest, data)), None, drain))
            .map(drop)
    }

    /// Sends `data` to rank `dest` like [`send`](Self::send), but while the
    /// data buffer waits for a receiver, takes messages from any source
    /// (of any communicator) into the inbox: two ranks that send to each
    /// other (or a cycle of ranks) without receiving in between then never
    /// wait for each other. [`recv`](Self::recv) and
    /// [`try_recv_any`](Self::try_recv_any) return those messages first,
    /// in their order per source.
    ///
    /// Return values: `Err(Rank)` if `dest` is not a rank.
    pub fn send_progressing(&mut self, dest: u32, data: &[u8]) -> Result<(), RmaError> {
        check_rank("send destination", dest, self.size)?;
        let dest = self.members[dest as usize];
        self.link(Plane::Point, |l| {
            l.transfer(Some((dest, data)), None, Drain::WhileSendWaits)
        })
        .map(drop)
    }

    /// Publishes `data` (at most one data buffer long) to `dest` if the
    /// data buffer is free; never waits and never receives. What a
    /// channel without receive progress in its sends can be built from.
    ///
    /// Return values: `Ok(true)` if the message left, `Ok(false)` if the
    /// buffer still holds a chunk its receiver has not taken;
    /// `Err(Rank)` if `dest` is not a rank; `Err(BufferLength)` if `data`
    /// is longer than the data buffer.
    pub fn try_send(&mut self, dest: u32, data: &[u8]) -> Result<bool, RmaError> {
        check_rank("send destination", dest, self.size)?;
        let capacity = self.layout.data_bytes as usize;
        if data.len() > capacity {
            return Err(RmaError::BufferLength {
                what: "try_send message",
                len: data.len(),
                expected: capacity,
            });
        }
        let dest = self.members[dest as usize];
        Ok(self.link(Plane::Point, |l| {
            let sent = if dest == l.ch.me {
                l.ch.to_self.push_back((l.context, data.to_vec()));
                true
            } else {
                let mut out = Outgoing {
                    dest,
                    data,
                    offset: 0,
                    done: false,
                };
                l.try_send_chunk(&mut out)
            };
            if sent {
                l.stats.messages_sent += 1;
                l.stats.bytes_sent += data.len() as u64;
            }
            sent
        }))
    }

    /// The next message from any source, if one has fully arrived; never
    /// waits. Messages from one source come in the order they were sent;
    /// the inbox comes first, then messages to self, then one poll of
    /// every other member, starting after the one that delivered last so
    /// none starves. A message of several chunks is assembled over several
    /// calls (one chunk per source and call: the next chunk needs the
    /// sender to see the acknowledgement first). Messages of other
    /// communicators met on the way are kept for them.
    ///
    /// Return values: `Some((source, message))`, the source as a rank of
    /// this communicator, or `None` if no message is complete yet; the
    /// message is `Err(NoMemory)` if the heap had no room for it when it
    /// arrived (it is consumed).
    pub fn try_recv_any(&mut self) -> Option<(u32, Result<Vec<u8>, RmaError>)> {
        let members = core::mem::take(&mut self.members);
        let start = self.next_any;
        let got = self.link(Plane::Point, |l| {
            let context = l.context;
            if let Some(at) = l.ch.inbox.iter().position(|e| e.context == context) {
                let early = l.ch.inbox.remove(at).expect("the position is in the inbox");
                return Some((early.source, early.into_data()));
            }
            if let Some(at) = l.ch.to_self.iter().position(|(c, _)| *c == context) {
                let (_, own) =
                    l.ch.to_self
                        .remove(at)
                        .expect("the position is in the queue");
                return Some((l.ch.me, Ok(own)));
            }
            // The sources' lines race with their sends.
            let hal = l.hal;
            hal.read_ordered(|| l.poll_any(&members, start))
        });
        self.members = members;
        let (source, data) = got?;
        let rank = self
            .rank_of_world(source)
            .expect("a message of this context");
        self.next_any = (rank + 1) % self.size;
        self.stats.messages_received += 1;
        self.stats.bytes_received += data.as_ref().map_or(0, Vec::len) as u64;
        Some((rank, data))
    }

    /// Receives the next message from rank `src` into `buf`.
    ///
    /// Return values: the message's length; `Err(Rank)` if `src` is not a
    /// rank; `Err(Truncate)` if the message was longer than `buf` (it is
    /// consumed, and `buf` holds its beginning); `Err(RecvFromSelfWithoutMessage)`
    /// for a receive from self with nothing sent to self.
    pub fn recv(&mut self, src: u32, buf: &mut [u8]) -> Result<usize, RmaError> {
        self.recv_in(Plane::Point, src, buf)
    }

    /// [`recv`](Self::recv) in `plane`.
    pub(super) fn recv_in(
        &mut self,
        plane: Plane,
        src: u32,
        buf: &mut [u8],
    ) -> Result<usize, RmaError> {
        check_rank("receive source", src, self.size)?;
        let world = self.members[src as usize];
        let drain = self.drain(plane);
        self.link(plane, |l| l.transfer(None, Some((world, src, buf)), drain))
    }

    /// Sends `data` to `dest` and receives from `src` into `buf` at the
    /// same time, chunk by chunk, so exchanges in rings and pairs never
    /// deadlock whatever the size.
    ///
    /// Return values: as for [`send`](Self::send) and [`recv`](Self::recv);
    /// ranks are checked before anything moves.
    pub fn sendrecv(
        &mut self,
        dest: u32,
        data: &[u8],
        src: u32,
        buf: &mut [u8],
    ) -> Result<usize, RmaError> {
        self.sendrecv_in(Plane::Point, dest, data, src, buf)
    }

    /// [`sendrecv`](Self::sendrecv) in `plane`.
    pub(super) fn sendrecv_in(
        &mut self,
        plane: Plane,
        dest: u32,
        data: &[u8],
        src: u32,
        buf: &mut [u8],
    ) -> Result<usize, RmaError> {
        check_rank("send destination", dest, self.size)?;
        check_rank("receive source", src, self.size)?;
        let (dest, world) = (self.members[dest as usize], self.members[src as usize]);
        let drain = self.drain(plane);
        self.link(plane, |l| {
            l.transfer(Some((dest, data)), Some((world, src, buf)), drain)
        })
    }
}

impl<H: Hal> Link<'_, H> {
    /// Waits through the platform until `ready` returns a value, counting
    /// the cycles.
    fn wait<T>(&mut self, ready: impl FnMut(&mut Self) -> Option<T>) -> T {
        let hal = self.hal;
        let start = hal.cycles();
        let mut ready = ready;
        let value = hal.wait_for(|| ready(self));
        self.stats.wait_cycles += hal.cycles().saturating_sub(start);
        value
    }

    /// Moves a send and a receive forward together; `drain` says when
    /// waiting takes messages from other sources into the inbox.
    /// Ranks are world ranks; the receive also carries the source's rank
    /// in the communicator, for errors.
    fn transfer(
        &mut self,
        send: Option<(u32, &[u8])>,
        recv: Option<(u32, u32, &mut [u8])>,
        drain: Drain,
    ) -> Result<usize, RmaError> {
        let (me, context) = (self.ch.me, self.context);
        let mut out = None;
        if let Some((dest, data)) = send {
            u32::try_from(data.len()).map_err(|_| RmaError::BufferLength {
                what: "message",
                len: data.len(),
                expected: u32::MAX as usize,
            })?;
            self.stats.messages_sent += 1;
            self.stats.bytes_sent += data.len() as u64;
            if dest == me {
                self.ch.to_self.push_back((context, data.to_vec()));
            } else {
                out = Some(Outgoing {
                    dest,
                    data,
                    offset: 0,
                    done: false,
                });
            }
        }
        let mut inc = None;
        let mut delivered = None;
        if let Some((src, rank, buf)) = recv {
            let early = self
                .ch
                .inbox
                .iter()
                .position(|e| e.source == src && e.context == context);
            if let Some(at) = early {
                let early = self
                    .ch
                    .inbox
                    .remove(at)
                    .expect("the position is in the inbox");
                delivered = Some(
                    early
                        .into_data()
                        .and_then(|data| self.deliver(rank, data, buf)),
                );
            } else if src == me {
                delivered = Some(self.recv_from_self(rank, buf));
            } else {
                inc = Some(Incoming {
                    src,
                    rank,
                    buf,
                    length: 0,
                    offset: 0,
                    started: false,
                    done: false,
                    lost: false,
                });
            }
        }
        let finished = |out: &Option<Outgoing<'_>>, inc: &Option<Incoming<'_>>| {
            out.as_ref().is_none_or(|o| o.done) && inc.as_ref().is_none_or(|i| i.done)
        };
        let world = self.ch.sent.len() as u32;
        while !finished(&out, &inc) {
            self.wait(|link| {
                let sent = out.as_mut().is_some_and(|o| link.try_send_chunk(o));
                let received = inc.as_mut().is_some_and(|i| link.try_recv_chunk(i));
                let waiting = match drain {
                    Drain::Never => false,
                    Drain::WhileSendWaits => !sent && out.as_ref().is_some_and(|o| !o.done),
                    Drain::WhileWaiting => !sent && !received,
                };
                // The receive's own source is left to the receive.
                let skip = inc.as_ref().map(|i| i.src);
                let drained = waiting && {
                    let early = link.poll_all(world, skip);
                    let any = early.is_some();
                    link.ch.inbox.extend(early);
                    any
                };
                (sent || received || drained).then_some(())
            });
        }
        if let Some(result) = delivered {
            return result;
        }
        match inc {
            None => Ok(0),
            Some(inc) => {
                self.stats.messages_received += 1;
                self.stats.bytes_received += inc.length as u64;
                if inc.lost {
                    Err(no_room(inc.length))
                } else if inc.length > inc.buf.len() {
                    Err(RmaError::Truncate {
                        sender: inc.rank,
                        sent: inc.length,
                        capacity: inc.buf.len(),
                    })
                } else {
                    Ok(inc.length)
                }
            }
        }
    }

    fn recv_from_self(&mut self, rank: u32, buf: &mut [u8]) -> Result<usize, RmaError> {
        let context = self.context;
        let at = self
            .ch
            .to_self
            .iter()
            .position(|(c, _)| *c == context)
            .ok_or(RmaError::RecvFromSelfWithoutMessage)?;
        let (_, message) = self
            .ch
            .to_self
            .remove(at)
            .expect("the position is in the queue");
        self.deliver(rank, message, buf)
    }

    /// Hands a message that is already here to a receive; `source` is
    /// the sender's rank in the communicator.
    fn deliver(
        &mut self,
        source: u32,
        message: Vec<u8>,
        buf: &mut [u8],
    ) -> Result<usize, RmaError> {
        self.stats.messages_received += 1;
        self.stats.bytes_received += message.len() as u64;
        let keep = message.len().min(buf.len());
        buf[..keep].copy_from_slice(&message[..keep]);
        if message.len() > buf.len() {
            return Err(RmaError::Truncate {
                sender: source,
                sent: message.len(),
                capacity: buf.len(),
            });
        }
        Ok(message.len())
    }

    /// Publishes the next chunk of `out` if the data buffer is free.
    /// Returns whether it did.
    fn try_send_chunk(&mut self, out: &mut Outgoing<'_>) -> bool {
        if out.done {
            return false;
        }
        let (hal, layout) = (self.hal, self.layout);
        if let Some(previous) = self.ch.buffer_holds_chunk_for {
            hal.invalidate_mpbt();
            let acked = hal.mpb_read_u32(MpbHalf::Own, layout.peer(previous) + PEER_ACKED);
            if acked != self.ch.sent[previous as usize] {
                return false;
            }
            self.ch.buffer_holds_chunk_for = None;
        }
        let chunk = (layout.data_bytes as usize).min(out.data.len() - out.offset);
        let dest = MpbHalf::Of(hal.participant(out.dest));
        let line = layout.peer(self.ch.me);
        let count = self.ch.sent[out.dest as usize].wrapping_add(1);

        hal.invalidate_mpbt();
        hal.mpb_write(
            MpbHalf::Own,
            layout.data,
            &out.data[out.offset..out.offset + chunk],
        );
        hal.flush_wcb();
        hal.mpb_write_u32(dest, line + PEER_LENGTH, out.data.len() as u32);
        hal.mpb_write_u32(dest, line + PEER_CONTEXT, self.context);
        hal.mpb_write_u32(dest, line + PEER_SENT, count);
        hal.flush_wcb();

        self.ch.sent[out.dest as usize] = count;
        self.ch.buffer_holds_chunk_for = Some(out.dest);
        self.stats.chunks_sent += 1;
        out.offset += chunk;
        out.done = out.offset == out.data.len();
        true
    }

    /// Consumes the next chunk of `inc` if its sender published one.
    /// A message of another context that comes first is taken into the
    /// inbox instead, a chunk at a time. Returns whether a chunk was taken.
    fn try_recv_chunk(&mut self, inc: &mut Incoming<'_>) -> bool {
        if inc.done {
            return false;
        }
        let (hal, layout, src) = (self.hal, self.layout, inc.src);
        let line = layout.peer(src);
        if !inc.started {
            let ours = match &self.ch.partial[src as usize] {
                Some(partial) => Some(partial.context == self.context),
                None => None,
            };
            match ours {
                // A message begun elsewhere: ours continues into `buf`,
                // another communicator's is finished into the inbox first.
                Some(true) => {
                    let partial = self.ch.partial[src as usize].take().expect("seen above");
                    let keep = partial.offset.min(inc.buf.len());
                    if partial.lost {
                        inc.lost = true;
                    } else {
                        inc.buf[..keep].copy_from_slice(&partial.data[..keep]);
                    }
                    inc.length = partial.length;
                    inc.offset = partial.offset;
                    inc.started = true;
                }
                Some(false) => return self.divert(src),
                None => {
                    hal.invalidate_mpbt();
                    let published = hal.mpb_read_u32(MpbHalf::Own, line + PEER_SENT);
                    if published == self.ch.received[src as usize] {
                        return false;
                    }
                    if hal.mpb_read_u32(MpbHalf::Own, line + PEER_CONTEXT) != self.context {
                        return self.divert(src);
                    }
                    inc.length = hal.mpb_read_u32(MpbHalf::Own, line + PEER_LENGTH) as usize;
                    inc.started = true;
                }
            }
        }
        hal.invalidate_mpbt();
        let published = hal.mpb_read_u32(MpbHalf::Own, line + PEER_SENT);
        if published == self.ch.received[src as usize] {
            return false;
        }
        let there = MpbHalf::Of(hal.participant(src));
        let chunk = (layout.data_bytes as usize).min(inc.length - inc.offset);
        // A message longer than the buffer is consumed whole; what fits is kept.
        let start = inc.offset.min(inc.buf.len());
        let keep = chunk.min(inc.buf.len() - start);
        hal.mpb_read(there, layout.data, &mut inc.buf[start..start + keep]);
        self.acknowledge(src);
        inc.offset += chunk;
        inc.done = inc.offset == inc.length;
        true
    }

    /// Takes a chunk of another context's message from `src` towards the
    /// inbox. Returns whether it took one.
    fn divert(&mut self, src: u32) -> bool {
        match self.try_recv_partial_chunk(src) {
            None => false,
            Some(None) => true,
            Some(Some(early)) => {
                self.ch.inbox.push_back(early);
                true
            }
        }
    }

    /// Tells `src` its chunk was consumed.
    fn acknowledge(&mut self, src: u32) {
        let hal = self.hal;
        let count = self.ch.received[src as usize].wrapping_add(1);
        hal.invalidate_mpbt();
        hal.mpb_write_u32(
            MpbHalf::Of(hal.participant(src)),
            self.layout.peer(self.ch.me) + PEER_ACKED,
            count,
        );
        hal.flush_wcb();
        self.ch.received[src as usize] = count;
    }

    /// One poll of `members` (world ranks) but this core, from position
    /// `start` on, taking at most one chunk from each; the first message
    /// of this context that completes is returned, others go to the inbox.
    fn poll_any(
        &mut self,
        members: &[u32],
        start: u32,
    ) -> Option<(u32, Result<Vec<u8>, RmaError>)> {
        let n = members.len() as u32;
        let order = (0..n).map(|step| members[((start + step) % n) as usize]);
        for src in self.publishing(order) {
            if let Some(early) = self.take_partial_chunk(src) {
                if early.context == self.context {
                    return Some((early.source, early.into_data()));
                }
                self.ch.inbox.push_back(early);
            }
        }
        None
    }

    /// One poll of every core of the run (`world` of them) but `skip`,
    /// taking at most one chunk from each; the first message that completes, whatever
    /// its context, is returned.
    fn poll_all(&mut self, world: u32, skip: Option<u32>) -> Option<Early> {
        let start = self.ch.next_drain;
        let order = (0..world)
            .map(|step| (start + step) % world)
            .filter(|&src| Some(src) != skip);
        for src in self.publishing(order) {
            if let Some(early) = self.take_partial_chunk(src) {
                self.ch.next_drain = (src + 1) % world;
                return Some(early);
            }
        }
        None
    }

    /// The sources of `order` (world ranks; this core is left out) that
    /// published a chunk not yet taken, in that order.
    ///
    /// Every source's line is read before any chunk is. A wait sleeps
    /// until a line its last poll read is written, and the emulator's
    /// modelled time watches only the first 64 lines a poll reads; a chunk
    /// is up to a data buffer of lines (192 on the SCC), so a poll that
    /// took one before reading the lines of the sources after it slept
    /// without watching them, and never woke for their next chunk. NAS
    /// FT's transpose stopped so on 32 cores: a sender waited for the
    /// acknowledgement of a receiver asleep on other lines.
    fn publishing(&mut self, order: impl Iterator<Item = u32>) -> Vec<u32> {
        let me = self.ch.me;
        order
            .filter(|&src| src != me && self.has_chunk(src))
            .collect()
    }

    /// Whether `src` published a chunk this core has not taken.
    fn has_chunk(&self, src: u32) -> bool {
        let hal = self.hal;
        hal.invalidate_mpbt();
        let published = hal.mpb_read_u32(MpbHalf::Own, self.layout.peer(src) + PEER_SENT);
        published != self.ch.received[src as usize]
    }

    /// Takes the next chunk from `src` into its partial message if `src`
    /// published one (the receiver steps of the protocol).
    ///
    /// Return values: `None` if nothing was published; `Some(None)` if a
    /// chunk was taken and the message is not complete; `Some(Some(_))`
    /// with the message once its last chunk is in.
    fn try_recv_partial_chunk(&mut self, src: u32) -> Option<Option<Early>> {
        self.has_chunk(src).then(|| self.take_partial_chunk(src))
    }

    /// Takes the chunk `src` published (its line read since, by
    /// [`has_chunk`](Self::has_chunk)) into its partial message; the
    /// message once its last chunk is in.
    fn take_partial_chunk(&mut self, src: u32) -> Option<Early> {
        let (hal, layout) = (self.hal, self.layout);
        let line = layout.peer(src);
        let mut partial = match self.ch.partial[src as usize].take() {
            Some(partial) => partial,
            None => {
                let length = hal.mpb_read_u32(MpbHalf::Own, line + PEER_LENGTH) as usize;
                let context = hal.mpb_read_u32(MpbHalf::Own, line + PEER_CONTEXT);
                // A heap without room for it drops the message (its
                // receive fails) instead of ending the run.
                let mut data = Vec::new();
                let lost = data.try_reserve_exact(length).is_err();
                if !lost {
                    data.resize(length, 0);
                }
                Partial {
                    context,
                    length,
                    offset: 0,
                    data,
                    lost,
                }
            }
        };
        let there = MpbHalf::Of(hal.participant(src));
        let chunk = (layout.data_bytes as usize).min(partial.length - partial.offset);
        let at = partial.offset;
        if !partial.lost {
            hal.mpb_read(there, layout.data, &mut partial.data[at..at + chunk]);
        }
        self.acknowledge(src);
        partial.offset += chunk;
        if partial.offset == partial.length {
            Some(Early {
                source: src,
                context: partial.context,
                data: partial.data,
                lost: partial.lost.then_some(partial.length),
            })
        } else {
            self.ch.partial[src as usize] = Some(partial);
            None
        }
    }
}
