// SPDX-License-Identifier: MIT OR Apache-2.0
//! getopt: option sequences, arguments, errors, `--`, and restarting.

use std::ffi::{CStr, CString, c_char, c_int};
use std::string::String;
use std::vec::Vec;
use std::{format, vec};

use super::ffi::*;
use super::hooks::{lock, take_writes};

/// One getopt result: the option, its argument, optopt after it.
type Step = (char, Option<String>, c_int);

/// Runs getopt over args (argv[0] is "prog") until it returns -1, starting
/// a new scan; returns the steps and the final optind.
fn scan(optstring: &CStr, args: &[&str]) -> (Vec<Step>, c_int) {
    let owned: Vec<CString> = std::iter::once("prog")
        .chain(args.iter().copied())
        .map(|a| CString::new(a).unwrap())
        .collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    argv.push(std::ptr::null_mut());
    let mut steps = Vec::new();
    // SAFETY: the globals are plain C ints; tests hold the lock.
    unsafe { (&raw mut crt_optind).write(0) };
    loop {
        // SAFETY: argv has argc entries and a NULL; optstring is NUL-terminated.
        let c = unsafe { crt_getopt(owned.len() as c_int, argv.as_ptr(), optstring.as_ptr()) };
        if c == -1 {
            break;
        }
        // SAFETY: as above; optarg is NULL or points into argv's strings.
        let (arg, opt) = unsafe {
            let p = (&raw const crt_optarg).read();
            (
                (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned()),
                (&raw const crt_optopt).read(),
            )
        };
        steps.push((char::from(c as u8), arg, opt));
    }
    // SAFETY: as above.
    (steps, unsafe { (&raw const crt_optind).read() })
}

/// The text written to stderr since the last call.
fn stderr_text() -> String {
    take_writes()
        .into_iter()
        .filter(|(fd, _)| *fd == 2)
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect()
}

fn step(c: char, arg: Option<&str>) -> (char, Option<String>) {
    (c, arg.map(String::from))
}

/// The steps without optopt.
fn plain(steps: &[Step]) -> Vec<(char, Option<String>)> {
    steps.iter().map(|(c, a, _)| (*c, a.clone())).collect()
}

#[test]
fn options_groups_and_arguments() {
    let _g = lock();
    let (steps, ind) = scan(
        c"abo:v",
        &["-a", "-bv", "-ofile", "-o", "out", "-vo", "x", "rest", "-a"],
    );
    assert_eq!(
        plain(&steps),
        vec![
            step('a', None),
            step('b', None),
            step('v', None),
            step('o', Some("file")),
            step('o', Some("out")),
            step('v', None),
            step('o', Some("x"))
        ]
    );
    assert_eq!(ind, 8, "stops at the first non-option");
    let (steps, ind) = scan(c"ab", &["-a", "--", "-b"]);
    assert_eq!(plain(&steps), vec![step('a', None)]);
    assert_eq!(ind, 3, "-- is consumed");
    let (steps, ind) = scan(c"a", &["-", "-a"]);
    assert!(steps.is_empty());
    assert_eq!(ind, 1, "a lone - is an operand");
    let (steps, ind) = scan(c"a", &[]);
    assert!(steps.is_empty());
    assert_eq!(ind, 1);
    let (steps, _) = scan(c"o:", &["-o", "-a"]);
    assert_eq!(
        plain(&steps),
        vec![step('o', Some("-a"))],
        "the next argument is taken even if it looks like an option"
    );
    assert_eq!(stderr_text(), "");
}

#[test]
fn errors_are_reported_or_returned() {
    let _g = lock();
    let (steps, ind) = scan(c"ab:", &["-x", "-a", "-b"]);
    assert_eq!(
        steps,
        vec![
            ('?', None, 'x' as c_int),
            ('a', None, 'x' as c_int),
            ('?', None, 'b' as c_int)
        ]
    );
    assert_eq!(ind, 4);
    assert_eq!(
        stderr_text(),
        "prog: invalid option -- 'x'\nprog: option requires an argument -- 'b'\n"
    );
    let (steps, _) = scan(c":ab:", &["-x", "-b"]);
    assert_eq!(
        steps,
        vec![('?', None, 'x' as c_int), (':', None, 'b' as c_int)]
    );
    assert_eq!(stderr_text(), "", "a leading ':' silences the messages");
    let (steps, _) = scan(c"a:", &["-:"]);
    assert_eq!(
        steps,
        vec![('?', None, ':' as c_int)],
        "':' is never an option"
    );
    stderr_text();
    // SAFETY: a plain C int.
    unsafe { (&raw mut crt_opterr).write(0) };
    let (steps, _) = scan(c"a", &["-z"]);
    // SAFETY: as above.
    unsafe { (&raw mut crt_opterr).write(1) };
    assert_eq!(steps, vec![('?', None, 'z' as c_int)]);
    assert_eq!(stderr_text(), "", "opterr = 0 silences the messages");
}

#[test]
fn optind_zero_restarts_even_inside_a_group() {
    let _g = lock();
    let owned: Vec<CString> = ["prog", "-abc"]
        .iter()
        .map(|a| CString::new(*a).unwrap())
        .collect();
    let argv: Vec<*mut c_char> = owned
        .iter()
        .map(|a| a.as_ptr().cast_mut())
        .chain([std::ptr::null_mut()])
        .collect();
    let next = || {
        // SAFETY: argv is NULL-terminated with 2 entries.
        char::from(unsafe { crt_getopt(2, argv.as_ptr(), c"abc".as_ptr()) } as u8)
    };
    // SAFETY: a plain C int.
    unsafe { (&raw mut crt_optind).write(0) };
    assert_eq!(next(), 'a');
    // SAFETY: as above.
    unsafe { (&raw mut crt_optind).write(0) };
    assert_eq!(next(), 'a', "restarted at the group's start");
    assert_eq!(next(), 'b');
    assert_eq!(next(), 'c');
    // SAFETY: as above.
    assert_eq!(unsafe { (&raw const crt_optind).read() }, 2);
    let (steps, _) = scan(c"abc", &["-cba"]);
    assert_eq!(
        format!("{:?}", plain(&steps)),
        format!(
            "{:?}",
            vec![step('c', None), step('b', None), step('a', None)]
        )
    );
}
