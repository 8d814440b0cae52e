/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* MPI_Win_allocate_shared's placement. By default (info
 * alloc_shared_noncontig absent or "false") the parts are contiguous:
 * rank r's part starts where rank r-1's ends, so the whole window is read
 * from the address MPI_Win_shared_query gives for MPI_PROC_NULL (or rank
 * 0), as MPICH's win_shared test reads it. With alloc_shared_noncontig
 * "true" each part is reached at its own address. Parts differ in size
 * (some are empty), on MPI_COMM_WORLD and on the odd ranks' communicator
 * (whose rank 0 is world rank 1). Every element is checked. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Ints in rank r's part: some ranks have none, the others span pages
 * (4 KiB), so reading past one part reaches pages of the others. */
static int part_len(int r)
{
    return r % 3 == 1 ? 0 : 1500 * (r + 2);
}

static int value(int r, int i)
{
    return 1000 * (r + 1) + i;
}

/* Each rank fills its part, then everyone reads every part: at
 * base + offset (contiguous) or at the part's own address. */
static void shared_parts(MPI_Comm comm, const char *noncontig)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", noncontig);
    }
    int *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(part_len(rank) * sizeof(int), sizeof(int), info, comm, &mine, &win);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    int contiguous = noncontig == NULL || noncontig[0] == 'f';
    /* The hint in effect, as the window reports it. */
    MPI_Info used;
    char hint[MPI_MAX_INFO_VAL + 1];
    int found = 0;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, hint, &found);
    MPI_Info_free(&used);
    CHECK(found && strcmp(hint, contiguous ? "false" : "true") == 0,
          "alloc_shared_noncontig in effect: %s", found ? hint : "(none)");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int i = 0; i < part_len(rank); i++)
        mine[i] = value(rank, i);
    MPI_Win_sync(win);
    MPI_Barrier(comm);
    MPI_Win_sync(win);

    MPI_Aint bytes;
    int unit;
    int *first;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &bytes, &unit, &first);
    CHECK(first != NULL && bytes == part_len(0) * (MPI_Aint)sizeof(int) && unit == sizeof(int),
          "MPI_PROC_NULL's part: %p, %ld bytes, unit %d", (void *)first, (long)bytes, unit);
    /* First the whole window from the start alone, as MPICH's win_shared
     * reads it (no other part's address asked for yet). */
    int offset = 0;
    for (int r = 0; r < size && contiguous; r++) {
        for (int i = 0; i < part_len(r); i++)
            CHECK(first[offset + i] == value(r, i), "window [%d]: %d, expected %d", offset + i,
                  first[offset + i], value(r, i));
        offset += part_len(r);
    }
    offset = 0;
    for (int r = 0; r < size; r++) {
        int *part;
        MPI_Win_shared_query(win, r, &bytes, &unit, &part);
        CHECK(bytes == part_len(r) * (MPI_Aint)sizeof(int), "rank %d's part: %ld bytes", r,
              (long)bytes);
        if (part_len(r) > 0 && contiguous)
            CHECK(part == first + offset, "rank %d's part at %p, not %p (contiguous)", r,
                  (void *)part, (void *)(first + offset));
        for (int i = 0; i < part_len(r); i++)
            CHECK(part[i] == value(r, i), "rank %d's part [%d]: %d, expected %d", r, i, part[i],
                  value(r, i));
        offset += part_len(r);
    }
    if (contiguous && rank == 0)
        CHECK(mine == first, "rank 0's base %p, not the window's start %p", (void *)mine,
              (void *)first);
    /* A store through the contiguous window's start reaches the last part. */
    MPI_Barrier(comm);
    int last = size - 1;
    while (last > 0 && part_len(last) == 0)
        last--;
    if (contiguous && rank == 0)
        first[offset - 1] = -value(last, part_len(last) - 1);
    MPI_Win_sync(win);
    MPI_Barrier(comm);
    MPI_Win_sync(win);
    if (contiguous && rank == last)
        CHECK(mine[part_len(last) - 1] == -value(last, part_len(last) - 1),
              "rank %d's last element: %d", last, mine[part_len(last) - 1]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shared_parts(MPI_COMM_WORLD, NULL);
    shared_parts(MPI_COMM_WORLD, "false");
    shared_parts(MPI_COMM_WORLD, "true");
    MPI_Comm odd;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
    if (rank % 2 == 1) {
        shared_parts(odd, NULL);
        shared_parts(odd, "true");
    }
    MPI_Comm_free(&odd);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: shared window placement checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
