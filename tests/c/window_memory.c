/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Windows on every kind of memory a program has, every transfer checked:
 * statics, the stack, the heap (malloc), part of a block of
 * MPI_Alloc_mem, and no memory at all (MPI_Win_create(NULL, 0, ...)).
 * Such a window keeps a public copy that the owner's synchronisation
 * reconciles with the program's bytes, so each epoch kind is exercised:
 * fence (a store and a put to neighbouring bytes of one word both
 * survive), post/start/complete/wait, lock/unlock with the owner reading
 * under its own lock, lock_all with MPI_Win_sync, a store and a put to
 * one word ordered by barriers, accumulate, the last
 * put reaching the program at MPI_Win_free, and a dynamic window with
 * heap memory attached, reached at the address MPI_Get_address gives and
 * read back after MPI_Win_detach. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static char statics[64];

int main(int argc, char **argv) {
    int rank, size, flag, class, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    void *attr_base;
    MPI_Aint *attr_size;

    /* Statics, fence: the owner stores byte 2, its left neighbour puts
     * byte 3 of the same word in the same epoch, and gets byte 1, which
     * the owner stored before the epoch. */
    memset(statics, 'a', sizeof statics);
    statics[1] = (char)('A' + rank);
    MPI_Win win;
    MPI_Win_create(statics, sizeof statics, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &attr_base, &flag);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &attr_size, &flag);
    CHECK(flag && attr_base == statics && *attr_size == sizeof statics, "statics' attributes");
    char mark = (char)('0' + rank), got = 0;
    MPI_Win_fence(0, win);
    statics[2] = 'S';
    MPI_Put(&mark, 1, MPI_CHAR, right, 3, 1, MPI_CHAR, win);
    MPI_Get(&got, 1, MPI_CHAR, right, 1, 1, MPI_CHAR, win);
    MPI_Win_fence(0, win);
    CHECK(got == 'A' + right, "get of a byte stored before the epoch: %c", got);
    CHECK(statics[2] == 'S' && statics[3] == '0' + left && statics[1] == 'A' + rank &&
              statics[0] == 'a' && statics[4] == 'a',
          "statics after the fence: %.8s", statics);
    /* The store of the last epoch reaches others at the next fence. */
    MPI_Get(&got, 1, MPI_CHAR, right, 2, 1, MPI_CHAR, win);
    MPI_Win_fence(0, win);
    CHECK(got == 'S', "get of a byte stored in the last epoch: %c", got);
    MPI_Win_free(&win);

    /* The stack, post/start/complete/wait: each rank exposes to its left
     * neighbour, which puts into it and gets what the owner stored before
     * posting. */
    int stack[8];
    for (int i = 0; i < 8; i++) stack[i] = -1;
    MPI_Win_create(stack, sizeof stack, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, from_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &from_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    stack[5] = 50 + rank;
    MPI_Win_post(from_left, 0, win);
    MPI_Win_start(to_right, 0, win);
    int value = 10 * rank, fetched = 0;
    MPI_Put(&value, 1, MPI_INT, right, 2, 1, MPI_INT, win);
    MPI_Get(&fetched, 1, MPI_INT, right, 5, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(fetched == 50 + right, "get in a start epoch: %d", fetched);
    for (int i = 0; i < 8; i++)
        CHECK(stack[i] == (i == 2 ? 10 * left : i == 5 ? 50 + rank : -1), "stack[%d] = %d", i,
              stack[i]);
    MPI_Win_free(&win);

    /* The heap, lock/unlock: each rank puts into its right neighbour's
     * buffer under an exclusive lock; the owner reads under its own lock
     * after a barrier, then stores under it for its left neighbour to get.
     */
    long *heap = malloc(16 * sizeof(long));
    CHECK(heap != NULL, "malloc");
    for (int i = 0; i < 16; i++) heap[i] = i;
    MPI_Win_create(heap, 16 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long big = 1000L + rank;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&big, 1, MPI_LONG, right, 7, 1, MPI_LONG, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    CHECK(heap[7] == 1000L + left && heap[6] == 6 && heap[8] == 8, "heap after lock: %ld",
          heap[7]);
    heap[9] = -9L * rank;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    long fetched_long = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&fetched_long, 1, MPI_LONG, right, 9, 1, MPI_LONG, win);
    MPI_Win_unlock(right, win);
    CHECK(fetched_long == -9L * right, "get of a store published at unlock: %ld", fetched_long);

    /* lock_all and MPI_Win_sync: a store shows to a get after a sync, a
     * barrier; a put shows to a load after a flush, a barrier and a sync. */
    MPI_Win_lock_all(0, win);
    heap[10] = 77L * rank;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Get(&fetched_long, 1, MPI_LONG, right, 10, 1, MPI_LONG, win);
    MPI_Win_flush(right, win);
    CHECK(fetched_long == 77L * right, "get after the owner's MPI_Win_sync: %ld", fetched_long);
    long put_long = 5L * rank + 3;
    MPI_Put(&put_long, 1, MPI_LONG, right, 11, 1, MPI_LONG, win);
    MPI_Win_flush(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    CHECK(heap[11] == 5L * left + 3, "load after MPI_Win_sync: %ld", heap[11]);
    MPI_Win_unlock_all(win);

    /* Barriers order stores and puts as the unified model would: a store
     * then (after a barrier) a put to the same word leaves the put; a put
     * then (after a barrier) a store leaves the store, which a get finds
     * after another barrier. */
    heap[13] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&big, 1, MPI_LONG, right, 13, 1, MPI_LONG, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(heap[13] == 1000L + left, "a put after a store and a barrier: %ld", heap[13]);
    heap[13] = 3000L + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&fetched_long, 1, MPI_LONG, right, 13, 1, MPI_LONG, win);
    MPI_Win_unlock(right, win);
    CHECK(fetched_long == 3000L + right, "a store after a put and a barrier: %ld", fetched_long);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Accumulate: every rank adds to word 12 of rank 0. */
    MPI_Win_fence(0, win);
    long one = rank + 1;
    MPI_Accumulate(&one, 1, MPI_LONG, 0, 12, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(heap[12] == 12 + (long)size * (size + 1) / 2, "accumulated %ld", heap[12]);

    /* The last put reaches the program at MPI_Win_free. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    big = 2000L + rank;
    MPI_Put(&big, 1, MPI_LONG, right, 15, 1, MPI_LONG, win);
    MPI_Win_unlock(right, win);
    MPI_Win_free(&win);
    CHECK(heap[15] == 2000L + left, "heap after MPI_Win_free: %ld", heap[15]);
    free(heap);

    /* No memory: a window of 0 bytes at NULL on even ranks, 4 ints of
     * the stack on odd ones; puts go to the odd ranks only. */
    int four[4] = {0, 0, 0, 0};
    int mine = rank % 2 ? (int)sizeof four : 0;
    MPI_Win_create(rank % 2 ? four : NULL, mine, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &attr_base, &flag);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &attr_size, &flag);
    CHECK(*attr_size == mine && attr_base == (rank % 2 ? (void *)four : NULL), "empty window");
    MPI_Win_fence(0, win);
    if (right % 2) MPI_Put(&rank, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank % 2) CHECK(four[1] == left && four[0] == 0, "put beside an empty window: %d", four[1]);
    MPI_Win_free(&win);

    /* Part of a block of MPI_Alloc_mem: ints 2 and 3 of 6. */
    int *block;
    MPI_Alloc_mem(6 * sizeof(int), MPI_INFO_NULL, &block);
    for (int i = 0; i < 6; i++) block[i] = -1;
    MPI_Win_create(block + 2, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 6; i++)
        CHECK(block[i] == (i == 3 ? left : -1), "part of a block: block[%d] = %d", i, block[i]);
    MPI_Win_free(&win);
    MPI_Free_mem(block);

    /* A dynamic window with heap memory attached: puts at the address
     * MPI_Get_address gave, seen after a fence and kept after detach. */
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *attached = malloc(8 * sizeof(int));
    CHECK(attached != NULL, "malloc");
    for (int i = 0; i < 8; i++) attached[i] = 100 * rank + i;
    MPI_Win_attach(win, attached, 8 * sizeof(int));
    MPI_Aint where, where_6, theirs;
    MPI_Get_address(attached, &where);
    MPI_Get_address(&attached[6], &where_6);
    CHECK(MPI_Aint_diff(where_6, where) == 6 * sizeof(int), "address difference");
    MPI_Sendrecv(&where, 1, MPI_AINT, left, 1, &theirs, 1, MPI_AINT, right, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int pair[2] = {-rank, -2 * rank}, seen[2] = {0, 0};
    MPI_Win_fence(0, win);
    MPI_Put(pair, 2, MPI_INT, right, MPI_Aint_add(theirs, 2 * sizeof(int)), 2, MPI_INT, win);
    MPI_Get(seen, 2, MPI_INT, right, MPI_Aint_add(theirs, 6 * sizeof(int)), 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(seen[0] == 100 * right + 6 && seen[1] == 100 * right + 7, "dynamic get %d %d", seen[0],
          seen[1]);
    for (int i = 0; i < 8; i++)
        CHECK(attached[i] == (i == 2 ? -left : i == 3 ? -2 * left : 100 * rank + i),
              "dynamic put: attached[%d] = %d", i, attached[i]);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&rank, 1, MPI_INT, right, MPI_Aint_add(theirs, 0), 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, attached);
    CHECK(attached[0] == left, "put before detach: %d", attached[0]);
    MPI_Win_free(&win);
    free(attached);

    /* A window made on a shared window's part is another view of it: a
     * put through it is what a load through the shared window reads,
     * after the shared window's sync. The shared window may go first. */
    int *part;
    MPI_Win shm, view;
    MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &part,
                            &shm);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shm);
    part[0] = part[1] = -1;
    MPI_Win_sync(shm);
    MPI_Win_create(part, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &view);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, view);
    int tag = 1000 + rank;
    MPI_Put(&tag, 1, MPI_INT, right, 1, 1, MPI_INT, view);
    MPI_Win_unlock(right, view);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(shm);
    CHECK(part[0] == -1 && part[1] == 1000 + left, "put through the second view: %d %d", part[0],
          part[1]);
    MPI_Win_unlock_all(shm);
    MPI_Win_free(&shm);
    MPI_Win_free(&view);

    /* What is refused: a null base with bytes. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_create(NULL, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_BASE, "a null base with 8 bytes: class %d", class);

    printf("rank %d of %d: window memory checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
