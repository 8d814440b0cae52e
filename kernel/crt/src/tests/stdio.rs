// SPDX-License-Identifier: MIT OR Apache-2.0
//! The streams: stdout line-buffered, stderr unbuffered, both through the
//! write hook.

use std::ffi::{c_char, c_int};
use std::vec;
use std::vec::Vec;

use super::ffi::*;
use super::hooks::{lock, take_writes};

/// The writes as (fd, text).
fn writes() -> Vec<(c_int, std::string::String)> {
    take_writes()
        .into_iter()
        .map(|(fd, b)| (fd, std::string::String::from_utf8(b).unwrap()))
        .collect()
}

/// Empties stdout's buffer and the record.
fn reset() {
    // SAFETY: flushing stdout.
    unsafe { crt_fflush(stdout()) };
    take_writes();
}

#[test]
fn stdout_is_written_a_line_at_a_time() {
    let _g = lock();
    reset();
    // SAFETY: valid formats and arguments.
    unsafe {
        assert_eq!(crt_printf(c"abc %d".as_ptr(), 1 as c_int), 5);
        assert_eq!(writes(), vec![], "no newline, nothing written");
        assert_eq!(crt_printf(c"-def\nghi".as_ptr()), 8);
        assert_eq!(
            writes(),
            vec![(1, "abc 1-def\n".into())],
            "up to the newline; the rest waits"
        );
        assert_eq!(
            crt_putchar(0x121),
            0x21,
            "the byte written, as unsigned char"
        );
        crt_fputc(b'?' as c_int, stdout());
        crt_putc(b'\n' as c_int, stdout());
        assert_eq!(writes(), vec![(1, "ghi!?\n".into())]);
        crt_puts(c"a line".as_ptr());
        assert_eq!(writes(), vec![(1, "a line\n".into())]);
        crt_fputs(c"no newline".as_ptr(), stdout());
        assert_eq!(crt_fwrite(c"xyz".as_ptr().cast(), 1, 3, stdout()), 3);
        assert_eq!(writes(), vec![]);
        assert_eq!(crt_fflush(stdout()), 0);
        assert_eq!(writes(), vec![(1, "no newlinexyz".into())]);
        set_errno(0);
        assert_eq!(crt_fwrite(c"x".as_ptr().cast(), usize::MAX, 2, stdout()), 0);
        assert_eq!(errno(), 75, "size * nmemb overflows");
        assert_eq!(crt_fwrite(c"x".as_ptr().cast(), 0, 2, stdout()), 0);
        crt_fflush(std::ptr::null_mut());
        assert_eq!(writes(), vec![], "nothing left to flush");
        assert_eq!(
            crt_test_vprintf(c"%s=%d\n".as_ptr(), c"v".as_ptr(), 3 as c_int),
            4
        );
        assert_eq!(writes(), vec![(1, "v=3\n".into())]);
    }
}

#[test]
fn a_full_stdout_buffer_is_written() {
    let _g = lock();
    reset();
    let long = vec![b'x'; 3000];
    let long = std::ffi::CString::new(long).unwrap();
    // SAFETY: a NUL-terminated string.
    unsafe { crt_fputs(long.as_ptr(), stdout()) };
    let w = writes();
    assert_eq!(
        w.iter().map(|(_, t)| t.len()).collect::<Vec<_>>(),
        vec![1024, 1024],
        "BUFSIZ-byte pieces"
    );
    reset();
}

#[test]
fn stderr_is_unbuffered_and_comes_after_pending_stdout() {
    let _g = lock();
    reset();
    // SAFETY: valid formats and arguments.
    unsafe {
        crt_printf(c"pending".as_ptr());
        assert_eq!(crt_fprintf(stderr(), c"err %d".as_ptr(), 2 as c_int), 5);
        assert_eq!(writes(), vec![(1, "pending".into()), (2, "err 2".into())]);
        crt_fputc(b'c' as c_int, stderr());
        crt_fputs(c"s".as_ptr(), stderr());
        assert_eq!(writes(), vec![(2, "c".into()), (2, "s".into())]);
        crt_fprintf(stdout(), c"to stdout\n".as_ptr());
        assert_eq!(writes(), vec![(1, "to stdout\n".into())]);
        let long: std::string::String = (0..600)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let clong = std::ffi::CString::new(long.as_str()).unwrap();
        assert_eq!(crt_fprintf(stderr(), c"%s".as_ptr(), clong.as_ptr()), 600);
        let w = writes();
        assert_eq!(
            w.iter().map(|(_, t)| t.len()).collect::<Vec<_>>(),
            vec![256, 256, 88],
            "printf to stderr writes in 256-byte pieces"
        );
        assert_eq!(
            w.iter()
                .map(|(_, t)| t.as_str())
                .collect::<std::string::String>(),
            long
        );
    }
}

#[test]
fn perror_names_errno() {
    let _g = lock();
    reset();
    set_errno(34);
    // SAFETY: a NUL-terminated string, then NULL.
    unsafe {
        crt_perror(c"strtod".as_ptr());
        crt_perror(std::ptr::null::<c_char>());
    }
    assert_eq!(
        writes(),
        vec![
            (2, "strtod: Numerical result out of range\n".into()),
            (2, "Numerical result out of range\n".into())
        ]
    );
}

#[test]
fn setvbuf_makes_stdout_unbuffered_or_fully_buffered() {
    let _g = lock();
    reset();
    let (full, line, none) = (0, 1, 2);
    // SAFETY: valid streams and formats; the buffer argument is ignored.
    unsafe {
        crt_printf(c"pending".as_ptr());
        assert_eq!(crt_setvbuf(stdout(), std::ptr::null_mut(), none, 0), 0);
        assert_eq!(
            writes(),
            vec![(1, "pending".into())],
            "switching writes out the buffer"
        );
        crt_printf(c"a".as_ptr());
        crt_putchar(b'b' as c_int);
        assert_eq!(
            writes(),
            vec![(1, "a".into()), (1, "b".into())],
            "unbuffered: one write per call"
        );
        assert_eq!(crt_setvbuf(stdout(), std::ptr::null_mut(), full, 4096), 0);
        crt_printf(c"one\ntwo\n".as_ptr());
        assert_eq!(writes(), vec![], "fully buffered: newlines do not write");
        crt_fflush(stdout());
        assert_eq!(writes(), vec![(1, "one\ntwo\n".into())]);
        crt_setbuf(stdout(), std::ptr::null_mut());
        crt_printf(c"c".as_ptr());
        assert_eq!(
            writes(),
            vec![(1, "c".into())],
            "setbuf(NULL) is unbuffered"
        );
        let mut own = [0 as c_char; 1024];
        crt_setbuf(stdout(), own.as_mut_ptr());
        crt_printf(c"z\n".as_ptr());
        assert_eq!(writes(), vec![], "setbuf(buf) is fully buffered");
        crt_fflush(stdout());
        assert_eq!(writes(), vec![(1, "z\n".into())]);
        assert_eq!(own[0], 0, "the library keeps its own buffer");
        assert_eq!(
            crt_setvbuf(stdout(), std::ptr::null_mut(), 7, 0),
            -1,
            "unknown mode"
        );
        assert_eq!(
            crt_setvbuf(stderr(), std::ptr::null_mut(), line, 0),
            -1,
            "stderr stays unbuffered"
        );
        assert_eq!(crt_setvbuf(stderr(), std::ptr::null_mut(), none, 0), 0);
        assert_eq!(crt_setvbuf(stdout(), std::ptr::null_mut(), line, 0), 0);
        crt_printf(c"x\ny".as_ptr());
        assert_eq!(writes(), vec![(1, "x\n".into())], "line-buffered again");
    }
    reset();
}
