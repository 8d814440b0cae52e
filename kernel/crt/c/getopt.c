/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* POSIX getopt: short options only, no argument permutation (the first
 * non-option ends the options), "--" ends them too. A leading ':' in
 * optstring makes a missing argument return ':' and silences the messages.
 * Setting optind to 0 (as with glibc) restarts a scan, even in the middle
 * of a group; setting it to 1 restarts a scan that is not. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *optarg;
int optind = 1;
int opterr = 1;
int optopt;

/* Position in argv[scan_ind] of the next option character of a group
 * like -abc, or 0 when at the start of an argument. */
static int scan_pos;
static int scan_ind;

int getopt(int argc, char *const argv[], const char *optstring)
{
    int quiet = optstring[0] == ':';
    if (optind == 0) {
        optind = 1;
        scan_pos = 0;
    }
    if (scan_ind != optind) {
        /* optind moved outside getopt (or a new scan began). */
        scan_pos = 0;
    }
    optarg = NULL;
    if (scan_pos == 0) {
        if (optind >= argc || argv[optind] == NULL || argv[optind][0] != '-' ||
            argv[optind][1] == '\0') {
            return -1;
        }
        if (strcmp(argv[optind], "--") == 0) {
            optind++;
            return -1;
        }
        scan_pos = 1;
        scan_ind = optind;
    }
    const char *arg = argv[optind];
    int c = (unsigned char)arg[scan_pos++];
    const char *spec = c != ':' ? strchr(optstring + quiet, c) : NULL;
    int at_end = arg[scan_pos] == '\0';
    if (spec == NULL) {
        optopt = c;
        if (at_end) {
            optind++;
            scan_pos = 0;
        }
        scan_ind = optind;
        if (opterr && !quiet) {
            fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
        }
        return '?';
    }
    if (spec[1] != ':') {
        if (at_end) {
            optind++;
            scan_pos = 0;
        }
        scan_ind = optind;
        return c;
    }
    /* The option takes an argument: the rest of this one, or the next. */
    if (!at_end) {
        optarg = argv[optind] + scan_pos;
        optind++;
    } else if (optind + 1 < argc) {
        optarg = argv[optind + 1];
        optind += 2;
    } else {
        optopt = c;
        optind++;
        scan_pos = 0;
        scan_ind = optind;
        if (quiet) {
            return ':';
        }
        if (opterr) {
            fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
        }
        return '?';
    }
    scan_pos = 0;
    scan_ind = optind;
    return c;
}
