/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* getopt.h: POSIX getopt (unistd.h) and GNU's getopt_long, without
 * argument permutation: the first operand ends the options, as with
 * POSIXLY_CORRECT. */
#ifndef CRT_GETOPT_H
#define CRT_GETOPT_H

#include <unistd.h>

/** A long option: its name, whether it takes an argument
 * (no_argument, required_argument or optional_argument), and what
 * getopt_long does when it is found: with flag NULL it returns val,
 * otherwise it stores val in *flag and returns 0. */
struct option {
    const char *name;
    int has_arg;
    int *flag;
    int val;
};

#define no_argument 0
#define required_argument 1
#define optional_argument 2

/** getopt, and arguments `--name`, `--name=value` and (for
 * required_argument) `--name value`, where name is a long option's name
 * or an abbreviation of exactly one; longopts ends with an entry whose
 * name is NULL. The index of the long option found goes to *longindex
 * unless longindex is NULL. An unknown, ambiguous or misused long option
 * returns '?' (a missing argument ':' when optstring starts with ':'),
 * with a message on stderr unless opterr is 0 or optstring starts with
 * ':'. */
int getopt_long(int argc, char *const argv[], const char *optstring,
                const struct option *longopts, int *longindex);

#endif
