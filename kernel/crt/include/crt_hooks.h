/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* crt_hooks.h: the library's only links to its environment. Internal: C
 * programs do not include it. The kernel (in Rust) defines these five
 * functions (kernel/crt/src/guest.rs); the host tests define their own
 * (kernel/crt/src/lib.rs).
 * Nothing else in the library depends on where it runs. */
#ifndef CRT_HOOKS_H
#define CRT_HOOKS_H

#include <stddef.h>

/* Writes len bytes of buf to output fd: 1 is stdout, 2 is stderr. The
 * write is complete when the hook returns; it cannot fail. */
void __crt_write(int fd, const char *buf, size_t len);

/* Allocates size bytes aligned to align (a power of two),
 * or returns NULL when out of memory. size is never zero. */
void *__crt_alloc(size_t size, size_t align);

/* Frees memory from __crt_alloc, given the same size and align. */
void __crt_free(void *ptr, size_t size, size_t align);

/* Ends the program with status. exit calls it after the atexit handlers
 * and writing out stdout's buffer; abort after writing out the buffer,
 * with status 134; _Exit at once. */
__attribute__((__noreturn__)) void __crt_exit(int status);

/* Nanoseconds since the program started, never decreasing: the kernel's
 * modelled time. */
unsigned long long __crt_clock_ns(void);

#endif
