// SPDX-License-Identifier: MIT OR Apache-2.0
//! Attribute keys and attributes of windows, the predefined attributes of
//! `MPI_COMM_WORLD`, and the names of communicators and windows.
//!
//! A key's delete callback is called, outside the library's state (so it
//! may call MPI), when its attribute is replaced (`MPI_Win_set_attr`),
//! deleted (`MPI_Win_delete_attr`) or its window freed (`MPI_Win_free`,
//! before the window goes); a window is never copied, so its copy
//! callback is never called.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::{c_char, c_int, c_void};

use super::*;
use crate::codes::keyval;

/// A window attribute's delete callback.
type WinDelete = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// A key made by `MPI_Win_create_keyval`.
pub(super) struct Keyval {
    delete: Option<WinDelete>,
    extra: *mut c_void,
    /// Freed by `MPI_Win_free_keyval`: attributes set with it stay until
    /// deleted, but it takes no new ones.
    freed: bool,
}

/// An object with a name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Named {
    Comm(c_int),
    Win(c_int),
}

/// Attributes and names, kept in the state.
#[derive(Default)]
pub(super) struct Attrs {
    /// Keys by number − [`keyval::FIRST_USER`].
    keyvals: Vec<Keyval>,
    /// Each window attribute: its window, key and value.
    values: Vec<(c_int, c_int, *mut c_void)>,
    /// Names set by `MPI_Comm_set_name` and `MPI_Win_set_name`.
    names: Vec<(Named, String)>,
}

impl Attrs {
    fn keyval(&self, key: c_int) -> Option<&Keyval> {
        let i = usize::try_from(key.checked_sub(keyval::FIRST_USER)?).ok()?;
        self.keyvals.get(i)
    }
}

/// A delete callback to call, and its arguments.
struct Deletion(WinDelete, c_int, c_int, *mut c_void, *mut c_void);

/// Calls each deletion's callback outside the state; the first error a
/// callback returns fails the call, as MPI says.
fn run(deletions: Vec<Deletion>) -> Outcome {
    for Deletion(f, win, key, value, extra) in deletions {
        // SAFETY: the program's callback, with the arguments MPI gives it.
        let code = unsafe { f(win, key, value, extra) };
        if code != codes::SUCCESS {
            return Err(Failure::new(
                Class::Other,
                format!("the delete callback of key {key} returned {code}"),
            ));
        }
    }
    Ok(())
}

/// Takes window `win`'s attribute of `key` (all its attributes for
/// `None`) off it; the delete callbacks to call.
fn take(state: &mut State, win: c_int, key: Option<c_int>) -> Vec<Deletion> {
    let attrs = &mut state.attrs;
    let mut out = Vec::new();
    let mut i = 0;
    while i < attrs.values.len() {
        let (w, k, v) = attrs.values[i];
        if w == win && key.is_none_or(|key| key == k) {
            attrs.values.remove(i);
            if let Some(kv) = attrs.keyval(k)
                && let Some(f) = kv.delete
            {
                out.push(Deletion(f, w, k, v, kv.extra));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Runs `f` on the state and then the delete callbacks it returns, outside
/// the state; the call's code under `errors`' handler.
fn with_deletions(
    call: &str,
    errors: c_int,
    f: impl FnOnce(&mut State) -> Result<Vec<Deletion>, Failure>,
) -> c_int {
    let mut pending = Vec::new();
    let code = with_state(call, errors, |state| {
        pending = f(state)?;
        Ok(())
    });
    if code != codes::SUCCESS {
        return code;
    }
    finish(call, errors, run(pending))
}

/// Deletes window `win`'s attributes before `MPI_Win_free` frees it,
/// calling their delete callbacks; the code of a failed callback.
pub(super) fn free_window_attributes(win: c_int) -> c_int {
    with_deletions("MPI_Win_free", win_errors(win), |state| {
        Ok(take(state, win, None))
    })
}

/// A user key of a window, checked.
fn user_key(state: &State, key: c_int) -> Result<&Keyval, Failure> {
    state.attrs.keyval(key).filter(|k| !k.freed).ok_or_else(|| {
        Failure::new(
            Class::Other,
            format!("{key} names no window attribute key (MPI_Win_create_keyval)"),
        )
    })
}

/// `MPI_Win_create_keyval`: the delete callback is kept (and called as
/// the module says); the copy callback is not, as windows are not copied.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_create_keyval(
    _copy: *const c_void,
    delete: Option<WinDelete>,
    win_keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    with_state("MPI_Win_create_keyval", codes::comm::WORLD, |state| {
        state.attrs.keyvals.push(Keyval {
            delete,
            extra: extra_state,
            freed: false,
        });
        store(
            win_keyval,
            keyval::FIRST_USER + state.attrs.keyvals.len() as c_int - 1,
        )
    })
}

/// `MPI_Win_free_keyval`: the handle becomes `MPI_KEYVAL_INVALID`;
/// attributes set with the key stay until deleted.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_free_keyval(win_keyval: *mut c_int) -> c_int {
    with_state("MPI_Win_free_keyval", codes::comm::WORLD, |state| {
        if win_keyval.is_null() {
            return Err(Failure::new(Class::Arg, "a null key pointer"));
        }
        // SAFETY: C passes a pointer to its key.
        let key = unsafe { win_keyval.read() };
        user_key(state, key)?;
        state.attrs.keyvals[(key - keyval::FIRST_USER) as usize].freed = true;
        store(win_keyval, keyval::INVALID)
    })
}

/// `MPI_Win_set_attr`: a value already set with the key is deleted first
/// (its delete callback called).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_set_attr(
    win: c_int,
    win_keyval: c_int,
    attribute_val: *mut c_void,
) -> c_int {
    with_deletions("MPI_Win_set_attr", win_errors(win), |state| {
        window::win_exists(state, win)?;
        user_key(state, win_keyval)?;
        let old = take(state, win, Some(win_keyval));
        state.attrs.values.push((win, win_keyval, attribute_val));
        Ok(old)
    })
}

/// `MPI_Win_delete_attr`: its delete callback is called.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_delete_attr(win: c_int, win_keyval: c_int) -> c_int {
    with_deletions("MPI_Win_delete_attr", win_errors(win), |state| {
        window::win_exists(state, win)?;
        if state.attrs.keyval(win_keyval).is_none() {
            return Err(Failure::new(
                Class::Other,
                format!("{win_keyval} names no window attribute key"),
            ));
        }
        if !state
            .attrs
            .values
            .iter()
            .any(|&(w, k, _)| w == win && k == win_keyval)
        {
            return Err(Failure::new(
                Class::Other,
                format!("window {win} has no attribute of key {win_keyval}"),
            ));
        }
        Ok(take(state, win, Some(win_keyval)))
    })
}

/// The value of window `win`'s user attribute `key` (`None`: not set);
/// `Err` for a key that is no window key.
pub(super) fn win_attr(
    state: &State,
    win: c_int,
    key: c_int,
) -> Result<Option<*mut c_void>, Failure> {
    if state.attrs.keyval(key).is_none() {
        return Err(Failure::new(
            Class::Other,
            format!(
                "attribute key {key} is neither a predefined window attribute nor a key of MPI_Win_create_keyval"
            ),
        ));
    }
    Ok(state
        .attrs
        .values
        .iter()
        .find(|&&(w, k, _)| w == win && k == key)
        .map(|&(_, _, v)| v))
}

/// The values of `MPI_COMM_WORLD`'s predefined attributes, where
/// `MPI_Comm_get_attr` points C.
struct WorldValues(core::cell::UnsafeCell<[c_int; 6]>);

// SAFETY: one thread per core, and the values are written (each time the
// same) before C reads them.
unsafe impl Sync for WorldValues {}

static WORLD_VALUES: WorldValues = WorldValues(core::cell::UnsafeCell::new([0; 6]));

/// `MPI_Comm_get_attr` with the predefined keys, on `MPI_COMM_WORLD`:
/// `MPI_TAG_UB` (2^31 − 1), `MPI_HOST` (`MPI_PROC_NULL`: no host),
/// `MPI_IO` (`MPI_ANY_SOURCE`: every process does I/O),
/// `MPI_WTIME_IS_GLOBAL` (0: each core's modelled clock is its own),
/// `MPI_UNIVERSE_SIZE` (the run's cores: no process can be spawned) and
/// `MPI_APPNUM` (0); `attribute_val` gets a pointer to the value, as MPI
/// says. On other communicators `flag` is 0 for them. User keys on
/// communicators are not supported: `MPI_ERR_OTHER`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_get_attr(
    comm: c_int,
    comm_keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    with_state("MPI_Comm_get_attr", comm, |state| {
        rank_or_inter(state, comm)?;
        let slot = match comm_keyval {
            keyval::TAG_UB => 0,
            keyval::HOST => 1,
            keyval::IO => 2,
            keyval::WTIME_IS_GLOBAL => 3,
            keyval::UNIVERSE_SIZE => 4,
            keyval::APPNUM => 5,
            other => {
                return Err(Failure::new(
                    Class::Other,
                    format!(
                        "attribute key {other} is not a predefined communicator attribute (user keys on communicators are not supported)"
                    ),
                ));
            }
        };
        if comm != codes::comm::WORLD {
            return store(flag, 0);
        }
        let values = [0x7fff_ffff, -1, -2, 0, state.rma.size() as c_int, 0];
        // SAFETY: one thread per core; C reads the values only after this.
        let place = unsafe { &mut *WORLD_VALUES.0.get() };
        *place = values;
        store(
            attribute_val.cast::<*mut c_void>(),
            (&raw mut place[slot]).cast(),
        )?;
        store(flag, 1)
    })
}

/// The name of `object`: the one set, else the predefined communicators'
/// own, else empty.
fn name_of(state: &State, object: Named) -> String {
    if let Some((_, name)) = state.attrs.names.iter().find(|(o, _)| *o == object) {
        return name.clone();
    }
    match object {
        Named::Comm(codes::comm::WORLD) => "MPI_COMM_WORLD".into(),
        Named::Comm(codes::comm::SELF) => "MPI_COMM_SELF".into(),
        _ => String::new(),
    }
}

/// Sets `object`'s name to the C string `name` (cut to
/// `MPI_MAX_OBJECT_NAME` − 1 characters).
fn set_name(state: &mut State, object: Named, name: *const c_char) -> Outcome {
    if name.is_null() {
        return Err(Failure::new(Class::Arg, "a null name"));
    }
    // SAFETY: C passes a NUL-terminated string.
    let text = unsafe { core::ffi::CStr::from_ptr(name) };
    let bytes = text.to_bytes();
    let bytes = &bytes[..bytes.len().min(codes::MAX_OBJECT_NAME as usize - 1)];
    let text = String::from_utf8_lossy(bytes).into_owned();
    state.attrs.names.retain(|(o, _)| *o != object);
    state.attrs.names.push((object, text));
    Ok(())
}

/// Writes `object`'s name and its length.
fn get_name(state: &State, object: Named, out: *mut c_char, len: *mut c_int) -> Outcome {
    let name = name_of(state, object);
    let n = env::write_text(&name, out, codes::MAX_OBJECT_NAME as usize)?;
    store(len, n as c_int)
}

/// `MPI_Comm_set_name`: this process's name for the communicator.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_set_name(comm: c_int, comm_name: *const c_char) -> c_int {
    with_state("MPI_Comm_set_name", comm, |state| {
        rank_or_inter(state, comm)?;
        set_name(state, Named::Comm(comm), comm_name)
    })
}

/// `MPI_Comm_get_name`: the name set, `MPI_COMM_WORLD` and `MPI_COMM_SELF`
/// for those, else empty.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_get_name(
    comm: c_int,
    comm_name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    with_state("MPI_Comm_get_name", comm, |state| {
        rank_or_inter(state, comm)?;
        get_name(state, Named::Comm(comm), comm_name, resultlen)
    })
}

/// `MPI_Win_set_name`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_set_name(win: c_int, win_name: *const c_char) -> c_int {
    with_state("MPI_Win_set_name", win_errors(win), |state| {
        window::win_exists(state, win)?;
        set_name(state, Named::Win(win), win_name)
    })
}

/// `MPI_Win_get_name`: the name set, else empty.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_get_name(
    win: c_int,
    win_name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    with_state("MPI_Win_get_name", win_errors(win), |state| {
        window::win_exists(state, win)?;
        get_name(state, Named::Win(win), win_name, resultlen)
    })
}
