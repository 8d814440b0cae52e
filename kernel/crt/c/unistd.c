/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* unistd.h: the page size (getpagesize and sysconf). */
#include <errno.h>
#include <unistd.h>

/* The kernel maps memory in 4 KiB pages (32-bit x86 paging). */
#define CRT_PAGE_SIZE 4096L

int getpagesize(void)
{
    return (int)CRT_PAGE_SIZE;
}

/* Only the page size is known; any other name fails with EINVAL. */
long sysconf(int name)
{
    if (name == _SC_PAGESIZE) {
        return CRT_PAGE_SIZE;
    }
    errno = EINVAL;
    return -1;
}
