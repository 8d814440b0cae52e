/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Calls MPICH's one-sided tests make beyond the common ones: request-based
 * accumulates (MPI_Raccumulate, MPI_Rget_accumulate), window error
 * handlers of the program's (MPI_Win_create_errhandler,
 * MPI_Win_call_errhandler, MPI_Win_get_errhandler, counted handles),
 * MPI_Group_compare, windows on MPI_COMM_SELF, MPI_Win_shared_query on
 * MPI_PROC_NULL and on windows that are not shared, MPI_MAXLOC and
 * MPI_MINLOC on pair types in accumulates (with fetch-and-op and
 * get-accumulate of pairs), addresses taken before MPI_Win_attach,
 * lock, unlock and flushes of MPI_PROC_NULL (calls that do nothing),
 * MPI_SHORT_INT in accumulates (its padding left alone), and
 * <memory.h>. Every value
 * moved is checked. */
#include <memory.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int calls, last_code;
static MPI_Win expected_win;

static void count_errors(MPI_Win *win, int *code, ...)
{
    CHECK(*win == expected_win, "handler called for window %d, not %d", *win, expected_win);
    calls++;
    last_code = *code;
}

/* Request-based accumulates into each rank's right neighbour. */
static void request_accumulates(int rank, int size)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 100 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int add[4] = {1, 2, 3, 4}, old[4] = {-1, -1, -1, -1}, mine[2] = {7, 8};
    MPI_Request req[2];
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Raccumulate(add, 4, MPI_INT, right, 0, 4, MPI_INT, MPI_SUM, win, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    /* Old values of elements 2..3 (with the sum just made), then replaced. */
    MPI_Rget_accumulate(mine, 2, MPI_INT, old, 2, MPI_INT, right, 2, 2, MPI_INT, MPI_REPLACE, win,
                        &req[1]);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    MPI_Win_unlock(right, win);
    CHECK(old[0] == 100 * right + 2 + 3 && old[1] == 100 * right + 3 + 4,
          "Rget_accumulate's old values %d %d", old[0], old[1]);
    CHECK(old[2] == -1 && old[3] == -1, "Rget_accumulate wrote past its count");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(base[0] == 100 * rank + 1 && base[1] == 100 * rank + 3, "Raccumulate: %d %d", base[0],
          base[1]);
    CHECK(base[2] == 7 && base[3] == 8, "Rget_accumulate's replace: %d %d", base[2], base[3]);
    MPI_Win_unlock(rank, win);
    (void)left;
    /* Outside a passive-target epoch: MPI_ERR_RMA_SYNC. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int err = MPI_Raccumulate(add, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win, &req[0]), cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "Raccumulate outside an epoch: class %d", cls);
    MPI_Win_free(&win);
}

/* The program's error handlers on windows. */
static void error_handlers(int rank, int size)
{
    int buf[2] = {0, 0};
    MPI_Win win;
    /* Many times over: handles are counted and their slots reused. */
    for (int i = 0; i < 200; i++) {
        MPI_Errhandler eh;
        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        expected_win = win;
        MPI_Win_create_errhandler(count_errors, &eh);
        MPI_Win_set_errhandler(win, eh);
        calls = 0;
        CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER) == MPI_SUCCESS, "call_errhandler");
        CHECK(calls == 1 && last_code == MPI_ERR_OTHER, "handler calls %d, code %d", calls,
              last_code);
        MPI_Errhandler_free(&eh);
        CHECK(eh == MPI_ERRHANDLER_NULL, "freed handle %d", eh);
        /* Still the window's: an error calls it, then the call returns. */
        MPI_Win_fence(0, win);
        int err = MPI_Put(buf, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win), cls;
        MPI_Error_class(err, &cls);
        CHECK(calls == 2, "the handler was not called for the failed put (%d)", calls);
        CHECK(cls == MPI_ERR_RANK && last_code == err, "class %d, code %d vs %d", cls, last_code,
              err);
        MPI_Errhandler got;
        MPI_Win_get_errhandler(win, &got);
        CHECK(got != MPI_ERRORS_ARE_FATAL && got != MPI_ERRORS_RETURN, "get_errhandler %d", got);
        MPI_Errhandler_free(&got);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    }
    /* MPI_ERRORS_RETURN: call_errhandler does nothing and succeeds. */
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER) == MPI_SUCCESS, "call on ERRORS_RETURN");
    MPI_Win_free(&win);
    (void)rank;
}

static void group_compare(int rank, int size)
{
    MPI_Group world, reversed, part, same;
    int result, *ranks = malloc(size * sizeof(int));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(MPI_COMM_WORLD, &same);
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    MPI_Group_incl(world, size, ranks, &reversed);
    MPI_Group_incl(world, 1, ranks, &part);
    MPI_Group_compare(world, same, &result);
    CHECK(result == MPI_IDENT, "world vs world: %d", result);
    MPI_Group_compare(world, reversed, &result);
    CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "world vs reversed: %d", result);
    MPI_Group_compare(world, part, &result);
    CHECK(result == (size > 1 ? MPI_UNEQUAL : MPI_IDENT), "world vs one: %d", result);
    MPI_Group_compare(part, MPI_GROUP_EMPTY, &result);
    CHECK(result == MPI_UNEQUAL, "one vs empty: %d", result);
    /* A window's group is its communicator's. */
    MPI_Win win;
    int *base;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Group wg;
    MPI_Win_get_group(win, &wg);
    MPI_Group_compare(world, wg, &result);
    CHECK(result == MPI_IDENT, "world vs the window's group: %d", result);
    MPI_Win_free(&win);
    MPI_Group_free(&wg);
    MPI_Group_free(&world);
    MPI_Group_free(&same);
    MPI_Group_free(&reversed);
    MPI_Group_free(&part);
    free(ranks);
    (void)rank;
}

/* Windows on MPI_COMM_SELF: each process alone, every flavor. */
static void self_windows(int rank)
{
    int *base, buf[4] = {0, 0, 0, 0}, got[4], mine[4];
    MPI_Win win;
    for (int i = 0; i < 4; i++)
        mine[i] = 1000 * rank + i;
    MPI_Win_allocate(sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    MPI_Group g;
    int gsize;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gsize);
    CHECK(gsize == 1, "a self window's group has %d", gsize);
    MPI_Group_free(&g);
    MPI_Win_fence(0, win);
    MPI_Put(mine, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        CHECK(base[i] == 1000 * rank + i, "self allocate: [%d] = %d", i, base[i]);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(mine, 4, MPI_INT, 0, 0, 4, MPI_INT, MPI_SUM, win);
    MPI_Get(got, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 2 * (1000 * rank + i), "self accumulate: [%d] = %d", i, got[i]);
    MPI_Win_free(&win);

    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(mine, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    for (int i = 0; i < 4; i++)
        CHECK(buf[i] == 1000 * rank + i, "self create: [%d] = %d", i, buf[i]);

    MPI_Win_allocate_shared(sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    MPI_Aint qsize;
    int qunit, *qbase;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &qbase);
    CHECK(qbase == base && qsize == sizeof buf && qunit == sizeof(int),
          "self shared query with MPI_PROC_NULL: %p %ld %d", (void *)qbase, (long)qsize, qunit);
    MPI_Win_free(&win);
}

/* MPI_Win_shared_query: MPI_PROC_NULL finds the lowest rank with memory;
 * windows that are not shared answer size 0 and NULL. */
static void shared_query(int rank, int size)
{
    int *base;
    MPI_Win win;
    MPI_Aint qsize;
    int qunit, *qbase;
    /* Rank 0 has no memory, the others 4 ints each. */
    MPI_Aint mine = rank == 0 ? 0 : 4 * sizeof(int);
    MPI_Win_allocate_shared(mine, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    if (rank == 1)
        for (int i = 0; i < 4; i++)
            base[i] = 50 + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &qbase);
    if (size > 1) {
        CHECK(qsize == 4 * sizeof(int) && qunit == sizeof(int) && qbase != NULL,
              "PROC_NULL query: %ld %d %p", (long)qsize, qunit, (void *)qbase);
        for (int i = 0; i < 4; i++)
            CHECK(qbase[i] == 50 + i, "rank 1's part through the query: [%d] = %d", i, qbase[i]);
    } else {
        CHECK(qsize == 0, "PROC_NULL query of an empty window: %ld", (long)qsize);
    }
    /* Rank 0's part has no bytes: no address either. */
    qbase = (int *)&qsize;
    MPI_Win_shared_query(win, 0, &qsize, &qunit, &qbase);
    CHECK(qsize == 0 && qbase == NULL, "rank 0's empty part: %ld %p", (long)qsize, (void *)qbase);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    /* Not shared: size 0, a null pointer. */
    MPI_Win_allocate(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    qbase = (int *)&qsize;
    MPI_Win_shared_query(win, 0, &qsize, &qunit, &qbase);
    CHECK(qsize == 0 && qbase == NULL, "query of an allocate window: %ld %p", (long)qsize,
          (void *)qbase);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int err = MPI_Win_shared_query(win, size, &qsize, &qunit, &qbase), cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK, "query of rank %d: class %d", size, cls);
    MPI_Win_free(&win);
}

/* MPI_MAXLOC and MPI_MINLOC on the pair types in accumulates: every rank
 * combines its pair into rank 0's; the winner and, of ties, the lowest
 * index must be left. */
struct long_double_int {
    long double value;
    int index;
};

static void pair_accumulates(int rank, int size)
{
    struct {
        int value, index;
    } *ints, mine_int = {rank % 2 == 0 ? 100 : 5 * rank, rank};
    struct {
        double value;
        int index;
    } *doubles, mine_double = {-1.5 * rank, rank};
    MPI_Win wi, wd, wl;
    MPI_Win_allocate(2 * sizeof *ints, sizeof *ints, MPI_INFO_NULL, MPI_COMM_WORLD, &ints, &wi);
    MPI_Win_allocate(sizeof *doubles, sizeof *doubles, MPI_INFO_NULL, MPI_COMM_WORLD, &doubles,
                     &wd);
    ints[0].value = 50, ints[0].index = -1, ints[1].value = 50, ints[1].index = -1;
    doubles->value = 0.25, doubles->index = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, wi);
    MPI_Accumulate(&mine_int, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_MAXLOC, wi);
    MPI_Accumulate(&mine_int, 1, MPI_2INT, 0, 1, 1, MPI_2INT, MPI_MINLOC, wi);
    MPI_Win_fence(0, wi);
    MPI_Win_fence(0, wd);
    MPI_Accumulate(&mine_double, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MINLOC, wd);
    MPI_Win_fence(0, wd);
    if (rank == 0) {
        /* MAXLOC: 100 from every even rank, the lowest index 0 (over 50);
         * with 1 rank, rank 0's 100. MINLOC: 5 from rank 1, else 50. */
        CHECK(ints[0].value == 100 && ints[0].index == 0, "MAXLOC 2INT: %d at %d", ints[0].value,
              ints[0].index);
        if (size > 1)
            CHECK(ints[1].value == 5 && ints[1].index == 1, "MINLOC 2INT: %d at %d",
                  ints[1].value, ints[1].index);
        else
            CHECK(ints[1].value == 50 && ints[1].index == -1, "MINLOC 2INT alone: %d at %d",
                  ints[1].value, ints[1].index);
        double want = size > 1 ? -1.5 * (size - 1) : 0.0;
        int at = size > 1 ? size - 1 : 0;
        CHECK(doubles->value == want && doubles->index == at, "MINLOC DOUBLE_INT: %g at %d",
              doubles->value, doubles->index);
    }
    /* Fetch_and_op and Get_accumulate read and replace pairs. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wi);
    struct {
        int value, index;
    } old = {0, 0}, put = {rank + 1000, rank};
    MPI_Fetch_and_op(NULL, &old, MPI_2INT, 0, 0, MPI_NO_OP, wi);
    CHECK(old.value >= 100, "fetch of the pair: %d at %d", old.value, old.index);
    MPI_Get_accumulate(&put, 1, MPI_2INT, &old, 1, MPI_2INT, 0, 1, 1, MPI_2INT, MPI_REPLACE, wi);
    MPI_Win_unlock(0, wi);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(ints[1].value >= 1000 && ints[1].value - 1000 == ints[1].index,
              "the replaced pair: %d at %d", ints[1].value, ints[1].index);

    /* MPI_LONG_DOUBLE_INT in a vector: 3 of every 5, values that differ
     * only past a double's precision. */
    struct long_double_int *ld, src[10];
    MPI_Datatype vec;
    MPI_Type_vector(2, 3, 5, MPI_LONG_DOUBLE_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Win_allocate(10 * sizeof *ld, sizeof *ld, MPI_INFO_NULL, MPI_COMM_WORLD, &ld, &wl);
    for (int i = 0; i < 10; i++) {
        ld[i].value = 1.0L;
        ld[i].index = -7;
        src[i].value = 1.0L + (long double)rank * 0x1p-60L;
        src[i].index = rank;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, wl);
    MPI_Accumulate(src, 1, vec, 0, 0, 1, vec, MPI_MAXLOC, wl);
    MPI_Win_fence(0, wl);
    if (rank == 0)
        for (int i = 0; i < 10; i++) {
            int picked = i % 5 < 3;
            long double want = picked ? 1.0L + (long double)(size - 1) * 0x1p-60L : 1.0L;
            /* Alone, rank 0's 1.0 ties and the lower index, -7, stays. */
            int at = picked && size > 1 ? size - 1 : -7;
            CHECK(ld[i].value == want && ld[i].index == at, "MAXLOC LONG_DOUBLE_INT [%d]: at %d",
                  i, ld[i].index);
        }
    MPI_Type_free(&vec);

    /* What MAXLOC does not take: a type that is not a pair; nor a pair
     * type SUM. */
    MPI_Win_set_errhandler(wi, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, wi);
    int cls, err = MPI_Accumulate(&mine_int, 2, MPI_INT, 0, 0, 2, MPI_INT, MPI_MAXLOC, wi);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OP, "MAXLOC on MPI_INT: class %d", cls);
    err = MPI_Accumulate(&mine_int, 1, MPI_SHORT_INT, 0, 0, 1, MPI_SHORT_INT, MPI_SUM, wi);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OP, "SUM on MPI_SHORT_INT: class %d", cls);
    err = MPI_Accumulate(&mine_int, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_SUM, wi);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OP, "SUM on MPI_2INT: class %d", cls);
    /* Types that move nothing need not match; types that move do. */
    double nothing;
    CHECK(MPI_Accumulate(&nothing, 0, MPI_DOUBLE, 0, 0, 0, MPI_INT, MPI_SUM, wi) == MPI_SUCCESS,
          "an accumulate of nothing");
    CHECK(MPI_Get_accumulate(&nothing, 0, MPI_DOUBLE, &nothing, 0, MPI_INT, 0, 0, 0, MPI_INT,
                             MPI_SUM, wi) == MPI_SUCCESS,
          "a get-accumulate of nothing");
    err = MPI_Accumulate(&nothing, 1, MPI_DOUBLE, 0, 0, 2, MPI_INT, MPI_SUM, wi);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TYPE, "doubles into ints: class %d", cls);
    MPI_Win_fence(0, wi);
    MPI_Win_free(&wl);
    MPI_Win_free(&wd);
    MPI_Win_free(&wi);
}

/* Addresses taken before MPI_Win_attach reach the memory once attached:
 * a stack array (reached through its public copy) and a block of
 * MPI_Alloc_mem, in one dynamic window. */
static void address_before_attach(int rank, int size)
{
    int stack_part[16], *block, *mids = malloc(2 * size * sizeof(MPI_Aint));
    MPI_Aint mine[2], *all = (MPI_Aint *)mids;
    MPI_Alloc_mem(8 * sizeof(int), MPI_INFO_NULL, &block);
    for (int i = 0; i < 16; i++)
        stack_part[i] = 100 * rank + i;
    for (int i = 0; i < 8; i++)
        block[i] = -100 * rank - i;
    MPI_Get_address(&stack_part[8], &mine[0]);
    MPI_Get_address(block, &mine[1]);
    CHECK(mine[0] == (MPI_Aint)&stack_part[8], "MPI_Get_address is the identity");
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, stack_part, sizeof stack_part);
    MPI_Win_attach(win, block, 8 * sizeof(int));
    int right = (rank + 1) % size, got[4] = {0, 0, 0, 0}, mark = 7000 + rank;
    MPI_Win_fence(0, win);
    /* Elements 6..9 of the right neighbour's stack array, from the
     * address of its element 8. */
    MPI_Get(got, 4, MPI_INT, right, MPI_Aint_add(all[2 * right], -2 * (MPI_Aint)sizeof(int)), 4,
            MPI_INT, win);
    MPI_Put(&mark, 1, MPI_INT, right, MPI_Aint_add(all[2 * right + 1], 5 * sizeof(int)), 1,
            MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 100 * right + 6 + i, "before-attach get [%d] = %d", i, got[i]);
    int left = (rank + size - 1) % size;
    CHECK(block[5] == 7000 + left, "before-attach put into the block: %d", block[5]);
    for (int i = 0; i < 8; i++)
        if (i != 5)
            CHECK(block[i] == -100 * rank - i, "block [%d] = %d", i, block[i]);
    /* Detached: the address reaches nothing. */
    MPI_Win_detach(win, stack_part);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    int err = MPI_Get(got, 1, MPI_INT, right, all[2 * right], 1, MPI_INT, win), cls;
    MPI_Win_unlock(right, win);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "a get from detached memory: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, block);
    MPI_Win_free(&win);
    MPI_Free_mem(block);
    free(mids);
}

/* Lock, unlock, flush and flush_local of MPI_PROC_NULL do nothing, as
 * MPICH takes them: no epoch, no data moved; inside a real lock epoch they
 * leave it open. */
static void proc_null_sync(int rank, int size)
{
    int buf[4] = {rank, rank, rank, rank}, got[4] = {-1, -1, -1, -1}, one = 1;
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win) == MPI_SUCCESS, "lock null");
    CHECK(MPI_Put(&one, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win) == MPI_SUCCESS, "put");
    CHECK(MPI_Get(got, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win) == MPI_SUCCESS, "get");
    CHECK(MPI_Win_flush(MPI_PROC_NULL, win) == MPI_SUCCESS, "flush null");
    CHECK(MPI_Win_flush_local(MPI_PROC_NULL, win) == MPI_SUCCESS, "flush_local null");
    MPI_Request req;
    int rerr = MPI_Rget(got, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &req), rlen;
    char rmsg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(rerr, rmsg, &rlen);
    CHECK(rerr == MPI_SUCCESS, "rget null: %s", rmsg);
    CHECK(MPI_Win_unlock(MPI_PROC_NULL, win) == MPI_SUCCESS, "unlock null");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait for rget null");
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == -1, "a get of MPI_PROC_NULL wrote [%d] = %d", i, got[i]);
    /* No epoch is open: an access to a real rank is refused. */
    int right = (rank + 1) % size, err, cls;
    err = MPI_Put(&one, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "a put outside an epoch: class %d", cls);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, win) == MPI_SUCCESS, "nested");
    CHECK(MPI_Win_flush(MPI_PROC_NULL, win) == MPI_SUCCESS, "flush null in an epoch");
    CHECK(MPI_Win_unlock(MPI_PROC_NULL, win) == MPI_SUCCESS, "unlock null in an epoch");
    CHECK(MPI_Get(got, 4, MPI_INT, right, 0, 4, MPI_INT, win) == MPI_SUCCESS, "get right");
    CHECK(MPI_Win_unlock(right, win) == MPI_SUCCESS, "unlock right");
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == right, "get from the right neighbour [%d] = %d", i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        CHECK(buf[i] == rank, "the window was touched: [%d] = %d", i, buf[i]);
    MPI_Win_free(&win);
}

/* MPI_SHORT_INT: a short, 2 bytes of padding, an int. Accumulates,
 * fetch-and-op and get-accumulate touch the short and the int only. */
struct short_int {
    short value;
    int index;
};

static unsigned char pad_of(const struct short_int *e, int k)
{
    return ((const unsigned char *)e)[2 + k];
}

static void short_int_accumulates(int rank, int size)
{
    struct short_int *part;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof *part, sizeof *part, MPI_INFO_NULL, MPI_COMM_WORLD, &part, &win);
    memset(part, 0xA5, 2 * sizeof *part);
    part[0].value = -5, part[0].index = -1, part[1].value = 9, part[1].index = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    struct short_int mine;
    memset(&mine, 0x11, sizeof mine);
    mine.value = (short)(10 * rank - 3), mine.index = rank;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&mine, 1, MPI_SHORT_INT, 0, 0, 1, MPI_SHORT_INT, MPI_MAXLOC, win);
    MPI_Accumulate(&mine, 1, MPI_SHORT_INT, 0, 1, 1, MPI_SHORT_INT, MPI_MINLOC, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        /* MAXLOC: the last rank's 10(size-1)-3 (over -5); MINLOC: rank 0's -3. */
        CHECK(part[0].value == 10 * (size - 1) - 3 && part[0].index == size - 1,
              "MAXLOC SHORT_INT: %d at %d", part[0].value, part[0].index);
        CHECK(part[1].value == -3 && part[1].index == 0, "MINLOC SHORT_INT: %d at %d",
              part[1].value, part[1].index);
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < 2; k++)
                CHECK(pad_of(&part[e], k) == 0xA5, "padding of [%d] byte %d: %#x", e, k,
                      pad_of(&part[e], k));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Fetch (NO_OP) and replace (REPLACE), the result's padding kept. */
    struct short_int old, put;
    memset(&old, 0x77, sizeof old);
    memset(&put, 0x33, sizeof put);
    put.value = (short)(1000 + rank), put.index = rank;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Fetch_and_op(NULL, &old, MPI_SHORT_INT, 0, 0, MPI_NO_OP, win);
    CHECK(old.value >= 10 * (size - 1) - 3, "fetched SHORT_INT: %d at %d", old.value, old.index);
    CHECK(pad_of(&old, 0) == 0x77 && pad_of(&old, 1) == 0x77, "fetch wrote the padding");
    memset(&old, 0x77, sizeof old);
    MPI_Get_accumulate(&put, 1, MPI_SHORT_INT, &old, 1, MPI_SHORT_INT, 0, 1, 1, MPI_SHORT_INT,
                       MPI_REPLACE, win);
    MPI_Win_unlock(0, win);
    CHECK(pad_of(&old, 0) == 0x77 && pad_of(&old, 1) == 0x77, "get_accumulate wrote the padding");
    CHECK(old.value == -3 || old.value >= 1000, "the pair replaced: %d at %d", old.value,
          old.index);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(part[1].value >= 1000 && part[1].value - 1000 == part[1].index,
              "the replaced SHORT_INT: %d at %d", part[1].value, part[1].index);
        CHECK(pad_of(&part[1], 0) == 0xA5 && pad_of(&part[1], 1) == 0xA5,
              "REPLACE wrote the target's padding");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

static void memory_h(void)
{
    char a[8] = "abcdefg", b[8];
    memcpy(b, a, sizeof a);
    CHECK(memcmp(a, b, sizeof a) == 0, "memcpy from <memory.h>");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memory_h();
    request_accumulates(rank, size);
    error_handlers(rank, size);
    group_compare(rank, size);
    self_windows(rank);
    shared_query(rank, size);
    pair_accumulates(rank, size);
    address_before_attach(rank, size);
    proc_null_sync(rank, size);
    short_int_accumulates(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: rma extras ok\n", rank);
    MPI_Finalize();
    return 0;
}
