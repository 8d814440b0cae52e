// SPDX-License-Identifier: MIT OR Apache-2.0
//! Intercommunicators (`MPI_Intercomm_create`, `MPI_Intercomm_merge`) and
//! `MPI_Comm_create_group`: communicators whose processes share no
//! parent communicator to agree on a context through. They agree by
//! messages (the leaders' over the peer communicator, with the caller's
//! tag), then each takes the context (rma's `Comm::join`).
//!
//! An intercommunicator carries its rank, size, remote size, group, name,
//! `MPI_Intercomm_merge` and `MPI_Comm_free`; point-to-point calls and
//! collectives on it fail with `MPI_ERR_COMM` ([`refusal`]).

use alloc::format;
use alloc::vec::Vec;
use core::ffi::c_int;

use super::*;

/// An intercommunicator's groups, by world rank.
pub(super) struct Inter {
    /// The local group (this process's).
    pub(super) local: Vec<u32>,
    /// The remote group.
    pub(super) remote: Vec<u32>,
    /// This process's world rank.
    me: u32,
}

impl Inter {
    /// This process's rank and the size of the local group.
    pub(super) fn local_rank(&self) -> (u32, u32) {
        let rank = self.local.iter().position(|&m| m == self.me).unwrap_or(0);
        (rank as u32, self.local.len() as u32)
    }
}

/// What a call that takes no intercommunicator fails with.
pub(super) fn refusal(comm: c_int) -> Failure {
    Failure::new(
        Class::Comm,
        format!(
            "{comm} is an intercommunicator: point-to-point calls and collectives on \
             intercommunicators are not supported (MPI_Intercomm_merge makes an intracommunicator \
             of it)"
        ),
    )
}

/// Little-endian bytes of `words`.
fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The words of `bytes`.
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Sends `words` to `dest` of `comm` with `tag`.
fn send_words(state: &mut State, words: &[u32], dest: u32, tag: c_int, comm: c_int) -> Outcome {
    let data = bytes(words);
    p2p::send(
        state,
        data.as_ptr().cast(),
        data.len() as c_int,
        Datatype::Byte as c_int,
        dest as c_int,
        tag,
        comm,
    )
}

/// Receives at most `max` words from `source` of `comm` with `tag`.
fn recv_words(
    state: &mut State,
    max: usize,
    source: u32,
    tag: c_int,
    comm: c_int,
) -> Result<Vec<u32>, Failure> {
    let mut data = alloc::vec![0u8; max * 4];
    let request = p2p::post_recv(
        state,
        data.as_mut_ptr().cast(),
        data.len() as c_int,
        Datatype::Byte as c_int,
        source as c_int,
        tag,
        comm,
    )?;
    let status = p2p::wait(state, request)?;
    data.truncate(status.bytes().min(data.len()));
    Ok(words(&data))
}

/// The local communicator's members, this process's rank in it, and the
/// highest context any of them took part in (agreed over it).
fn local_side(state: &mut State, comm: c_int) -> Result<(Vec<u32>, u32, u32), Failure> {
    let me = state.rma.rank();
    Ok(match comm_of(state, comm)? {
        Target::Comm(c) => {
            let mut last = [c.last_context()];
            c.allreduce(&mut last, ReduceOp::Max)?;
            (c.members().to_vec(), c.rank(), last[0])
        }
        Target::Own => (alloc::vec![me], 0, state.rma.comm().last_context()),
    })
}

/// Broadcasts `words` (of a fixed length) from `root` over `comm`.
fn bcast_words(state: &mut State, comm: c_int, root: u32, words_: &mut [u32]) -> Outcome {
    if let Target::Comm(c) = comm_of(state, comm)? {
        let mut data = bytes(words_);
        c.bcast(root, &mut data)?;
        words_.copy_from_slice(&words(&data));
    }
    Ok(())
}

/// `MPI_Intercomm_create`: collective over both local communicators; the
/// leaders exchange their groups over `peer_comm` with `tag`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Intercomm_create(
    local_comm: c_int,
    local_leader: c_int,
    peer_comm: c_int,
    remote_leader: c_int,
    tag: c_int,
    newintercomm: *mut c_int,
) -> c_int {
    with_state("MPI_Intercomm_create", local_comm, |state| {
        let (local, my_rank, local_last) = local_side(state, local_comm)?;
        let leader = u32::try_from(local_leader)
            .ok()
            .filter(|&l| (l as usize) < local.len())
            .ok_or_else(|| Failure::new(Class::Rank, format!("local leader {local_leader}")))?;
        let world = state.rma.size() as usize;
        // The remote side: its highest context, size and members.
        let mut remote = alloc::vec![0u32; 2 + world];
        if my_rank == leader {
            let (_, peers) = rank_of(state, peer_comm)?;
            let peer = u32::try_from(remote_leader)
                .ok()
                .filter(|&r| r < peers)
                .ok_or_else(|| {
                    Failure::new(Class::Rank, format!("remote leader {remote_leader}"))
                })?;
            let mut mine = alloc::vec![local_last, local.len() as u32];
            mine.extend_from_slice(&local);
            send_words(state, &mine, peer, tag, peer_comm)?;
            let got = recv_words(state, 2 + world, peer, tag, peer_comm)?;
            if got.len() < 2 || got.len() != 2 + got[1] as usize {
                return Err(Failure::new(
                    Class::Other,
                    "the remote leader's message is not its group (same tag used by another message?)",
                ));
            }
            remote[..got.len()].copy_from_slice(&got);
        }
        bcast_words(state, local_comm, leader, &mut remote)?;
        let remote_members = remote[2..2 + remote[1] as usize].to_vec();
        if remote_members.iter().any(|m| local.contains(m)) {
            return Err(Failure::new(
                Class::Comm,
                "the local and remote groups overlap",
            ));
        }
        let context = local_last.max(remote[0]) + 1;
        let union: Vec<u32> = if local[0] < remote_members[0] {
            local.iter().chain(&remote_members).copied().collect()
        } else {
            remote_members.iter().chain(&local).copied().collect()
        };
        let comm = state.rma.comm().join(context, union)?;
        let handle = env::new_comm(state, comm);
        let me = state.rma.rank();
        if let Some(Some(entry)) = state.comms.last_mut() {
            entry.inter = Some(Inter {
                local,
                remote: remote_members,
                me,
            });
        }
        store(newintercomm, handle)
    })
}

/// The intercommunicator `comm` names.
fn inter_of(state: &mut State, comm: c_int) -> Result<&mut CommEntry, Failure> {
    rank_or_inter(state, comm)?;
    match usize::try_from(comm - FIRST_COMM)
        .ok()
        .and_then(|i| state.comms.get_mut(i))
        .and_then(Option::as_mut)
    {
        Some(entry) if entry.inter.is_some() => Ok(entry),
        _ => Err(Failure::new(
            Class::Comm,
            format!("{comm} is not an intercommunicator"),
        )),
    }
}

/// `MPI_Intercomm_merge`: an intracommunicator of both groups, the group
/// that passed `high` false first (the one whose first process has the
/// lower world rank first when both pass the same), each group in its
/// order.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Intercomm_merge(
    intercomm: c_int,
    high: c_int,
    newintracomm: *mut c_int,
) -> c_int {
    with_state("MPI_Intercomm_merge", intercomm, |state| {
        let entry = inter_of(state, intercomm)?;
        let inter = entry.inter.as_ref().expect("an intercommunicator");
        let (my_rank, local_size) = inter.local_rank();
        let remote_size = inter.remote.len() as u32;
        let first_is_mine = entry.comm.members()[0] == inter.local[0];
        let mine = u32::from(high != 0).to_le_bytes();
        let mut all = alloc::vec![0u8; 4 * entry.comm.size() as usize];
        entry.comm.allgather(&mine, &mut all)?;
        let flags = words(&all);
        let first_size = if first_is_mine {
            local_size
        } else {
            remote_size
        };
        let (first_high, second_high) = (flags[0], flags[first_size as usize]);
        // The union's first group goes first unless it alone passed high.
        let first_goes_first = !(first_high == 1 && second_high == 0);
        let mine_first = first_is_mine == first_goes_first;
        let key = if mine_first {
            my_rank
        } else {
            remote_size + my_rank
        };
        let made = entry
            .comm
            .split(Some(0), key as i32)?
            .expect("every process joins");
        let handle = env::new_comm(state, made);
        store(newintracomm, handle)
    })
}

/// `MPI_Comm_test_inter`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_test_inter(comm: c_int, flag: *mut c_int) -> c_int {
    with_state("MPI_Comm_test_inter", comm, |state| {
        rank_or_inter(state, comm)?;
        let inter = comm_entry(state, comm).is_some_and(|c| c.inter.is_some());
        store(flag, c_int::from(inter))
    })
}

/// `MPI_Comm_remote_size`: the remote group's size; an intracommunicator
/// has none (`MPI_ERR_COMM`).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_remote_size(comm: c_int, size: *mut c_int) -> c_int {
    with_state("MPI_Comm_remote_size", comm, |state| {
        let n = inter_of(state, comm)?
            .inter
            .as_ref()
            .map_or(0, |i| i.remote.len());
        store(size, n as c_int)
    })
}

/// `MPI_Comm_create_group`: collective over the members of `group` only (a
/// subgroup of `comm`'s); its first member gathers their highest contexts
/// and sends them the new one, by messages on `comm` with `tag`. A process
/// outside the group gets `MPI_COMM_NULL`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_create_group(
    comm: c_int,
    group: c_int,
    tag: c_int,
    newcomm: *mut c_int,
) -> c_int {
    with_state("MPI_Comm_create_group", comm, |state| {
        let g = groups::group_of(state, group)?;
        let me = state.rma.rank();
        let members: Vec<u32> = match comm_of(state, comm)? {
            Target::Comm(c) => g
                .members()
                .iter()
                .map(|&m| {
                    c.rank_of_world(m).ok_or_else(|| {
                        Failure::new(
                            Class::Group,
                            format!("process {m} of the group is not in the communicator"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Target::Own => {
                if g.members().iter().any(|&m| m != me) {
                    return Err(Failure::new(
                        Class::Group,
                        "the group is not a subgroup of MPI_COMM_SELF",
                    ));
                }
                alloc::vec![0; g.members().len()]
            }
        };
        let Some(my_rank) = g.rank() else {
            return store(newcomm, codes::comm::NULL);
        };
        let mut last = state.rma.comm().last_context();
        if my_rank == 0 {
            for &r in &members[1..] {
                let theirs = recv_words(state, 1, r, tag, comm)?;
                last = last.max(theirs.first().copied().unwrap_or(0));
            }
            for &r in &members[1..] {
                send_words(state, &[last], r, tag, comm)?;
            }
        } else {
            send_words(state, &[last], members[0], tag, comm)?;
            last = recv_words(state, 1, members[0], tag, comm)?
                .first()
                .copied()
                .unwrap_or(last);
        }
        let made = state.rma.comm().join(last + 1, g.members().to_vec())?;
        let handle = env::new_comm(state, made);
        store(newcomm, handle)
    })
}
