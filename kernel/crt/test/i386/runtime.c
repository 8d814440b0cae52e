/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A minimal 32-bit Linux process around the guest build of the library,
 * for the host test that runs it (src/tests/i386.rs): _start, the hooks on
 * the write and exit system calls and a static arena, the memory functions
 * (the kernel's, on the guest), and the 64-bit division helpers gcc calls
 * on i386 that compiler_builtins provides on the guest, here as plain
 * shift and subtract (the library's c/divmod.c provides the others). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "crt_hooks.h"

static long syscall3(long n, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}

void __crt_write(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        long r = syscall3(4, fd, (long)buf, (long)len);
        if (r <= 0) {
            return;
        }
        buf += r;
        len -= (size_t)r;
    }
}

static char arena[1 << 24] __attribute__((aligned(4096)));
static size_t used;

void *__crt_alloc(size_t size, size_t align)
{
    size_t p = (used + align - 1) & ~(align - 1);
    if (p > sizeof arena || size > sizeof arena - p) {
        return NULL;
    }
    used = p + size;
    return arena + p;
}

void __crt_free(void *ptr, size_t size, size_t align)
{
    (void)ptr;
    (void)size;
    (void)align;
}

void __crt_exit(int status)
{
    for (;;) {
        syscall3(1, status, 0, 0);
    }
}

/* What the clock hook returns; check.c sets it. */
unsigned long long crt_test_clock_ns;

unsigned long long __crt_clock_ns(void)
{
    return crt_test_clock_ns;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    return memmove(d, s, n);
}

void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp) {
        for (size_t i = 0; i < n; i++) {
            dp[i] = sp[i];
        }
    } else {
        for (size_t i = n; i > 0; i--) {
            dp[i - 1] = sp[i - 1];
        }
    }
    return d;
}

void *memset(void *d, int c, size_t n)
{
    unsigned char *dp = d;
    for (size_t i = 0; i < n; i++) {
        dp[i] = (unsigned char)c;
    }
    return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a;
    const unsigned char *y = b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) {
            return x[i] - y[i];
        }
    }
    return 0;
}

uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

/* Unsigned long division, one bit at a time. */
static uint64_t divide(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0;
    uint64_t r = 0;
    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= (uint64_t)1 << i;
        }
    }
    *rem = r;
    return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
    uint64_t r;
    return divide(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
    uint64_t r;
    divide(n, d, &r);
    return r;
}

int64_t __divdi3(int64_t n, int64_t d)
{
    uint64_t r;
    uint64_t q = divide(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
    return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
    uint64_t r;
    divide(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
    return n < 0 ? -(int64_t)r : (int64_t)r;
}

int main(void);

/* The entry point: a 16-byte aligned stack, then main, then exit. */
void __crt_test_start(void);
void __crt_test_start(void)
{
    exit(main());
}

__asm__(".globl _start\n"
        "_start:\n"
        "\txorl %ebp, %ebp\n"
        "\tandl $-16, %esp\n"
        "\tcall __crt_test_start\n"
        "\thlt\n");
