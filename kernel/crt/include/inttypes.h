/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* inttypes.h: the printf format macros and conversions for the stdint.h
 * types (C11 7.8); no SCN macros (there is no scanf). On i386 int64_t is long long ("ll"); on an LP64 host (the
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
#define PRIi8 "i"
#define PRIo8 "o"
#define PRIu8 "u"
#define PRIx8 "x"
#define PRIX8 "X"
#define PRId16 "d"
#define PRIi16 "i"
#define PRIo16 "o"
#define PRIu16 "u"
#define PRIx16 "x"
#define PRIX16 "X"
#define PRId32 "d"
#define PRIi32 "i"
#define PRIo32 "o"
#define PRIu32 "u"
#define PRIx32 "x"
#define PRIX32 "X"
#define PRId64 __CRT_PRI64 "d"
#define PRIi64 __CRT_PRI64 "i"
#define PRIo64 __CRT_PRI64 "o"
#define PRIu64 __CRT_PRI64 "u"
#define PRIx64 __CRT_PRI64 "x"
#define PRIX64 __CRT_PRI64 "X"

#define PRIdLEAST8 "d"
#define PRIiLEAST8 "i"
#define PRIoLEAST8 "o"
#define PRIuLEAST8 "u"
#define PRIxLEAST8 "x"
#define PRIXLEAST8 "X"
#define PRIdLEAST16 "d"
#define PRIiLEAST16 "i"
#define PRIoLEAST16 "o"
#define PRIuLEAST16 "u"
#define PRIxLEAST16 "x"
#define PRIXLEAST16 "X"
#define PRIdLEAST32 "d"
#define PRIiLEAST32 "i"
#define PRIoLEAST32 "o"
#define PRIuLEAST32 "u"
#define PRIxLEAST32 "x"
#define PRIXLEAST32 "X"
#define PRIdLEAST64 __CRT_PRI64 "d"
#define PRIiLEAST64 __CRT_PRI64 "i"
#define PRIoLEAST64 __CRT_PRI64 "o"
#define PRIuLEAST64 __CRT_PRI64 "u"
#define PRIxLEAST64 __CRT_PRI64 "x"
#define PRIXLEAST64 __CRT_PRI64 "X"

#define PRIdFAST8 "d"
#define PRIiFAST8 "i"
#define PRIoFAST8 "o"
#define PRIuFAST8 "u"
#define PRIxFAST8 "x"
#define PRIXFAST8 "X"
#define PRIdFAST16 __CRT_PRIFAST "d"
#define PRIiFAST16 __CRT_PRIFAST "i"
#define PRIoFAST16 __CRT_PRIFAST "o"
#define PRIuFAST16 __CRT_PRIFAST "u"
#define PRIxFAST16 __CRT_PRIFAST "x"
#define PRIXFAST16 __CRT_PRIFAST "X"
#define PRIdFAST32 __CRT_PRIFAST "d"
#define PRIiFAST32 __CRT_PRIFAST "i"
#define PRIoFAST32 __CRT_PRIFAST "o"
#define PRIuFAST32 __CRT_PRIFAST "u"
#define PRIxFAST32 __CRT_PRIFAST "x"
#define PRIXFAST32 __CRT_PRIFAST "X"
#define PRIdFAST64 __CRT_PRI64 "d"
#define PRIiFAST64 __CRT_PRI64 "i"
#define PRIoFAST64 __CRT_PRI64 "o"
#define PRIuFAST64 __CRT_PRI64 "u"
#define PRIxFAST64 __CRT_PRI64 "x"
#define PRIXFAST64 __CRT_PRI64 "X"

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
