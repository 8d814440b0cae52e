/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* MPI_Comm_split_type and MPI_Comm_create, every result checked:
 * MPI_COMM_TYPE_SHARED gives every rank one communicator (ordered by
 * key), over which a shared window's parts are loaded and stored by
 * address; MPI_UNDEFINED gives MPI_COMM_NULL; MPI_Comm_create makes a
 * communicator of the even ranks, whose collectives and window reach
 * only them, and MPI_COMM_NULL on the odd ones. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"

int main(int argc, char **argv) {
    int rank, size, class, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Shared: everyone, in the reverse order (key -rank). */
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &shared);
    int srank = -1, ssize = -1;
    MPI_Comm_rank(shared, &srank);
    MPI_Comm_size(shared, &ssize);
    CHECK(ssize == size && srank == size - 1 - rank, "shared rank %d of %d", srank, ssize);
    int *mine, *next;
    MPI_Win win;
    MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, shared, &mine, &win);
    MPI_Aint bytes;
    int unit, right = (srank + 1) % ssize;
    MPI_Win_shared_query(win, right, &bytes, &unit, &next);
    MPI_Win_lock_all(0, win);
    mine[0] = 11 * rank;
    mine[1] = 13 * rank;
    MPI_Win_sync(win);
    MPI_Barrier(shared);
    MPI_Win_sync(win);
    int world_right = size - 1 - right;
    CHECK(next[0] == 11 * world_right && next[1] == 13 * world_right, "shared load %d %d",
          next[0], next[1]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&shared);

    /* MPI_UNDEFINED on the odd ranks. */
    MPI_Comm some;
    MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &some);
    if (rank % 2) {
        CHECK(some == MPI_COMM_NULL, "undefined split type gave a communicator");
    } else {
        int n = 0;
        MPI_Comm_size(some, &n);
        CHECK(n == (size + 1) / 2, "even ranks' shared size %d", n);
        MPI_Comm_free(&some);
    }

    /* MPI_Comm_create of the even ranks. */
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, ranges, &evens);
    MPI_Comm even;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even);
    if (rank % 2) {
        CHECK(even == MPI_COMM_NULL, "an odd rank got a communicator");
    } else {
        int erank = -1, esize = -1, sum = 0;
        MPI_Comm_rank(even, &erank);
        MPI_Comm_size(even, &esize);
        CHECK(erank == rank / 2 && esize == (size + 1) / 2, "even rank %d of %d", erank, esize);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even);
        CHECK(sum == (esize - 1) * esize, "sum of the even ranks %d", sum);
        int cell = -1;
        MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, even, &win);
        MPI_Win_fence(0, win);
        MPI_Put(&rank, 1, MPI_INT, (erank + 1) % esize, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        int from = 2 * ((erank + esize - 1) % esize);
        CHECK(cell == from, "put over the created communicator: %d", cell);
        MPI_Win_free(&win);
        MPI_Comm_free(&even);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_split_type(MPI_COMM_WORLD, 7, 0, MPI_INFO_NULL, &some);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_ARG, "split type 7: class %d", class);

    printf("rank %d of %d: split_type and create checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
