// SPDX-License-Identifier: MIT OR Apache-2.0
//! The MPI calls C makes, over rma and its communicator, on the kernel.
//!
//! One core runs one MPI process with one thread, so the library's state
//! is one value per core ([`STATE`]), borrowed for the length of a call.
//! Each call checks its handles and arguments, does its work through rma,
//! and turns an rma error into an MPI error code through the
//! communicator's error handler ([`Failure`]): `MPI_ERRORS_ARE_FATAL` (the
//! default) ends the core's run with a report naming the call and what was
//! wrong; `MPI_ERRORS_RETURN` returns a code whose class is MPI's and
//! whose message (`MPI_Error_string`) is the same report.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::ffi::{c_char, c_int, c_void};

use kernel::Scc;
use rma::comm::{Comm, ReduceOp, Reducible};
use rma::{Rma, RmaError};

use crate::codes::{self, Class, Datatype, Element as Kind, Op};

/// The library's state on this core.
// One value per core, in a static: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Phase {
    /// Before `MPI_Init`.
    Before,
    /// Between `MPI_Init` and `MPI_Finalize`.
    Running(State),
    /// After `MPI_Finalize`.
    Finalized,
}

/// What an initialised process holds.
struct State {
    /// One-sided communication, and the world communicator inside it.
    rma: Rma<'static, Scc>,
    /// The error handlers of `MPI_COMM_WORLD` and `MPI_COMM_SELF`.
    handlers: [c_int; 2],
}

/// The one state of this core's process.
struct Global(RefCell<Phase>);

// SAFETY: a core runs one thread and no interrupt handler calls into MPI,
// so the state is never reached from two threads.
unsafe impl Sync for Global {}

static STATE: Global = Global(RefCell::new(Phase::Before));

/// Error messages recorded for the codes returned under
/// `MPI_ERRORS_RETURN` (kept for `MPI_Error_string`), by number, and the
/// number the next one gets.
struct Messages(RefCell<(Vec<(u32, String)>, u32)>);

// SAFETY: as for `Global`.
unsafe impl Sync for Messages {}

static MESSAGES: Messages = Messages(RefCell::new((Vec::new(), 1)));

/// Messages kept: codes older than this many errors lose theirs.
const KEPT_MESSAGES: usize = 64;

/// A failed call: its class and the report naming what was wrong.
struct Failure {
    class: Class,
    message: String,
}

impl Failure {
    fn new(class: Class, message: impl Into<String>) -> Self {
        Self {
            class,
            message: message.into(),
        }
    }
}

impl From<RmaError> for Failure {
    fn from(error: RmaError) -> Self {
        Self::new(codes::class_of(error.class()), format!("{error}"))
    }
}

type Outcome = Result<(), Failure>;

/// Runs MPI call `call` on communicator `comm` (whose error handler
/// applies; `MPI_COMM_WORLD`'s for calls without one) with the running
/// state, and returns its MPI code.
fn with_state(call: &str, comm: c_int, f: impl FnOnce(&mut State) -> Outcome) -> c_int {
    let outcome = match STATE.0.try_borrow_mut() {
        Err(_) => Err(Failure::new(
            Class::Other,
            "called from inside another MPI call (a user function?)",
        )),
        Ok(mut phase) => match &mut *phase {
            Phase::Running(state) => f(state),
            Phase::Before => Err(Failure::new(Class::Other, "MPI_Init has not been called")),
            Phase::Finalized => Err(Failure::new(Class::Other, "MPI_Finalize has been called")),
        },
    };
    finish(call, comm, outcome)
}

/// The code for `outcome` of `call`, under `comm`'s error handler.
fn finish(call: &str, comm: c_int, outcome: Outcome) -> c_int {
    let Err(failure) = outcome else {
        return codes::SUCCESS;
    };
    let report = format!("{call}: {} ({})", failure.message, failure.class.name());
    if handler_of(comm) == codes::errhandler::RETURN {
        return record(failure.class, report);
    }
    kernel::exit::fail(format_args!("{report}"))
}

/// `comm`'s error handler; `MPI_ERRORS_ARE_FATAL` for a communicator this
/// core does not know (or while MPI is not running).
fn handler_of(comm: c_int) -> c_int {
    let Ok(phase) = STATE.0.try_borrow() else {
        return codes::errhandler::FATAL;
    };
    match (&*phase, slot_of(comm)) {
        (Phase::Running(state), Some(i)) => state.handlers[i],
        _ => codes::errhandler::FATAL,
    }
}

/// The index of a predefined communicator in [`State::handlers`].
fn slot_of(comm: c_int) -> Option<usize> {
    match comm {
        codes::comm::WORLD => Some(0),
        codes::comm::SELF => Some(1),
        _ => None,
    }
}

/// Keeps `report` and returns a code of `class` that names it.
fn record(class: Class, report: String) -> c_int {
    let Ok(mut messages) = MESSAGES.0.try_borrow_mut() else {
        return class as c_int;
    };
    let (kept, next) = &mut *messages;
    if kept.len() == KEPT_MESSAGES {
        kept.remove(0);
    }
    let n = *next;
    *next = n % codes::MAX_MESSAGE + 1;
    kept.push((n, report));
    codes::code(class, n)
}

/// The report kept for message number `n`, if still kept.
fn message(n: u32) -> Option<String> {
    let messages = MESSAGES.0.try_borrow().ok()?;
    messages
        .0
        .iter()
        .rev()
        .find(|(m, _)| *m == n)
        .map(|(_, text)| text.clone())
}

/// The communicator `comm` names, for calls on it.
enum Target<'s> {
    World(&'s mut Comm<'static, Scc>),
    /// `MPI_COMM_SELF`: this process alone.
    Own,
}

fn comm_of(state: &mut State, comm: c_int) -> Result<Target<'_>, Failure> {
    match comm {
        codes::comm::WORLD => Ok(Target::World(state.rma.comm())),
        codes::comm::SELF => Ok(Target::Own),
        codes::comm::NULL => Err(Failure::new(Class::Comm, "MPI_COMM_NULL")),
        other => Err(Failure::new(
            Class::Comm,
            format!(
                "{other} names no communicator (only MPI_COMM_WORLD and MPI_COMM_SELF exist so far)"
            ),
        )),
    }
}

/// The predefined datatype `handle` names.
fn datatype(handle: c_int) -> Result<Datatype, Failure> {
    Datatype::from_handle(handle).ok_or_else(|| {
        Failure::new(
            Class::Type,
            format!(
                "{handle} names no predefined datatype (derived datatypes are not supported yet)"
            ),
        )
    })
}

/// Bytes of `count` elements of `ty`.
fn bytes_of(count: c_int, ty: Datatype) -> Result<usize, Failure> {
    let count = usize::try_from(count)
        .map_err(|_| Failure::new(Class::Count, format!("count {count} is negative")))?;
    count
        .checked_mul(ty.size() as usize)
        .ok_or_else(|| Failure::new(Class::Count, format!("{count} elements overflow")))
}

/// `len` bytes at `ptr` as a slice (empty for a length of 0, whatever the
/// pointer).
///
/// # Safety
/// `ptr` must point at `len` readable bytes that nothing writes while the
/// slice lives, as MPI asks of a send buffer.
unsafe fn input<'a>(ptr: *const c_void, len: usize) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::new(Class::Buffer, "a null buffer"));
    }
    // SAFETY: as the caller promises.
    Ok(unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// `len` bytes at `ptr` as a mutable slice.
///
/// # Safety
/// `ptr` must point at `len` writable bytes that nothing else reaches
/// while the slice lives, as MPI asks of a receive buffer.
unsafe fn output<'a>(ptr: *mut c_void, len: usize) -> Result<&'a mut [u8], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Failure::new(Class::Buffer, "a null buffer"));
    }
    // SAFETY: as the caller promises.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) })
}

/// Stores `value` where C asked for it, if it gave a place.
fn store<T>(place: *mut T, value: T) -> Outcome {
    if place.is_null() {
        return Err(Failure::new(Class::Arg, "a null pointer for the result"));
    }
    // SAFETY: C passes a pointer to a `T` it owns for the result.
    unsafe { place.write(value) };
    Ok(())
}

fn rank_of(state: &mut State, comm: c_int) -> Result<(u32, u32), Failure> {
    Ok(match comm_of(state, comm)? {
        Target::World(c) => (c.rank(), c.size()),
        Target::Own => (0, 1),
    })
}

/// `MPI_IN_PLACE`.
const IN_PLACE: *const c_void = usize::MAX as *const c_void;

// ---------------------------------------------------------------------
// The environment.

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
                let scc: &'static Scc = crt::platform();
                match Comm::new(scc).and_then(Rma::new) {
                    Ok(rma) => {
                        *phase = Phase::Running(State {
                            rma,
                            handlers: [codes::errhandler::FATAL; 2],
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

/// `MPI_Finalize`: a barrier over `MPI_COMM_WORLD`, then the end of MPI
/// on this core.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Finalize() -> c_int {
    let code = with_state("MPI_Finalize", codes::comm::WORLD, |state| {
        state.rma.comm().barrier();
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
    kernel::exit::fail(format_args!("MPI_Abort with error code {errorcode}"))
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
    let scc = crt::platform();
    let text = format!("{}", scc.core());
    let outcome = copy_text(&text, name, MAX_PROCESSOR_NAME, resultlen);
    finish("MPI_Get_processor_name", codes::comm::WORLD, outcome)
}

/// Writes `text` (cut to `room - 1` bytes) and a NUL to `out`, and its
/// length to `len`.
fn copy_text(text: &str, out: *mut c_char, room: usize, len: *mut c_int) -> Outcome {
    let n = text.len().min(room - 1);
    // SAFETY: MPI says `out` has room for `room` characters.
    let out = unsafe { output(out.cast(), n + 1) }?;
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out[n] = 0;
    store(len, n as c_int)
}

/// `MPI_Wtime`: this core's modelled time in seconds.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Wtime() -> f64 {
    let scc = crt::platform();
    scc.now() as f64 / (f64::from(scc.chip().timing.core_mhz) * 1e6)
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
        let slot = slot_of(comm)
            .ok_or_else(|| Failure::new(Class::Comm, format!("{comm} names no communicator")))?;
        match errhandler {
            codes::errhandler::FATAL | codes::errhandler::RETURN => {
                state.handlers[slot] = errhandler;
                Ok(())
            }
            other => Err(Failure::new(
                Class::Arg,
                format!("{other} is not MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN"),
            )),
        }
    })
}

/// `MPI_Comm_get_errhandler`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Comm_get_errhandler(comm: c_int, errhandler: *mut c_int) -> c_int {
    with_state("MPI_Comm_get_errhandler", comm, |state| {
        let slot = slot_of(comm)
            .ok_or_else(|| Failure::new(Class::Comm, format!("{comm} names no communicator")))?;
        store(errhandler, state.handlers[slot])
    })
}

/// `MPI_Errhandler_free`: the predefined handlers stay; the handle
/// becomes `MPI_ERRHANDLER_NULL`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Errhandler_free(errhandler: *mut c_int) -> c_int {
    finish(
        "MPI_Errhandler_free",
        codes::comm::WORLD,
        store(errhandler, codes::errhandler::NULL),
    )
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

/// `MPI_Type_size`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_size(ty: c_int, size: *mut c_int) -> c_int {
    let outcome = datatype(ty).and_then(|ty| store(size, ty.size() as c_int));
    finish("MPI_Type_size", codes::comm::WORLD, outcome)
}

// ---------------------------------------------------------------------
// Collectives.

/// `MPI_Barrier`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    with_state("MPI_Barrier", comm, |state| {
        if let Target::World(c) = comm_of(state, comm)? {
            c.barrier();
        }
        Ok(())
    })
}

/// The root `root` of a communicator of `size` ranks.
fn root_of(root: c_int, size: u32) -> Result<u32, Failure> {
    u32::try_from(root)
        .ok()
        .filter(|&r| r < size)
        .ok_or_else(|| {
            Failure::new(
                Class::Root,
                format!("root {root} is not a rank of the {size}"),
            )
        })
}

/// `MPI_Bcast`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Bcast(
    buffer: *mut c_void,
    count: c_int,
    ty: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Bcast", comm, |state| {
        let len = bytes_of(count, datatype(ty)?)?;
        // SAFETY: MPI's buffer of `count` elements, this call's alone.
        let buf = unsafe { output(buffer, len) }?;
        match comm_of(state, comm)? {
            Target::World(c) => {
                let root = root_of(root, c.size())?;
                Ok(c.bcast(root, buf)?)
            }
            Target::Own => root_of(root, 1).map(drop),
        }
    })
}

/// `values` reduced element-wise over the ranks of `comm` with `op`, as
/// elements of `kind`, in place.
fn allreduce_bytes(comm: Target<'_>, values: &mut [u8], ty: Datatype, op: Op) -> Outcome {
    let Target::World(comm) = comm else {
        return Ok(()); // One rank: the values are the result.
    };
    let Some(reduce) = op.reduce_op() else {
        return Err(Failure::new(
            Class::Op,
            format!(
                "{} is not supported yet (MPI_SUM, MPI_MIN and MPI_MAX are)",
                op.name()
            ),
        ));
    };
    match ty.element() {
        Kind::I32 => allreduce_as::<i32>(comm, values, reduce),
        Kind::U32 => allreduce_as::<u32>(comm, values, reduce),
        Kind::I64 => allreduce_as::<i64>(comm, values, reduce),
        Kind::U64 => allreduce_as::<u64>(comm, values, reduce),
        Kind::F32 => allreduce_as::<f32>(comm, values, reduce),
        Kind::F64 => allreduce_as::<f64>(comm, values, reduce),
        Kind::Bytes | Kind::I16 => Err(Failure::new(
            Class::Op,
            format!("{} on {} is not supported yet", op.name(), ty.name()),
        )),
    }
}

fn allreduce_as<T: Reducible>(
    comm: &mut Comm<'static, Scc>,
    bytes: &mut [u8],
    op: ReduceOp,
) -> Outcome {
    let mut values: Vec<T> = bytes.chunks_exact(T::BYTES).map(T::read_le).collect();
    comm.allreduce(&mut values, op)?;
    for (v, out) in values.into_iter().zip(bytes.chunks_exact_mut(T::BYTES)) {
        v.write_le(out);
    }
    Ok(())
}

/// `MPI_Allreduce` (`MPI_IN_PLACE` allowed).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Allreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    ty: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Allreduce", comm, |state| {
        let ty = datatype(ty)?;
        let op = operation(op)?;
        let len = bytes_of(count, ty)?;
        // SAFETY: MPI's receive buffer of `count` elements.
        let out = unsafe { output(recvbuf, len) }?;
        if sendbuf != IN_PLACE {
            // SAFETY: MPI's send buffer of `count` elements, apart from the
            // receive buffer.
            out.copy_from_slice(unsafe { input(sendbuf, len) }?);
        }
        allreduce_bytes(comm_of(state, comm)?, out, ty, op)
    })
}

/// `MPI_Reduce` (`MPI_IN_PLACE` at the root allowed): an allreduce whose
/// result only the root keeps, so it costs what `MPI_Allreduce` costs.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    ty: c_int,
    op: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Reduce", comm, |state| {
        let ty = datatype(ty)?;
        let op = operation(op)?;
        let len = bytes_of(count, ty)?;
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        let mut values = vec![0u8; len];
        let source = if sendbuf == IN_PLACE && me == root {
            recvbuf.cast_const()
        } else {
            sendbuf
        };
        // SAFETY: MPI's send buffer (or the root's receive buffer in
        // place) of `count` elements.
        values.copy_from_slice(unsafe { input(source, len) }?);
        allreduce_bytes(comm_of(state, comm)?, &mut values, ty, op)?;
        if me == root {
            // SAFETY: the root's receive buffer of `count` elements.
            unsafe { output(recvbuf, len) }?.copy_from_slice(&values);
        }
        Ok(())
    })
}

/// The operation `handle` names.
fn operation(handle: c_int) -> Result<Op, Failure> {
    Op::from_handle(handle).ok_or_else(|| {
        Failure::new(
            Class::Op,
            format!("{handle} names no predefined operation (MPI_Op_create is not supported yet)"),
        )
    })
}

/// `MPI_Allgather` (`MPI_IN_PLACE` allowed): every rank's block, in rank
/// order, on every rank.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Allgather", comm, |state| {
        let block = bytes_of(recvcount, datatype(recvtype)?)?;
        let (me, n) = rank_of(state, comm)?;
        let mine = own_block(sendbuf, sendcount, sendtype, recvbuf, block, me)?;
        // SAFETY: MPI's receive buffer of `n` blocks.
        let all = unsafe { output(recvbuf, block * n as usize) }?;
        match comm_of(state, comm)? {
            Target::World(c) => Ok(c.allgather(&mine, all)?),
            Target::Own => {
                all.copy_from_slice(&mine);
                Ok(())
            }
        }
    })
}

/// This rank's block of a gather: its send buffer, or its block of the
/// receive buffer in place; `block` bytes either way.
fn own_block(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    block: usize,
    me: u32,
) -> Result<Vec<u8>, Failure> {
    if sendbuf == IN_PLACE {
        // SAFETY: this rank's block of MPI's receive buffer.
        let own = unsafe {
            input(
                recvbuf
                    .cast_const()
                    .cast::<u8>()
                    .wrapping_add(block * me as usize)
                    .cast(),
                block,
            )
        }?;
        return Ok(own.to_vec());
    }
    let len = bytes_of(sendcount, datatype(sendtype)?)?;
    if len != block {
        return Err(Failure::new(
            Class::Truncate,
            format!("{len} bytes sent per rank, {block} received"),
        ));
    }
    // SAFETY: MPI's send buffer of `sendcount` elements.
    Ok(unsafe { input(sendbuf, len) }?.to_vec())
}

/// `MPI_Gather` (`MPI_IN_PLACE` at the root allowed): an allgather whose
/// result only the root keeps.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Gather", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        // Only the root's receive arguments count; the others' block size
        // is their send size.
        let block = if me == root {
            bytes_of(recvcount, datatype(recvtype)?)?
        } else {
            bytes_of(sendcount, datatype(sendtype)?)?
        };
        let mine = own_block(sendbuf, sendcount, sendtype, recvbuf, block, me)?;
        let mut all = vec![0u8; block * n as usize];
        match comm_of(state, comm)? {
            Target::World(c) => c.allgather(&mine, &mut all)?,
            Target::Own => all.copy_from_slice(&mine),
        }
        if me == root {
            // SAFETY: the root's receive buffer of `n` blocks.
            unsafe { output(recvbuf, all.len()) }?.copy_from_slice(&all);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------
// Calls not carried out yet.

/// The code of a call this library does not carry out yet.
fn unsupported(call: &str) -> c_int {
    finish(
        call,
        codes::comm::WORLD,
        Err(Failure::new(
            Class::Unsupported,
            "not supported by this MPI library yet",
        )),
    )
}

/// Defines each call as one that fails with
/// `MPI_ERR_UNSUPPORTED_OPERATION`, naming itself. Their arguments are
/// not read: in the i386 C calling convention the caller pushes and pops
/// them, so a definition without parameters serves every prototype of
/// `mpi.h` that returns an `int`.
macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: not supported yet.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> c_int {
            unsupported(stringify!($name))
        }
    )*};
}

unsupported!(
    MPI_Comm_split,
    MPI_Comm_dup,
    MPI_Comm_free,
    MPI_Comm_group,
    MPI_Comm_compare,
    MPI_Group_size,
    MPI_Group_rank,
    MPI_Group_incl,
    MPI_Group_excl,
    MPI_Group_translate_ranks,
    MPI_Group_free,
    MPI_Type_contiguous,
    MPI_Type_vector,
    MPI_Type_indexed,
    MPI_Type_create_subarray,
    MPI_Type_commit,
    MPI_Type_free,
    MPI_Op_create,
    MPI_Op_free,
    MPI_Send,
    MPI_Ssend,
    MPI_Recv,
    MPI_Sendrecv,
    MPI_Isend,
    MPI_Irecv,
    MPI_Wait,
    MPI_Waitall,
    MPI_Waitany,
    MPI_Test,
    MPI_Testall,
    MPI_Probe,
    MPI_Iprobe,
    MPI_Get_count,
    MPI_Gatherv,
    MPI_Scatter,
    MPI_Scatterv,
    MPI_Allgatherv,
    MPI_Alltoall,
    MPI_Alltoallv,
    MPI_Alloc_mem,
    MPI_Free_mem,
    MPI_Win_create,
    MPI_Win_allocate,
    MPI_Win_allocate_shared,
    MPI_Win_create_dynamic,
    MPI_Win_free,
    MPI_Win_get_group,
    MPI_Win_set_errhandler,
    MPI_Win_fence,
    MPI_Win_post,
    MPI_Win_start,
    MPI_Win_complete,
    MPI_Win_wait,
    MPI_Win_test,
    MPI_Win_lock,
    MPI_Win_unlock,
    MPI_Win_lock_all,
    MPI_Win_unlock_all,
    MPI_Win_flush,
    MPI_Win_flush_all,
    MPI_Win_flush_local,
    MPI_Win_flush_local_all,
    MPI_Win_sync,
    MPI_Put,
    MPI_Get,
    MPI_Accumulate,
    MPI_Get_accumulate,
    MPI_Fetch_and_op,
    MPI_Compare_and_swap,
    MPI_Rput,
    MPI_Rget,
);
