/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* inttypes.h: format macros and conversions for the stdint.h types
 * (C11 7.8). On i386 int64_t is long long ("ll"); on an LP64 host (the
 * host tests) it is long ("l"). */
#ifndef CRT_INTTYPES_H
#define CRT_INTTYPES_H

#include <stdint.h>

#ifdef __LP64__
#define __CRT_PRI64 "l"
#define __CRT_PRIPTR "l"
#define __CRT_PRIFAST "l"
#else
#define __CRT_PRI64 "ll"
#define __CRT_PRIPTR ""
#define __CRT_PRIFAST ""
#endif

#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 __CRT_PRI64 "d"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 __CRT_PRI64 "i"
#define PRIo8 "o"
#define PRIo16 "o"
#define PRIo32 "o"
#define PRIo64 __CRT_PRI64 "o"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 __CRT_PRI64 "u"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 __CRT_PRI64 "x"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 __CRT_PRI64 "X"

#define PRIdLEAST8 "d"
#define PRIdLEAST16 "d"
#define PRIdLEAST32 "d"
#define PRIdLEAST64 PRId64
#define PRIuLEAST8 "u"
#define PRIuLEAST16 "u"
#define PRIuLEAST32 "u"
#define PRIuLEAST64 PRIu64
#define PRIxLEAST8 "x"
#define PRIxLEAST16 "x"
#define PRIxLEAST32 "x"
#define PRIxLEAST64 PRIx64

#define PRIdFAST8 "d"
#define PRIdFAST16 __CRT_PRIFAST "d"
#define PRIdFAST32 __CRT_PRIFAST "d"
#define PRIdFAST64 PRId64
#define PRIuFAST8 "u"
#define PRIuFAST16 __CRT_PRIFAST "u"
#define PRIuFAST32 __CRT_PRIFAST "u"
#define PRIuFAST64 PRIu64
#define PRIxFAST8 "x"
#define PRIxFAST16 __CRT_PRIFAST "x"
#define PRIxFAST32 __CRT_PRIFAST "x"
#define PRIxFAST64 PRIx64

#define PRIdMAX "jd"
#define PRIiMAX "ji"
#define PRIoMAX "jo"
#define PRIuMAX "ju"
#define PRIxMAX "jx"
#define PRIXMAX "jX"
#define PRIdPTR __CRT_PRIPTR "d"
#define PRIiPTR __CRT_PRIPTR "i"
#define PRIoPTR __CRT_PRIPTR "o"
#define PRIuPTR __CRT_PRIPTR "u"
#define PRIxPTR __CRT_PRIPTR "x"
#define PRIXPTR __CRT_PRIPTR "X"

/** Quotient and remainder of imaxdiv. */
typedef struct {
    intmax_t quot;
    intmax_t rem;
} imaxdiv_t;

intmax_t imaxabs(intmax_t j);
imaxdiv_t imaxdiv(intmax_t numer, intmax_t denom);
intmax_t strtoimax(const char *restrict nptr, char **restrict endptr, int base);
uintmax_t strtoumax(const char *restrict nptr, char **restrict endptr, int base);

#endif
