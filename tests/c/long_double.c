/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* MPI_LONG_DOUBLE: C's long double (the x87's 80-bit extended value, 12
 * bytes with gcc -m32) in fetch-and-op, accumulate, get-accumulate and
 * reductions. The values differ from their nearest double (1 + k * 2^-60:
 * a double keeps 53 bits), so a library that went through double would
 * give other sums; each result is compared with the same arithmetic done
 * here, in C, by the x87. Logical and bitwise operations are refused with
 * MPI_ERR_OP, as on double. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"

/* 2^-60. */
static const long double TINY = 1.0L / (1ULL << 60);

/* Every rank adds 1 + (rank + 1) * 2^-60 to rank 0's counter with
 * MPI_Fetch_and_op(MPI_SUM); the values fetched are earlier sums. */
static void fetch_and_op_sum(int rank, int size)
{
    long double *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long double), sizeof(long double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    *base = 0.0L;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    long double mine = 1.0L + (rank + 1) * TINY, old = -1.0L;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&mine, &old, MPI_LONG_DOUBLE, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    /* An earlier sum: k ranks' ones plus some of their 2^-60s. */
    CHECK(old >= 0.0L && old < size, "fetched %Lg", old);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long double want = 0.0L;
        for (int r = 0; r < size; r++)
            want += 1.0L + (r + 1) * TINY;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        long double got;
        MPI_Get_accumulate(NULL, 0, MPI_LONG_DOUBLE, &got, 1, MPI_LONG_DOUBLE, 0, 0, 1,
                           MPI_LONG_DOUBLE, MPI_NO_OP, win);
        MPI_Win_unlock(0, win);
        CHECK(got == want, "sum %.21Lg, expected %.21Lg", got, want);
        /* The low bits are there: the nearest double is another value. */
        CHECK(got != (long double)(double)got, "sum %.21Lg is a double", got);
    }
    MPI_Win_free(&win);
}

/* Accumulates into rank 0's array of 4: SUM, PROD, MAX and MIN by every
 * rank in turn (fenced), then REPLACE, each element checked. */
static void accumulates(int rank, int size)
{
    long double *base;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(long double), sizeof(long double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    long double start[4] = {1.0L, 1.0L + TINY, 0.5L, 0.5L};
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            base[i] = start[i];
    MPI_Win_fence(0, win);
    long double x = 1.0L + (rank + 1) * TINY;
    MPI_Accumulate(&x, 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&x, 1, MPI_LONG_DOUBLE, 0, 1, 1, MPI_LONG_DOUBLE, MPI_PROD, win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&x, 1, MPI_LONG_DOUBLE, 0, 2, 1, MPI_LONG_DOUBLE, MPI_MAX, win);
    long double neg = -x;
    MPI_Accumulate(&neg, 1, MPI_LONG_DOUBLE, 0, 3, 1, MPI_LONG_DOUBLE, MPI_MIN, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        long double sum = start[0], prod = start[1];
        for (int r = 0; r < size; r++)
            sum += 1.0L + (r + 1) * TINY;
        /* Each factor is 1 + k * 2^-60: every partial product rounds to
         * 1 + m * 2^-60 (what it drops is below 2^-119), whatever the
         * order the ranks' calls came in. */
        for (int r = 0; r < size; r++)
            prod *= 1.0L + (r + 1) * TINY;
        long double top = 1.0L + size * TINY;
        CHECK(base[0] == sum, "sum %.21Lg, expected %.21Lg", base[0], sum);
        CHECK(base[1] == prod, "product %.21Lg, expected %.21Lg", base[1], prod);
        CHECK(base[1] != (long double)(double)base[1], "product %.21Lg is a double", base[1]);
        CHECK(base[2] == top, "max %.21Lg, expected %.21Lg", base[2], top);
        CHECK(base[3] == -top, "min %.21Lg, expected %.21Lg", base[3], -top);
    }
    MPI_Win_fence(0, win);
    if (rank == size - 1) {
        long double values[4] = {TINY, -TINY, 3.0L + TINY, 1e300L * 1e300L};
        MPI_Accumulate(values, 4, MPI_LONG_DOUBLE, 0, 0, 4, MPI_LONG_DOUBLE, MPI_REPLACE, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
        CHECK(base[0] == TINY && base[1] == -TINY && base[2] == 3.0L + TINY,
              "replaced: %Lg %Lg %.21Lg", base[0], base[1], base[2]);
        /* 1e600 is beyond any double, not beyond a long double. */
        CHECK(base[3] > 1e300L * 1e299L, "replaced: %Lg", base[3]);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

/* Logical and bitwise operations are not defined on floating types. */
static void refused_ops(int rank)
{
    long double *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long double), sizeof(long double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    long double x = 1.0L, old;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Op ops[] = {MPI_BOR, MPI_BAND, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int i = 0; i < 6; i++) {
        int err = MPI_Fetch_and_op(&x, &old, MPI_LONG_DOUBLE, rank, 0, ops[i], win);
        int cls = MPI_SUCCESS;
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_OP, "operation %d on MPI_LONG_DOUBLE gave class %d", ops[i], cls);
    }
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

/* MPI_Allreduce on long doubles, and MPI_Type_size. */
static void reductions(int rank, int size)
{
    long double mine[2] = {1.0L + (rank + 1) * TINY, -(rank + 1) - TINY}, sum[2], max[2];
    MPI_Allreduce(mine, sum, 2, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mine, max, 2, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long double want[2] = {0.0L, 0.0L};
    for (int r = 0; r < size; r++) {
        want[0] += 1.0L + (r + 1) * TINY;
        want[1] += -(r + 1) - TINY;
    }
    CHECK(sum[0] == want[0] && sum[1] == want[1], "allreduce sum %.21Lg %.21Lg", sum[0], sum[1]);
    CHECK(max[0] == 1.0L + size * TINY && max[1] == -1.0L - TINY, "allreduce max %.21Lg %.21Lg",
          max[0], max[1]);
    int bytes = 0;
    MPI_Type_size(MPI_LONG_DOUBLE, &bytes);
    CHECK(bytes == (int)sizeof(long double), "MPI_LONG_DOUBLE is %d bytes", bytes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fetch_and_op_sum(rank, size);
    accumulates(rank, size);
    refused_ops(rank);
    reductions(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: long double checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
