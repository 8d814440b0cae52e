// SPDX-License-Identifier: MIT OR Apache-2.0
//! Teams and collectives over the symmetric heap: broadcast, collect,
//! fcollect, alltoall and reductions on `SHMEM_TEAM_WORLD` (and
//! `SHMEM_TEAM_SHARED`, the same PEs: every core reaches every core's
//! memory). Each is a barrier, the puts and gets that move the data, and a
//! barrier; a reduction combines every PE's source in PE order, so
//! floating-point results are the same on every PE.

use core::ffi::c_int;

use super::*;

/// `shmem_team_t`: a handle.
pub type Team = c_int;
/// `SHMEM_TEAM_WORLD`.
const WORLD: Team = 0;
/// `SHMEM_TEAM_SHARED`.
const SHARED: Team = 1;

/// `Err` unless `team` is one this library has.
fn check_team(team: Team) -> Outcome<()> {
    if team == WORLD || team == SHARED {
        Ok(())
    } else {
        Err(format!(
            "team {team} is not SHMEM_TEAM_WORLD or SHMEM_TEAM_SHARED (teams of other PEs \
             are not supported)"
        ))
    }
}

/// `shmem_team_my_pe`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_my_pe(team: Team) -> c_int {
    with("shmem_team_my_pe", |s| {
        check_team(team).map(|()| s.me as c_int)
    })
}

/// `shmem_team_n_pes`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_n_pes(team: Team) -> c_int {
    with("shmem_team_n_pes", |s| {
        check_team(team).map(|()| s.n as c_int)
    })
}

/// `shmem_team_sync`: `shmem_sync_all` over the team's PEs.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_sync(team: Team) -> c_int {
    with("shmem_team_sync", |s| {
        check_team(team)?;
        s.sync_all()?;
        Ok(0)
    })
}

/// Broadcast of `len` bytes from `root`'s `source` to every PE's `dest`.
fn broadcast(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
    root: c_int,
) -> c_int {
    with(routine, |s| {
        check_team(team)?;
        let root = s.pe(root)?;
        let to = s.offset(dest, len, "dest")?;
        let from = s.offset(source, len, "source")?;
        s.barrier_all()?;
        let mut tmp = vec![0u8; len];
        s.get(root, from, &mut tmp)?;
        let me = s.me;
        s.put(me, to, &tmp)?;
        s.barrier_all()?;
        Ok(0)
    })
}

/// Collect: each PE's `len` bytes (which may differ) into every PE's
/// `dest`, in PE order.
fn collect(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
    fixed: bool,
) -> c_int {
    with(routine, |s| {
        check_team(team)?;
        let from = s.offset(source, len, "source")?;
        let n = s.n as usize;
        let mut all = vec![0u8; 4 * n];
        s.dsm
            .rma()
            .comm()
            .allgather(&(len as u32).to_le_bytes(), &mut all)
            .map_err(|e| format!("{e}"))?;
        let lens: Vec<usize> = all
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
            .collect();
        if fixed && lens.iter().any(|l| *l != len) {
            return Err(format!(
                "PEs give different element counts ({lens:?}); fcollect needs the same"
            ));
        }
        let total: usize = lens.iter().sum();
        let before: usize = lens[..s.me as usize].iter().sum();
        let to = s.offset(dest, total, "dest")?;
        s.barrier_all()?;
        let mut tmp = vec![0u8; len];
        let me = s.me;
        s.get(me, from, &mut tmp)?;
        for pe in 0..s.n {
            s.put(pe, to + before as u32, &tmp)?;
        }
        s.barrier_all()?;
        Ok(0)
    })
}

/// Alltoall: block `j` of each PE's `source` to block `me` of PE `j`'s
/// `dest`, blocks of `len` bytes.
fn alltoall(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
) -> c_int {
    with(routine, |s| {
        check_team(team)?;
        let n = s.n as usize;
        let from = s.offset(source, len * n, "source")?;
        let to = s.offset(dest, len * n, "dest")?;
        s.barrier_all()?;
        let mut tmp = vec![0u8; len];
        let me = s.me;
        for pe in 0..s.n {
            s.get(me, from + pe * len as u32, &mut tmp)?;
            s.put(pe, to + me * len as u32, &tmp)?;
        }
        s.barrier_all()?;
        Ok(0)
    })
}

/// `shmem_broadcastmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_broadcastmem(
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    root: c_int,
) -> c_int {
    broadcast("shmem_broadcastmem", team, dest, source, nelems, root)
}

/// `shmem_collectmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_collectmem(
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
) -> c_int {
    collect("shmem_collectmem", team, dest, source, nelems, false)
}

/// `shmem_fcollectmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_fcollectmem(
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
) -> c_int {
    collect("shmem_fcollectmem", team, dest, source, nelems, true)
}

/// `shmem_alltoallmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_alltoallmem(
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
) -> c_int {
    alltoall("shmem_alltoallmem", team, dest, source, nelems)
}

/// The typed broadcast, collect, fcollect and alltoall of one type.
macro_rules! collective_routines {
    ($t:ty: $bcast:ident $collect:ident $fcollect:ident $alltoall:ident) => {
        #[doc = concat!("`", stringify!($bcast), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $bcast(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            root: c_int,
        ) -> c_int {
            broadcast(
                stringify!($bcast),
                team,
                dest.cast(),
                source.cast(),
                nelems * core::mem::size_of::<$t>(),
                root,
            )
        }
        #[doc = concat!("`", stringify!($collect), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $collect(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
        ) -> c_int {
            collect(
                stringify!($collect),
                team,
                dest.cast(),
                source.cast(),
                nelems * core::mem::size_of::<$t>(),
                false,
            )
        }
        #[doc = concat!("`", stringify!($fcollect), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fcollect(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
        ) -> c_int {
            collect(
                stringify!($fcollect),
                team,
                dest.cast(),
                source.cast(),
                nelems * core::mem::size_of::<$t>(),
                true,
            )
        }
        #[doc = concat!("`", stringify!($alltoall), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $alltoall(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
        ) -> c_int {
            alltoall(
                stringify!($alltoall),
                team,
                dest.cast(),
                source.cast(),
                nelems * core::mem::size_of::<$t>(),
            )
        }
    };
}

/// A reduction's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Red {
    And,
    Or,
    Xor,
    Max,
    Min,
    Sum,
    Prod,
}

/// An element type reductions combine.
pub(super) trait Combine: Copy {
    /// `a op b`.
    fn combine(op: Red, a: Self, b: Self) -> Self;
}

macro_rules! combine_int {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn combine(op: Red, a: Self, b: Self) -> Self {
                match op {
                    Red::And => a & b,
                    Red::Or => a | b,
                    Red::Xor => a ^ b,
                    Red::Max => a.max(b),
                    Red::Min => a.min(b),
                    Red::Sum => a.wrapping_add(b),
                    Red::Prod => a.wrapping_mul(b),
                }
            }
        }
    )*};
}
combine_int!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! combine_float {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn combine(op: Red, a: Self, b: Self) -> Self {
                match op {
                    Red::Max => a.max(b),
                    Red::Min => a.min(b),
                    Red::Sum => a + b,
                    Red::Prod => a * b,
                    // The tables give floats no bitwise reductions.
                    Red::And | Red::Or | Red::Xor => unreachable!("no bitwise reduction on floats"),
                }
            }
        }
    )*};
}
combine_float!(f32, f64);

/// `dest[i] = source[i] op ...` over every PE, for `n` elements.
pub(super) fn reduce<T: Combine>(
    routine: &str,
    team: Team,
    dest: *mut T,
    source: *const T,
    n: usize,
    op: Red,
) -> c_int {
    with(routine, |s| {
        check_team(team)?;
        let size = core::mem::size_of::<T>();
        let len = n * size;
        let from = s.offset(source.cast(), len, "source")?;
        let to = s.offset(dest.cast_const().cast(), len, "dest")?;
        s.barrier_all()?;
        let mut acc = vec![0u8; len];
        let mut next = vec![0u8; len];
        s.get(0, from, &mut acc)?;
        for pe in 1..s.n {
            s.get(pe, from, &mut next)?;
            for (a, b) in acc.chunks_exact_mut(size).zip(next.chunks_exact(size)) {
                // SAFETY: each chunk holds one element's bytes.
                let (x, y) = unsafe {
                    (
                        a.as_ptr().cast::<T>().read_unaligned(),
                        b.as_ptr().cast::<T>().read_unaligned(),
                    )
                };
                let z = T::combine(op, x, y);
                // SAFETY: as above, for writing.
                unsafe { a.as_mut_ptr().cast::<T>().write_unaligned(z) };
            }
        }
        let me = s.me;
        s.put(me, to, &acc)?;
        s.barrier_all()?;
        Ok(0)
    })
}

/// One reduction routine.
macro_rules! reduction {
    ($t:ty, $op:ident: $name:ident) => {
        #[doc = concat!("`", stringify!($name), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            nreduce: usize,
        ) -> c_int {
            reduce(stringify!($name), team, dest, source, nreduce, Red::$op)
        }
    };
}

include!("collective_typed.rs");
