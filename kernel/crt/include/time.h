/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* time.h: time (C11 7.27 and POSIX clock_gettime, a subset). All clocks
 * read the kernel's clock hook (__crt_clock_ns), which counts modelled
 * nanoseconds since the core started: there is no calendar, so time()
 * counts seconds since start and CLOCK_REALTIME equals CLOCK_MONOTONIC.
 * No gmtime, localtime, mktime or strftime. */
#ifndef CRT_TIME_H
#define CRT_TIME_H

#include <stddef.h>

typedef long clock_t;
typedef long time_t;
typedef int clockid_t;

/** Seconds and nanoseconds. */
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};

#define CLOCKS_PER_SEC ((clock_t)1000000)
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2

clock_t clock(void);
time_t time(time_t *timer);
double difftime(time_t time1, time_t time0);
int clock_gettime(clockid_t clock_id, struct timespec *tp);
int clock_getres(clockid_t clock_id, struct timespec *res);

#endif
