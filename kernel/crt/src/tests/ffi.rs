// SPDX-License-Identifier: MIT OR Apache-2.0
//! The library's functions and globals under their host-test names
//! (`crt_*`, see `test/rename.h`), and the test-only C helpers
//! (`test/helpers.c`). Types are the host's: `long` and `size_t` are 64
//! bits here.

#![allow(dead_code, reason = "declarations the C side has, not all used")]

use core::ffi::{
    c_char, c_double, c_float, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void,
};

/// The library's opaque stream type.
#[repr(C)]
#[derive(Debug)]
pub struct File {
    _opaque: [u8; 0],
}

/// `div_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivT {
    pub quot: c_int,
    pub rem: c_int,
}

/// `ldiv_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LdivT {
    pub quot: c_long,
    pub rem: c_long,
}

/// `lldiv_t` (and `imaxdiv_t`: intmax_t is 64 bits).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LldivT {
    pub quot: c_longlong,
    pub rem: c_longlong,
}

/// `struct timespec`: `time_t` is `long`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timespec {
    pub tv_sec: c_long,
    pub tv_nsec: c_long,
}

/// `struct timeval`: `time_t` and `suseconds_t` are `long`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timeval {
    pub tv_sec: c_long,
    pub tv_usec: c_long,
}

/// `pthread_mutex_t`: whether it is held.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mutex {
    pub locked: c_int,
}

/// `struct option` of getopt.h.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LongOption {
    pub name: *const c_char,
    pub has_arg: c_int,
    pub flag: *mut c_int,
    pub val: c_int,
}

/// A qsort/bsearch comparison function.
pub type Compar = unsafe extern "C" fn(*const c_void, *const c_void) -> c_int;

unsafe extern "C" {
    pub static mut crt_errno: c_int;
    pub static mut crt_optarg: *mut c_char;
    pub static mut crt_optind: c_int;
    pub static mut crt_opterr: c_int;
    pub static mut crt_optopt: c_int;
    pub static crt_stdout: *mut File;
    pub static crt_stderr: *mut File;

    pub fn crt_snprintf(s: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
    pub fn crt_sprintf(s: *mut c_char, fmt: *const c_char, ...) -> c_int;
    pub fn crt_sscanf(s: *const c_char, fmt: *const c_char, ...) -> c_int;
    pub fn crt_printf(fmt: *const c_char, ...) -> c_int;
    pub fn crt_fprintf(f: *mut File, fmt: *const c_char, ...) -> c_int;
    pub fn crt_fputc(c: c_int, f: *mut File) -> c_int;
    pub fn crt_putc(c: c_int, f: *mut File) -> c_int;
    pub fn crt_putchar(c: c_int) -> c_int;
    pub fn crt_fputs(s: *const c_char, f: *mut File) -> c_int;
    pub fn crt_puts(s: *const c_char) -> c_int;
    pub fn crt_fwrite(p: *const c_void, size: usize, n: usize, f: *mut File) -> usize;
    pub fn crt_fflush(f: *mut File) -> c_int;
    pub fn crt_perror(s: *const c_char);
    pub fn crt_setvbuf(f: *mut File, buf: *mut c_char, mode: c_int, size: usize) -> c_int;
    pub fn crt_setbuf(f: *mut File, buf: *mut c_char);

    pub fn crt_memchr(s: *const c_void, c: c_int, n: usize) -> *mut c_void;
    pub fn crt_strlen(s: *const c_char) -> usize;
    pub fn crt_strnlen(s: *const c_char, n: usize) -> usize;
    pub fn crt_strcmp(a: *const c_char, b: *const c_char) -> c_int;
    pub fn crt_strncmp(a: *const c_char, b: *const c_char, n: usize) -> c_int;
    pub fn crt_strcoll(a: *const c_char, b: *const c_char) -> c_int;
    pub fn crt_strcasecmp(a: *const c_char, b: *const c_char) -> c_int;
    pub fn crt_strncasecmp(a: *const c_char, b: *const c_char, n: usize) -> c_int;
    pub fn crt_strcpy(d: *mut c_char, s: *const c_char) -> *mut c_char;
    pub fn crt_strncpy(d: *mut c_char, s: *const c_char, n: usize) -> *mut c_char;
    pub fn crt_strcat(d: *mut c_char, s: *const c_char) -> *mut c_char;
    pub fn crt_strncat(d: *mut c_char, s: *const c_char, n: usize) -> *mut c_char;
    pub fn crt_strchr(s: *const c_char, c: c_int) -> *mut c_char;
    pub fn crt_strrchr(s: *const c_char, c: c_int) -> *mut c_char;
    pub fn crt_strstr(a: *const c_char, b: *const c_char) -> *mut c_char;
    pub fn crt_strspn(a: *const c_char, b: *const c_char) -> usize;
    pub fn crt_strcspn(a: *const c_char, b: *const c_char) -> usize;
    pub fn crt_strpbrk(a: *const c_char, b: *const c_char) -> *mut c_char;
    pub fn crt_strtok(s: *mut c_char, d: *const c_char) -> *mut c_char;
    pub fn crt_strtok_r(s: *mut c_char, d: *const c_char, save: *mut *mut c_char) -> *mut c_char;
    pub fn crt_strdup(s: *const c_char) -> *mut c_char;
    pub fn crt_strndup(s: *const c_char, n: usize) -> *mut c_char;
    pub fn crt_strerror(e: c_int) -> *mut c_char;

    pub fn crt_malloc(n: usize) -> *mut c_void;
    pub fn crt_calloc(n: usize, size: usize) -> *mut c_void;
    pub fn crt_realloc(p: *mut c_void, n: usize) -> *mut c_void;
    pub fn crt_free(p: *mut c_void);
    pub fn crt_aligned_alloc(align: usize, n: usize) -> *mut c_void;
    pub fn crt_posix_memalign(p: *mut *mut c_void, align: usize, n: usize) -> c_int;

    pub fn crt_atoi(s: *const c_char) -> c_int;
    pub fn crt_atol(s: *const c_char) -> c_long;
    pub fn crt_atoll(s: *const c_char) -> c_longlong;
    pub fn crt_atof(s: *const c_char) -> c_double;
    pub fn crt_strtol(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_long;
    pub fn crt_strtoul(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_ulong;
    pub fn crt_strtoll(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_longlong;
    pub fn crt_strtoull(s: *const c_char, end: *mut *mut c_char, base: c_int) -> c_ulonglong;
    pub fn crt_strtoimax(s: *const c_char, end: *mut *mut c_char, base: c_int) -> i64;
    pub fn crt_strtoumax(s: *const c_char, end: *mut *mut c_char, base: c_int) -> u64;
    pub fn crt_strtod(s: *const c_char, end: *mut *mut c_char) -> c_double;
    pub fn crt_strtof(s: *const c_char, end: *mut *mut c_char) -> c_float;

    pub fn crt_abs(j: c_int) -> c_int;
    pub fn crt_labs(j: c_long) -> c_long;
    pub fn crt_llabs(j: c_longlong) -> c_longlong;
    pub fn crt_imaxabs(j: i64) -> i64;
    pub fn crt_div(n: c_int, d: c_int) -> DivT;
    pub fn crt_ldiv(n: c_long, d: c_long) -> LdivT;
    pub fn crt_lldiv(n: c_longlong, d: c_longlong) -> LldivT;
    pub fn crt_imaxdiv(n: i64, d: i64) -> LldivT;
    pub fn crt_qsort(base: *mut c_void, n: usize, size: usize, compar: Compar);
    pub fn crt_bsearch(
        key: *const c_void,
        base: *const c_void,
        n: usize,
        size: usize,
        compar: Compar,
    ) -> *mut c_void;
    pub fn crt_rand() -> c_int;
    pub fn crt_srand(seed: c_uint);
    pub fn crt_exit(status: c_int) -> !;
    pub fn crt__Exit(status: c_int) -> !;
    pub fn crt_abort() -> !;
    pub fn crt_atexit(f: extern "C" fn()) -> c_int;
    pub fn crt_getenv(name: *const c_char) -> *mut c_char;

    pub fn crt_isalnum(c: c_int) -> c_int;
    pub fn crt_isalpha(c: c_int) -> c_int;
    pub fn crt_isblank(c: c_int) -> c_int;
    pub fn crt_iscntrl(c: c_int) -> c_int;
    pub fn crt_isdigit(c: c_int) -> c_int;
    pub fn crt_isgraph(c: c_int) -> c_int;
    pub fn crt_islower(c: c_int) -> c_int;
    pub fn crt_isprint(c: c_int) -> c_int;
    pub fn crt_ispunct(c: c_int) -> c_int;
    pub fn crt_isspace(c: c_int) -> c_int;
    pub fn crt_isupper(c: c_int) -> c_int;
    pub fn crt_isxdigit(c: c_int) -> c_int;
    pub fn crt_tolower(c: c_int) -> c_int;
    pub fn crt_toupper(c: c_int) -> c_int;

    pub fn crt_getopt(argc: c_int, argv: *const *mut c_char, optstring: *const c_char) -> c_int;
    pub fn crt_getopt_long(
        argc: c_int,
        argv: *const *mut c_char,
        optstring: *const c_char,
        longopts: *const LongOption,
        longindex: *mut c_int,
    ) -> c_int;

    pub fn crt_clock() -> c_long;
    pub fn crt_getpagesize() -> c_int;
    pub fn crt_sysconf(name: c_int) -> c_long;
    pub fn crt_time(t: *mut c_long) -> c_long;
    pub fn crt_difftime(a: c_long, b: c_long) -> c_double;
    pub fn crt_clock_gettime(id: c_int, tp: *mut Timespec) -> c_int;
    pub fn crt_clock_getres(id: c_int, tp: *mut Timespec) -> c_int;
    pub fn crt_gettimeofday(tv: *mut Timeval, tz: *mut c_void) -> c_int;

    pub fn crt_wait(status: *mut c_int) -> c_int;
    pub fn crt_waitpid(pid: c_int, status: *mut c_int, options: c_int) -> c_int;

    pub fn crt_pthread_self() -> c_ulong;
    pub fn crt_pthread_equal(a: c_ulong, b: c_ulong) -> c_int;
    pub fn crt_pthread_create(
        thread: *mut c_ulong,
        attr: *const c_void,
        start: Option<unsafe extern "C" fn(*mut c_void) -> *mut c_void>,
        arg: *mut c_void,
    ) -> c_int;
    pub fn crt_pthread_join(thread: c_ulong, value: *mut *mut c_void) -> c_int;
    pub fn crt_pthread_mutex_init(mutex: *mut Mutex, attr: *const c_void) -> c_int;
    pub fn crt_pthread_mutex_destroy(mutex: *mut Mutex) -> c_int;
    pub fn crt_pthread_mutex_lock(mutex: *mut Mutex) -> c_int;
    pub fn crt_pthread_mutex_trylock(mutex: *mut Mutex) -> c_int;
    pub fn crt_pthread_mutex_unlock(mutex: *mut Mutex) -> c_int;
    pub fn crt_pthread_once(once: *mut c_int, init: unsafe extern "C" fn()) -> c_int;

    pub fn crt_fabs(x: c_double) -> c_double;
    pub fn crt_fabsf(x: c_float) -> c_float;
    pub fn crt_sqrt(x: c_double) -> c_double;
    pub fn crt_sqrtf(x: c_float) -> c_float;
    pub fn crt_floor(x: c_double) -> c_double;
    pub fn crt_ceil(x: c_double) -> c_double;
    pub fn crt_trunc(x: c_double) -> c_double;
    pub fn crt_round(x: c_double) -> c_double;
    pub fn crt_fmod(x: c_double, y: c_double) -> c_double;
    pub fn crt_copysign(x: c_double, y: c_double) -> c_double;
    pub fn crt_sin(x: c_double) -> c_double;
    pub fn crt_cos(x: c_double) -> c_double;
    pub fn crt_exp(x: c_double) -> c_double;

    pub fn __crt_assert_fail(
        expr: *const c_char,
        file: *const c_char,
        line: c_int,
        func: *const c_char,
    ) -> !;

    // test/helpers.c
    pub fn crt_test_format_long_double(
        buf: *mut c_char,
        n: usize,
        fmt: *const c_char,
        v: c_double,
    ) -> c_int;
    pub fn crt_test_glibc_format_long_double(
        buf: *mut c_char,
        n: usize,
        fmt: *const c_char,
        v: c_double,
    ) -> c_int;
    pub fn crt_test_vprintf(fmt: *const c_char, ...) -> c_int;
    pub fn crt_test_vsprintf(buf: *mut c_char, fmt: *const c_char, ...) -> c_int;
    pub fn crt_test_assert(v: c_int);
    pub fn crt_test_assert_line() -> c_int;
    pub fn crt_test_assert_ndebug(v: c_int) -> c_int;
    pub fn crt_test_int64_format(buf: *mut c_char, n: usize, v: i64, u: u64) -> c_int;
}

/// Reads errno.
pub fn errno() -> c_int {
    // SAFETY: a plain C int; tests hold the global lock while using it.
    unsafe { (&raw const crt_errno).read() }
}

/// Sets errno.
pub fn set_errno(v: c_int) {
    // SAFETY: as in `errno`.
    unsafe { (&raw mut crt_errno).write(v) }
}

/// The library's stdout.
pub fn stdout() -> *mut File {
    // SAFETY: a constant pointer initialised by the C side.
    unsafe { crt_stdout }
}

/// The library's stderr.
pub fn stderr() -> *mut File {
    // SAFETY: a constant pointer initialised by the C side.
    unsafe { crt_stderr }
}
