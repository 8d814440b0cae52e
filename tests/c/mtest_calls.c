/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The calls MPICH's test harness (test/mpi/util/mtest.c) makes: an
 * intercommunicator between the halves of the world and its merge,
 * MPI_Comm_create_group, MPI_Group_range_incl, names, window keys with a
 * delete callback, MPI_Comm_get_attr, MPI_Type_get_envelope and sleep. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int deletions;
static void *deleted_value;

static int count_delete(MPI_Win win, int key, void *value, void *extra)
{
    (void)win;
    (void)key;
    CHECK(extra == &deletions, "extra state %p", extra);
    deletions++;
    deleted_value = value;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Intercommunicator between the lower and upper halves. */
    int half = size / 2, low = rank < half;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 77, &inter);
    int flag, lsize, rsize, lrank;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag == 1, "test_inter %d", flag);
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    CHECK(flag == 0, "test_inter world %d", flag);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    CHECK(lsize == (low ? half : size - half), "local size %d", lsize);
    CHECK(rsize == size - lsize, "remote size %d", rsize);
    CHECK(lrank == (low ? rank : rank - half), "local rank %d", lrank);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int err = MPI_Barrier(inter), cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COMM, "barrier on an intercommunicator: class %d", cls);
    /* Merged with the upper half first. */
    MPI_Intercomm_merge(inter, low, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size, "merged size %d", msize);
    CHECK(mrank == (low ? size - half + rank : rank - half), "merged rank %d", mrank);
    int sum = 0, one = mrank;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == size * (size - 1) / 2, "sum over merged %d", sum);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);

    /* The even ranks by MPI_Group_range_incl and MPI_Comm_create_group. */
    MPI_Group world, even;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, ranges, &even);
    int esize, erank;
    MPI_Group_size(even, &esize);
    MPI_Group_rank(even, &erank);
    CHECK(esize == (size + 1) / 2, "even size %d", esize);
    CHECK(erank == (rank % 2 ? MPI_UNDEFINED : rank / 2), "even rank %d", erank);
    int down[1][3] = {{size - 1, 0, -1}};
    MPI_Group rev;
    MPI_Group_range_incl(world, 1, down, &rev);
    MPI_Group_rank(rev, &erank);
    CHECK(erank == size - 1 - rank, "reversed rank %d", erank);
    MPI_Group_free(&rev);
    if (rank % 2 == 0) {
        MPI_Comm evens;
        MPI_Comm_create_group(MPI_COMM_WORLD, even, 5, &evens);
        MPI_Comm_rank(evens, &erank);
        CHECK(erank == rank / 2, "rank in evens %d", erank);
        int n = 0;
        one = 1;
        MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, evens);
        CHECK(n == esize, "evens counted %d", n);
        MPI_Comm_free(&evens);
    }
    MPI_Group_free(&even);
    MPI_Group_free(&world);

    /* Names. */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "%s", name);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0 && name[0] == 0, "unnamed: %s", name);
    MPI_Comm_set_name(dup, "the dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "the dup") == 0 && len == 7, "%s", name);
    MPI_Comm_free(&dup);

    /* Predefined attributes. */
    int *value;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    CHECK(flag && *value >= 32767, "tag ub %d", *value);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
    CHECK(flag && *value == size, "universe %d", *value);

    /* Window keys. */
    int key = MPI_KEYVAL_INVALID;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key, &deletions);
    CHECK(key != MPI_KEYVAL_INVALID, "key");
    int nulls;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &nulls, 0);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    void *got;
    MPI_Win_get_attr(win, key, &got, &flag);
    CHECK(flag == 0, "unset key found");
    MPI_Win_set_attr(win, key, (void *)1);
    MPI_Win_set_attr(win, nulls, (void *)9);
    MPI_Win_get_attr(win, key, &got, &flag);
    CHECK(flag == 1 && got == (void *)1, "got %p", got);
    MPI_Win_set_attr(win, key, (void *)2);
    CHECK(deletions == 1 && deleted_value == (void *)1, "replaced: %d", deletions);
    MPI_Win_delete_attr(win, key);
    CHECK(deletions == 2 && deleted_value == (void *)2, "deleted: %d", deletions);
    MPI_Win_get_attr(win, key, &got, &flag);
    CHECK(flag == 0, "deleted key found");
    MPI_Win_set_attr(win, key, (void *)3);
    MPI_Win_set_name(win, "w");
    MPI_Win_get_name(win, name, &len);
    CHECK(strcmp(name, "w") == 0, "%s", name);
    MPI_Win_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "freed key %d", key);
    MPI_Win_free(&win);
    CHECK(deletions == 3 && deleted_value == (void *)3, "at free: %d", deletions);
    MPI_Win_free_keyval(&nulls);

    /* Envelopes. */
    int ni, na, nd, comb;
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named %d", comb);
    MPI_Datatype vec, st;
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector %d", comb);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &st);
    MPI_Type_get_envelope(st, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2, "struct %d", comb);
    MPI_Type_free(&vec);
    MPI_Type_free(&st);

    /* sleep in modelled time. */
    double t0 = MPI_Wtime();
    CHECK(sleep(0) == 0, "sleep(0)");
    double t1 = MPI_Wtime();
    CHECK(sleep(1) == 0, "sleep(1)");
    double t2 = MPI_Wtime();
    CHECK(t1 - t0 < 0.01, "sleep(0) took %f", t1 - t0);
    CHECK(t2 - t1 >= 1.0 && t2 - t1 < 1.01, "sleep(1) took %f", t2 - t1);

    printf("rank %d: mtest calls ok\n", rank);
    MPI_Finalize();
    return 0;
}
