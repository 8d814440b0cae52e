// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows and one-sided communication over rma, with window memory
//! handed to C as a pointer ([`rma::Rma::pin_part`]).

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use rma::{Completion, Memory, Transfer};

use super::datatypes::{self, Derived, Ty, byte_layout, element_layout, size_of, span, type_of};
use super::groups::{group_of, new_group};
use super::private::{Block, Shadow};
use super::*;

/// `MPI_WIN_NULL`.
const WIN_NULL: c_int = 0;

/// The window `handle` names.
pub(super) fn win_of(state: &State, handle: c_int) -> Result<Window<u8>, Failure> {
    win_of_windows(&state.windows, handle)
}

/// The options window `handle` was made with.
pub(super) fn options_of(state: &State, handle: c_int) -> Result<WindowOptions, Failure> {
    win_exists(state, handle)?;
    Ok(state.windows[(handle - 1) as usize]
        .as_ref()
        .expect("found above")
        .attributes
        .options)
}

/// `Ok` if `handle` names a window.
pub(super) fn win_exists(state: &State, handle: c_int) -> Outcome {
    win_entry_of(&state.windows, handle).map(|_| ())
}

/// The message-based window `handle` names, or `None` if it names a
/// window in shared memory (or none: the calls then fail as for those).
pub(super) fn messages_of(state: &mut State, handle: c_int) -> Option<&mut messages::MsgWin> {
    let i = usize::try_from(handle.checked_sub(1)?).ok()?;
    match state.windows.get_mut(i)? {
        Some(Win {
            path: Path::Messages(m),
            ..
        }) => Some(m),
        _ => None,
    }
}

/// The message-based window `handle` names among `windows`, which
/// [`messages_of`] found.
fn messages_in(windows: &mut [Option<Win>], handle: c_int) -> &mut messages::MsgWin {
    match windows.get_mut((handle - 1) as usize) {
        Some(Some(Win {
            path: Path::Messages(m),
            ..
        })) => m,
        _ => unreachable!("messages_of found a message-based window"),
    }
}

/// The entry of window `handle` among `windows`.
fn win_entry_of(windows: &[Option<Win>], handle: c_int) -> Result<&Win, Failure> {
    handle
        .checked_sub(1)
        .and_then(|i| windows.get(usize::try_from(i).ok()?))
        .and_then(Option::as_ref)
        .ok_or_else(|| Failure::new(Class::Win, format!("{handle} names no window")))
}

/// The window `handle` names among `windows`.
fn win_of_windows(windows: &[Option<Win>], handle: c_int) -> Result<Window<u8>, Failure> {
    match &win_entry_of(windows, handle)?.path {
        Path::Direct(window) => Ok(*window),
        Path::Messages(_) => Err(messages::not_taken(handle)),
    }
}

/// `MPI_Alloc_mem`: memory in this core's part of shared DRAM (its
/// POPSHM), mapped for good at the address it gives
/// ([`rma::Rma::pin_memory`]), so that `MPI_Win_create` can make it a
/// window other cores reach. `size` 0 gives a block of no bytes.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Alloc_mem(size: isize, _info: c_int, baseptr: *mut c_void) -> c_int {
    with_state("MPI_Alloc_mem", codes::comm::WORLD, |state| {
        let bytes = u32::try_from(size)
            .map_err(|_| Failure::new(Class::Arg, format!("size {size}: 0 to 4 GiB")))?;
        let block = Block::take(state, bytes)?;
        let base = block.base();
        state.memories.push((base as usize, block.memory));
        store(baseptr.cast::<*mut c_void>(), base.cast())
    })
}

/// The memory of `MPI_Alloc_mem` that starts at `base`.
fn memory_at(state: &State, base: *const c_void) -> Result<(usize, Memory), Failure> {
    state
        .memories
        .iter()
        .position(|&(at, _)| at == base as usize)
        .map(|i| (i, state.memories[i].1))
        .ok_or_else(|| {
            Failure::new(
                Class::Base,
                format!("{base:p} is not the start of memory from MPI_Alloc_mem"),
            )
        })
}

/// `MPI_Free_mem`: the program's address is gone at once; memory a
/// window still spans or has attached (MPICH's test harness frees it
/// before the window) stays the window's until the window is freed or
/// detaches it, and goes back then ([`free_left_memory`]).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Free_mem(base: *mut c_void) -> c_int {
    with_state("MPI_Free_mem", codes::comm::WORLD, |state| {
        let (i, memory) = memory_at(state, base)?;
        match state.rma.free_mem(memory) {
            Ok(()) => {}
            Err(rma::RmaError::MemoryInUse { .. }) => state.left_memory.push(memory),
            Err(e) => return Err(e.into()),
        }
        state.memories.remove(i);
        Ok(())
    })
}

/// Gives back the memory `MPI_Free_mem` left to windows that no longer
/// use it.
fn free_left_memory(state: &mut State) -> Outcome {
    let mut kept = Vec::new();
    for memory in core::mem::take(&mut state.left_memory) {
        match state.rma.free_mem(memory) {
            Ok(()) => {}
            Err(rma::RmaError::MemoryInUse { .. }) => kept.push(memory),
            Err(e) => {
                state.left_memory = kept;
                return Err(e.into());
            }
        }
    }
    state.left_memory = kept;
    Ok(())
}

/// `MPI_Win_create`: on a whole block of `MPI_Alloc_mem` (its start and
/// its size), or on this rank's whole part of a window made by
/// `MPI_Win_allocate` or `MPI_Win_allocate_shared`, the window is that
/// memory, a second view of it: what origins put through the new window,
/// loads through the other read, after the synchronisation MPI asks for.
/// On any other memory of the program (its stack, statics, heap, part of
/// a block), which is private to its core, the window keeps a public copy
/// in shared DRAM that the window's synchronisation reconciles with the
/// program's bytes ([`super::private`]).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_create(
    base: *mut c_void,
    size: isize,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    win: *mut c_int,
) -> c_int {
    with_state("MPI_Win_create", comm, |state| {
        let bytes = program_memory(base, size)?;
        let whole = memory_at(state, base)
            .ok()
            .map(|(_, memory)| memory)
            .or_else(|| window_part_at(state, base))
            .filter(|memory| memory.len() == bytes);
        let (memory, shadow) = match whole {
            Some(memory) => (memory, None),
            None => {
                let shadow = Shadow::new(state, base.cast(), bytes)?;
                (shadow.memory(), Some(shadow))
            }
        };
        let (window, handle) =
            match make_window(state, Make::Create(memory), (size, disp_unit, info), comm) {
                Ok(made) => made,
                Err(e) => {
                    if let Some(shadow) = shadow {
                        let _ = shadow.free(state);
                    }
                    return Err(e);
                }
            };
        if let Some(shadow) = shadow {
            win_entry(state, handle)?.shadows.push(shadow);
        }
        finish_window(
            state,
            window,
            handle,
            base.cast(),
            core::ptr::null_mut(),
            win,
        )
    })
}

/// The memory of this rank's part of a window made by `MPI_Win_allocate`
/// or `MPI_Win_allocate_shared` whose base is `base`, if one is.
fn window_part_at(state: &State, base: *const c_void) -> Option<Memory> {
    state.windows.iter().flatten().find_map(|w| {
        let Path::Direct(window) = w.path else {
            // A message-based window's memory is on the heap.
            return None;
        };
        let owned = matches!(w.attributes.flavor, FLAVOR_ALLOCATE | FLAVOR_SHARED);
        let at = owned && !base.is_null() && w.attributes.base.cast_const() == base;
        at.then(|| state.rma.window_memory(window).ok().flatten())
            .flatten()
    })
}

/// The bytes of program memory `size` at `base` names: 0 to 4 GiB, and
/// not at a null base unless 0.
fn program_memory(base: *const c_void, size: isize) -> Result<u32, Failure> {
    let bytes = u32::try_from(size)
        .map_err(|_| Failure::new(Class::Arg, format!("size {size}: 0 to 4 GiB")))?;
    if base.is_null() && bytes > 0 {
        return Err(Failure::new(
            Class::Base,
            format!("a null base with size {size} (only a window of 0 bytes may have no base)"),
        ));
    }
    Ok(bytes)
}

/// The window `handle` names, as C holds it.
fn win_entry(state: &mut State, handle: c_int) -> Result<&mut Win, Failure> {
    handle
        .checked_sub(1)
        .and_then(|i| state.windows.get_mut(usize::try_from(i).ok()?))
        .and_then(Option::as_mut)
        .ok_or_else(|| Failure::new(Class::Win, format!("{handle} names no window")))
}

/// Runs `f` on each public copy of program memory window `handle` keeps
/// (none for most windows).
fn each_shadow(state: &mut State, handle: c_int, f: fn(&mut Shadow)) {
    if let Ok(w) = win_entry(state, handle) {
        w.shadows.iter_mut().for_each(f);
    }
}

/// `MPI_Win_create_dynamic`: a window without memory, to which each rank
/// attaches memory from `MPI_Alloc_mem` (`MPI_Win_attach`); an origin
/// reaches it at the address `MPI_Get_address` gives the target
/// (displacement unit 1), after the synchronisation that opens its epoch.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_create_dynamic(info: c_int, comm: c_int, win: *mut c_int) -> c_int {
    with_state("MPI_Win_create_dynamic", comm, |state| {
        let (window, handle) = make_window(state, Make::Dynamic, (0, 1, info), comm)?;
        // Its base is MPI_BOTTOM.
        finish_window(
            state,
            window,
            handle,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            win,
        )
    })
}

/// `MPI_Win_attach`: to this rank's part of a dynamic window, locally, a
/// whole block of `MPI_Alloc_mem` as it is, or any other memory of the
/// program through a public copy ([`super::private`]).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_attach(win: c_int, base: *mut c_void, size: isize) -> c_int {
    with_state("MPI_Win_attach", win_errors(win), |state| {
        let window = win_of(state, win)?;
        let bytes = program_memory(base, size)?;
        let whole = memory_at(state, base)
            .ok()
            .map(|(_, memory)| memory)
            .filter(|memory| memory.len() == bytes);
        // Reached at the program's addresses, as MPI_Get_address gives
        // them.
        let at = base as usize as u32;
        if let Some(memory) = whole {
            return Ok(state.rma.attach_at(window, memory, at)?);
        }
        let shadow = Shadow::new(state, base.cast(), bytes)?;
        if let Err(e) = state.rma.attach_at(window, shadow.memory(), at) {
            let _ = shadow.free(state);
            return Err(e.into());
        }
        win_entry(state, win)?.shadows.push(shadow);
        Ok(())
    })
}

/// `MPI_Win_detach`: memory attached with `MPI_Win_attach`, locally; what
/// others put into program memory reaches it first.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_detach(win: c_int, base: *const c_void) -> c_int {
    with_state("MPI_Win_detach", win_errors(win), |state| {
        let window = win_of(state, win)?;
        let shadows = &mut win_entry(state, win)?.shadows;
        if let Some(i) = shadows
            .iter()
            .position(|s| s.program() == base.cast_mut().cast())
        {
            let mut shadow = shadows.remove(i);
            shadow.pull();
            if let Err(e) = state.rma.detach(window, shadow.memory()) {
                win_entry(state, win)?.shadows.insert(i, shadow);
                return Err(e.into());
            }
            return shadow.free(state);
        }
        let (_, memory) = memory_at(state, base).map_err(|f| {
            Failure::new(
                f.class,
                format!("{}, nor of memory attached to window {win}", f.message),
            )
        })?;
        state.rma.detach(window, memory)?;
        free_left_memory(state)
    })
}

/// `MPI_Get_address`: the byte's address in the program, as in MPICH
/// (`MPI_BOTTOM` is 0). It is also the displacement that reaches the byte
/// in a dynamic window its memory is attached to, whether asked for
/// before or after the attach: `MPI_Win_attach` lists memory at the
/// program's addresses ([`rma::Rma::attach_at`]).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get_address(location: *const c_void, address: *mut isize) -> c_int {
    with_state("MPI_Get_address", codes::comm::WORLD, |_| {
        store(address, location as isize)
    })
}

/// `MPI_Aint_add`: `base` moved by `disp` bytes.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Aint_add(base: isize, disp: isize) -> isize {
    base.wrapping_add(disp)
}

/// `MPI_Aint_diff`: the bytes from `addr2` to `addr1`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Aint_diff(addr1: isize, addr2: isize) -> isize {
    addr1.wrapping_sub(addr2)
}

/// How [`make_window`] makes a window.
#[derive(Clone, Copy)]
enum Make {
    /// `MPI_Win_allocate`.
    Allocate,
    /// `MPI_Win_allocate_shared`.
    Shared,
    /// `MPI_Win_create` on this memory.
    Create(Memory),
    /// `MPI_Win_create_dynamic`.
    Dynamic,
}

/// The communicator of this process alone that stands for
/// `MPI_COMM_SELF` in window calls (rma makes windows on communicators):
/// made locally at the first window on `MPI_COMM_SELF`, with a context of
/// its own, and kept for the next.
fn self_comm(state: &mut State) -> Result<c_int, Failure> {
    if let Some(handle) = state.self_comm {
        return Ok(handle);
    }
    let me = state.rma.rank();
    let context = state.rma.comm().last_context() + 1;
    let comm = state.rma.comm().join(context, alloc::vec![me])?;
    let handle = super::env::new_comm(state, comm);
    state.self_comm = Some(handle);
    Ok(handle)
}

/// Makes a window as `make` says, of `size` bytes per rank with the
/// options of `info` ([`super::info::window_options`]) over `comm`, keeps
/// it, and returns it with its handle.
fn make_window(
    state: &mut State,
    make: Make,
    (size, disp_unit, info): (isize, c_int, c_int),
    comm: c_int,
) -> Result<(Window<u8>, c_int), Failure> {
    let size = u32::try_from(size)
        .map_err(|_| Failure::new(Class::Arg, format!("size {size}: 0 to 4 GiB")))?;
    let unit = u32::try_from(disp_unit)
        .ok()
        .filter(|&u| u > 0)
        .ok_or_else(|| Failure::new(Class::Disp, format!("displacement unit {disp_unit}")))?;
    if messages::wanted(state, info)? {
        return Err(Failure::new(
            Class::InfoValue,
            format!(
                "{}={}: only MPI_Win_allocate makes a message-based window (its memory is the \
                 target's own, which only the target writes)",
                messages::KEY,
                messages::MESSAGES
            ),
        ));
    }
    let hinted = super::info::window_options(state, info)?;
    // A dynamic window's displacements are addresses: rma sets its unit.
    let options = match make {
        Make::Dynamic => hinted,
        _ => hinted.disp_unit(unit),
    };
    let comm = match comm {
        codes::comm::SELF => self_comm(state)?,
        other => other,
    };
    let window = match comm {
        codes::comm::WORLD => match make {
            Make::Allocate => state.rma.allocate::<u8>(size, options)?,
            Make::Shared => state.rma.allocate_shared::<u8>(size, options)?,
            Make::Create(memory) => state.rma.create::<u8>(memory, options)?,
            Make::Dynamic => state.rma.create_dynamic::<u8>(options)?,
        },
        other => {
            let entry = usize::try_from(other - FIRST_COMM)
                .ok()
                .and_then(|i| state.comms.get_mut(i))
                .and_then(Option::as_mut)
                .ok_or_else(|| {
                    Failure::new(Class::Comm, format!("{other} names no communicator"))
                })?;
            let comm = &mut entry.comm;
            match make {
                Make::Allocate => state.rma.allocate_on::<u8>(comm, size, options)?,
                Make::Shared => state.rma.allocate_shared_on::<u8>(comm, size, options)?,
                Make::Create(memory) => state.rma.create_on::<u8>(comm, memory, options)?,
                Make::Dynamic => state.rma.create_dynamic_on::<u8>(comm, options)?,
            }
        }
    };
    state.windows.push(Some(Win {
        path: Path::Direct(window),
        handler: codes::errhandler::FATAL,
        attributes: alloc::boxed::Box::new(Attributes {
            options,
            ..Attributes::default()
        }),
        shadows: Vec::new(),
    }));
    Ok((window, state.windows.len() as c_int))
}

/// The address where `rank`'s part of `window` stays mapped for the
/// program ([`rma::Rma::pin_part`]). Of a contiguous shared window
/// (`alloc_shared_noncontig` not set), the whole block of parts is mapped,
/// as the program may reach every part from any part's address.
fn address_of(state: &mut State, window: Window<u8>, rank: u32) -> Result<*mut u8, Failure> {
    let part = state.rma.pin_part(window, rank)?;
    let (from, len) = state
        .rma
        .contiguous_block(window)?
        .unwrap_or((part.offset, part.len));
    let mapping = crt::platform().shared_dram(part.slot, from, len as usize);
    Ok(mapping.as_ptr().wrapping_add(part.offset as usize))
}

/// Makes a window as `MPI_Win_allocate` or `MPI_Win_allocate_shared` do
/// and writes its base address and handle; a window whose part cannot be
/// mapped is freed again.
fn allocate_and_map(
    state: &mut State,
    (size, disp_unit, info, comm, shared): (isize, c_int, c_int, c_int, bool),
    baseptr: *mut c_void,
    win: *mut c_int,
) -> Outcome {
    let make = if shared { Make::Shared } else { Make::Allocate };
    let (window, handle) = make_window(state, make, (size, disp_unit, info), comm)?;
    let me = state.rma.rank_in(window)?;
    let base = match address_of(state, window, me) {
        Ok(base) => base,
        Err(e) => {
            let _ = state.rma.free(window);
            state.windows[(handle - 1) as usize] = None;
            return Err(e);
        }
    };
    finish_window(state, window, handle, base, baseptr, win)
}

/// Records window `handle`'s attributes (its base address `base`) and
/// writes the base to `baseptr` (unless null) and the handle to `win`.
fn finish_window(
    state: &mut State,
    window: Window<u8>,
    handle: c_int,
    base: *mut u8,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> Outcome {
    let attributes = state.rma.attributes(window)?;
    if let Some(Some(w)) = state.windows.get_mut((handle - 1) as usize) {
        let options = w.attributes.options;
        *w.attributes = Attributes {
            options,
            base: base.cast(),
            size: attributes.size as isize,
            disp_unit: attributes.disp_unit as c_int,
            flavor: match attributes.flavor {
                Flavor::Create => FLAVOR_CREATE,
                Flavor::Allocate => FLAVOR_ALLOCATE,
                Flavor::Dynamic => FLAVOR_DYNAMIC,
                Flavor::Shared => FLAVOR_SHARED,
            },
            model: match attributes.model {
                MemoryModel::Separate => SEPARATE,
                MemoryModel::Unified => UNIFIED,
            },
        };
    }
    if !baseptr.is_null() {
        store(baseptr.cast::<*mut c_void>(), base.cast())?;
    }
    store(win, handle)
}

/// A window's attributes, kept where `MPI_Win_get_attr` points C, and
/// the options it was made with.
#[derive(Debug)]
pub(super) struct Attributes {
    options: WindowOptions,
    base: *mut c_void,
    size: isize,
    disp_unit: c_int,
    flavor: c_int,
    model: c_int,
}

impl Default for Attributes {
    fn default() -> Self {
        Self {
            options: WindowOptions::new(),
            base: core::ptr::null_mut(),
            size: 0,
            disp_unit: 1,
            flavor: FLAVOR_ALLOCATE,
            model: SEPARATE,
        }
    }
}

use codes::win::{
    BASE as WIN_BASE, CREATE_FLAVOR as WIN_CREATE_FLAVOR, DISP_UNIT as WIN_DISP_UNIT,
    FLAVOR_ALLOCATE, FLAVOR_CREATE, FLAVOR_DYNAMIC, FLAVOR_SHARED, MODEL as WIN_MODEL, SEPARATE,
    SIZE as WIN_SIZE, UNIFIED,
};

/// `MPI_Win_get_attr` with the predefined keys: `attribute_val` gets a
/// pointer to the value (for `MPI_WIN_BASE`, the base address itself), as
/// MPI says.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_get_attr(
    win: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    with_state("MPI_Win_get_attr", win_errors(win), |state| {
        win_exists(state, win)?;
        let w = state.windows[(win - 1) as usize]
            .as_ref()
            .expect("found above");
        let a = &*w.attributes;
        let value: *mut c_void = match keyval {
            WIN_BASE => a.base,
            WIN_SIZE => core::ptr::from_ref(&a.size).cast_mut().cast(),
            WIN_DISP_UNIT => core::ptr::from_ref(&a.disp_unit).cast_mut().cast(),
            WIN_CREATE_FLAVOR => core::ptr::from_ref(&a.flavor).cast_mut().cast(),
            WIN_MODEL => core::ptr::from_ref(&a.model).cast_mut().cast(),
            other => match attrs::win_attr(state, win, other)? {
                Some(value) => value,
                None => return store(flag, 0),
            },
        };
        store(attribute_val.cast::<*mut c_void>(), value)?;
        store(flag, 1)
    })
}

/// `MPI_Win_allocate`: a window of `size` bytes in this core's part of
/// shared DRAM; `baseptr` gets its address, where the program loads and
/// stores its part (MPI's separate memory model: what others put shows
/// after the synchronisation that ends their epoch).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_allocate(
    size: isize,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> c_int {
    with_state("MPI_Win_allocate", comm, |state| {
        if messages::wanted(state, info)? {
            return allocate_messages(state, (size, disp_unit, info, comm), baseptr, win);
        }
        allocate_and_map(state, (size, disp_unit, info, comm, false), baseptr, win)
    })
}

/// `MPI_Win_allocate` of a message-based window ([`messages`]): the
/// window's bytes are the layer's buffer on this process's heap.
fn allocate_messages(
    state: &mut State,
    (size, disp_unit, info, comm): (isize, c_int, c_int, c_int),
    baseptr: *mut c_void,
    win: *mut c_int,
) -> Outcome {
    let bytes = u32::try_from(size)
        .map_err(|_| Failure::new(Class::Arg, format!("size {size}: 0 to 4 GiB")))?;
    let unit = u32::try_from(disp_unit)
        .ok()
        .filter(|&u| u > 0)
        .ok_or_else(|| Failure::new(Class::Disp, format!("displacement unit {disp_unit}")))?;
    let options = super::info::window_options(state, info)?;
    let comm = match comm {
        codes::comm::SELF => self_comm(state)?,
        other => other,
    };
    let mut made = match comm_of(state, comm)? {
        Target::Comm(c) => messages::MsgWin::make(c, bytes, unit)?,
        Target::Own => unreachable!("MPI_COMM_SELF is a communicator of its own here"),
    };
    let base = made.base()?;
    state.windows.push(Some(Win {
        path: Path::Messages(alloc::boxed::Box::new(made)),
        handler: codes::errhandler::FATAL,
        attributes: alloc::boxed::Box::new(Attributes {
            options,
            base: base.cast(),
            size: bytes as isize,
            disp_unit,
            flavor: FLAVOR_ALLOCATE,
            model: SEPARATE,
        }),
        shadows: Vec::new(),
    }));
    let handle = state.windows.len() as c_int;
    if !baseptr.is_null() {
        store(baseptr.cast::<*mut c_void>(), base.cast())?;
    }
    store(win, handle)
}

/// `MPI_Win_allocate_shared`: as `MPI_Win_allocate`, and every process
/// reaches every part by address (`MPI_Win_shared_query`): on the SCC
/// every core reaches every core's shared DRAM. Stores show to others
/// after `MPI_Win_sync` on both sides (and a synchronisation between).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_allocate_shared(
    size: isize,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> c_int {
    with_state("MPI_Win_allocate_shared", comm, |state| {
        allocate_and_map(state, (size, disp_unit, info, comm, true), baseptr, win)
    })
}

/// `MPI_Win_shared_query`: the size, displacement unit and address of
/// `rank`'s part of a shared window; with `MPI_PROC_NULL`, of the part of
/// the lowest rank whose size is not 0 (MPI-3.1 11.2.3); a part of 0
/// bytes has a null address. Of a window of
/// another flavor, whose parts are not reached by loads and stores: size
/// 0, displacement unit 1 and a null address, as MPI-4.0 12.2.3 answers
/// for memory that is not shared.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_shared_query(
    win: c_int,
    rank: c_int,
    size: *mut isize,
    disp_unit: *mut c_int,
    baseptr: *mut c_void,
) -> c_int {
    with_state("MPI_Win_shared_query", win_errors(win), |state| {
        let ranks = match messages_of(state, win) {
            Some(m) => m.group().size(),
            None => state.rma.group(win_of(state, win)?)?.size(),
        };
        if rank != PROC_NULL && u32::try_from(rank).map_or(true, |r| r >= ranks) {
            return Err(Failure::new(
                Class::Rank,
                format!("rank {rank}: the window's group has {ranks} (or MPI_PROC_NULL)"),
            ));
        }
        let shared = state.windows[(win - 1) as usize]
            .as_ref()
            .is_some_and(|w| w.attributes.flavor == FLAVOR_SHARED);
        if !shared {
            // No process reaches another's part of this window by loads
            // and stores: MPI's answer for memory not shared.
            store(size, 0)?;
            store(disp_unit, 1)?;
            return store(baseptr.cast::<*mut c_void>(), core::ptr::null_mut());
        }
        let window = win_of(state, win)?;
        // MPI_PROC_NULL: the part of the lowest rank whose size is not 0,
        // else rank 0's (of 0 bytes).
        let rank = match u32::try_from(rank) {
            Ok(r) => r,
            Err(_) => (0..ranks)
                .find(|&r| state.rma.shared_query(window, r).is_ok_and(|p| p.size > 0))
                .unwrap_or(0),
        };
        let part = state.rma.shared_query(window, rank)?;
        // A part of 0 bytes has no address (MPICH answers NULL too).
        let base = match part.size {
            0 => core::ptr::null_mut(),
            _ => address_of(state, window, rank)?,
        };
        store(size, part.size as isize)?;
        store(disp_unit, part.disp_unit as c_int)?;
        store(baseptr.cast::<*mut c_void>(), base.cast())
    })
}

/// `MPI_PROC_NULL`.
const PROC_NULL: c_int = -1;

/// `MPI_Win_free`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_free(win: *mut c_int) -> c_int {
    if win.is_null() {
        return finish(
            "MPI_Win_free",
            codes::comm::WORLD,
            Err(Failure::new(Class::Arg, "a null window pointer")),
        );
    }
    // SAFETY: C passes a pointer to its window handle.
    let handle = unsafe { win.read() };
    let code = attrs::free_window_attributes(handle);
    if code != codes::SUCCESS {
        return code;
    }
    with_state("MPI_Win_free", win_errors(handle), |state| {
        if messages_of(state, handle).is_some() {
            let Some(Some(Win {
                path: Path::Messages(m),
                handler,
                ..
            })) = state
                .windows
                .get_mut((handle - 1) as usize)
                .map(Option::take)
            else {
                unreachable!("a message-based window was found above");
            };
            super::errhandlers::release(state, handler);
            m.free()?;
            return store(win, WIN_NULL);
        }
        let window = win_of(state, handle)?;
        state.rma.free(window)?;
        let w = state.windows[(handle - 1) as usize]
            .take()
            .expect("found above");
        super::errhandlers::release(state, w.handler);
        for mut shadow in w.shadows {
            shadow.pull();
            shadow.free(state)?;
        }
        free_left_memory(state)?;
        store(win, WIN_NULL)
    })
}

/// `MPI_Win_set_errhandler`: `MPI_ERRORS_ARE_FATAL`, `MPI_ERRORS_RETURN`
/// or a handler of `MPI_Win_create_errhandler`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_set_errhandler(win: c_int, errhandler: c_int) -> c_int {
    with_state("MPI_Win_set_errhandler", win_errors(win), |state| {
        win_exists(state, win)?;
        super::errhandlers::check(state, errhandler)?;
        super::errhandlers::hold(state, errhandler);
        let old = match state.windows.get_mut((win - 1) as usize) {
            Some(Some(w)) => core::mem::replace(&mut w.handler, errhandler),
            _ => codes::errhandler::FATAL,
        };
        super::errhandlers::release(state, old);
        Ok(())
    })
}

/// `MPI_Win_get_group`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_get_group(win: c_int, group: *mut c_int) -> c_int {
    with_state("MPI_Win_get_group", win_errors(win), |state| {
        if let Some(m) = messages_of(state, win) {
            let g = m.group();
            let handle = new_group(state, g);
            return store(group, handle);
        }
        let window = win_of(state, win)?;
        let g = state.rma.group(window)?;
        let handle = new_group(state, g);
        store(group, handle)
    })
}

/// MPI's assertion bits as rma's.
fn assert_of(bits: c_int) -> Result<Assert, Failure> {
    const BITS: [(c_int, Assert); 5] = [
        (1024, Assert::NOCHECK),
        (2048, Assert::NOSTORE),
        (4096, Assert::NOPUT),
        (8192, Assert::NOPRECEDE),
        (16384, Assert::NOSUCCEED),
    ];
    let mut assert = Assert::NONE;
    let mut left = bits;
    for (bit, a) in BITS {
        if bits & bit != 0 {
            assert = assert | a;
            left &= !bit;
        }
    }
    if left != 0 {
        return Err(Failure::new(
            Class::Assert,
            format!("assertion bits {left:#x} are not MPI_MODE_*"),
        ));
    }
    Ok(assert)
}

/// Runs `f` on window `win`, or `m` if it is message-based, under its
/// error handler.
fn on_window(
    call: &str,
    win: c_int,
    f: impl FnOnce(&mut Rma<'static, Platform>, Window<u8>) -> Result<(), RmaError>,
    m: impl FnOnce(&mut messages::MsgWin) -> Outcome,
) -> c_int {
    with_state(call, win_errors(win), |state| {
        if let Some(w) = messages_of(state, win) {
            return m(w);
        }
        let window = win_of(state, win)?;
        Ok(f(&mut state.rma, window)?)
    })
}

/// `MPI_Win_fence`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_fence(assert: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_fence", win_errors(win), |state| {
        let a = assert_of(assert)?;
        if let Some(m) = messages_of(state, win) {
            return m.fence();
        }
        let w = win_of(state, win)?;
        each_shadow(state, win, Shadow::publish);
        state.rma.fence(w, a)?;
        each_shadow(state, win, Shadow::pull);
        Ok(())
    })
}

/// `MPI_Win_post`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_post(group: c_int, assert: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_post", win_errors(win), |state| {
        let (g, a) = (group_of(state, group)?, assert_of(assert)?);
        if let Some(m) = messages_of(state, win) {
            return m.post(&g);
        }
        let w = win_of(state, win)?;
        each_shadow(state, win, Shadow::publish);
        Ok(state.rma.post(w, &g, a)?)
    })
}

/// `MPI_Win_start`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_start(group: c_int, assert: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_start", win_errors(win), |state| {
        let (g, a) = (group_of(state, group)?, assert_of(assert)?);
        if let Some(m) = messages_of(state, win) {
            return m.start(&g);
        }
        let w = win_of(state, win)?;
        Ok(state.rma.start(w, &g, a)?)
    })
}

/// `MPI_Win_complete`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_complete(win: c_int) -> c_int {
    on_window(
        "MPI_Win_complete",
        win,
        |rma, w| rma.complete(w),
        |m| m.complete(),
    )
}

/// `MPI_Win_wait`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_wait(win: c_int) -> c_int {
    with_state("MPI_Win_wait", win_errors(win), |state| {
        if let Some(m) = messages_of(state, win) {
            return m.wait();
        }
        let w = win_of(state, win)?;
        state.rma.wait(w)?;
        each_shadow(state, win, Shadow::pull);
        Ok(())
    })
}

/// `MPI_Win_test`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_test(win: c_int, flag: *mut c_int) -> c_int {
    with_state("MPI_Win_test", win_errors(win), |state| {
        let w = win_of(state, win)?;
        let done = state.rma.test(w)?;
        if done {
            each_shadow(state, win, Shadow::pull);
        }
        store(flag, c_int::from(done))
    })
}

/// `MPI_LOCK_EXCLUSIVE` and `MPI_LOCK_SHARED`.
fn lock_type(ty: c_int) -> Result<LockType, Failure> {
    match ty {
        234 => Ok(LockType::Exclusive),
        235 => Ok(LockType::Shared),
        other => Err(Failure::new(
            Class::Arg,
            format!("lock type {other} is not MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED"),
        )),
    }
}

/// A target rank from C: `MPI_PROC_NULL` is rma's.
fn target_of(rank: c_int) -> Result<u32, Failure> {
    match rank {
        -1 => Ok(rma::PROC_NULL),
        r => u32::try_from(r).map_err(|_| Failure::new(Class::Rank, format!("rank {r}"))),
    }
}

/// `MPI_Win_lock`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_lock(lock: c_int, rank: c_int, assert: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_lock", win_errors(win), |state| {
        let (ty, a) = (lock_type(lock)?, assert_of(assert)?);
        if let Some(m) = messages_of(state, win) {
            return m.lock(ty, rank);
        }
        let (w, t) = (win_of(state, win)?, target_of(rank)?);
        state.rma.lock(w, ty, t, a)?;
        each_shadow(state, win, Shadow::pull);
        Ok(())
    })
}

/// `MPI_Win_unlock`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_unlock(rank: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_unlock", win_errors(win), |state| {
        if let Some(m) = messages_of(state, win) {
            return m.unlock(rank);
        }
        let (t, w) = (target_of(rank)?, win_of(state, win)?);
        each_shadow(state, win, Shadow::publish);
        Ok(state.rma.unlock(w, t)?)
    })
}

/// `MPI_Win_lock_all`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_lock_all(assert: c_int, win: c_int) -> c_int {
    with_state("MPI_Win_lock_all", win_errors(win), |state| {
        let a = assert_of(assert)?;
        if let Some(m) = messages_of(state, win) {
            return m.lock_all();
        }
        let w = win_of(state, win)?;
        state.rma.lock_all(w, a)?;
        each_shadow(state, win, Shadow::pull);
        Ok(())
    })
}

/// `MPI_Win_unlock_all`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_unlock_all(win: c_int) -> c_int {
    with_state("MPI_Win_unlock_all", win_errors(win), |state| {
        if let Some(m) = messages_of(state, win) {
            return m.unlock_all();
        }
        let w = win_of(state, win)?;
        each_shadow(state, win, Shadow::publish);
        Ok(state.rma.unlock_all(w)?)
    })
}

/// `MPI_Win_flush`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_flush(rank: c_int, win: c_int) -> c_int {
    match target_of(rank) {
        Ok(t) => on_window(
            "MPI_Win_flush",
            win,
            |rma, w| rma.flush(w, t),
            |m| m.flush(rank),
        ),
        Err(f) => finish("MPI_Win_flush", win_errors(win), Err(f)),
    }
}

/// `MPI_Win_flush_local`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_flush_local(rank: c_int, win: c_int) -> c_int {
    match target_of(rank) {
        Ok(t) => on_window(
            "MPI_Win_flush_local",
            win,
            |rma, w| rma.flush_local(w, t),
            |m| m.flush(rank),
        ),
        Err(f) => finish("MPI_Win_flush_local", win_errors(win), Err(f)),
    }
}

/// `MPI_Win_flush_all`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_flush_all(win: c_int) -> c_int {
    on_window(
        "MPI_Win_flush_all",
        win,
        |rma, w| rma.flush_all(w),
        |m| m.flush_all(),
    )
}

/// `MPI_Win_flush_local_all`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_flush_local_all(win: c_int) -> c_int {
    on_window(
        "MPI_Win_flush_local_all",
        win,
        |rma, w| rma.flush_local_all(w),
        |m| m.flush_all(),
    )
}

/// `MPI_Win_sync`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_sync(win: c_int) -> c_int {
    with_state("MPI_Win_sync", win_errors(win), |state| {
        if let Some(m) = messages_of(state, win) {
            return m.sync();
        }
        let w = win_of(state, win)?;
        each_shadow(state, win, Shadow::publish);
        state.rma.sync(w)?;
        each_shadow(state, win, Shadow::pull);
        Ok(())
    })
}

/// A target displacement of window `win` (checked to exist) from C: for a
/// dynamic window an address `MPI_Get_address` gave (its bits: an address
/// above 2 GiB is a negative `MPI_Aint`), never `MPI_BOTTOM`.
fn disp_in(windows: &[Option<Win>], win: c_int, disp: isize) -> Result<u32, Failure> {
    let dynamic = win
        .checked_sub(1)
        .and_then(|i| windows.get(usize::try_from(i).ok()?))
        .and_then(Option::as_ref)
        .is_some_and(|w| w.attributes.flavor == FLAVOR_DYNAMIC);
    if !dynamic {
        return disp_of(disp);
    }
    match disp as usize as u32 {
        0 => Err(Failure::new(
            Class::Disp,
            "address 0 (MPI_BOTTOM) in a dynamic window: no memory has it (MPI_Get_address \
             gives the addresses to use)",
        )),
        address => Ok(address),
    }
}

/// A displacement from C.
fn disp_of(disp: isize) -> Result<u32, Failure> {
    u32::try_from(disp)
        .map_err(|_| Failure::new(Class::Disp, format!("target displacement {disp}")))
}

/// Both types of a transfer, and the bytes it moves, checked to match.
fn typed_transfer<'s>(
    types: &'s [Option<Derived>],
    count: c_int,
    ty: c_int,
    tcount: c_int,
    tty: c_int,
) -> Result<(Ty<'s>, Ty<'s>), Failure> {
    let (o, t) = (type_of(types, ty)?, type_of(types, tty)?);
    let (len, tlen) = (size_of(&o, count)?, size_of(&t, tcount)?);
    if len != tlen {
        return Err(Failure::new(
            Class::Count,
            format!(
                "the origin has {len} bytes ({count} of type {ty}), the target {tlen} ({tcount} of type {tty})"
            ),
        ));
    }
    Ok((o, t))
}

/// A put as `MPI_Put` and `MPI_Rput` make it, any committed datatypes at
/// either side; with `request`, rma's request for it (in a
/// passive-target epoch).
#[allow(clippy::too_many_arguments)] // MPI_Put's, and whether a request
fn put(
    state: &mut State,
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    (tcount, tty, win): (c_int, c_int, c_int),
    request: bool,
) -> Result<Option<rma::Request>, Failure> {
    let (o, t) = typed_transfer(&state.types, count, ty, tcount, tty)?;
    let (w, target, d) = (
        win_of_windows(&state.windows, win)?,
        target_of(rank)?,
        disp_in(&state.windows, win, disp)?,
    );
    let rma = &mut state.rma;
    let completion = completion_of(request);
    if let (Some(b), Some(_)) = (o.plain(), t.plain()) {
        // SAFETY: MPI's origin buffer of `count` elements.
        let data = unsafe { input(origin, bytes_of(count, b)?) }?;
        let transfer = Transfer::contiguous(w, target, d).completing(completion);
        return Ok(rma.put_with(transfer, data)?);
    }
    let (ol, tl) = (byte_layout(&o)?, byte_layout(&t)?);
    let pieces = datatypes::pieces(&ol, count)
        .ok()
        .filter(|_| !origin.is_null());
    let Some(pieces) = pieces else {
        // The type reaches below the buffer, or the buffer is MPI_BOTTOM:
        // the bytes go packed, picked at their addresses.
        let picked = datatypes::addressed_pieces(origin, &ol, count)?;
        // SAFETY: MPI's origin buffer holds every byte its type picks.
        let packed = unsafe { datatypes::gather_addressed(&picked) }?;
        let whole = rma::Datatype::<u8>::element().commit()?;
        let (ol, tl) = (whole.times(packed.len() as u32), tl.times(tcount as u32));
        let transfer = Transfer::typed(w, target, d, ol, tl).completing(completion);
        return Ok(rma.put_with(transfer, &packed)?);
    };
    // SAFETY: MPI's origin buffer holds every byte its type picks.
    let data = unsafe { input(origin, span(&pieces)) }?;
    let (ol, tl) = (ol.times(count as u32), tl.times(tcount as u32));
    let transfer = Transfer::typed(w, target, d, ol, tl).completing(completion);
    Ok(rma.put_with(transfer, data)?)
}

/// A get as `MPI_Get` and `MPI_Rget` make it (see [`put`]). The bytes are
/// in the buffer when the call returns already (MPI promises them at the
/// end of the epoch, or when the request completes).
#[allow(clippy::too_many_arguments)] // MPI_Get's, and whether a request
fn get(
    state: &mut State,
    origin: *mut c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    (tcount, tty, win): (c_int, c_int, c_int),
    request: bool,
) -> Result<Option<rma::Request>, Failure> {
    let (o, t) = typed_transfer(&state.types, count, ty, tcount, tty)?;
    let (w, target, d) = (
        win_of_windows(&state.windows, win)?,
        target_of(rank)?,
        disp_in(&state.windows, win, disp)?,
    );
    let rma = &mut state.rma;
    let completion = completion_of(request);
    if let (Some(b), Some(_)) = (o.plain(), t.plain()) {
        // SAFETY: MPI's origin buffer of `count` elements.
        let buf = unsafe { output(origin, bytes_of(count, b)?) }?;
        let transfer = Transfer::contiguous(w, target, d).completing(completion);
        return Ok(rma.get_with(transfer, buf)?);
    }
    let (ol, tl) = (byte_layout(&o)?, byte_layout(&t)?);
    let pieces = datatypes::pieces(&ol, count)
        .ok()
        .filter(|_| !origin.is_null());
    let Some(pieces) = pieces else {
        // As in `put`: the bytes arrive packed, then go to their addresses
        // (they are in place when the call returns, as below).
        let picked = datatypes::addressed_pieces(origin, &ol, count)?;
        let mut packed = vec![0; picked.iter().map(|&(_, l)| l).sum()];
        let whole = rma::Datatype::<u8>::element().commit()?;
        let (ol, tl) = (whole.times(packed.len() as u32), tl.times(tcount as u32));
        let transfer = Transfer::typed(w, target, d, ol, tl).completing(completion);
        let r = rma.get_with(transfer, &mut packed)?;
        // SAFETY: MPI's origin buffer holds every byte its type picks.
        unsafe { datatypes::scatter_addressed(&packed, &picked) };
        return Ok(r);
    };
    // SAFETY: MPI's origin buffer holds every byte its type picks.
    let buf = unsafe { output(origin, span(&pieces)) }?;
    let (ol, tl) = (ol.times(count as u32), tl.times(tcount as u32));
    let transfer = Transfer::typed(w, target, d, ol, tl).completing(completion);
    Ok(rma.get_with(transfer, buf)?)
}

/// How an operation completes: as a request for the `MPI_R*` calls.
fn completion_of(request: bool) -> Completion {
    if request {
        Completion::Request
    } else {
        Completion::Blocking
    }
}

/// `MPI_Put`: any committed datatypes at either side.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Put(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    win: c_int,
) -> c_int {
    with_state("MPI_Put", win_errors(win), |state| {
        if messages_of(state, win).is_some() {
            let o = datatypes::type_of(&state.types, ty)?;
            let t = datatypes::type_of(&state.types, tty)?;
            let m = messages_in(&mut state.windows, win);
            return m.put((origin, count, &o), rank, disp, (tcount, &t));
        }
        let target = (tcount, tty, win);
        put(state, origin, count, ty, rank, disp, target, false).map(drop)
    })
}

/// `MPI_Get`: any committed datatypes at either side.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get(
    origin: *mut c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    win: c_int,
) -> c_int {
    with_state("MPI_Get", win_errors(win), |state| {
        if messages_of(state, win).is_some() {
            let o = datatypes::type_of(&state.types, ty)?;
            let t = datatypes::type_of(&state.types, tty)?;
            let m = messages_in(&mut state.windows, win);
            return m.get((origin, count, &o), rank, disp, (tcount, &t));
        }
        let target = (tcount, tty, win);
        get(state, origin, count, ty, rank, disp, target, false).map(drop)
    })
}

/// Keeps rma's request `r` of a request-based call and writes its handle.
fn keep_request(
    state: &mut State,
    win: c_int,
    r: Option<rma::Request>,
    request: *mut c_int,
) -> Outcome {
    let r = r.ok_or_else(|| Failure::new(Class::Intern, "no request for a request-based call"))?;
    let w = win_of(state, win)?;
    let handle = super::p2p::keep_rma_request(state, w, r);
    store(request, handle)
}

/// `MPI_Rput` (any committed datatypes), in a passive-target epoch:
/// complete when it returns; its request is retired by the wait or test
/// calls.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Rput(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Rput", win_errors(win), |state| {
        let target = (tcount, tty, win);
        let r = put(state, origin, count, ty, rank, disp, target, true)?;
        keep_request(state, win, r, request)
    })
}

/// `MPI_Rget` (any committed datatypes), in a passive-target epoch: the
/// data is in the buffer when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Rget(
    origin: *mut c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Rget", win_errors(win), |state| {
        let target = (tcount, tty, win);
        let r = get(state, origin, count, ty, rank, disp, target, true)?;
        keep_request(state, win, r, request)
    })
}

/// rma's accumulate operation for handle `op`: a predefined one, as MPI
/// says (an operation of `MPI_Op_create` reduces, it does not accumulate).
fn accumulate_op(op: c_int) -> Result<AccumulateOp, Failure> {
    // MAXLOC and MINLOC combine the pair types (rma refuses them on
    // others).
    match operation(op) {
        Ok(Op::Maxloc) => return Ok(AccumulateOp::MaxLoc),
        Ok(Op::Minloc) => return Ok(AccumulateOp::MinLoc),
        _ => {}
    }
    let op = operation(op).map_err(|f| {
        Failure::new(
            f.class,
            format!(
                "{}: one-sided accumulates take predefined operations only",
                f.message
            ),
        )
    })?;
    accumulate_op_of(op)
}

/// An accumulate as `MPI_Accumulate` and `MPI_Raccumulate` make it: any
/// committed datatypes whose elements share one predefined type, and a
/// predefined operation; with `request`, rma's request for it (in a
/// passive-target epoch).
#[allow(clippy::too_many_arguments)] // MPI_Accumulate's, and whether a request
fn accumulate(
    state: &mut State,
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    (tcount, tty, win): (c_int, c_int, c_int),
    op: c_int,
    request: bool,
) -> Result<Option<rma::Request>, Failure> {
    datatypes::refuse_mixed(&state.types, ty, "origin")?;
    datatypes::refuse_mixed(&state.types, tty, "target")?;
    let (o, t) = typed_transfer(&state.types, count, ty, tcount, tty)?;
    let op = accumulate_op(op)?;
    let (w, target, d) = (
        win_of_windows(&state.windows, win)?,
        target_of(rank)?,
        disp_in(&state.windows, win, disp)?,
    );
    let base = o.base();
    // Types that move nothing need not match (MPICH's badrma).
    let moves = size_of(&o, count)? > 0 || size_of(&t, tcount)? > 0;
    if t.base() != base && moves {
        return Err(Failure::new(
            Class::Type,
            format!(
                "the origin's elements are {}, the target's {}",
                base.name(),
                t.base().name()
            ),
        ));
    }
    if let (Some(b), Some(_)) = (o.plain(), t.plain()) {
        // SAFETY: MPI's origin buffer of `count` elements.
        let data = unsafe { input(origin, bytes_of(count, b)?) }?;
        return as_accumulable!(base.element(), base, T => {
            let (w, data) = (w.retype::<T>(), elements::<T>(data)?);
            let transfer = Transfer::contiguous(w, target, d).completing(completion_of(request));
            Ok(state.rma.accumulate_with(transfer, &data, op)?)
        });
    }
    as_accumulable!(base.element(), base, T => {
        let (ol, tl) = (element_layout::<T>(&o, count)?, element_layout::<T>(&t, tcount)?);
        let reach = span(&datatypes::pieces_of(&o, count)?);
        // SAFETY: MPI's origin buffer holds every byte its type picks.
        let data = elements::<T>(unsafe { input(origin, reach) }?)?;
        let w = w.retype::<T>();
        let transfer = Transfer::typed(w, target, d, ol.times(1), tl.times(1))
            .completing(completion_of(request));
        Ok(state.rma.accumulate_with(transfer, &data, op)?)
    })
}

/// `MPI_Accumulate`: any committed datatypes whose elements share one
/// predefined type, and a predefined operation.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Accumulate(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    op: c_int,
    win: c_int,
) -> c_int {
    with_state("MPI_Accumulate", win_errors(win), |state| {
        if messages_of(state, win).is_some() {
            let o = datatypes::type_of(&state.types, ty)?;
            let t = datatypes::type_of(&state.types, tty)?;
            let m = messages_in(&mut state.windows, win);
            return m.accumulate((origin, count, &o), rank, disp, (tcount, &t), op);
        }
        let target = (tcount, tty, win);
        accumulate(state, origin, count, ty, rank, disp, target, op, false).map(drop)
    })
}

/// `MPI_Raccumulate`: `MPI_Accumulate` in a passive-target epoch, complete
/// when it returns; its request is retired by the wait or test calls.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Raccumulate(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    op: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Raccumulate", win_errors(win), |state| {
        let target = (tcount, tty, win);
        let r = accumulate(state, origin, count, ty, rank, disp, target, op, true)?;
        keep_request(state, win, r, request)
    })
}

/// A get-accumulate as `MPI_Get_accumulate` and `MPI_Rget_accumulate`
/// make it: any committed datatypes at the origin, the result and the
/// target, whose elements share one predefined type; the result holds as
/// many elements as the target (and the origin, but with `MPI_NO_OP`,
/// which does not read it). With `request`, rma's request for it.
#[allow(clippy::too_many_arguments)] // MPI_Get_accumulate's, and whether a request
fn get_accumulate(
    state: &mut State,
    (origin, count, ty): (*const c_void, c_int, c_int),
    (result, rcount, rty): (*mut c_void, c_int, c_int),
    rank: c_int,
    disp: isize,
    (tcount, tty, win): (c_int, c_int, c_int),
    op: c_int,
    request: bool,
) -> Result<Option<rma::Request>, Failure> {
    let op = accumulate_op(op)?;
    datatypes::refuse_mixed(&state.types, rty, "result")?;
    datatypes::refuse_mixed(&state.types, tty, "target")?;
    if op != AccumulateOp::NoOp {
        datatypes::refuse_mixed(&state.types, ty, "origin")?;
    }
    let (r, t) = typed_transfer(&state.types, rcount, rty, tcount, tty)?;
    // With MPI_NO_OP the origin is not read (its count may be 0).
    let o = if op == AccumulateOp::NoOp {
        None
    } else {
        Some(typed_transfer(&state.types, count, ty, tcount, tty)?.0)
    };
    let base = t.base();
    // Types that move nothing need not match (MPICH's badrma).
    let moves = size_of(&t, tcount)? > 0 || size_of(&r, rcount)? > 0;
    for (what, other) in [("result", Some(&r)), ("origin", o.as_ref())] {
        if let Some(other) = other
            && other.base() != base
            && moves
        {
            return Err(Failure::new(
                Class::Type,
                format!(
                    "the {what}'s elements are {}, the target's {}",
                    other.base().name(),
                    base.name()
                ),
            ));
        }
    }
    let (w, target, d) = (
        win_of_windows(&state.windows, win)?,
        target_of(rank)?,
        disp_in(&state.windows, win, disp)?,
    );
    let plain = r.plain().is_some() && t.plain().is_some();
    if plain && o.as_ref().is_none_or(|o| o.plain().is_some()) {
        let len = size_of(&t, tcount)?;
        let data_len = if o.is_some() { len } else { 0 };
        // SAFETY: MPI's origin buffer of `count` elements.
        let data = unsafe { input(origin, data_len) }?;
        // SAFETY: MPI's result buffer of `rcount` elements.
        let out = unsafe { output(result, len) }?;
        return as_accumulable!(base.element(), base, T => {
            let origin: Vec<T> = match o {
                Some(_) => elements::<T>(data)?,
                None => zeros::<T>(len)?,
            };
            let mut back: Vec<T> = zeros::<T>(len)?;
            let w = w.retype::<T>();
            let transfer = Transfer::contiguous(w, target, d).completing(completion_of(request));
            let r = state.rma.get_accumulate_with(transfer, &origin, &mut back, None, op)?;
            write_back(&back, out);
            Ok(r)
        });
    }
    as_accumulable!(base.element(), base, T => {
        let (rl, tl) = (element_layout::<T>(&r, rcount)?, element_layout::<T>(&t, tcount)?);
        let (data, ol) = match &o {
            Some(o) => {
                let reach = span(&datatypes::pieces_of(o, count)?);
                // SAFETY: MPI's origin buffer holds every byte its type picks.
                let data = elements::<T>(unsafe { input(origin, reach) }?)?;
                (data, Some(element_layout::<T>(o, count)?))
            }
            None => (Vec::new(), None),
        };
        let picked = datatypes::pieces_of(&r, rcount)?;
        let reach = span(&picked);
        // SAFETY: MPI's result buffer holds every byte its type picks,
        // this call's alone; what it does not pick is written back as
        // it was read.
        let out = unsafe { output(result, reach) }?;
        let mut back = elements::<T>(out)?;
        // MPI_SHORT_INT's padding, inside the elements, is not the result's.
        let before = if base == Datatype::ShortInt { out.to_vec() } else { Vec::new() };
        let origin = ol.as_ref().unwrap_or(&tl).times(1);
        let w = w.retype::<T>();
        let transfer = Transfer::typed(w, target, d, origin, tl.times(1))
            .completing(completion_of(request));
        let result_type = Some(rl.times(1));
        let r = state.rma.get_accumulate_with(transfer, &data, &mut back, result_type, op)?;
        write_back(&back, out);
        if !before.is_empty() {
            let mut kept = before;
            for &(at, len) in &picked {
                kept[at..at + len].copy_from_slice(&out[at..at + len]);
            }
            out.copy_from_slice(&kept);
        }
        Ok(r)
    })
}

/// `MPI_Get_accumulate` (see [`get_accumulate`]).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get_accumulate(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    result: *mut c_void,
    rcount: c_int,
    rty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    op: c_int,
    win: c_int,
) -> c_int {
    with_state("MPI_Get_accumulate", win_errors(win), |state| {
        let (o, r, t) = (
            (origin, count, ty),
            (result, rcount, rty),
            (tcount, tty, win),
        );
        get_accumulate(state, o, r, rank, disp, t, op, false).map(drop)
    })
}

/// `MPI_Rget_accumulate`: `MPI_Get_accumulate` in a passive-target epoch;
/// the result holds the old values when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Rget_accumulate(
    origin: *const c_void,
    count: c_int,
    ty: c_int,
    result: *mut c_void,
    rcount: c_int,
    rty: c_int,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tty: c_int,
    op: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    with_state("MPI_Rget_accumulate", win_errors(win), |state| {
        let (o, r, t) = (
            (origin, count, ty),
            (result, rcount, rty),
            (tcount, tty, win),
        );
        let req = get_accumulate(state, o, r, rank, disp, t, op, true)?;
        keep_request(state, win, req, request)
    })
}

/// `MPI_Fetch_and_op` (predefined datatypes and operations).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Fetch_and_op(
    origin: *const c_void,
    result: *mut c_void,
    ty: c_int,
    rank: c_int,
    disp: isize,
    op: c_int,
    win: c_int,
) -> c_int {
    with_state("MPI_Fetch_and_op", win_errors(win), |state| {
        let ty = datatype(ty)?;
        let op = accumulate_op(op)?;
        let (w, t, d) = (
            win_of(state, win)?,
            target_of(rank)?,
            disp_in(&state.windows, win, disp)?,
        );
        // The whole element, padding and all (MPI_SHORT_INT's); only its
        // data is written to the result.
        let len = ty.extent() as usize;
        // SAFETY: MPI's result buffer of one element.
        let out = unsafe { output(result, len) }?;
        let value = if op == AccumulateOp::NoOp {
            vec![0u8; len]
        } else {
            // SAFETY: MPI's origin buffer of one element.
            unsafe { input(origin, len) }?.to_vec()
        };
        as_accumulable!(ty.element(), ty, T => {
            let old = state.rma.fetch_and_op(w.retype::<T>(), t, d, T::read_le(&value), op)?;
            let mut bytes = vec![0u8; len];
            old.write_le(&mut bytes);
            for (at, n) in ty.runs() {
                let (at, n) = (at as usize, n as usize);
                out[at..at + n].copy_from_slice(&bytes[at..at + n]);
            }
            Ok(())
        })
    })
}

/// `MPI_Compare_and_swap` (predefined integer datatypes).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Compare_and_swap(
    origin: *const c_void,
    compare: *const c_void,
    result: *mut c_void,
    ty: c_int,
    rank: c_int,
    disp: isize,
    win: c_int,
) -> c_int {
    with_state("MPI_Compare_and_swap", win_errors(win), |state| {
        let ty = datatype(ty)?;
        let (w, t, d) = (
            win_of(state, win)?,
            target_of(rank)?,
            disp_in(&state.windows, win, disp)?,
        );
        let len = ty.size() as usize;
        // SAFETY: MPI's buffers of one element each.
        let (value, expected) = unsafe { (input(origin, len)?, input(compare, len)?) };
        // SAFETY: MPI's result buffer of one element.
        let out = unsafe { output(result, len) }?;
        as_accumulable!(ty.element(), ty, T => {
            let old = state.rma.compare_and_swap(w.retype::<T>(), t, d, T::read_le(value), T::read_le(expected))?;
            old.write_le(out);
            Ok(())
        })
    })
}
