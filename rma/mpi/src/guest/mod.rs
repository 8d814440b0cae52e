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
use alloc::vec::Vec;
use core::cell::RefCell;
use core::ffi::{c_int, c_void};

use kernel::Platform;
use rma::comm::{Comm, Element as _, Group, ReduceOp, Reducible};
use rma::{
    Accumulable, AccumulateOp, Assert, Flavor, LockType, MemoryModel, Rma, RmaError, Window,
    WindowOptions,
};

use crate::codes::{self, Class, Datatype, Element as Kind, Op};

/// Calls `$body` with `$t` the Rust type of element kind `$kind` (of
/// datatype `$ty`); a pair type, which has no such type, fails the call
/// (the reductions take `MPI_MINLOC` and `MPI_MAXLOC` on pairs apart, see
/// `crate::loc`).
macro_rules! as_element {
    ($kind:expr, $ty:expr, $t:ident => $body:expr) => {
        match $kind {
            Kind::Pair => {
                return Err(Failure::new(
                    Class::Type,
                    format!(
                        "{} is a pair type, which only MPI_MINLOC and MPI_MAXLOC in reductions \
                         combine (not one-sided accumulates)",
                        $ty.name()
                    ),
                ));
            }
            Kind::I32 => {
                type $t = i32;
                $body
            }
            Kind::U32 => {
                type $t = u32;
                $body
            }
            Kind::I64 => {
                type $t = i64;
                $body
            }
            Kind::U64 => {
                type $t = u64;
                $body
            }
            Kind::F32 => {
                type $t = f32;
                $body
            }
            Kind::F64 => {
                type $t = f64;
                $body
            }
            Kind::I16 => {
                type $t = i16;
                $body
            }
            Kind::X87 => {
                type $t = rma::X87;
                $body
            }
            Kind::Bytes => match $ty {
                Datatype::SignedChar | Datatype::Char => {
                    type $t = i8;
                    $body
                }
                _ => {
                    type $t = u8;
                    $body
                }
            },
        }
    };
}

/// [`as_element!`] for one-sided accumulates, where the pair types are
/// elements too: `MPI_2INT` and `MPI_LONG_INT` (`Loc<i32>`),
/// `MPI_FLOAT_INT` (`Loc<f32>`), `MPI_DOUBLE_INT` (`Loc<f64>`) and
/// `MPI_LONG_DOUBLE_INT` (`Loc<X87>`), which `MPI_MAXLOC`, `MPI_MINLOC`,
/// `MPI_REPLACE` and `MPI_NO_OP` combine. `MPI_SHORT_INT`, whose element
/// has padding between its value and its index, fails the call.
macro_rules! as_accumulable {
    ($kind:expr, $ty:expr, $t:ident => $body:expr) => {
        match $ty {
            Datatype::TwoInt | Datatype::LongInt => {
                type $t = rma::Loc<i32>;
                $body
            }
            Datatype::FloatInt => {
                type $t = rma::Loc<f32>;
                $body
            }
            Datatype::DoubleInt => {
                type $t = rma::Loc<f64>;
                $body
            }
            Datatype::LongDoubleInt => {
                type $t = rma::Loc<rma::X87>;
                $body
            }
            Datatype::ShortInt => {
                type $t = rma::ShortLoc;
                $body
            }
            _ => as_element!($kind, $ty, $t => $body),
        }
    };
}

/// `bytes` as elements `T`, or `MPI_ERR_NO_MEM` when the heap has no
/// room for them.
fn elements<T: Accumulable>(bytes: &[u8]) -> Result<Vec<T>, Failure> {
    let mut out = Vec::new();
    out.try_reserve_exact(bytes.len() / T::BYTES).map_err(|_| {
        Failure::new(
            Class::NoMem,
            format!(
                "{} bytes of heap to stage the elements, beyond what is left",
                bytes.len()
            ),
        )
    })?;
    out.extend(bytes.chunks_exact(T::BYTES).map(T::read_le));
    Ok(out)
}

/// `len` bytes' worth of zero elements `T` (see [`elements`]).
fn zeros<T: Accumulable>(len: usize) -> Result<Vec<T>, Failure> {
    let mut out = Vec::new();
    out.try_reserve_exact(len / T::BYTES).map_err(|_| {
        Failure::new(
            Class::NoMem,
            format!("{len} bytes of heap to stage the elements, beyond what is left"),
        )
    })?;
    let zero = T::read_le(&alloc::vec![0u8; T::BYTES]);
    out.extend((0..len / T::BYTES).map(|_| zero));
    Ok(out)
}

/// `values` written back into `out` as bytes.
fn write_back<T: Accumulable>(values: &[T], out: &mut [u8]) {
    for (v, o) in values.iter().zip(out.chunks_exact_mut(T::BYTES)) {
        v.write_le(o);
    }
}

mod attrs;
mod collective;
mod datatypes;
mod env;
mod errhandlers;
mod groups;
mod info;
mod inter;
mod messages;
mod ops;
mod p2p;
mod private;
mod unsupported;
mod window;

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
    rma: Rma<'static, Platform>,
    /// The error handlers of `MPI_COMM_WORLD` and `MPI_COMM_SELF`.
    handlers: [c_int; 2],
    /// Windows by handle − 1 (`None` once freed).
    windows: Vec<Option<Win>>,
    /// Groups by handle − 2 (`None` once freed); handle 1 is
    /// `MPI_GROUP_EMPTY`.
    groups: Vec<Option<Group>>,
    /// Communicators made here, by handle − [`FIRST_COMM`] (`None` once
    /// freed).
    comms: Vec<Option<CommEntry>>,
    /// Point-to-point messages and receives, per communicator handle.
    p2p: p2p::Matching,
    /// Derived datatypes by handle − [`datatypes::FIRST_TYPE`] (`None`
    /// once freed).
    types: Vec<Option<datatypes::Derived>>,
    /// User-defined operations (`None` once freed).
    ops: Vec<Option<ops::UserOp>>,
    /// Memory from `MPI_Alloc_mem`: its address and rma's handle.
    memories: Vec<(usize, rma::Memory)>,
    /// Memory the program freed with `MPI_Free_mem` while a window still
    /// used it: given back when no window does.
    left_memory: Vec<rma::Memory>,
    /// Info objects by handle − 1 (`None` once freed).
    infos: Vec<Option<info::Info>>,
    /// Attribute keys, window attributes, and names.
    attrs: attrs::Attrs,
    /// Error handlers of `MPI_Win_create_errhandler`, by handle − 3
    /// (`None` once let go).
    user_handlers: Vec<Option<errhandlers::UserHandler>>,
    /// The communicator of this process alone that windows on
    /// `MPI_COMM_SELF` are made on, once one is (its handle).
    self_comm: Option<c_int>,
}

/// A communicator made by `MPI_Comm_split` or `MPI_Comm_dup`.
struct CommEntry {
    /// The communicator; of an intercommunicator, the one of both its
    /// groups (the one whose first process has the lower world rank first).
    comm: Comm<'static, Platform>,
    /// Its error handler.
    handler: c_int,
    /// An intercommunicator's groups.
    inter: Option<inter::Inter>,
}

/// The first handle of a communicator made here: 1 and 2 are
/// `MPI_COMM_WORLD` and `MPI_COMM_SELF`.
const FIRST_COMM: c_int = 3;

/// A window as C holds it.
struct Win {
    /// How its operations reach their targets.
    path: Path,
    /// Its error handler.
    handler: c_int,
    /// Its attributes as `MPI_Win_get_attr` hands them out: C gets
    /// pointers to these, which live as long as the window.
    attributes: alloc::boxed::Box<window::Attributes>,
    /// Public copies of the program memory the window spans or has
    /// attached ([`private`]), which its synchronisation reconciles.
    shadows: Vec<private::Shadow>,
}

/// How a window's operations reach their targets.
enum Path {
    /// rma's window in shared memory, which origins reach themselves; as
    /// bytes, typed per call for accumulates.
    Direct(Window<u8>),
    /// A message-based window, whose target applies them ([`messages`]).
    Messages(alloc::boxed::Box<messages::MsgWin>),
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
    let handler = handler_of(comm);
    if handler == codes::errhandler::RETURN {
        return record(failure.class, report);
    }
    if let Some(function) = user_function(handler) {
        // A window's handler of the program's: called with the window and
        // the code (the state is free again: it may call MPI).
        let code = record(failure.class, report);
        let win = if comm >= WIN_HANDLERS {
            comm - WIN_HANDLERS + 1
        } else {
            0
        };
        errhandlers::call(function, win, code);
        return code;
    }
    fail(format_args!("{report}"))
}

/// Ends this core's run as failed with `report`, after what the program
/// wrote to stdout and the C library still holds: nothing it printed is
/// lost.
fn fail(report: core::fmt::Arguments<'_>) -> ! {
    unsafe extern "C" {
        fn fflush(stream: *mut c_void) -> c_int;
    }
    // SAFETY: the C library's fflush; a null stream is every stream.
    unsafe { fflush(core::ptr::null_mut()) };
    crt::end_line();
    kernel::exit::fail(report)
}

/// The error handler of `handle`: a communicator's, or a window's when
/// `handle` is one of [`win_errors`]. A handle this core does not know
/// takes `MPI_COMM_WORLD`'s, as errors without a communicator do (MPI-3.1
/// 8.3); before `MPI_Init` and after `MPI_Finalize` errors are fatal.
fn handler_of(handle: c_int) -> c_int {
    let Ok(phase) = STATE.0.try_borrow() else {
        return codes::errhandler::FATAL;
    };
    let Phase::Running(state) = &*phase else {
        return codes::errhandler::FATAL;
    };
    let world = state.handlers[0];
    if handle >= WIN_HANDLERS {
        return state
            .windows
            .get((handle - WIN_HANDLERS) as usize)
            .and_then(Option::as_ref)
            .map_or(world, |w| w.handler);
    }
    if handle >= FIRST_COMM {
        return comm_entry(state, handle).map_or(world, |c| c.handler);
    }
    slot_of(handle).map_or(world, |i| state.handlers[i])
}

/// The function of error handler `handler` when it is one of the
/// program's ([`errhandlers`]).
fn user_function(handler: c_int) -> Option<errhandlers::WinFunction> {
    let phase = STATE.0.try_borrow().ok()?;
    match &*phase {
        Phase::Running(state) => errhandlers::function_of(state, handler),
        _ => None,
    }
}

/// The communicator made here that `handle` names.
fn comm_entry(state: &State, handle: c_int) -> Option<&CommEntry> {
    let i = usize::try_from(handle.checked_sub(FIRST_COMM)?).ok()?;
    state.comms.get(i)?.as_ref()
}

/// Where [`finish`] looks for a window's error handler: window handle `w`
/// is given as `WIN_HANDLERS + w − 1`, above every communicator handle.
const WIN_HANDLERS: c_int = 1 << 20;

/// The handle [`finish`] takes for window handle `win`'s error handler.
fn win_errors(win: c_int) -> c_int {
    if win > 0 && win < WIN_HANDLERS {
        WIN_HANDLERS + win - 1
    } else {
        codes::comm::WORLD
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
    /// `MPI_COMM_WORLD` (rma's own) or one made here.
    Comm(&'s mut Comm<'static, Platform>),
    /// `MPI_COMM_SELF`: this process alone.
    Own,
}

fn comm_of(state: &mut State, comm: c_int) -> Result<Target<'_>, Failure> {
    match comm {
        codes::comm::WORLD => Ok(Target::Comm(state.rma.comm())),
        codes::comm::SELF => Ok(Target::Own),
        codes::comm::NULL => Err(Failure::new(Class::Comm, "MPI_COMM_NULL")),
        other => usize::try_from(other - FIRST_COMM)
            .ok()
            .and_then(|i| state.comms.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or_else(|| Failure::new(Class::Comm, format!("{other} names no communicator")))
            .and_then(|c| match c.inter {
                Some(_) => Err(inter::refusal(other)),
                None => Ok(Target::Comm(&mut c.comm)),
            }),
    }
}

/// The predefined datatype `handle` names.
fn datatype(handle: c_int) -> Result<Datatype, Failure> {
    Datatype::from_handle(handle).ok_or_else(|| {
        Failure::new(
            Class::Type,
            format!("{handle} names no predefined datatype (this call takes predefined ones only)"),
        )
    })
}

/// Bytes `count` elements of `ty` span in memory (its extents: what an
/// array of them takes, the padding of `MPI_SHORT_INT` included).
fn bytes_of(count: c_int, ty: Datatype) -> Result<usize, Failure> {
    let count = usize::try_from(count)
        .map_err(|_| Failure::new(Class::Count, format!("count {count} is negative")))?;
    count
        .checked_mul(ty.extent() as usize)
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
    if let Some(i) = comm_entry(state, comm).and_then(|c| c.inter.as_ref()) {
        return Ok(i.local_rank());
    }
    Ok(match comm_of(state, comm)? {
        Target::Comm(c) => (c.rank(), c.size()),
        Target::Own => (0, 1),
    })
}

/// Checks that `comm` names a communicator, an intercommunicator too.
fn rank_or_inter(state: &mut State, comm: c_int) -> Outcome {
    rank_of(state, comm).map(|_| ())
}

/// `MPI_IN_PLACE`.
const IN_PLACE: *const c_void = core::ptr::without_provenance(usize::MAX);

/// The operation `handle` names.
fn operation(handle: c_int) -> Result<Op, Failure> {
    Op::from_handle(handle)
        .ok_or_else(|| Failure::new(Class::Op, format!("{handle} names no predefined operation")))
}

/// rma's accumulate operation for `op`.
fn accumulate_op_of(op: Op) -> Result<AccumulateOp, Failure> {
    Ok(match op {
        Op::Sum => AccumulateOp::Sum,
        Op::Prod => AccumulateOp::Prod,
        Op::Min => AccumulateOp::Min,
        Op::Max => AccumulateOp::Max,
        Op::Band => AccumulateOp::Band,
        Op::Bor => AccumulateOp::Bor,
        Op::Bxor => AccumulateOp::Bxor,
        Op::Land => AccumulateOp::Land,
        Op::Lor => AccumulateOp::Lor,
        Op::Lxor => AccumulateOp::Lxor,
        Op::Replace => AccumulateOp::Replace,
        Op::NoOp => AccumulateOp::NoOp,
        Op::Minloc | Op::Maxloc => {
            return Err(Failure::new(
                Class::Op,
                format!(
                    "{} is not supported in one-sided accumulates (MPI_Reduce and MPI_Allreduce take it)",
                    op.name()
                ),
            ));
        }
    })
}
