// SPDX-License-Identifier: MIT OR Apache-2.0
//! `mpi.h` and the library agree: every constant the library knows has the
//! header's value, and every function the header declares is defined.

use std::collections::BTreeMap;

use super::*;

const HEADER: &str = include_str!("../../include/mpi.h");
/// The library's sources, where the calls are defined.
const CALLS: [&str; 12] = [
    include_str!("../guest/attrs.rs"),
    include_str!("../guest/errhandlers.rs"),
    include_str!("../guest/inter.rs"),
    include_str!("../guest/ops.rs"),
    include_str!("../guest/datatypes.rs"),
    include_str!("../guest/p2p.rs"),
    include_str!("../guest/env.rs"),
    include_str!("../guest/collective.rs"),
    include_str!("../guest/groups.rs"),
    include_str!("../guest/window.rs"),
    include_str!("../guest/info.rs"),
    include_str!("../guest/unsupported.rs"),
];

/// The header's `#define NAME VALUE` lines, values as written with a cast
/// `((MPI_X)N)` taken off.
fn defines() -> BTreeMap<&'static str, &'static str> {
    HEADER
        .lines()
        .filter_map(|line| line.strip_prefix("#define "))
        .filter_map(|rest| rest.split_once(' '))
        .map(|(name, value)| {
            let value = value.trim();
            let value = match value.strip_prefix("((").and_then(|v| v.strip_suffix(')')) {
                Some(cast) => cast.split_once(')').map_or(value, |(_, n)| n),
                None => value,
            };
            (name, value)
        })
        .collect()
}

fn value_of(defines: &BTreeMap<&str, &str>, name: &str) -> i32 {
    let text = defines
        .get(name)
        .unwrap_or_else(|| panic!("mpi.h does not define {name}"));
    match text.strip_prefix("0x") {
        Some(hex) => i32::from_str_radix(hex, 16).unwrap(),
        None => text
            .trim_matches(|c| c == '(' || c == ')')
            .parse()
            .unwrap_or_else(|_| panic!("{name} is {text}")),
    }
}

#[test]
fn the_header_gives_every_class_datatype_and_operation_the_library_value() {
    let defines = defines();
    for class in Class::ALL {
        assert_eq!(
            value_of(&defines, class.name()),
            class as i32,
            "{}",
            class.name()
        );
        assert_eq!(Class::from_value(class as i32), Some(class));
    }
    for ty in Datatype::ALL {
        assert_eq!(value_of(&defines, ty.name()), ty as i32, "{}", ty.name());
        assert_eq!(Datatype::from_handle(ty as i32), Some(ty));
    }
    for op in Op::ALL {
        assert_eq!(value_of(&defines, op.name()), op as i32, "{}", op.name());
        assert_eq!(Op::from_handle(op as i32), Some(op));
    }
    for (name, value) in [
        ("MPI_SUCCESS", SUCCESS),
        ("MPI_DATATYPE_NULL", DATATYPE_NULL),
        ("MPI_WIN_BASE", win::BASE),
        ("MPI_WIN_SIZE", win::SIZE),
        ("MPI_WIN_DISP_UNIT", win::DISP_UNIT),
        ("MPI_WIN_CREATE_FLAVOR", win::CREATE_FLAVOR),
        ("MPI_WIN_MODEL", win::MODEL),
        ("MPI_WIN_FLAVOR_CREATE", win::FLAVOR_CREATE),
        ("MPI_WIN_FLAVOR_ALLOCATE", win::FLAVOR_ALLOCATE),
        ("MPI_WIN_FLAVOR_DYNAMIC", win::FLAVOR_DYNAMIC),
        ("MPI_WIN_FLAVOR_SHARED", win::FLAVOR_SHARED),
        ("MPI_WIN_SEPARATE", win::SEPARATE),
        ("MPI_WIN_UNIFIED", win::UNIFIED),
        ("MPI_ERR_LASTCODE", LAST_CODE),
        ("MPI_INFO_NULL", info::NULL),
        ("MPI_MAX_INFO_KEY", info::MAX_KEY),
        ("MPI_MAX_INFO_VAL", info::MAX_VAL),
        ("MPI_COMM_NULL", comm::NULL),
        ("MPI_COMM_WORLD", comm::WORLD),
        ("MPI_COMM_SELF", comm::SELF),
        ("MPI_COMM_TYPE_SHARED", comm::TYPE_SHARED),
        ("MPI_ERRHANDLER_NULL", errhandler::NULL),
        ("MPI_ERRORS_ARE_FATAL", errhandler::FATAL),
        ("MPI_ERRORS_RETURN", errhandler::RETURN),
        ("MPI_MAX_OBJECT_NAME", MAX_OBJECT_NAME),
        ("MPI_KEYVAL_INVALID", keyval::INVALID),
        ("MPI_TAG_UB", keyval::TAG_UB),
        ("MPI_HOST", keyval::HOST),
        ("MPI_IO", keyval::IO),
        ("MPI_WTIME_IS_GLOBAL", keyval::WTIME_IS_GLOBAL),
        ("MPI_UNIVERSE_SIZE", keyval::UNIVERSE_SIZE),
        ("MPI_APPNUM", keyval::APPNUM),
        ("MPI_COMM_NULL_COPY_FN", keyval::NULL_FN),
        ("MPI_COMM_NULL_DELETE_FN", keyval::NULL_FN),
        ("MPI_WIN_NULL_COPY_FN", keyval::NULL_FN),
        ("MPI_WIN_NULL_DELETE_FN", keyval::NULL_FN),
        ("MPI_COMBINER_NAMED", combiner::NAMED),
        ("MPI_COMBINER_DUP", combiner::DUP),
        ("MPI_COMBINER_CONTIGUOUS", combiner::CONTIGUOUS),
        ("MPI_COMBINER_VECTOR", combiner::VECTOR),
        ("MPI_COMBINER_HVECTOR", combiner::HVECTOR),
        ("MPI_COMBINER_INDEXED", combiner::INDEXED),
        ("MPI_COMBINER_HINDEXED", combiner::HINDEXED),
        ("MPI_COMBINER_INDEXED_BLOCK", combiner::INDEXED_BLOCK),
        ("MPI_COMBINER_STRUCT", combiner::STRUCT),
        ("MPI_COMBINER_SUBARRAY", combiner::SUBARRAY),
        ("MPI_COMBINER_DARRAY", combiner::DARRAY),
        ("MPI_COMBINER_RESIZED", combiner::RESIZED),
        ("MPI_COMBINER_HINDEXED_BLOCK", combiner::HINDEXED_BLOCK),
    ] {
        assert_eq!(value_of(&defines, name), value, "{name}");
    }
}

#[test]
fn every_function_the_header_declares_is_defined() {
    let declared: Vec<&str> = HEADER
        .lines()
        .filter(|line| line.starts_with("int MPI_") || line.starts_with("double MPI_"))
        .map(|line| {
            let name = line.split_once(' ').unwrap().1;
            name.split_once('(').unwrap().0
        })
        .collect();
    assert!(declared.len() > 80, "{} functions", declared.len());
    // The calls `unsupported!` defines, however the list is laid out.
    let listed: Vec<&str> = CALLS
        .iter()
        .filter_map(|source| source.split_once("\nunsupported!("))
        .flat_map(|(_, rest)| {
            rest.split_once(");")
                .map_or("", |(list, _)| list)
                .split(',')
        })
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    for name in declared {
        let defined = listed.contains(&name)
            || CALLS
                .iter()
                .any(|source| source.contains(&format!("pub extern \"C\" fn {name}(")));
        assert!(
            defined,
            "mpi.h declares {name}, which the library does not define"
        );
    }
}

#[test]
fn codes_carry_their_class_and_message_number() {
    for class in Class::ALL {
        assert_eq!(code_class(class as i32), Some((class, 0)));
        for n in [1, 2, 1000, MAX_MESSAGE] {
            let code = code(class, n);
            assert!(code > 0 && code < LAST_CODE, "{code}");
            assert_eq!(code_class(code), Some((class, n)));
        }
    }
    assert_eq!(code_class(0), None);
    assert_eq!(code_class(-1), None);
    assert_eq!(code_class(LAST_CODE), None);
    assert_eq!(code_class(10), None, "no class 10");
}

#[test]
fn every_rma_class_has_an_mpi_class_of_the_same_name() {
    use rma::ErrorClass as E;
    for c in [
        E::Rank,
        E::Root,
        E::Group,
        E::Arg,
        E::Truncate,
        E::Win,
        E::Base,
        E::Disp,
        E::Assert,
        E::NoMem,
        E::RmaSync,
        E::RmaRange,
        E::Intern,
        E::Op,
        E::Type,
        E::Request,
        E::RmaFlavor,
        E::RmaAttach,
    ] {
        assert_eq!(class_of(c).name(), c.mpi_name());
    }
}

#[test]
fn pair_types_are_their_structs_value_and_index() {
    for ty in Datatype::ALL {
        let Some(p) = ty.pair() else {
            assert_eq!(ty.extent(), ty.size(), "{}", ty.name());
            assert_eq!(ty.runs().collect::<Vec<_>>(), [(0, ty.size())]);
            continue;
        };
        assert_eq!(ty.element(), Element::Pair, "{}", ty.name());
        assert_eq!(ty.size(), p.value.bytes() + 4, "{}", ty.name());
        assert_eq!(ty.extent(), p.index_at + 4, "{}", ty.name());
        let runs: Vec<(u32, u32)> = ty.runs().collect();
        assert_eq!(
            runs.iter().map(|r| r.1).sum::<u32>(),
            ty.size(),
            "{}",
            ty.name()
        );
        assert_eq!(runs.last().map(|r| r.0 + r.1), Some(ty.extent()));
    }
    assert_eq!(
        Datatype::ShortInt.runs().collect::<Vec<_>>(),
        [(0, 2), (4, 4)]
    );
}

// The guest's C flags (`-m32 -march=pentium`, freestanding).
include!("../../../../kernel/crt/cflags.rs");

/// Every pair type's size, extent and index offset, as gcc lays out its
/// struct for the guest: a C file of static assertions against mpi.h,
/// compiled with the guest's flags (its syntax checked; nothing links).
#[test]
fn gcc_lays_out_the_pair_structs_as_the_library_says() {
    let value = |v: Value| match v {
        Value::I16 => "short",
        Value::I32 => "int",
        Value::F32 => "float",
        Value::F64 => "double",
        Value::X87 => "long double",
    };
    let mut c = String::from("#include <mpi.h>\n#include <stddef.h>\n");
    for ty in Datatype::ALL {
        let Some(p) = ty.pair() else { continue };
        // MPI_LONG_INT's value is a long, which value() calls int.
        let t = if ty == Datatype::LongInt {
            "long"
        } else {
            value(p.value)
        };
        let (h, name) = (ty as i32, ty.name());
        c += &format!(
            "struct p{h} {{ {t} value; int index; }};\n\
             _Static_assert({name} == {h}, \"{name}'s handle\");\n\
             _Static_assert(sizeof({t}) == {}, \"{name}'s value\");\n\
             _Static_assert(sizeof(struct p{h}) == {}, \"{name}'s extent\");\n\
             _Static_assert(offsetof(struct p{h}, index) == {}, \"{name}'s index\");\n",
            p.value.bytes(),
            ty.extent(),
            p.index_at,
        );
    }
    // MPI_LONG_DOUBLE: the value of MPI_LONG_DOUBLE_INT, alone.
    c += &format!(
        "_Static_assert(MPI_LONG_DOUBLE == {}, \"MPI_LONG_DOUBLE's handle\");\n\
         _Static_assert(sizeof(long double) == {}, \"MPI_LONG_DOUBLE's size\");\n\
         _Static_assert(_Alignof(long double) == 4, \"MPI_LONG_DOUBLE's alignment\");\n",
        Datatype::LongDouble as i32,
        Datatype::LongDouble.size(),
    );
    assert_eq!(Datatype::LongDouble.size(), Value::X87.bytes());
    assert_eq!(Datatype::LongDouble.element(), Element::X87);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = std::env::temp_dir().join(format!("mpi-pairs-{}.c", std::process::id()));
    std::fs::write(&file, &c).unwrap();
    let out = std::process::Command::new("gcc")
        .args(TARGET_CFLAGS)
        .args(FREESTANDING_CFLAGS)
        .args(["-std=c11", "-fsyntax-only", "-I"])
        .arg(dir.join("include"))
        .arg("-I")
        .arg(dir.join("../../kernel/crt/include"))
        .arg(&file)
        .output()
        .expect("gcc runs");
    std::fs::remove_file(&file).unwrap();
    assert!(
        out.status.success(),
        "{c}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
