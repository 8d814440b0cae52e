/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sys/types.h: POSIX's basic types (a subset), as i386 Linux has them.
 * time_t and clock_t are time.h's. There are no processes, users or
 * files: pid_t, uid_t, gid_t, mode_t and off_t exist for the programs
 * that name them. */
#ifndef CRT_SYS_TYPES_H
#define CRT_SYS_TYPES_H

#include <stddef.h>
#include <time.h>

/** A byte count or an error (-1). */
typedef long ssize_t;
/** Microseconds of a struct timeval (sys/time.h). */
typedef long suseconds_t;
/** Microseconds (usleep's argument on POSIX). */
typedef unsigned int useconds_t;
/** A file offset. */
typedef long off_t;
/** A process ID. */
typedef int pid_t;
/** A user ID. */
typedef unsigned int uid_t;
/** A group ID. */
typedef unsigned int gid_t;
/** File mode bits. */
typedef unsigned int mode_t;

#endif
