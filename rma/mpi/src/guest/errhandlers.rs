// SPDX-License-Identifier: MIT OR Apache-2.0
//! Error handlers made of the program's functions for windows:
//! `MPI_Win_create_errhandler`, `MPI_Win_get_errhandler` and
//! `MPI_Win_call_errhandler`; `MPI_Win_set_errhandler` and
//! `MPI_Errhandler_free` take them too.
//!
//! A handler is counted: its handle, each window it is set on and each
//! handle `MPI_Win_get_errhandler` gives hold it, and it is forgotten (its
//! slot reused) when the last lets go, as MPI-3.1 8.3.4 says of
//! `MPI_Errhandler_free`. A window's failing call records its error
//! (for `MPI_Error_string`) and then calls the function with the window
//! and the code, outside the library's state, so that it may call MPI;
//! the call then returns the code.

use alloc::format;
use core::ffi::c_int;

use super::*;

/// `MPI_Win_errhandler_function`: the window, the error code, then
/// implementation-specific arguments (none here).
pub(super) type WinFunction = unsafe extern "C" fn(*mut c_int, *mut c_int, ...);

/// A handler of the program's.
pub(super) struct UserHandler {
    function: WinFunction,
    /// Holders: handles not freed and windows it is set on.
    refs: u32,
}

/// The first handle of a handler made here: 0 to 2 are
/// `MPI_ERRHANDLER_NULL`, `MPI_ERRORS_ARE_FATAL` and `MPI_ERRORS_RETURN`.
const FIRST_USER: c_int = 3;

/// The slot of user handler `handle`, if it is one that lives.
fn slot(state: &State, handle: c_int) -> Option<usize> {
    let i = usize::try_from(handle.checked_sub(FIRST_USER)?).ok()?;
    state.user_handlers.get(i)?.as_ref().map(|_| i)
}

/// Whether `handle` is a handler a window may take: a predefined one or
/// a user handler that lives.
pub(super) fn check(state: &State, handle: c_int) -> Result<(), Failure> {
    match handle {
        codes::errhandler::FATAL | codes::errhandler::RETURN => Ok(()),
        _ if slot(state, handle).is_some() => Ok(()),
        other => Err(Failure::new(
            Class::Arg,
            format!(
                "{other} names no error handler (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or one \
                 of MPI_Win_create_errhandler)"
            ),
        )),
    }
}

/// One more holder of `handle` (nothing for a predefined handler).
pub(super) fn hold(state: &mut State, handle: c_int) {
    if let Some(i) = slot(state, handle)
        && let Some(h) = state.user_handlers[i].as_mut()
    {
        h.refs += 1;
    }
}

/// One holder fewer of `handle`; the last lets it go.
pub(super) fn release(state: &mut State, handle: c_int) {
    if let Some(i) = slot(state, handle)
        && let Some(h) = state.user_handlers[i].as_mut()
    {
        h.refs -= 1;
        if h.refs == 0 {
            state.user_handlers[i] = None;
        }
    }
}

/// The function of handler `handle`, if it is a user handler.
pub(super) fn function_of(state: &State, handle: c_int) -> Option<WinFunction> {
    let i = slot(state, handle)?;
    state.user_handlers[i].as_ref().map(|h| h.function)
}

/// Calls `function` with window handle `win` and error `code`.
pub(super) fn call(function: WinFunction, win: c_int, code: c_int) {
    let (mut win, mut code) = (win, code);
    // SAFETY: the program's MPI_Win_errhandler_function, called as MPI
    // calls it: pointers to the window handle and the code, which live
    // across the call.
    unsafe { function(&mut win, &mut code) };
}

/// `MPI_Win_create_errhandler`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_create_errhandler(
    function: Option<WinFunction>,
    errhandler: *mut c_int,
) -> c_int {
    with_state("MPI_Win_create_errhandler", codes::comm::WORLD, |state| {
        let function =
            function.ok_or_else(|| Failure::new(Class::Arg, "a null error handler function"))?;
        let handler = UserHandler { function, refs: 1 };
        let i = match state.user_handlers.iter().position(Option::is_none) {
            Some(i) => {
                state.user_handlers[i] = Some(handler);
                i
            }
            None => {
                state.user_handlers.push(Some(handler));
                state.user_handlers.len() - 1
            }
        };
        store(errhandler, FIRST_USER + i as c_int)
    })
}

/// `MPI_Win_get_errhandler`: a new handle of the window's handler (free
/// it with `MPI_Errhandler_free`).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_get_errhandler(win: c_int, errhandler: *mut c_int) -> c_int {
    with_state("MPI_Win_get_errhandler", win_errors(win), |state| {
        super::window::win_exists(state, win)?;
        let handler = state.windows[(win - 1) as usize]
            .as_ref()
            .map_or(codes::errhandler::FATAL, |w| w.handler);
        hold(state, handler);
        store(errhandler, handler)
    })
}

/// `MPI_Errhandler_free`: the handle becomes `MPI_ERRHANDLER_NULL`; a
/// user handler goes when no window uses it any more. The predefined
/// handlers stay.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Errhandler_free(errhandler: *mut c_int) -> c_int {
    with_state("MPI_Errhandler_free", codes::comm::WORLD, |state| {
        if errhandler.is_null() {
            return Err(Failure::new(Class::Arg, "a null error handler pointer"));
        }
        // SAFETY: C passes a pointer to its handle.
        let handle = unsafe { errhandler.read() };
        match handle {
            codes::errhandler::FATAL | codes::errhandler::RETURN => {}
            _ if slot(state, handle).is_some() => release(state, handle),
            other => {
                return Err(Failure::new(
                    Class::Arg,
                    format!("{other} names no error handler"),
                ));
            }
        }
        store(errhandler, codes::errhandler::NULL)
    })
}

/// `MPI_Win_call_errhandler`: calls the window's handler with `code`:
/// `MPI_ERRORS_ARE_FATAL` ends the run, `MPI_ERRORS_RETURN` does
/// nothing, a user handler's function is called. Returns `MPI_SUCCESS`
/// once the handler has been called.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Win_call_errhandler(win: c_int, code: c_int) -> c_int {
    let mut handler = codes::errhandler::FATAL;
    let found = with_state("MPI_Win_call_errhandler", win_errors(win), |state| {
        super::window::win_exists(state, win)?;
        handler = state.windows[(win - 1) as usize]
            .as_ref()
            .map_or(codes::errhandler::FATAL, |w| w.handler);
        Ok(())
    });
    if found != codes::SUCCESS {
        return found;
    }
    let function = match STATE.0.try_borrow() {
        Ok(phase) => match &*phase {
            Phase::Running(state) => function_of(state, handler),
            _ => None,
        },
        Err(_) => None,
    };
    match (handler, function) {
        (_, Some(function)) => call(function, win, code),
        (codes::errhandler::RETURN, None) => {}
        _ => fail(format_args!(
            "MPI_Win_call_errhandler: error code {code} on window {win}, whose handler is \
             MPI_ERRORS_ARE_FATAL"
        )),
    }
    codes::SUCCESS
}
