// SPDX-License-Identifier: MIT OR Apache-2.0
//! The numbers C sees: error classes, handles of the predefined
//! communicators, datatypes, operations and error handlers. `mpi.h`
//! defines each with the same value; a host test reads the header back
//! and compares, so the two cannot drift apart.

use rma::ErrorClass;

/// `MPI_SUCCESS`.
pub const SUCCESS: i32 = 0;

/// `MPI_DATATYPE_NULL`.
pub const DATATYPE_NULL: i32 = 0;

/// MPI's error classes, with the values `mpi.h` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Class {
    /// `MPI_ERR_BUFFER`
    Buffer = 1,
    /// `MPI_ERR_COUNT`
    Count = 2,
    /// `MPI_ERR_TYPE`
    Type = 3,
    /// `MPI_ERR_TAG`
    Tag = 4,
    /// `MPI_ERR_COMM`
    Comm = 5,
    /// `MPI_ERR_RANK`
    Rank = 6,
    /// `MPI_ERR_ROOT`
    Root = 7,
    /// `MPI_ERR_GROUP`
    Group = 8,
    /// `MPI_ERR_OP`
    Op = 9,
    /// `MPI_ERR_ARG`
    Arg = 12,
    /// `MPI_ERR_TRUNCATE`
    Truncate = 14,
    /// `MPI_ERR_OTHER`
    Other = 15,
    /// `MPI_ERR_INTERN`
    Intern = 16,
    /// `MPI_ERR_REQUEST`
    Request = 19,
    /// `MPI_ERR_BASE`
    Base = 24,
    /// `MPI_ERR_DISP`
    Disp = 28,
    /// `MPI_ERR_NO_MEM`
    NoMem = 34,
    /// `MPI_ERR_WIN`
    Win = 45,
    /// `MPI_ERR_RMA_SYNC`
    RmaSync = 50,
    /// `MPI_ERR_RMA_RANGE`
    RmaRange = 55,
    /// `MPI_ERR_ASSERT`
    Assert = 53,
    /// `MPI_ERR_RMA_ATTACH`
    RmaAttach = 56,
    /// `MPI_ERR_RMA_FLAVOR`
    RmaFlavor = 58,
    /// `MPI_ERR_UNSUPPORTED_OPERATION`
    Unsupported = 52,
    /// `MPI_ERR_INFO_KEY`
    InfoKey = 29,
    /// `MPI_ERR_INFO_VALUE`
    InfoValue = 30,
    /// `MPI_ERR_INFO_NOKEY`
    InfoNokey = 31,
    /// `MPI_ERR_INFO`
    Info = 32,
}

impl Class {
    /// Every class, for lookups by value.
    pub const ALL: [Self; 28] = [
        Self::Buffer,
        Self::Count,
        Self::Type,
        Self::Tag,
        Self::Comm,
        Self::Rank,
        Self::Root,
        Self::Group,
        Self::Op,
        Self::Arg,
        Self::Truncate,
        Self::Other,
        Self::Intern,
        Self::Request,
        Self::Base,
        Self::Disp,
        Self::NoMem,
        Self::Win,
        Self::RmaSync,
        Self::RmaRange,
        Self::Assert,
        Self::RmaAttach,
        Self::RmaFlavor,
        Self::Unsupported,
        Self::InfoKey,
        Self::InfoValue,
        Self::InfoNokey,
        Self::Info,
    ];

    /// The class of value `code` (an error code's low byte, see
    /// [`code_class`]).
    pub fn from_value(code: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|c| *c as i32 == code)
    }

    /// Its name in `mpi.h`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Buffer => "MPI_ERR_BUFFER",
            Self::Count => "MPI_ERR_COUNT",
            Self::Type => "MPI_ERR_TYPE",
            Self::Tag => "MPI_ERR_TAG",
            Self::Comm => "MPI_ERR_COMM",
            Self::Rank => "MPI_ERR_RANK",
            Self::Root => "MPI_ERR_ROOT",
            Self::Group => "MPI_ERR_GROUP",
            Self::Op => "MPI_ERR_OP",
            Self::Arg => "MPI_ERR_ARG",
            Self::Truncate => "MPI_ERR_TRUNCATE",
            Self::Other => "MPI_ERR_OTHER",
            Self::Intern => "MPI_ERR_INTERN",
            Self::Request => "MPI_ERR_REQUEST",
            Self::Base => "MPI_ERR_BASE",
            Self::Disp => "MPI_ERR_DISP",
            Self::NoMem => "MPI_ERR_NO_MEM",
            Self::Win => "MPI_ERR_WIN",
            Self::RmaSync => "MPI_ERR_RMA_SYNC",
            Self::RmaRange => "MPI_ERR_RMA_RANGE",
            Self::Assert => "MPI_ERR_ASSERT",
            Self::RmaAttach => "MPI_ERR_RMA_ATTACH",
            Self::RmaFlavor => "MPI_ERR_RMA_FLAVOR",
            Self::Unsupported => "MPI_ERR_UNSUPPORTED_OPERATION",
            Self::InfoKey => "MPI_ERR_INFO_KEY",
            Self::InfoValue => "MPI_ERR_INFO_VALUE",
            Self::InfoNokey => "MPI_ERR_INFO_NOKEY",
            Self::Info => "MPI_ERR_INFO",
        }
    }

    /// What the class means, as `MPI_Error_string` says it for a bare
    /// class.
    pub const fn meaning(self) -> &'static str {
        match self {
            Self::Buffer => "invalid buffer pointer",
            Self::Count => "invalid count argument",
            Self::Type => "invalid datatype",
            Self::Tag => "invalid tag",
            Self::Comm => "invalid communicator",
            Self::Rank => "invalid rank",
            Self::Root => "invalid root",
            Self::Group => "invalid group",
            Self::Op => "invalid operation",
            Self::Arg => "invalid argument",
            Self::Truncate => "message truncated",
            Self::Other => "other error",
            Self::Intern => "internal error",
            Self::Request => "invalid request",
            Self::Base => "invalid base address",
            Self::Disp => "invalid displacement unit",
            Self::NoMem => "out of memory",
            Self::Win => "invalid window",
            Self::RmaSync => "wrong synchronisation of one-sided calls",
            Self::RmaRange => "target memory outside the window",
            Self::Assert => "invalid assertion",
            Self::RmaAttach => "memory cannot be attached",
            Self::RmaFlavor => "wrong window flavor",
            Self::Unsupported => "operation not supported",
            Self::InfoKey => "invalid info key",
            Self::InfoValue => "invalid info value",
            Self::InfoNokey => "no such info key",
            Self::Info => "invalid info object",
        }
    }
}

/// The MPI class of an rma error class.
pub const fn class_of(class: ErrorClass) -> Class {
    match class {
        ErrorClass::Rank => Class::Rank,
        ErrorClass::Root => Class::Root,
        ErrorClass::Group => Class::Group,
        ErrorClass::Arg => Class::Arg,
        ErrorClass::Truncate => Class::Truncate,
        ErrorClass::Win => Class::Win,
        ErrorClass::Base => Class::Base,
        ErrorClass::Disp => Class::Disp,
        ErrorClass::Assert => Class::Assert,
        ErrorClass::NoMem => Class::NoMem,
        ErrorClass::RmaSync => Class::RmaSync,
        ErrorClass::RmaRange => Class::RmaRange,
        ErrorClass::Intern => Class::Intern,
        ErrorClass::Op => Class::Op,
        ErrorClass::Type => Class::Type,
        ErrorClass::Request => Class::Request,
        ErrorClass::RmaFlavor => Class::RmaFlavor,
        ErrorClass::RmaAttach => Class::RmaAttach,
    }
}

/// `MPI_ERR_LASTCODE`: every class and code lies below it.
pub const LAST_CODE: i32 = 0x3fff_ffff;

/// Error codes beyond the bare classes: the class in the low byte and the
/// number of a recorded message above it (`MPI_Error_string` gives the
/// message, `MPI_Error_class` the class).
pub const fn code(class: Class, message: u32) -> i32 {
    class as i32 | ((message % (MAX_MESSAGE + 1)) as i32) << 8
}

/// The largest message number a code holds.
pub const MAX_MESSAGE: u32 = 0x3f_fffe;

/// The class of error code `code`, and its message's number (0: none).
pub fn code_class(code: i32) -> Option<(Class, u32)> {
    if !(1..LAST_CODE).contains(&code) {
        return None;
    }
    Class::from_value(code & 0xff).map(|c| (c, (code >> 8) as u32))
}

/// The predefined communicators' handles.
pub mod comm {
    /// `MPI_COMM_NULL`
    pub const NULL: i32 = 0;
    /// `MPI_COMM_WORLD`
    pub const WORLD: i32 = 1;
    /// `MPI_COMM_SELF`
    pub const SELF: i32 = 2;
    /// `MPI_COMM_TYPE_SHARED`, `MPI_Comm_split_type`'s one type.
    pub const TYPE_SHARED: i32 = 1;
}

/// The predefined error handlers' handles.
pub mod errhandler {
    /// `MPI_ERRHANDLER_NULL`
    pub const NULL: i32 = 0;
    /// `MPI_ERRORS_ARE_FATAL`
    pub const FATAL: i32 = 1;
    /// `MPI_ERRORS_RETURN`
    pub const RETURN: i32 = 2;
}

/// Info objects.
pub mod info {
    /// `MPI_INFO_NULL`
    pub const NULL: i32 = 0;
    /// `MPI_MAX_INFO_KEY`: the longest key, in characters.
    pub const MAX_KEY: i32 = 255;
    /// `MPI_MAX_INFO_VAL`: the longest value, in characters.
    pub const MAX_VAL: i32 = 1024;
}

/// `MPI_MAX_OBJECT_NAME`: the longest name of a communicator or window,
/// in characters, its NUL included.
pub const MAX_OBJECT_NAME: i32 = 128;

/// Attribute keys: the predefined ones of `MPI_COMM_WORLD`, the invalid
/// key, and the null callbacks.
pub mod keyval {
    /// `MPI_KEYVAL_INVALID`: no key, what a freed key's handle becomes.
    pub const INVALID: i32 = 0x2400_0000;
    /// `MPI_TAG_UB`
    pub const TAG_UB: i32 = 0x6440_0001;
    /// `MPI_HOST`
    pub const HOST: i32 = 0x6440_0003;
    /// `MPI_IO`
    pub const IO: i32 = 0x6440_0005;
    /// `MPI_WTIME_IS_GLOBAL`
    pub const WTIME_IS_GLOBAL: i32 = 0x6440_0007;
    /// `MPI_UNIVERSE_SIZE`
    pub const UNIVERSE_SIZE: i32 = 0x6440_0009;
    /// `MPI_APPNUM`
    pub const APPNUM: i32 = 0x6440_000d;
    /// The first key `MPI_Comm_create_keyval` and `MPI_Win_create_keyval`
    /// give (each next one is one more): none is a predefined key or
    /// `MPI_KEYVAL_INVALID`.
    pub const FIRST_USER: i32 = 0x6800_0001;
    /// `MPI_COMM_NULL_COPY_FN`, `MPI_COMM_NULL_DELETE_FN`,
    /// `MPI_WIN_NULL_COPY_FN`, `MPI_WIN_NULL_DELETE_FN`: null function
    /// pointers (no copy: the attribute is not copied; no delete: nothing
    /// is called).
    pub const NULL_FN: i32 = 0;
}

/// The combiners `MPI_Type_get_envelope` gives.
pub mod combiner {
    /// `MPI_COMBINER_NAMED`: a predefined type.
    pub const NAMED: i32 = 1;
    /// `MPI_COMBINER_DUP`
    pub const DUP: i32 = 2;
    /// `MPI_COMBINER_CONTIGUOUS`
    pub const CONTIGUOUS: i32 = 3;
    /// `MPI_COMBINER_VECTOR`
    pub const VECTOR: i32 = 4;
    /// `MPI_COMBINER_HVECTOR`
    pub const HVECTOR: i32 = 6;
    /// `MPI_COMBINER_INDEXED`
    pub const INDEXED: i32 = 7;
    /// `MPI_COMBINER_HINDEXED`
    pub const HINDEXED: i32 = 9;
    /// `MPI_COMBINER_INDEXED_BLOCK`
    pub const INDEXED_BLOCK: i32 = 10;
    /// `MPI_COMBINER_STRUCT`
    pub const STRUCT: i32 = 12;
    /// `MPI_COMBINER_SUBARRAY`
    pub const SUBARRAY: i32 = 13;
    /// `MPI_COMBINER_DARRAY`
    pub const DARRAY: i32 = 14;
    /// `MPI_COMBINER_RESIZED`
    pub const RESIZED: i32 = 18;
    /// `MPI_COMBINER_HINDEXED_BLOCK`
    pub const HINDEXED_BLOCK: i32 = 19;
}

/// The predefined window attribute keys and their values.
pub mod win {
    /// `MPI_WIN_BASE`
    pub const BASE: i32 = 0x6600_0001;
    /// `MPI_WIN_SIZE`
    pub const SIZE: i32 = 0x6600_0003;
    /// `MPI_WIN_DISP_UNIT`
    pub const DISP_UNIT: i32 = 0x6600_0005;
    /// `MPI_WIN_CREATE_FLAVOR`
    pub const CREATE_FLAVOR: i32 = 0x6600_0007;
    /// `MPI_WIN_MODEL`
    pub const MODEL: i32 = 0x6600_0009;
    /// `MPI_WIN_FLAVOR_CREATE`
    pub const FLAVOR_CREATE: i32 = 1;
    /// `MPI_WIN_FLAVOR_ALLOCATE`
    pub const FLAVOR_ALLOCATE: i32 = 2;
    /// `MPI_WIN_FLAVOR_DYNAMIC`
    pub const FLAVOR_DYNAMIC: i32 = 3;
    /// `MPI_WIN_FLAVOR_SHARED`
    pub const FLAVOR_SHARED: i32 = 4;
    /// `MPI_WIN_SEPARATE`
    pub const SEPARATE: i32 = 1;
    /// `MPI_WIN_UNIFIED`
    pub const UNIFIED: i32 = 2;
}

/// The predefined datatypes C programs name, as far as this library
/// carries them: each is a number of bytes (its size, and the extent of
/// its C type), and a kind for reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datatype {
    /// `MPI_CHAR`
    Char = 1,
    /// `MPI_SIGNED_CHAR`
    SignedChar = 2,
    /// `MPI_UNSIGNED_CHAR`
    UnsignedChar = 3,
    /// `MPI_BYTE`
    Byte = 4,
    /// `MPI_SHORT`
    Short = 5,
    /// `MPI_UNSIGNED_SHORT`
    UnsignedShort = 6,
    /// `MPI_INT`
    Int = 7,
    /// `MPI_UNSIGNED`
    Unsigned = 8,
    /// `MPI_LONG` (32 bits on the P54C)
    Long = 9,
    /// `MPI_UNSIGNED_LONG`
    UnsignedLong = 10,
    /// `MPI_LONG_LONG`
    LongLong = 11,
    /// `MPI_UNSIGNED_LONG_LONG`
    UnsignedLongLong = 12,
    /// `MPI_FLOAT`
    Float = 13,
    /// `MPI_DOUBLE`
    Double = 14,
    /// `MPI_INT32_T`
    Int32 = 15,
    /// `MPI_UINT32_T`
    Uint32 = 16,
    /// `MPI_INT64_T`
    Int64 = 17,
    /// `MPI_UINT64_T`
    Uint64 = 18,
    /// `MPI_AINT`
    Aint = 19,
    /// `MPI_2INT`: `struct { int value; int index; }`
    TwoInt = 20,
    /// `MPI_FLOAT_INT`: `struct { float value; int index; }`
    FloatInt = 21,
    /// `MPI_DOUBLE_INT`: `struct { double value; int index; }`, 12 bytes
    /// (a double is aligned to 4 bytes in an i386 struct)
    DoubleInt = 22,
    /// `MPI_LONG_INT`: `struct { long value; int index; }`
    LongInt = 23,
    /// `MPI_SHORT_INT`: `struct { short value; int index; }`, 6 bytes of
    /// data in 8 (2 bytes of padding after the short)
    ShortInt = 24,
    /// `MPI_LONG_DOUBLE_INT`: `struct { long double value; int index; }`,
    /// 16 bytes (the x87's 80-bit extended in 12 bytes, then the int)
    LongDoubleInt = 25,
    /// `MPI_LONG_DOUBLE`: C's `long double` on i386, the x87's 80-bit
    /// extended value in 12 bytes ([`Value::X87`]), aligned to 4
    LongDouble = 26,
}

/// How a datatype's elements reduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    /// Bytes and characters: no arithmetic.
    Bytes,
    /// 16-bit integers (no reduction in rma).
    I16,
    /// Signed 32-bit integers.
    I32,
    /// Unsigned 32-bit integers.
    U32,
    /// Signed 64-bit integers.
    I64,
    /// Unsigned 64-bit integers.
    U64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// C's `long double`: the x87's 80-bit extended value in 12 bytes
    /// (`rma::X87`, whose sum and product the x87 computes).
    X87,
    /// A value and an int index: the pair types of `MPI_MINLOC` and
    /// `MPI_MAXLOC` ([`Datatype::pair`]).
    Pair,
}

/// The value of a pair type: what `MPI_MINLOC` and `MPI_MAXLOC` compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// C's `short`.
    I16,
    /// C's `int` and `long`.
    I32,
    /// C's `float`.
    F32,
    /// C's `double`.
    F64,
    /// C's `long double` on i386: the x87's 80-bit extended format (a
    /// 64-bit significand with its integer bit, then the sign and a
    /// 15-bit exponent) in 12 bytes, the last 2 padding.
    X87,
}

impl Value {
    /// Bytes of the value in memory (`sizeof`).
    pub const fn bytes(self) -> u32 {
        match self {
            Self::I16 => 2,
            Self::I32 | Self::F32 => 4,
            Self::F64 => 8,
            Self::X87 => 12,
        }
    }
}

/// How gcc -m32 lays out a pair type's `struct { T value; int index; }`
/// (no -malign-double: a double or long double is aligned to 4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// The value's type, at offset 0.
    pub value: Value,
    /// The offset of the int index.
    pub index_at: u32,
}

impl Datatype {
    /// Every datatype, for lookups by handle.
    pub const ALL: [Self; 26] = [
        Self::Char,
        Self::SignedChar,
        Self::UnsignedChar,
        Self::Byte,
        Self::Short,
        Self::UnsignedShort,
        Self::Int,
        Self::Unsigned,
        Self::Long,
        Self::UnsignedLong,
        Self::LongLong,
        Self::UnsignedLongLong,
        Self::Float,
        Self::Double,
        Self::Int32,
        Self::Uint32,
        Self::Int64,
        Self::Uint64,
        Self::Aint,
        Self::TwoInt,
        Self::FloatInt,
        Self::DoubleInt,
        Self::LongInt,
        Self::ShortInt,
        Self::LongDoubleInt,
        Self::LongDouble,
    ];

    /// The datatype of handle `handle`.
    pub fn from_handle(handle: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|d| *d as i32 == handle)
    }

    /// Its name in `mpi.h`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Char => "MPI_CHAR",
            Self::SignedChar => "MPI_SIGNED_CHAR",
            Self::UnsignedChar => "MPI_UNSIGNED_CHAR",
            Self::Byte => "MPI_BYTE",
            Self::Short => "MPI_SHORT",
            Self::UnsignedShort => "MPI_UNSIGNED_SHORT",
            Self::Int => "MPI_INT",
            Self::Unsigned => "MPI_UNSIGNED",
            Self::Long => "MPI_LONG",
            Self::UnsignedLong => "MPI_UNSIGNED_LONG",
            Self::LongLong => "MPI_LONG_LONG",
            Self::UnsignedLongLong => "MPI_UNSIGNED_LONG_LONG",
            Self::Float => "MPI_FLOAT",
            Self::Double => "MPI_DOUBLE",
            Self::Int32 => "MPI_INT32_T",
            Self::Uint32 => "MPI_UINT32_T",
            Self::Int64 => "MPI_INT64_T",
            Self::Uint64 => "MPI_UINT64_T",
            Self::Aint => "MPI_AINT",
            Self::TwoInt => "MPI_2INT",
            Self::FloatInt => "MPI_FLOAT_INT",
            Self::DoubleInt => "MPI_DOUBLE_INT",
            Self::LongInt => "MPI_LONG_INT",
            Self::ShortInt => "MPI_SHORT_INT",
            Self::LongDoubleInt => "MPI_LONG_DOUBLE_INT",
            Self::LongDouble => "MPI_LONG_DOUBLE",
        }
    }

    /// Its element kind.
    pub const fn element(self) -> Element {
        match self {
            Self::Char | Self::SignedChar | Self::UnsignedChar | Self::Byte => Element::Bytes,
            Self::Short | Self::UnsignedShort => Element::I16,
            Self::Int | Self::Long | Self::Int32 | Self::Aint => Element::I32,
            Self::Unsigned | Self::UnsignedLong | Self::Uint32 => Element::U32,
            Self::LongLong | Self::Int64 => Element::I64,
            Self::UnsignedLongLong | Self::Uint64 => Element::U64,
            Self::Float => Element::F32,
            Self::Double => Element::F64,
            Self::LongDouble => Element::X87,
            Self::TwoInt
            | Self::FloatInt
            | Self::DoubleInt
            | Self::LongInt
            | Self::ShortInt
            | Self::LongDoubleInt => Element::Pair,
        }
    }

    /// The layout of a pair type; `None` for the others.
    pub const fn pair(self) -> Option<Pair> {
        let (value, index_at) = match self {
            Self::TwoInt | Self::LongInt => (Value::I32, 4),
            Self::FloatInt => (Value::F32, 4),
            Self::DoubleInt => (Value::F64, 8),
            Self::ShortInt => (Value::I16, 4),
            Self::LongDoubleInt => (Value::X87, 12),
            _ => return None,
        };
        Some(Pair { value, index_at })
    }

    /// Its size (`MPI_Type_size`): the bytes of data an element holds on
    /// the P54C (ILP32), padding not counted.
    pub const fn size(self) -> u32 {
        match self {
            Self::Char | Self::SignedChar | Self::UnsignedChar | Self::Byte => 1,
            Self::Short | Self::UnsignedShort => 2,
            Self::Int
            | Self::Unsigned
            | Self::Long
            | Self::UnsignedLong
            | Self::Float
            | Self::Int32
            | Self::Uint32
            | Self::Aint => 4,
            Self::LongLong | Self::UnsignedLongLong | Self::Double | Self::Int64 | Self::Uint64 => {
                8
            }
            Self::ShortInt => 6,
            Self::TwoInt | Self::FloatInt | Self::LongInt => 8,
            Self::DoubleInt | Self::LongDouble => 12,
            Self::LongDoubleInt => 16,
        }
    }

    /// Its extent (`MPI_Type_get_extent`): the bytes from one element of
    /// an array to the next, C's `sizeof`. Only `MPI_SHORT_INT`'s differs
    /// from its size.
    pub const fn extent(self) -> u32 {
        match self {
            Self::ShortInt => 8,
            _ => self.size(),
        }
    }

    /// Where an element's data lies in its extent, as (offset, length)
    /// runs: one run but for `MPI_SHORT_INT`, whose padding parts them.
    pub fn runs(self) -> impl Iterator<Item = (u32, u32)> {
        let (first, second) = match self.pair() {
            Some(p) if p.value.bytes() < p.index_at => {
                ((0, p.value.bytes()), Some((p.index_at, 4)))
            }
            _ => ((0, self.size()), None),
        };
        core::iter::once(first).chain(second)
    }
}

/// The predefined reduction operations this library applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `MPI_MAX`
    Max = 1,
    /// `MPI_MIN`
    Min = 2,
    /// `MPI_SUM`
    Sum = 3,
    /// `MPI_PROD`
    Prod = 4,
    /// `MPI_LAND`
    Land = 5,
    /// `MPI_BAND`
    Band = 6,
    /// `MPI_LOR`
    Lor = 7,
    /// `MPI_BOR`
    Bor = 8,
    /// `MPI_LXOR`
    Lxor = 9,
    /// `MPI_BXOR`
    Bxor = 10,
    /// `MPI_MINLOC`
    Minloc = 11,
    /// `MPI_MAXLOC`
    Maxloc = 12,
    /// `MPI_REPLACE`
    Replace = 13,
    /// `MPI_NO_OP`
    NoOp = 14,
}

impl Op {
    /// Every operation, for lookups by handle.
    pub const ALL: [Self; 14] = [
        Self::Max,
        Self::Min,
        Self::Sum,
        Self::Prod,
        Self::Land,
        Self::Band,
        Self::Lor,
        Self::Bor,
        Self::Lxor,
        Self::Bxor,
        Self::Minloc,
        Self::Maxloc,
        Self::Replace,
        Self::NoOp,
    ];

    /// The operation of handle `handle`.
    pub fn from_handle(handle: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|o| *o as i32 == handle)
    }

    /// Its name in `mpi.h`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Max => "MPI_MAX",
            Self::Min => "MPI_MIN",
            Self::Sum => "MPI_SUM",
            Self::Prod => "MPI_PROD",
            Self::Land => "MPI_LAND",
            Self::Band => "MPI_BAND",
            Self::Lor => "MPI_LOR",
            Self::Bor => "MPI_BOR",
            Self::Lxor => "MPI_LXOR",
            Self::Bxor => "MPI_BXOR",
            Self::Minloc => "MPI_MINLOC",
            Self::Maxloc => "MPI_MAXLOC",
            Self::Replace => "MPI_REPLACE",
            Self::NoOp => "MPI_NO_OP",
        }
    }

    /// Whether `MPI_Reduce` and the other reductions take this operation
    /// on elements of `ty`: `MPI_MINLOC` and `MPI_MAXLOC` on the pair
    /// types and nothing else on them; the arithmetic operations on every
    /// other type, the logical and bitwise ones on all but floats.
    pub const fn reduces(self, ty: Datatype) -> bool {
        match (self, ty.element()) {
            (Self::Minloc | Self::Maxloc, kind) => matches!(kind, Element::Pair),
            (_, Element::Pair) | (Self::Replace | Self::NoOp, _) => false,
            (Self::Sum | Self::Prod | Self::Min | Self::Max, _) => true,
            (_, kind) => !matches!(kind, Element::F32 | Element::F64 | Element::X87),
        }
    }

    /// What a reduction with this operation on `ty` fails with when
    /// [`Op::reduces`] says no: the combination, and what would do.
    pub fn refusal(self, ty: Datatype) -> alloc::string::String {
        let hint = match (self, ty.element()) {
            (Self::Minloc | Self::Maxloc, _) => {
                " (it takes the pair types MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, \
                 MPI_SHORT_INT and MPI_LONG_DOUBLE_INT)"
            }
            (_, Element::Pair) => " (a pair type reduces with MPI_MINLOC and MPI_MAXLOC only)",
            _ => "",
        };
        alloc::format!("{} is not a reduction on {}{hint}", self.name(), ty.name())
    }

    /// rma's reduction for this operation, where rma has one.
    pub const fn reduce_op(self) -> Option<rma::comm::ReduceOp> {
        match self {
            Self::Max => Some(rma::comm::ReduceOp::Max),
            Self::Min => Some(rma::comm::ReduceOp::Min),
            Self::Sum => Some(rma::comm::ReduceOp::Sum),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
