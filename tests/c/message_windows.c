/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Message-based windows (MPI_Win_allocate with info scc_one_sided =
 * messages): puts, gets and accumulates in fence, PSCW and lock epochs,
 * with derived types at the target, every value checked; the hints the
 * window reports; and the calls such a window refuses, by class. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define N 64

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "scc_one_sided", "messages");
    int *base = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win) ==
              MPI_SUCCESS,
          "MPI_Win_allocate");
    CHECK(base != NULL, "no base");

    /* The hints in effect name the window's kind. */
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1];
    int found = 0;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "scc_one_sided", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found && strcmp(value, "messages") == 0, "scc_one_sided=%s", found ? value : "(none)");
    MPI_Info_free(&used);

    /* Fence: each rank puts N ints into its right neighbour's window. */
    for (int i = 0; i < N; i++) base[i] = -1;
    int mine[N];
    for (int i = 0; i < N; i++) mine[i] = 1000 * rank + i;
    MPI_Win_fence(0, win);
    MPI_Put(mine, N, MPI_INT, right, 0, N, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        CHECK(base[i] == 1000 * left + i, "fence put: element %d is %d", i, base[i]);

    /* PSCW: get every other element of the left neighbour's window (a
     * vector type at the target) into a contiguous buffer, and put a
     * strided column into the right one's. */
    MPI_Group world, left_group, right_group, both;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int lr[2] = {left, right};
    MPI_Group_incl(world, 1, &left, &left_group);
    MPI_Group_incl(world, 1, &right, &right_group);
    MPI_Group_incl(world, left == right ? 1 : 2, lr, &both);
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int got[N / 2];
    memset(got, 0, sizeof got);
    int column[4] = {7 + rank, 8 + rank, 9 + rank, 10 + rank};
    MPI_Win_post(both, 0, win);
    MPI_Win_start(both, 0, win);
    MPI_Get(got, N / 2, MPI_INT, left, 0, 1, every_other, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    /* The left neighbour's window holds what its left neighbour put. */
    int left2 = (left + size - 1) % size;
    for (int i = 0; i < N / 2; i++)
        CHECK(got[i] == 1000 * left2 + 2 * i, "PSCW get: element %d is %d", i, got[i]);
    MPI_Datatype stride8;
    MPI_Type_vector(4, 1, 8, MPI_INT, &stride8);
    MPI_Type_commit(&stride8);
    MPI_Win_post(left_group, 0, win);
    MPI_Win_start(right_group, 0, win);
    MPI_Put(column, 4, MPI_INT, right, 1, 1, stride8, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (int k = 0; k < 4; k++)
        CHECK(base[1 + 8 * k] == 7 + left + k, "PSCW put: element %d is %d", 1 + 8 * k,
              base[1 + 8 * k]);
    CHECK(base[2] == 1000 * left + 2, "PSCW put wrote past its column: %d", base[2]);

    /* Lock: every rank adds its rank + 1 to element 0 of rank 0 and puts
     * its rank at element 1 + rank there, under exclusive locks. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int add = rank + 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&add, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Put(&rank, 1, MPI_INT, 0, 1 + rank, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    /* The target serves messages inside its window calls: rank 0 waits
     * in a fence for the others' epochs to be applied. */
    MPI_Win_fence(0, win);
    if (rank == 0) {
        CHECK(base[0] == size * (size + 1) / 2, "lock accumulate: %d", base[0]);
        for (int r = 0; r < size; r++) CHECK(base[1 + r] == r, "lock put %d: %d", r, base[1 + r]);
    }
    /* lock_all: everybody reads rank 0's element 0. */
    int sum = -1;
    MPI_Win_lock_all(0, win);
    MPI_Get(&sum, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    CHECK(sum == size * (size + 1) / 2, "lock_all get: %d", sum);
    MPI_Win_unlock_all(win);
    MPI_Win_fence(0, win);

    /* What the window refuses, by class, with MPI_ERRORS_RETURN. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int old = 0, one = 1, class_ = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int rc = MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Error_class(rc, &class_);
    CHECK(class_ == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Fetch_and_op: class %d", class_);
    rc = MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAX, win);
    MPI_Error_class(rc, &class_);
    CHECK(class_ == MPI_ERR_OP, "MPI_Accumulate with MPI_MAX: class %d", class_);
    MPI_Win_unlock(0, win);
    int flag = 0;
    rc = MPI_Win_test(win, &flag);
    MPI_Error_class(rc, &class_);
    CHECK(class_ == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_test: class %d", class_);
    MPI_Win_fence(0, win);

    /* Only MPI_Win_allocate makes one. */
    int stack[4];
    MPI_Win other;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_create(stack, sizeof stack, sizeof(int), info, MPI_COMM_WORLD, &other);
    MPI_Error_class(rc, &class_);
    CHECK(class_ == MPI_ERR_INFO_VALUE, "MPI_Win_create with messages: class %d", class_);
    MPI_Info_set(info, "scc_one_sided", "pigeons");
    rc = MPI_Win_allocate(16, 1, info, MPI_COMM_WORLD, &base, &other);
    MPI_Error_class(rc, &class_);
    CHECK(class_ == MPI_ERR_INFO_VALUE, "scc_one_sided=pigeons: class %d", class_);

    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "the handle after MPI_Win_free");
    MPI_Type_free(&every_other);
    MPI_Type_free(&stride8);
    MPI_Group_free(&world);
    MPI_Group_free(&left_group);
    MPI_Group_free(&right_group);
    MPI_Group_free(&both);
    MPI_Info_free(&info);
    printf("rank %d of %d: message-based window checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
