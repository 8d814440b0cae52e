/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* unistd.h: getopt and its globals, sleep, and the page size (POSIX); no
 * system calls. */
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

/** Lets `seconds` seconds of the core's modelled time pass (the kernel's
 * clock, as clock_gettime reads it); returns 0, as nothing interrupts it. */
unsigned int sleep(unsigned int seconds);

/** sysconf's name for the page size (the only name it knows). */
#define _SC_PAGESIZE 30
/** Another spelling of _SC_PAGESIZE. */
#define _SC_PAGE_SIZE _SC_PAGESIZE

/** The size in bytes of the kernel's memory pages: 4096. */
int getpagesize(void);
/** The value of a configuration name: the page size for _SC_PAGESIZE;
 * -1 with errno set to EINVAL for any other name. */
long sysconf(int name);

#endif
