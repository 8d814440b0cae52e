// SPDX-License-Identifier: MIT OR Apache-2.0
//! Info objects (MPI-3.1 9): keys and values as strings, and the window
//! hints they carry.
//!
//! A window takes MPI's keys `no_locks`, `accumulate_ordering` and
//! `accumulate_ops` (rma's [`WindowOptions`] of those names), accepts
//! `alloc_shared_noncontig` (`true`: each process's part of a shared
//! window in its own core's memory; `false`, the default: all parts one
//! after the other in rank 0's, rma's `WindowOptions::alloc_shared_noncontig`),
//! `same_size` and `same_disp_unit` (hints it does not need), and this
//! library's own `scc_lock_scheme` (`gbh`,
//! `gbh-backoff` or `mcs-wp`: how passive-target locks are taken) and
//! `scc_database` (`distributed` or `centralized`: where the window's
//! records lie) and `scc_memory_type` (`dcm`, `ncm`, `ncm-wcb`, `mpbt-wb`
//! or `mpbt-wt`, the default: the memory type every core maps the window
//! with, locally and remotely; rma's `WindowOptions::memory_type`) and
//! `scc_one_sided` (`direct`, the default, or `messages`: a message-based
//! window of `MPI_Win_allocate`, [`super::messages`]). A
//! known key with a value it does not take is refused with
//! `MPI_ERR_INFO_VALUE`; other keys are ignored, as MPI lets hints be.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::{CStr, c_char, c_int};

use chip::MemoryType;
use chip::settings::{Choice, name_of};
use rma::{AccumulateOps, AccumulateOrdering, Database, LockScheme};

use super::*;
use codes::info::{MAX_KEY, MAX_VAL, NULL as INFO_NULL};

/// An info object: its keys in the order they were first set.
pub(super) type Info = Vec<(String, String)>;

/// The info object `handle` names.
fn info_of(state: &State, handle: c_int) -> Result<&Info, Failure> {
    handle
        .checked_sub(1)
        .and_then(|i| state.infos.get(usize::try_from(i).ok()?))
        .and_then(Option::as_ref)
        .ok_or_else(|| Failure::new(Class::Info, format!("{handle} names no info object")))
}

/// The info object `handle` names, to change.
fn info_mut(state: &mut State, handle: c_int) -> Result<&mut Info, Failure> {
    handle
        .checked_sub(1)
        .and_then(|i| state.infos.get_mut(usize::try_from(i).ok()?))
        .and_then(Option::as_mut)
        .ok_or_else(|| Failure::new(Class::Info, format!("{handle} names no info object")))
}

/// Keeps `info` and returns its handle.
fn keep(state: &mut State, info: Info) -> c_int {
    state.infos.push(Some(info));
    state.infos.len() as c_int
}

/// The C string at `text`, as `what` (a key or a value), of at most `max`
/// characters.
fn text_of<'a>(
    text: *const c_char,
    what: &str,
    class: Class,
    max: c_int,
) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::new(class, format!("a null {what}")));
    }
    // SAFETY: C passes a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(text) }.to_bytes();
    let text = core::str::from_utf8(bytes)
        .map_err(|_| Failure::new(class, format!("the {what} is not UTF-8 text")))?;
    if text.len() > max as usize {
        return Err(Failure::new(
            class,
            format!("a {what} of {} characters: at most {max}", text.len()),
        ));
    }
    Ok(text)
}

/// A key from C: 1 to `MPI_MAX_INFO_KEY` characters.
fn key_of<'a>(key: *const c_char) -> Result<&'a str, Failure> {
    let key = text_of(key, "key", Class::InfoKey, MAX_KEY)?;
    if key.is_empty() {
        return Err(Failure::new(Class::InfoKey, "an empty key"));
    }
    Ok(key)
}

/// `MPI_Info_create`: an empty info object.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_create(info: *mut c_int) -> c_int {
    with_state("MPI_Info_create", codes::comm::WORLD, |state| {
        let handle = keep(state, Info::new());
        store(info, handle)
    })
}

/// `MPI_Info_set`: `key` holds `value` from now on.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_set(info: c_int, key: *const c_char, value: *const c_char) -> c_int {
    with_state("MPI_Info_set", codes::comm::WORLD, |state| {
        let key = key_of(key)?;
        let value = text_of(value, "value", Class::InfoValue, MAX_VAL)?;
        let entries = info_mut(state, info)?;
        match entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.into(),
            None => entries.push((key.into(), value.into())),
        }
        Ok(())
    })
}

/// `MPI_Info_get`: `key`'s value, cut to `valuelen` characters, if set.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_get(
    info: c_int,
    key: *const c_char,
    valuelen: c_int,
    value: *mut c_char,
    flag: *mut c_int,
) -> c_int {
    with_state("MPI_Info_get", codes::comm::WORLD, |state| {
        let key = key_of(key)?;
        let room = usize::try_from(valuelen)
            .map_err(|_| Failure::new(Class::Arg, format!("value length {valuelen}")))?;
        match info_of(state, info)?.iter().find(|(k, _)| k == key) {
            Some((_, v)) => {
                super::env::write_text(v, value, room + 1)?;
                store(flag, 1)
            }
            None => store(flag, 0),
        }
    })
}

/// `MPI_Info_get_valuelen`: the length of `key`'s value, if set.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_get_valuelen(
    info: c_int,
    key: *const c_char,
    valuelen: *mut c_int,
    flag: *mut c_int,
) -> c_int {
    with_state("MPI_Info_get_valuelen", codes::comm::WORLD, |state| {
        let key = key_of(key)?;
        match info_of(state, info)?.iter().find(|(k, _)| k == key) {
            Some((_, v)) => {
                store(valuelen, v.len() as c_int)?;
                store(flag, 1)
            }
            None => store(flag, 0),
        }
    })
}

/// `MPI_Info_get_nkeys`: how many keys are set.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_get_nkeys(info: c_int, nkeys: *mut c_int) -> c_int {
    with_state("MPI_Info_get_nkeys", codes::comm::WORLD, |state| {
        let n = info_of(state, info)?.len();
        store(nkeys, n as c_int)
    })
}

/// `MPI_Info_get_nthkey`: key `n` (from 0), in the order keys were first
/// set; `key` has room for `MPI_MAX_INFO_KEY` characters and a NUL.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_get_nthkey(info: c_int, n: c_int, key: *mut c_char) -> c_int {
    with_state("MPI_Info_get_nthkey", codes::comm::WORLD, |state| {
        let entries = info_of(state, info)?;
        let (k, _) = usize::try_from(n)
            .ok()
            .and_then(|i| entries.get(i))
            .ok_or_else(|| {
                Failure::new(
                    Class::Arg,
                    format!("key {n} of an info object of {} keys", entries.len()),
                )
            })?;
        super::env::write_text(k, key, MAX_KEY as usize + 1).map(drop)
    })
}

/// `MPI_Info_delete`: `key` is set no more.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_delete(info: c_int, key: *const c_char) -> c_int {
    with_state("MPI_Info_delete", codes::comm::WORLD, |state| {
        let key = key_of(key)?;
        let entries = info_mut(state, info)?;
        let i = entries
            .iter()
            .position(|(k, _)| k == key)
            .ok_or_else(|| Failure::new(Class::InfoNokey, format!("key {key:?} is not set")))?;
        entries.remove(i);
        Ok(())
    })
}

/// `MPI_Info_dup`: a new info object with the same keys and values.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_dup(info: c_int, newinfo: *mut c_int) -> c_int {
    with_state("MPI_Info_dup", codes::comm::WORLD, |state| {
        let copy = info_of(state, info)?.clone();
        let handle = keep(state, copy);
        store(newinfo, handle)
    })
}

/// `MPI_Info_free`: the object goes, and `info` becomes `MPI_INFO_NULL`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Info_free(info: *mut c_int) -> c_int {
    with_state("MPI_Info_free", codes::comm::WORLD, |state| {
        if info.is_null() {
            return Err(Failure::new(Class::Info, "a null info handle"));
        }
        // SAFETY: C passes a pointer to its handle.
        let handle = unsafe { info.read() };
        info_of(state, handle)?;
        state.infos[(handle - 1) as usize] = None;
        store(info, INFO_NULL)
    })
}

/// The value named `value` among `T`'s names, for `key`.
fn choice<T: Choice>(key: &str, value: &str) -> Result<T, Failure> {
    T::NAMES
        .iter()
        .position(|n| *n == value)
        .map(|i| T::ALL[i])
        .ok_or_else(|| {
            Failure::new(
                Class::InfoValue,
                format!("{key}={value}: the values are {}", T::NAMES.join(", ")),
            )
        })
}

/// The value of `key` in info `handle`, if it has one.
pub(super) fn value_of<'s>(
    state: &'s State,
    handle: c_int,
    key: &str,
) -> Result<Option<&'s str>, Failure> {
    Ok(info_of(state, handle)?
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str()))
}

/// The options of a window made with info `handle` (`MPI_INFO_NULL`: the
/// defaults): the keys this module's description lists.
pub(super) fn window_options(state: &State, handle: c_int) -> Result<WindowOptions, Failure> {
    let mut options = WindowOptions::new();
    if handle == INFO_NULL {
        return Ok(options);
    }
    for (key, value) in info_of(state, handle)? {
        let (key, value) = (key.as_str(), value.as_str());
        let refused = || {
            Failure::new(
                Class::InfoValue,
                format!("{key}={value} is not a value this key takes"),
            )
        };
        options = match key {
            "no_locks" => options.no_locks(match value {
                "true" => true,
                "false" => false,
                _ => return Err(refused()),
            }),
            "accumulate_ordering" => {
                let mut ordering = AccumulateOrdering::NONE;
                if value != "none" {
                    for name in value.split(',') {
                        ordering = ordering
                            | match name.trim() {
                                "rar" => AccumulateOrdering::RAR,
                                "raw" => AccumulateOrdering::RAW,
                                "war" => AccumulateOrdering::WAR,
                                "waw" => AccumulateOrdering::WAW,
                                _ => return Err(refused()),
                            };
                    }
                }
                options.accumulate_ordering(ordering)
            }
            "accumulate_ops" => options.accumulate_ops(match value {
                "same_op_no_op" => AccumulateOps::SameOpNoOp,
                "same_op" => AccumulateOps::SameOp,
                _ => return Err(refused()),
            }),
            "alloc_shared_noncontig" => options.alloc_shared_noncontig(match value {
                "true" => true,
                "false" => false,
                _ => return Err(refused()),
            }),
            "same_size" | "same_disp_unit" => match value {
                "true" | "false" => options,
                _ => return Err(refused()),
            },
            "scc_lock_scheme" => options.lock_scheme(choice::<LockScheme>(key, value)?),
            "scc_database" => options.database(choice::<Database>(key, value)?),
            "scc_memory_type" => options.memory_type(choice::<MemoryType>(key, value)?),
            _ => options,
        };
    }
    Ok(options)
}

/// The keys in effect for a window made with `options`, as
/// `MPI_Win_get_info` gives them.
fn keys_of(options: &WindowOptions, messages: bool) -> Info {
    let bool_text = |b: bool| String::from(if b { "true" } else { "false" });
    let kind = if messages {
        super::messages::MESSAGES
    } else {
        super::messages::DIRECT
    };
    alloc::vec![
        (super::messages::KEY.into(), kind.into()),
        ("no_locks".into(), bool_text(options.no_locks)),
        (
            "accumulate_ordering".into(),
            options.accumulate_ordering.value()
        ),
        (
            "accumulate_ops".into(),
            options.accumulate_ops.value().into()
        ),
        (
            "scc_lock_scheme".into(),
            name_of(options.lock_scheme).into()
        ),
        ("scc_database".into(), name_of(options.database).into()),
        ("scc_memory_type".into(), name_of(options.local_type).into()),
        (
            "alloc_shared_noncontig".into(),
            bool_text(options.alloc_shared_noncontig)
        ),
    ]
}

/// `MPI_Win_get_info`: a new info object with the hints in effect for the
/// window.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_get_info(win: c_int, info_used: *mut c_int) -> c_int {
    with_state("MPI_Win_get_info", win_errors(win), |state| {
        let options = super::window::options_of(state, win)?;
        let messages = super::window::messages_of(state, win).is_some();
        let handle = keep(state, keys_of(&options, messages));
        store(info_used, handle)
    })
}

/// `MPI_Win_set_info`: the hints are checked as at the window's making.
/// rma fixes a window's options when it makes it: MPI's keys given now
/// are ignored, as MPI lets an implementation ignore hints, and this
/// library's own (`scc_lock_scheme`, `scc_database`) are refused unless
/// they name what is in effect. `MPI_Win_get_info` shows what is.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_set_info(win: c_int, info: c_int) -> c_int {
    with_state("MPI_Win_set_info", win_errors(win), |state| {
        let messages = super::window::messages_of(state, win).is_some();
        let current = keys_of(&super::window::options_of(state, win)?, messages);
        window_options(state, info)?;
        if info == INFO_NULL {
            return Ok(());
        }
        for (key, value) in info_of(state, info)? {
            if !key.starts_with("scc_") {
                continue;
            }
            if let Some((_, now)) = current.iter().find(|(k, _)| k == key)
                && now != value
            {
                return Err(Failure::new(
                    Class::InfoValue,
                    format!(
                        "{key}={value}: the window was made with {key}={now}, which it keeps \
                         (give the key to the call that makes the window)"
                    ),
                ));
            }
        }
        Ok(())
    })
}
