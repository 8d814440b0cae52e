/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* unistd.h: only getopt and its globals (POSIX); no system calls. */
#ifndef CRT_UNISTD_H
#define CRT_UNISTD_H

/** The argument of the option getopt just returned. */
extern char *optarg;
/** Index of the next element of argv to process (starts at 1). */
extern int optind;
/** When nonzero (the default), getopt reports errors on stderr. */
extern int opterr;
/** The option character that caused the last error. */
extern int optopt;

int getopt(int argc, char *const argv[], const char *optstring);

#endif
