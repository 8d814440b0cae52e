/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stdlib.h: general utilities (C11 7.22, a subset: no multibyte or wide
 * characters, no system(), no quick_exit). */
#ifndef CRT_STDLIB_H
#define CRT_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
/** rand() returns 0..RAND_MAX (31 bits). */
#define RAND_MAX 0x7fffffff
#define MB_CUR_MAX ((size_t)1)

/** Quotient and remainder of div. */
typedef struct {
    int quot;
    int rem;
} div_t;
/** Quotient and remainder of ldiv. */
typedef struct {
    long quot;
    long rem;
} ldiv_t;
/** Quotient and remainder of lldiv. */
typedef struct {
    long long quot;
    long long rem;
} lldiv_t;

void *malloc(size_t size);
void *calloc(size_t nmemb, size_t size);
void *realloc(void *ptr, size_t size);
void free(void *ptr);
void *aligned_alloc(size_t alignment, size_t size);
int posix_memalign(void **memptr, size_t alignment, size_t size);

int atoi(const char *nptr);
long atol(const char *nptr);
long long atoll(const char *nptr);
double atof(const char *nptr);
long strtol(const char *restrict nptr, char **restrict endptr, int base);
unsigned long strtoul(const char *restrict nptr, char **restrict endptr, int base);
long long strtoll(const char *restrict nptr, char **restrict endptr, int base);
unsigned long long strtoull(const char *restrict nptr, char **restrict endptr, int base);
double strtod(const char *restrict nptr, char **restrict endptr);
float strtof(const char *restrict nptr, char **restrict endptr);

int abs(int j);
long labs(long j);
long long llabs(long long j);
div_t div(int numer, int denom);
ldiv_t ldiv(long numer, long denom);
lldiv_t lldiv(long long numer, long long denom);

void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t nmemb, size_t size,
              int (*compar)(const void *, const void *));

int rand(void);
void srand(unsigned int seed);

__attribute__((__noreturn__)) void exit(int status);
__attribute__((__noreturn__)) void _Exit(int status);
__attribute__((__noreturn__)) void abort(void);
int atexit(void (*func)(void));
char *getenv(const char *name);

#endif
