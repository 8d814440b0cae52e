/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* check.h: the OpenSHMEM test programs' checks. A failed check prints
 * where and what, then ends the run with shmem_global_exit. */
#ifndef SHMEM_CHECK_H
#define SHMEM_CHECK_H

#include <shmem.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            printf("PE %d: check failed at %s:%d: %s: ", shmem_my_pe(),         \
                   __FILE__, __LINE__, #cond);                                  \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
            shmem_global_exit(1);                                               \
        }                                                                       \
    } while (0)

#endif
