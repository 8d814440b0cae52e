/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* POSIX getopt and GNU's getopt_long: no argument permutation (the first
 * non-option ends the options), "--" ends them too. A leading ':' in
 * optstring makes a missing argument return ':' and silences the messages.
 * Setting optind to 0 (as with glibc) restarts a scan, even in the middle
 * of a group; setting it to 1 restarts a scan that is not. */
#include <getopt.h>
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

/* The long option argv[optind] names (after its "--"), which it moves
 * past, as getopt_long returns it. */
static int long_option(int argc, char *const argv[], int quiet, const struct option *longopts,
                       int *longindex)
{
    const char *name = argv[optind] + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    int found = -1;
    int ambiguous = 0;
    for (int i = 0; longopts[i].name != NULL; i++) {
        if (strncmp(longopts[i].name, name, len) != 0) {
            continue;
        }
        if (strlen(longopts[i].name) == len) {
            found = i;
            ambiguous = 0;
            break;
        }
        if (found < 0) {
            found = i;
        } else {
            ambiguous = 1;
        }
    }
    optind++;
    scan_pos = 0;
    scan_ind = optind;
    optarg = NULL;
    if (found < 0 || ambiguous) {
        optopt = 0;
        if (opterr && !quiet) {
            fprintf(stderr, "%s: %s option '--%.*s'\n", argv[0],
                    ambiguous ? "ambiguous" : "unrecognized", (int)len, name);
        }
        return '?';
    }
    const struct option *o = &longopts[found];
    if (eq != NULL) {
        if (o->has_arg == no_argument) {
            optopt = o->flag == NULL ? o->val : 0;
            if (opterr && !quiet) {
                fprintf(stderr, "%s: option '--%s' doesn't allow an argument\n", argv[0],
                        o->name);
            }
            return '?';
        }
        optarg = (char *)eq + 1;
    } else if (o->has_arg == required_argument) {
        if (optind >= argc) {
            optopt = o->flag == NULL ? o->val : 0;
            if (quiet) {
                return ':';
            }
            if (opterr) {
                fprintf(stderr, "%s: option '--%s' requires an argument\n", argv[0], o->name);
            }
            return '?';
        }
        optarg = argv[optind++];
        scan_ind = optind;
    }
    if (longindex != NULL) {
        *longindex = found;
    }
    if (o->flag != NULL) {
        *o->flag = o->val;
        return 0;
    }
    return o->val;
}

int getopt_long(int argc, char *const argv[], const char *optstring,
                const struct option *longopts, int *longindex)
{
    if (optind == 0) {
        optind = 1;
        scan_pos = 0;
    }
    if (scan_ind != optind) {
        scan_pos = 0;
    }
    const char *arg = optind < argc ? argv[optind] : NULL;
    if (scan_pos == 0 && arg != NULL && arg[0] == '-' && arg[1] == '-' && arg[2] != '\0') {
        return long_option(argc, argv, optstring[0] == ':', longopts, longindex);
    }
    return getopt(argc, argv, optstring);
}
