// SPDX-License-Identifier: MIT OR Apache-2.0
//! exit, _Exit, abort, atexit and assert, each in a child process (they
//! end the program through the exit hook, which ends the child).

use std::ffi::c_int;
use std::string::String;

use super::ffi::*;
use super::hooks::{is_child, run_child};

/// The path of a test in this module, for [`run_child`].
fn path(name: &str) -> String {
    std::format!("tests::process::{name}")
}

#[test]
fn wait_and_waitpid_find_no_child() {
    /// ECHILD as Linux numbers it.
    const ECHILD: c_int = 10;
    let _g = super::hooks::lock();
    let mut status = 7;
    // SAFETY: a valid pointer; neither call keeps it.
    unsafe {
        set_errno(0);
        assert_eq!(crt_wait(&raw mut status), -1);
        assert_eq!(errno(), ECHILD);
        set_errno(0);
        assert_eq!(crt_waitpid(-1, &raw mut status, 1), -1);
        assert_eq!(errno(), ECHILD);
    }
    assert_eq!(status, 7, "no status was stored");
}

/// Marks each handler's run on stdout.
extern "C" fn first() {
    // SAFETY: a valid format.
    unsafe { crt_printf(c"first;".as_ptr()) };
}

extern "C" fn second() {
    // SAFETY: a valid format.
    unsafe { crt_printf(c"second;".as_ptr()) };
}

/// Runs the child and returns (status, stdout, stderr).
fn child(name: &str) -> (Option<c_int>, String, String) {
    let out = run_child(&path(name));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn child_exit() {
    if is_child(&path("child_exit")) {
        // SAFETY: handlers are valid functions; exit ends this process.
        unsafe {
            assert_eq!(crt_atexit(first), 0);
            assert_eq!(crt_atexit(second), 0);
            crt_printf(c"buffered;".as_ptr());
            crt_exit(7);
        }
    }
}

#[test]
fn exit_runs_handlers_in_reverse_then_flushes_stdout() {
    let (status, out, _) = child("child_exit");
    assert_eq!(status, Some(7));
    assert!(out.contains("buffered;second;first;"), "{out:?}");
}

#[test]
fn child_underscore_exit() {
    if is_child(&path("child_underscore_exit")) {
        // SAFETY: as in child_exit.
        unsafe {
            crt_atexit(first);
            crt_printf(c"lost".as_ptr());
            crt__Exit(3);
        }
    }
}

#[test]
fn underscore_exit_skips_handlers_and_the_buffer() {
    let (status, out, _) = child("child_underscore_exit");
    assert_eq!(status, Some(3));
    assert!(!out.contains("first;") && !out.contains("lost"), "{out:?}");
}

#[test]
fn child_abort() {
    if is_child(&path("child_abort")) {
        // SAFETY: as in child_exit.
        unsafe {
            crt_atexit(first);
            crt_printf(c"before abort;".as_ptr());
            crt_abort();
        }
    }
}

#[test]
fn abort_flushes_stdout_skips_handlers_and_exits_134() {
    let (status, out, _) = child("child_abort");
    assert_eq!(status, Some(134));
    assert!(
        out.contains("before abort;") && !out.contains("first;"),
        "{out:?}"
    );
}

#[test]
fn child_atexit_limit() {
    if is_child(&path("child_atexit_limit")) {
        // SAFETY: as in child_exit.
        unsafe {
            for _ in 0..32 {
                assert_eq!(crt_atexit(second), 0);
            }
            assert_ne!(crt_atexit(first), 0, "the 33rd handler is refused");
            crt_exit(0);
        }
    }
}

#[test]
fn atexit_takes_32_handlers() {
    let (status, out, err) = child("child_atexit_limit");
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out.matches("second;").count(), 32, "{out:?}");
    assert!(!out.contains("first;"));
}

#[test]
fn child_assert() {
    if is_child(&path("child_assert")) {
        // SAFETY: a passing assert returns; a failing one ends the process.
        unsafe {
            crt_test_assert(1);
            crt_printf(c"passed;".as_ptr());
            crt_test_assert(0);
        }
    }
}

#[test]
fn failed_assert_reports_and_aborts() {
    let (status, out, err) = child("child_assert");
    assert_eq!(status, Some(134));
    assert!(out.contains("passed;"), "{out:?}");
    // SAFETY: returns a constant.
    let line = unsafe { crt_test_assert_line() };
    let expected = "Assertion failed: v != 0, function crt_test_assert, file ";
    assert!(err.contains(expected), "{err:?}");
    assert!(
        err.contains(&std::format!("test/helpers.c, line {line}.\n")),
        "{err:?}"
    );
}

#[test]
fn ndebug_assert_does_nothing() {
    // SAFETY: a pure helper.
    let v = unsafe { crt_test_assert_ndebug(5) };
    assert_eq!(v, 5, "the argument is not evaluated");
}
