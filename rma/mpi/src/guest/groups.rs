// SPDX-License-Identifier: MIT OR Apache-2.0
//! Groups: of the communicators and windows, for PSCW.

use alloc::format;
use alloc::vec::Vec;
use core::ffi::c_int;

use super::*;

/// `MPI_GROUP_EMPTY`'s handle; groups made here count from 2.
const GROUP_EMPTY: c_int = 1;

/// The group `handle` names.
pub(super) fn group_of(state: &State, handle: c_int) -> Result<Group, Failure> {
    if handle == GROUP_EMPTY {
        return Ok(world_group(state)?.incl(&[])?);
    }
    handle
        .checked_sub(2)
        .and_then(|i| state.groups.get(usize::try_from(i).ok()?))
        .and_then(Option::as_ref)
        .cloned()
        .ok_or_else(|| Failure::new(Class::Group, format!("{handle} names no group")))
}

/// `MPI_COMM_WORLD`'s group.
pub(super) fn world_group(state: &State) -> Result<Group, RmaError> {
    Group::world(state.rma.size(), state.rma.rank())
}

/// Keeps `group` and returns its handle.
pub(super) fn new_group(state: &mut State, group: Group) -> c_int {
    state.groups.push(Some(group));
    state.groups.len() as c_int + 1
}

/// `n` ranks from C's array.
fn ranks_of(n: c_int, ranks: *const c_int) -> Result<Vec<u32>, Failure> {
    let n = usize::try_from(n).map_err(|_| Failure::new(Class::Arg, format!("{n} ranks")))?;
    // SAFETY: MPI's array of `n` ints.
    let bytes = unsafe { input(ranks.cast(), n * 4) }?;
    bytes
        .chunks_exact(4)
        .map(|b| {
            let r = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            u32::try_from(r).map_err(|_| Failure::new(Class::Rank, format!("rank {r}")))
        })
        .collect()
}

/// `MPI_Comm_group`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_group(comm: c_int, group: *mut c_int) -> c_int {
    with_state("MPI_Comm_group", comm, |state| {
        if let Some(i) = comm_entry(state, comm).and_then(|c| c.inter.as_ref()) {
            let local = i.local.clone();
            let g = world_group(state)?.incl(&local)?;
            let handle = new_group(state, g);
            return store(group, handle);
        }
        let g = match comm_of(state, comm)? {
            Target::Comm(c) => c.group(),
            Target::Own => {
                let me = state.rma.rank();
                world_group(state)?.incl(&[me])?
            }
        };
        let handle = new_group(state, g);
        store(group, handle)
    })
}

/// `MPI_Group_size`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_size(group: c_int, size: *mut c_int) -> c_int {
    with_state("MPI_Group_size", codes::comm::WORLD, |state| {
        store(size, group_of(state, group)?.size() as c_int)
    })
}

/// `MPI_UNDEFINED`.
const UNDEFINED: c_int = -32766;

/// `MPI_Group_rank`: `MPI_UNDEFINED` outside the group.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_rank(group: c_int, rank: *mut c_int) -> c_int {
    with_state("MPI_Group_rank", codes::comm::WORLD, |state| {
        let r = group_of(state, group)?.rank();
        store(rank, r.map_or(UNDEFINED, |r| r as c_int))
    })
}

/// `MPI_Group_incl`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_incl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    with_state("MPI_Group_incl", codes::comm::WORLD, |state| {
        let g = group_of(state, group)?.incl(&ranks_of(n, ranks)?)?;
        let handle = new_group(state, g);
        store(newgroup, handle)
    })
}

/// `MPI_Group_excl`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_excl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    with_state("MPI_Group_excl", codes::comm::WORLD, |state| {
        let g = group_of(state, group)?.excl(&ranks_of(n, ranks)?)?;
        let handle = new_group(state, g);
        store(newgroup, handle)
    })
}

/// `MPI_Group_translate_ranks`: `MPI_UNDEFINED` for a rank not in the
/// second group.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_translate_ranks(
    group1: c_int,
    n: c_int,
    ranks1: *const c_int,
    group2: c_int,
    ranks2: *mut c_int,
) -> c_int {
    with_state("MPI_Group_translate_ranks", codes::comm::WORLD, |state| {
        let (a, b) = (group_of(state, group1)?, group_of(state, group2)?);
        let found = a.translate_ranks(&ranks_of(n, ranks1)?, &b)?;
        // SAFETY: MPI's array of `n` ints for the result.
        let out = unsafe { output(ranks2.cast(), found.len() * 4) }?;
        for (r, o) in found.iter().zip(out.chunks_exact_mut(4)) {
            o.copy_from_slice(&r.map_or(UNDEFINED, |r| r as c_int).to_le_bytes());
        }
        Ok(())
    })
}

/// `MPI_Group_free`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_free(group: *mut c_int) -> c_int {
    with_state("MPI_Group_free", codes::comm::WORLD, |state| {
        if group.is_null() {
            return Err(Failure::new(Class::Arg, "a null group pointer"));
        }
        // SAFETY: C passes a pointer to its group handle.
        let handle = unsafe { group.read() };
        if handle != GROUP_EMPTY {
            group_of(state, handle)?;
            state.groups[(handle - 2) as usize] = None;
        }
        store(group, GROUP_NULL)
    })
}

/// `MPI_Group_compare`: `MPI_IDENT` when both groups have the same
/// processes in the same order, `MPI_SIMILAR` when only the order
/// differs, else `MPI_UNEQUAL`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_compare(group1: c_int, group2: c_int, result: *mut c_int) -> c_int {
    with_state("MPI_Group_compare", codes::comm::WORLD, |state| {
        let a = group_of(state, group1)?.members().to_vec();
        let b = group_of(state, group2)?.members().to_vec();
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort_unstable();
        sb.sort_unstable();
        let answer = if a == b {
            super::env::IDENT
        } else if sa == sb {
            super::env::SIMILAR
        } else {
            super::env::UNEQUAL
        };
        store(result, answer)
    })
}

/// `MPI_GROUP_NULL`.
const GROUP_NULL: c_int = 0;

/// `MPI_Group_range_incl`: the ranks of each (first, last, stride)
/// triplet, in order.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Group_range_incl(
    group: c_int,
    n: c_int,
    ranges: *const [c_int; 3],
    newgroup: *mut c_int,
) -> c_int {
    with_state("MPI_Group_range_incl", codes::comm::WORLD, |state| {
        let triplets = ranks_of_signed(n.checked_mul(3).unwrap_or(-1), ranges.cast())?;
        let mut ranks = Vec::new();
        for t in triplets.chunks_exact(3) {
            let (first, last, stride) = (t[0], t[1], t[2]);
            if stride == 0 || (last - first) / stride < 0 {
                return Err(Failure::new(
                    Class::Arg,
                    format!(
                        "range ({first}, {last}, {stride}): the stride must be nonzero and lead from first to last"
                    ),
                ));
            }
            let mut r = first;
            while (stride > 0 && r <= last) || (stride < 0 && r >= last) {
                ranks.push(
                    u32::try_from(r).map_err(|_| Failure::new(Class::Rank, format!("rank {r}")))?,
                );
                r += stride;
            }
        }
        let g = group_of(state, group)?.incl(&ranks)?;
        let handle = new_group(state, g);
        store(newgroup, handle)
    })
}

/// `n` ints from C's array, as they are.
fn ranks_of_signed(n: c_int, values: *const c_int) -> Result<Vec<i32>, Failure> {
    let n = usize::try_from(n).map_err(|_| Failure::new(Class::Arg, format!("{n} ranges")))?;
    // SAFETY: MPI's array of `n` ints.
    let bytes = unsafe { input(values.cast(), n * 4) }?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}
