/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* basic.c: OpenSHMEM on every PE, each result checked: a ring of puts and
 * gets, p and g, strided puts, a fetch-and-add counter and compare-and-
 * swap, a producer and consumer with wait_until, a lock around a
 * read-modify-write of plain puts and gets, broadcast, fcollect, collect,
 * alltoall and reductions, the heap's offsets, and wtime. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define N 40
#define ROUNDS 3

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    double t0 = shmem_wtime();

    /* A ring of puts, then gets of what was put. */
    int *ring = shmem_malloc(N * sizeof(int));
    int src[N], got[N];
    for (int i = 0; i < N; i++) src[i] = me * 1000 + i;
    shmem_int_put(ring, src, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(ring[i] == left * 1000 + i, "ring[%d] = %d", i, ring[i]);
    shmem_int_get(got, ring, N, right);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == me * 1000 + i, "got[%d] = %d", i, got[i]);

    /* p and g, one long per PE; then a strided put of every other int. */
    long *cells = shmem_calloc(n, sizeof(long));
    for (int i = 0; i < n; i++) CHECK(cells[i] == 0, "calloc left %ld", cells[i]);
    shmem_barrier_all(); /* everyone has looked before anyone puts */
    shmem_long_p(&cells[me], me + 7, right);
    shmem_barrier_all();
    CHECK(cells[left] == left + 7, "cells[%d] = %ld", left, cells[left]);
    CHECK(shmem_long_g(&cells[me], right) == me + 7, "g of my cell on %d", right);
    int *strided = shmem_calloc(2 * N, sizeof(int));
    shmem_int_iput(strided, src, 2, 1, N, right);
    shmem_barrier_all();
    for (int i = 0; i < 2 * N; i++) {
        int want = i % 2 == 0 ? left * 1000 + i / 2 : 0;
        CHECK(strided[i] == want, "strided[%d] = %d, not %d", i, strided[i], want);
    }
    int back[N];
    shmem_int_iget(back, strided, 1, 2, N, left);
    for (int i = 0; i < N; i++)
        CHECK(back[i] == (left + n - 1) % n * 1000 + i, "iget[%d] = %d", i, back[i]);

    /* A counter on PE 0: every old value is seen once. */
    int *counter = shmem_calloc(1, sizeof(int));
    unsigned long long *seen = shmem_calloc(ROUNDS * 64, sizeof(long long));
    for (int r = 0; r < ROUNDS; r++) {
        int old = shmem_int_atomic_fetch_add(counter, 1, 0);
        CHECK(old >= 0 && old < ROUNDS * n, "fetch_add gave %d", old);
        shmem_ulonglong_atomic_or(&seen[old / 64], 1ull << (old % 64), 0);
    }
    shmem_barrier_all();
    CHECK(shmem_int_atomic_fetch(counter, 0) == ROUNDS * n, "counter %d",
          shmem_int_atomic_fetch(counter, 0));
    for (int v = 0; v < ROUNDS * n; v++)
        CHECK(shmem_ulonglong_atomic_fetch(&seen[v / 64], 0) >> (v % 64) & 1,
              "old value %d never returned", v);
    /* Compare-and-swap: exactly one PE wins. */
    int *winners = shmem_calloc(1, sizeof(int));
    if (shmem_int_atomic_compare_swap(counter, ROUNDS * n, -1 - me, 0) == ROUNDS * n)
        shmem_int_atomic_inc(winners, 0);
    shmem_barrier_all();
    CHECK(shmem_int_atomic_fetch(winners, 0) == 1, "%d winners",
          shmem_int_atomic_fetch(winners, 0));
    int final = shmem_int_atomic_fetch(counter, 0);
    CHECK(final < 0 && final >= -n, "the winner wrote %d", final);
    shmem_barrier_all(); /* everyone has counted the winners */
    if (me == 0) CHECK(shmem_int_atomic_swap(winners, 5, 0) == 1, "swap");
    shmem_barrier_all();
    CHECK(shmem_int_atomic_fetch(winners, 0) == 5, "after the swap: %d",
          shmem_int_atomic_fetch(winners, 0));

    /* Producer and consumer: data, fence, flag; the consumer waits. */
    int *data = shmem_calloc(N, sizeof(int));
    int *flag = shmem_calloc(1, sizeof(int));
    int vals[N];
    for (int i = 0; i < N; i++) vals[i] = me * 7 + i + 1;
    shmem_int_put(data, vals, N, right);
    shmem_fence();
    shmem_int_p(flag, 1, right);
    shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < N; i++)
        CHECK(data[i] == left * 7 + i + 1, "data[%d] = %d", i, data[i]);
    CHECK(shmem_int_test(flag, SHMEM_CMP_GE, 1), "test of the flag");

    /* A lock around a read-modify-write of plain get and put on PE 0. */
    long *lock = shmem_calloc(1, sizeof(long));
    int *total = shmem_calloc(1, sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(lock);
        int v = shmem_int_g(total, 0);
        shmem_int_p(total, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK(shmem_int_g(total, 0) == ROUNDS * n, "locked total %d", shmem_int_g(total, 0));
    if (me == 0) CHECK(shmem_test_lock(lock) == 0, "test_lock of a free lock");
    shmem_barrier_all();
    if (me == n - 1 && n > 1) CHECK(shmem_test_lock(lock) == 1, "test_lock of a held lock");
    shmem_barrier_all();
    if (me == 0) shmem_clear_lock(lock);

    /* Collectives. */
    int *bsrc = shmem_malloc(N * sizeof(int)), *bdst = shmem_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) bsrc[i] = me * 3 + i;
    shmem_int_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, N, n - 1);
    for (int i = 0; i < N; i++)
        CHECK(bdst[i] == (n - 1) * 3 + i, "broadcast[%d] = %d", i, bdst[i]);
    long *mine = shmem_malloc(2 * sizeof(long)), *all = shmem_malloc(2 * n * sizeof(long));
    mine[0] = me;
    mine[1] = -me;
    shmem_long_fcollect(SHMEM_TEAM_WORLD, all, mine, 2);
    for (int i = 0; i < n; i++)
        CHECK(all[2 * i] == i && all[2 * i + 1] == -i, "fcollect of PE %d", i);
    /* collect: PE i gives i % 3 + 1 elements. */
    int *part = shmem_malloc(3 * sizeof(int)), *parts = shmem_malloc(3 * n * sizeof(int));
    for (int i = 0; i < 3; i++) part[i] = me * 10 + i;
    shmem_int_collect(SHMEM_TEAM_WORLD, parts, part, me % 3 + 1);
    for (int pe = 0, at = 0; pe < n; pe++)
        for (int i = 0; i <= pe % 3; i++, at++)
            CHECK(parts[at] == pe * 10 + i, "collect[%d] = %d", at, parts[at]);
    int *to = shmem_malloc(n * sizeof(int)), *from = shmem_malloc(n * sizeof(int));
    for (int j = 0; j < n; j++) to[j] = me * 100 + j;
    shmem_int_alltoall(SHMEM_TEAM_WORLD, from, to, 1);
    for (int j = 0; j < n; j++)
        CHECK(from[j] == j * 100 + me, "alltoall from %d: %d", j, from[j]);
    int *rsrc = shmem_malloc(4 * sizeof(int)), *rdst = shmem_malloc(4 * sizeof(int));
    rsrc[0] = me + 1;
    rsrc[1] = me + 1;
    rsrc[2] = me + 1;
    rsrc[3] = 1 << (me % 31);
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, 1);
    CHECK(rdst[0] == n * (n + 1) / 2, "sum %d", rdst[0]);
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, rdst + 1, rsrc + 1, 1);
    CHECK(rdst[1] == n, "max %d", rdst[1]);
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, rdst + 2, rsrc + 2, 1);
    CHECK(rdst[2] == 1, "min %d", rdst[2]);
    shmem_uint_or_reduce(SHMEM_TEAM_WORLD, (unsigned *)rdst + 3, (unsigned *)rsrc + 3, 1);
    int want_or = 0;
    for (int i = 0; i < n; i++) want_or |= 1 << (i % 31);
    CHECK(rdst[3] == want_or, "or %x", rdst[3]);
    double *dsrc = shmem_malloc(sizeof(double)), *ddst = shmem_malloc(sizeof(double));
    *dsrc = 0.5 * me;
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 1);
    CHECK(*ddst == 0.25 * n * (n - 1), "double sum %f", *ddst);

    /* The heap: the same offsets everywhere, shmem_ptr, accessibility. */
    CHECK(shmem_ptr(ring, me) == ring && (n == 1 || shmem_ptr(ring, right) == NULL), "shmem_ptr");
    CHECK(shmem_addr_accessible(ring, right) && !shmem_addr_accessible(src, right),
          "addr_accessible");
    CHECK(shmem_pe_accessible(n - 1) && !shmem_pe_accessible(n), "pe_accessible");
    long offsets[1] = {(long)((char *)from - (char *)ring)};
    long *offs = shmem_malloc(sizeof(long)), *offmax = shmem_malloc(sizeof(long));
    *offs = offsets[0];
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, offmax, offs, 1);
    CHECK(*offmax == offsets[0], "offsets differ: %ld and %ld", *offmax, offsets[0]);

    double t1 = shmem_wtime();
    CHECK(t1 > t0, "wtime %f then %f", t0, t1);
    shmem_free(ring);
    shmem_free(cells);
    printf("PE %d of %d: openshmem checks passed\n", me, n);
    if (me == 0) shmemx_print_stats();
    shmem_finalize();
    return 0;
}
