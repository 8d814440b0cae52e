// SPDX-License-Identifier: MIT OR Apache-2.0
//! The guest build itself: the C sources compiled as for the guest (gcc
//! -m32 -march=pentium, freestanding, x87 floating point, 64-bit
//! arithmetic through helper calls), linked with `test/i386/` into a
//! static 32-bit Linux program, run on this host, and its output checked
//! against glibc and Rust here. This covers what the renamed host build
//! cannot: the i386 code generation, x87 `sqrt`, 32-bit `long`.

use std::ffi::{CString, c_char, c_int};
use std::path::PathBuf;
use std::process::Command;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use super::format::text;

/// gcc with build.rs's guest flags (freestanding 32-bit Pentium code
/// without the stack protector, our headers only).
fn guest_gcc() -> Command {
    let mut gcc = Command::new("gcc");
    gcc.args(crate::TARGET_CFLAGS)
        .args(crate::FREESTANDING_CFLAGS);
    gcc
}

/// Builds and runs the program; returns its standard output.
fn run_guest_build() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<PathBuf> = Vec::new();
    for sub in ["c", "test/i386"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "c") {
                sources.push(path);
            }
        }
    }
    let out_dir = std::env::temp_dir().join(format!("crt-i386-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join("check32");
    // The guest flags of build.rs, plus what a program of its own needs:
    // static, no C library, and no loop turned into a memcpy call inside
    // test/i386/runtime.c's memcpy.
    let status = guest_gcc()
        .args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"])
        .args([
            "-no-pie",
            "-static",
            "-nostdlib",
            "-fno-tree-loop-distribute-patterns",
        ])
        .arg("-I")
        .arg(dir.join("include"))
        .args(&sources)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("gcc runs");
    assert!(
        status.success(),
        "gcc -m32 builds the guest library and its test program"
    );
    let out = Command::new(&exe)
        .output()
        .expect("this host runs 32-bit x86 Linux programs");
    std::fs::remove_dir_all(&out_dir).unwrap();
    assert!(out.status.success(), "the program exits 0: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// glibc's formatting of one double.
fn glibc(fmt: &str, v: f64) -> String {
    let c = CString::new(fmt).unwrap();
    let mut buf = vec![0u8; 512];
    // SAFETY: 512 bytes of room for the formats used here.
    unsafe { libc::snprintf(buf.as_mut_ptr().cast::<c_char>(), 512, c.as_ptr(), v) };
    text(&buf)
}

/// glibc's strtod of s.
fn glibc_strtod(s: &str) -> f64 {
    let c = CString::new(s).unwrap();
    // SAFETY: a NUL-terminated string.
    unsafe { libc::strtod(c.as_ptr(), std::ptr::null_mut()) }
}

/// The double with these hexadecimal bits.
fn double(hex: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(hex, 16).unwrap())
}

/// Same bits, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check_float(f: &[&str]) {
    let v = double(f[0]);
    assert_eq!(f[1], glibc("%.17g", v), "%.17g of {v:e}");
    assert_eq!(f[2], glibc("%.3e", v), "%.3e of {v:e}");
    assert_eq!(f[3], glibc("%g", v), "%g of {v:e}");
    assert_eq!(f[4], glibc("%a", v), "%a of {v:e}");
    if f[5] != "-" {
        assert_eq!(f[5], glibc("%.10f", v), "%.10f of {v:e}");
    }
    let p: c_int = f[6].parse().unwrap();
    assert_eq!(f[7], glibc(&format!("%.{p}g"), v), "%.{p}g of {v:e}");
    assert!(same(double(f[8]), v), "strtod({:?}) reads back {v:e}", f[1]);
    assert!(same(double(f[9]), glibc_strtod(f[7])), "strtod({:?})", f[7]);
    assert!(same(double(f[10]), v.sqrt()), "sqrt({v:e})");
    assert!(same(double(f[11]), v.floor()), "floor({v:e})");
    assert!(same(double(f[12]), v % 1.5), "fmod({v:e}, 1.5)");
}

fn check_integer(f: &[&str]) {
    let v = u64::from_str_radix(f[0], 16).unwrap();
    let octal = if v == 0 {
        "0".into()
    } else {
        format!("0{v:o}")
    };
    let mut plus5 = [0u8; 32];
    // SAFETY: 32 bytes of room for an int.
    unsafe { libc::snprintf(plus5.as_mut_ptr().cast(), 32, c"%+.5d".as_ptr(), v as i32) };
    let expected = [
        v.to_string(),
        (v as i64).to_string(),
        format!("{v:x}"),
        octal,
        (v as u32).to_string(),
        (v as i32).to_string(),
        text(&plus5),
        (v as u32).to_string(),
        (v as i8).to_string(),
        (v as i64).to_string(),
    ];
    assert_eq!(f[1..], expected, "integer record {v:#x}");
}

#[test]
fn guest_build_agrees_with_glibc() {
    let out = run_guest_build();
    let (mut floats, mut integers, mut divisions) = (0, 0, 0);
    let mut longs = Vec::new();
    for line in out.lines() {
        let (kind, rest) = line.split_at(2);
        let fields: Vec<&str> = rest.split('|').collect();
        match kind {
            "F " => {
                check_float(&fields);
                floats += 1;
            }
            "I " => {
                check_integer(&fields);
                integers += 1;
            }
            "L " | "T " | "P " => longs.push(rest.to_string()),
            "D " => {
                let v: Vec<i64> = fields.iter().map(|f| f.parse().unwrap()).collect();
                assert_eq!(
                    (v[2], v[3]),
                    (v[0] / v[1], v[0] % v[1]),
                    "lldiv({}, {})",
                    v[0],
                    v[1]
                );
                divisions += 1;
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    assert_eq!((floats, integers, divisions), (3006, 3000, 1000));
    // strtol and strtoul with a 32-bit long, strtoll (base 0); errno after
    // all three. Then the clocks.
    let expected = [
        "0|0|0|0|0",
        "-1|-1|4294967295|-1|0",
        "2147483647|2147483647|2147483647|2147483647|0",
        "2147483648|2147483647|2147483648|2147483648|34",
        "-2147483648|-2147483648|2147483648|-2147483648|0",
        "-2147483649|-2147483648|2147483647|-2147483649|34",
        "4294967295|2147483647|4294967295|4294967295|34",
        "4294967296|2147483647|4294967295|4294967296|34",
        "0x7fffffff|2147483647|2147483647|2147483647|0",
        "-0x80000001|-2147483648|2147483647|-2147483649|34",
        "  +077|63|63|63|0",
        "9223372036854775808|2147483647|4294967295|9223372036854775807|34",
        "-9223372036854775809|-2147483648|4294967295|-9223372036854775808|34",
        "zz|0|0|0|0",
        "-9223372036854775808|18446744073709551615|ffffffffffffffff|-5|7|-9223372036854775808|-16|\
         -2147483648|1099511627776|-8|ABCDEF0123",
        // clock() in microseconds, (clock_t)-1 once that passes LONG_MAX.
        "1234567891234|1234567891|1234|1234|567891234",
        "3000000000000000|-1|3000000|3000000|0",
    ];
    assert_eq!(longs, expected);
}

/// The public headers.
const HEADERS: [&str; 22] = [
    "assert.h",
    "ctype.h",
    "errno.h",
    "float.h",
    "getopt.h",
    "inttypes.h",
    "limits.h",
    "math.h",
    "pthread.h",
    "stdarg.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "strings.h",
    "sys/time.h",
    "sys/types.h",
    "sys/wait.h",
    "time.h",
    "unistd.h",
];

/// Compiles source (C, from standard input) as a guest program would be,
/// with -pedantic -Werror; returns gcc's complaints, or None.
fn guest_compile_errors(source: &str, std: &str) -> Option<String> {
    use std::io::Write;
    let include = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include");
    let mut child = guest_gcc()
        .arg(format!("-std={std}"))
        .args([
            "-pedantic",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-x",
            "c",
            "-",
        ])
        .arg("-I")
        .arg(include)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("gcc runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn headers_are_self_contained_in_every_standard() {
    for header in HEADERS {
        let errors = guest_compile_errors(&format!("#include <{header}>\nint x;\n"), "c11");
        assert_eq!(errors, None, "<{header}> alone");
    }
    let all: String = HEADERS
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    let body = "int f(void);\nint f(void) { max_align_t m = {0}; (void)m; assert(1); \
                return (int)offsetof(struct timespec, tv_nsec) + isnan(NAN) + (int)INT64_C(1) + (bool)true; }\n";
    for std in ["c99", "c11", "c17", "gnu99", "gnu11"] {
        let errors = guest_compile_errors(&format!("{all}{body}"), std);
        assert_eq!(errors, None, "all headers in {std}");
    }
    let broken = "#include <stdio.h>\nint f(void) { return undeclared_name; }\n";
    assert!(
        guest_compile_errors(broken, "c11").is_some(),
        "the check can fail"
    );
}

/// The memory functions and hooks the kernel provides, as stubs for a link.
const KERNEL_STUBS: &str = "typedef unsigned int size_t;
void __crt_write(int fd, const char *b, size_t n) { (void)fd; (void)b; (void)n; }
void *__crt_alloc(size_t s, size_t a) { (void)s; (void)a; return 0; }
void __crt_free(void *p, size_t s, size_t a) { (void)p; (void)s; (void)a; }
void __crt_exit(int s) { (void)s; for (;;) {} }
unsigned long long __crt_clock_ns(void) { return 0; }
void *memcpy(void *d, const void *s, size_t n) { (void)s; (void)n; return d; }
void *memmove(void *d, const void *s, size_t n) { (void)s; (void)n; return d; }
void *memset(void *d, int c, size_t n) { (void)c; (void)n; return d; }
int memcmp(const void *a, const void *b, size_t n) { (void)a; (void)b; (void)n; return 0; }
void _start(void) {}
";

#[test]
fn guest_library_links_with_what_the_kernel_image_has() {
    // Every object of the guest library, the kernel's memory functions and
    // hooks (as stubs), and Rust's compiler_builtins for the guest target:
    // the link leaves nothing undefined (gcc's 64-bit helpers included).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out_dir = std::env::temp_dir().join(format!("crt-link-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("stubs.c"), KERNEL_STUBS).unwrap();
    let mut objects = Vec::new();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir.join("c"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.push(out_dir.join("stubs.c"));
    for (i, source) in sources.iter().enumerate() {
        let object = out_dir.join(format!("{i}.o"));
        let status = guest_gcc()
            .args(["-O2", "-std=c11", "-c"])
            .arg("-I")
            .arg(dir.join("include"))
            .arg(source)
            .arg("-o")
            .arg(&object)
            .status()
            .expect("gcc runs");
        assert!(status.success(), "{}", source.display());
        objects.push(object);
    }
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(&dir)
        .output()
        .expect("rustc runs");
    let sysroot = PathBuf::from(String::from_utf8(sysroot.stdout).unwrap().trim());
    let lib = sysroot.join("lib/rustlib/i586-unknown-linux-gnu/lib");
    let builtins = std::fs::read_dir(&lib)
        .expect("the guest target is installed")
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("libcompiler_builtins-")
                && p.extension().is_some_and(|e| e == "rlib")
        })
        .expect("compiler_builtins for the guest");
    let out = Command::new("ld")
        .args(["-m", "elf_i386", "-static", "-o"])
        .arg(out_dir.join("linked"))
        .args(&objects)
        .arg(builtins)
        .output()
        .expect("ld runs");
    std::fs::remove_dir_all(&out_dir).unwrap();
    assert!(
        out.status.success(),
        "link: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
