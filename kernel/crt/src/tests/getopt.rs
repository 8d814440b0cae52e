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

/// `argv` for C: "prog", then `args`, then NULL; the strings it points
/// into, which must outlive it.
fn argv_of(args: &[&str]) -> (Vec<CString>, Vec<*mut c_char>) {
    let owned: Vec<CString> = std::iter::once("prog")
        .chain(args.iter().copied())
        .map(|a| CString::new(a).unwrap())
        .collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
    argv.push(std::ptr::null_mut());
    (owned, argv)
}

/// Runs getopt over args (argv[0] is "prog") until it returns -1, starting
/// a new scan; returns the steps and the final optind.
fn scan(optstring: &CStr, args: &[&str]) -> (Vec<Step>, c_int) {
    let (owned, argv) = argv_of(args);
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

/// One getopt_long result: what it returned, its argument, the long
/// option's index (-1 if none was set).
type LongStep = (c_int, Option<String>, c_int);

/// Runs getopt_long over args (argv[0] is "prog") with the long options
/// "size" (required), "verbose" (no argument), "color" (optional) and
/// "flagged" (sets *flag to 7), until it returns -1; the steps, the
/// final optind and the flag.
fn scan_long(optstring: &CStr, args: &[&str]) -> (Vec<LongStep>, c_int, c_int) {
    let (owned, argv) = argv_of(args);
    let mut flag: c_int = 0;
    let long = [
        LongOption {
            name: c"size".as_ptr(),
            has_arg: 1,
            flag: std::ptr::null_mut(),
            val: 's' as c_int,
        },
        LongOption {
            name: c"verbose".as_ptr(),
            has_arg: 0,
            flag: std::ptr::null_mut(),
            val: 'v' as c_int,
        },
        LongOption {
            name: c"color".as_ptr(),
            has_arg: 2,
            flag: std::ptr::null_mut(),
            val: 'c' as c_int,
        },
        LongOption {
            name: c"flagged".as_ptr(),
            has_arg: 0,
            flag: &raw mut flag,
            val: 7,
        },
        LongOption {
            name: c"verify".as_ptr(),
            has_arg: 0,
            flag: std::ptr::null_mut(),
            val: 'y' as c_int,
        },
        LongOption {
            name: std::ptr::null(),
            has_arg: 0,
            flag: std::ptr::null_mut(),
            val: 0,
        },
    ];
    let mut steps = Vec::new();
    // SAFETY: the globals are plain C ints; tests hold the lock.
    unsafe { (&raw mut crt_optind).write(0) };
    loop {
        let mut index: c_int = -1;
        // SAFETY: argv has argc entries and a NULL; the strings and the
        // option table end as C says.
        let c = unsafe {
            crt_getopt_long(
                owned.len() as c_int,
                argv.as_ptr(),
                optstring.as_ptr(),
                long.as_ptr(),
                &raw mut index,
            )
        };
        if c == -1 {
            break;
        }
        // SAFETY: optarg is NULL or points into argv's strings.
        let arg = unsafe {
            let p = (&raw const crt_optarg).read();
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        steps.push((c, arg, index));
    }
    // SAFETY: as above.
    (steps, unsafe { (&raw const crt_optind).read() }, flag)
}

#[test]
fn long_options_take_their_arguments_abbreviations_and_flags() {
    let _g = lock();
    let (steps, ind, flag) = scan_long(
        c"ab:",
        &[
            "--size=4096",
            "--size",
            "8",
            "--verb",
            "--color",
            "--color=red",
            "-ab",
            "x",
            "--flagged",
            "file",
            "--size=1",
        ],
    );
    let s = |c: char, arg: Option<&str>, index: c_int| (c as c_int, arg.map(String::from), index);
    assert_eq!(
        steps,
        vec![
            s('s', Some("4096"), 0),
            s('s', Some("8"), 0),
            s('v', None, 1),
            s('c', None, 2),
            s('c', Some("red"), 2),
            s('a', None, -1),
            s('b', Some("x"), -1),
            (0, None, 3),
        ]
    );
    assert_eq!(ind, 10, "the first operand ends the options");
    assert_eq!(flag, 7);
    assert_eq!(stderr_text(), "");
}

#[test]
fn long_option_errors_are_reported_or_returned() {
    let _g = lock();
    let (steps, _, _) = scan_long(c"a", &["--nope", "--ver", "--verbose=1", "--size"]);
    let codes: Vec<c_int> = steps.iter().map(|(c, _, _)| *c).collect();
    assert_eq!(codes, vec!['?' as c_int; 4]);
    assert_eq!(
        stderr_text(),
        "prog: unrecognized option '--nope'\n\
         prog: ambiguous option '--ver'\n\
         prog: option '--verbose' doesn't allow an argument\n\
         prog: option '--size' requires an argument\n"
    );
    let (steps, _, _) = scan_long(c":a", &["--size"]);
    assert_eq!(steps, vec![(':' as c_int, None, -1)]);
    assert_eq!(stderr_text(), "");
}
