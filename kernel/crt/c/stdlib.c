/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stdlib.h: memory on the allocation hooks, integer arithmetic, sorting and
 * searching, the pseudo-random generator, program termination, and errno. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt_hooks.h"

int errno;

/* Every block starts with a header just below the address handed out,
 * which is aligned to at least MIN_ALIGN (max_align_t's alignment) and is
 * at an offset of its alignment from the start of the block. */
#define MIN_ALIGN 16

/** What free and realloc need to know about a block. */
struct header {
    size_t size;  /* bytes asked for */
    size_t align; /* alignment of the address handed out */
};

_Static_assert(sizeof(struct header) <= MIN_ALIGN, "the header fits below the data");

static void *alloc_aligned(size_t align, size_t size)
{
    if (align < MIN_ALIGN) {
        align = MIN_ALIGN;
    }
    if (size > (size_t)-1 - align) {
        errno = ENOMEM;
        return NULL;
    }
    char *block = __crt_alloc(align + size, align);
    if (block == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    char *p = block + align;
    struct header *h = (struct header *)(void *)p - 1;
    h->size = size;
    h->align = align;
    return p;
}

static struct header *header_of(void *p)
{
    return (struct header *)p - 1;
}

void *malloc(size_t size)
{
    return alloc_aligned(MIN_ALIGN, size);
}

void *calloc(size_t nmemb, size_t size)
{
    if (size != 0 && nmemb > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(nmemb * size);
    if (p != NULL) {
        memset(p, 0, nmemb * size);
    }
    return p;
}

void free(void *p)
{
    if (p == NULL) {
        return;
    }
    struct header *h = header_of(p);
    size_t align = h->align;
    __crt_free((char *)p - align, align + h->size, align);
}

/* Growing moves the data to a new block; shrinking keeps the block (and
 * its size). realloc(p, 0) frees p and returns NULL, as glibc does. */
void *realloc(void *p, size_t size)
{
    if (p == NULL) {
        return malloc(size);
    }
    if (size == 0) {
        free(p);
        return NULL;
    }
    struct header *h = header_of(p);
    if (size <= h->size) {
        return p;
    }
    void *q = alloc_aligned(h->align, size);
    if (q == NULL) {
        return NULL;
    }
    memcpy(q, p, h->size);
    free(p);
    return q;
}

void *aligned_alloc(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    return alloc_aligned(alignment, size);
}

int posix_memalign(void **memptr, size_t alignment, size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    int saved = errno;
    void *p = alloc_aligned(alignment, size);
    errno = saved;
    if (p == NULL) {
        return ENOMEM;
    }
    *memptr = p;
    return 0;
}

int abs(int j)
{
    return j < 0 ? -j : j;
}

long labs(long j)
{
    return j < 0 ? -j : j;
}

long long llabs(long long j)
{
    return j < 0 ? -j : j;
}

intmax_t imaxabs(intmax_t j)
{
    return j < 0 ? -j : j;
}

div_t div(int numer, int denom)
{
    div_t r = {numer / denom, numer % denom};
    return r;
}

ldiv_t ldiv(long numer, long denom)
{
    ldiv_t r = {numer / denom, numer % denom};
    return r;
}

lldiv_t lldiv(long long numer, long long denom)
{
    lldiv_t r = {numer / denom, numer % denom};
    return r;
}

imaxdiv_t imaxdiv(intmax_t numer, intmax_t denom)
{
    imaxdiv_t r = {numer / denom, numer % denom};
    return r;
}

static void swap_bytes(char *a, char *b, size_t size)
{
    while (size-- > 0) {
        char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Moves element i of the heap down to its place. */
static void sift_down(char *base, size_t i, size_t n, size_t size,
                      int (*compar)(const void *, const void *))
{
    for (;;) {
        size_t largest = i;
        size_t left = 2 * i + 1;
        size_t right = left + 1;
        if (left < n && compar(base + left * size, base + largest * size) > 0) {
            largest = left;
        }
        if (right < n && compar(base + right * size, base + largest * size) > 0) {
            largest = right;
        }
        if (largest == i) {
            return;
        }
        swap_bytes(base + i * size, base + largest * size, size);
        i = largest;
    }
}

/* Heapsort: O(n log n) comparisons at worst, no recursion, no memory. Not
 * stable, as the standard allows. */
void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *))
{
    char *b = base;
    if (nmemb < 2 || size == 0) {
        return;
    }
    for (size_t i = nmemb / 2; i > 0; i--) {
        sift_down(b, i - 1, nmemb, size, compar);
    }
    for (size_t n = nmemb - 1; n > 0; n--) {
        swap_bytes(b, b + n * size, size);
        sift_down(b, 0, n, size, compar);
    }
}

void *bsearch(const void *key, const void *base, size_t nmemb, size_t size,
              int (*compar)(const void *, const void *))
{
    const char *b = base;
    size_t lo = 0;
    size_t hi = nmemb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compar(key, b + mid * size);
        if (c == 0) {
            return (void *)(uintptr_t)(b + mid * size);
        }
        if (c < 0) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return NULL;
}

/* rand: a 64-bit linear congruential generator with Knuth's MMIX
 * constants (state = state * 6364136223846793005 + 1442695040888963407),
 * returning the state's top 31 bits. The initial state is srand(1)'s. */
static uint64_t rand_state = 1;

int rand(void)
{
    rand_state = rand_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)(rand_state >> 33);
}

void srand(unsigned int seed)
{
    rand_state = seed;
}

/* C requires room for at least 32 handlers. */
#define ATEXIT_MAX 32
static void (*handlers[ATEXIT_MAX])(void);
static int handler_count;

int atexit(void (*func)(void))
{
    if (handler_count == ATEXIT_MAX) {
        return -1;
    }
    handlers[handler_count++] = func;
    return 0;
}

void exit(int status)
{
    while (handler_count > 0) {
        handlers[--handler_count]();
    }
    fflush(stdout);
    __crt_exit(status);
}

void _Exit(int status)
{
    __crt_exit(status);
}

/* No signals: abort writes out stdout's buffer (so the output before the
 * failure is not lost) and ends the program with status 134, what a shell
 * reports for SIGABRT. atexit handlers do not run. */
void abort(void)
{
    fflush(stdout);
    __crt_exit(134);
}

void __crt_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fprintf(stderr, "Assertion failed: %s, function %s, file %s, line %d.\n", expr, func, file,
            line);
    abort();
}

/* There is no environment. */
char *getenv(const char *name)
{
    (void)name;
    return NULL;
}
