/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* check.h: the C test programs' checks. A failed check prints where and
 * what, then aborts the run with MPI_Abort. */
#ifndef CHECK_H
#define CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            int check_rank_ = -1;                                               \
            MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                        \
            printf("rank %d: check failed at %s:%d: %s: ", check_rank_,         \
                   __FILE__, __LINE__, #cond);                                  \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

#endif
