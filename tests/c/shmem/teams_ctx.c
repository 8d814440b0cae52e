/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* teams_ctx.c: OpenSHMEM 1.5's teams, contexts, signals, non-blocking
 * atomics, multi-variable waits, alltoalls and C11 generic routines,
 * each value checked. Needs 2 PEs or more; 4 or more split a grid. */
#include "check.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>

long sum_src[4], sum_dst[4];
long bcast_dst[4], bcast_src[4];
long coll_dst[64];
long counter;
int ints[4];
uint64_t sig;
long data[4];
int a2a_src[128], a2a_dst[128];
long double ld;
double _Complex zsrc, zdst;
float _Complex fsrc, fdst;
long double ldsrc, lddst;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK(n >= 2 && n <= 32, "needs 2 to 32 PEs, has %d", n);

    /* Contexts: the default one, made ones, their team, an invalid one. */
    shmem_team_t team;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "the default context's team");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0 && team == SHMEM_TEAM_INVALID,
          "SHMEM_CTX_INVALID's team");
    shmem_ctx_t ctx[3];
    for (int i = 0; i < 3; i++)
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx[i]) == 0, "shmem_ctx_create %d", i);
    for (int i = 0; i < 3; i++)
        shmem_ctx_long_atomic_inc(ctx[i], &counter, right);
    shmem_ctx_long_p(ctx[0], &data[0], 40 + me, right);
    for (int i = 0; i < 3; i++)
        shmem_ctx_quiet(ctx[i]);
    shmem_sync_all();
    CHECK(counter == 3, "counter is %ld after 3 context increments", counter);
    CHECK(data[0] == 40 + left, "data[0] is %ld", data[0]);
    CHECK(shmem_ctx_long_g(ctx[1], &data[0], right) == 40 + me, "ctx g");
    for (int i = 0; i < 3; i++)
        shmem_ctx_destroy(ctx[i]);
    shmem_barrier_all();

    /* C11 generic routines, with and without a context. */
    shmem_p(&ints[0], me + 1, right);
    shmem_p(SHMEM_CTX_DEFAULT, &ints[1], me + 2, right);
    shmem_atomic_add(&counter, 10L, right);
    shmem_atomic_add(SHMEM_CTX_DEFAULT, &counter, 100L, right);
    shmem_barrier_all();
    CHECK(ints[0] == left + 1 && ints[1] == left + 2, "generic p: %d %d", ints[0], ints[1]);
    CHECK(counter == 113, "generic atomic_add: %ld", counter);
    CHECK(shmem_g(&ints[0], right) == me + 1, "generic g");
    ld = 1.5L * me;
    shmem_barrier_all();
    CHECK(shmem_longdouble_g(&ld, right) == 1.5L * right, "long double g");

    /* Non-blocking fetching atomics. */
    long old = -1;
    shmem_barrier_all();
    shmem_long_atomic_fetch_add_nbi(&old, &counter, 1, right);
    shmem_quiet();
    CHECK(old == 113, "fetch_add_nbi fetched %ld", old);
    shmem_barrier_all();
    shmem_long_atomic_swap_nbi(&old, &counter, 7, right);
    shmem_quiet();
    CHECK(old == 114, "swap_nbi fetched %ld", old);
    shmem_barrier_all();
    shmem_long_atomic_compare_swap_nbi(&old, &counter, 7, 8, right);
    shmem_quiet();
    CHECK(old == 7, "compare_swap_nbi fetched %ld", old);
    shmem_barrier_all();
    CHECK(counter == 8, "counter is %ld", counter);

    /* Signals: data then signal, waited for. */
    long payload[4] = {me, me + 1, me + 2, me + 3};
    shmem_long_put_signal(data, payload, 4, &sig, 1, SHMEM_SIGNAL_ADD, right);
    uint64_t got = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    CHECK(got == 1 && data[3] == left + 3, "signal %llu, data[3] %ld", (unsigned long long)got,
          data[3]);
    shmem_barrier_all();
    shmem_putmem_signal(data, payload, sizeof(long), &sig, 5, SHMEM_SIGNAL_SET, right);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig) == 5, "signal_fetch");

    /* Waits and tests on several variables. */
    for (int i = 0; i < 4; i++)
        ints[i] = 0;
    shmem_barrier_all();
    shmem_int_p(&ints[2], 9, right);
    size_t hit = shmem_int_wait_until_any(ints, 4, NULL, SHMEM_CMP_EQ, 9);
    CHECK(hit == 2, "wait_until_any found %u", (unsigned)hit);
    int status[4] = {0, 1, 1, 1};
    CHECK(shmem_int_test_any(ints, 4, status, SHMEM_CMP_EQ, 9) == SIZE_MAX, "test_any skips");
    size_t idx[4];
    CHECK(shmem_int_test_some(ints, 4, idx, NULL, SHMEM_CMP_NE, 0) == 1 && idx[0] == 2,
          "test_some");
    int want[4] = {0, 0, 9, 0};
    shmem_int_wait_until_all_vector(ints, 4, NULL, SHMEM_CMP_EQ, want);
    CHECK(shmem_int_test_all(ints, 4, status, SHMEM_CMP_EQ, 0) == 1, "test_all of ints[0]");
    CHECK(shmem_int_test_all(ints, 4, NULL, SHMEM_CMP_EQ, 0) == 0, "test_all of all");
    shmem_barrier_all();

    /* A strided team (every other PE) and a reversed one. */
    shmem_team_t evens, reversed;
    shmem_team_config_t config = {.num_contexts = 3}, got_config;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &config,
                                   SHMEM_TEAM_NUM_CONTEXTS, &evens) == 0,
          "split even");
    CHECK(evens == SHMEM_TEAM_INVALID
              || (shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &got_config) == 0
                  && got_config.num_contexts == 3),
          "the evens' configuration");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &got_config) != 0, "invalid config");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &reversed) == 0,
          "split reversed");
    CHECK((me % 2 == 0) == (evens != SHMEM_TEAM_INVALID), "membership of evens");
    CHECK(shmem_team_my_pe(reversed) == n - 1 - me, "index in reversed");
    CHECK(shmem_team_translate_pe(reversed, 0, SHMEM_TEAM_WORLD) == n - 1, "translate");
    if (evens != SHMEM_TEAM_INVALID) {
        int size = shmem_team_n_pes(evens);
        CHECK(size == (n + 1) / 2 && shmem_team_my_pe(evens) == me / 2, "evens size");
        for (int i = 0; i < 4; i++)
            sum_src[i] = me + i;
        shmem_sync(evens);
        shmem_long_sum_reduce(evens, sum_dst, sum_src, 4);
        long expect = 0;
        for (int p = 0; p < n; p += 2)
            expect += p;
        CHECK(sum_dst[1] == expect + size, "evens sum %ld", sum_dst[1]);
        bcast_src[0] = 100 + me;
        shmem_team_sync(evens);
        shmem_long_broadcast(evens, bcast_dst, bcast_src, 1, size - 1);
        CHECK(bcast_dst[0] == 100 + 2 * (size - 1), "evens broadcast %ld", bcast_dst[0]);
        shmem_long_fcollect(evens, coll_dst, &bcast_src[0], 1);
        for (int i = 0; i < size; i++)
            CHECK(coll_dst[i] == 100 + 2 * i, "evens fcollect[%d] %ld", i, coll_dst[i]);
        shmem_team_ptr(evens, coll_dst, shmem_team_my_pe(evens));
        shmem_team_destroy(evens);
    }
    shmem_team_t twice;
    shmem_team_split_strided(reversed, 0, 1, n, NULL, 0, &twice);
    shmem_long_max_reduce(twice, sum_dst, &bcast_src[0], 1);
    shmem_team_destroy(twice);
    shmem_team_destroy(reversed);
    shmem_team_destroy(SHMEM_TEAM_INVALID);

    /* A grid of rows of 2. */
    shmem_team_t xteam, yteam;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xteam, NULL, 0, &yteam) == 0,
          "split_2d");
    CHECK(shmem_team_my_pe(xteam) == me % 2 && shmem_team_my_pe(yteam) == me / 2,
          "grid indices %d %d", shmem_team_my_pe(xteam), shmem_team_my_pe(yteam));
    shmem_team_sync(yteam);
    shmem_team_destroy(xteam);
    shmem_team_destroy(yteam);

    /* Strided alltoall: element k of block j to element k of block me. */
    for (int i = 0; i < 2 * n * 2; i++)
        a2a_src[i] = me * 1000 + i;
    shmem_barrier_all();
    shmem_int_alltoalls(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 1, 2, 2);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            CHECK(a2a_dst[j * 2 + k] == j * 1000 + (me * 2 + k) * 2, "alltoalls [%d][%d] %d", j,
                  k, a2a_dst[j * 2 + k]);

    /* Complex and long double reductions. */
    zsrc = CMPLX(me + 1, 1);
    fsrc = CMPLXF(0, 1);
    ldsrc = me + 0.5L;
    shmem_barrier_all();
    shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, &zdst, &zsrc, 1);
    CHECK(creal(zdst) == n * (n + 1) / 2 && cimag(zdst) == n, "complexd sum %f%+fi",
          creal(zdst), cimag(zdst));
    shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, &fdst, &fsrc, 1);
    float _Complex want_f = 1;
    for (int i = 0; i < n; i++)
        want_f *= CMPLXF(0, 1);
    CHECK(cabsf(fdst - want_f) < 1e-6f, "complexf prod %f%+fi", crealf(fdst), cimagf(fdst));
    shmem_longdouble_max_reduce(SHMEM_TEAM_WORLD, &lddst, &ldsrc, 1);
    CHECK(fabsl(lddst - (n - 0.5L)) < 1e-15L, "long double max");
    shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, &lddst, &ldsrc, 1);
    CHECK(fabsl(lddst - n * n / 2.0L) < 1e-15L, "long double sum");

    long *hinted = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(hinted != NULL, "shmem_malloc_with_hints");
    shmem_free(hinted);
    shmem_pcontrol(1);

    printf("PE %d of %d: teams and contexts checks passed\n", me, n);
    shmem_finalize();
    return 0;
}
