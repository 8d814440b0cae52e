// SPDX-License-Identifier: MIT OR Apache-2.0
//! Teams and collectives over symmetric memory: broadcast, collect,
//! fcollect, alltoall, alltoalls and reductions on `SHMEM_TEAM_WORLD`,
//! `SHMEM_TEAM_SHARED` (the same PEs: every core reaches every core's
//! memory) and the teams `shmem_team_split_strided` and
//! `shmem_team_split_2d` make. Each is a barrier of the team, the puts and
//! gets that move the data, and a barrier; a reduction combines every
//! member's source in member order, so floating-point results are the
//! same on every member.
//!
//! The predefined teams use the run's barrier. A made team counts
//! arrivals in an entry of a table at the end of its first PE's heap
//! block, claimed with a compare-and-swap of the team's key (stride and
//! size) by whichever member comes first: the same entry on every member
//! without any agreement beforehand. A member's `k`-th arrival
//! fetch-adds the count and waits until it reaches `k * size`.

use core::ffi::c_int;

use super::routines::LongDouble;
use super::*;

/// `shmem_team_t`: a handle.
pub type Team = c_int;
/// `SHMEM_TEAM_WORLD`.
pub(super) const WORLD: Team = 0;
/// `SHMEM_TEAM_SHARED`.
pub(super) const SHARED: Team = 1;
/// `SHMEM_TEAM_INVALID`.
pub(super) const INVALID: Team = -1;
/// Teams a PE may hold at once besides the two predefined ones
/// (`shmem_team_split_*` fails past it).
pub(super) const MAX_TEAMS: usize = 64;

/// A team this PE belongs to: the PEs `start + i * stride` for `i` below
/// `size`, this PE the `me`-th.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TeamDef {
    pub(super) start: u32,
    pub(super) stride: i32,
    pub(super) size: u32,
    pub(super) me: u32,
    /// The entry of the barrier table on `start` this team's barriers
    /// count in, once found.
    pub(super) slot: Option<u32>,
    /// The contexts its configuration asked for (`num_contexts` under
    /// `SHMEM_TEAM_NUM_CONTEXTS`), 0 when it asked for none.
    pub(super) contexts: c_int,
}

impl TeamDef {
    /// The PE of the run that is member `i`.
    pub(super) fn pe(&self, i: u32) -> u32 {
        (i64::from(self.start) + i64::from(i) * i64::from(self.stride)) as u32
    }

    /// The member index of PE `pe`, if it is a member.
    pub(super) fn index_of(&self, pe: u32) -> Option<u32> {
        let d = i64::from(pe) - i64::from(self.start);
        let stride = i64::from(self.stride);
        if stride == 0 {
            return (d == 0).then_some(0);
        }
        (d % stride == 0 && d / stride >= 0 && d / stride < i64::from(self.size))
            .then(|| (d / stride) as u32)
    }

    /// The key of its barrier table entry: stride and size (the table is
    /// on the team's first PE).
    fn key(&self) -> u32 {
        ((self.stride as u32 & 0xffff) << 16) | (self.size & 0xffff)
    }
}

/// Entries of each PE's barrier table (one line each: key, count).
const TABLE_ENTRIES: u32 = 128;
/// Members a team's exchange area has a word for.
pub(super) const EXCHANGE_WORDS: u32 = 1024;
/// Bytes at the end of each PE's heap that teams use: the barrier table,
/// then the exchange area (a word per member).
pub(super) const TEAM_AREA: u32 = TABLE_ENTRIES * 32 + EXCHANGE_WORDS * 4;

impl State {
    /// The team `team` is, seen from this PE.
    pub(super) fn team(&self, team: Team) -> Outcome<TeamDef> {
        if team == WORLD || team == SHARED {
            return Ok(TeamDef {
                start: 0,
                stride: 1,
                size: self.n,
                me: self.me,
                slot: None,
                contexts: 0,
            });
        }
        if team == INVALID {
            return Err(String::from("team is SHMEM_TEAM_INVALID"));
        }
        usize::try_from(team - 2)
            .ok()
            .and_then(|k| self.teams.get(k).copied().flatten())
            .ok_or_else(|| {
                format!("team {team} is not a team of this PE (it was never made, or destroyed)")
            })
    }

    /// The block offset of the barrier table.
    fn table(&self) -> u32 {
        HEAP_BYTES - TEAM_AREA
    }

    /// The block offset of the exchange area.
    pub(super) fn exchange(&self) -> u32 {
        HEAP_BYTES - EXCHANGE_WORDS * 4
    }

    /// Every member of `team` arrives; with `release`, what this PE put
    /// is visible first. Then this PE's loads see what the members
    /// released. The predefined teams use the run's barrier; a made team
    /// counts arrivals in an entry of the table on its first PE.
    pub(super) fn team_barrier(&mut self, team: Team, release: bool) -> Outcome<()> {
        if release {
            self.quiet()?;
        }
        if team == WORLD || team == SHARED {
            return self.sync_all();
        }
        let mut def = self.team(team)?;
        let root = def.start;
        let slot = match def.slot {
            Some(slot) => slot,
            None => {
                let key = def.key();
                let mut found = None;
                for i in 0..TABLE_ENTRIES {
                    let at = self.at(root, self.table() + i * 32);
                    let old = self
                        .dsm
                        .compare_swap(self.heap, at, 0u32, key)
                        .map_err(|e| format!("{e}"))?;
                    if old == 0 || old == key {
                        found = Some(i);
                        break;
                    }
                }
                let slot = found.ok_or_else(|| {
                    format!("PE {root} holds the barriers of {TABLE_ENTRIES} teams already")
                })?;
                def.slot = Some(slot);
                self.teams[(team - 2) as usize] = Some(def);
                slot
            }
        };
        let at = self.at(root, self.table() + slot * 32 + 4);
        let arrived: u32 = self
            .dsm
            .atomic(self.heap, at, 1u32, AccumulateOp::Sum)
            .map_err(|e| format!("{e}"))?;
        let target = (arrived / def.size + 1) * def.size;
        let hal = self.dsm.rma().hal();
        let heap = self.heap;
        let dsm = &mut self.dsm;
        let mut failed = None;
        hal.wait_for(|| match dsm.atomic(heap, at, 0u32, AccumulateOp::NoOp) {
            Ok(count) => (count.wrapping_sub(target) as i32 >= 0).then_some(()),
            Err(e) => {
                failed = Some(format!("{e}"));
                Some(())
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        self.dsm.sync_read(self.scope).map_err(|e| format!("{e}"))
    }

    /// Every member's `value`, in member order (a collective over `team`).
    fn team_allgather(&mut self, team: Team, value: u32) -> Outcome<Vec<u32>> {
        let def = self.team(team)?;
        if def.size > EXCHANGE_WORDS {
            return Err(format!(
                "the team has {} PEs; collect handles at most {EXCHANGE_WORDS}",
                def.size
            ));
        }
        let word = self.exchange() + def.me * 4;
        for i in 0..def.size {
            self.put(def.pe(i), word, &value.to_le_bytes())?;
        }
        self.team_barrier(team, true)?;
        let mut all = vec![0u8; def.size as usize * 4];
        let me = self.me;
        let exchange = self.exchange();
        self.get(me, exchange, &mut all)?;
        // Nobody writes the area again before everyone has read it.
        self.team_barrier(team, false)?;
        Ok(all
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// `shmem_team_my_pe`: this PE's index in `team`, -1 for
/// `SHMEM_TEAM_INVALID`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_my_pe(team: Team) -> c_int {
    if team == INVALID {
        return -1;
    }
    with("shmem_team_my_pe", |s| s.team(team).map(|t| t.me as c_int))
}

/// `shmem_team_n_pes`: the members of `team`, -1 for
/// `SHMEM_TEAM_INVALID`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_n_pes(team: Team) -> c_int {
    if team == INVALID {
        return -1;
    }
    with("shmem_team_n_pes", |s| {
        s.team(team).map(|t| t.size as c_int)
    })
}

/// `shmem_team_sync`: every member arrives, then each sees what the
/// others released before arriving.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_sync(team: Team) -> c_int {
    with("shmem_team_sync", |s| {
        s.team_barrier(team, false)?;
        Ok(0)
    })
}

/// Records `def` as a new team of this PE; its handle.
fn add_team(s: &mut State, def: TeamDef) -> Outcome<Team> {
    let free = s.teams.iter().position(Option::is_none);
    let k = match free {
        Some(k) => k,
        None if s.teams.len() < MAX_TEAMS => {
            s.teams.push(None);
            s.teams.len() - 1
        }
        None => return Err(format!("this PE holds {MAX_TEAMS} teams already")),
    };
    s.teams[k] = Some(def);
    Ok(k as Team + 2)
}

/// The members `start + i * stride` (`i` below `size`) of `parent`, as a
/// team of PEs of the run, if they are members of `parent`.
fn strided(parent: &TeamDef, start: c_int, stride: c_int, size: c_int) -> Outcome<(u32, i32, u32)> {
    let bad = || {
        format!(
            "start {start}, stride {stride}, size {size} do not name members of the parent team \
             (of {} PEs)",
            parent.size
        )
    };
    if size < 1 || start < 0 || start as u32 >= parent.size {
        return Err(bad());
    }
    let last = i64::from(start) + i64::from(size - 1) * i64::from(stride);
    if last < 0 || last >= i64::from(parent.size) || (stride == 0 && size > 1) {
        return Err(bad());
    }
    let first = parent.pe(start as u32);
    let stride = i64::from(stride) * i64::from(parent.stride);
    Ok((first, stride as i32, size as u32))
}

/// Makes the team `(start, stride, size)` of the run on its members;
/// the handle, or `SHMEM_TEAM_INVALID` on the others. Collective over
/// `parent` (its barrier ends it, so the new team's table entry is not
/// used before every member knows the team).
fn make_team(
    s: &mut State,
    parent: Team,
    (start, stride, size): (u32, i32, u32),
    contexts: c_int,
) -> Outcome<Team> {
    let mut def = TeamDef {
        start,
        stride,
        size,
        me: 0,
        slot: None,
        contexts,
    };
    let handle = match def.index_of(s.me) {
        Some(me) => {
            def.me = me;
            add_team(s, def)?
        }
        None => INVALID,
    };
    s.team_barrier(parent, false)?;
    Ok(handle)
}

/// Writes `value` through `out`, which C gives.
fn give<T>(routine: &str, out: *mut T, value: T) {
    if out.is_null() {
        fail(format_args!("{routine}: the result pointer is NULL"));
    }
    // SAFETY: C passes a pointer to its variable.
    unsafe { out.write(value) };
}

/// `shmem_team_split_strided`: the members `start + i * stride` of
/// `parent` (`i` below `size`) as a new team; `SHMEM_TEAM_INVALID` on the
/// others. Returns 0; a triple that names no members of `parent` gives
/// `SHMEM_TEAM_INVALID` and -1. Collective over `parent`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_split_strided(
    parent: Team,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: *const TeamConfig,
    config_mask: core::ffi::c_long,
    new_team: *mut Team,
) -> c_int {
    let routine = "shmem_team_split_strided";
    let contexts = asked_contexts(config, config_mask);
    if parent == INVALID {
        give(routine, new_team, INVALID);
        return -1;
    }
    let made = with(routine, |s| {
        let def = s.team(parent)?;
        match strided(&def, start, stride, size) {
            Ok(triple) => make_team(s, parent, triple, contexts).map(Ok),
            Err(e) => {
                s.team_barrier(parent, false)?;
                Ok(Err(e))
            }
        }
    });
    match made {
        Ok(team) => {
            give(routine, new_team, team);
            0
        }
        Err(_) => {
            give(routine, new_team, INVALID);
            -1
        }
    }
}

/// `shmem_team_split_2d`: `parent` as a grid of rows of `xrange` members:
/// this PE's row is its x-team, its column its y-team. Returns 0.
/// Collective over `parent`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_split_2d(
    parent: Team,
    xrange: c_int,
    xconfig: *const TeamConfig,
    xmask: core::ffi::c_long,
    xteam: *mut Team,
    yconfig: *const TeamConfig,
    ymask: core::ffi::c_long,
    yteam: *mut Team,
) -> c_int {
    let routine = "shmem_team_split_2d";
    let (xcontexts, ycontexts) = (
        asked_contexts(xconfig, xmask),
        asked_contexts(yconfig, ymask),
    );
    if parent == INVALID || xrange < 1 {
        give(routine, xteam, INVALID);
        give(routine, yteam, INVALID);
        return -1;
    }
    let (x, y) = with(routine, |s| {
        let def = s.team(parent)?;
        let xrange = (xrange as u32).min(def.size);
        let row = def.me / xrange;
        let col = def.me % xrange;
        let rows = def.size.div_ceil(xrange);
        let in_row = xrange.min(def.size - row * xrange);
        let in_col = rows - u32::from(col >= def.size - (rows - 1) * xrange);
        let x = strided(&def, (row * xrange) as c_int, 1, in_row as c_int)?;
        let y = strided(&def, col as c_int, xrange as c_int, in_col as c_int)?;
        let x = add_team(s, member(s.me, x, xcontexts))?;
        let y = add_team(s, member(s.me, y, ycontexts))?;
        s.team_barrier(parent, false)?;
        Ok((x, y))
    });
    give(routine, xteam, x);
    give(routine, yteam, y);
    0
}

/// The team `(start, stride, size)`, which PE `me` is a member of.
fn member(me: u32, (start, stride, size): (u32, i32, u32), contexts: c_int) -> TeamDef {
    let mut def = TeamDef {
        start,
        stride,
        size,
        me: 0,
        slot: None,
        contexts,
    };
    def.me = def.index_of(me).expect("a PE's own row and column hold it");
    def
}

/// `shmem_team_destroy`: forgets `team` (after its members' last
/// collective on it); `SHMEM_TEAM_INVALID` does nothing. The predefined
/// teams cannot be destroyed.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_destroy(team: Team) {
    if team == INVALID {
        return;
    }
    with("shmem_team_destroy", |s| {
        if team == WORLD || team == SHARED {
            return Err(String::from(
                "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed",
            ));
        }
        s.team(team)?;
        s.quiet()?;
        s.teams[(team - 2) as usize] = None;
        if let Some(k) = s.contexts.iter().position(|c| *c == Some(team)) {
            s.contexts[k] = None;
        }
        Ok(())
    })
}

/// `shmem_team_translate_pe`: the index in `dest_team` of member
/// `src_pe` of `src_team`; -1 if it is not a member of both (or a team is
/// `SHMEM_TEAM_INVALID`).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_translate_pe(src_team: Team, src_pe: c_int, dest_team: Team) -> c_int {
    if src_team == INVALID || dest_team == INVALID {
        return -1;
    }
    with("shmem_team_translate_pe", |s| {
        let (from, to) = (s.team(src_team)?, s.team(dest_team)?);
        Ok(u32::try_from(src_pe)
            .ok()
            .filter(|p| *p < from.size)
            .and_then(|p| to.index_of(from.pe(p)))
            .map_or(-1, |i| i as c_int))
    })
}

/// `shmem_team_config_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TeamConfig {
    num_contexts: c_int,
}

/// `SHMEM_TEAM_NUM_CONTEXTS`: the bit of a configuration mask that
/// selects `num_contexts`.
const NUM_CONTEXTS: core::ffi::c_long = 1;

/// The contexts a configuration asks for: its `num_contexts` when `mask`
/// selects it, else 0.
fn asked_contexts(config: *const TeamConfig, mask: core::ffi::c_long) -> c_int {
    if mask & NUM_CONTEXTS == 0 || config.is_null() {
        return 0;
    }
    // SAFETY: C passes a pointer to its configuration (not NULL).
    unsafe { config.read() }.num_contexts
}

/// `shmem_team_get_config`: the contexts the team's configuration asked
/// for (any number can be made: none is reserved), under
/// `SHMEM_TEAM_NUM_CONTEXTS`; returns 0, or -1 for `SHMEM_TEAM_INVALID`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_get_config(
    team: Team,
    mask: core::ffi::c_long,
    config: *mut TeamConfig,
) -> c_int {
    if team == INVALID {
        return -1;
    }
    let def = with("shmem_team_get_config", |s| s.team(team));
    if mask & NUM_CONTEXTS != 0 {
        give(
            "shmem_team_get_config",
            config,
            TeamConfig {
                num_contexts: def.contexts,
            },
        );
    }
    0
}

/// `shmem_team_ptr`: `dest` itself for this PE's index in `team`; NULL
/// for any other member (as `shmem_ptr`).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_ptr(team: Team, dest: *const c_void, pe: c_int) -> *mut c_void {
    with("shmem_team_ptr", |s| {
        let def = s.team(team)?;
        s.offset(dest, 1, "dest")?;
        let pe = u32::try_from(pe)
            .ok()
            .filter(|p| *p < def.size)
            .ok_or_else(|| format!("PE {pe} is not in the team (PEs 0 to {})", def.size - 1))?;
        Ok(if def.pe(pe) == s.me {
            dest.cast_mut()
        } else {
            core::ptr::null_mut()
        })
    })
}

/// The members of `team` and this PE's index, for a collective: an error
/// if this PE is not a member.
fn members(s: &State, team: Team) -> Outcome<TeamDef> {
    s.team(team)
}

/// Broadcast of `len` bytes from member `root`'s `source` to every
/// member's `dest` (the root's too).
fn broadcast(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
    root: c_int,
) -> c_int {
    with(routine, |s| {
        let def = members(s, team)?;
        let root = u32::try_from(root)
            .ok()
            .filter(|r| *r < def.size)
            .ok_or_else(|| format!("root {root} is not in the team (PEs 0 to {})", def.size - 1))?;
        let to = s.offset(dest, len, "dest")?;
        let from = s.offset(source, len, "source")?;
        s.team_barrier(team, true)?;
        let mut tmp = vec![0u8; len];
        s.get(def.pe(root), from, &mut tmp)?;
        let me = s.me;
        s.put(me, to, &tmp)?;
        s.team_barrier(team, true)?;
        Ok(0)
    })
}

/// Collect: each member's `len` bytes (which may differ) into every
/// member's `dest`, in member order.
fn collect(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
    fixed: bool,
) -> c_int {
    with(routine, |s| {
        let def = members(s, team)?;
        let from = s.offset(source, len, "source")?;
        let lens: Vec<usize> = if team == WORLD || team == SHARED {
            let n = s.n as usize;
            let mut all = vec![0u8; 4 * n];
            s.dsm
                .rma()
                .comm()
                .allgather(&(len as u32).to_le_bytes(), &mut all)
                .map_err(|e| format!("{e}"))?;
            all.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
                .collect()
        } else {
            s.team_allgather(team, len as u32)?
                .into_iter()
                .map(|l| l as usize)
                .collect()
        };
        if fixed && lens.iter().any(|l| *l != len) {
            return Err(format!(
                "PEs give different element counts ({lens:?}); fcollect needs the same"
            ));
        }
        let total: usize = lens.iter().sum();
        let before: usize = lens[..def.me as usize].iter().sum();
        let to = s.offset(dest, total, "dest")?;
        s.team_barrier(team, true)?;
        let mut tmp = vec![0u8; len];
        let me = s.me;
        s.get(me, from, &mut tmp)?;
        for i in 0..def.size {
            s.put(def.pe(i), to + before as u32, &tmp)?;
        }
        s.team_barrier(team, true)?;
        Ok(0)
    })
}

/// Alltoall: block `j` of each member's `source` to block `me` of member
/// `j`'s `dest`, blocks of `len` bytes.
fn alltoall(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    len: usize,
) -> c_int {
    with(routine, |s| {
        let def = members(s, team)?;
        let n = def.size as usize;
        let from = s.offset(source, len * n, "source")?;
        let to = s.offset(dest, len * n, "dest")?;
        s.team_barrier(team, true)?;
        let mut tmp = vec![0u8; len];
        let me = s.me;
        for j in 0..def.size {
            s.get(me, from + j * len as u32, &mut tmp)?;
            s.put(def.pe(j), to + def.me * len as u32, &tmp)?;
        }
        s.team_barrier(team, true)?;
        Ok(0)
    })
}

/// Strided alltoall of elements of `size` bytes: element `k` of block `j`
/// of each member's `source` (at `(j * nelems + k) * sst`) to element `k`
/// of block `me` of member `j`'s `dest` (at `(me * nelems + k) * dst`).
#[allow(clippy::too_many_arguments)] // OpenSHMEM's parameters, and the element size
fn alltoalls(
    routine: &str,
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    dst: isize,
    sst: isize,
    nelems: usize,
    size: usize,
) -> c_int {
    with(routine, |s| {
        let def = members(s, team)?;
        if dst < 1 || sst < 1 {
            return Err(format!("strides {dst} and {sst} must be at least 1"));
        }
        let n = def.size as usize;
        let (dst, sst) = (dst as usize, sst as usize);
        let span = |stride: usize| {
            if nelems == 0 {
                0
            } else {
                ((n * nelems - 1) * stride + 1) * size
            }
        };
        let from = s.offset(source, span(sst), "source")?;
        let to = s.offset(dest, span(dst), "dest")?;
        s.team_barrier(team, true)?;
        let mut tmp = vec![0u8; size];
        let me = s.me;
        for j in 0..def.size as usize {
            for k in 0..nelems {
                let a = from + ((j * nelems + k) * sst * size) as u32;
                let b = to + ((def.me as usize * nelems + k) * dst * size) as u32;
                s.get(me, a, &mut tmp)?;
                s.put(def.pe(j as u32), b, &tmp)?;
            }
        }
        s.team_barrier(team, true)?;
        Ok(0)
    })
}

/// `shmem_alltoallsmem`: bytes.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_alltoallsmem(
    team: Team,
    dest: *mut c_void,
    source: *const c_void,
    dst: isize,
    sst: isize,
    nelems: usize,
) -> c_int {
    alltoalls(
        "shmem_alltoallsmem",
        team,
        dest,
        source,
        dst,
        sst,
        nelems,
        1,
    )
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
    ($t:ty: $bcast:ident $collect:ident $fcollect:ident $alltoall:ident $alltoalls:ident) => {
        #[doc = concat!("`", stringify!($alltoalls), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $alltoalls(
            team: Team,
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
        ) -> c_int {
            alltoalls(
                stringify!($alltoalls),
                team,
                dest.cast(),
                source.cast(),
                dst,
                sst,
                nelems,
                core::mem::size_of::<$t>(),
            )
        }
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

/// `a op b` of two x87 extended values (`long double`), on the FPU:
/// `Sum` and `Prod` round to 64 bits of mantissa as C's arithmetic does;
/// `Max` and `Min` compare them (a NaN loses to a number, as `fmaxl`).
impl Combine for LongDouble {
    fn combine(op: Red, a: Self, b: Self) -> Self {
        let mut out = a;
        let (pa, pb) = (&raw mut out, &raw const b);
        match op {
            // SAFETY: both pointers are to 10 readable bytes (of 12) of a
            // `long double`; the asm pops everything it pushes.
            Red::Sum => unsafe {
                core::arch::asm!(
                    "fld tbyte ptr [{a}]",
                    "fld tbyte ptr [{b}]",
                    "faddp st(1), st",
                    "fstp tbyte ptr [{a}]",
                    a = in(reg) pa,
                    b = in(reg) pb,
                    out("st(0)") _, out("st(1)") _,
                )
            },
            // SAFETY: as for Sum.
            Red::Prod => unsafe {
                core::arch::asm!(
                    "fld tbyte ptr [{a}]",
                    "fld tbyte ptr [{b}]",
                    "fmulp st(1), st",
                    "fstp tbyte ptr [{a}]",
                    a = in(reg) pa,
                    b = in(reg) pb,
                    out("st(0)") _, out("st(1)") _,
                )
            },
            Red::Max | Red::Min => {
                let status: u16;
                // SAFETY: as for Sum; FUCOMPP (the P54C has no FUCOMIP)
                // compares st(0) (b) with st(1) (a), pops both and sets C0
                // (bit 8 of the status word) when b < a or either is a
                // NaN.
                unsafe {
                    core::arch::asm!(
                        "fld tbyte ptr [{a}]",
                        "fld tbyte ptr [{b}]",
                        "fucompp",
                        "fnstsw ax",
                        a = in(reg) pa,
                        b = in(reg) pb,
                        out("ax") status,
                        out("st(0)") _, out("st(1)") _,
                    )
                };
                let below = status & 0x0100;
                // b < a (or unordered): keep a for Max; b otherwise.
                let b_below = below != 0;
                let keep_a = if op == Red::Max { b_below } else { !b_below };
                return if keep_a || b.is_nan() { a } else { b };
            }
            Red::And | Red::Or | Red::Xor => unreachable!("no bitwise reduction on floats"),
        }
        out
    }
}

impl LongDouble {
    /// Whether the value is a NaN: exponent all ones, mantissa (without
    /// its integer bit) not zero.
    fn is_nan(&self) -> bool {
        let b = &self.0;
        let exponent = u16::from_le_bytes([b[8], b[9]]) & 0x7fff;
        let mantissa = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        exponent == 0x7fff && mantissa << 1 != 0
    }
}

/// `float _Complex` and `double _Complex`: the real part, then the
/// imaginary part.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Complex<T>(T, T);

impl<T: Copy + core::ops::Add<Output = T> + core::ops::Sub<Output = T> + core::ops::Mul<Output = T>>
    Combine for Complex<T>
{
    fn combine(op: Red, a: Self, b: Self) -> Self {
        match op {
            Red::Sum => Complex(a.0 + b.0, a.1 + b.1),
            Red::Prod => Complex(a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0),
            // The tables give complex types sum and prod only.
            _ => unreachable!("complex reductions are sum and prod"),
        }
    }
}

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
        let def = members(s, team)?;
        let size = core::mem::size_of::<T>();
        let len = n * size;
        let from = s.offset(source.cast(), len, "source")?;
        let to = s.offset(dest.cast_const().cast(), len, "dest")?;
        s.team_barrier(team, true)?;
        let mut acc = vec![0u8; len];
        let mut next = vec![0u8; len];
        s.get(def.pe(0), from, &mut acc)?;
        for i in 1..def.size {
            s.get(def.pe(i), from, &mut next)?;
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
        // Every member has read every source before any dest changes
        // (dest may be source).
        s.team_barrier(team, false)?;
        let me = s.me;
        s.put(me, to, &acc)?;
        s.team_barrier(team, true)?;
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
