/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* time.h on the clock hook: modelled nanoseconds since the program
 * started. */
#include <errno.h>
#include <limits.h>
#include <sys/time.h>
#include <time.h>

#include "crt_hooks.h"

#define NS_PER_SEC 1000000000ULL

/* Processor time in microseconds (CLOCKS_PER_SEC is 10^6): the core runs
 * one program, so this is the time since it started; (clock_t)-1 once
 * that no longer fits a clock_t. */
clock_t clock(void)
{
    unsigned long long us = __crt_clock_ns() / 1000;
    return us > LONG_MAX ? (clock_t)-1 : (clock_t)us;
}

/* Seconds since the program started: there is no calendar. */
time_t time(time_t *timer)
{
    time_t t = (time_t)(__crt_clock_ns() / NS_PER_SEC);
    if (timer != NULL) {
        *timer = t;
    }
    return t;
}

double difftime(time_t time1, time_t time0)
{
    return (double)time1 - (double)time0;
}

static int known_clock(clockid_t clock_id)
{
    return clock_id == CLOCK_REALTIME || clock_id == CLOCK_MONOTONIC ||
           clock_id == CLOCK_PROCESS_CPUTIME_ID;
}

/* Every clock reads the same modelled nanoseconds. */
int clock_gettime(clockid_t clock_id, struct timespec *tp)
{
    if (!known_clock(clock_id)) {
        errno = EINVAL;
        return -1;
    }
    unsigned long long ns = __crt_clock_ns();
    tp->tv_sec = (time_t)(ns / NS_PER_SEC);
    tp->tv_nsec = (long)(ns % NS_PER_SEC);
    return 0;
}

/* The hook counts nanoseconds. */
int clock_getres(clockid_t clock_id, struct timespec *res)
{
    if (!known_clock(clock_id)) {
        errno = EINVAL;
        return -1;
    }
    if (res != NULL) {
        res->tv_sec = 0;
        res->tv_nsec = 1;
    }
    return 0;
}

/* The same modelled time as clock_gettime, in microseconds. */
int gettimeofday(struct timeval *tv, void *tz)
{
    (void)tz;
    unsigned long long us = __crt_clock_ns() / 1000;
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
}
