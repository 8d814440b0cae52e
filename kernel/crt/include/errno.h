/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* errno.h: error numbers (C11 7.5), with Linux's values. errno is a plain
 * global: one core runs one program, on one thread. */
#ifndef CRT_ERRNO_H
#define CRT_ERRNO_H

extern int errno;
#ifndef errno
#define errno errno
#endif

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define ECHILD 10
#define EINTR 4
#define EIO 5
#define EBADF 9
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define EDOM 33
#define ERANGE 34
#define EDEADLK 35
#define ENOSYS 38
#define EILSEQ 84
#define EOVERFLOW 75
#define ENOTSUP 95
#define ETIMEDOUT 110

#endif
