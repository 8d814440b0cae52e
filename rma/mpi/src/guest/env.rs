// SPDX-License-Identifier: MIT OR Apache-2.0
//! The environment: init and finalize, errors and their handlers, the
//! clock, and the communicators' rank and size.

use alloc::format;
use alloc::vec::Vec;
use core::ffi::{c_char, c_int};

use super::*;

/// `MPI_Init`: makes this core's process part of `MPI_COMM_WORLD`, the
/// run's cores; collective over them.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
    let outcome = match STATE.0.try_borrow_mut() {
        Err(_) => Err(Failure::new(
            Class::Other,
            "called from inside another MPI call",
        )),
        Ok(mut phase) => match &*phase {
            Phase::Running(_) => Err(Failure::new(Class::Other, "MPI_Init was called already")),
            Phase::Finalized => Err(Failure::new(Class::Other, "MPI_Finalize has been called")),
            Phase::Before => {
                let platform: &'static Platform = crt::platform();
                match Comm::new(platform).and_then(Rma::new) {
                    Ok(rma) => {
                        crt::check_at_success(finalized_at_exit);
                        *phase = Phase::Running(State {
                            rma,
                            handlers: [codes::errhandler::FATAL; 2],
                            windows: Vec::new(),
                            groups: Vec::new(),
                            comms: Vec::new(),
                            p2p: p2p::Matching::default(),
                            types: Vec::new(),
                            ops: Vec::new(),
                            memories: Vec::new(),
                            left_memory: Vec::new(),
                            infos: Vec::new(),
                            attrs: attrs::Attrs::default(),
                            user_handlers: Vec::new(),
                            self_comm: None,
                        });
                        Ok(())
                    }
                    Err(e) => Err(e.into()),
                }
            }
        },
    };
    finish("MPI_Init", codes::comm::WORLD, outcome)
}

/// `MPI_Init_thread`: `MPI_Init`; the process is single-threaded.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Init_thread(
    argc: *mut c_int,
    argv: *mut *mut *mut c_char,
    _required: c_int,
    provided: *mut c_int,
) -> c_int {
    let code = MPI_Init(argc, argv);
    if code == codes::SUCCESS && !provided.is_null() {
        // SAFETY: C passes a pointer to its int.
        unsafe { provided.write(THREAD_SINGLE) };
    }
    code
}

/// `MPI_THREAD_SINGLE`: one thread per core.
const THREAD_SINGLE: c_int = 0;

/// `MPI_Query_thread`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Query_thread(provided: *mut c_int) -> c_int {
    with_state("MPI_Query_thread", codes::comm::WORLD, |_| {
        store(provided, THREAD_SINGLE)
    })
}

/// `MPI_Initialized`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Initialized(flag: *mut c_int) -> c_int {
    let started = !matches!(&*STATE.0.borrow(), Phase::Before);
    finish(
        "MPI_Initialized",
        codes::comm::WORLD,
        store(flag, c_int::from(started)),
    )
}

/// `MPI_Finalized`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Finalized(flag: *mut c_int) -> c_int {
    let done = matches!(&*STATE.0.borrow(), Phase::Finalized);
    finish(
        "MPI_Finalized",
        codes::comm::WORLD,
        store(flag, c_int::from(done)),
    )
}

/// A program that called `MPI_Init` must call `MPI_Finalize` before it
/// ends: one that returns from `main` (or exits with status 0) without it
/// fails the run, as MPICH reports it.
fn finalized_at_exit() {
    if matches!(&*STATE.0.borrow(), Phase::Running(_)) {
        fail(format_args!(
            "the program ended without calling MPI_Finalize after MPI_Init"
        ))
    }
}

/// `MPI_Finalize`: a barrier over `MPI_COMM_WORLD`, then the end of MPI
/// on this core. A message that arrived and that no receive took is
/// reported on the core's output, one warning each.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Finalize() -> c_int {
    let code = with_state("MPI_Finalize", codes::comm::WORLD, |state| {
        state.rma.comm().barrier();
        for message in p2p::unreceived(state)? {
            crt::end_line();
            kernel::println!("warning: MPI_Finalize: {message} was never received");
        }
        Ok(())
    });
    if code == codes::SUCCESS {
        *STATE.0.borrow_mut() = Phase::Finalized;
    }
    code
}

/// `MPI_Abort`: ends this core's run as failed, with `errorcode` in the
/// report (the other cores are stopped by the run tool when one fails).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Abort(_comm: c_int, errorcode: c_int) -> c_int {
    fail(format_args!("MPI_Abort with error code {errorcode}"))
}

/// `MPI_Get_version`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get_version(version: *mut c_int, subversion: *mut c_int) -> c_int {
    let outcome = store(version, 3).and_then(|()| store(subversion, 1));
    finish("MPI_Get_version", codes::comm::WORLD, outcome)
}

/// `MPI_MAX_PROCESSOR_NAME`.
const MAX_PROCESSOR_NAME: usize = 128;

/// `MPI_Get_processor_name`: the core and its tile, as `core 5 (tile 2,
/// (2,0))`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Get_processor_name(name: *mut c_char, resultlen: *mut c_int) -> c_int {
    let platform = crt::platform();
    let text = format!("{}", platform.core());
    let outcome = copy_text(&text, name, MAX_PROCESSOR_NAME, resultlen);
    finish("MPI_Get_processor_name", codes::comm::WORLD, outcome)
}

/// Writes `text` (cut to `room - 1` bytes) and a NUL to `out`, and its
/// length to `len`.
fn copy_text(text: &str, out: *mut c_char, room: usize, len: *mut c_int) -> Outcome {
    let n = write_text(text, out, room)?;
    store(len, n as c_int)
}

/// Writes `text` (cut to `room - 1` bytes) and a NUL to `out`, which has
/// room for `room` bytes; the bytes of text written.
pub(super) fn write_text(text: &str, out: *mut c_char, room: usize) -> Result<usize, Failure> {
    let n = text.len().min(room - 1);
    // SAFETY: MPI says `out` has room for `room` characters.
    let out = unsafe { output(out.cast(), n + 1) }?;
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out[n] = 0;
    Ok(n)
}

/// `MPI_Wtime`: this core's modelled time in seconds.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Wtime() -> f64 {
    let platform = crt::platform();
    platform.now() as f64 / (f64::from(platform.chip().timing.core_mhz) * 1e6)
}

/// `MPI_Wtick`: one core cycle.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Wtick() -> f64 {
    1.0 / (f64::from(crt::platform().chip().timing.core_mhz) * 1e6)
}

/// `MPI_MAX_ERROR_STRING`.
const MAX_ERROR_STRING: usize = 512;

/// `MPI_Error_string`: the report of a code this process returned, or
/// what its class means.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Error_string(
    errorcode: c_int,
    string: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    let outcome = if errorcode == codes::SUCCESS {
        copy_text(
            "no error (MPI_SUCCESS)",
            string,
            MAX_ERROR_STRING,
            resultlen,
        )
    } else {
        match codes::code_class(errorcode) {
            None => Err(Failure::new(
                Class::Arg,
                format!("{errorcode} is no error code"),
            )),
            Some((class, n)) => {
                let text = (n > 0)
                    .then(|| message(n))
                    .flatten()
                    .unwrap_or_else(|| format!("{} ({})", class.meaning(), class.name()));
                copy_text(&text, string, MAX_ERROR_STRING, resultlen)
            }
        }
    };
    finish("MPI_Error_string", codes::comm::WORLD, outcome)
}

/// `MPI_Error_class`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Error_class(errorcode: c_int, errorclass: *mut c_int) -> c_int {
    let outcome = match errorcode {
        codes::SUCCESS => store(errorclass, codes::SUCCESS),
        code => match codes::code_class(code) {
            Some((class, _)) => store(errorclass, class as c_int),
            None => Err(Failure::new(Class::Arg, format!("{code} is no error code"))),
        },
    };
    finish("MPI_Error_class", codes::comm::WORLD, outcome)
}

/// `MPI_Comm_set_errhandler`: `MPI_ERRORS_ARE_FATAL` or
/// `MPI_ERRORS_RETURN`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_set_errhandler(comm: c_int, errhandler: c_int) -> c_int {
    with_state("MPI_Comm_set_errhandler", comm, |state| {
        if !matches!(
            errhandler,
            codes::errhandler::FATAL | codes::errhandler::RETURN
        ) {
            return Err(Failure::new(
                Class::Arg,
                format!("{errhandler} is not MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN"),
            ));
        }
        *handler_place(state, comm)? = errhandler;
        Ok(())
    })
}

/// Where `comm`'s error handler is kept.
fn handler_place(state: &mut State, comm: c_int) -> Result<&mut c_int, Failure> {
    if let Some(slot) = slot_of(comm) {
        return Ok(&mut state.handlers[slot]);
    }
    usize::try_from(comm - FIRST_COMM)
        .ok()
        .and_then(|i| state.comms.get_mut(i))
        .and_then(Option::as_mut)
        .map(|c| &mut c.handler)
        .ok_or_else(|| Failure::new(Class::Comm, format!("{comm} names no communicator")))
}

/// `MPI_Comm_get_errhandler`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_get_errhandler(comm: c_int, errhandler: *mut c_int) -> c_int {
    with_state("MPI_Comm_get_errhandler", comm, |state| {
        let handler = *handler_place(state, comm)?;
        store(errhandler, handler)
    })
}

// ---------------------------------------------------------------------
// Communicators.

/// `MPI_Comm_rank`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_rank(comm: c_int, rank: *mut c_int) -> c_int {
    with_state("MPI_Comm_rank", comm, |state| {
        let (me, _) = rank_of(state, comm)?;
        store(rank, me as c_int)
    })
}

/// `MPI_Comm_size`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_size(comm: c_int, size: *mut c_int) -> c_int {
    with_state("MPI_Comm_size", comm, |state| {
        let (_, n) = rank_of(state, comm)?;
        store(size, n as c_int)
    })
}

/// Keeps communicator `comm` and returns its handle.
pub(super) fn new_comm(state: &mut State, comm: Comm<'static, Platform>) -> c_int {
    state.comms.push(Some(CommEntry {
        comm,
        handler: codes::errhandler::FATAL,
        inter: None,
    }));
    state.comms.len() as c_int + FIRST_COMM - 1
}

/// `MPI_Comm_split` (`MPI_UNDEFINED` as color: no new communicator).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_split(
    comm: c_int,
    color: c_int,
    key: c_int,
    newcomm: *mut c_int,
) -> c_int {
    with_state("MPI_Comm_split", comm, |state| {
        let color = match color {
            UNDEFINED => None,
            c => Some(u32::try_from(c).map_err(|_| {
                Failure::new(
                    Class::Arg,
                    format!("color {c}: not negative, or MPI_UNDEFINED"),
                )
            })?),
        };
        split_into(state, comm, color, key, newcomm)
    })
}

/// `MPI_UNDEFINED`.
const UNDEFINED: c_int = -32766;

/// Splits `comm` by `color` (`None`: join none) and `key`, and stores
/// the new communicator's handle, or `MPI_COMM_NULL`, at `newcomm`.
fn split_into(
    state: &mut State,
    comm: c_int,
    color: Option<u32>,
    key: c_int,
    newcomm: *mut c_int,
) -> Outcome {
    let made = match comm_of(state, comm)? {
        Target::Comm(c) => c.split(color, key)?,
        Target::Own => {
            return Err(Failure::new(
                Class::Comm,
                "splitting MPI_COMM_SELF is not supported",
            ));
        }
    };
    let handle = match made {
        Some(c) => new_comm(state, c),
        None => codes::comm::NULL,
    };
    store(newcomm, handle)
}

/// `MPI_Comm_split_type`: `MPI_COMM_TYPE_SHARED` puts every rank of the
/// communicator in one new communicator, ordered by `key`, then by rank:
/// every core of the chip reaches every other core's part of shared DRAM
/// by load and store through a LUT entry, so every process shares memory
/// with every other (`MPI_Win_allocate_shared` works on any
/// communicator). `MPI_UNDEFINED` joins none; `info` is ignored, as MPI
/// lets hints be.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_split_type(
    comm: c_int,
    split_type: c_int,
    key: c_int,
    _info: c_int,
    newcomm: *mut c_int,
) -> c_int {
    with_state("MPI_Comm_split_type", comm, |state| {
        let color = match split_type {
            UNDEFINED => None,
            codes::comm::TYPE_SHARED => Some(0),
            other => {
                return Err(Failure::new(
                    Class::Arg,
                    format!("split type {other}: MPI_COMM_TYPE_SHARED or MPI_UNDEFINED"),
                ));
            }
        };
        split_into(state, comm, color, key, newcomm)
    })
}

/// `MPI_Comm_create`: a communicator of `group`'s members, collectively
/// over `comm` (rma's [`rma::comm::Comm::create`]); `MPI_COMM_NULL` on the
/// ranks outside the group.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_create(comm: c_int, group: c_int, newcomm: *mut c_int) -> c_int {
    with_state("MPI_Comm_create", comm, |state| {
        let g = groups::group_of(state, group)?;
        let made = match comm_of(state, comm)? {
            Target::Comm(c) => c.create(&g)?,
            Target::Own if g.members().is_empty() => None,
            Target::Own => {
                return Err(Failure::new(
                    Class::Comm,
                    "a communicator from MPI_COMM_SELF's group is not supported (MPI_Comm_split makes one of one rank)",
                ));
            }
        };
        let handle = match made {
            Some(c) => new_comm(state, c),
            None => codes::comm::NULL,
        };
        store(newcomm, handle)
    })
}

/// `MPI_Comm_dup` (the error handler is copied, as MPI says).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) -> c_int {
    with_state("MPI_Comm_dup", comm, |state| {
        let handler = handler_in(state, comm);
        let made = match comm_of(state, comm)? {
            Target::Comm(c) => c.dup()?,
            Target::Own => {
                return Err(Failure::new(
                    Class::Comm,
                    "duplicating MPI_COMM_SELF is not supported",
                ));
            }
        };
        let handle = new_comm(state, made);
        if let Some(Some(entry)) = state.comms.last_mut() {
            entry.handler = handler;
        }
        store(newcomm, handle)
    })
}

/// `comm`'s error handler, from the state at hand.
fn handler_in(state: &State, comm: c_int) -> c_int {
    match slot_of(comm) {
        Some(i) => state.handlers[i],
        None => comm_entry(state, comm).map_or(state.handlers[0], |c| c.handler),
    }
}

/// `MPI_Comm_free`: the predefined communicators cannot be freed.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_free(comm: *mut c_int) -> c_int {
    with_state("MPI_Comm_free", codes::comm::WORLD, |state| {
        if comm.is_null() {
            return Err(Failure::new(Class::Arg, "a null communicator pointer"));
        }
        // SAFETY: C passes a pointer to its communicator handle.
        let handle = unsafe { comm.read() };
        if comm_entry(state, handle).is_none() {
            return Err(Failure::new(
                Class::Comm,
                format!(
                    "{handle} names no communicator made here (MPI_COMM_WORLD and MPI_COMM_SELF are not freed)"
                ),
            ));
        }
        if let Some(entry) = state.comms[(handle - FIRST_COMM) as usize].take() {
            entry.comm.free();
        }
        store(comm, codes::comm::NULL)
    })
}

/// `MPI_IDENT`, `MPI_CONGRUENT`, `MPI_SIMILAR` and `MPI_UNEQUAL`.
pub(super) const IDENT: c_int = 0;
const CONGRUENT: c_int = 1;
pub(super) const SIMILAR: c_int = 2;
pub(super) const UNEQUAL: c_int = 3;

/// `MPI_Comm_compare`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_compare(comm1: c_int, comm2: c_int, result: *mut c_int) -> c_int {
    with_state("MPI_Comm_compare", comm1, |state| {
        let members = |state: &mut State, comm| -> Result<Vec<u32>, Failure> {
            Ok(match comm_of(state, comm)? {
                Target::Comm(c) => c.members().to_vec(),
                Target::Own => {
                    let me = state.rma.rank() as usize;
                    alloc::vec![state.rma.comm().members()[me]]
                }
            })
        };
        let (a, b) = (members(state, comm1)?, members(state, comm2)?);
        let mut sorted = (a.clone(), b.clone());
        sorted.0.sort_unstable();
        sorted.1.sort_unstable();
        let answer = if comm1 == comm2 {
            IDENT
        } else if a == b {
            CONGRUENT
        } else if sorted.0 == sorted.1 {
            SIMILAR
        } else {
            UNEQUAL
        };
        store(result, answer)
    })
}
