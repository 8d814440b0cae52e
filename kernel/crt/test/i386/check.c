/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Runs the guest build of the library (32-bit, x87, 64-bit arithmetic in
 * helper calls) on seeded random values and prints what it computed, one
 * record per line, for src/tests/i386.rs to check against glibc and Rust
 * on the host. Records:
 *   F bits|%.17g|%.3e|%g|%a|%.10f or -|p|%.*g|strtod(%.17g) bits|
 *     strtod(%.*g) bits|sqrt bits|floor bits|fmod(v, 1.5) bits
 *   I bits|%llu|%lld|%llx|%#llo|%u|%d|%+.5ld|%zu|%hhd|%jd
 *   L text|strtol|strtoul|strtoll|errno
 *   T clock hook ns|clock()|time()|tv_sec|tv_nsec
 *   D n|d|lldiv quot|lldiv rem
 *   P the inttypes.h macros (gcc's -Wformat checks them against the types)
 * with the bits as 16 hex digits. Every public header is included, so
 * they are checked together in the guest configuration too. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The clock hook's value (test/i386/runtime.c). */
extern unsigned long long crt_test_clock_ns;

static uint64_t state = 0x5eed0100;

/* SplitMix64, as the Rust tests' generator. */
static uint64_t next(void)
{
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void float_record(double v)
{
    char g17[64];
    char gp[64];
    char fixed[512];
    int p = (int)(next() % 18) + 1;
    snprintf(g17, sizeof g17, "%.17g", v);
    snprintf(gp, sizeof gp, "%.*g", p, v);
    if (fabs(v) < 1e30 || v != v) {
        snprintf(fixed, sizeof fixed, "%.10f", v);
    } else {
        strcpy(fixed, "-");
    }
    printf("F %016llx|%s|%.3e|%g|%a|%s|%d|%s|%016llx|%016llx|%016llx|%016llx|%016llx\n",
           (unsigned long long)bits_of(v), g17, v, v, v, fixed, p, gp,
           (unsigned long long)bits_of(strtod(g17, NULL)), (unsigned long long)bits_of(strtod(gp, NULL)),
           (unsigned long long)bits_of(sqrt(v)), (unsigned long long)bits_of(floor(v)),
           (unsigned long long)bits_of(fmod(v, 1.5)));
}

int main(void)
{
    static const char *const texts[] = {"0",         "-1",          "2147483647", "2147483648",
                                        "-2147483648", "-2147483649", "4294967295", "4294967296",
                                        "0x7fffffff",  "-0x80000001", "  +077",     "9223372036854775808",
                                        "-9223372036854775809", "zz"};
    /* Square roots that rounding twice (to the x87's 64 bits, then to 53)
     * gets wrong: sqrt must round once. */
    static const uint64_t hard_roots[] = {0x3ff3d18888616545ULL, 0x4000b8de300b44e6ULL,
                                          0x400a8055e797cd45ULL, 0x3ff04146c7b6c3a2ULL,
                                          0x400c3f192c5bbdf1ULL, 0x3ff9ef863bb88cb7ULL};
    for (size_t i = 0; i < sizeof hard_roots / sizeof hard_roots[0]; i++) {
        float_record(from_bits(hard_roots[i]));
    }
    for (int i = 0; i < 3000; i++) {
        uint64_t r = next();
        double v;
        switch (i % 3) {
        case 0:
            v = from_bits(r);
            break;
        case 1:
            /* Moderate magnitudes: exponents 2^-70 .. 2^70. */
            v = from_bits((r & 0x800fffffffffffffULL) | ((uint64_t)(953 + next() % 141) << 52));
            break;
        default:
            /* Short decimals, computed on the x87. */
            v = (double)(int)(r % 2000001 - 1000000) / 1000.0;
            break;
        }
        float_record(v);
    }
    for (int i = 0; i < 3000; i++) {
        uint64_t r = next();
        uint64_t v = r >> (next() % 64);
        printf("I %016llx|%llu|%lld|%llx|%#llo|%u|%d|%+.5ld|%zu|%hhd|%jd\n", (unsigned long long)v,
               (unsigned long long)v, (long long)v, (unsigned long long)v, (unsigned long long)v,
               (unsigned)v, (int)v, (long)v, (size_t)v, (int)v, (intmax_t)v);
    }
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        errno = 0;
        long a = strtol(texts[i], NULL, 0);
        unsigned long b = strtoul(texts[i], NULL, 0);
        long long c = strtoll(texts[i], NULL, 0);
        printf("L %s|%ld|%lu|%lld|%d\n", texts[i], a, b, c, errno);
    }
    for (int i = 0; i < 1000; i++) {
        long long n = (long long)(next() >> (next() % 64));
        long long d = (long long)(next() >> (next() % 64));
        if (d == 0) {
            d = 3;
        }
        n = i % 2 ? -n : n;
        d = i % 3 ? d : -d;
        lldiv_t q = lldiv(n, d);
        printf("D %lld|%lld|%lld|%lld\n", n, d, q.quot, q.rem);
    }
    printf("P %" PRId64 "|%" PRIu64 "|%" PRIx64 "|%" PRIdPTR "|%" PRIuPTR "|%" PRIdMAX "|%" PRIdFAST16
           "|%" PRIdFAST32 "|%" PRIuLEAST64 "|%" PRIdLEAST8 "|%" PRIXFAST64 "\n",
           (int64_t)INT64_MIN, (uint64_t)UINT64_MAX, (uint64_t)UINT64_MAX, (intptr_t)-5, (uintptr_t)7,
           (intmax_t)INTMAX_MIN, (int_fast16_t)-16, (int_fast32_t)INT32_MIN, (uint_least64_t)1 << 40,
           (int_least8_t)-8, (uint_fast64_t)0xabcdef0123ULL);
    /* A clock that fits a 32-bit clock_t, and one that does not. */
    static const unsigned long long clocks[] = {1234567891234ULL, 3000000000000000ULL};
    for (size_t i = 0; i < 2; i++) {
        struct timespec ts;
        crt_test_clock_ns = clocks[i];
        clock_gettime(CLOCK_MONOTONIC, &ts);
        printf("T %llu|%ld|%ld|%ld|%ld\n", clocks[i], (long)clock(), (long)time(NULL), (long)ts.tv_sec,
               ts.tv_nsec);
    }
    return 0;
}
