/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* getopt.h: POSIX getopt only (no getopt_long). */
#ifndef CRT_GETOPT_H
#define CRT_GETOPT_H

#include <unistd.h>

#endif
