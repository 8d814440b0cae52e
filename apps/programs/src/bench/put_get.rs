// SPDX-License-Identifier: MIT OR Apache-2.0
//! Put and get latency and bandwidth between two ranks, OSU
//! micro-benchmark style (`osu_put_latency`, `osu_get_bw`, ...): for each
//! epoch type (fence, PSCW, lock), window memory type and size from 1 B to
//! 1 MiB (powers of 4), warm-up iterations, then timed ones on the origin (rank 0); rank
//! 1 is the target. Two-sided send/recv over the MPB channel runs the same
//! sizes as the baseline (latency: half a ping-pong).
//!
//! - latency (`put-latency`, `get-latency`): one operation and its epoch
//!   per sample (fence: op + fence; PSCW: start + op + complete against
//!   post + wait; lock: lock + op + unlock, exclusive);
//! - bandwidth (`put-bw`, `get-bw`): one epoch with a window of operations
//!   of the same size per sample (64 as OSU, fewer for large sizes so a
//!   sample moves at most 256 KiB); `bytes=` gives what it moved.
//!
//! Data: every get's data is checked after its epoch; after each series
//! the target checks the last put's bytes in its window.
//!
//! The message-based baseline ([`rma::msg::MsgRma`], `variant=msg`, no
//! `type`: its windows are the target's private memory) runs the same
//! epochs, operations and sizes, first, on the
//! same two ranks, with the same code (written once over
//! [`rma::OneSided`]); the memory-based lines carry `variant=rma`, the
//! two-sided ones `variant=two-sided`. Its lock epochs use CH3's default
//! mode (a single op travels with lock and unlock in one message). Its
//! target only applies ops inside its own calls into the layer: during
//! the lock series it waits in a fence, which serves every message as it
//! arrives, as an MPI target would inside a barrier.
//!
//! Other ranks of the run only create the windows and wait.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::chip::MemoryType;
use rma::comm::Group;
use rma::msg::LockMode;
use rma::{Assert, LockType, OneSided, Rma, RmaError, WindowOptions};

use super::{Scale, Scaled, emit, fill, msg_layer, timed, verify};
use crate::support::communicator;
use crate::support::osc::fail;
use kernel::Platform;

/// The largest size.
const MAX_SIZE: usize = 1 << 20;

/// Window memory types measured, with their names in the keys.
pub const TYPES: [(MemoryType, &str); 4] = [
    (MemoryType::MpbtWt, "mpbt-wt"),
    (MemoryType::MpbtWb, "mpbt-wb"),
    (MemoryType::Ncm, "ncm"),
    (MemoryType::NcmWcb, "ncm-wcb"),
];

/// Epoch types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Epoch {
    Fence,
    Pscw,
    Lock,
}

impl Epoch {
    const ALL: [Epoch; 3] = [Epoch::Fence, Epoch::Pscw, Epoch::Lock];

    fn name(self) -> &'static str {
        match self {
            Epoch::Fence => "fence",
            Epoch::Pscw => "pscw",
            Epoch::Lock => "lock",
        }
    }
}

/// Put or get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Put,
    Get,
}

/// Sizes, iterations and warm-up of one run.
struct Plan {
    scale: Scale,
    sizes: Vec<usize>,
    types: &'static [(MemoryType, &'static str)],
}

impl Plan {
    fn new(scale: Scale) -> Self {
        match scale {
            Scale::Quick => Self {
                scale,
                sizes: vec![1, 64, 4096],
                types: &TYPES[..2],
            },
            Scale::Full => Self {
                scale,
                sizes: (0..=10).map(|k| 1 << (2 * k)).collect(),
                types: &TYPES,
            },
        }
    }

    /// Warm-up and timed iterations at `size`: fewer for large sizes, whose
    /// every byte costs the emulator a memory callback.
    fn iterations(&self, size: usize) -> (u32, u32) {
        match (self.scale == Scale::Quick, size) {
            (true, _) => (1, 5),
            (false, s) if s <= 4096 => (5, 50),
            (false, s) if s <= 65536 => (2, 10),
            (false, _) => (1, 3),
        }
    }

    /// Operations per bandwidth sample at `size`: 64 as OSU, fewer where a
    /// sample would move more than 256 KiB (16 KiB when quick).
    fn window(&self, size: usize) -> usize {
        let cap = match self.scale {
            Scale::Quick => 16 << 10,
            Scale::Full => 256 << 10,
        };
        (cap / size).clamp(1, 64)
    }
}

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let comm = communicator(platform)?;
    if comm.size() != 2 {
        return Err(format!(
            "bench-put-get runs on 2 cores (origin and target), not {}",
            comm.size()
        ));
    }
    let plan = Plan::new(settings.scale);
    let peer = Group::world(2, comm.rank())
        .and_then(|w| w.incl(&[1 - comm.rank()]))
        .map_err(fail("group"))?;
    let mut msg = msg_layer(comm, LockMode::Default);
    let win = msg
        .create(MAX_SIZE as u32)
        .map_err(fail("creating a message-based window"))?;
    cases(&mut msg, win, "variant=msg", &peer, &plan)?;
    msg.free(win)
        .map_err(fail("freeing a message-based window"))?;
    let mut rma = Rma::new(msg.into_comm()).map_err(|e| format!("rma: {e}"))?;
    for &(ty, type_name) in plan.types {
        let win = rma
            .allocate::<u8>(MAX_SIZE as u32, WindowOptions::new().memory_type(ty))
            .map_err(fail("allocating a window"))?;
        let keys = format!("type={type_name} variant=rma");
        cases(&mut rma, win, &keys, &peer, &plan)?;
        rma.free(win).map_err(fail("freeing a window"))?;
    }
    two_sided(&mut rma, &plan)?;
    if rma.rank() == 0 {
        kernel::println!(
            "bench-put-get: {} sizes up to {} B, {} memory types, 3 epoch types, two-sided and the message-based baseline, every transfer checked",
            plan.sizes.len(),
            plan.sizes.last().copied().unwrap_or(0),
            plan.types.len()
        );
    }
    Ok(())
}

/// Every epoch type, operation and size on `win`, whose lines carry
/// `layer_keys` after the size and epoch keys.
fn cases<'h, L: OneSided<'h, Hal = Platform>>(
    layer: &mut L,
    win: L::Window,
    layer_keys: &str,
    peer: &Group,
    plan: &Plan,
) -> Result<(), String> {
    for epoch in Epoch::ALL {
        for op in [Op::Put, Op::Get] {
            for &size in &plan.sizes {
                let case = Case {
                    win,
                    epoch,
                    op,
                    size,
                    layer_keys,
                    peer,
                };
                case.series(layer, plan)?;
            }
        }
    }
    Ok(())
}

/// One operation, epoch type and size on a window of either layer.
struct Case<'a, W> {
    win: W,
    epoch: Epoch,
    op: Op,
    size: usize,
    /// The keys that name the layer (and memory type).
    layer_keys: &'a str,
    /// The other rank, as a group for PSCW.
    peer: &'a Group,
}

impl<W: Copy> Case<'_, W> {
    /// The latency and the bandwidth series, on rank 0 (origin) and rank 1
    /// (target).
    fn series<'h, L: OneSided<'h, Hal = Platform, Window = W>>(
        &self,
        layer: &mut L,
        plan: &Plan,
    ) -> Result<(), String> {
        let origin = layer.rank() == 0;
        let platform = layer.hal();
        let (warm, iters) = plan.iterations(self.size);
        let burst = plan.window(self.size);
        let mut buf = vec![0u8; self.size];
        // The target publishes what gets read; a fence makes it visible
        // (and keeps the origin's first access behind it) and, except for
        // fence epochs, closes at once.
        if !origin {
            let mut published = vec![0u8; self.size];
            fill(&mut published, PUBLISHED, 1);
            layer
                .local_write(self.win, 0, &published)
                .map_err(fail("local write"))?;
        }
        let opener = match self.epoch {
            Epoch::Fence => Assert::NONE,
            _ => Assert::NOSUCCEED,
        };
        layer.fence(self.win, opener).map_err(fail("fence"))?;
        let mut latency = Vec::new();
        let mut bandwidth = Vec::new();
        let rounds = warm + iters;
        // Latency rounds, then bandwidth rounds, counted on together so
        // every round puts its own pattern.
        for round in 0..2 * rounds {
            let ops = if round < rounds { 1 } else { burst };
            if origin && self.op == Op::Put {
                fill(&mut buf, round, 0);
            }
            let (gets, cycles) = timed(platform, || self.round(layer, &mut buf, ops, origin));
            // Each get's data, once its epoch is over.
            for get in gets.map_err(fail("epoch"))? {
                layer
                    .finish_get(get, &mut buf)
                    .map_err(fail("taking a get's data"))?;
                verify(&buf, PUBLISHED, 1, "get")?;
            }
            if origin && round % rounds >= warm {
                if round < rounds {
                    latency.push(cycles);
                } else {
                    bandwidth.push(cycles);
                }
            }
        }
        // Ends the fence epochs; in the lock series the target waits here
        // meanwhile, and the message-based one serves the origin's epochs.
        if matches!(self.epoch, Epoch::Fence | Epoch::Lock) {
            layer
                .fence(self.win, Assert::NOSUCCEED)
                .map_err(fail("fence"))?;
        }
        let name = match self.op {
            Op::Put => "put",
            Op::Get => "get",
        };
        if origin {
            let keys = format!(
                "size={} epoch={} {}",
                self.size,
                self.epoch.name(),
                self.layer_keys
            );
            emit(
                &format!("{name}-latency"),
                &keys,
                Some(self.size as u64),
                &latency,
            );
            let moved = (self.size * burst) as u64;
            emit(&format!("{name}-bw"), &keys, Some(moved), &bandwidth);
        }
        // Every epoch is over on the origin; the target checks the last
        // put, under a lock of its own part for the lock epochs (which
        // acquires what the origin's unlock released).
        layer.comm().barrier();
        if !origin && self.op == Op::Put {
            let mut got = vec![0u8; self.size];
            if self.epoch == Epoch::Lock {
                layer
                    .lock(self.win, LockType::Exclusive, 1, Assert::NONE)
                    .map_err(fail("lock"))?;
            }
            layer
                .local_read(self.win, 0, &mut got)
                .map_err(fail("local read"))?;
            if self.epoch == Epoch::Lock {
                layer.unlock(self.win, 1).map_err(fail("unlock"))?;
            }
            verify(
                &got,
                2 * rounds - 1,
                0,
                "the target's window after the last put",
            )?;
        }
        layer.comm().barrier();
        Ok(())
    }

    /// One epoch with `ops` operations of `buf`'s size, on the origin or
    /// the target side: the handles of its gets, complete now.
    fn round<'h, L: OneSided<'h, Window = W>>(
        &self,
        layer: &mut L,
        buf: &mut [u8],
        ops: usize,
        origin: bool,
    ) -> Result<Vec<L::Get>, RmaError> {
        let win = self.win;
        let mut gets = Vec::new();
        let mut operations = |layer: &mut L, buf: &mut [u8]| -> Result<(), RmaError> {
            for _ in 0..ops {
                match self.op {
                    Op::Put => layer.put(win, 1, 0, buf)?,
                    Op::Get => gets.push(layer.get(win, 1, 0, buf)?),
                }
            }
            Ok(())
        };
        match self.epoch {
            Epoch::Fence => {
                if origin {
                    operations(layer, buf)?;
                }
                layer.fence(win, Assert::NONE)?;
            }
            Epoch::Pscw if origin => {
                layer.start(win, self.peer, Assert::NONE)?;
                operations(layer, buf)?;
                layer.complete(win)?;
            }
            Epoch::Pscw => {
                layer.post(win, self.peer, Assert::NONE)?;
                layer.wait(win)?;
            }
            Epoch::Lock if origin => {
                layer.lock(win, LockType::Exclusive, 1, Assert::NONE)?;
                operations(layer, buf)?;
                layer.unlock(win, 1)?;
            }
            Epoch::Lock => {}
        }
        Ok(gets)
    }
}

/// The round number of the pattern the target publishes for gets.
const PUBLISHED: u32 = 0xA5A5;

/// Two-sided send/recv between ranks 0 and 1: latency is half a ping-pong
/// round trip, bandwidth a window of sends answered by one byte.
fn two_sided(rma: &mut Rma<'_, Platform>, plan: &Plan) -> Result<(), String> {
    let me = rma.rank();
    let peer = 1 - me;
    for &size in &plan.sizes {
        let (warm, iters) = plan.iterations(size);
        let window = plan.window(size);
        let mut buf = vec![0u8; size];
        let mut latency = Vec::new();
        let mut bandwidth = Vec::new();
        let rounds = warm + iters;
        for round in 0..2 * rounds {
            let platform = rma.hal();
            let comm = rma.comm();
            let start = platform.now();
            if round < rounds {
                // Ping-pong: rank 0 sends, rank 1 checks and echoes.
                if me == 0 {
                    fill(&mut buf, round, 0);
                    comm.send(peer, &buf).map_err(fail("send"))?;
                    comm.recv(peer, &mut buf).map_err(fail("recv"))?;
                } else {
                    comm.recv(peer, &mut buf).map_err(fail("recv"))?;
                    comm.send(peer, &buf).map_err(fail("send"))?;
                }
                let cycles = platform.now() - start;
                verify(&buf, round, 0, "ping-pong message")?;
                if me == 0 && round >= warm {
                    latency.push(cycles / 2);
                }
            } else {
                let mut ack = [0u8; 1];
                if me == 0 {
                    fill(&mut buf, round, 0);
                    for _ in 0..window {
                        comm.send(peer, &buf).map_err(fail("send"))?;
                    }
                    comm.recv(peer, &mut ack).map_err(fail("recv"))?;
                } else {
                    for _ in 0..window {
                        comm.recv(peer, &mut buf).map_err(fail("recv"))?;
                        verify(&buf, round, 0, "streamed message")?;
                    }
                    comm.send(peer, &ack).map_err(fail("send"))?;
                }
                let cycles = platform.now() - start;
                if me == 0 && round - rounds >= warm {
                    bandwidth.push(cycles);
                }
            }
        }
        if me == 0 {
            let keys = format!("size={size} variant=two-sided");
            emit("put-latency", &keys, Some(size as u64), &latency);
            emit("put-bw", &keys, Some((size * window) as u64), &bandwidth);
        }
    }
    Ok(())
}
