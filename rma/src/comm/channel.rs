// SPDX-License-Identifier: MIT OR Apache-2.0
//! The two-sided MPB channel (protocol in the [module doc](super)).

use alloc::vec::Vec;

use super::group::check_rank;
use super::layout::{PEER_ACKED, PEER_LENGTH, PEER_SENT};
use super::{Comm, Partial};
use crate::RmaError;
use crate::hal::{Hal, MpbHalf};

/// A message on its way out through the data buffer.
struct Outgoing<'d> {
    dest: u32,
    data: &'d [u8],
    /// Bytes already published.
    offset: usize,
    done: bool,
}

/// A message on its way in from another core's data buffer.
struct Incoming<'b> {
    src: u32,
    buf: &'b mut [u8],
    /// Length of the message, known from its first chunk.
    length: usize,
    /// Bytes of it consumed.
    offset: usize,
    done: bool,
}

impl<H: Hal> Comm<'_, H> {
    /// Sends `data` to rank `dest`; returns once the last chunk is
    /// published (for messages up to one data buffer: without waiting for
    /// `dest`).
    ///
    /// Return values: `Err(Rank)` if `dest` is not a rank.
    pub fn send(&mut self, dest: u32, data: &[u8]) -> Result<(), RmaError> {
        check_rank("send destination", dest, self.size)?;
        self.transfer(Some((dest, data)), None, false).map(drop)
    }

    /// Sends `data` to rank `dest` like [`send`](Self::send), but while the
    /// data buffer waits for a receiver, takes messages from any source
    /// into the inbox: two ranks that send to each other (or a cycle of
    /// ranks) without receiving in between then never wait for each other.
    /// [`recv`](Self::recv) and [`try_recv_any`](Self::try_recv_any) return
    /// those messages first, in their order per source.
    ///
    /// Return values: `Err(Rank)` if `dest` is not a rank.
    pub fn send_progressing(&mut self, dest: u32, data: &[u8]) -> Result<(), RmaError> {
        check_rank("send destination", dest, self.size)?;
        self.transfer(Some((dest, data)), None, true).map(drop)
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
        let sent = if dest == self.rank {
            self.to_self.push_back(data.to_vec());
            true
        } else {
            let mut out = Outgoing {
                dest,
                data,
                offset: 0,
                done: false,
            };
            self.try_send_chunk(&mut out)
        };
        if sent {
            self.stats.messages_sent += 1;
            self.stats.bytes_sent += data.len() as u64;
        }
        Ok(sent)
    }

    /// The next message from any source, if one has fully arrived; never
    /// waits. Messages from one source come in the order they were sent;
    /// the inbox comes first, then messages to self, then one poll of
    /// every other source, starting after the one that delivered last so
    /// none starves. A message of several chunks is assembled over several
    /// calls (one chunk per source and call: the next chunk needs the
    /// sender to see the acknowledgement first).
    ///
    /// Return values: `Some((source, message))`, or `None` if no message
    /// is complete yet.
    pub fn try_recv_any(&mut self) -> Option<(u32, Vec<u8>)> {
        let me = self.rank;
        let message = match self.inbox.pop_front() {
            Some(early) => Some(early),
            None => match self.to_self.pop_front() {
                Some(own) => Some((me, own)),
                None => self.poll_any(),
            },
        };
        if let Some((_, data)) = &message {
            self.stats.messages_received += 1;
            self.stats.bytes_received += data.len() as u64;
        }
        message
    }

    /// Receives the next message from rank `src` into `buf`.
    ///
    /// Return values: the message's length; `Err(Rank)` if `src` is not a
    /// rank; `Err(Truncate)` if the message was longer than `buf` (it is
    /// consumed, and `buf` holds its beginning); `Err(RecvFromSelfWithoutMessage)`
    /// for a receive from self with nothing sent to self.
    pub fn recv(&mut self, src: u32, buf: &mut [u8]) -> Result<usize, RmaError> {
        check_rank("receive source", src, self.size)?;
        self.transfer(None, Some((src, buf)), false)
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
        check_rank("send destination", dest, self.size)?;
        check_rank("receive source", src, self.size)?;
        self.transfer(Some((dest, data)), Some((src, buf)), false)
    }

    /// Moves a send and a receive forward together; with `drain`, a send
    /// that cannot publish takes messages from any source into the inbox.
    fn transfer(
        &mut self,
        send: Option<(u32, &[u8])>,
        recv: Option<(u32, &mut [u8])>,
        drain: bool,
    ) -> Result<usize, RmaError> {
        let me = self.rank;
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
                self.to_self.push_back(data.to_vec());
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
        let mut from_self = None;
        if let Some((src, buf)) = recv {
            if let Some(at) = self.inbox.iter().position(|(from, _)| *from == src) {
                let (_, message) = self.inbox.remove(at).expect("the position is in the inbox");
                from_self = Some(self.deliver(src, message, buf));
            } else if src == me {
                from_self = Some(self.recv_from_self(buf));
            } else {
                let mut incoming = Incoming {
                    src,
                    buf,
                    length: 0,
                    offset: 0,
                    done: false,
                };
                // A message try_recv_any has begun to take continues here.
                if let Some(partial) = self.partial[src as usize].take() {
                    let keep = partial.offset.min(incoming.buf.len());
                    incoming.buf[..keep].copy_from_slice(&partial.data[..keep]);
                    incoming.length = partial.length;
                    incoming.offset = partial.offset;
                }
                inc = Some(incoming);
            }
        }
        let finished = |out: &Option<Outgoing<'_>>, inc: &Option<Incoming<'_>>| {
            out.as_ref().is_none_or(|o| o.done) && inc.as_ref().is_none_or(|i| i.done)
        };
        while !finished(&out, &inc) {
            self.wait(|comm| {
                let sent = out.as_mut().is_some_and(|o| comm.try_send_chunk(o));
                let received = inc.as_mut().is_some_and(|i| comm.try_recv_chunk(i));
                let drained = drain && !sent && out.as_ref().is_some_and(|o| !o.done) && {
                    let early = comm.poll_any();
                    let any = early.is_some();
                    comm.inbox.extend(early);
                    any
                };
                (sent || received || drained).then_some(())
            });
        }
        if let Some(result) = from_self {
            return result;
        }
        match inc {
            None => Ok(0),
            Some(inc) => {
                self.stats.messages_received += 1;
                self.stats.bytes_received += inc.length as u64;
                if inc.length > inc.buf.len() {
                    Err(RmaError::Truncate {
                        source: inc.src,
                        sent: inc.length,
                        capacity: inc.buf.len(),
                    })
                } else {
                    Ok(inc.length)
                }
            }
        }
    }

    fn recv_from_self(&mut self, buf: &mut [u8]) -> Result<usize, RmaError> {
        let message: Vec<u8> = self
            .to_self
            .pop_front()
            .ok_or(RmaError::RecvFromSelfWithoutMessage)?;
        let me = self.rank;
        self.deliver(me, message, buf)
    }

    /// Hands a message that is already here to a receive.
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
                source,
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
        let hal = self.hal;
        if let Some(previous) = self.buffer_holds_chunk_for {
            hal.invalidate_mpbt();
            let acked = hal.mpb_read_u32(MpbHalf::Own, self.layout.peer(previous) + PEER_ACKED);
            if acked != self.sent[previous as usize] {
                return false;
            }
            self.buffer_holds_chunk_for = None;
        }
        let chunk = (self.layout.data_bytes as usize).min(out.data.len() - out.offset);
        let dest = MpbHalf::Of(hal.participant(out.dest));
        let line = self.layout.peer(self.rank);
        let count = self.sent[out.dest as usize].wrapping_add(1);

        hal.invalidate_mpbt();
        hal.mpb_write(
            MpbHalf::Own,
            self.layout.data,
            &out.data[out.offset..out.offset + chunk],
        );
        hal.flush_wcb();
        hal.mpb_write_u32(dest, line + PEER_LENGTH, out.data.len() as u32);
        hal.mpb_write_u32(dest, line + PEER_SENT, count);
        hal.flush_wcb();

        self.sent[out.dest as usize] = count;
        self.buffer_holds_chunk_for = Some(out.dest);
        self.stats.chunks_sent += 1;
        out.offset += chunk;
        out.done = out.offset == out.data.len();
        true
    }

    /// Consumes the next chunk of `inc` if its sender published one.
    /// Returns whether it did.
    fn try_recv_chunk(&mut self, inc: &mut Incoming<'_>) -> bool {
        if inc.done {
            return false;
        }
        let hal = self.hal;
        let line = self.layout.peer(inc.src);
        hal.invalidate_mpbt();
        let published = hal.mpb_read_u32(MpbHalf::Own, line + PEER_SENT);
        if published == self.received[inc.src as usize] {
            return false;
        }
        let length = hal.mpb_read_u32(MpbHalf::Own, line + PEER_LENGTH) as usize;
        if inc.offset == 0 {
            inc.length = length;
        }
        let src = MpbHalf::Of(hal.participant(inc.src));
        let chunk = (self.layout.data_bytes as usize).min(inc.length - inc.offset);
        // A message longer than the buffer is consumed whole; what fits is kept.
        let start = inc.offset.min(inc.buf.len());
        let keep = chunk.min(inc.buf.len() - start);
        hal.mpb_read(src, self.layout.data, &mut inc.buf[start..start + keep]);
        let count = self.received[inc.src as usize].wrapping_add(1);

        hal.invalidate_mpbt();
        hal.mpb_write_u32(src, self.layout.peer(self.rank) + PEER_ACKED, count);
        hal.flush_wcb();

        self.received[inc.src as usize] = count;
        inc.offset += chunk;
        inc.done = inc.offset == inc.length;
        true
    }

    /// One poll of every other source, from `next_any` on, taking at most
    /// one chunk from each; the first message that completes is returned.
    fn poll_any(&mut self) -> Option<(u32, Vec<u8>)> {
        let (me, size) = (self.rank, self.size);
        for step in 0..size {
            let src = (self.next_any + step) % size;
            if src == me {
                continue;
            }
            if let Some(message) = self.try_recv_partial_chunk(src) {
                self.next_any = (src + 1) % size;
                return Some((src, message));
            }
        }
        None
    }

    /// Takes the next chunk from `src` into its partial message if `src`
    /// published one (the receiver steps of the protocol); returns the
    /// message once its last chunk is in.
    fn try_recv_partial_chunk(&mut self, src: u32) -> Option<Vec<u8>> {
        let hal = self.hal;
        let line = self.layout.peer(src);
        hal.invalidate_mpbt();
        let published = hal.mpb_read_u32(MpbHalf::Own, line + PEER_SENT);
        if published == self.received[src as usize] {
            return None;
        }
        let mut partial = match self.partial[src as usize].take() {
            Some(partial) => partial,
            None => {
                let length = hal.mpb_read_u32(MpbHalf::Own, line + PEER_LENGTH) as usize;
                Partial {
                    length,
                    offset: 0,
                    data: alloc::vec![0; length],
                }
            }
        };
        let there = MpbHalf::Of(hal.participant(src));
        let chunk = (self.layout.data_bytes as usize).min(partial.length - partial.offset);
        let at = partial.offset;
        hal.mpb_read(there, self.layout.data, &mut partial.data[at..at + chunk]);
        let count = self.received[src as usize].wrapping_add(1);

        hal.invalidate_mpbt();
        hal.mpb_write_u32(there, self.layout.peer(self.rank) + PEER_ACKED, count);
        hal.flush_wcb();

        self.received[src as usize] = count;
        partial.offset += chunk;
        if partial.offset == partial.length {
            Some(partial.data)
        } else {
            self.partial[src as usize] = Some(partial);
            None
        }
    }
}
