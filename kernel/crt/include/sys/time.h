/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sys/time.h: gettimeofday (POSIX) on the kernel's clock hook, as
 * clock_gettime reads it: the core's modelled time since the program
 * started, there being no calendar. */
#ifndef CRT_SYS_TIME_H
#define CRT_SYS_TIME_H

#include <sys/types.h>

/** Seconds and microseconds. */
struct timeval {
    time_t tv_sec;
    suseconds_t tv_usec;
};

/** The obsolete time zone argument of gettimeofday (never filled in). */
struct timezone {
    int tz_minuteswest;
    int tz_dsttime;
};

/** The core's modelled time since the program started, in `tv`; `tz`
 * must be NULL or is left as it is (POSIX leaves a non-null one
 * unspecified). Returns 0. */
int gettimeofday(struct timeval *tv, void *tz);

#endif
